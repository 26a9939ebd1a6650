// graft_api_get: the C API as one versioned table of function pointers (graft/api.h, issue #20).
// The members and their order come from c_api/api_table.list (scripts/gen-api-table.py writes
// graft/api.h and api_table.inc from it): C++20's designated initializers must follow the
// struct's order and each function must have its member's exact type, so a table that does
// not match the header does not compile.
#include "graft/api.h"

#include "c_api/src/api_error.h"
#include "graft/version.h"

namespace {

constexpr graft_api kTable = {
#define GRAFT_API_ENTRY(member) .member = graft_##member,
#include "c_api/src/api_table.inc"
#undef GRAFT_API_ENTRY
};

}  // namespace

extern "C" {

GRAFT_API const graft_api* graft_api_get(uint32_t version) {
  if (version >= 1 && version <= GRAFT_API_VERSION) return &kTable;
  // No Guard: asking for the table registers nothing (the kernels come with the first call).
  try {
    graft::capi::Report("graft_api_get",
                        graft::errors::Unimplemented("API table version ", version, " is not in this libgraft (",
                                                     GRAFT_VERSION_STRING, "), which has versions 1 to ",
                                                     GRAFT_API_VERSION));
  } catch (...) {
    graft::capi::ReportPlain("graft_api_get", graft::Code::kUnimplemented,
                             "this API table version is not in this libgraft");
  }
  return nullptr;
}

}  // extern "C"
