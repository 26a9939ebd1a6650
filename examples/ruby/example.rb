# frozen_string_literal: true

# examples/ruby/example.rb: Graft from Ruby: a graph with a MatMul run by a session, a block
# traced into a function (two shapes: two traces, then a cache hit), and a host function.
#
#   ruby -I bindings/ruby/lib -I <build>/bindings/ruby/ext examples/ruby/example.rb

require "graft"

# A graph: y = x @ w, x fed at run time.
graph = Graft::Graph.new
x = graph.placeholder(:float32, shape: [nil, 2], name: "x")
w = graph.const([[1.0, 2.0], [3.0, 4.0]], name: "w")
y = graph.op(:MatMul, x, w, name: "y")
session = Graft::Session.new(graph)
result = session.run(y, x => [[1.0, 1.0], [0.5, 2.0]])
puts "MatMul: #{result.to_a.inspect}"
raise "unexpected MatMul result" unless result.to_a == [[4.0, 6.0], [6.5, 9.0]]

# A traced function: relu(x) * 2, traced once per input signature.
double_relu = Graft.function("double_relu") { |ctx, v| ctx.op(:Mul, ctx.op(:Relu, v), 2.0) }
puts "f([-1, 2])    = #{double_relu.call([-1.0, 2.0]).to_a.inspect}"
puts "f([3, -4, 5]) = #{double_relu.call([3.0, -4.0, 5.0]).to_a.inspect}"
puts "f([6, 7])     = #{double_relu.call([6.0, 7.0]).to_a.inspect}"
puts "traces: #{double_relu.tracing_count}"
raise "unexpected trace count" unless double_relu.tracing_count == 2

# A host function: Ruby code run by an op, here inside a traced function.
shout = Graft.host_function("shout") { |inputs| Graft.tensor(inputs[0].values.map(&:upcase)) }
greet = Graft.function("greet") { |ctx, names| ctx.host_call("shout", names, tout: :string) }
puts "host function: #{greet.call(Graft.tensor(%w[hello graft])).to_a.inspect}"

# Its failures are Ruby exceptions.
Graft.host_function("fail") { |_inputs| raise "no such word" }
begin
  Graft.default_context.host_call("fail", 1.0, tout: :float32)
rescue Graft::Error => e
  puts "error: #{e.code_name}: #{e.message}"
end
shout.unregister
Graft::HostFunction["fail"].unregister
