//===- ScDialect.td - the Sparcast `sc` dialect --------------*- tablegen -*-===//
#ifndef SPARCAST_DIALECT_SC_IR_SCDIALECT_TD
#define SPARCAST_DIALECT_SC_IR_SCDIALECT_TD

include "mlir/IR/OpBase.td"

def Sc_Dialect : Dialect {
  let name = "sc";
  let summary = "Sparse and broadcast-aware tensor ops, batch lineage and layouts";
  let description = [{
    The `sc` dialect is the user-facing level of Sparcast. It carries:

    * **batch lineage**: whether the leading (batch) dimension of a tensor is
      indexed by request (user), by candidate, or by nothing (`shared`), and
      which int32 tensor maps each candidate to its request (`index`).
      Lineage is written on function arguments as the discardable attribute
      `sc.lineage = #sc.lineage<request>`;
    * the high-level ops models are written with: `sc.gather_rows` (the
      request-to-candidate broadcast), `sc.batch_matmul` with an element-wise
      epilogue region, and `sc.attention` with an optional candidate-to-request
      index and an optional block mask;
    * layout attributes: block masks (`#sc.log_linear`, `#sc.block_sparse`),
      hybrid dense / 2:4 / zero tile layouts (`#sc.hybrid_tiles`) and the
      block-sparse CSR layout of sparse embeddings (`#sc.block_csr`).

    Every op has a reference lowering to linalg/tensor/arith
    (`sc-lower-to-linalg`): it is the golden model the optimizing rewrites are
    checked against on the CPU.
  }];
  let cppNamespace = "::mlir::sc";
  let useDefaultAttributePrinterParser = 1;
  let hasRegionArgAttrVerify = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let extraClassDeclaration = [{
    /// Name of the discardable argument attribute that carries lineage.
    static constexpr ::llvm::StringLiteral getLineageAttrName() {
      return ::llvm::StringLiteral("sc.lineage");
    }
    /// Name of the discardable kernel-argument attribute that marks a TMA
    /// tensor map the runtime passes by value (a 128-byte `__grid_constant__`
    /// parameter; compileToPTX lowers the pointer argument to one).
    static constexpr ::llvm::StringLiteral getTensorMapAttrName() {
      return ::llvm::StringLiteral("sc.tensor_map");
    }
  private:
    void registerAttributes();
  public:
  }];
}

class Sc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sc_Dialect, mnemonic, traits>;

#endif // SPARCAST_DIALECT_SC_IR_SCDIALECT_TD
