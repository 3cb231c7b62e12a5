// RUN: sparcast-opt %s -sc-convert-sck-to-mma-sync | FileCheck %s

// sck.mma of a 128x32 A box by an N-major 32x128 B box into a 128x128 f32
// accumulator: the accumulator is 32 registers of 4 f32 a thread (4 x 8
// m16n8 tiles of the warp's 64 x 64 quarter), zero from sck.zero; per
// 16-deep step, 4 ldmatrix .x4 of A (row layout), 4 of B (.trans: col
// layout) and 32 mma.sync m16n8k16.
// CHECK-LABEL: gpu.func @gemm(
// CHECK: %[[ZERO:.*]] = llvm.mlir.zero : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK-COUNT-4: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK: llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3"
// CHECK-COUNT-63: llvm.inline_asm asm_dialect = att "mma.sync
// CHECK-NOT: llvm.inline_asm
// CHECK: func.call @gemm_epilogue

gpu.module @kernels {
  gpu.func @gemm(%a: memref<?x200x72xf16> {sck.operand = "A"}, %b: memref<?x72x136xf16> {sck.operand = "B"}, %c: memref<?x200x136xf32> {sck.operand = "C"}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %ring = sck.ring {stages = 3 : i64} : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>
    sck.tile_loop %c1, %c2, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%i: index, %m0: index, %n0: index):
      %zero = sck.zero : !sck.acc<128x128xf32>
      %a0 = sck.load "A"[%c0, %m0, %i] : !sck.box<128x32xf16>
      %b0 = sck.load "B"[%n0, %c0, %i] : !sck.box<32x128xf16>
      sck.put %ring[%c1], %a0, %b0 : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>, !sck.box<128x32xf16>, !sck.box<32x128xf16>
      %got:2 = sck.get %ring[%c1] : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>> -> !sck.box<128x32xf16>, !sck.box<32x128xf16>
      %r = sck.mma %got#0, %got#1, %zero : !sck.box<128x32xf16>, !sck.box<32x128xf16>, !sck.acc<128x128xf32>
      sck.epilogue "C"[%n0, %m0, %i], %r : !sck.acc<128x128xf32>
    }
    gpu.return
  }
}

// The 128x256 tile: 8 warps (nvvm.maxntid 256), warp w on rows 64 (w / 4)
// and columns 64 (w % 4), each the same 4 x 8 m16n8 tiles; the 32x256 B
// box's rows are 528 bytes (512 + 16 of padding).
// CHECK-LABEL: gpu.func @wide(
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[WARP:.*]] = arith.divui %[[TID]], %c32 : index
// CHECK: %[[WM:.*]] = arith.divui %[[WARP]], %c4 : index
// CHECK: arith.muli %[[WM]], %c64 : index
// CHECK: %[[WN:.*]] = arith.remui %[[WARP]], %c4 : index
// CHECK: arith.muli %[[WN]], %c64 : index
// CHECK: arith.muli %{{.*}}, %c528 : index
// CHECK-COUNT-64: llvm.inline_asm asm_dialect = att "mma.sync
// CHECK-NOT: llvm.inline_asm
// CHECK: func.call @wide_epilogue
gpu.module @wide_kernels {
  gpu.func @wide(%a: memref<?x200x72xf16> {sck.operand = "A"}, %b: memref<?x72x264xf16> {sck.operand = "B"}, %c: memref<?x200x264xf32> {sck.operand = "C"}) kernel attributes {nvvm.maxntid = array<i32: 256, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %ring = sck.ring {stages = 3 : i64} : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x256xf16>>
    sck.tile_loop %c1, %c2, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%i: index, %m0: index, %n0: index):
      %zero = sck.zero : !sck.acc<128x256xf32>
      %a0 = sck.load "A"[%c0, %m0, %i] : !sck.box<128x32xf16>
      %b0 = sck.load "B"[%n0, %c0, %i] : !sck.box<32x256xf16>
      sck.put %ring[%c1], %a0, %b0 : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x256xf16>>, !sck.box<128x32xf16>, !sck.box<32x256xf16>
      %got:2 = sck.get %ring[%c1] : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x256xf16>> -> !sck.box<128x32xf16>, !sck.box<32x256xf16>
      %r = sck.mma %got#0, %got#1, %zero : !sck.box<128x32xf16>, !sck.box<32x256xf16>, !sck.acc<128x256xf32>
      sck.epilogue "C"[%n0, %m0, %i], %r : !sck.acc<128x256xf32>
    }
    gpu.return
  }
}
