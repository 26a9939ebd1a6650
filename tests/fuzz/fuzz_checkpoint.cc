// libFuzzer target for the checkpoint reader (core/checkpoint/tensor_bundle_reader.h), which
// every SavedModel's variables and every RestoreV2 go through. Each input holds a tensor
// bundle's files (fuzz_common.h's records; names below, a one-shard and a two-shard layout)
// written to a temporary directory; the reader opens the bundle and reads every tensor, both
// as it is and checked against its own entry.
//
// Bugs: a failure without a message, a tensor read whose dtype or shape is not its entry's.
//
// Random bytes rarely get past the index file's block checksums and the tensors' checksums, so
// in a libFuzzer build (GRAFT_LIBFUZZER) a custom mutator keeps them valid: it mutates (1) the
// index file's bytes and then recomputes every block's CRC (footer -> index block -> data
// blocks), (2) one index entry's key or value (a tensor's BundleEntryProto) and rewrites the
// table, (3) a data file's bytes and then recomputes the checksum of every entry over them,
// or (4) the input as a whole, as libFuzzer would.
#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/checkpoint/coding.h"
#include "core/checkpoint/crc32c.h"
#include "core/checkpoint/table_format.h"
#include "core/checkpoint/table_reader.h"
#include "core/checkpoint/table_writer.h"
#include "core/checkpoint/tensor_bundle_format.h"
#include "core/checkpoint/tensor_bundle_reader.h"
#include "fuzz_common.h"

namespace {

using graft::Status;
using namespace graft::checkpoint;

const char* const kNames[] = {"ckpt.index", "ckpt.data-00000-of-00001", "ckpt.data-00000-of-00002",
                              "ckpt.data-00001-of-00002"};
constexpr int kNumNames = sizeof kNames / sizeof kNames[0];

void ExpectMessage(const Status& s, const char* what) {
  if (!s.ok() && s.message().empty()) fuzz_bug("%s failed without a message", what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_set_limits();
  fuzz_files files;
  fuzz_files_parse(&files, data, size, kNumNames);
  fuzz_dir_write(&files, kNames, kNumNames);
  std::unique_ptr<TensorBundleReader> reader;
  Status s = TensorBundleReader::Open(std::string(fuzz_dir()) + "/ckpt", &reader);
  ExpectMessage(s, "opening the bundle");
  if (s.ok()) {
    for (const auto& item : reader->items()) {
      graft::Tensor t;
      Status r = reader->Read(item.name, &t);
      ExpectMessage(r, "reading a tensor");
      if (r.ok() && (t.dtype() != item.entry.dtype || t.dims() != item.entry.dims)) {
        fuzz_bug("tensor '%s' read with another dtype or shape than its entry's", item.name.c_str());
      }
      graft::Tensor u;
      ExpectMessage(reader->ReadChecked(item.name, item.entry.dtype, nullptr, &u), "a checked read");
    }
  }
  fuzz_dir_clear(kNames, kNumNames);
  return 0;
}

#ifdef GRAFT_LIBFUZZER
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace {

struct Files {
  std::string bytes[kNumNames];
  bool present[kNumNames] = {};
};

Files Split(const uint8_t* data, size_t size) {
  fuzz_files parsed;
  fuzz_files_parse(&parsed, data, size, kNumNames);
  Files f;
  for (int i = 0; i < kNumNames; ++i) {
    if (parsed.data[i] == nullptr) continue;
    f.present[i] = true;
    f.bytes[i].assign(reinterpret_cast<const char*>(parsed.data[i]), parsed.size[i]);
  }
  return f;
}

// The input holding f, or 0 when it does not fit in max_size.
size_t Join(const Files& f, uint8_t* out, size_t max_size) {
  size_t need = 0;
  for (int i = 0; i < kNumNames; ++i)
    if (f.present[i]) need += 5 + f.bytes[i].size();
  if (need == 0 || need > max_size) return 0;
  size_t at = 0;
  for (int i = 0; i < kNumNames; ++i)
    if (f.present[i]) at = fuzz_files_put(out, at, i, f.bytes[i].data(), f.bytes[i].size());
  return at;
}

// Mutates s in place with libFuzzer's mutator, letting it grow by up to a half.
void MutateBytes(std::string* s) {
  size_t cap = s->size() + s->size() / 2 + 16;
  std::string buf = *s;
  buf.resize(cap);
  size_t n = LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(buf.data()), s->size(), cap);
  buf.resize(n);
  *s = std::move(buf);
}

// Recomputes the trailer CRC of the block at handle h (when it lies inside the table).
void FixBlock(std::string* table, const BlockHandle& h) {
  if (h.offset > table->size() || h.size > table->size() - h.offset ||
      kBlockTrailerSize > table->size() - h.offset - h.size) {
    return;
  }
  const char* block = table->data() + h.offset;
  uint32_t crc = Crc32cExtend(Crc32c(block, h.size), block + h.size, 1);
  std::string fixed;
  PutFixed32(&fixed, Crc32cMask(crc));
  table->replace(h.offset + h.size + 1, 4, fixed);
}

// Recomputes every block checksum of an index file: footer -> metaindex and index blocks ->
// the data blocks the index block's entries point at.
void FixTable(std::string* table) {
  if (table->size() < kTableFooterSize) return;
  BlockHandle meta, index;
  std::string why;
  if (!DecodeFooter(std::string_view(*table).substr(table->size() - kTableFooterSize), &meta, &index, &why)) return;
  FixBlock(table, meta);
  FixBlock(table, index);
  if (index.offset > table->size() || index.size > table->size() - index.offset || index.size < 4) return;
  std::string_view block(table->data() + index.offset, index.size);
  uint32_t restarts = DecodeFixed32(block.data() + block.size() - 4);
  if (restarts > (block.size() - 4) / 4) return;
  std::string_view entries = block.substr(0, block.size() - 4 - 4 * static_cast<size_t>(restarts));
  std::vector<BlockHandle> handles;
  while (!entries.empty()) {
    uint32_t shared, unshared, vlen;
    if (!GetVarint32(&entries, &shared) || !GetVarint32(&entries, &unshared) || !GetVarint32(&entries, &vlen)) break;
    if (unshared > entries.size() || vlen > entries.size() - unshared) break;
    std::string_view value = entries.substr(unshared, vlen);
    entries.remove_prefix(static_cast<size_t>(unshared) + vlen);
    BlockHandle h;
    if (h.DecodeFrom(&value)) handles.push_back(h);
  }
  for (const auto& h : handles) FixBlock(table, h);
}

using Entries = std::vector<std::pair<std::string, std::string>>;

std::string Rewrite(Entries entries) {
  std::sort(entries.begin(), entries.end());
  TableWriter writer;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i > 0 && entries[i].first == entries[i - 1].first) continue;
    (void)writer.Add(entries[i].first, entries[i].second);
  }
  return writer.Finish();
}

// The index of the data file shard `shard` of a bundle with num_shards shards, or -1.
int DataFile(int32_t num_shards, int32_t shard) {
  if (num_shards == 1 && shard == 0) return 1;
  if (num_shards == 2 && (shard == 0 || shard == 1)) return 2 + shard;
  return -1;
}

// Sets every entry's checksum to that of the bytes it points at (where they exist).
void FixEntries(Files* f) {
  std::unique_ptr<TableReader> table;
  if (!TableReader::Parse(f->bytes[0], "index", &table).ok()) return;
  BundleHeader header;
  const std::string* h = table->Get("");
  if (h == nullptr || !DecodeBundleHeader(*h, &header).ok()) return;
  Entries entries = table->entries();
  for (auto& [key, value] : entries) {
    BundleEntry e;
    if (key.empty() || !DecodeBundleEntry(value, &e).ok() || e.sliced) continue;
    int file = DataFile(header.num_shards, e.shard_id);
    if (file < 0 || !f->present[file]) continue;
    const std::string& d = f->bytes[file];
    if (e.offset < 0 || e.size < 0 || static_cast<uint64_t>(e.offset) > d.size() ||
        static_cast<uint64_t>(e.size) > d.size() - static_cast<uint64_t>(e.offset)) {
      continue;
    }
    e.crc32c = Crc32cMask(Crc32c(d.data() + e.offset, static_cast<size_t>(e.size)));
    value = EncodeBundleEntry(e);
  }
  f->bytes[0] = Rewrite(std::move(entries));
}

}  // namespace

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::minstd_rand rng(seed);
  Files f = Split(data, size);
  switch (rng() % 4) {
    case 0:
      if (!f.present[0]) break;
      MutateBytes(&f.bytes[0]);
      FixTable(&f.bytes[0]);
      if (size_t n = Join(f, data, max_size)) return n;
      break;
    case 1: {
      std::unique_ptr<TableReader> table;
      if (!f.present[0] || !TableReader::Parse(f.bytes[0], "index", &table).ok() || table->entries().empty()) break;
      Entries entries = table->entries();
      auto& entry = entries[rng() % entries.size()];
      MutateBytes(rng() % 4 == 0 ? &entry.first : &entry.second);
      f.bytes[0] = Rewrite(std::move(entries));
      if (size_t n = Join(f, data, max_size)) return n;
      break;
    }
    case 2: {
      int file = 1 + static_cast<int>(rng() % 3);
      if (!f.present[file]) break;
      MutateBytes(&f.bytes[file]);
      FixEntries(&f);
      if (size_t n = Join(f, data, max_size)) return n;
      break;
    }
    default:
      break;
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
#endif  // GRAFT_LIBFUZZER
