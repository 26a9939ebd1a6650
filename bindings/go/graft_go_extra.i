/*
 * bindings/go/graft_go_extra.i: Go's additions to graft.i that need the shared layer's classes
 * (included after graft.hpp and graft_eager.hpp).
 */
/* ---- Function.Call's fast path ------------------------------------------------------------ */
%inline %{
namespace graft {
/* Go's Function.Call when every argument is a Value (bindings/go/function.go): the arguments'
 * addresses in; out, a leading 1 and the results' addresses (new Values the caller owns and
 * frees with DeleteValue), in one crossing of cgo where the general path makes one per
 * argument and three per result. A failure leaves the vector empty (the %exception records
 * it), so that success needs no second call to read the error slot. */
inline std::vector<int64_t> go_function_call_values(Function &f, Context &ctx, const std::vector<int64_t> &args) {
  ArgList list;
  for (int64_t a : args) list.add_value(*reinterpret_cast<const Value *>(static_cast<uintptr_t>(a)));
  std::vector<Value> out = f.call(ctx, list);
  std::vector<int64_t> addrs;
  addrs.reserve(out.size() + 1);
  addrs.push_back(1);
  for (Value &v : out) addrs.push_back(static_cast<int64_t>(reinterpret_cast<uintptr_t>(new Value(std::move(v)))));
  return addrs;
}
}  // namespace graft
%}
