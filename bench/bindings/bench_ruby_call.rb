# frozen_string_literal: true

# The per-call cost of a cached one-op function (x + x on a scalar) called from Ruby, and the
# binding's floor (one call into libgraft that does nothing). Issue #23's goal: under 2 µs per
# function call. Run by bench/bench_bindings_call.sh.
require "graft"

def best_micros(n)
  n.times { yield }
  (1..5).map do
    start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    n.times { yield }
    (Process.clock_gettime(Process::CLOCK_MONOTONIC) - start) * 1e6 / n
  end.min
end

n = 100_000
f = Graft.function("twice") { |ctx, x| ctx.op(:AddV2, x, x) }
x = Graft.default_context.constant(1.5)
f.call(x)
call = best_micros(n) { f.call(x) }
floor = best_micros(n) { Graft_swig.graft_version }
printf("ruby function_call_us %.3f\n", call)
printf("ruby floor_us %.3f\n", floor)
