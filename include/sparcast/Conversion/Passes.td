//===- Passes.td - Sparcast conversion passes ----------------*- tablegen -*-===//
//
// Keep alphabetical.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_CONVERSION_PASSES_TD
#define SPARCAST_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ScConvertSckToNVGPUPass : Pass<"sc-convert-sck-to-nvgpu"> {
  let summary = "Lower a warp-specialized Hopper GEMM's sck ops to TMA, "
                "mbarriers and wgmma, one pattern per op";
  let description = [{
    In each gpu.func holding a warp-specialized GEMM's kernel-level IR
    (after sc-schedule-wgmma, its ring's stages decided): the CTA's shared
    memory and mbarriers are laid out first (the ring's slots, each
    consumer's staging tile and prefetch buffers), then each op lowers by
    a pattern of its own. `sck.role` becomes its warpgroup's branch with
    setmaxnreg, `sck.tile_loop` the CTA's walk of the tiles and
    `sck.tile_index` its induction variable, `sck.put` the wait for a free
    slot, expect_tx and the TMA loads of its boxes, `sck.get` the wait for
    a full slot, `sck.mma` wgmma on the slot's boxes, `sck.release` and
    `sck.discard` the arrivals on the slot's empty barrier,
    `sck.mma_wait` wgmma.wait_group, `sck.await_turn` / `sck.pass_turn`
    named barriers, `sck.prefetch` the TMA loads of an epilogue operand's
    first subtiles and `sck.epilogue` the region as a device function on
    each accumulator element, staged and stored by TMA. The kernel's
    arguments carry `sck.operand`: "A" and "B" (tensor maps), "C" (the
    result's memref) and "C.map", "in0", ... (the epilogue's memrefs) and
    "in<i>.map" for a prefetched one. A kernel of `sck.schedule` hybrid
    (the hybrid-tiled GEMM) is lowered by patterns of its own: its rings
    share slots, its puts, gets and releases take each role's next ring
    position from counters, `sck.hybrid_tile` reads the packed tables and
    `sck.mma_sp` becomes sparse wgmma.

    Before:

    ```mlir
    %g:2 = sck.get %ring[%p] : !sck.ring<...> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
    ```

    After:

    ```mlir
    nvgpu.mbarrier.try_wait.parity %full[%slot], %parity, %ticks : ...
    ```
  }];
}

def ScConvertSckToMmaSyncPass : Pass<"sc-convert-sck-to-mma-sync"> {
  let summary = "Lower a multistage kernel's sck ops (sm_80 / sm_86 / sm_89) "
                "to cp.async, ldmatrix and mma.sync, one pattern per op";
  let description = [{
    In each gpu.func: `sck.tile_loop` (grid) becomes the CTA's tile from
    its block ids, `sck.ring` dynamic shared memory, `sck.put` at a named
    position the cp.async copies of its boxes' 16-byte chunks into the
    slot (zero-filled past the operands) and a commit group, `sck.get` the
    wait for that slot's group and a CTA barrier, `sck.zero` and `sck.mma`
    the registers and ldmatrix + mma.sync m16n8k16 of four warps on a
    128 x 128 tile, `sck.epilogue` its region as a device function on each
    element and two-column stores. The kernel's memref arguments carry
    `sck.operand` ("A", "B", "C", "in0", ...), the names the ops use.

    Before:

    ```mlir
    %got:2 = sck.get %ring[%k] : !sck.ring<...> -> !sck.box<128x32xf16>, !sck.box<32x128xf16>
    ```

    After:

    ```mlir
    nvvm.cp.async.wait.group 1
    gpu.barrier
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
                           "::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect"];
}

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

def ScLowerSckSimtPass : Pass<"sc-lower-sck-simt"> {
  let summary = "Lower the sck ops CUDA cores run (sparse rows, exact fp32 "
                "tiles) to gpu, memref, vector and arith, one pattern per op";
  let description = [{
    The kernels of a sparse similarity (docs/sparse-similarity.md) are
    written in `sck` ops on memrefs: `sck.csr_row` and `sck.csr_entry` walk
    CSR rows, `sck.scatter_add` adds a product into the scores,
    `sck.stage_rows` stages a block of dense rows in shared memory,
    `sck.fma_tile` multiplies two stages into a thread's part of a 128 x 128
    fp32 tile, `sck.store_tile` stores the tile through the epilogue
    function and `sck.select_tile` appends its elements above their row's
    threshold to the row (a top-k's candidates). The rescoring kernel's ops:
    `sck.csr_lower_bound` bisects a sorted row range, `sck.table_add` and
    `sck.table_find` keep a hash table of per-item sums in shared memory,
    `sck.row_dot` is one element of the tile's product and
    `sck.append_above` appends one score. Each becomes the loads, bounds
    checks, barriers, fused multiply-adds and atomics it stands for.

    Before:

    ```mlir
    sck.scatter_add %p, %scores[%m, %n] : memref<?x?xf32>
    ```

    After:

    ```mlir
    %rows = memref.dim %scores, %c0 : memref<?x?xf32>
    ...
    scf.if %inside {
      memref.atomic_rmw addf %p, %scores[%m, %n] : (f32, memref<?x?xf32>) -> f32
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
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
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // SPARCAST_CONVERSION_PASSES_TD
