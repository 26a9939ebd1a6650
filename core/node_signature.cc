// ResolveNodeSignature: matching a node's inputs and attrs to its OpDef and computing its
// input and output dtypes.
#include "core/node_signature.h"

#include <algorithm>

namespace graft {
namespace {

std::string Where(const OpDef& def, std::string_view node) { return StrCat(def.name, " op '", node, "'"); }

// Sets attr `name` to value, or checks that the value already there agrees.
Status SetOrCheckType(const OpDef& def, std::string_view node, const std::string& attr, DType type,
                      const std::string& arg, AttrMap* attrs) {
  auto it = attrs->find(attr);
  if (it == attrs->end()) {
    attrs->emplace(attr, AttrValue::Type(type));
    return Status::Ok();
  }
  const DType* have = it->second.get<DType>();
  if (have == nullptr) {
    return errors::InvalidArgument(Where(def, node), ": attr '", attr, "' must be a type, not ",
                                   AttrTypeName(it->second.type()));
  }
  if (*have != type) {
    return errors::DTypeError(Where(def, node), ": input '", arg, "' has dtype ", DTypeName(type),
                              " but attr '", attr, "' is ", DTypeName(*have));
  }
  return Status::Ok();
}

// The dtype an input contributes when matched against an argument.
Status MatchInputType(const OpDef& def, std::string_view node, const OpArgDef& arg, DType given, DType* base) {
  if (arg.is_ref && !IsRefDType(given)) {
    return errors::DTypeError(Where(def, node), ": input '", arg.name, "' must be a reference (", arg.name,
                              ": Ref), but has dtype ", DTypeName(given));
  }
  *base = BaseDType(given);
  if (*base == DType::kInvalid) {
    return errors::DTypeError(Where(def, node), ": input '", arg.name, "' has an invalid dtype");
  }
  return Status::Ok();
}

Status CheckAllowed(const OpDef& def, std::string_view node, const OpAttrDef& a, const AttrValue& v) {
  if (!a.allowed_values) return Status::Ok();
  if (const auto* allowed = a.allowed_values->get<std::vector<DType>>()) {
    auto check = [&](DType t) -> Status {
      if (std::find(allowed->begin(), allowed->end(), t) == allowed->end()) {
        std::string list;
        for (DType d : *allowed) list += (list.empty() ? "" : ", ") + DTypeName(d);
        return errors::DTypeError(Where(def, node), ": attr '", a.name, "' is ", DTypeName(t),
                                  ", which is not supported; allowed: ", list);
      }
      return Status::Ok();
    };
    if (const DType* t = v.get<DType>()) return check(*t);
    if (const auto* ts = v.get<std::vector<DType>>()) {
      for (DType t : *ts) GRAFT_RETURN_IF_ERROR(check(t));
    }
    return Status::Ok();
  }
  if (const auto* allowed = a.allowed_values->get<std::vector<std::string>>()) {
    const std::string* s = v.get<std::string>();
    if (s && std::find(allowed->begin(), allowed->end(), *s) == allowed->end()) {
      std::string list;
      for (const std::string& x : *allowed) list += (list.empty() ? "'" : ", '") + x + "'";
      return errors::InvalidArgument(Where(def, node), ": attr '", a.name, "' is '", *s, "', not one of ", list);
    }
  }
  return Status::Ok();
}

// Checks every attr against the definition and fills in defaults.
Status ValidateAttrs(const OpDef& def, std::string_view node, AttrMap* attrs) {
  for (const OpAttrDef& a : def.attrs) {
    auto it = attrs->find(a.name);
    if (it == attrs->end()) {
      if (!a.default_value) {
        return errors::InvalidArgument(Where(def, node), " is missing attr '", a.name, "' (", AttrTypeName(a.type), ")");
      }
      it = attrs->emplace(a.name, *a.default_value).first;
    }
    AttrValue& v = it->second;
    if (v.type() != a.type) {
      // An empty list carries no element type (as in a GraphDef): take the declared one.
      bool empty_list = v.is_list() && v.list_size() == 0 && AttrTypeIsList(a.type);
      if (empty_list) {
        AttrValue fixed;
        switch (a.type) {
          case AttrType::kStringList: fixed = AttrValue::StringList({}); break;
          case AttrType::kIntList: fixed = AttrValue::IntList({}); break;
          case AttrType::kFloatList: fixed = AttrValue::FloatList({}); break;
          case AttrType::kBoolList: fixed = AttrValue::BoolList({}); break;
          case AttrType::kTypeList: fixed = AttrValue::TypeList({}); break;
          case AttrType::kShapeList: fixed = AttrValue::ShapeList({}); break;
          case AttrType::kTensorList: fixed = AttrValue::TensorList({}); break;
          default: fixed = AttrValue::FuncList({}); break;
        }
        v = std::move(fixed);
      } else if (v.type() != AttrType::kPlaceholder) {
        return errors::InvalidArgument(Where(def, node), ": attr '", a.name, "' must be ", AttrTypeName(a.type),
                                       ", but is ", AttrTypeName(v.type()), " ", v.ToString());
      }
    }
    GRAFT_RETURN_IF_ERROR(CheckAllowed(def, node, a, v));
    if (a.has_minimum) {
      if (const int64_t* i = v.get<int64_t>(); i && *i < a.minimum) {
        return errors::InvalidArgument(Where(def, node), ": attr '", a.name, "' is ", *i, ", less than the minimum ",
                                       a.minimum);
      }
      if (v.is_list() && static_cast<int64_t>(v.list_size()) < a.minimum) {
        return errors::InvalidArgument(Where(def, node), ": attr '", a.name, "' has ", v.list_size(),
                                       " elements, fewer than the minimum ", a.minimum);
      }
    }
  }
  for (const auto& [name, value] : *attrs) {
    // Attrs starting with '_' are the graph's own (_class, _output_shapes, ...).
    if (!name.empty() && name[0] == '_') continue;
    if (def.FindAttr(name) == nullptr) {
      return errors::InvalidArgument(Where(def, node), " has no attr named '", name, "'");
    }
  }
  return Status::Ok();
}

// The most outputs one op may have. Each costs the graph a hundred-odd bytes (dtype, shape,
// consumers), so Split with num_split = 2^31 - 1 would ask for hundreds of GB before any kernel
// ran; TensorFlow has no limit and runs out of memory. A million is far above any real model.
constexpr int64_t kMaxOpOutputs = int64_t{1} << 20;

Status OutputTypes(const OpDef& def, std::string_view node, const AttrMap& attrs, std::vector<DType>* out) {
  for (const OpArgDef& arg : def.outputs) {
    std::vector<DType> types;
    DType t = arg.type;
    if (!arg.type_attr.empty()) {
      const DType* p = attrs.at(arg.type_attr).get<DType>();
      if (p == nullptr) return errors::InvalidArgument(Where(def, node), ": attr '", arg.type_attr, "' is not a type");
      t = *p;
    }
    if (!arg.type_list_attr.empty()) {
      const auto* list = attrs.at(arg.type_list_attr).get<std::vector<DType>>();
      if (list == nullptr) return errors::InvalidArgument(Where(def, node), ": attr '", arg.type_list_attr, "' is not a list(type)");
      if (static_cast<int64_t>(list->size()) > kMaxOpOutputs - static_cast<int64_t>(out->size())) {
        return errors::InvalidArgument(Where(def, node), ": attr '", arg.type_list_attr, "' lists ", list->size(),
                                       " types, more than the ", kMaxOpOutputs, " outputs an op may have");
      }
      types = *list;
    } else if (!arg.number_attr.empty()) {
      const int64_t* n = attrs.at(arg.number_attr).get<int64_t>();
      if (n == nullptr || *n < 0) return errors::InvalidArgument(Where(def, node), ": attr '", arg.number_attr, "' is not a count");
      if (*n > kMaxOpOutputs - static_cast<int64_t>(out->size())) {
        return errors::InvalidArgument(Where(def, node), ": attr '", arg.number_attr, "' = ", *n, " asks for more than the ",
                                       kMaxOpOutputs, " outputs an op may have");
      }
      types.assign(static_cast<size_t>(*n), t);
    } else {
      types.push_back(t);
    }
    for (DType d : types) out->push_back(arg.is_ref ? RefDType(d) : d);
  }
  return Status::Ok();
}

}  // namespace

Status ResolveNodeSignature(const OpDef& def, std::string_view node, const std::vector<InputGroup>& inputs,
                            AttrMap* attrs_in, NodeSignature* out) {
  AttrMap attrs = *attrs_in;  // changed only on success
  NodeSignature sig;
  if (inputs.size() != def.inputs.size()) {
    std::string names;
    for (const OpArgDef& a : def.inputs) names += (names.empty() ? "" : ", ") + a.name;
    return errors::InvalidArgument(Where(def, node), " takes ", def.inputs.size(), " input argument",
                                   def.inputs.size() == 1 ? "" : "s", " (", names, "), but ", inputs.size(),
                                   inputs.size() == 1 ? " was" : " were", " given");
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const OpArgDef& arg = def.inputs[i];
    const InputGroup& g = inputs[i];
    bool wants_list = !arg.number_attr.empty() || !arg.type_list_attr.empty();
    if (wants_list != g.is_list) {
      return errors::InvalidArgument(Where(def, node), ": input '", arg.name, "' takes ",
                                     wants_list ? "a list of tensors" : "one tensor", ", but ",
                                     g.is_list ? "a list" : "one tensor", " was given");
    }
    std::vector<DType> bases(g.types.size());
    for (size_t k = 0; k < g.types.size(); ++k) {
      GRAFT_RETURN_IF_ERROR(MatchInputType(def, node, arg, g.types[k], &bases[k]));
    }
    if (!arg.number_attr.empty()) {
      auto it = attrs.find(arg.number_attr);
      int64_t n = static_cast<int64_t>(bases.size());
      if (it == attrs.end()) {
        attrs.emplace(arg.number_attr, AttrValue::Int(n));
      } else if (const int64_t* have = it->second.get<int64_t>(); !have || *have != n) {
        return errors::InvalidArgument(Where(def, node), ": input '", arg.name, "' has ", n,
                                       " tensors but attr '", arg.number_attr, "' is ", it->second.ToString());
      }
      if (bases.empty() && !arg.type_attr.empty() && attrs.find(arg.type_attr) == attrs.end()) {
        // An empty list leaves T to its default or to another argument.
      }
    }
    if (!arg.type_list_attr.empty()) {
      auto it = attrs.find(arg.type_list_attr);
      if (it == attrs.end()) {
        attrs.emplace(arg.type_list_attr, AttrValue::TypeList(bases));
      } else {
        const auto* have = it->second.get<std::vector<DType>>();
        bool empty_ok = it->second.is_list() && it->second.list_size() == 0 && bases.empty();
        if (!empty_ok && (!have || *have != bases)) {
          return errors::DTypeError(Where(def, node), ": the dtypes of input '", arg.name,
                                    "' do not match attr '", arg.type_list_attr, "' = ", it->second.ToString());
        }
      }
    } else {
      for (DType b : bases) {
        if (arg.type != DType::kInvalid) {
          if (b != arg.type) {
            return errors::DTypeError(Where(def, node), ": input '", arg.name, "' must be ", DTypeName(arg.type),
                                      ", but has dtype ", DTypeName(b));
          }
        } else {
          GRAFT_RETURN_IF_ERROR(SetOrCheckType(def, node, arg.type_attr, b, arg.name, &attrs));
        }
      }
    }
    for (DType b : bases) sig.input_types.push_back(arg.is_ref ? RefDType(b) : b);
  }
  GRAFT_RETURN_IF_ERROR(ValidateAttrs(def, node, &attrs));
  GRAFT_RETURN_IF_ERROR(OutputTypes(def, node, attrs, &sig.output_types));
  *attrs_in = std::move(attrs);
  *out = std::move(sig);
  return Status::Ok();
}

Status ResolveNodeSignatureFlat(const OpDef& def, std::string_view node, const std::vector<DType>& inputs,
                                AttrMap* attrs, NodeSignature* out) {
  // How many tensors each argument takes: fixed by attrs where they are set; at most one
  // argument of unknown length takes what is left.
  std::vector<int64_t> counts(def.inputs.size(), 1);
  int unknown = -1;
  int64_t known_total = 0;
  for (size_t i = 0; i < def.inputs.size(); ++i) {
    const OpArgDef& arg = def.inputs[i];
    const std::string& len_attr = !arg.number_attr.empty() ? arg.number_attr : arg.type_list_attr;
    if (len_attr.empty()) {
      known_total += 1;
      continue;
    }
    auto it = attrs->find(len_attr);
    if (it != attrs->end() && (it->second.get<int64_t>() || it->second.is_list())) {
      counts[i] = it->second.get<int64_t>() ? *it->second.get<int64_t>() : static_cast<int64_t>(it->second.list_size());
      known_total += counts[i];
    } else if (unknown < 0) {
      unknown = static_cast<int>(i);
    } else {
      return errors::InvalidArgument(Where(def, node), ": cannot split ", inputs.size(),
                                     " inputs among its arguments without attr '", len_attr, "'");
    }
  }
  int64_t have = static_cast<int64_t>(inputs.size());
  if (unknown >= 0) {
    counts[static_cast<size_t>(unknown)] = have - known_total;
    if (counts[static_cast<size_t>(unknown)] < 0) known_total = have + 1;  // reported below
    else known_total = have;
  }
  if (known_total != have) {
    return errors::InvalidArgument(Where(def, node), " expects ", known_total, " inputs, but has ", have);
  }
  std::vector<InputGroup> groups;
  size_t pos = 0;
  for (size_t i = 0; i < def.inputs.size(); ++i) {
    const OpArgDef& arg = def.inputs[i];
    InputGroup g;
    g.is_list = !arg.number_attr.empty() || !arg.type_list_attr.empty();
    g.types.assign(inputs.begin() + static_cast<std::ptrdiff_t>(pos),
                   inputs.begin() + static_cast<std::ptrdiff_t>(pos + static_cast<size_t>(counts[i])));
    pos += static_cast<size_t>(counts[i]);
    groups.push_back(std::move(g));
  }
  return ResolveNodeSignature(def, node, groups, attrs, out);
}

}  // namespace graft
