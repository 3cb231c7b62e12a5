//===- TestPasses.td - Sparcast test-only passes -------------*- tablegen -*-===//
//
// Passes that exist for the tests (lit and sparcast-equiv), kept out of the
// production libraries as upstream MLIR keeps its own in test/lib. Keep
// alphabetical.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_TEST_PASSES_TD
#define SPARCAST_TEST_PASSES_TD

include "mlir/Pass/PassBase.td"

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
    Option<"fromKernelIR", "from-kernel-ir", "bool", /*default=*/"false",
           "Lower the kernel op by op from its scheduled kernel-level IR">,
    Option<"ampereAttention", "ampere-attention", "bool", /*default=*/"false",
           "sm_80 / sm_86 / sm_89: the mma.sync kernel">,
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
    Option<"schedule", "schedule", "std::string", /*default=*/"\"auto\"",
           "GEMM schedule: auto, cooperative, pingpong or transposed">,
  ];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ScTestHybridGemmKernelPass
    : Pass<"sc-test-hybrid-gemm-kernel", "::mlir::ModuleOp"> {
  let summary = "Test pass: the GPU kernel of every hybrid-tiled sc.batch_matmul";
  let description = [{
    Runs buildHybridGemmKernel (what sparcast-aot uses for a GEMM whose rhs
    is an sc.assemble_hybrid) on each such op, after sc-lower-to-sck and
    sc-warp-specialize, and appends the kernels to the module as
    `gpu.module @<func>_kernels`, so that the kernel written op by op from
    the kernel-level IR can be checked.
  }];
  let dependentDialects = [
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::vector::VectorDialect"
  ];
}

#endif // SPARCAST_TEST_PASSES_TD
