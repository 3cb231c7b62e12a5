// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %s -o %t --report | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/linear_kernels.ptx
// RUN: FileCheck %s --check-prefix=PREFILL < %t/prefill_kernels.ptx
// RUN: rm -rf %t-split && sparcast-aot %s -o %t-split --report --hybrid-split-k=2 | FileCheck %s --check-prefix=SPLIT
// RUN: FileCheck %s --check-prefix=SPLIT-MANIFEST < %t-split/manifest.json
// RUN: FileCheck %s --check-prefix=SPLIT-PTX < %t-split/linear_kernels.ptx
// RUN: not sparcast-aot %s -o %t-80 --sm=sm_80 2>&1 | FileCheck %s --check-prefix=SM80
// RUN: not sparcast-aot %S/Inputs/hybrid-narrow.mlir -o %t-narrow 2>&1 | FileCheck %s --check-prefix=NARROW
// RUN: not sparcast-aot %S/Inputs/hybrid-argument.mlir -o %t-arg 2>&1 | FileCheck %s --check-prefix=ARGUMENT

// A GEMM with a hybrid-tiled weight (y = x W^T, W's packed buffers the
// entry's arguments): its kernel from the kernel-level IR, the launch's
// tensor maps of the tokens and of W's dense, 2:4 and metadata buffers (the
// counts of dense and of 2:4 tiles symbols of their own, possibly 0), the
// kind table as bytes; ptxas accepts the sparse wgmma (PTX ISA 8.2).
// REPORT: warp-specialized: producer (1 + 1 + 2 box(es) per pass through their blocks (one ring each), 128 registers) + 1 consumer(s) (128 registers)
// REPORT: kernel linear_gemm0: hybrid-tiled GEMM (tiles 64 x 128), 64 weight rows x 8 tokens a CTA (1 consumer(s)), 6 slots a ring
// At prefill sizes (a token tile of 256) tiles of 128 rows run 128 rows a
// CTA, two consumers on one tokens' box, registers moved by setmaxnreg.
// REPORT: kernel prefill_gemm0: hybrid-tiled GEMM (tiles 128 x 128), 128 weight rows x 256 tokens a CTA (2 consumer(s)), 2 slots a ring
// MANIFEST: "dtype": "u8"
// MANIFEST: "may_be_empty": true
// MANIFEST-NEXT: "name": "arg2"
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "arg2_d0"
// MANIFEST: "name": "arg3"
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "arg3_d0"
// MANIFEST: "name": "arg4"
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "arg3_d0"
// MANIFEST: "grid": [
// MANIFEST-NEXT: "B*2"
// PTX: .version 8.
// PTX: wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16
// PTX: wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16
// --hybrid-multicast: prefill's CTAs in clusters of two on pairs of N
// tiles sharing the tokens' box (decode's tiles are left alone); ptxas
// accepts the multicast loads and the remote arrivals.
// PREFILL: .maxntid 384, 1, 1
// PREFILL: setmaxnreg.dec.sync.aligned.u32 40
// PREFILL: setmaxnreg.inc.sync.aligned.u32 232
// PREFILL: wgmma.mma_async.sp.sync.aligned.m64n256k32.f32.f16.f16
// --hybrid-split-k=2: decode's tiles in two parts over halves of K (twice
// the CTAs: B*4), the parts' partial sums in a workspace of B x 2 tiles x
// 2 parts x 64 x 8 words, the arrivals of each tile's 4 warps zeroed at
// each call; the last part's warps add them (fence, count, broadcast).
// Prefill keeps its tiles.
// SPLIT: split-K: 2 parts of 1 k-tiles (of 2) a tile, 4 CTAs a batch element
// SPLIT: kernel linear_gemm0: {{.*}}split-K: each tile's k-tiles in 2 parts
// SPLIT-NOT: split-K
// SPLIT-NOT: {{[1-9][0-9]*}} bytes spill stores
// SPLIT-MANIFEST: "grid": [
// SPLIT-MANIFEST-NEXT: "B*4"
// SPLIT-MANIFEST: "dtype": "f32"
// SPLIT-MANIFEST-NEXT: "name": "ws0"
// SPLIT-MANIFEST-NEXT: "shape": [
// SPLIT-MANIFEST-NEXT: "B*2048"
// SPLIT-MANIFEST: "dtype": "i32"
// SPLIT-MANIFEST-NEXT: "name": "ws1"
// SPLIT-MANIFEST-NEXT: "shape": [
// SPLIT-MANIFEST-NEXT: "B*8"
// SPLIT-MANIFEST: "zero_init": true
// SPLIT-PTX: membar.gl;
// SPLIT-PTX: bar.warp.sync
// SPLIT-PTX: atom.global.add.u32
// SPLIT-PTX: shfl.sync.idx.b32
// SPLIT-PTX: membar.gl;
// What has no kernel is a located error, never a dense GEMM over packed
// data.
// SM80: aot-hybrid.mlir:[[# @LINE + 6]]:8: error: sparcast-aot: no kernel for this hybrid-tiled GEMM: the hybrid-tiled GEMM runs on sm_90a only (sparse wgmma), not sm_80
// NARROW: hybrid-narrow.mlir:5:8: error: sparcast-aot: no kernel for this hybrid-tiled GEMM: hybrid tiles of a multiple of 128 columns only
// ARGUMENT: hybrid-argument.mlir:3:1: error: sparcast-aot: tensor encoding #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = ""> is not supported yet
#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @linear(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x5x256xf16>) -> tensor<?x5x128xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x5x256xf16>, tensor<128x256xf16, #w> -> tensor<?x5x128xf16>
  return %y : tensor<?x5x128xf16>
}

#w128 = #sc.hybrid_tiles<tile = [128, 128], grid = [2, 2], kinds = "">
func.func @prefill(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x128x128xf16>, %sp: tensor<?x128x64xf16>, %m: tensor<?x128x4xi32>, %x: tensor<?x200x256xf16>) -> tensor<?x200x256xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<256x256xf16, #w128>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x200x256xf16>, tensor<256x256xf16, #w128> -> tensor<?x200x256xf16>
  return %y : tensor<?x200x256xf16>
}
