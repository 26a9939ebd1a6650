// Status: the result of a fallible core operation, a code and a one-line message.
// Core code reports expected failures through Status (never exceptions); the C API turns a
// Status into an int code and the thread-local message.
#pragma once

#include <atomic>
#include <initializer_list>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "core/str_cat.h"

namespace graft {

enum class Code : int {
  kOk = 0,
  kUnknown,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kDType,
  kShape,
  kOutOfRange,
  kResourceExhausted,
  kFailedPrecondition,
  kUnimplemented,
  kInternal,
  kDataLoss,
  kDevice,
  kCancelled,
  kDeadlineExceeded,
};

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(Code code, std::string message);
  Status(const Status& other) noexcept : state_(other.state_) {
    if (state_ != nullptr) state_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  Status(Status&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  Status& operator=(const Status& other) noexcept {
    if (other.state_ != nullptr) other.state_->refs.fetch_add(1, std::memory_order_relaxed);
    if (state_ != nullptr) Unref(state_);
    state_ = other.state_;
    return *this;
  }
  Status& operator=(Status&& other) noexcept {
    if (this != &other) {
      if (state_ != nullptr) Unref(state_);
      state_ = std::exchange(other.state_, nullptr);
    }
    return *this;
  }
  // Inline only the null test: every function that handles a Status destroys one, and an
  // inlined shared_ptr release at each of them was a sizeable part of the library.
  ~Status() {
    if (state_ != nullptr) Unref(state_);
  }

  static Status Ok() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  Code code() const { return state_ ? state_->code : Code::kOk; }
  const std::string& message() const {
    static const std::string kEmpty;
    return state_ ? state_->message : kEmpty;
  }

  // The same error with "context: " put before its message.
  Status WithContext(std::string_view context) const;

 private:
  // Shared by the copies of one error, immutable but for its count (status.cc).
  struct State {
    Code code;
    std::string message;
    mutable std::atomic<int> refs;
  };
  static void Unref(const State* state) noexcept;
  const State* state_ = nullptr;  // null when OK, so an OK Status costs one pointer
};

namespace internal {
// An error whose message is the pieces joined (errors::X's common case, compiled once).
Status ErrorFromPieces(Code code, std::initializer_list<StrPiece> pieces);
}  // namespace internal

namespace errors {
#define GRAFT_DEFINE_ERROR(Name, CodeValue)              \
  template <typename... Args>                                                \
  Status Name(const Args&... args) {                                         \
    if constexpr ((internal::Piece<Args> && ...)) {                          \
      return internal::ErrorFromPieces(Code::CodeValue, {internal::StrPiece(args)...}); \
    } else {                                                                 \
      return Status(Code::CodeValue, StrCat(args...));                       \
    }                                                                        \
  }
GRAFT_DEFINE_ERROR(Unknown, kUnknown)
GRAFT_DEFINE_ERROR(InvalidArgument, kInvalidArgument)
GRAFT_DEFINE_ERROR(NotFound, kNotFound)
GRAFT_DEFINE_ERROR(AlreadyExists, kAlreadyExists)
GRAFT_DEFINE_ERROR(DTypeError, kDType)
GRAFT_DEFINE_ERROR(ShapeError, kShape)
GRAFT_DEFINE_ERROR(OutOfRange, kOutOfRange)
GRAFT_DEFINE_ERROR(ResourceExhausted, kResourceExhausted)
GRAFT_DEFINE_ERROR(FailedPrecondition, kFailedPrecondition)
GRAFT_DEFINE_ERROR(Unimplemented, kUnimplemented)
GRAFT_DEFINE_ERROR(Internal, kInternal)
GRAFT_DEFINE_ERROR(DataLoss, kDataLoss)
GRAFT_DEFINE_ERROR(DeviceError, kDevice)
GRAFT_DEFINE_ERROR(Cancelled, kCancelled)
GRAFT_DEFINE_ERROR(DeadlineExceeded, kDeadlineExceeded)
#undef GRAFT_DEFINE_ERROR
}  // namespace errors

// Returns early from the enclosing function when expr is not OK.
#define GRAFT_RETURN_IF_ERROR(expr)            \
  do {                                         \
    ::graft::Status _graft_status = (expr);    \
    if (!_graft_status.ok()) return _graft_status; \
  } while (0)

}  // namespace graft
