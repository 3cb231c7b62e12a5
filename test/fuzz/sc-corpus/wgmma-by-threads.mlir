// The kernel-level IR of a ping-pong GEMM whose rows are no TMA stride
// (C[b] = f16(W E[b]), 200 x 250 x 128 in 64 x 256 tiles of 2 k-tiles, 4
// ring slots, E [B, 120, 250] read with K padded to 128): B's boxes loaded
// by the producer's threads from B's memref, C stored directly (no C.map),
// after sc-schedule-wgmma: the input of the wgmma-*-by-threads.mlir tests.
gpu.module @kernels {
  gpu.func @unaligned(%a: !llvm.ptr {sck.operand = "A"}, %b: memref<?x120x250xf16> {sck.operand = "B"}, %c: memref<?x200x250xf16> {sck.operand = "C"}) kernel attributes {sck.schedule = #sck.kernel_schedule<pingpong>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c64 = arith.constant 64 : index
    %c256 = arith.constant 256 : index
    %batch = memref.dim %c, %c0 : memref<?x200x250xf16>
    %ring = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
    sck.role producer attributes {regs = 40 : i64} {
      sck.tile_loop %batch, %c4, %c1 attributes {group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%bi: index, %mb: index, %nb: index):
        %t = sck.tile_index
        %first = arith.muli %t, %c2 : index
        %m0 = arith.muli %mb, %c64 : index
        %n0 = arith.muli %nb, %c256 : index
        scf.for %kt = %c0 to %c2 step %c1 {
          %k0 = arith.muli %kt, %c64 : index
          %x = sck.load "A"[%k0, %m0] : !sck.box<64x64xf16>
          %y = sck.load "B"[%n0, %k0, %bi] {by_threads} : !sck.box<64x256xf16>
          %p = arith.addi %first, %kt : index
          sck.put %ring[%p], %x, %y : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>, !sck.box<64x64xf16>, !sck.box<64x256xf16>
        }
      }
    }
    sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<pingpong>, regs = 232 : i64} {
      sck.tile_loop %batch, %c4, %c1 attributes {group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%bi: index, %mb: index, %nb: index):
        %t = sck.tile_index
        sck.await_turn
        %first = arith.muli %t, %c2 : index
        %m0 = arith.muli %mb, %c64 : index
        %n0 = arith.muli %nb, %c256 : index
        %zero = sck.zero : !sck.acc<64x256xf32>
        %s0:2 = sck.get %ring[%first] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
        %acc0 = sck.mma %s0#0, %s0#1, %zero : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
        %p1 = arith.addi %first, %c1 : index
        %s1:2 = sck.get %ring[%p1] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
        %acc1 = sck.mma %s1#0, %s1#1, %acc0 : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
        sck.release %ring[%first] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
        sck.pass_turn
        sck.mma_wait 0
        sck.release %ring[%p1] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
        sck.epilogue "C"[%n0, %m0, %bi], %acc1 {direct_stores} : !sck.acc<64x256xf32>
      }
    }
    gpu.return
  }
}
