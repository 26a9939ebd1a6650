// CPU kernels of the tensor-list ops (TensorFlow 2's TensorArray is built on them):
// TensorListReserve, TensorListSetItem, TensorListGetItem, TensorListStack, TensorListLength,
// TensorListFromTensor, TensorListPushBack, TensorListPopBack and TensorListElementShape.
//
// A list is a scalar variant tensor carrying an immutable TensorList (core/tensor_list.h):
// kernels that change a list make a new one whose items share the old one's tensors. Items
// are read and written for every element dtype; stacking and splitting copy elements as bytes
// (fixed-size dtypes) or strings, so only variant and resource elements cannot be stacked.
//
// Element shapes come in as int32/int64 tensors: a vector of dims (-1 for an unknown dim) or
// the scalar -1 for an unknown rank. An unset item reads as zeros of the element shape, which
// must then be known: the list's element shape merged with the op's element_shape input and,
// where that is still partial, with the shapes of the items that are set.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor_list.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

using ListPtr = std::shared_ptr<const TensorList>;

// An element shape given as a tensor: a vector of dims >= -1, or the scalar -1 (unknown rank).
Status ReadElementShape(const Tensor& t, PartialShape* out) {
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) {
    return errors::DTypeError("element_shape must be int32 or int64, not ", DTypeName(t.dtype()));
  }
  auto at = [&](int64_t i) -> int64_t {
    return t.dtype() == DType::kInt32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
  };
  if (t.rank() == 0) {
    if (at(0) != -1) {
      return errors::InvalidArgument("element_shape is the scalar ", at(0),
                                     ", but a scalar element_shape must be -1 (an unknown rank)");
    }
    *out = PartialShape::Unknown();
    return Status::Ok();
  }
  if (t.rank() != 1) {
    return errors::InvalidArgument("element_shape must be a vector, or the scalar -1, but has shape ",
                                   t.shape().ToString());
  }
  std::vector<int64_t> dims(static_cast<size_t>(t.num_elements()));
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    int64_t d = at(i);
    if (d < -1) return errors::InvalidArgument("element_shape has dimension ", d, " at ", i, " (must be >= -1)");
    dims[static_cast<size_t>(i)] = d;
  }
  *out = PartialShape(std::move(dims));
  return Status::Ok();
}

Status ReadScalarInt32(const Tensor& t, const char* what, int64_t* out) {
  if (t.dtype() != DType::kInt32 || t.rank() != 0) {
    return errors::InvalidArgument(what, " must be an int32 scalar, but is ", DTypeName(t.dtype()), " of shape ",
                                   t.shape().ToString());
  }
  *out = t.data<int32_t>()[0];
  return Status::Ok();
}

Status CheckElementDType(const TensorList& l, DType want) {
  if (l.element_dtype != want) {
    return errors::DTypeError("the op's element_dtype is ", DTypeName(want), ", but the list's elements are ",
                              DTypeName(l.element_dtype));
  }
  return Status::Ok();
}

// The shape of an unset item: the list's element shape merged with `requested` and, while still
// partial, with every set item's shape.
Status ResolveElementShape(const TensorList& l, const PartialShape& requested, PartialShape* out) {
  PartialShape shape;
  Status s = l.element_shape.MergeWith(requested, &shape);
  if (!s.ok()) {
    return errors::InvalidArgument("element_shape ", requested.ToString(), " is incompatible with the list's element shape ",
                                   l.element_shape.ToString());
  }
  if (!shape.IsFullyDefined()) {
    for (const Tensor& item : l.items) {
      if (!item.valid()) continue;
      PartialShape merged;
      if (!shape.MergeWith(item.shape(), &merged).ok()) {
        return errors::InvalidArgument("the list's items have incompatible shapes (", shape.ToString(), " and ",
                                       item.shape().ToString(), ")");
      }
      shape = std::move(merged);
    }
  }
  *out = std::move(shape);
  return Status::Ok();
}

// Zeros of dtype and a fully defined shape (empty strings for strings).
Status Zeros(DType dtype, const PartialShape& shape, Tensor* out) {
  if (dtype == DType::kString) {
    int64_t n = 0;
    GRAFT_RETURN_IF_ERROR(CheckedNumElements(shape.dims(), &n));
    return Tensor::FromStrings(shape.dims(), std::vector<std::string>(static_cast<size_t>(n)), out);
  }
  if (DTypeSize(dtype) == 0) {
    return errors::Unimplemented("cannot make a zero ", DTypeName(dtype), " element for an unset list item");
  }
  return Tensor::Allocate(dtype, shape.dims(), out);
}

// Item i of l, or zeros of the resolved element shape when it is unset.
Status ItemOrZeros(const TensorList& l, size_t i, const PartialShape& requested, Tensor* out) {
  if (l.items[i].valid()) {
    *out = l.items[i];
    return Status::Ok();
  }
  PartialShape shape;
  GRAFT_RETURN_IF_ERROR(ResolveElementShape(l, requested, &shape));
  if (!shape.IsFullyDefined()) {
    return errors::InvalidArgument("item ", i, " of the list is unset, and its element shape ", shape.ToString(),
                                   " is not fully defined (by the list, the element_shape input or the set items), "
                                   "so it cannot be read as zeros");
  }
  return Zeros(l.element_dtype, shape, out);
}

// Dtypes whose elements can be copied into and out of a stacked tensor.
Status CheckCopyable(DType dtype, const char* op) {
  if (dtype == DType::kString || DTypeSize(dtype) > 0) return Status::Ok();
  return errors::Unimplemented(op, " of ", DTypeName(dtype), " elements is not supported");
}

// Copies `count` elements of src starting at element src_offset to dst at element dst_offset
// (same dtype; bytes for fixed-size dtypes, strings for strings).
void CopyElements(const Tensor& src, int64_t src_offset, std::vector<std::string>* dst_strings, Tensor* dst,
                  int64_t dst_offset, int64_t count) {
  if (count == 0) return;
  if (src.dtype() == DType::kString) {
    const std::vector<std::string>& in = src.strings();
    std::copy_n(in.begin() + src_offset, count, dst_strings->begin() + dst_offset);
    return;
  }
  const size_t elem = DTypeSize(src.dtype());
  std::memcpy(static_cast<char*>(dst->raw_data()) + static_cast<size_t>(dst_offset) * elem,
              static_cast<const char*>(src.raw_data()) + static_cast<size_t>(src_offset) * elem,
              static_cast<size_t>(count) * elem);
}

ListPtr WithItems(const TensorList& l, std::vector<Tensor> items) {
  auto out = std::make_shared<TensorList>();
  out->element_dtype = l.element_dtype;
  out->element_shape = l.element_shape;
  out->items = std::move(items);
  return out;
}

// Base of the kernels that read the list input 0 and check its element dtype.
class ListKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;

 protected:
  Status InitElementDType() { return GetAttr(node(), "element_dtype", &element_dtype_); }
  Status InputList(OpKernelContext& ctx, bool check_dtype, ListPtr* out) const {
    GRAFT_RETURN_IF_ERROR(GetTensorList(ctx.input(0), "input_handle", out));
    if (check_dtype) GRAFT_RETURN_IF_ERROR(CheckElementDType(**out, element_dtype_));
    return Status::Ok();
  }
  DType element_dtype_ = DType::kInvalid;
};

// TensorListReserve(element_shape, num_elements): a list of num_elements unset items.
class ReserveKernel : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status Init() { return InitElementDType(); }
  Status Compute(OpKernelContext& ctx) const override {
    auto l = std::make_shared<TensorList>();
    l->element_dtype = element_dtype_;
    GRAFT_RETURN_IF_ERROR(ReadElementShape(ctx.input(0), &l->element_shape));
    int64_t n = 0;
    GRAFT_RETURN_IF_ERROR(ReadScalarInt32(ctx.input(1), "num_elements", &n));
    if (n < 0) return errors::InvalidArgument("num_elements is ", n, ", but must be >= 0");
    l->items.resize(static_cast<size_t>(n));
    ctx.SetOutput(0, TensorListToTensor(std::move(l)));
    return Status::Ok();
  }
};

// TensorListSetItem(list, index, item): a new list with item at index.
class SetItemKernel : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(InitElementDType());
    return GetAttr(node(), "resize_if_index_out_of_bounds", &resize_);
  }
  Status Compute(OpKernelContext& ctx) const override {
    ListPtr l;
    GRAFT_RETURN_IF_ERROR(InputList(ctx, true, &l));
    int64_t index = 0;
    GRAFT_RETURN_IF_ERROR(ReadScalarInt32(ctx.input(1), "index", &index));
    const size_t size = l->items.size();
    if (index < 0 || (!resize_ && static_cast<uint64_t>(index) >= size)) {
      return errors::OutOfRange("index ", index, " is out of range for a list of ", size, " elements");
    }
    const Tensor& item = ctx.input(2);
    if (!l->element_shape.IsCompatibleWith(item.shape())) {
      return errors::InvalidArgument("the item's shape ", item.shape().ToString(),
                                     " is incompatible with the list's element shape ", l->element_shape.ToString());
    }
    // Copy on write: other values may hold the input list.
    std::vector<Tensor> items = l->items;
    if (static_cast<uint64_t>(index) >= items.size()) items.resize(static_cast<size_t>(index) + 1);
    items[static_cast<size_t>(index)] = item;
    ctx.SetOutput(0, TensorListToTensor(WithItems(*l, std::move(items))));
    return Status::Ok();
  }

 private:
  bool resize_ = false;
};

// TensorListGetItem(list, index, element_shape): the item (zeros when unset).
class GetItemKernel : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status Init() { return InitElementDType(); }
  Status Compute(OpKernelContext& ctx) const override {
    ListPtr l;
    GRAFT_RETURN_IF_ERROR(InputList(ctx, true, &l));
    int64_t index = 0;
    GRAFT_RETURN_IF_ERROR(ReadScalarInt32(ctx.input(1), "index", &index));
    if (index < 0 || static_cast<uint64_t>(index) >= l->items.size()) {
      return errors::OutOfRange("index ", index, " is out of range for a list of ", l->items.size(), " elements");
    }
    PartialShape requested;
    GRAFT_RETURN_IF_ERROR(ReadElementShape(ctx.input(2), &requested));
    Tensor item;
    GRAFT_RETURN_IF_ERROR(ItemOrZeros(*l, static_cast<size_t>(index), requested, &item));
    ctx.SetOutput(0, std::move(item));
    return Status::Ok();
  }
};

// TensorListStack(list, element_shape): the items stacked along a new first dim.
class StackKernel : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(InitElementDType());
    return GetAttr(node(), "num_elements", &num_elements_);
  }
  Status Compute(OpKernelContext& ctx) const override {
    ListPtr l;
    GRAFT_RETURN_IF_ERROR(InputList(ctx, true, &l));
    GRAFT_RETURN_IF_ERROR(CheckCopyable(l->element_dtype, "stacking a list"));
    const int64_t n = static_cast<int64_t>(l->items.size());
    if (num_elements_ != -1 && num_elements_ != n) {
      return errors::InvalidArgument("the op expects a list of ", num_elements_, " elements (num_elements), but the list has ",
                                     n, " elements");
    }
    PartialShape requested, shape;
    GRAFT_RETURN_IF_ERROR(ReadElementShape(ctx.input(1), &requested));
    GRAFT_RETURN_IF_ERROR(ResolveElementShape(*l, requested, &shape));
    if (!shape.IsFullyDefined()) {
      return errors::InvalidArgument("cannot stack a list of ", n, " elements", n == 0 ? "" : " none of which is set",
                                     ": its element shape ", shape.ToString(), " is not fully defined");
    }
    std::vector<int64_t> dims{n};
    dims.insert(dims.end(), shape.dims().begin(), shape.dims().end());
    int64_t per = 0;
    GRAFT_RETURN_IF_ERROR(CheckedNumElements(shape.dims(), &per));
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& item = l->items[static_cast<size_t>(i)];
      if (item.valid() && item.dims() != shape.dims()) {
        return errors::InvalidArgument("item ", i, " has shape ", item.shape().ToString(), ", but the stacked elements have shape ",
                                       shape.ToString());
      }
    }
    const bool strings = l->element_dtype == DType::kString;
    std::vector<std::string> out_strings;
    Tensor out;
    if (strings) {
      int64_t total = 0;
      GRAFT_RETURN_IF_ERROR(CheckedNumElements(dims, &total));
      out_strings.resize(static_cast<size_t>(total));
    } else {
      GRAFT_RETURN_IF_ERROR(Tensor::Allocate(l->element_dtype, dims, &out));  // unset items stay zero
    }
    for (int64_t i = 0; i < n; ++i) {
      const Tensor& item = l->items[static_cast<size_t>(i)];
      if (item.valid()) CopyElements(item, 0, &out_strings, &out, i * per, per);
    }
    if (strings) GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(dims, std::move(out_strings), &out));
    ctx.SetOutput(0, std::move(out));
    return Status::Ok();
  }

 private:
  int64_t num_elements_ = -1;
};

// TensorListLength(list): the number of items, int32.
class LengthKernel : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status Compute(OpKernelContext& ctx) const override {
    ListPtr l;
    GRAFT_RETURN_IF_ERROR(InputList(ctx, false, &l));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, DType::kInt32, {}, &out));
    *out->data<int32_t>() = static_cast<int32_t>(l->items.size());
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }
};

// TensorListFromTensor(tensor, element_shape): a list of tensor's rows.
class FromTensorKernel : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status Init() { return InitElementDType(); }
  Status Compute(OpKernelContext& ctx) const override {
    const Tensor& t = ctx.input(0);
    GRAFT_RETURN_IF_ERROR(CheckCopyable(t.dtype(), "splitting a tensor into a list"));
    if (t.rank() < 1) {
      return errors::InvalidArgument("tensor must have rank at least 1 (its rows become the list's items), but has shape ",
                                     t.shape().ToString());
    }
    auto l = std::make_shared<TensorList>();
    l->element_dtype = t.dtype();
    GRAFT_RETURN_IF_ERROR(ReadElementShape(ctx.input(1), &l->element_shape));
    std::vector<int64_t> row_dims(t.dims().begin() + 1, t.dims().end());
    if (!l->element_shape.IsCompatibleWith(PartialShape(row_dims))) {
      return errors::InvalidArgument("the rows of tensor, of shape ", PartialShape(row_dims).ToString(),
                                     ", are incompatible with element_shape ", l->element_shape.ToString());
    }
    int64_t per = 0;
    GRAFT_RETURN_IF_ERROR(CheckedNumElements(row_dims, &per));
    const int64_t n = t.dim(0);
    l->items.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      Tensor& row = l->items[static_cast<size_t>(i)];
      if (t.dtype() == DType::kString) {
        const std::vector<std::string>& s = t.strings();
        std::vector<std::string> part(s.begin() + i * per, s.begin() + (i + 1) * per);
        GRAFT_RETURN_IF_ERROR(Tensor::FromStrings(row_dims, std::move(part), &row));
      } else {
        GRAFT_RETURN_IF_ERROR(Tensor::AllocateUninitialized(t.dtype(), row_dims, &row));
        CopyElements(t, i * per, nullptr, &row, 0, per);
      }
    }
    ctx.SetOutput(0, TensorListToTensor(std::move(l)));
    return Status::Ok();
  }
};

// TensorListPushBack(list, tensor): a new list with tensor appended.
class PushBackKernel : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status Init() { return InitElementDType(); }
  Status Compute(OpKernelContext& ctx) const override {
    ListPtr l;
    GRAFT_RETURN_IF_ERROR(InputList(ctx, true, &l));
    const Tensor& item = ctx.input(1);
    if (!l->element_shape.IsCompatibleWith(item.shape())) {
      return errors::InvalidArgument("the pushed tensor's shape ", item.shape().ToString(),
                                     " is incompatible with the list's element shape ", l->element_shape.ToString());
    }
    std::vector<Tensor> items;
    items.reserve(l->items.size() + 1);
    items.assign(l->items.begin(), l->items.end());
    items.push_back(item);
    ctx.SetOutput(0, TensorListToTensor(WithItems(*l, std::move(items))));
    return Status::Ok();
  }
};

// TensorListPopBack(list, element_shape): the list without its last item, and that item
// (zeros when unset).
class PopBackKernel : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status Init() { return InitElementDType(); }
  Status Compute(OpKernelContext& ctx) const override {
    ListPtr l;
    GRAFT_RETURN_IF_ERROR(InputList(ctx, true, &l));
    if (l->items.empty()) return errors::OutOfRange("cannot pop from an empty list");
    PartialShape requested;
    GRAFT_RETURN_IF_ERROR(ReadElementShape(ctx.input(1), &requested));
    Tensor item;
    GRAFT_RETURN_IF_ERROR(ItemOrZeros(*l, l->items.size() - 1, requested, &item));
    std::vector<Tensor> items(l->items.begin(), l->items.end() - 1);
    ctx.SetOutput(0, TensorListToTensor(WithItems(*l, std::move(items))));
    ctx.SetOutput(1, std::move(item));
    return Status::Ok();
  }
};

// TensorListElementShape(list): the list's element shape as a vector (-1 for unknown dims),
// or the scalar -1 for an unknown rank.
class ElementShapeKernel : public ListKernel {
 public:
  using ListKernel::ListKernel;
  Status Init() { return GetAttr(node(), "shape_type", &shape_type_); }
  Status Compute(OpKernelContext& ctx) const override {
    ListPtr l;
    GRAFT_RETURN_IF_ERROR(InputList(ctx, false, &l));
    const PartialShape& s = l->element_shape;
    std::vector<int64_t> values = s.known_rank() ? s.dims() : std::vector<int64_t>{-1};
    std::vector<int64_t> dims;
    if (s.known_rank()) dims.push_back(static_cast<int64_t>(values.size()));
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, shape_type_, dims, &out));
    for (size_t i = 0; i < values.size(); ++i) {
      if (shape_type_ == DType::kInt32) {
        out->data<int32_t>()[i] = static_cast<int32_t>(values[i]);
      } else {
        out->data<int64_t>()[i] = values[i];
      }
    }
    return Status::Ok();
  }
  bool IsCheap() const override { return true; }

 private:
  DType shape_type_ = DType::kInt32;
};

}  // namespace

void RegisterTensorListKernels(KernelRegistry& r) {
  auto add = [&](const char* op, KernelFactory f) { (void)r.Register(op, kDeviceCpu, "", {}, std::move(f)); };
  add("TensorListReserve", &CreateKernel<ReserveKernel>);
  add("TensorListSetItem", &CreateKernel<SetItemKernel>);
  add("TensorListGetItem", &CreateKernel<GetItemKernel>);
  add("TensorListStack", &CreateKernel<StackKernel>);
  add("TensorListLength", &CreateKernel<LengthKernel>);
  add("TensorListFromTensor", &CreateKernel<FromTensorKernel>);
  add("TensorListPushBack", &CreateKernel<PushBackKernel>);
  add("TensorListPopBack", &CreateKernel<PopBackKernel>);
  add("TensorListElementShape", &CreateKernel<ElementShapeKernel>);
}

}  // namespace graft::cpu
