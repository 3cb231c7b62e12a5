//===- Passes.td - Sparcast conversion passes ----------------*- tablegen -*-===//
//
// Keep alphabetical.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_PASSES_TD
#define SPARCAST_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ScDropLineagePass : Pass<"sc-drop-lineage"> {
  let summary = "Remove sc.lineage argument attributes before LLVM lowering";
  let description = [{
    Lineage is a tensor-level fact. Once the program is lowered past memrefs
    (func-to-llvm expands each memref into several arguments) it no longer
    describes anything, so the CPU and GPU pipelines drop it first.

    Before:

    ```mlir
    func.func @f(%x: memref<?x8xf32> {sc.lineage = #sc.lineage<request>})
    ```

    After:

    ```mlir
    func.func @f(%x: memref<?x8xf32>)
    ```
  }];
}

def ScTestExecuteKernelIRPass : Pass<"sc-test-execute-kernel-ir", "::mlir::ModuleOp"> {
  let summary = "Test pass: replace GEMMs by their kernel-level functions run on the host";
  let description = [{
    The CPU meaning of the kernel-level IR (`sck`), for the CPU-executed
    proofs of the passes that write or rewrite it: each `sc.batch_matmul`
    with `sc.kernel_ir` becomes its kernel function run op by op on
    memrefs (tile loops as loops, box loads as copies with zeros past the
    operand's end, MMAs into fresh accumulators, the epilogue's region on
    every element inside the result; roles in order, the ring as a queue;
    readiness flags nothing), and the kernel functions are removed. A
    multi-stage kernel runs its stage 1 (A1, B1, C1) into a buffer that
    stage 2's epilogue reads in place of the stage-1 GEMM's result. Meant
    for the small shapes of the tests: boxes and accumulators are
    allocated per use and not freed.

    `sparcast-equiv --pass-pipeline='builtin.module(sc-lower-to-sck,
    sc-persistent, sc-warp-specialize, sc-test-execute-kernel-ir)'` then
    compares a model with its GEMMs computed by their kernels' IR (with
    `sc-lower-to-sck{attention=1}`, its attentions too).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ScTestGemmKernelPass : Pass<"sc-test-gemm-kernel", "::mlir::ModuleOp"> {
  let summary = "Test pass: generate the GPU kernel of every sc.batch_matmul";
  let description = [{
    Runs the GEMM kernel generator (what sparcast-aot uses) on each
    sc.batch_matmul of each function and appends the result to the module
    as `gpu.module @<func>_kernels`, so that the generated IR can be
    checked. Operands are named after function arguments (`arg<i>`); the op
    gets `sc.kernel = "<name>"`. The host code is left as it is.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Target chip (sm_90a gets the TMA + wgmma kernel)">,
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "K-tiles in flight in the shared-memory ring (0: chosen)">,
    Option<"tileN", "tile-n", "int64_t", /*default=*/"0",
           "Tile width, 128 or 256 (0: chosen)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"auto\"",
           "GEMM schedule: auto, simple, cooperative, pingpong or transposed">,
    Option<"kernelFromIR", "kernel-from-ir", "bool", /*default=*/"false",
           "Write the bodies sck-to-nvgpu lowers from the GEMM's kernel-level "
           "IR (run sc-lower-to-sck, sc-persistent, sc-warp-specialize first)">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ScTestAttentionKernelPass : Pass<"sc-test-attention-kernel", "::mlir::ModuleOp"> {
  let summary = "Test pass: generate the GPU kernel of every sc.attention";
  let description = [{
    Runs the attention kernel generator (what sparcast-aot uses) on each
    sc.attention of each function and appends the result to the module as
    `gpu.module @<func>_kernels`, so that the generated IR can be checked.
    Operands are named after function arguments (`arg<i>`); the op gets
    `sc.kernel = "<name>"`.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "Target chip">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ScLowerToLinalgPass : Pass<"sc-lower-to-linalg"> {
  let summary = "Reference lowering of every sc op to linalg, tensor and arith";
  let description = [{
    Lowers `sc` ops to upstream linalg/tensor/arith/math ops that compute
    exactly the op's definition in fp32, naively (gathers are materialized,
    masks evaluated per element). This is the golden model: lowered further
    to LLVM it runs on the CPU, and every optimizing rewrite is checked
    against it.

    Before:

    ```mlir
    %e = sc.gather_rows %user[%idx]
        : tensor<?x8xf32>, tensor<?xi32> -> tensor<?x8xf32>
    ```

    After:

    ```mlir
    %c0 = arith.constant 0 : index
    %n = tensor.dim %idx, %c0 : tensor<?xi32>
    %init = tensor.empty(%n) : tensor<?x8xf32>
    %e = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
                         iterator_types = ["parallel", "parallel"]}
        outs(%init : tensor<?x8xf32>) {
    ^bb0(%out: f32):
      %b = linalg.index 0 : index
      %j = linalg.index 1 : index
      %r = tensor.extract %idx[%b] : tensor<?xi32>
      %ri = arith.index_cast %r : i32 to index
      %v = tensor.extract %user[%ri, %j] : tensor<?x8xf32>
      linalg.yield %v : f32
    } -> tensor<?x8xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // SPARCAST_CONVERSION_PASSES_TD
