#!/usr/bin/env bash
# graft.jar as a user takes it: copied alone into a directory of its own, the example
# (examples/java/GraftExample.java) compiled against it and run with the jar alone on the
# class path (no java.library.path, no LD_LIBRARY_PATH): the jar's loader must extract its
# linux-x86_64 libraries and load them. Also checks the manifest's module name and the POM.
set -euo pipefail
# shellcheck source=expect_output.sh
. "$(dirname "$0")/expect_output.sh"
jar_file="$1"
pom_file="$2"
work="$3"
java_home_bin="$4"   # the JDK's bin directory (javac, java, jar)
src="$(cd "$(dirname "$0")/../.." && pwd)"

rm -rf "$work"
mkdir -p "$work/classes" "$work/tmp" "$work/empty"
cp "$jar_file" "$work/graft.jar"
(cd "$work" && "$java_home_bin/jar" xf graft.jar META-INF/MANIFEST.MF META-INF/maven/dev.graft/graft/pom.xml \
  dev/graft/native/)
# The jar's libraries carry no build path and no empty (current directory) run path entry.
for lib in "$work"/dev/graft/native/linux-x86_64/*.so*; do
  runpath="$(readelf -d "$lib" | sed -n 's/.*R\(UN\)\?PATH.*\[\(.*\)\]/\2/p')"
  case "$runpath" in
    ""|'$ORIGIN') ;;
    *) echo "FAIL: the jar's $(basename "$lib") has the run path '$runpath' (want \$ORIGIN or none)"; exit 1 ;;
  esac
done
grep -q "^Automatic-Module-Name: dev.graft" "$work/META-INF/MANIFEST.MF" \
  || { cat "$work/META-INF/MANIFEST.MF"; echo "FAIL: no Automatic-Module-Name: dev.graft"; exit 1; }
grep -q "<groupId>dev.graft</groupId>" "$work/META-INF/maven/dev.graft/graft/pom.xml" \
  || { echo "FAIL: the jar's POM lacks dev.graft"; exit 1; }
cmp -s "$pom_file" "$work/META-INF/maven/dev.graft/graft/pom.xml" || { echo "FAIL: $pom_file differs from the jar's"; exit 1; }
"$java_home_bin/jar" tf "$work/graft.jar" | grep -q "^dev/graft/native/linux-x86_64/libgraft_java.so$" \
  || { echo "FAIL: the jar holds no dev/graft/native/linux-x86_64/libgraft_java.so"; exit 1; }
echo "ok: manifest, POM and native libraries in the jar"

"$java_home_bin/javac" -cp "$work/graft.jar" -d "$work/classes" "$src/examples/java/GraftExample.java"
cd "$work"
# java.library.path an empty directory: System.loadLibrary cannot succeed, so a passing run
# loaded the jar's own copies.
out="$(env -u LD_LIBRARY_PATH -u JAVA_TOOL_OPTIONS -u _JAVA_OPTIONS "$java_home_bin/java" \
  -Djava.library.path="$work/empty" -Djava.io.tmpdir="$work/tmp" -cp "$work/graft.jar:$work/classes" GraftExample)"
echo "$out"
expect "the example's MatMul" "\[19\.0, 22\.0, 43\.0, 50\.0\]"
expect "the example's function" "\[20\.0, 30\.0, 42\.0\] (traces: 2)"
# The extracted copies are deleted once loaded.
if [ -n "$(ls -A "$work/tmp")" ]; then
  ls -R "$work/tmp"
  echo "FAIL: the extracted libraries were left in java.io.tmpdir"
  exit 1
fi
echo "ok: the jar alone on the class path"
