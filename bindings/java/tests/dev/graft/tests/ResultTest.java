/*
 * ResultTest: what Session.run, Callable.run and SavedModel.run return: a Result holding the
 * output tensors by index and by name, iterable, closing every tensor it still owns on close()
 * (a taken one stays open); SavedModel.run by signature input keys, refusing a key the
 * signature lacks by name.
 */
package dev.graft.tests;

import static org.junit.jupiter.api.Assertions.*;

import dev.graft.*;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultTest {
  /** x (a float32 vector placeholder), sq = x * x, neg = -x. */
  private static Output[] graph(Graph g) {
    Output x = g.opBuilder("Placeholder", "x").setAttrDtype("dtype", DType.FLOAT32)
                   .setAttrShape("shape", new Shape(new long[] {-1})).finish().output(0);
    Output sq = g.opBuilder("Square", "sq").addInput(x).finish().output(0);
    Output neg = g.opBuilder("Neg", "neg").addInput(x).finish().output(0);
    return new Output[] {x, sq, neg};
  }

  @Test
  void sessionRunGivesAResult() {
    try (Graph g = new Graph(); Session s = new Session(g); Tensor xv = Tensor.fromArray(new float[] {2, 3})) {
      Output[] o = graph(g);
      Tensor sq;
      Tensor neg;
      try (Result r = s.run(List.of(o[1], o[2]), Map.of(o[0], xv))) {
        assertEquals(2, r.size());
        assertFalse(r.isEmpty());
        assertEquals(List.of("sq:0", "neg:0"), r.names());
        sq = r.get(0);
        neg = r.get("neg:0");
        assertSame(neg, r.get(1));
        assertSame(sq, r.get("sq")); // an op's name: its output 0
        assertTrue(r.contains("neg"));
        assertFalse(r.contains("x:0"));
        assertArrayEquals(new float[] {4, 9}, sq.toFloats());
        assertArrayEquals(new float[] {-2, -3}, (float[]) neg.toArray());
        List<Tensor> seen = new ArrayList<>();
        for (Tensor t : r) seen.add(t);
        assertEquals(List.of(sq, neg), seen);
        assertEquals(List.of(sq, neg), r.asList());
        assertTrue(r.toString().contains("sq:0=Tensor(float32, [2])"), r.toString());

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> r.get("nothing:0"));
        assertTrue(e.getMessage().contains("'nothing:0'") && e.getMessage().contains("[sq:0, neg:0]"), e.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> r.get(2));
      }
      // close() closed both tensors: using one now throws, as any closed object does.
      assertTrue(sq.isClosed());
      assertTrue(neg.isClosed());
      assertThrows(IllegalStateException.class, sq::toFloats);
      assertThrows(IllegalStateException.class, neg::shape);
    }
  }

  @Test
  void closedResultAndTakenTensors() {
    try (Graph g = new Graph(); Session s = new Session(g); Tensor xv = Tensor.fromArray(new float[] {5})) {
      Output[] o = graph(g);
      Result r = s.run(List.of(o[1], o[2], o[1]), Map.of(o[0], xv));
      assertEquals(List.of("sq:0", "neg:0", "sq:0"), r.names()); // a fetch twice: two tensors
      Tensor kept = r.take("neg:0");
      Tensor first = r.get(0);
      Tensor again = r.get(2);
      assertNotSame(first, again);
      r.close();
      r.close(); // idempotent
      assertTrue(r.isClosed());
      assertEquals("Result(closed)", r.toString());
      assertTrue(first.isClosed());
      assertTrue(again.isClosed());
      assertFalse(kept.isClosed());
      assertArrayEquals(new float[] {-5}, kept.toFloats());
      kept.close();
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> r.get(0));
      assertTrue(e.getMessage().contains("closed Result"), e.getMessage());
      assertThrows(IllegalStateException.class, () -> r.get("sq:0"));
      assertThrows(IllegalStateException.class, r::iterator);

      // s.run(...).get(0) without closing the result: the tensor stays usable.
      float[] y = s.run(List.of(o[1]), Map.of(o[0], xv)).get(0).toFloats();
      assertArrayEquals(new float[] {25}, y);
    }
  }

  @Test
  void callableRunGivesAResult() {
    try (Graph g = new Graph(); Session s = new Session(g)) {
      Output[] o = graph(g);
      try (Callable c = new Callable(s, List.of(o[2], o[1]), List.of(o[0]), List.of());
           Tensor xv = Tensor.fromArray(new float[] {1, -4});
           Result r = c.run(List.of(xv))) {
        assertEquals(List.of("neg:0", "sq:0"), r.names());
        assertArrayEquals(new float[] {-1, 4}, r.get("neg").toFloats());
        assertArrayEquals(new float[] {1, 16}, r.get(1).toFloats());
        Result again = c.run(List.of(xv), 60000, new Cancellation());
        assertArrayEquals(new float[] {1, 16}, again.get("sq:0").toFloats());
        again.close();
        assertThrows(IllegalStateException.class, () -> again.get(0));
      }
    }
  }

  /** A SavedModel of graph() with the signature "serving_default": x -> {sq, neg}. */
  private static String save(Path dir) {
    String path = dir.resolve("model").toString();
    try (Graph g = new Graph(); Session s = new Session(g)) {
      Output[] o = graph(g);
      SavedModel.save(s, path, List.of("serve"), List.of("serving_default", "square"),
                      List.of(List.of("x"), List.of("x")), List.of(List.of(o[0]), List.of(o[0])),
                      List.of(List.of("sq", "neg"), List.of("y")), List.of(List.of(o[1], o[2]), List.of(o[1])));
    }
    return path;
  }

  @Test
  void savedModelRunByInputNames(@TempDir Path dir) {
    String path = save(dir);
    try (SavedModel m = SavedModel.load(path); Tensor xv = Tensor.fromArray(new float[] {3})) {
      assertEquals(List.of("serving_default", "square"), m.signatureNames());
      Tensor sq;
      try (Result r = m.run(Map.of("x", xv))) {
        // every output of the signature, named by its keys
        assertEquals(2, r.size());
        assertTrue(r.names().containsAll(List.of("sq", "neg")), r.names().toString());
        sq = r.get("sq");
        assertArrayEquals(new float[] {9}, sq.toFloats());
        assertArrayEquals(new float[] {-3}, r.get("neg").toFloats());
      }
      assertThrows(IllegalStateException.class, sq::toFloats);

      try (Result r = m.run("serving_default", Map.of("x", xv), List.of("neg"))) {
        assertEquals(List.of("neg"), r.names());
        assertArrayEquals(new float[] {-3}, r.get(0).toFloats());
      }
      try (Result r = m.run("square", Map.of("x", xv))) {
        assertArrayEquals(new float[] {9}, r.get("y").toFloats());
      }

      Map<String, Tensor> wrong = new LinkedHashMap<>();
      wrong.put("x", xv);
      wrong.put("inputs", xv);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> m.run(wrong));
      assertEquals("graft: signature 'serving_default' has no input 'inputs' (it has [x])", e.getMessage());
      e = assertThrows(IllegalArgumentException.class, () -> m.run("serving_default", Map.of("x", xv), List.of("z")));
      assertTrue(e.getMessage().contains("no output 'z'"), e.getMessage());
      GraftException missing = assertThrows(GraftException.class, () -> m.run("nope", Map.of("x", xv)));
      assertEquals(Status.ENOTFOUND, missing.code());
      assertTrue(missing.getMessage().contains("nope"), missing.getMessage());
    }
  }
}
