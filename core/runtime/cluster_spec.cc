#include "core/runtime/cluster_spec.h"

#include <charconv>

#include "core/str_cat.h"

namespace graft {

Status ClusterSpec::Parse(std::string_view text, ClusterSpec* out) {
  ClusterSpec spec;
  spec.text_ = std::string(text);
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view part = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    auto bad = [&](const char* why) {
      return errors::InvalidArgument("cluster spec '", text, "': '", part, "' ", why,
                                     " (expected jobs and task counts such as \"worker:2,ps:1\")");
    };
    size_t colon = part.find(':');
    if (colon == std::string_view::npos || colon == 0) return bad("is not job:count");
    std::string_view name = part.substr(0, colon), count = part.substr(colon + 1);
    for (char c : name) {
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) {
        return bad("has a job name of other characters than letters, digits and '_'");
      }
    }
    int n = 0;
    auto [ptr, ec] = std::from_chars(count.data(), count.data() + count.size(), n);
    if (ec != std::errc() || ptr != count.data() + count.size() || n < 1 || n > 64) {
      return bad("has a task count that is not 1..64");
    }
    for (const Job& j : spec.jobs_) {
      if (j.name == name) return bad("names a job twice");
    }
    spec.jobs_.push_back(Job{std::string(name), n, spec.num_tasks_});
    spec.num_tasks_ += n;
    if (spec.num_tasks_ > 64) return bad("makes more than 64 tasks");
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  *out = std::move(spec);
  return Status::Ok();
}

Status ClusterSpec::RankOf(const std::string& job, int64_t task, int* rank) const {
  for (const Job& j : jobs_) {
    if (j.name != job) continue;
    if (task < 0 || task >= j.count) {
      return errors::InvalidArgument("/job:", job, "/task:", task, " is not in the cluster spec '", text_, "' (job ",
                                     job, " has ", j.count, " tasks)");
    }
    *rank = j.first_rank + static_cast<int>(task);
    return Status::Ok();
  }
  return errors::InvalidArgument("/job:", job, " is not in the cluster spec '", text_, "'");
}

std::string ClusterSpec::TaskName(int rank) const {
  for (const Job& j : jobs_) {
    if (rank >= j.first_rank && rank < j.first_rank + j.count) return StrCat("/job:", j.name, "/task:", rank - j.first_rank);
  }
  return StrCat("rank ", rank);
}

}  // namespace graft
