// ResourceMgr: the state a session keeps across runs — variables, and other resources such as
// lookup tables, by (container, name). Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core/variable.h"

namespace graft {

// A resource other than a variable that ops share by name (a lookup table).
class Resource {
 public:
  virtual ~Resource() = default;
  virtual std::string_view TypeName() const = 0;  // "lookup table"
};

class ResourceMgr {
 public:
  // The variable (container, name), created (uninitialised) with dtype and shape when missing.
  // kDType when it exists with another dtype.
  Status LookupOrCreate(const std::string& container, const std::string& name, DType dtype,
                        const PartialShape& shape, std::shared_ptr<Variable>* out);
  // kNotFound naming the variable when it does not exist.
  Status Lookup(const std::string& container, const std::string& name, std::shared_ptr<Variable>* out) const;
  // The resource (container, name), made by `create` when missing (an error from create is
  // returned and nothing is kept).
  Status LookupOrCreateResource(const std::string& container, const std::string& name,
                                const std::function<Status(std::shared_ptr<Resource>*)>& create,
                                std::shared_ptr<Resource>* out);
  // Forgets every variable and resource of container ("" is the default container).
  void Clear(const std::string& container);

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Variable>> variables_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Resource>> resources_;
};

}  // namespace graft
