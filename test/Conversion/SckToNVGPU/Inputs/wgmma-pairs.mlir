// The kernel-level IR of a ping-pong GEMM in CTA pairs on pairs of M tiles
// (C[b] = A[b] B[b], 128 x 256 x 192: two M tiles of 64, 3 k-tiles, 4 ring
// slots) after sc-schedule-wgmma, in a gpu.func whose arguments are named for
// its ops: the input of wgmma-pairs.mlir.
gpu.module @kernels {
  gpu.func @bmm(%a: !llvm.ptr {sck.operand = "A"}, %b: !llvm.ptr {sck.operand = "B"}, %c: memref<?x128x256xf16> {sck.operand = "C"}, %cmap: !llvm.ptr {sck.operand = "C.map"}) kernel attributes {sck.schedule = #sck.kernel_schedule<pingpong>} {
    %zero = arith.constant 0 : index
    %arg0 = memref.dim %c, %zero : memref<?x128x256xf16>
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %c64 = arith.constant 64 : index
    %c1_0 = arith.constant 1 : index
    %c0_1 = arith.constant 0 : index
    %c256_2 = arith.constant 256 : index
    %c64_3 = arith.constant 64 : index
    %c2 = arith.constant 2 : index
    %c1_4 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %0 = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
    sck.role  producer attributes {regs = 40 : i64} {
      sck.tile_loop %arg0, %c2, %c1_4 attributes {cluster = 2 : i64, group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%arg1: index, %arg2: index, %arg3: index):
        %1 = sck.tile_index
        %c3_5 = arith.constant 3 : index
        %2 = arith.muli %1, %c3_5 : index
        %3 = arith.muli %arg2, %c64_3 : index
        %4 = arith.muli %arg3, %c256_2 : index
        scf.for %arg4 = %c0_1 to %c3 step %c1_0 {
          %5 = arith.muli %arg4, %c64_3 : index
          %6 = sck.load "A"[%5, %3, %arg1] : !sck.box<64x64xf16>
          %7 = sck.load "B"[%4, %5, %arg1] : !sck.box<64x256xf16>
          %8 = arith.addi %2, %arg4 : index
          sck.put %0[%8], %6, %7 : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>, !sck.box<64x64xf16>, !sck.box<64x256xf16>
        }
      }
    }
    sck.role  consumer attributes {count = 2 : i64, order = #sck.consumer_order<pingpong>, regs = 232 : i64} {
      sck.tile_loop %arg0, %c2, %c1_4 attributes {cluster = 2 : i64, group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%arg1: index, %arg2: index, %arg3: index):
        %1 = sck.tile_index
        sck.await_turn
        %c3_5 = arith.constant 3 : index
        %2 = arith.muli %1, %c3_5 : index
        %3 = arith.cmpi ult, %arg2, %c2 : index
        scf.if %3 {
          %4 = arith.muli %arg2, %c64 : index
          %5 = arith.muli %arg3, %c256 : index
          %6 = sck.zero : !sck.acc<64x256xf32>
          %7:2 = sck.get %0[%2] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
          %8 = sck.mma %7#0, %7#1, %6 : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
          %c1_6 = arith.constant 1 : index
          %9 = scf.for %arg4 = %c1_6 to %c3 step %c1 iter_args(%arg5 = %8) -> (!sck.acc<64x256xf32>) {
            %11 = arith.addi %2, %arg4 : index
            %12:2 = sck.get %0[%11] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
            %13 = sck.mma %12#0, %12#1, %arg5 : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
            %14 = arith.subi %11, %c1_6 : index
            sck.release %0[%14] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
            scf.yield %13 : !sck.acc<64x256xf32>
          }
          %c2_7 = arith.constant 2 : index
          %10 = arith.addi %2, %c2_7 : index
          sck.pass_turn
          sck.mma_wait 0
          sck.release %0[%10] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
          sck.epilogue "C"[%5, %4, %arg1], %9 : !sck.acc<64x256xf32>
        } else {
          %c0_6 = arith.constant 0 : index
          %c1_7 = arith.constant 1 : index
          %c3_8 = arith.constant 3 : index
          scf.for %arg4 = %c0_6 to %c3_8 step %c1_7 {
            %4 = arith.addi %2, %arg4 : index
            sck.discard %0[%4] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
          }
          sck.pass_turn
        }
      }
    }
    gpu.return
  }
}
