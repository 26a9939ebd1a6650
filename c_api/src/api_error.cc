#include "c_api/src/api_error.h"

#include <string>

#include "core/thread_owned.h"

namespace graft::capi {
namespace {

struct LastError {
  int code = GRAFT_OK;
  std::string message;
};

LastError& ThreadLastError() {
  // ThreadOwned, not thread_local: a thread_local with a destructor would keep a dlopen'ed
  // libgraft loaded until the thread exits (see core/thread_owned.h).
  return ThreadOwned<LastError>();
}

}  // namespace

int ToCode(Code code) {
  switch (code) {
    case Code::kOk: return GRAFT_OK;
    case Code::kUnknown: return GRAFT_EUNKNOWN;
    case Code::kInvalidArgument: return GRAFT_EINVAL;
    case Code::kNotFound: return GRAFT_ENOTFOUND;
    case Code::kAlreadyExists: return GRAFT_EEXISTS;
    case Code::kDType: return GRAFT_EDTYPE;
    case Code::kShape: return GRAFT_ESHAPE;
    case Code::kOutOfRange: return GRAFT_ERANGE;
    case Code::kResourceExhausted: return GRAFT_ENOMEM;
    case Code::kFailedPrecondition: return GRAFT_EPRECONDITION;
    case Code::kUnimplemented: return GRAFT_EUNIMPLEMENTED;
    case Code::kInternal: return GRAFT_EINTERNAL;
    case Code::kDataLoss: return GRAFT_EDATALOSS;
    case Code::kDevice: return GRAFT_EDEVICE;
    case Code::kCancelled: return GRAFT_ECANCELLED;
    case Code::kDeadlineExceeded: return GRAFT_EDEADLINE;
  }
  return GRAFT_EUNKNOWN;
}

int Report(const char* function, const Status& status) {
  if (status.ok()) return GRAFT_OK;
  LastError& last = ThreadLastError();
  last.code = ToCode(status.code());
  try {
    last.message.assign(function);
    last.message += ": ";
    last.message += status.message();
    // One line: a message never carries a newline.
    for (char& c : last.message) {
      if (c == '\n' || c == '\r') c = ' ';
    }
  } catch (...) {
    last.message.clear();  // out of memory while reporting: keep the code at least
  }
  return last.code;
}

int ReportPlain(const char* function, Code code, const char* message) noexcept {
  LastError& last = ThreadLastError();
  last.code = ToCode(code);
  try {  // within the message's capacity this allocates nothing
    last.message.assign(function);
    last.message += ": ";
    last.message += message;
  } catch (...) {
    last.message.clear();
  }
  return last.code;
}

int ReportException(const char* function, const char* what) noexcept {
  try {
    return Report(function, errors::Internal("unexpected error: ", what));
  } catch (...) {
    return ReportPlain(function, Code::kInternal, "unexpected error");
  }
}

Code FromCode(int code) {
  switch (code) {
    case GRAFT_OK: return Code::kOk;
    case GRAFT_EINVAL: return Code::kInvalidArgument;
    case GRAFT_ENOTFOUND: return Code::kNotFound;
    case GRAFT_EEXISTS: return Code::kAlreadyExists;
    case GRAFT_EDTYPE: return Code::kDType;
    case GRAFT_ESHAPE: return Code::kShape;
    case GRAFT_ERANGE: return Code::kOutOfRange;
    case GRAFT_ENOMEM: return Code::kResourceExhausted;
    case GRAFT_EPRECONDITION: return Code::kFailedPrecondition;
    case GRAFT_EUNIMPLEMENTED: return Code::kUnimplemented;
    case GRAFT_EINTERNAL: return Code::kInternal;
    case GRAFT_EDATALOSS: return Code::kDataLoss;
    case GRAFT_EDEVICE: return Code::kDevice;
    case GRAFT_ECANCELLED: return Code::kCancelled;
    case GRAFT_EDEADLINE: return Code::kDeadlineExceeded;
    default: return Code::kUnknown;
  }
}

Status CallbackStatus(int code, std::string_view what) {
  if (code == GRAFT_OK) return Status::Ok();
  const std::string& message = ThreadLastError().message;
  return Status(FromCode(code), StrCat(what, " failed: ", message.empty() ? graft_status_str(code) : message));
}

}  // namespace graft::capi


extern "C" {

GRAFT_API int graft_error_set(int code, const char* message) {
  if (code == GRAFT_OK) {
    graft_error_clear();
    return GRAFT_OK;
  }
  auto& last = graft::capi::ThreadLastError();
  last.code = code;
  try {
    last.message.assign(message ? message : "");
    for (char& c : last.message) {
      if (c == '\n' || c == '\r') c = ' ';
    }
  } catch (...) {
    last.message.clear();
  }
  return code;
}

GRAFT_API const char* graft_error_last(void) {
  return graft::capi::ThreadLastError().message.c_str();
}

GRAFT_API int graft_error_last_code(void) { return graft::capi::ThreadLastError().code; }

GRAFT_API void graft_error_clear(void) {
  auto& last = graft::capi::ThreadLastError();
  last.code = GRAFT_OK;
  last.message.clear();
}

GRAFT_API const char* graft_status_name(int status) {
  switch (status) {
    case GRAFT_OK: return "GRAFT_OK";
    case GRAFT_EINVAL: return "GRAFT_EINVAL";
    case GRAFT_ENOTFOUND: return "GRAFT_ENOTFOUND";
    case GRAFT_EEXISTS: return "GRAFT_EEXISTS";
    case GRAFT_EDTYPE: return "GRAFT_EDTYPE";
    case GRAFT_ESHAPE: return "GRAFT_ESHAPE";
    case GRAFT_ERANGE: return "GRAFT_ERANGE";
    case GRAFT_ENOMEM: return "GRAFT_ENOMEM";
    case GRAFT_EPRECONDITION: return "GRAFT_EPRECONDITION";
    case GRAFT_EUNIMPLEMENTED: return "GRAFT_EUNIMPLEMENTED";
    case GRAFT_EINTERNAL: return "GRAFT_EINTERNAL";
    case GRAFT_EDATALOSS: return "GRAFT_EDATALOSS";
    case GRAFT_EDEVICE: return "GRAFT_EDEVICE";
    case GRAFT_ECANCELLED: return "GRAFT_ECANCELLED";
    case GRAFT_EDEADLINE: return "GRAFT_EDEADLINE";
    default: return "GRAFT_EUNKNOWN";
  }
}

GRAFT_API const char* graft_status_str(int status) {
  switch (status) {
    case GRAFT_OK: return "ok";
    case GRAFT_EINVAL: return "invalid argument";
    case GRAFT_ENOTFOUND: return "not found";
    case GRAFT_EEXISTS: return "already exists";
    case GRAFT_EDTYPE: return "wrong or unsupported dtype";
    case GRAFT_ESHAPE: return "incompatible shape";
    case GRAFT_ERANGE: return "out of range";
    case GRAFT_ENOMEM: return "out of memory or resources";
    case GRAFT_EPRECONDITION: return "failed precondition";
    case GRAFT_EUNIMPLEMENTED: return "not implemented";
    case GRAFT_EINTERNAL: return "internal error";
    case GRAFT_EDATALOSS: return "data loss or corruption";
    case GRAFT_EDEVICE: return "device error";
    case GRAFT_ECANCELLED: return "cancelled";
    case GRAFT_EDEADLINE: return "deadline exceeded";
    default: return "unknown error";
  }
}

}  // extern "C"
