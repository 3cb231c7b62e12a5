//===- ScInterfaces.td - interfaces of the sc dialect --------*- tablegen -*-===//
#ifndef SPARCAST_DIALECT_SC_IR_SCINTERFACES_TD
#define SPARCAST_DIALECT_SC_IR_SCINTERFACES_TD

include "mlir/IR/OpBase.td"

def Sc_BlockMaskAttrInterface : AttrInterface<"BlockMaskAttrInterface"> {
  let cppNamespace = "::mlir::sc";
  let description = [{
    A block-level attention mask: which key blocks each query block attends
    to. Block `i` of the queries covers rows [i*B, (i+1)*B) where B is the
    block size; the last block of a sequence may be partial.
  }];
  let methods = [
    InterfaceMethod<"Block size in tokens (rows of Q and of K).",
      "int64_t", "getMaskBlockSize">,
    InterfaceMethod<[{
        Sorted, duplicate-free key blocks kept by query block `queryBlock`,
        for sequences of `numQueryBlocks` query blocks and `numKeyBlocks`
        key blocks.
      }],
      "::llvm::SmallVector<int64_t>", "getKeptKeyBlocks",
      (ins "int64_t":$queryBlock, "int64_t":$numQueryBlocks,
           "int64_t":$numKeyBlocks)>,
    InterfaceMethod<[{
        Checks that the mask is defined for sequences of the given number of
        blocks (dynamic sizes are passed as ShapedType::kDynamic).
      }],
      "::mlir::LogicalResult", "verifyBlockCounts",
      (ins "::llvm::function_ref<::mlir::InFlightDiagnostic()>":$emitError,
           "int64_t":$numQueryBlocks, "int64_t":$numKeyBlocks)>,
  ];
  let extraClassDeclaration = [{
    /// The kept key blocks as BSR tables: `indices` the kept blocks of
    /// every query block in turn, `offsets` where each query block's start
    /// (numQueryBlocks + 1 entries, the last the total).
    void getBlockTables(int64_t numQueryBlocks, int64_t numKeyBlocks,
                        ::llvm::SmallVectorImpl<int32_t> &offsets,
                        ::llvm::SmallVectorImpl<int32_t> &indices) {
      offsets.assign(1, 0);
      indices.clear();
      for (int64_t q = 0; q < numQueryBlocks; ++q) {
        for (int64_t k : getKeptKeyBlocks(q, numQueryBlocks, numKeyBlocks))
          indices.push_back(static_cast<int32_t>(k));
        offsets.push_back(static_cast<int32_t>(indices.size()));
      }
    }
  }];
}

#endif // SPARCAST_DIALECT_SC_IR_SCINTERFACES_TD
