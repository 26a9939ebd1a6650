// C API: collections of a graph (graft/graph.h).
#include <memory>

#include "c_api/src/api_error.h"
#include "c_api/src/handles.h"
#include "graft/collection.h"
#include "graft/graph.h"

using graft::CollectionItem;
using graft::Status;
using graft::capi::FromC;
using graft::capi::Guard;
using graft::capi::ToC;

namespace graft::capi {
Status CheckOutput(const graft_output& t, const Graph* graph, std::string_view what);
}

namespace {

Status ToItem(const graft_collection_item* in, const graft::Graph* graph, CollectionItem* out) {
  GRAFT_CHECK_ARG(in);
  switch (in->kind) {
    case GRAFT_ITEM_OP:
      GRAFT_CHECK_ARG(in->op);
      if (graph && FromC(in->op)->graph() != graph) return graft::errors::InvalidArgument("the item's op is from another graph");
      out->kind = CollectionItem::Kind::kOp;
      out->op = FromC(in->op);
      return Status::Ok();
    case GRAFT_ITEM_TENSOR:
      GRAFT_RETURN_IF_ERROR(graft::capi::CheckOutput(in->tensor, graph, "the item's tensor"));
      out->kind = CollectionItem::Kind::kTensor;
      out->tensor = FromC(in->tensor);
      return Status::Ok();
    case GRAFT_ITEM_STRING:
      GRAFT_CHECK_ARG(in->string);
      out->kind = CollectionItem::Kind::kString;
      out->str = in->string;
      return Status::Ok();
    case GRAFT_ITEM_VALUE:
      out->kind = CollectionItem::Kind::kValue;
      out->str = in->string ? in->string : "";
      out->value = in->value;
      return Status::Ok();
    default:
      return graft::errors::InvalidArgument("item kind ", in->kind, " is not a graft_item_kind");
  }
}

void FromItem(const CollectionItem& in, graft_collection_item* out) {
  *out = graft_collection_item{0, nullptr, graft_output{nullptr, -1}, nullptr, 0};
  switch (in.kind) {
    case CollectionItem::Kind::kOp:
      out->kind = GRAFT_ITEM_OP;
      out->op = ToC(in.op);
      break;
    case CollectionItem::Kind::kTensor:
      out->kind = GRAFT_ITEM_TENSOR;
      out->tensor = ToC(in.tensor);
      break;
    case CollectionItem::Kind::kString:
      out->kind = GRAFT_ITEM_STRING;
      out->string = in.str.c_str();
      break;
    case CollectionItem::Kind::kValue:
      out->kind = GRAFT_ITEM_VALUE;
      out->string = in.str.empty() ? nullptr : in.str.c_str();
      out->value = in.value;
      break;
  }
}

}  // namespace

extern "C" {

GRAFT_API int graft_graph_add_to_collection(graft_graph* graph, const char* key, const graft_collection_item* item) {
  return Guard("graft_graph_add_to_collection", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(key);
    CollectionItem c;
    GRAFT_RETURN_IF_ERROR(ToItem(item, &graph->graph, &c));
    graph->graph.AddToCollection(key, std::move(c));
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_add_to_collections(graft_graph* graph, const char* const* keys, int nkeys,
                                             const graft_collection_item* item) {
  return Guard("graft_graph_add_to_collections", [&]() -> Status {
    GRAFT_CHECK_ARG(graph);
    if (nkeys < 0) return graft::errors::InvalidArgument("nkeys is ", nkeys);
    if (nkeys > 0) GRAFT_CHECK_ARG(keys);
    std::vector<std::string> k;
    for (int i = 0; i < nkeys; ++i) {
      if (keys[i] == nullptr) return graft::errors::InvalidArgument("keys[", i, "] is NULL");
      k.emplace_back(keys[i]);
    }
    CollectionItem c;
    GRAFT_RETURN_IF_ERROR(ToItem(item, &graph->graph, &c));
    graph->graph.AddToCollections(k, c);
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_get_collection(graft_collection** out, const graft_graph* graph, const char* key,
                                         const char* scope) {
  return Guard("graft_graph_get_collection", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(key);
    auto c = std::make_unique<graft_collection>();
    c->graph = const_cast<graft::Graph*>(&graph->graph);
    GRAFT_RETURN_IF_ERROR(graph->graph.GetCollection(key, scope ? std::optional<std::string>(scope) : std::nullopt,
                                                     &c->owned));
    *out = c.release();
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_get_collection_ref(graft_collection** out, graft_graph* graph, const char* key) {
  return Guard("graft_graph_get_collection_ref", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(graph);
    GRAFT_CHECK_ARG(key);
    auto& slot = graph->live_collections[key];
    if (!slot) {
      auto c = std::make_unique<graft_collection>();
      c->graph = &graph->graph;
      c->live = &graph->graph.CollectionRef(key);
      slot = std::move(c);
    }
    *out = slot.get();
    return Status::Ok();
  });
}

GRAFT_API int graft_graph_collection_keys(graft_collection** out, const graft_graph* graph) {
  return Guard("graft_graph_collection_keys", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(graph);
    auto c = std::make_unique<graft_collection>();
    for (std::string& key : graph->graph.CollectionKeys()) {
      CollectionItem item;
      item.kind = CollectionItem::Kind::kString;
      item.str = std::move(key);
      c->owned.push_back(std::move(item));
    }
    *out = c.release();
    return Status::Ok();
  });
}

GRAFT_API void graft_collection_free(graft_collection* collection) {
  if (collection != nullptr && collection->live == nullptr) delete collection;
}

GRAFT_API int64_t graft_collection_size(const graft_collection* collection) {
  return collection ? static_cast<int64_t>(collection->items().size()) : 0;
}

GRAFT_API int graft_collection_item_at(graft_collection_item* out, const graft_collection* collection, int64_t index) {
  return Guard("graft_collection_item_at", [&]() -> Status {
    GRAFT_CHECK_ARG(out);
    GRAFT_CHECK_ARG(collection);
    const auto& items = collection->items();
    if (index < 0 || static_cast<uint64_t>(index) >= items.size()) {
      return graft::errors::OutOfRange("index ", index, " is out of range for a collection of ", items.size());
    }
    FromItem(items[static_cast<size_t>(index)], out);
    return Status::Ok();
  });
}

GRAFT_API int graft_collection_append(graft_collection* collection, const graft_collection_item* item) {
  return Guard("graft_collection_append", [&]() -> Status {
    GRAFT_CHECK_ARG(collection);
    CollectionItem c;
    GRAFT_RETURN_IF_ERROR(ToItem(item, collection->graph, &c));
    collection->items().push_back(std::move(c));
    return Status::Ok();
  });
}

GRAFT_API int graft_collection_remove(graft_collection* collection, int64_t index) {
  return Guard("graft_collection_remove", [&]() -> Status {
    GRAFT_CHECK_ARG(collection);
    auto& items = collection->items();
    if (index < 0 || static_cast<uint64_t>(index) >= items.size()) {
      return graft::errors::OutOfRange("index ", index, " is out of range for a collection of ", items.size());
    }
    items.erase(items.begin() + index);
    return Status::Ok();
  });
}

GRAFT_API void graft_collection_clear(graft_collection* collection) {
  if (collection) collection->items().clear();
}

}  // extern "C"
