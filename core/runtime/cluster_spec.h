// ClusterSpec: which process of an MPI job is which TensorFlow task. Written "worker:2,ps:1":
// jobs and their task counts, whose tasks take the job's ranks in order (worker/0 is rank 0,
// worker/1 rank 1, ps/0 rank 2). Task 0 of the first job is the client, the process that runs
// the graph; the others serve it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace graft {

class ClusterSpec {
 public:
  // Fails naming the part that is not "job:count" (a job name of letters, digits and '_',
  // count 1..64, no job twice).
  static Status Parse(std::string_view text, ClusterSpec* out);

  int num_tasks() const { return num_tasks_; }
  const std::string& text() const { return text_; }
  // The rank of /job:job/task:task; kInvalidArgument naming what the spec lacks.
  Status RankOf(const std::string& job, int64_t task, int* rank) const;
  std::string TaskName(int rank) const;  // "/job:worker/task:1"

 private:
  struct Job {
    std::string name;
    int count = 0;
    int first_rank = 0;
  };
  std::vector<Job> jobs_;
  int num_tasks_ = 0;
  std::string text_;
};

}  // namespace graft
