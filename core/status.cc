// Status's out-of-line half: making, sharing and freeing an error's state.
#include "core/status.h"

namespace graft {

Status::Status(Code code, std::string message) {
  if (code != Code::kOk) state_ = new State{code, std::move(message), 1};
}

void Status::Unref(const State* state) noexcept {
  if (state->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete state;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string text;
  text.reserve(context.size() + 2 + message().size());
  text.append(context).append(": ").append(message());
  return Status(code(), std::move(text));
}

namespace internal {
Status ErrorFromPieces(Code code, std::initializer_list<StrPiece> pieces) {
  return Status(code, StrCatPieces(pieces));
}
}  // namespace internal

}  // namespace graft
