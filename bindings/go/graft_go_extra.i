/*
 * bindings/go/graft_go_extra.i: Go's additions to graft.i that need the shared layer's classes
 * (included after graft.hpp and graft_eager.hpp).
 */
/* ---- Function.Call's fast path ------------------------------------------------------------ */
%inline %{
namespace graft {
/* Go's Function.Call when every argument is a Value (bindings/go/function.go): the arguments'
 * addresses in, the results' addresses out (new Values the caller owns and frees with
 * DeleteValue), in one crossing of cgo where the general path makes one per argument and three
 * per result. */
inline std::vector<int64_t> go_function_call_values(Function &f, Context &ctx, const std::vector<int64_t> &args) {
  ArgList list;
  for (int64_t a : args) list.add_value(*reinterpret_cast<const Value *>(static_cast<uintptr_t>(a)));
  std::vector<Value> out = f.call(ctx, list);
  std::vector<int64_t> addrs;
  addrs.reserve(out.size());
  for (Value &v : out) addrs.push_back(static_cast<int64_t>(reinterpret_cast<uintptr_t>(new Value(std::move(v)))));
  return addrs;
}
}  // namespace graft
%}
