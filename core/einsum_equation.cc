// EinsumEquation: see einsum_equation.h.
#include "core/einsum_equation.h"

#include <algorithm>

namespace graft {
namespace {

// One operand's subscripts: labels and at most one "...". As in TensorFlow's kernel, every
// character but '.' is a label ('$', '1', ' ' and each byte of a UTF-8 character included;
// tf.einsum, not the op, strips spaces).
Status ParseSubscripts(std::string_view eq, std::string_view s, std::vector<int>* out) {
  out->clear();
  bool ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '.') {
      if (s.substr(i, 3) != "..." || ellipsis) {
        return errors::InvalidArgument("Einsum equation '", eq, "': '", s, "' has a stray '.' or more than one '...'");
      }
      ellipsis = true;
      out->push_back(kEinsumEllipsis);
      i += 2;
    } else {
      out->push_back(static_cast<unsigned char>(c));
    }
  }
  return Status::Ok();
}

}  // namespace

std::string EinsumLabelName(int label) {
  if (label >= kEinsumEllipsisBase) return StrCat("...[", label - kEinsumEllipsisBase, "]");
  if (label < 0x20 || label >= 0x7f) {
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string{'\\', 'x', kHex[(label >> 4) & 15], kHex[label & 15]};
  }
  return std::string(1, static_cast<char>(label));
}

Status ParseEinsumEquation(std::string_view equation, int num_inputs, EinsumEquation* out) {
  out->inputs.clear();
  out->output.clear();
  const size_t arrow = equation.find("->");
  std::string_view lhs = equation.substr(0, arrow);
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    std::vector<int> subs;
    GRAFT_RETURN_IF_ERROR(ParseSubscripts(equation, lhs.substr(start, comma - start), &subs));
    out->inputs.push_back(std::move(subs));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (static_cast<int>(out->inputs.size()) != num_inputs) {
    return errors::InvalidArgument("Einsum equation '", equation, "' has ", out->inputs.size(),
                                   " operands but the op has ", num_inputs, " inputs");
  }
  std::map<int, int> count;
  bool any_ellipsis = false;
  for (const auto& in : out->inputs) {
    for (int l : in) {
      if (l == kEinsumEllipsis) {
        any_ellipsis = true;
      } else {
        ++count[l];
      }
    }
  }
  if (arrow == std::string_view::npos) {
    if (any_ellipsis) out->output.push_back(kEinsumEllipsis);
    for (const auto& [l, n] : count) {  // std::map: uppercase before lowercase, as numpy
      if (n == 1) out->output.push_back(l);
    }
    return Status::Ok();
  }
  std::string_view rhs = equation.substr(arrow + 2);
  if (rhs.find("->") != std::string_view::npos || rhs.find(',') != std::string_view::npos) {
    return errors::InvalidArgument("Einsum equation '", equation, "' has more than one output");
  }
  GRAFT_RETURN_IF_ERROR(ParseSubscripts(equation, rhs, &out->output));
  // An output label may repeat (a diagonal, zeros off it); "..." cannot (ParseSubscripts).
  for (int l : out->output) {
    if (l != kEinsumEllipsis && count.count(l) == 0) {
      return errors::InvalidArgument("Einsum equation '", equation, "': output subscript '", EinsumLabelName(l),
                                     "' occurs in no input");
    }
  }
  return Status::Ok();
}

Status ExpandEinsumEllipsis(const EinsumEquation& eq, const std::vector<int>& ranks,
                            std::vector<std::vector<int>>* inputs, std::vector<int>* output) {
  std::vector<int> widths(eq.inputs.size(), 0);
  int widest = 0;
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    const auto& in = eq.inputs[i];
    const bool ellipsis = std::find(in.begin(), in.end(), kEinsumEllipsis) != in.end();
    const int letters = static_cast<int>(in.size()) - (ellipsis ? 1 : 0);
    if (ranks[i] < letters || (!ellipsis && ranks[i] != letters)) {
      return errors::InvalidArgument("Einsum input ", i, " has rank ", ranks[i], " but its subscripts name ", letters,
                                     " dims", ellipsis ? " (and '...')" : "");
    }
    widths[i] = ranks[i] - letters;
    widest = std::max(widest, widths[i]);
  }
  auto expand = [widest](const std::vector<int>& subs, int width, std::vector<int>* out) {
    out->clear();
    for (int l : subs) {
      if (l != kEinsumEllipsis) {
        out->push_back(l);
        continue;
      }
      for (int k = widest - width; k < widest; ++k) out->push_back(kEinsumEllipsisBase + k);
    }
  };
  inputs->resize(eq.inputs.size());
  for (size_t i = 0; i < eq.inputs.size(); ++i) expand(eq.inputs[i], widths[i], &(*inputs)[i]);
  expand(eq.output, widest, output);
  return Status::Ok();
}

Status EinsumLabelSizes(const std::vector<std::vector<int>>& inputs, const std::vector<std::vector<int64_t>>& dims,
                        std::map<int, int64_t>* sizes) {
  sizes->clear();
  std::map<int, size_t> first;  // the input a label's size came from
  for (size_t i = 0; i < inputs.size(); ++i) {
    for (size_t p = 0; p < inputs[i].size(); ++p) {
      const int l = inputs[i][p];
      const int64_t d = dims[i][p];
      auto it = sizes->find(l);
      if (it == sizes->end()) {
        (*sizes)[l] = d;
        first[l] = i;
        continue;
      }
      int64_t& s = it->second;
      const bool broadcast = l >= kEinsumEllipsisBase;
      if (d == -1) {
        if (broadcast && s == 1) s = -1;  // the unknown dim may be the wider one
        continue;
      }
      if (d == s) continue;
      if (s == -1) {
        if (!broadcast || d != 1) s = d;
        continue;
      }
      if (broadcast && (d == 1 || s == 1)) {
        s = std::max(s, d);
        continue;
      }
      return errors::InvalidArgument("Einsum subscript '", EinsumLabelName(l), "' has size ", s, " in input ",
                                     first[l], " but ", d, " in input ", i);
    }
  }
  return Status::Ok();
}

}  // namespace graft
