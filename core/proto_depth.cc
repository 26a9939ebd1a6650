#include "core/proto_depth.h"

#include <vector>

namespace graft {

namespace {

// Reads a varint at data[*pos, end); false when it is malformed or runs past end.
bool ReadVarint(const uint8_t* data, size_t end, size_t* pos, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64 && *pos < end; shift += 7) {
    const uint8_t b = data[(*pos)++];
    v |= static_cast<uint64_t>(b & 0x7F) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

struct Frame {
  const ProtobufCMessageDescriptor* descriptor;
  size_t end;  // of this message's bytes
};

}  // namespace

Status CheckProtoDepth(const ProtobufCMessageDescriptor* descriptor, const uint8_t* data, size_t len,
                       std::string_view what) {
  if (data == nullptr || len == 0) return Status::Ok();
  std::vector<Frame> stack{{descriptor, len}};
  size_t pos = 0;
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (pos >= top.end) {
      stack.pop_back();
      continue;
    }
    uint64_t key = 0;
    if (!ReadVarint(data, top.end, &pos, &key)) return Status::Ok();
    const uint64_t number = key >> 3;
    switch (key & 7) {
      case 0: {  // varint
        uint64_t ignored = 0;
        if (!ReadVarint(data, top.end, &pos, &ignored)) return Status::Ok();
        break;
      }
      case 1:  // 64-bit
        if (top.end - pos < 8) return Status::Ok();
        pos += 8;
        break;
      case 5:  // 32-bit
        if (top.end - pos < 4) return Status::Ok();
        pos += 4;
        break;
      case 2: {  // length-delimited: a sub-message when the field is one
        uint64_t n = 0;
        if (!ReadVarint(data, top.end, &pos, &n) || n > top.end - pos) return Status::Ok();
        const ProtobufCFieldDescriptor* field =
            number <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(top.descriptor, static_cast<unsigned>(number))
                                 : nullptr;
        if (field != nullptr && field->type == PROTOBUF_C_TYPE_MESSAGE) {
          // stack holds the top-level message and the nested ones: TensorFlow allows 100 nested.
          if (stack.size() > static_cast<size_t>(kMaxProtoDepth)) {
            return errors::InvalidArgument(what, " nests messages more than ", kMaxProtoDepth, " deep (field '",
                                           field->name, "' of ", top.descriptor->name, " at byte ", pos, ")");
          }
          stack.push_back({static_cast<const ProtobufCMessageDescriptor*>(field->descriptor), pos + n});
        } else {
          pos += n;
        }
        break;
      }
      default:  // groups and invalid wire types: the unpack refuses them
        return Status::Ok();
    }
  }
  return Status::Ok();
}

}  // namespace graft
