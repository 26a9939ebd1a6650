/*
 * GraphDevices: keeps the device functions pushed on each graph (Graph.pushDeviceFunction)
 * referenced until they are popped, since C++ calls them for every op created meanwhile. The
 * stack mirrors the graph's device stack (null for a plain device string).
 */
package dev.graft;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

final class GraphDevices {
  private static final Object LOCK = new Object();
  private static final Map<Long, List<DeviceFunction>> STACKS = new HashMap<>();

  private GraphDevices() {}

  static Object lock(Graph graph) {
    return LOCK;
  }

  static void push(Graph graph, DeviceFunction fn) {
    STACKS.computeIfAbsent(graph.id(), k -> new ArrayList<>()).add(fn);
  }

  static void pop(Graph graph) {
    List<DeviceFunction> stack = STACKS.get(graph.id());
    if (stack == null) return;
    stack.remove(stack.size() - 1); // collected afterwards: C++ no longer calls it
    if (stack.isEmpty()) STACKS.remove(graph.id());
  }
}
