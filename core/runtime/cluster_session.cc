#include "core/runtime/cluster_session.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <set>
#include <thread>

#include "core/device_spec.h"
#include "core/str_cat.h"

namespace graft {
namespace {

using Request = CollectiveTransport::Request;

// The messages between the client and the others, on the control channel: a fixed header, then
// `length` bytes of payload when length > 0.
struct ControlHeader {
  int64_t kind = 0;
  int64_t step = 0;
  int64_t code = 0;    // kDone: the part's status code
  int64_t length = 0;  // bytes of payload that follow
};
enum Kind : int64_t { kRun = 1, kAbort = 2, kShutdown = 3, kDone = 4 };
constexpr int kToServerTag = 0;
constexpr int kToClientTag = 1;

int64_t DeadlineAfter(double seconds) { return RunControl::PreciseNowNs() + static_cast<int64_t>(seconds * 1e9); }

// Posts and waits for a header and its payload (a short message: done at once in practice).
Status SendControl(CollectiveTransport* t, int peer, int tag, ControlHeader h, const std::string& payload,
                   int64_t deadline_ns) {
  h.length = static_cast<int64_t>(payload.size());
  std::vector<Request> reqs(2);
  GRAFT_RETURN_IF_ERROR(t->Send(&h, sizeof h, peer, tag, &reqs[0], CollectiveTransport::kControl));
  if (!payload.empty()) {
    GRAFT_RETURN_IF_ERROR(t->Send(payload.data(), payload.size(), peer, tag, &reqs[1], CollectiveTransport::kControl));
  }
  CollectiveTransport::WaitOptions options;
  options.deadline_ns = deadline_ns;
  options.timeout_s = 0;
  options.what = "a cluster session's request";
  Status s = t->Wait(reqs, 0, reqs.size(), options);
  if (!s.ok()) {
    auto keep = std::make_shared<std::pair<ControlHeader, std::string>>(h, payload);
    t->Abandon(std::move(reqs), keep);
  }
  return s;
}

// Receives a payload of h.length bytes that follows header h from peer.
Status RecvPayload(CollectiveTransport* t, int peer, int tag, const ControlHeader& h, std::string* out,
                   int64_t deadline_ns) {
  out->assign(static_cast<size_t>(std::max<int64_t>(0, h.length)), '\0');
  if (out->empty()) return Status::Ok();
  std::vector<Request> reqs(1);
  GRAFT_RETURN_IF_ERROR(t->Recv(out->data(), out->size(), peer, tag, &reqs[0], CollectiveTransport::kControl));
  CollectiveTransport::WaitOptions options;
  options.deadline_ns = deadline_ns;
  options.what = "a cluster session's message";
  Status s = t->Wait(reqs, 0, 1, options);
  if (!s.ok()) t->CancelRecv(reqs[0]);
  return s;
}

std::vector<std::string_view> Lines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    if (nl == std::string_view::npos) nl = s.size();
    out.push_back(s.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

// A run's feeds, fetches and targets by name: the key of its plan and what the client sends.
std::string Signature(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                      const std::vector<const Node*>& targets) {
  std::string s;
  for (const Output& o : feeds) s += StrCat("F", Graph::TensorName(o), "\n");
  for (const Output& o : fetches) s += StrCat("O", Graph::TensorName(o), "\n");
  for (const Node* n : targets) s += StrCat("T", n->name(), "\n");
  return s;
}

// The device string of a copy: the original's, less job, replica and task.
std::string LocalDevice(const std::string& device) {
  if (device.empty()) return device;
  DeviceSpec spec;
  if (!DeviceSpec::Parse(device, &spec).ok()) return device;
  spec.job.reset();
  spec.replica.reset();
  spec.task.reset();
  return spec.ToString();
}

// A poll loop's pause: yields for the first polls (a message between processes of one machine
// takes microseconds), then sleeps, up to 1 ms, so that a long wait leaves the cores to others.
class Backoff {
 public:
  void Pause() {
    if (++polls_ < 4000) {
      std::this_thread::yield();
      return;
    }
    std::this_thread::sleep_for(pause_);
    pause_ = std::min(pause_ * 2, std::chrono::microseconds(1000));
  }

 private:
  int polls_ = 0;
  std::chrono::microseconds pause_{1};
};

}  // namespace

ClusterSession::Helper::Helper() {
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(mu_);
    while (true) {
      cv_.wait(lock, [this] { return stop_ || job_ != nullptr; });
      if (job_ == nullptr) return;  // stopping
      std::function<void()> job = std::move(job_);
      std::atomic<bool>* done = done_;
      job_ = nullptr;
      lock.unlock();
      job();
      done->store(true, std::memory_order_release);
      lock.lock();
    }
  });
}

ClusterSession::Helper::~Helper() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void ClusterSession::Helper::Start(std::function<void()> job, std::atomic<bool>* done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = std::move(job);
    done_ = done;
  }
  cv_.notify_one();
}

Status ClusterSession::Create(std::shared_ptr<const Graph> graph, const ClusterSpec& spec,
                              const SessionOptions& options, std::unique_ptr<ClusterSession>* out) {
  CollectiveTransport* t = CollectiveTransport::Get();
  if (t == nullptr) return errors::Unimplemented("no transport between processes in this build of Graft");
  GRAFT_RETURN_IF_ERROR(t->Init());
  if (t->size() != spec.num_tasks()) {
    return errors::InvalidArgument("the cluster spec '", spec.text(), "' has ", spec.num_tasks(), " tasks but the job has ",
                                   t->size(), " processes (mpirun -np ", spec.num_tasks(), ")");
  }
  int tag = 0;
  GRAFT_RETURN_IF_ERROR(EdgeTag(0, 0, false, 0, t->max_tag(), &tag));
  std::unique_ptr<ClusterSession> s(new ClusterSession(std::move(graph), spec, t, t->rank()));
  s->local_ = std::make_unique<Session>(s->local_graph_.get(), options);
  GRAFT_RETURN_IF_ERROR(s->local_->init_status());
  *out = std::move(s);
  return Status::Ok();
}

ClusterSession::ClusterSession(std::shared_ptr<const Graph> graph, const ClusterSpec& spec,
                               CollectiveTransport* transport, int rank)
    : graph_(std::move(graph)),
      spec_(spec),
      transport_(transport),
      rank_(rank),
      timeout_s_(CollectiveTimeoutSeconds()),
      local_graph_(std::make_shared<Graph>()) {}

ClusterSession::~ClusterSession() {
  if (!is_client()) return;
  std::lock_guard<std::mutex> lock(mu_);
  for (int r = 1; r < spec_.num_tasks(); ++r) {
    ControlHeader h;
    h.kind = kShutdown;
    (void)SendControl(transport_, r, kToServerTag, h, "", DeadlineAfter(10));
  }
}

Status ClusterSession::RankOfNode(const Node* node, int* rank) {
  if (auto it = ranks_.find(node->id()); it != ranks_.end()) {
    *rank = it->second;
    return Status::Ok();
  }
  int r = 0;
  // An op that takes a resource (a variable's handle) or a reference runs where it is.
  bool follows = false;
  for (int i = 0; i < node->num_inputs() && !follows; ++i) {
    const Output& in = node->input(i);
    DType d = node->input_type(i);
    if (in.node != nullptr && (d == DType::kResource || IsRefDType(d))) {
      GRAFT_RETURN_IF_ERROR(RankOfNode(in.node, &r));
      follows = true;
    }
  }
  if (!follows && !node->device().empty()) {
    DeviceSpec spec;
    GRAFT_RETURN_IF_ERROR(DeviceSpec::Parse(node->device(), &spec).WithContext(StrCat("op '", node->name(), "'")));
    if (spec.job.has_value()) {
      GRAFT_RETURN_IF_ERROR(spec_.RankOf(*spec.job, spec.task.value_or(0), &r)
                                .WithContext(StrCat("op '", node->name(), "' placed on ", node->device())));
    } else if (spec.task.has_value() && *spec.task != 0) {
      return errors::InvalidArgument("op '", node->name(), "' is placed on task ", *spec.task,
                                     " without a job; name the job (/job:worker/task:1)");
    }
  }
  ranks_[node->id()] = r;
  *rank = r;
  return Status::Ok();
}

Status ClusterSession::RecvNode(const Output& from, bool control, Node** out) {
  const std::string name = control ? StrCat("graft.edge/recv/", from.node->name(), "/control")
                                   : StrCat("graft.edge/recv/", from.node->name(), "_", from.index);
  if (auto it = edge_nodes_.find(name); it != edge_nodes_.end()) {
    *out = it->second;
    return Status::Ok();
  }
  int peer = 0, tag = 0;
  GRAFT_RETURN_IF_ERROR(RankOfNode(from.node, &peer));
  GRAFT_RETURN_IF_ERROR(EdgeTag(from.node->id(), from.index, control, rank_, transport_->max_tag(), &tag));
  NodeSpec spec;
  spec.type = "_GraftRecv";
  spec.name = name + "/";
  const DType dtype = control ? DType::kBool : from.node->output_type(from.index);
  const std::string tensor = control ? StrCat("^", from.node->name()) : Graph::TensorName(from);
  if (dtype == DType::kString || dtype == DType::kResource || dtype == DType::kVariant || IsRefDType(dtype)) {
    return errors::Unimplemented("'", tensor, "' (", DTypeName(dtype), ") would cross from ", spec_.TaskName(peer),
                                 " to ", spec_.TaskName(rank_),
                                 ", and such tensors cannot cross processes yet: place its producer and consumers together");
  }
  spec.attrs["T"] = AttrValue::Type(dtype);
  spec.attrs["shape"] = AttrValue::Shape(control ? PartialShape(std::vector<int64_t>{}) : from.node->output_shape(from.index));
  spec.attrs["tag"] = AttrValue::Int(tag);
  spec.attrs["peer"] = AttrValue::Int(peer);
  spec.attrs["tensor_name"] = AttrValue::String(tensor);
  spec.device = "";
  spec.skip_control_contexts = true;
  GRAFT_RETURN_IF_ERROR(local_graph_->AddNode(std::move(spec), out));
  edge_nodes_[name] = *out;
  return Status::Ok();
}

Status ClusterSession::SendNode(const Output& what, int dst, bool control, Node** out) {
  const std::string name = control ? StrCat("graft.edge/send/", what.node->name(), "/control_to_", dst)
                                   : StrCat("graft.edge/send/", what.node->name(), "_", what.index, "/to_", dst);
  if (auto it = edge_nodes_.find(name); it != edge_nodes_.end()) {
    *out = it->second;
    return Status::Ok();
  }
  Node* producer = nullptr;
  GRAFT_RETURN_IF_ERROR(LocalCopy(what.node, &producer));
  int tag = 0;
  GRAFT_RETURN_IF_ERROR(EdgeTag(what.node->id(), what.index, control, dst, transport_->max_tag(), &tag));
  Output value{producer, what.index};
  DType dtype = control ? DType::kBool : what.node->output_type(what.index);
  if (control) {  // a control edge carries a scalar made after the op
    NodeSpec c;
    c.type = "Const";
    c.name = name + "/value/";
    Tensor t;
    GRAFT_RETURN_IF_ERROR(Tensor::Allocate(DType::kBool, {}, &t));
    c.attrs["value"] = AttrValue::TensorValue(t);
    c.attrs["dtype"] = AttrValue::Type(DType::kBool);
    c.control_inputs = {producer};
    c.device = "";
    c.skip_control_contexts = true;
    Node* n = nullptr;
    GRAFT_RETURN_IF_ERROR(local_graph_->AddNode(std::move(c), &n));
    value = Output{n, 0};
  }
  NodeSpec spec;
  spec.type = "_GraftSend";
  spec.name = name + "/";
  spec.inputs.push_back(NodeSpec::InputArg{{value}, false});
  spec.attrs["T"] = AttrValue::Type(dtype);
  spec.attrs["tag"] = AttrValue::Int(tag);
  spec.attrs["peer"] = AttrValue::Int(dst);
  spec.attrs["tensor_name"] = AttrValue::String(control ? StrCat("^", what.node->name()) : Graph::TensorName(what));
  spec.device = "";
  spec.skip_control_contexts = true;
  GRAFT_RETURN_IF_ERROR(local_graph_->AddNode(std::move(spec), out));
  edge_nodes_[name] = *out;
  return Status::Ok();
}

// Copies node into the local graph (once), its local producers first; inputs from other
// processes come from _GraftRecv nodes. Depth-first along inputs: a cycle (a TensorFlow 1
// loop's back edge) is refused.
Status ClusterSession::LocalCopy(const Node* node, Node** out) {
  if (auto it = copies_.find(node->id()); it != copies_.end()) {
    if (it->second == nullptr) {
      return errors::Unimplemented("op '", node->name(), "' is in a cycle (a TensorFlow 1 loop), which a cluster session cannot split yet");
    }
    *out = it->second;
    return Status::Ok();
  }
  copies_[node->id()] = nullptr;  // in progress
  NodeSpec spec;
  spec.type = node->type();
  spec.name = node->name() + "/";
  spec.flat_inputs = true;
  spec.inputs.emplace_back();
  for (int i = 0; i < node->num_inputs(); ++i) {
    const Output& in = node->input(i);
    int r = 0;
    GRAFT_RETURN_IF_ERROR(RankOfNode(in.node, &r));
    Node* src = nullptr;
    if (r == rank_) {
      GRAFT_RETURN_IF_ERROR(LocalCopy(in.node, &src));
      spec.inputs[0].tensors.push_back(Output{src, in.index});
    } else {
      GRAFT_RETURN_IF_ERROR(RecvNode(in, false, &src));
      spec.inputs[0].tensors.push_back(Output{src, 0});
    }
  }
  for (Node* c : node->control_inputs()) {
    int r = 0;
    GRAFT_RETURN_IF_ERROR(RankOfNode(c, &r));
    Node* src = nullptr;
    if (r == rank_) {
      GRAFT_RETURN_IF_ERROR(LocalCopy(c, &src));
    } else {
      GRAFT_RETURN_IF_ERROR(RecvNode(Output{c, 0}, true, &src));
    }
    spec.control_inputs.push_back(src);
  }
  spec.attrs = node->attrs();
  spec.attrs.erase("_class");  // colocation with ops that may live in another process
  spec.device = LocalDevice(node->device());
  spec.skip_control_contexts = true;
  Node* copy = nullptr;
  Status s = local_graph_->AddNode(std::move(spec), &copy);
  if (!s.ok()) {
    copies_.erase(node->id());
    return s.WithContext(StrCat("copying op '", node->name(), "' into ", spec_.TaskName(rank_), "'s part"));
  }
  copies_[node->id()] = copy;
  *out = copy;
  return Status::Ok();
}

Status ClusterSession::BuildPlan(const std::vector<Output>& feeds, const std::vector<Output>& fetches,
                                 const std::vector<const Node*>& targets, Plan* plan) {
  if (plans_version_ != graph_->version()) {
    local_graph_->SetLibrary(graph_->library());
    plans_version_ = graph_->version();
  }
  std::map<std::string, int> fed;  // tensor name -> feed index
  for (size_t i = 0; i < feeds.size(); ++i) fed[Graph::TensorName(feeds[i])] = static_cast<int>(i);
  auto fed_index = [&](const Output& o) {
    auto it = fed.find(Graph::TensorName(o));
    return it == fed.end() ? -1 : it->second;
  };
  // The ops the run needs: back from fetches and targets, stopping at fed tensors.
  std::set<int64_t> seen;
  std::vector<Node*> needed, stack;
  auto visit = [&](Node* n) {
    if (seen.insert(n->id()).second) stack.push_back(n);
  };
  for (const Output& o : fetches) {
    if (fed_index(o) < 0) visit(o.node);
  }
  for (const Node* n : targets) visit(const_cast<Node*>(n));
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    needed.push_back(n);
    for (const Output& in : n->inputs()) {
      if (in.node != nullptr && fed_index(in) < 0) visit(in.node);
    }
    for (Node* c : n->control_inputs()) visit(c);
  }
  std::sort(needed.begin(), needed.end(), [](const Node* a, const Node* b) { return a->id() < b->id(); });

  std::set<int> participants;
  std::set<std::string> done_sends, done_feeds;
  for (Node* n : needed) {
    int rn = 0;
    GRAFT_RETURN_IF_ERROR(RankOfNode(n, &rn));
    if (rn != 0) participants.insert(rn);
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Output& in = n->input(i);
      if (in.node == nullptr) continue;
      int rp = 0;
      GRAFT_RETURN_IF_ERROR(RankOfNode(in.node, &rp));
      const int f = fed_index(in);
      if (f >= 0) {
        // A fed tensor comes from the client to each process that consumes it.
        const std::string key = StrCat(f, "->", rn);
        if (!done_feeds.insert(key).second) continue;
        int tag = 0;
        GRAFT_RETURN_IF_ERROR(EdgeTag(in.node->id(), in.index, false, rn, transport_->max_tag(), &tag));
        if (rn == rank_) {
          Node* local = nullptr;
          if (rp == rank_) {
            GRAFT_RETURN_IF_ERROR(LocalCopy(in.node, &local));
            plan->local_feeds.push_back(Output{local, in.index});
          } else {
            GRAFT_RETURN_IF_ERROR(RecvNode(in, false, &local));
            plan->local_feeds.push_back(Output{local, 0});
          }
          plan->local_feed_of.push_back(f);
          plan->local_feed_tag.push_back(tag);
        } else if (rank_ == 0) {
          plan->feed_sends.push_back(Plan::FeedSend{f, rn, tag});
        }
      } else if (rp != rn && rp == rank_) {
        Node* send = nullptr;
        GRAFT_RETURN_IF_ERROR(SendNode(in, rn, false, &send));
        if (done_sends.insert(send->name()).second) plan->local_targets.push_back(send);
      }
    }
    for (Node* c : n->control_inputs()) {
      int rc = 0;
      GRAFT_RETURN_IF_ERROR(RankOfNode(c, &rc));
      if (rc != rn && rc == rank_) {
        Node* send = nullptr;
        GRAFT_RETURN_IF_ERROR(SendNode(Output{c, 0}, rn, true, &send));
        if (done_sends.insert(send->name()).second) plan->local_targets.push_back(send);
      }
    }
  }
  for (const Node* t : targets) {
    int r = 0;
    GRAFT_RETURN_IF_ERROR(RankOfNode(t, &r));
    if (r != rank_) continue;
    Node* local = nullptr;
    GRAFT_RETURN_IF_ERROR(LocalCopy(t, &local));
    plan->local_targets.push_back(local);
  }
  for (const Output& o : fetches) {
    const int f = fed_index(o);
    if (f >= 0) {
      plan->fetch_slot.push_back(-1 - f);
      continue;
    }
    int r = 0;
    GRAFT_RETURN_IF_ERROR(RankOfNode(o.node, &r));
    if (r != 0 && r == rank_) {  // goes back to the client
      Node* send = nullptr;
      GRAFT_RETURN_IF_ERROR(SendNode(o, 0, false, &send));
      if (done_sends.insert(send->name()).second) plan->local_targets.push_back(send);
    }
    if (rank_ != 0) continue;
    Node* local = nullptr;
    if (r == 0) {
      GRAFT_RETURN_IF_ERROR(LocalCopy(o.node, &local));
      plan->local_fetches.push_back(Output{local, o.index});
    } else {
      GRAFT_RETURN_IF_ERROR(RecvNode(o, false, &local));
      plan->local_fetches.push_back(Output{local, 0});
    }
    plan->fetch_slot.push_back(static_cast<int>(plan->local_fetches.size()) - 1);
  }
  for (const Plan::FeedSend& fs : plan->feed_sends) participants.insert(fs.rank);
  plan->participants.assign(participants.begin(), participants.end());
  return Status::Ok();
}

Status ClusterSession::RunLocal(const Plan& plan, std::vector<std::pair<Output, Tensor>> feeds, ClusterRun* run,
                                const CancellationFlag* cancellation, int64_t deadline_ns,
                                std::vector<Tensor>* outputs) {
  outputs->clear();
  if (plan.local_fetches.empty() && plan.local_targets.empty()) return Status::Ok();
  RunControl control;
  control.cancellation = cancellation;
  control.deadline_ns = deadline_ns;
  control.cluster = run;
  return local_->Run(feeds, plan.local_fetches, plan.local_targets, outputs, nullptr, false, &control);
}

Status ClusterSession::WaitForSends(ClusterRun* run, int64_t deadline_ns) {
  std::lock_guard<std::mutex> lock(run->mu);
  CollectiveTransport::WaitOptions options;
  options.deadline_ns = deadline_ns;
  options.what = StrCat("the sends of run ", run->step_id);
  Status s = transport_->Wait(run->sends, 0, run->sends.size(), options);
  if (!s.ok()) {
    auto keep = std::make_shared<std::vector<std::shared_ptr<void>>>(std::move(run->buffers));
    transport_->Abandon(std::move(run->sends), keep);
    run->sends.clear();
  }
  return s;
}

Status ClusterSession::Run(const std::vector<std::pair<Output, Tensor>>& feeds, const std::vector<Output>& fetches,
                           const std::vector<const Node*>& targets, std::vector<Tensor>* outputs,
                           const RunControl* control) {
  if (!is_client()) {
    return errors::FailedPrecondition("only the client (", spec_.TaskName(0),
                                      ", rank 0) runs a cluster session; this process (", spec_.TaskName(rank_),
                                      ") serves it (graft_session_serve)");
  }
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Output> feed_outputs;
  for (const auto& [o, t] : feeds) feed_outputs.push_back(o);
  const std::string signature = Signature(feed_outputs, fetches, targets);
  std::shared_ptr<Plan> plan;
  if (auto it = plans_.find(signature); it != plans_.end() && plans_version_ == graph_->version()) {
    plan = it->second;
  } else {
    if (plans_version_ != graph_->version()) plans_.clear();
    plan = std::make_shared<Plan>();
    GRAFT_RETURN_IF_ERROR(BuildPlan(feed_outputs, fetches, targets, plan.get()));
    plans_[signature] = plan;
  }
  // Fed values that go to other processes must be able to: checked before anything is sent.
  for (const Plan::FeedSend& fs : plan->feed_sends) {
    const Tensor& value = feeds[static_cast<size_t>(fs.feed)].second;
    const DType d = value.dtype();
    if (d == DType::kString || d == DType::kResource || d == DType::kVariant) {
      return errors::Unimplemented("feed '", Graph::TensorName(feeds[static_cast<size_t>(fs.feed)].first), "' (",
                                   DTypeName(d), ") is consumed on ", spec_.TaskName(fs.rank),
                                   ", and such tensors cannot cross processes yet");
    }
  }
  const int64_t step = transport_->NextStep();
  int64_t deadline_ns = DeadlineAfter(timeout_s_);
  if (control != nullptr) deadline_ns = std::min(deadline_ns, control->deadline_ns);
  const int64_t remaining_ms = std::max<int64_t>(1, (deadline_ns - RunControl::PreciseNowNs()) / 1000000);

  // 1. Each participant gets the run, then the fed values it consumes. Once a request has
  // gone, a failure here tells the participants to stop, and what was posted keeps its
  // buffers until it is done.
  ClusterRun run;
  run.step_id = step;
  size_t asked = 0;
  auto fail_early = [&](const Status& why) {
    ControlHeader h;
    h.kind = kAbort;
    h.step = step;
    for (size_t i = 0; i < asked; ++i) {
      (void)SendControl(transport_, plan->participants[i], kToServerTag, h, "", DeadlineAfter(10));
    }
    auto keep = std::make_shared<std::vector<std::shared_ptr<void>>>(std::move(run.buffers));
    transport_->Abandon(std::move(run.sends), keep);
    return why;
  };
  ControlHeader request;
  request.kind = kRun;
  request.step = step;
  const std::string payload = StrCat(signature, "D", remaining_ms, "\n");
  for (int r : plan->participants) {
    Status s = SendControl(transport_, r, kToServerTag, request, payload, deadline_ns)
                   .WithContext(StrCat("asking ", spec_.TaskName(r), " to run its part"));
    if (!s.ok()) return fail_early(s);
    ++asked;
  }
  for (const Plan::FeedSend& fs : plan->feed_sends) {
    auto value = std::make_shared<Tensor>(feeds[static_cast<size_t>(fs.feed)].second);
    auto header = std::make_shared<TensorHeader>();
    Status s = TensorHeader::Of(*value, 0, header.get());
    header->step = step;
    if (s.ok()) s = transport_->PostTensor(*value, header.get(), fs.rank, fs.tag, &run.sends);
    run.buffers.push_back(header);
    run.buffers.push_back(value);
    if (!s.ok()) return fail_early(s);
  }
  // 2. The replies: posted before the local part runs, watched while it does.
  const size_t n = plan->participants.size();
  std::vector<ControlHeader> replies(n);
  std::vector<Request> reply_reqs(n);
  for (size_t i = 0; i < n; ++i) {
    Status s = transport_->Recv(&replies[i], sizeof(ControlHeader), plan->participants[i], kToClientTag,
                                &reply_reqs[i], CollectiveTransport::kControl);
    if (!s.ok()) {
      for (size_t j = 0; j < i; ++j) transport_->CancelRecv(reply_reqs[j]);
      return fail_early(s);
    }
  }
  // 3. The local part, on a thread of its own; this one watches the replies and the caller's
  // cancellation, and cancels the local part (and tells the others) when something fails.
  std::vector<std::pair<Output, Tensor>> local_feeds;
  for (size_t i = 0; i < plan->local_feeds.size(); ++i) {
    local_feeds.emplace_back(plan->local_feeds[i], feeds[static_cast<size_t>(plan->local_feed_of[i])].second);
  }
  CancellationFlag cancel;
  std::atomic<bool> local_done{false};
  Status local_status;
  std::vector<Tensor> values;
  helper_.Start([&] { local_status = RunLocal(*plan, std::move(local_feeds), &run, &cancel, deadline_ns, &values); },
                &local_done);
  Status remote_error;
  std::string remote_task;
  std::vector<bool> replied(n, false);
  bool aborted = false;
  auto abort_all = [&] {
    if (aborted) return;
    aborted = true;
    cancel.Cancel();
    ControlHeader h;
    h.kind = kAbort;
    h.step = step;
    for (size_t i = 0; i < n; ++i) {
      if (!replied[i]) (void)SendControl(transport_, plan->participants[i], kToServerTag, h, "", DeadlineAfter(10));
    }
  };
  Status wait_status;
  Backoff backoff;
  while (true) {
    bool all = true;
    for (size_t i = 0; i < n; ++i) {
      if (replied[i]) continue;
      bool done = false;
      Status s = transport_->Test(reply_reqs[i], &done);
      if (!s.ok() && wait_status.ok()) wait_status = s;
      if (!done) {
        all = false;
        continue;
      }
      std::string message;
      (void)RecvPayload(transport_, plan->participants[i], kToClientTag, replies[i], &message, DeadlineAfter(10));
      if (replies[i].kind != kDone || replies[i].step != step) {  // a late reply to an earlier run
        Status again = transport_->Recv(&replies[i], sizeof(ControlHeader), plan->participants[i], kToClientTag,
                                        &reply_reqs[i], CollectiveTransport::kControl);
        if (again.ok()) {
          all = false;
          continue;
        }
        if (wait_status.ok()) wait_status = again;
      }
      replied[i] = true;
      if (replies[i].code != 0 && remote_error.ok() &&
          !(aborted && replies[i].code == static_cast<int64_t>(Code::kCancelled))) {
        remote_error = Status(static_cast<Code>(replies[i].code), message);
        remote_task = spec_.TaskName(plan->participants[i]);
        abort_all();
      }
    }
    const bool local_finished = local_done.load(std::memory_order_acquire);
    if (local_finished && !local_status.ok()) abort_all();
    if (all && local_finished) break;
    if (!aborted && control != nullptr && control->cancellation != nullptr && control->cancellation->cancelled()) {
      abort_all();
    }
    if (RunControl::CoarseNowNs() >= deadline_ns + static_cast<int64_t>(5e9)) {
      // Past the deadline and a grace period for the others to report it themselves.
      for (size_t i = 0; i < n; ++i) {
        if (!replied[i]) {
          transport_->CancelRecv(reply_reqs[i]);
          if (wait_status.ok()) {
            wait_status = errors::DeadlineExceeded(spec_.TaskName(plan->participants[i]), " did not finish run ", step,
                                                   " by its deadline");
          }
        }
      }
      abort_all();
      if (local_finished) break;
    }
    backoff.Pause();
  }
  Status sends = WaitForSends(&run, deadline_ns + static_cast<int64_t>(5e9));
  if (!remote_error.ok()) {
    return Status(remote_error.code(), StrCat("on ", remote_task, ": ", remote_error.message()));
  }
  if (!local_status.ok()) {
    if (local_status.code() == Code::kCancelled && control != nullptr && control->cancellation != nullptr &&
        control->cancellation->cancelled()) {
      return errors::Cancelled("the run was cancelled");
    }
    return local_status;
  }
  GRAFT_RETURN_IF_ERROR(wait_status);
  GRAFT_RETURN_IF_ERROR(sends);
  outputs->clear();
  for (int slot : plan->fetch_slot) {
    outputs->push_back(slot >= 0 ? values[static_cast<size_t>(slot)] : feeds[static_cast<size_t>(-1 - slot)].second);
  }
  return Status::Ok();
}

Status ClusterSession::Serve() {
  if (is_client()) {
    return errors::FailedPrecondition("the client (", spec_.TaskName(0), ") runs the session; only the others serve it");
  }
  std::lock_guard<std::mutex> lock(mu_);
  CollectiveTransport::WaitOptions forever;
  forever.what = StrCat("the client's requests (", spec_.TaskName(rank_), ")");
  forever.max_pause_us = 50;  // bounds the latency of a run that comes after a pause
  // The client's messages, in order; those that come while a run is going on wait here (a
  // request the client sent after giving up on a slow run).
  struct Message {
    ControlHeader header;
    std::string payload;
    int64_t arrived_ns = 0;  // a run's deadline counts from here
  };
  std::deque<Message> queued;
  ControlHeader h;
  std::vector<Request> next(1);
  GRAFT_RETURN_IF_ERROR(transport_->Recv(&h, sizeof h, 0, kToServerTag, &next[0], CollectiveTransport::kControl));
  // Takes the message that arrived into `h` (with its payload) and posts the next receive. An
  // abort also takes the aborted run out of the queue.
  auto take = [&](Message* out) -> Status {
    out->header = h;
    out->arrived_ns = RunControl::PreciseNowNs();
    GRAFT_RETURN_IF_ERROR(RecvPayload(transport_, 0, kToServerTag, h, &out->payload, DeadlineAfter(timeout_s_)));
    if (out->header.kind == kAbort) {
      const int64_t step = out->header.step;
      std::erase_if(queued, [step](const Message& m) { return m.header.kind == kRun && m.header.step == step; });
    }
    if (out->header.kind == kShutdown) return Status::Ok();  // nothing follows
    return transport_->Recv(&h, sizeof h, 0, kToServerTag, &next[0], CollectiveTransport::kControl);
  };
  while (true) {
    Message message;
    if (!queued.empty()) {
      message = std::move(queued.front());
      queued.pop_front();
    } else {
      GRAFT_RETURN_IF_ERROR(transport_->Wait(next, 0, 1, forever));
      GRAFT_RETURN_IF_ERROR(take(&message));
    }
    const ControlHeader& request = message.header;
    if (request.kind == kShutdown) return Status::Ok();
    if (request.kind != kRun) continue;  // an abort of a run that is over
    // Parse the run and plan it as the client did.
    std::vector<Output> feeds, fetches;
    std::vector<const Node*> targets;
    int64_t remaining_ms = static_cast<int64_t>(timeout_s_ * 1000);
    Status status;
    for (std::string_view line : Lines(message.payload)) {
      if (line.empty() || !status.ok()) continue;
      std::string_view name = line.substr(1);
      if (line[0] == 'D') {
        remaining_ms = std::strtoll(std::string(name).c_str(), nullptr, 10);
      } else if (line[0] == 'T') {
        Node* n = graph_->FindNode(name);
        if (n == nullptr) status = errors::NotFound("the client's graph has op '", name, "' but this process's has not");
        targets.push_back(n);
      } else {
        Output o;
        status = graph_->FindTensor(name, &o);
        (line[0] == 'F' ? feeds : fetches).push_back(o);
      }
    }
    const int64_t deadline_ns = message.arrived_ns + std::clamp<int64_t>(remaining_ms, 1, int64_t{1} << 40) * 1000000;
    std::shared_ptr<Plan> plan;
    if (status.ok()) {
      const std::string signature = Signature(feeds, fetches, targets);
      if (auto it = plans_.find(signature); it != plans_.end() && plans_version_ == graph_->version()) {
        plan = it->second;
      } else {
        if (plans_version_ != graph_->version()) plans_.clear();
        plan = std::make_shared<Plan>();
        status = BuildPlan(feeds, fetches, targets, plan.get());
        if (status.ok()) plans_[signature] = plan;
      }
    }
    ClusterRun run;
    run.step_id = request.step;
    CancellationFlag cancel;
    std::vector<std::pair<Output, Tensor>> local_feeds;
    CollectiveTransport::WaitOptions feed_wait;
    feed_wait.deadline_ns = deadline_ns;
    // The fed values this process consumes, from the client: those of this run (an earlier,
    // failed run's are dropped on the way).
    for (size_t i = 0; status.ok() && i < plan->local_feeds.size(); ++i) {
      feed_wait.what = StrCat("feed ", Graph::TensorName(feeds[static_cast<size_t>(plan->local_feed_of[i])]), " of run ",
                              request.step);
      Tensor value;
      status = transport_->RecvTensor(
          0, plan->local_feed_tag[i], request.step, feed_wait,
          [](const TensorHeader& th, Tensor* out) {
            return Tensor::AllocateUninitialized(static_cast<DType>(th.dtype),
                                                 std::span<const int64_t>(th.dims, static_cast<size_t>(th.rank)), out);
          },
          &value);
      local_feeds.emplace_back(plan->local_feeds[i], std::move(value));
    }
    bool shutdown = false;
    if (status.ok()) {
      // The local part, on the helper thread; this one watches the client's messages: an abort
      // of this run cancels it, anything else waits its turn.
      std::atomic<bool> done{false};
      std::vector<Tensor> values;
      helper_.Start([&] { status = RunLocal(*plan, std::move(local_feeds), &run, &cancel, deadline_ns, &values); },
                    &done);
      Backoff backoff;
      while (!done.load(std::memory_order_acquire)) {
        bool arrived = false;
        if (!shutdown && next[0].active) (void)transport_->Test(next[0], &arrived);
        if (arrived) {
          Message m;
          if (take(&m).ok()) {
            if (m.header.kind == kAbort && m.header.step == request.step) cancel.Cancel();
            if (m.header.kind == kShutdown) {
              shutdown = true;
              cancel.Cancel();
            }
            if (m.header.kind == kRun) queued.push_back(std::move(m));
          }
        }
        backoff.Pause();
      }
      Status sends = WaitForSends(&run, deadline_ns);
      if (status.ok()) status = sends;
    }
    ControlHeader reply;
    reply.kind = kDone;
    reply.step = request.step;
    reply.code = static_cast<int64_t>(status.code());
    Status sent = SendControl(transport_, 0, kToClientTag, reply, status.ok() ? "" : status.message(),
                              DeadlineAfter(timeout_s_));
    if (shutdown) return Status::Ok();
    GRAFT_RETURN_IF_ERROR(sent);
  }
}

}  // namespace graft
