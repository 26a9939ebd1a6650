// C API: device specs and the device list (graft/device.h).
#include <string>
#include <vector>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "core/runtime/device_set.h"
#include "graft/device.h"

// A snapshot of the machine's devices: their names, types and descriptions copied out of a
// DeviceSet made for the purpose (so the list holds no device).
struct graft_device_list {
  struct Entry {
    std::string name, type;
    graft::DeviceDescription description;
  };
  std::vector<Entry> entries;
};

using graft::DeviceSpec;
using graft::Status;
using graft::capi::Guard;

extern "C" {

GRAFT_API int graft_device_spec_parse(graft_device_spec** out, const char* spec) {
  return Guard("graft_device_spec_parse", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(spec);
    DeviceSpec parsed;
    GRAFT_RETURN_IF_ERROR(DeviceSpec::Parse(spec, &parsed));
    *out = new graft_device_spec(std::move(parsed));
    return Status::Ok();
  });
}

GRAFT_API int graft_device_spec_new(graft_device_spec** out, const char* job, int64_t replica, int64_t task,
                                    const char* device_type, int64_t device_index) {
  return Guard("graft_device_spec_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    DeviceSpec s;
    auto check = [](const char* part, const char* what) -> Status {
      if (part == nullptr) return Status::Ok();
      if (*part == '\0') return graft::errors::InvalidArgument("the ", what, " is empty (pass NULL to leave it unset)");
      for (const char* c = part; *c; ++c) {
        if (*c == '/' || *c == ':') return graft::errors::InvalidArgument("the ", what, " '", part, "' contains '", *c, "'");
      }
      return Status::Ok();
    };
    GRAFT_RETURN_IF_ERROR(check(job, "job"));
    GRAFT_RETURN_IF_ERROR(check(device_type, "device type"));
    if (job) s.job = job;
    if (replica >= 0) s.replica = replica;
    if (task >= 0) s.task = task;
    if (device_type) s.device_type = device_type;
    if (device_index >= 0) s.device_index = device_index;
    *out = new graft_device_spec(std::move(s));
    return Status::Ok();
  });
}

GRAFT_API void graft_device_spec_free(graft_device_spec* spec) { delete spec; }

GRAFT_API const char* graft_device_spec_job(const graft_device_spec* s) {
  return s && s->spec.job ? s->spec.job->c_str() : nullptr;
}
GRAFT_API int64_t graft_device_spec_replica(const graft_device_spec* s) { return s ? s->spec.replica.value_or(-1) : -1; }
GRAFT_API int64_t graft_device_spec_task(const graft_device_spec* s) { return s ? s->spec.task.value_or(-1) : -1; }
GRAFT_API const char* graft_device_spec_device_type(const graft_device_spec* s) {
  return s && s->spec.device_type ? s->spec.device_type->c_str() : nullptr;
}
GRAFT_API int64_t graft_device_spec_device_index(const graft_device_spec* s) {
  return s ? s->spec.device_index.value_or(-1) : -1;
}
GRAFT_API const char* graft_device_spec_string(const graft_device_spec* s) { return s ? s->text.c_str() : ""; }

GRAFT_API int graft_device_spec_merge(graft_device_spec** out, const graft_device_spec* base,
                                      const graft_device_spec* override_spec) {
  return Guard("graft_device_spec_merge", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(base);
    GRAFT_CHECK_ARG(override_spec);
    DeviceSpec merged = base->spec;
    merged.MergeFrom(override_spec->spec);
    *out = new graft_device_spec(std::move(merged));
    return Status::Ok();
  });
}

GRAFT_API int graft_device_list_new(graft_device_list** out) {
  return Guard("graft_device_list_new", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    auto list = std::make_unique<graft_device_list>();
    std::unique_ptr<graft::DeviceSet> set = graft::DeviceSet::FromRegistry();
    for (const auto& d : set->devices()) list->entries.push_back({d->name(), d->type(), d->Describe()});
    *out = list.release();
    return Status::Ok();
  });
}

GRAFT_API void graft_device_list_free(graft_device_list* list) { delete list; }

GRAFT_API int64_t graft_device_list_count(const graft_device_list* list) {
  return list ? static_cast<int64_t>(list->entries.size()) : -1;
}

}  // extern "C"

namespace {

// Checks the arguments of an accessor, then sets *out from entry `index`'s field.
template <typename T, typename Get>
int DeviceListField(const char* fn, T* out, const graft_device_list* list, int64_t index, Get get) {
  return Guard(fn, [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(list);
    if (index < 0 || index >= static_cast<int64_t>(list->entries.size())) {
      return graft::errors::OutOfRange("device index ", index, " is out of range for a list of ", list->entries.size(),
                                       " devices");
    }
    *out = get(list->entries[static_cast<size_t>(index)]);
    return Status::Ok();
  });
}

using Entry = graft_device_list::Entry;

}  // namespace

extern "C" {

GRAFT_API int graft_device_list_name(const char** out, const graft_device_list* list, int64_t index) {
  return DeviceListField("graft_device_list_name", out, list, index, [](const Entry& e) { return e.name.c_str(); });
}
GRAFT_API int graft_device_list_type(const char** out, const graft_device_list* list, int64_t index) {
  return DeviceListField("graft_device_list_type", out, list, index, [](const Entry& e) { return e.type.c_str(); });
}
GRAFT_API int graft_device_list_model(const char** out, const graft_device_list* list, int64_t index) {
  return DeviceListField("graft_device_list_model", out, list, index,
                         [](const Entry& e) { return e.description.model.c_str(); });
}
GRAFT_API int graft_device_list_vendor(const char** out, const graft_device_list* list, int64_t index) {
  return DeviceListField("graft_device_list_vendor", out, list, index,
                         [](const Entry& e) { return e.description.vendor.c_str(); });
}
GRAFT_API int graft_device_list_driver(const char** out, const graft_device_list* list, int64_t index) {
  return DeviceListField("graft_device_list_driver", out, list, index,
                         [](const Entry& e) { return e.description.driver.c_str(); });
}
GRAFT_API int graft_device_list_memory_bytes(int64_t* out, const graft_device_list* list, int64_t index) {
  return DeviceListField("graft_device_list_memory_bytes", out, list, index,
                         [](const Entry& e) { return e.description.memory_bytes; });
}
GRAFT_API int graft_device_list_compute_units(int64_t* out, const graft_device_list* list, int64_t index) {
  return DeviceListField("graft_device_list_compute_units", out, list, index,
                         [](const Entry& e) { return e.description.compute_units; });
}

}  // extern "C"
