/*
 * PublicApiTest: the public surface of dev.graft is the designed classes only. SWIG's own
 * classes (the JNI class, the module class and its constants interface, the vector classes,
 * the directors, pointer wrappers) are package-private; no public or protected member of a
 * public class names a package-private class, and no proxy shows its C pointer (the
 * (long, boolean) constructor, getCPtr, delete).
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class PublicApiTest {
  /** Every class of dev.graft in the jar (or directory) Tensor came from, not initialized. */
  private static List<Class<?>> packageClasses() throws Exception {
    File where = new File(Tensor.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> names = new ArrayList<>();
    if (where.isDirectory()) {
      for (String f : new File(where, "dev/graft").list())
        if (f.endsWith(".class")) names.add("dev.graft." + f.substring(0, f.length() - 6));
    } else {
      try (JarFile jar = new JarFile(where)) {
        for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements();) {
          String n = e.nextElement().getName();
          if (n.startsWith("dev/graft/") && n.endsWith(".class") && n.indexOf('/', 10) < 0)
            names.add(n.substring(0, n.length() - 6).replace('/', '.'));
        }
      }
    }
    List<Class<?>> out = new ArrayList<>();
    for (String n : names) out.add(Class.forName(n, false, Tensor.class.getClassLoader()));
    return out;
  }

  private static boolean isPublicApi(Class<?> c) {
    for (Class<?> k = c; k != null; k = k.getEnclosingClass())
      if (!Modifier.isPublic(k.getModifiers())) return false;
    return true;
  }

  @Test
  void swigInternalsArePackagePrivate() throws Exception {
    Set<String> publicNames = new TreeSet<>();
    for (Class<?> c : packageClasses())
      if (isPublicApi(c)) publicNames.add(c.getSimpleName());
    for (String internal : List.of("graft_swig", "graft_swigJNI", "graft_swigConstants", "TensorVector",
                                   "OutputVector", "Int64Vector", "StringVectorVector", "ValueVectorVector",
                                   "SWIGTYPE_p_int", "TraceBody", "HostFunction", "DeviceFunction",
                                   "GradientFunction", "GradientContext", "Arg", "ValueList", "TensorList",
                                   "FunctionCall", "NdArrays", "NativeHandle")) {
      assertFalse(publicNames.contains(internal), internal + " is public");
    }
    for (String designed : List.of("Tensor", "Graph", "Session", "Result", "SavedModel", "Context", "Value",
                                   "Status", "AttrType", "DType", "GraftException", "Function", "GradientTape"))
      assertTrue(publicNames.contains(designed), designed + " is not public: " + publicNames);
  }

  private static final Pattern GRAFT_CLASS = Pattern.compile("dev\\.graft\\.[A-Za-z0-9_$]+");

  @Test
  void publicMembersNameOnlyPublicClasses() throws Exception {
    Set<String> publicClasses = new TreeSet<>();
    List<Class<?>> all = packageClasses();
    for (Class<?> c : all)
      if (isPublicApi(c)) publicClasses.add(c.getName());
    List<String> leaks = new ArrayList<>();
    for (Class<?> c : all) {
      if (!isPublicApi(c)) continue;
      List<Member> members = new ArrayList<>();
      members.addAll(List.of(c.getDeclaredMethods()));
      members.addAll(List.of(c.getDeclaredConstructors()));
      members.addAll(List.of(c.getDeclaredFields()));
      for (Member m : members) {
        int mod = m.getModifiers();
        if (!Modifier.isPublic(mod) && !Modifier.isProtected(mod)) continue;
        if (m instanceof Executable && ((Executable) m).isSynthetic()) continue;
        String signature = m instanceof Method ? ((Method) m).toGenericString()
            : m instanceof Constructor ? ((Constructor<?>) m).toGenericString() : ((Field) m).toGenericString();
        Matcher x = GRAFT_CLASS.matcher(signature);
        while (x.find()) {
          if (!publicClasses.contains(x.group())) leaks.add(signature + " names " + x.group());
        }
        boolean pointerCtor = m instanceof Constructor
            && List.of(((Constructor<?>) m).getParameterTypes()).equals(List.of(long.class, boolean.class));
        if (pointerCtor || m.getName().equals("getCPtr") || m.getName().equals("delete")
            || m.getName().equals("swigRelease"))
          leaks.add(signature + " shows the C pointer");
      }
    }
    assertEquals(List.of(), leaks);
  }
}
