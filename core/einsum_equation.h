// EinsumEquation: the equation of the Einsum op ("bij,bjk->bik"; "..." stands for the
// broadcast dims, as numpy's einsum) parsed into integer labels. Shared by the op's shape
// function, its CPU kernel and its gradient.
//
// As TensorFlow's kernel reads it, every character (byte) of an operand but '.' is a label, its
// character code: letters, but also '$', '#', digits and spaces ("i$,j#->ij"). An output label
// may repeat: the output is then zero off that diagonal ("ij->iij", TensorFlow's inflation).
// Without "->" the output is implicit, as numpy's: the broadcast dims, then the labels that
// occur exactly once, in character order (uppercase letters before lowercase).
// Once the inputs' ranks are known, ExpandEinsumEllipsis replaces each "..." by labels
// kEinsumEllipsisBase + i for the i-th of the E broadcast dims (E: the widest "..."); an
// input whose "..." covers e dims gets the last e of them (numpy's right alignment).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace graft {

inline constexpr int kEinsumEllipsis = -1;
inline constexpr int kEinsumEllipsisBase = 1000;

struct EinsumEquation {
  std::vector<std::vector<int>> inputs;  // per input: labels, kEinsumEllipsis for "..."
  std::vector<int> output;
};

// kInvalidArgument (naming the equation) unless it has num_inputs operands with at most one
// "..." each, and an output whose labels occur in an input.
Status ParseEinsumEquation(std::string_view equation, int num_inputs, EinsumEquation* out);

// The labels with each "..." expanded, given each input's rank; an error when an input's rank
// is smaller than its letters need, or differs from them without "...".
Status ExpandEinsumEllipsis(const EinsumEquation& eq, const std::vector<int>& ranks,
                            std::vector<std::vector<int>>* inputs, std::vector<int>* output);

// The size of each label from the inputs' dims (-1: unknown; dims[i] has one entry per label
// of inputs[i]). A label must have one size everywhere it occurs; a broadcast dim of size 1
// takes the other inputs' size. kInvalidArgument naming the label and the inputs otherwise.
Status EinsumLabelSizes(const std::vector<std::vector<int>>& inputs, const std::vector<std::vector<int64_t>>& dims,
                        std::map<int, int64_t>* sizes);

// The label's character ("\xNN" for one that does not print), "...[i]" for broadcast dims
// (messages).
std::string EinsumLabelName(int label);

}  // namespace graft
