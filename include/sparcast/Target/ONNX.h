//===- ONNX.h - ONNX models into MLIR ---------------------------*- C++ -*-===//
//
// An ONNX model (binary protobuf, or ONNX's textual syntax) becomes one
// func.func over tensors: the graph's inputs as arguments (dims named in
// the model stay dynamic), its initializers as constants, its outputs as
// results, and each node the tensor / linalg / sc ops of its meaning.
// Matrix products with a batched operand become sc.batch_matmul and row
// gathers sc.gather_rows, so the IKBO passes apply to imported models as to
// hand-written ones. An op or form not imported is a located error naming
// the node.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_TARGET_ONNX_H
#define SPARCAST_TARGET_ONNX_H

#include "sparcast/Dialect/SC/IR/ScDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringMap.h"

#include <string>

namespace mlir::sc {

struct OnnxImportOptions {
  /// The function's name (empty: the graph's name, else "model").
  std::string entryName;
  /// The lineage of graph inputs, by input name (sc.lineage on the
  /// argument); sc-infer-lineage infers the rest.
  llvm::StringMap<LineageKind> lineage;
};

/// Parses "name=kind,name=kind" (kinds: shared, request, candidate, index)
/// into `out`; returns an error message or an empty string.
std::string parseOnnxLineage(llvm::StringRef spec,
                             llvm::StringMap<LineageKind> &out);

/// Imports `contents` (a serialized ModelProto, or the model in ONNX's
/// textual syntax) read from `fileName`. Emits located errors and returns
/// null on failure.
OwningOpRef<ModuleOp> importOnnxModel(llvm::StringRef contents,
                                      llvm::StringRef fileName,
                                      MLIRContext *context,
                                      const OnnxImportOptions &options);

} // namespace mlir::sc

#endif // SPARCAST_TARGET_ONNX_H
