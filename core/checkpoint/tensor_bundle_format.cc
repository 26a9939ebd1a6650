#include "core/checkpoint/tensor_bundle_format.h"

#include <cstdio>
#include <cstring>
#include <memory>

#include "core/proto_depth.h"
#include "core/proto_arena.h"
#include "core/tensor_proto.h"
#include "proto/tensor_bundle.pb-c.h"
#include "proto/versions.pb-c.h"

namespace graft::checkpoint {
namespace {

struct HeaderDeleter {
  void operator()(Graftpb__BundleHeaderProto* p) const { graftpb__bundle_header_proto__free_unpacked(p, nullptr); }
};
struct EntryDeleter {
  void operator()(Graftpb__BundleEntryProto* p) const { graftpb__bundle_entry_proto__free_unpacked(p, nullptr); }
};
using HeaderPtr = std::unique_ptr<Graftpb__BundleHeaderProto, HeaderDeleter>;
using EntryPtr = std::unique_ptr<Graftpb__BundleEntryProto, EntryDeleter>;

// nullptr when the bytes do not parse (or nest too deep to be parsed safely).
EntryPtr UnpackEntry(std::string_view bytes) {
  if (!CheckProtoDepth(&graftpb__bundle_entry_proto__descriptor, reinterpret_cast<const uint8_t*>(bytes.data()),
                       bytes.size(), "a bundle entry")
           .ok()) {
    return nullptr;
  }
  return EntryPtr(graftpb__bundle_entry_proto__unpack(nullptr, bytes.size(),
                                                       reinterpret_cast<const uint8_t*>(bytes.data())));
}

template <typename Enum>
int32_t RawEnum(const Enum& field) {
  static_assert(sizeof(Enum) == sizeof(int32_t), "protobuf-c enums are int-sized");
  int32_t v;
  std::memcpy(&v, &field, sizeof v);
  return v;
}

}  // namespace

std::string MetaFilename(std::string_view prefix) {
  std::string name(prefix);
  name.append(".index");
  return name;
}

std::string DataFilename(std::string_view prefix, int32_t shard, int32_t num_shards) {
  char suffix[48];
  std::snprintf(suffix, sizeof suffix, ".data-%05d-of-%05d", static_cast<int>(shard), static_cast<int>(num_shards));
  std::string name(prefix);
  name.append(suffix);
  return name;
}

std::string EncodeBundleHeader(const BundleHeader& header) {
  Graftpb__VersionDef version = GRAFTPB__VERSION_DEF__INIT;
  version.producer = header.producer;
  version.min_consumer = header.min_consumer;
  std::vector<int32_t> bad = header.bad_consumers;
  version.n_bad_consumers = bad.size();
  version.bad_consumers = bad.empty() ? nullptr : bad.data();
  Graftpb__BundleHeaderProto proto = GRAFTPB__BUNDLE_HEADER_PROTO__INIT;
  proto.num_shards = header.num_shards;
  proto.endianness = header.big_endian ? GRAFTPB__BUNDLE_HEADER_PROTO__ENDIANNESS__BIG
                                       : GRAFTPB__BUNDLE_HEADER_PROTO__ENDIANNESS__LITTLE;
  proto.version = &version;
  std::string out(graftpb__bundle_header_proto__get_packed_size(&proto), '\0');
  graftpb__bundle_header_proto__pack(&proto, reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

Status DecodeBundleHeader(std::string_view bytes, BundleHeader* out) {
  if (Status deep = CheckProtoDepth(&graftpb__bundle_header_proto__descriptor,
                                    reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "the bundle header");
      !deep.ok()) {
    return errors::DataLoss(deep.message());
  }
  HeaderPtr p(graftpb__bundle_header_proto__unpack(nullptr, bytes.size(),
                                                    reinterpret_cast<const uint8_t*>(bytes.data())));
  if (p == nullptr) return errors::DataLoss("the bundle header does not parse");
  BundleHeader h;
  h.num_shards = p->num_shards;
  const int32_t endianness = RawEnum(p->endianness);
  if (endianness != 0 && endianness != 1) return errors::DataLoss("the bundle header has endianness ", endianness);
  h.big_endian = endianness == 1;
  if (p->version != nullptr) {
    h.producer = p->version->producer;
    h.min_consumer = p->version->min_consumer;
    h.bad_consumers.assign(p->version->bad_consumers, p->version->bad_consumers + p->version->n_bad_consumers);
  } else {
    h.producer = 0;
    h.min_consumer = 0;
  }
  *out = std::move(h);
  return Status::Ok();
}

std::string EncodeBundleEntry(const BundleEntry& entry) {
  ProtoArena arena;
  Graftpb__BundleEntryProto proto = GRAFTPB__BUNDLE_ENTRY_PROTO__INIT;
  const auto dtype = static_cast<int32_t>(entry.dtype);
  std::memcpy(&proto.dtype, &dtype, sizeof dtype);
  // Present even for a scalar (an empty message), as TensorFlow writes it.
  proto.shape = ShapeToProto(PartialShape(entry.dims), arena);
  proto.shard_id = entry.shard_id;
  proto.offset = entry.offset;
  proto.size = entry.size;
  proto.crc32c = entry.crc32c;
  std::string out(graftpb__bundle_entry_proto__get_packed_size(&proto), '\0');
  graftpb__bundle_entry_proto__pack(&proto, reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

Status DecodeBundleEntry(std::string_view bytes, BundleEntry* out) {
  EntryPtr p = UnpackEntry(bytes);
  if (p == nullptr) return errors::DataLoss("its entry does not parse");
  BundleEntry e;
  const int32_t dtype = RawEnum(p->dtype);
  e.dtype = static_cast<DType>(dtype);
  if (dtype <= 0 || dtype > kDTypeLastBase || !IsValidDType(e.dtype)) {
    return errors::DataLoss("its entry has the invalid dtype ", dtype);
  }
  PartialShape shape;
  Status s = ShapeFromProto(p->shape, &shape);
  if (!s.ok()) return errors::DataLoss("its entry has a bad shape: ", s.message());
  if (!shape.IsFullyDefined()) {
    return errors::DataLoss("its entry has the shape ", shape.ToString(), ", not fully defined");
  }
  int64_t n = 0;
  s = CheckedNumElements(shape.dims(), &n);
  if (!s.ok()) return errors::DataLoss("its entry has a bad shape: ", s.message());
  e.dims = shape.dims();
  e.shard_id = p->shard_id;
  e.offset = p->offset;
  e.size = p->size;
  e.crc32c = p->crc32c;
  e.sliced = p->n_slices > 0;
  if (!e.sliced && (e.offset < 0 || e.size < 0 || e.shard_id < 0)) {
    return errors::DataLoss("its entry has shard ", e.shard_id, ", offset ", e.offset, " and size ", e.size);
  }
  *out = std::move(e);
  return Status::Ok();
}

Status SetBundleEntryShard(std::string_view bytes, int32_t shard_id, std::string* out) {
  EntryPtr p = UnpackEntry(bytes);
  if (p == nullptr) return errors::DataLoss("its entry does not parse");
  p->shard_id = shard_id;
  std::string packed(graftpb__bundle_entry_proto__get_packed_size(p.get()), '\0');
  graftpb__bundle_entry_proto__pack(p.get(), reinterpret_cast<uint8_t*>(packed.data()));
  *out = std::move(packed);
  return Status::Ok();
}

}  // namespace graft::checkpoint
