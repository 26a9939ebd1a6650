// CheckProtoDepth: whether the wire bytes of a protobuf message nest sub-messages at most
// kMaxProtoDepth deep, checked before protobuf-c unpacks them. protobuf-c's unpack recurses once
// per nested message with no limit, so a 49 KB GraphDef of attrs nested 3,000 deep overflows
// the stack; TensorFlow's parser stops at 100, as this does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include <protobuf-c/protobuf-c.h>

#include "core/status.h"

namespace graft {

inline constexpr int kMaxProtoDepth = 100;

// OK, or kInvalidArgument naming `what` ("the GraphDef"), the field that goes too deep and its
// byte offset. Bytes that do not parse are left for the unpack to refuse (OK here). One pass
// over the bytes with an explicit stack: no recursion.
Status CheckProtoDepth(const ProtobufCMessageDescriptor* descriptor, const uint8_t* data, size_t len,
                       std::string_view what);

}  // namespace graft
