#include "core/runtime/control_flow_kernels.h"

#include <span>
#include <string>
#include <vector>

#include "core/runtime/function_runner.h"
#include "core/tensor_truth.h"

namespace graft {
namespace {

// Instantiates the function of func attr `attr` ("then_branch", "body", ...).
Status CreateRunner(const Node& node, const char* attr, std::shared_ptr<const FunctionRunner>* out) {
  const AttrValue* a = node.attr(attr);
  const FuncValue* fv = a ? a->get<FuncValue>() : nullptr;
  if (fv == nullptr) return errors::InvalidArgument("attr '", attr, "' is missing or not a function");
  if (!fv->attrs.empty()) {
    return errors::Unimplemented(attr, ": calls of function '", fv->name, "' with attrs are not supported");
  }
  // Branches and loop bodies place their ops as a call's body does: by the op's device.
  const std::string device = node.device().empty() ? FunctionRunner::PreparingDefaultDevice() : node.device();
  return FunctionRunner::Create(*node.graph(), fv->name, out, device).WithContext(attr);
}

// "then_branch function 'f'".
std::string Role(const char* attr, const FunctionRunner& f) {
  std::string s(attr);
  s.append(" function '").append(f.name()).append("'");
  return s;
}

// Checks that f takes arguments of dtypes args.
Status CheckArgs(const char* attr, const FunctionRunner& f, std::string_view op, std::span<const DType> args) {
  if (f.num_args() != args.size()) {
    return errors::InvalidArgument(Role(attr, f), " takes ", f.num_args(), " arguments, but ", op, " passes ",
                                   args.size());
  }
  for (size_t i = 0; i < args.size(); ++i) {
    if (f.arg_type(i) != args[i]) {
      return errors::DTypeError(Role(attr, f), " argument '", f.body().arg_names[i], "' is ", DTypeName(f.arg_type(i)),
                                ", but ", op, " passes ", DTypeName(args[i]));
    }
  }
  return Status::Ok();
}

// Checks that f returns results of dtypes results.
Status CheckResults(const char* attr, const FunctionRunner& f, std::string_view op, std::span<const DType> results) {
  if (f.num_results() != results.size()) {
    return errors::InvalidArgument(Role(attr, f), " returns ", f.num_results(), " results, but ", op, " expects ",
                                   results.size());
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (f.result_type(i) != results[i]) {
      return errors::DTypeError(Role(attr, f), " result '", f.body().ret_names[i], "' is ",
                                DTypeName(f.result_type(i)), ", but ", op, " expects ", DTypeName(results[i]));
    }
  }
  return Status::Ok();
}

std::vector<DType> InputTypes(const Node& n, int first) {
  std::vector<DType> v;
  for (int i = first; i < n.num_inputs(); ++i) v.push_back(n.input_type(i));
  return v;
}

std::vector<DType> OutputTypes(const Node& n) {
  std::vector<DType> v;
  for (int i = 0; i < n.num_outputs(); ++i) v.push_back(n.output_type(i));
  return v;
}

// If / StatelessIf(cond, inputs...): runs then_branch(inputs...) when cond is true, else
// else_branch(inputs...).
class IfKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;

  Status Init() {
    const std::vector<DType> in = InputTypes(node(), 1), out = OutputTypes(node());
    GRAFT_RETURN_IF_ERROR(CreateRunner(node(), "then_branch", &then_));
    GRAFT_RETURN_IF_ERROR(CreateRunner(node(), "else_branch", &else_));
    for (auto [attr, f] : {std::pair{"then_branch", then_.get()}, std::pair{"else_branch", else_.get()}}) {
      GRAFT_RETURN_IF_ERROR(CheckArgs(attr, *f, node().type(), in));
      GRAFT_RETURN_IF_ERROR(CheckResults(attr, *f, node().type(), out));
    }
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    bool cond = false;
    GRAFT_RETURN_IF_ERROR(TensorTruth(ctx.input(0), &cond).WithContext("cond"));
    std::vector<Tensor> args;
    args.reserve(static_cast<size_t>(ctx.num_inputs() - 1));
    for (int i = 1; i < ctx.num_inputs(); ++i) args.push_back(ctx.input(i));
    std::vector<Tensor> results;
    GRAFT_RETURN_IF_ERROR((cond ? then_ : else_)->Run(args, ctx.resources(), &results, ctx.run_control()));
    for (size_t i = 0; i < results.size(); ++i) ctx.SetOutput(static_cast<int>(i), std::move(results[i]));
    return Status::Ok();
  }

 private:
  std::shared_ptr<const FunctionRunner> then_, else_;
};

// While / StatelessWhile(inputs...): the loop variables start as the inputs; while
// cond(vars...) is true, vars = body(vars...); the outputs are the final vars. cond must
// return one scalar (a bool, or a number or string converted as If's cond is).
// parallel_iterations does not matter here: iterations run one after another.
class WhileKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;

  Status Init() {
    types_ = InputTypes(node(), 0);
    GRAFT_RETURN_IF_ERROR(CreateRunner(node(), "cond", &cond_));
    GRAFT_RETURN_IF_ERROR(CreateRunner(node(), "body", &body_));
    GRAFT_RETURN_IF_ERROR(CheckArgs("cond", *cond_, node().type(), types_));
    if (cond_->num_results() != 1) {
      return errors::InvalidArgument(Role("cond", *cond_), " returns ", cond_->num_results(),
                                     " results, but must return one scalar");
    }
    if (!HasTruthValue(cond_->result_type(0))) {
      return errors::DTypeError(Role("cond", *cond_), " returns ", DTypeName(cond_->result_type(0)),
                                ", which cannot be converted to a boolean");
    }
    GRAFT_RETURN_IF_ERROR(CheckArgs("body", *body_, node().type(), types_));
    GRAFT_RETURN_IF_ERROR(CheckResults("body", *body_, StrCat(node().type(), " (its loop variables)"), types_));
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    std::vector<Tensor> vars;
    vars.reserve(static_cast<size_t>(ctx.num_inputs()));
    for (int i = 0; i < ctx.num_inputs(); ++i) vars.push_back(ctx.input(i));
    std::vector<Tensor> pred, next;
    for (int64_t iteration = 0;; ++iteration) {
      auto where = [&] { return StrCat("iteration ", iteration); };
      // (The nested runs check before each kernel; this catches a loop of no kernels too.)
      if (ctx.run_control() != nullptr) GRAFT_RETURN_IF_ERROR(ctx.run_control()->Check(node(), /*inside=*/true).WithContext(where()));
      GRAFT_RETURN_IF_ERROR(cond_->Run(vars, ctx.resources(), &pred, ctx.run_control()).WithContext(where()));
      if (pred.size() != 1 || !pred[0].valid() || pred[0].rank() != 0) {
        return errors::InvalidArgument(where(), ": ", Role("cond", *cond_), " returned ",
                                       pred.size() == 1 ? StrCat("a tensor of shape ", pred[0].shape().ToString())
                                                        : StrCat(pred.size(), " tensors"),
                                       ", but must return a scalar");
      }
      bool go = false;
      GRAFT_RETURN_IF_ERROR(TensorTruth(pred[0], &go).WithContext(StrCat(where(), ": ", Role("cond", *cond_))));
      if (!go) break;
      GRAFT_RETURN_IF_ERROR(body_->Run(vars, ctx.resources(), &next, ctx.run_control()).WithContext(where()));
      if (next.size() != vars.size()) {
        return errors::InvalidArgument(where(), ": ", Role("body", *body_), " returned ", next.size(),
                                       " values for ", vars.size(), " loop variables");
      }
      for (size_t i = 0; i < next.size(); ++i) {
        if (!next[i].valid() || next[i].dtype() != types_[i]) {
          return errors::DTypeError(where(), ": ", Role("body", *body_), " returned ",
                                    next[i].valid() ? DTypeName(next[i].dtype()) : std::string("no value"),
                                    " for loop variable ", i, ", which is ", DTypeName(types_[i]));
        }
      }
      vars.swap(next);
    }
    for (size_t i = 0; i < vars.size(); ++i) ctx.SetOutput(static_cast<int>(i), std::move(vars[i]));
    return Status::Ok();
  }

 private:
  std::vector<DType> types_;
  std::shared_ptr<const FunctionRunner> cond_, body_;
};

}  // namespace

void RegisterControlFlowKernels(KernelRegistry& r) {
  for (const char* op : {"If", "StatelessIf"}) (void)r.Register(op, kDeviceCpu, "", {}, &CreateKernel<IfKernel>);
  for (const char* op : {"While", "StatelessWhile"}) {
    (void)r.Register(op, kDeviceCpu, "", {}, &CreateKernel<WhileKernel>);
  }
}

}  // namespace graft
