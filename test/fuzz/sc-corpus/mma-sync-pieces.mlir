gpu.module @kernels {
  gpu.func @gemm(%a: memref<?x200x72xf16> {sck.operand = "A"}, %b: memref<?x72x130xf16> {sck.operand = "B"}, %c: memref<?x200x130xf32> {sck.operand = "C"}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %ring = sck.ring {stages = 3 : i64} : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>
    sck.tile_loop %c1, %c2, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
    ^bb0(%i: index, %m0: index, %n0: index):
      %zero = sck.zero : !sck.acc<128x128xf32>
      %a0 = sck.load "A"[%c0, %m0, %i] : !sck.box<128x32xf16>
      %b0 = sck.load "B"[%n0, %c0, %i] {by_threads} : !sck.box<32x128xf16>
      sck.put %ring[%c1], %a0, %b0 : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>, !sck.box<128x32xf16>, !sck.box<32x128xf16>
      %got:2 = sck.get %ring[%c1] : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>> -> !sck.box<128x32xf16>, !sck.box<32x128xf16>
      %r = sck.mma %got#0, %got#1, %zero : !sck.box<128x32xf16>, !sck.box<32x128xf16>, !sck.acc<128x128xf32>
      sck.epilogue "C"[%n0, %m0, %i], %r : !sck.acc<128x128xf32>
    }
    gpu.return
  }
}
