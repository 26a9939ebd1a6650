#include "kernels/cpu/kernel_util.h"

#include <cblas.h>

#include <thread>

namespace graft::cpu {

bool BlasUsesThreads(double multiply_adds) {
  static const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int threads = openblas_get_num_threads();
  return threads > 1 && threads >= cores && multiply_adds > 262144.0;
}

double KnownElements(const PartialShape& shape) {
  double n = 1;
  if (!shape.known_rank()) return n;
  for (int64_t d : shape.dims()) n *= d < 0 ? 1.0 : static_cast<double>(d);
  return n;
}

std::string ShapeText(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) s.push_back(',');
    s.append(std::to_string(dims[i]));
  }
  s.push_back(']');
  return s;
}

Status MakeBroadcast(const std::vector<int64_t>& a, const std::vector<int64_t>& b, Broadcast* out) {
  size_t rank = std::max(a.size(), b.size());
  out->out_dims.assign(rank, 1);
  out->a_strides.assign(rank, 0);
  out->b_strides.assign(rank, 0);
  int64_t sa = 1, sb = 1;
  for (size_t k = 0; k < rank; ++k) {
    size_t i = rank - 1 - k;
    int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1) {
      return errors::InvalidArgument("incompatible shapes: ", ShapeText(a), " vs. ", ShapeText(b));
    }
    out->out_dims[i] = da == 1 ? db : da;
    out->a_strides[i] = da == 1 ? 0 : sa;
    out->b_strides[i] = db == 1 ? 0 : sb;
    sa *= da;
    sb *= db;
  }
  out->out_elements = 1;
  for (int64_t d : out->out_dims) out->out_elements *= d;
  return Status::Ok();
}

}  // namespace graft::cpu
