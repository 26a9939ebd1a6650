// Lookup tables (core/lookup_table.h): the ops of tf.lookup — HashTableV2 (a static table, as
// StaticHashTable), MutableHashTableV2, their initializers, finds, inserts and exports. The
// table handle is a scalar resource; values are scalars (tables of vectors are not supported).
// None of these ops is differentiable: gradients stop at their string or integer keys.
#include "core/ops/builtin_ops.h"
#include "core/ops/common_shape_fns.h"

namespace graft::ops {
namespace {

Status HandleShape(InferenceContext& c) {
  c.set_output(0, PartialShape::Scalar());
  return Status::Ok();
}

// Input 0 is the table handle, a scalar.
Status OnHandle(InferenceContext& c) { return c.WithScalar(0); }

OpDefBuilder Table(const char* name) {
  OpDefBuilder b(name);
  b.Output("table_handle: resource")
      .Attr("container: string = ''")
      .Attr("shared_name: string = ''")
      .Attr("use_node_name_sharing: bool = false")
      .Attr("key_dtype: type")
      .Attr("value_dtype: type")
      .SetIsStateful();
  return b;
}

}  // namespace

void RegisterLookupOps(OpRegistry& r) {
  Add(r, Table("HashTableV2"), HandleShape);
  Add(r, Table("MutableHashTableV2"), HandleShape);
  Add(r,
      OpDefBuilder("LookupTableFindV2")
          .Input("table_handle: resource")
          .Input("keys: Tin")
          .Input("default_value: Tout")
          .Output("values: Tout")
          .Attr("Tin: type")
          .Attr("Tout: type"),
      [](InferenceContext& c) -> Status {
        GRAFT_RETURN_IF_ERROR(c.WithScalar(0));
        c.set_output(0, c.input(1));
        return Status::Ok();
      });
  for (const char* name : {"LookupTableImportV2", "LookupTableInsertV2", "InitializeTableV2"}) {
    const bool init = std::string_view(name) == "InitializeTableV2";
    Add(r,
        OpDefBuilder(name)
            .Input("table_handle: resource")
            .Input(init ? "keys: Tkey" : "keys: Tin")
            .Input(init ? "values: Tval" : "values: Tout")
            .Attr(init ? "Tkey: type" : "Tin: type")
            .Attr(init ? "Tval: type" : "Tout: type")
            .SetIsStateful(),
        OnHandle);
  }
  Add(r,
      OpDefBuilder("LookupTableRemoveV2").Input("table_handle: resource").Input("keys: Tin").Attr("Tin: type").SetIsStateful(),
      OnHandle);
  Add(r, OpDefBuilder("LookupTableSizeV2").Input("table_handle: resource").Output("size: int64"),
      [](InferenceContext& c) -> Status {
        GRAFT_RETURN_IF_ERROR(c.WithScalar(0));
        c.set_output(0, PartialShape::Scalar());
        return Status::Ok();
      });
  Add(r,
      OpDefBuilder("LookupTableExportV2")
          .Input("table_handle: resource")
          .Output("keys: Tkeys")
          .Output("values: Tvalues")
          .Attr("Tkeys: type")
          .Attr("Tvalues: type"),
      [](InferenceContext& c) -> Status {
        GRAFT_RETURN_IF_ERROR(c.WithScalar(0));
        c.set_output(0, PartialShape({kUnknownDim}));
        c.set_output(1, PartialShape({kUnknownDim}));
        return Status::Ok();
      });
  Add(r,
      OpDefBuilder("InitializeTableFromTextFileV2")
          .Input("table_handle: resource")
          .Input("filename: string")
          .Attr("key_index: int >= -2")
          .Attr("value_index: int >= -2")
          .Attr("vocab_size: int >= -1 = -1")
          .Attr("delimiter: string = '\t'")
          .Attr("offset: int = 0")
          .SetIsStateful(),
      [](InferenceContext& c) -> Status {
        GRAFT_RETURN_IF_ERROR(c.WithScalar(0));
        return c.WithScalar(1);
      });
}

}  // namespace graft::ops
