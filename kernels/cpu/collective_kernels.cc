// The collective ops of TensorFlow's V2 family over the process's CollectiveTransport (MPI):
// CollectiveReduceV2 (an all-reduce: a ring of reduce-scatter then all-gather, so every rank
// ends with bit-identical values), CollectiveGatherV2 (concatenation along dimension 0 in rank
// order) and CollectiveBcastSendV2/RecvV2.
//
// Messages are tagged with the op's instance_key, so collectives of different instances never
// match each other's messages whatever order the ranks run them in. Every wait has a deadline
// (the op's timeout_seconds, else the process default) and stops when the run is cancelled; a
// failure aborts the process's collectives (CollectiveTransport::Abort).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/float16.h"
#include "core/runtime/collective_transport.h"
#include "core/runtime/run_control.h"
#include "kernels/cpu/kernel_util.h"
#include "kernels/cpu/register.h"

namespace graft::cpu {
namespace {

using Request = CollectiveTransport::Request;

// What a collective waits under: its deadline, the run's cancellation, and what to call the
// instance in messages.
struct Wait {
  CollectiveTransport* t = nullptr;
  const RunControl* control = nullptr;
  int64_t deadline_ns = RunControl::kNoDeadline;
  double timeout_s = 0;
  int instance_key = 0;
};

// Waits for requests [first, last) under w's deadline and cancellation.
Status WaitRange(const Wait& w, std::vector<Request>& reqs, size_t first, size_t last) {
  CollectiveTransport::WaitOptions options;
  options.cancellation = w.control != nullptr ? w.control->cancellation : nullptr;
  options.deadline_ns = w.deadline_ns;
  options.timeout_s = w.timeout_s;
  options.what = StrCat("instance_key ", w.instance_key);
  Status s = w.t->Wait(reqs, first, last, options);
  if (s.code() == Code::kDeadlineExceeded) {
    return Status(s.code(), StrCat(s.message(), ": did every rank run this collective with the same keys?"));
  }
  return s;
}

Status WaitAll(const Wait& w, std::vector<Request>& reqs, size_t first = 0) {
  return WaitRange(w, reqs, first, reqs.size());
}

// A failed collective: receives are cancelled, sends keep their buffers until finalize, and
// the process's collectives are aborted with the error.
Status Fail(const Wait& w, std::vector<Request>& reqs, std::shared_ptr<void> buffers, const Status& s) {
  for (Request& r : reqs) {
    if (r.active && r.is_recv) w.t->CancelRecv(r);
  }
  w.t->Abandon(std::move(reqs), std::move(buffers));
  w.t->Abort(s);
  return s;
}

// Posts bytes as messages of at most kMaxMessageBytes (the receiver splits the same way).
Status PostOn(CollectiveTransport* t, CollectiveTransport::Channel channel, bool send, void* data, size_t bytes,
              int peer, int tag, std::vector<Request>& reqs) {
  size_t off = 0;
  do {
    size_t n = std::min(bytes - off, CollectiveTransport::kMaxMessageBytes);
    Request r;
    char* p = static_cast<char*>(data) + off;
    GRAFT_RETURN_IF_ERROR(send ? t->Send(p, n, peer, tag, &r, channel) : t->Recv(p, n, peer, tag, &r, channel));
    reqs.push_back(r);
    off += n;
  } while (off < bytes);
  return Status::Ok();
}

Status Post(const Wait& w, bool send, void* data, size_t bytes, int peer, int tag, std::vector<Request>& reqs) {
  return PostOn(w.t, CollectiveTransport::kCollectives, send, data, bytes, peer, tag, reqs);
}

// The element arithmetic of the reductions, over the stored type S (uint16_t for the 16-bit
// floats, computed in float as TensorFlow's half arithmetic does).
enum class Merge { kMin, kMax, kMul, kAdd };

template <typename T>
struct Arith {
  using S = T;
  static T Load(S s) { return s; }
  static S Store(T v) { return v; }
};
struct HalfTag {};
struct BFloat16Tag {};
template <>
struct Arith<HalfTag> {
  using S = uint16_t;
  static float Load(S s) { return HalfToFloat(s); }
  static S Store(float v) { return FloatToHalf(v); }
};
template <>
struct Arith<BFloat16Tag> {
  using S = uint16_t;
  static float Load(S s) { return BFloat16ToFloat(s); }
  static S Store(float v) { return FloatToBFloat16(v); }
};

// out = a (merge) b, elementwise; out may be a.
template <typename T>
void Combine(Merge m, typename Arith<T>::S* out, const typename Arith<T>::S* a, const typename Arith<T>::S* b,
             int64_t n) {
  using A = Arith<T>;
  switch (m) {
    case Merge::kAdd:
      for (int64_t i = 0; i < n; ++i) out[i] = A::Store(A::Load(a[i]) + A::Load(b[i]));
      break;
    case Merge::kMul:
      for (int64_t i = 0; i < n; ++i) out[i] = A::Store(A::Load(a[i]) * A::Load(b[i]));
      break;
    case Merge::kMin:
      for (int64_t i = 0; i < n; ++i) out[i] = A::Store(std::min(A::Load(a[i]), A::Load(b[i])));
      break;
    case Merge::kMax:
      for (int64_t i = 0; i < n; ++i) out[i] = A::Store(std::max(A::Load(a[i]), A::Load(b[i])));
      break;
  }
}

template <typename T>
void DivideBy(typename Arith<T>::S* x, int64_t n, int divisor) {
  using A = Arith<T>;
  for (int64_t i = 0; i < n; ++i) x[i] = A::Store(A::Load(x[i]) / static_cast<decltype(A::Load(x[i]))>(divisor));
}

using CombineFn = void (*)(Merge, void*, const void*, const void*, int64_t);
using DivideFn = void (*)(void*, int64_t, int);

template <typename T>
void CombineErased(Merge m, void* out, const void* a, const void* b, int64_t n) {
  using S = typename Arith<T>::S;
  Combine<T>(m, static_cast<S*>(out), static_cast<const S*>(a), static_cast<const S*>(b), n);
}
template <typename T>
void DivideErased(void* x, int64_t n, int divisor) {
  DivideBy<T>(static_cast<typename Arith<T>::S*>(x), n, divisor);
}

struct ReduceFns {
  CombineFn combine = nullptr;
  DivideFn divide = nullptr;
};

template <typename T>
constexpr ReduceFns FnsFor() {
  return {&CombineErased<T>, &DivideErased<T>};
}

ReduceFns FnsForDType(DType d) {
  switch (d) {
    case DType::kFloat32: return FnsFor<float>();
    case DType::kFloat64: return FnsFor<double>();
    case DType::kInt32: return FnsFor<int32_t>();
    case DType::kInt64: return FnsFor<int64_t>();
    case DType::kFloat16: return FnsFor<HalfTag>();
    case DType::kBFloat16: return FnsFor<BFloat16Tag>();
    default: return {};
  }
}

// A rank's description of its tensor (core's wire format), exchanged before the data so that
// every rank sees a mismatch (and fails with the same message) instead of waiting for data
// that never fits.
using Header = TensorHeader;

// Sends this rank's header to every other rank and receives theirs (all[r] is rank r's).
Status ExchangeHeaders(const Wait& w, const Header& mine, std::vector<Header>* all, std::vector<Request>& reqs) {
  const int p = w.t->size(), me = w.t->rank();
  all->assign(static_cast<size_t>(p), Header{});
  (*all)[static_cast<size_t>(me)] = mine;
  for (int r = 0; r < p; ++r) {
    if (r == me) continue;
    GRAFT_RETURN_IF_ERROR(Post(w, true, const_cast<Header*>(&mine), sizeof(Header), r, w.instance_key, reqs));
    GRAFT_RETURN_IF_ERROR(Post(w, false, &(*all)[static_cast<size_t>(r)], sizeof(Header), r, w.instance_key, reqs));
  }
  return WaitAll(w, reqs);
}

// What the V2 ops share: the timeout attr, and group_size/group_key/instance_key inputs.
class CollectiveKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;

  Status InitCommon() {
    float timeout = 0;
    const AttrValue* v = node().attr("timeout_seconds");
    if (v != nullptr && v->get<float>() != nullptr) timeout = *v->get<float>();
    if (!(timeout >= 0) || !std::isfinite(timeout)) {
      return errors::InvalidArgument("timeout_seconds must be >= 0, not ", timeout);
    }
    timeout_s_ = timeout > 0 ? timeout : CollectiveTimeoutSeconds();
    return Status::Ok();
  }

 protected:
  // Joins the job, reads the keys (inputs first..first+2) and checks them against it.
  Status Begin(OpKernelContext& ctx, int first, Wait* w) const {
    CollectiveTransport* t = CollectiveTransport::Get();
    if (t == nullptr) return errors::Unimplemented("no collective transport in this build of Graft");
    GRAFT_RETURN_IF_ERROR(t->Init());
    Status aborted = t->Aborted();
    if (!aborted.ok()) {
      return Status(aborted.code(), StrCat("collectives were aborted by an earlier failure: ", aborted.message()));
    }
    int32_t keys[3];
    static const char* const kNames[3] = {"group_size", "group_key", "instance_key"};
    for (int i = 0; i < 3; ++i) {
      const Tensor& k = ctx.input(first + i);
      if (k.dtype() != DType::kInt32 || k.num_elements() != 1) {
        return errors::InvalidArgument(kNames[i], " must be an int32 scalar");
      }
      keys[i] = k.data<int32_t>()[0];
    }
    if (keys[0] != t->size()) {
      return errors::InvalidArgument("group_size is ", keys[0], " but the job has ", t->size(),
                                     " processes: Graft's collectives run over every rank of the job");
    }
    if (keys[2] < 0 || keys[2] > t->max_tag()) {
      return errors::InvalidArgument("instance_key ", keys[2], " is outside 0..", t->max_tag(),
                                     " (the message tags of this MPI)");
    }
    w->t = t;
    w->control = ctx.run_control() != nullptr ? ctx.run_control() : RunControl::Current();
    w->timeout_s = timeout_s_;
    const int64_t now = RunControl::PreciseNowNs();
    const double ns = timeout_s_ * 1e9;
    w->deadline_ns = ns >= static_cast<double>(RunControl::kNoDeadline - now) ? RunControl::kNoDeadline
                                                                             : now + static_cast<int64_t>(ns);
    if (w->control != nullptr) w->deadline_ns = std::min(w->deadline_ns, w->control->deadline_ns);
    w->instance_key = keys[2];
    return Status::Ok();
  }

 private:
  double timeout_s_ = 0;  // set by InitCommon
};

// Every rank's header must match this one's (dims from dimension `from` on).
// The collective a header belongs to, in its extra (times kKindScale, plus a reduce's merge
// and final op): ranks that run different collectives under one instance_key are told apart.
enum Kind : int64_t { kReduce = 1, kGather = 2, kBcast = 3 };
constexpr int64_t kKindScale = 16;
const char* KindName(int64_t extra) {
  switch (extra / kKindScale) {
    case kReduce: return "CollectiveReduceV2";
    case kGather: return "CollectiveGatherV2";
    case kBcast: return "CollectiveBcastSendV2";
    default: return "an unknown collective";
  }
}

// This rank's header for the exchange; an input of too many dimensions to describe goes as
// rank -1, so that every rank fails alike (CheckHeaders) instead of the others timing out.
void DescribeInput(const Tensor& in, int64_t extra, Header* out) {
  if (!Header::Of(in, extra, out).ok()) {
    *out = Header{};
    out->extra = extra;
    out->rank = -1;
  }
}

// Checks that every rank has this rank's header (dims from `from` on, which each must have).
// Ranks that run other collectives under this instance_key set *mixed: their messages may
// still be in flight.
Status CheckHeaders(const std::vector<Header>& all, int me, int from, int instance_key, bool* mixed) {
  const Header& mine = all[static_cast<size_t>(me)];
  for (size_t r = 0; r < all.size(); ++r) {
    if (all[r].extra / kKindScale != mine.extra / kKindScale) {
      *mixed = true;
      return errors::InvalidArgument("rank ", r, " runs ", KindName(all[r].extra), " with instance_key ",
                                     instance_key, " where rank ", me, " runs ", KindName(mine.extra));
    }
  }
  for (size_t r = 0; r < all.size(); ++r) {
    if (all[r].rank < 0) {
      return errors::InvalidArgument("rank ", r, "'s input has more than ", Header::kMaxRank,
                                     " dimensions, the most a collective takes");
    }
  }
  for (size_t r = 0; r < all.size() && from > 0; ++r) {  // a gather (from 1) needs dimension 0
    if (all[r].rank < from) {
      return errors::InvalidArgument("rank ", r, "'s input is a scalar: it needs a dimension to gather along");
    }
  }
  for (size_t r = 0; r < all.size(); ++r) {
    const Header& h = all[r];
    bool same = h.dtype == mine.dtype && h.extra == mine.extra && h.rank == mine.rank;
    for (int64_t d = from; same && d < mine.rank; ++d) same = h.dims[d] == mine.dims[d];
    if (!same) {
      return errors::InvalidArgument("rank ", r, " has ", h.Describe(), " but rank ", me, " has ", mine.Describe(),
                                     h.extra != mine.extra ? " (and a different merge_op or final_op)" : "");
    }
  }
  return Status::Ok();
}

// CollectiveReduceV2(input, group_size, group_key, instance_key, ordering_token) -> data.
class CollectiveReduceKernel : public CollectiveKernel {
 public:
  using CollectiveKernel::CollectiveKernel;

  Status Init() {
    GRAFT_RETURN_IF_ERROR(InitCommon());
    std::string merge, final_op;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "merge_op", &merge));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "final_op", &final_op));
    static const char* const kMerges[] = {"Min", "Max", "Mul", "Add"};
    int m = -1;
    for (int i = 0; i < 4; ++i) {
      if (merge == kMerges[i]) m = i;
    }
    if (m < 0) return errors::InvalidArgument("merge_op '", merge, "' is not one of Min, Max, Mul, Add");
    if (final_op != "Id" && final_op != "Div") {
      return errors::InvalidArgument("final_op '", final_op, "' is not one of Id, Div");
    }
    merge_ = static_cast<Merge>(m);
    divide_ = final_op == "Div";
    DType dtype;
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "T", &dtype));
    fns_ = FnsForDType(dtype);
    if (fns_.combine == nullptr) return errors::DTypeError("no all-reduce for ", DTypeName(dtype));
    return Status::Ok();
  }

  Status Compute(OpKernelContext& ctx) const override {
    Wait w;
    GRAFT_RETURN_IF_ERROR(Begin(ctx, 1, &w));
    const Tensor& in = ctx.input(0);
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, in.dtype(), in.dims(), &out, 0));
    // What must outlive a failed wait: the input, the output and the scratch of the ring.
    struct Buffers {
      Tensor in, out;
      std::unique_ptr<char[]> scratch;
      Header mine;
      std::vector<Header> headers;
    };
    auto buffers = std::make_shared<Buffers>();
    buffers->in = in;
    buffers->out = *out;
    std::vector<Request> reqs;
    DescribeInput(in, kReduce * kKindScale + static_cast<int64_t>(merge_) * 2 + (divide_ ? 1 : 0), &buffers->mine);
    Status s = ExchangeHeaders(w, buffers->mine, &buffers->headers, reqs);
    if (!s.ok()) return Fail(w, reqs, buffers, s);
    // Every rank has the same headers, so all fail these checks alike with nothing in flight:
    // no abort, later collectives still work (unless another collective shares the key).
    bool mixed = false;
    s = CheckHeaders(buffers->headers, w.t->rank(), 0, w.instance_key, &mixed);
    if (!s.ok()) return mixed ? Fail(w, reqs, buffers, s) : s;
    s = Ring(w, in, *out, buffers->scratch, reqs);
    if (!s.ok()) return Fail(w, reqs, buffers, s);
    if (divide_) fns_.divide(out->raw_data(), out->num_elements(), w.t->size());
    return Status::Ok();
  }

 private:
  // The ring all-reduce: p-1 steps of reduce-scatter (each rank sends a chunk to the next and
  // adds the one it gets from the previous), then p-1 of all-gather (each passes on a reduced
  // chunk). Every element is reduced on one rank in one order, so all ranks get the same bits.
  // The input is read where the output is not written yet, so it is never copied: the first
  // step sends this rank's own chunk from it, and the first reduction of each chunk adds it.
  Status Ring(const Wait& w, const Tensor& in, Tensor& x, std::unique_ptr<char[]>& scratch,
              std::vector<Request>& reqs) const {
    const int p = w.t->size(), me = w.t->rank();
    const int64_t n = x.num_elements();
    if (n == 0) return Status::Ok();
    const size_t esize = DTypeSize(x.dtype());
    const char* src = static_cast<const char*>(in.raw_data());
    if (p == 1) {
      if (x.raw_data() != in.raw_data()) std::memcpy(x.raw_data(), src, in.byte_size());
      return Status::Ok();
    }
    auto offset = [&](int i) { return static_cast<int64_t>(i) * (n / p) + std::min<int64_t>(i, n % p); };
    auto length = [&](int i) { return n / p + (i < n % p ? 1 : 0); };
    char* base = static_cast<char*>(x.raw_data());
    // A chunk travels as segments, received into kSlots rotating scratch slots: each segment
    // is reduced while the next ones are in flight, and the scratch stays small (plain heap
    // memory, which malloc reuses: taken from Graft's buffer cache it would push out the
    // output's buffer, and a training loop would fault in a fresh output every step).
    constexpr size_t kSegmentBytes = size_t{1} << 18;
    constexpr int64_t kSlots = 4;
    const int64_t seg = std::max<int64_t>(1, static_cast<int64_t>(kSegmentBytes / esize));
    const int64_t slots = std::min<int64_t>(kSlots, (length(0) + seg - 1) / seg);
    scratch.reset(new char[static_cast<size_t>(slots * seg) * esize]);
    char* slot_base = scratch.get();
    const int right = (me + 1) % p, left = (me + p - 1) % p;
    for (int step = 0; step < p - 1; ++step) {
      const int send = (me - step + p) % p, recv = (me - step - 1 + 2 * p) % p;
      const char* from = (step == 0 ? src : base) + offset(send) * esize;  // own chunk: the input
      const size_t first_send = reqs.size();
      for (int64_t off = 0; off < length(send); off += seg) {
        const size_t bytes = static_cast<size_t>(std::min(seg, length(send) - off)) * esize;
        GRAFT_RETURN_IF_ERROR(Post(w, true, const_cast<char*>(from) + off * esize, bytes, right, w.instance_key, reqs));
      }
      const int64_t len = length(recv), nseg = (len + seg - 1) / seg;
      const size_t first_recv = reqs.size();
      auto post_recv = [&](int64_t j) {
        const size_t bytes = static_cast<size_t>(std::min(seg, len - j * seg)) * esize;
        return Post(w, false, slot_base + (j % slots) * seg * static_cast<int64_t>(esize), bytes, left,
                    w.instance_key, reqs);
      };
      for (int64_t j = 0; j < std::min(nseg, slots); ++j) GRAFT_RETURN_IF_ERROR(post_recv(j));
      for (int64_t j = 0; j < nseg; ++j) {
        // Receives are posted in segment order, one request each (segments are < 1 GiB).
        const size_t r = first_recv + static_cast<size_t>(j);
        GRAFT_RETURN_IF_ERROR(WaitRange(w, reqs, r, r + 1));
        const int64_t at = offset(recv) + j * seg;
        fns_.combine(merge_, base + at * esize, src + at * esize, slot_base + (j % slots) * seg * static_cast<int64_t>(esize),
                     std::min(seg, len - j * seg));
        if (j + slots < nseg) GRAFT_RETURN_IF_ERROR(post_recv(j + slots));
      }
      GRAFT_RETURN_IF_ERROR(WaitRange(w, reqs, first_send, first_recv));
    }
    for (int step = 0; step < p - 1; ++step) {
      const int send = (me + 1 - step + p) % p, recv = (me - step + p) % p;
      const size_t first = reqs.size();
      GRAFT_RETURN_IF_ERROR(Post(w, true, base + offset(send) * esize, static_cast<size_t>(length(send)) * esize,
                                 right, w.instance_key, reqs));
      GRAFT_RETURN_IF_ERROR(Post(w, false, base + offset(recv) * esize, static_cast<size_t>(length(recv)) * esize,
                                 left, w.instance_key, reqs));
      GRAFT_RETURN_IF_ERROR(WaitAll(w, reqs, first));
    }
    return Status::Ok();
  }

  Merge merge_ = Merge::kAdd;
  bool divide_ = false;
  ReduceFns fns_;
};

// CollectiveGatherV2(input, group_size, group_key, instance_key, ordering_token) -> data: the
// ranks' inputs concatenated along dimension 0, in rank order (their first dimensions may
// differ; the others must match).
class CollectiveGatherKernel : public CollectiveKernel {
 public:
  using CollectiveKernel::CollectiveKernel;
  Status Init() { return InitCommon(); }

  Status Compute(OpKernelContext& ctx) const override {
    Wait w;
    GRAFT_RETURN_IF_ERROR(Begin(ctx, 1, &w));
    const Tensor& in = ctx.input(0);
    struct Buffers {
      Tensor in, out;
      Header mine;
      std::vector<Header> headers;
    };
    auto buffers = std::make_shared<Buffers>();
    buffers->in = in;
    std::vector<Request> reqs;
    DescribeInput(in, kGather * kKindScale, &buffers->mine);
    const int p = w.t->size(), me = w.t->rank();
    // Every check after the headers are exchanged, so that every rank fails alike (with nothing
    // in flight: no abort).
    Status s = ExchangeHeaders(w, buffers->mine, &buffers->headers, reqs);
    if (!s.ok()) return Fail(w, reqs, buffers, s);
    bool mixed = false;
    s = CheckHeaders(buffers->headers, me, 1, w.instance_key, &mixed);
    if (!s.ok()) return mixed ? Fail(w, reqs, buffers, s) : s;
    std::vector<int64_t> dims = in.dims();
    dims[0] = 0;
    std::vector<int64_t> starts;
    for (const Header& h : buffers->headers) {
      starts.push_back(dims[0]);
      dims[0] += h.dims[0];
    }
    Tensor* out = nullptr;
    s = ctx.AllocateOutput(0, in.dtype(), dims, &out);
    if (!s.ok()) return Fail(w, reqs, buffers, s);
    buffers->out = *out;
    // The bytes of one row, from the trailing dims (this rank may have no rows of its own).
    size_t row = DTypeSize(in.dtype());
    for (int d = 1; d < in.rank(); ++d) row *= static_cast<size_t>(in.dim(d));
    char* base = static_cast<char*>(out->raw_data());
    if (in.byte_size() > 0) std::memcpy(base + static_cast<size_t>(starts[static_cast<size_t>(me)]) * row, in.raw_data(), in.byte_size());
    const size_t first = reqs.size();
    for (int r = 0; r < p && s.ok(); ++r) {
      if (r == me) continue;
      s = Post(w, true, in.raw_data(), in.byte_size(), r, w.instance_key, reqs);
      const size_t bytes = static_cast<size_t>(buffers->headers[static_cast<size_t>(r)].dims[0]) * row;
      if (s.ok()) s = Post(w, false, base + static_cast<size_t>(starts[static_cast<size_t>(r)]) * row, bytes, r,
                           w.instance_key, reqs);
    }
    if (s.ok()) s = WaitAll(w, reqs, first);
    if (!s.ok()) return Fail(w, reqs, buffers, s);
    return Status::Ok();
  }
};

// CollectiveBcastSendV2(input, group_size, group_key, instance_key) -> data (= input): sends
// its input to every other rank.
class BcastSendKernel : public CollectiveKernel {
 public:
  using CollectiveKernel::CollectiveKernel;
  Status Init() { return InitCommon(); }

  Status Compute(OpKernelContext& ctx) const override {
    Wait w;
    GRAFT_RETURN_IF_ERROR(Begin(ctx, 1, &w));
    const Tensor& in = ctx.input(0);
    struct Buffers {
      Tensor in;
      Header header;
    };
    auto buffers = std::make_shared<Buffers>();
    buffers->in = in;
    GRAFT_RETURN_IF_ERROR(Header::Of(in, kBcast * kKindScale, &buffers->header));
    std::vector<Request> reqs;
    Status s;
    for (int r = 0; r < w.t->size() && s.ok(); ++r) {
      if (r == w.t->rank()) continue;
      s = Post(w, true, &buffers->header, sizeof(Header), r, w.instance_key, reqs);
      if (s.ok()) s = Post(w, true, in.raw_data(), in.byte_size(), r, w.instance_key, reqs);
    }
    if (s.ok()) s = WaitAll(w, reqs);
    if (!s.ok()) return Fail(w, reqs, buffers, s);
    ctx.SetOutput(0, in);
    return Status::Ok();
  }
};

// CollectiveBcastRecvV2(group_size, group_key, instance_key, shape) -> data: what the rank
// that runs the send of the same instance sent, which must be of dtype T and this shape.
class BcastRecvKernel : public CollectiveKernel {
 public:
  using CollectiveKernel::CollectiveKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(InitCommon());
    return GetAttr(node(), "T", &dtype_);
  }
  bool HostMemoryInput(int i) const override { return i == 3; }

  Status Compute(OpKernelContext& ctx) const override {
    Wait w;
    GRAFT_RETURN_IF_ERROR(Begin(ctx, 0, &w));
    const Tensor& shape = ctx.input(3);
    if (shape.rank() != 1) return errors::InvalidArgument("shape must be a vector, not of rank ", shape.rank());
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < shape.num_elements(); ++i) {
      int64_t d = shape.dtype() == DType::kInt32 ? shape.data<int32_t>()[i] : shape.data<int64_t>()[i];
      if (d < 0) return errors::InvalidArgument("shape has a negative dimension ", d);
      dims.push_back(d);
    }
    Tensor* out = nullptr;
    GRAFT_RETURN_IF_ERROR(ctx.AllocateOutput(0, dtype_, dims, &out));
    struct Buffers {
      Tensor out;
      Header header;
    };
    auto buffers = std::make_shared<Buffers>();
    buffers->out = *out;
    std::vector<Request> reqs;
    Status s = Post(w, false, &buffers->header, sizeof(Header), CollectiveTransport::kAnySource, w.instance_key, reqs);
    if (s.ok()) s = WaitAll(w, reqs);
    if (s.ok()) {
      const Header& h = buffers->header;
      const int root = reqs.back().source;
      Header expected;
      s = Header::Of(*out, kBcast * kKindScale, &expected);
      if (s.ok() && h.extra != expected.extra) {
        s = errors::InvalidArgument("rank ", root, " runs ", KindName(h.extra), " with instance_key ", w.instance_key,
                                    " where this rank runs CollectiveBcastRecvV2");
      }
      bool same = s.ok() && h.dtype == expected.dtype && h.rank == expected.rank;
      for (int64_t d = 0; same && d < h.rank; ++d) same = h.dims[d] == expected.dims[d];
      if (s.ok() && !same) {
        s = errors::InvalidArgument("rank ", root, " broadcast ", h.Describe(), " but this op receives ",
                                    expected.Describe());
      }
      if (s.ok()) s = Post(w, false, out->raw_data(), out->byte_size(), root, w.instance_key, reqs);
      if (s.ok()) s = WaitAll(w, reqs);
    }
    if (!s.ok()) return Fail(w, reqs, buffers, s);
    return Status::Ok();
  }

 private:
  DType dtype_ = DType::kFloat32;
};

// What the edges between the partitions of a cluster session's graph share: their attrs (the
// message tag, the peer rank, the tensor's name for messages) and the run they belong to.
class EdgeKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "tag", &tag_));
    GRAFT_RETURN_IF_ERROR(GetAttr(node(), "peer", &peer_));
    return GetAttr(node(), "tensor_name", &tensor_name_);
  }

 protected:
  Status Begin(OpKernelContext& ctx, ClusterRun** run, CollectiveTransport** t) const {
    const RunControl* control = ctx.run_control();
    *run = control != nullptr ? control->cluster : nullptr;
    *t = CollectiveTransport::Get();
    if (*run == nullptr || *t == nullptr) {
      return errors::FailedPrecondition("runs only as a part of a cluster session's run");
    }
    return Status::Ok();
  }

  int32_t tag_ = 0;
  int32_t peer_ = 0;
  std::string tensor_name_;
};

Status CheckSendable(DType dtype, const std::string& name) {
  if (dtype == DType::kString || dtype == DType::kResource || dtype == DType::kVariant) {
    return errors::Unimplemented("'", name, "' is a ", DTypeName(dtype),
                                 " tensor, which cannot cross processes yet (place its producer and consumers together)");
  }
  return Status::Ok();
}

// _GraftSend(input: T): posts its input (a header, then its bytes) to rank `peer` and returns
// without waiting; the cluster session waits for the send after the local run.
class GraftSendKernel : public EdgeKernel {
 public:
  using EdgeKernel::EdgeKernel;
  Status Compute(OpKernelContext& ctx) const override {
    ClusterRun* run = nullptr;
    CollectiveTransport* t = nullptr;
    GRAFT_RETURN_IF_ERROR(Begin(ctx, &run, &t));
    const Tensor& in = ctx.input(0);
    GRAFT_RETURN_IF_ERROR(CheckSendable(in.dtype(), tensor_name_));
    struct Buffers {
      Tensor in;
      TensorHeader header;
    };
    auto buffers = std::make_shared<Buffers>();
    buffers->in = in;
    GRAFT_RETURN_IF_ERROR(TensorHeader::Of(in, 0, &buffers->header));
    buffers->header.step = run->step_id;
    std::vector<Request> reqs;
    Status s = t->PostTensor(in, &buffers->header, peer_, tag_, &reqs);
    std::lock_guard<std::mutex> lock(run->mu);
    run->sends.insert(run->sends.end(), reqs.begin(), reqs.end());
    run->buffers.push_back(std::move(buffers));
    return s;
  }
};

// _GraftRecv() -> T: the tensor that rank `peer` sends on this edge in this run
// (CollectiveTransport::RecvTensor: what earlier, failed runs left on the edge is dropped).
class GraftRecvKernel : public EdgeKernel {
 public:
  using EdgeKernel::EdgeKernel;
  Status Init() {
    GRAFT_RETURN_IF_ERROR(EdgeKernel::Init());
    timeout_s_ = CollectiveTimeoutSeconds();  // once per plan, not per run
    return GetAttr(node(), "T", &dtype_);
  }

  Status Compute(OpKernelContext& ctx) const override {
    ClusterRun* run = nullptr;
    CollectiveTransport* t = nullptr;
    GRAFT_RETURN_IF_ERROR(Begin(ctx, &run, &t));
    const RunControl* control = ctx.run_control();
    CollectiveTransport::WaitOptions options;
    options.cancellation = control->cancellation;
    options.timeout_s = timeout_s_;
    options.deadline_ns = std::min(control->deadline_ns,
                                   RunControl::PreciseNowNs() + static_cast<int64_t>(options.timeout_s * 1e9));
    options.what = StrCat("'", tensor_name_, "' of run ", run->step_id);
    Tensor value;
    return t->RecvTensor(
        peer_, tag_, run->step_id, options,
        [&](const TensorHeader& h, Tensor* out) -> Status {
          if (static_cast<DType>(h.dtype) != dtype_) {
            return errors::DTypeError("rank ", peer_, " sent '", tensor_name_, "' as ", h.Describe(), ", not ",
                                      DTypeName(dtype_));
          }
          Tensor* o = nullptr;
          GRAFT_RETURN_IF_ERROR(
              ctx.AllocateOutput(0, dtype_, std::span<const int64_t>(h.dims, static_cast<size_t>(h.rank)), &o));
          *out = *o;
          return Status::Ok();
        },
        &value);
  }

 private:
  double timeout_s_ = 0;  // $GRAFT_COLLECTIVE_TIMEOUT or 300 s
  DType dtype_ = DType::kFloat32;
};

}  // namespace

void RegisterCollectiveKernels(KernelRegistry& r) {
  (void)r.Register("_GraftSend", kDeviceCpu, "", {}, &CreateKernel<GraftSendKernel>);
  (void)r.Register("_GraftRecv", kDeviceCpu, "", {}, &CreateKernel<GraftRecvKernel>);
  const auto reduce_types = {DType::kBFloat16, DType::kFloat32, DType::kFloat16, DType::kFloat64, DType::kInt32,
                             DType::kInt64};
  (void)r.Register("CollectiveReduceV2", kDeviceCpu, "T", reduce_types, &CreateKernel<CollectiveReduceKernel>);
  (void)r.Register("CollectiveGatherV2", kDeviceCpu, "T",
                   {DType::kFloat32, DType::kFloat16, DType::kFloat64, DType::kInt32, DType::kInt64},
                   &CreateKernel<CollectiveGatherKernel>);
  const auto bcast_types = {DType::kBool, DType::kFloat32, DType::kFloat16, DType::kFloat64, DType::kInt32,
                            DType::kInt64};
  (void)r.Register("CollectiveBcastSendV2", kDeviceCpu, "T", bcast_types, &CreateKernel<BcastSendKernel>);
  (void)r.Register("CollectiveBcastRecvV2", kDeviceCpu, "T", bcast_types, &CreateKernel<BcastRecvKernel>);
}

}  // namespace graft::cpu
