// RUN: sparcast-opt %s -split-input-file -sc-convert-sck-to-mma-sync -verify-diagnostics

// What the sm_80 lowering cannot take is a located error: a ring whose
// stages are left to the kernel writer, a box of an operand the kernel
// has no argument for.

gpu.module @kernels {
  gpu.func @gemm(%a: memref<?x200x72xf16> {sck.operand = "A"}, %b: memref<?x72x136xf16> {sck.operand = "B"}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    // expected-error @below {{sc-convert-sck-to-mma-sync: a ring of its stages (2 or more), not as many as fit}}
    %ring = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>
    %a0 = sck.load "A"[%c0, %c0, %c0] : !sck.box<128x32xf16>
    %b0 = sck.load "B"[%c0, %c0, %c0] : !sck.box<32x128xf16>
    sck.put %ring[%c0], %a0, %b0 : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>, !sck.box<128x32xf16>, !sck.box<32x128xf16>
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @gemm(%a: memref<?x200x72xf16> {sck.operand = "A"}, %b: memref<?x72x136xf16> {sck.operand = "B"}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %ring = sck.ring {stages = 2 : i64} : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>
    // expected-error @below {{sc-convert-sck-to-mma-sync: a box of a 2-D or 3-D memref argument named 'Q', at as many coordinates (or one fewer: the rows of all batch elements)}}
    %a0 = sck.load "Q"[%c0, %c0, %c0] : !sck.box<128x32xf16>
    %b0 = sck.load "B"[%c0, %c0, %c0] : !sck.box<32x128xf16>
    sck.put %ring[%c0], %a0, %b0 : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>, !sck.box<128x32xf16>, !sck.box<32x128xf16>
    gpu.return
  }
}

// -----

// A 128x256 accumulator is 8 warps' (64 x 64 each): not in a CTA of 128
// threads.
gpu.module @kernels {
  gpu.func @gemm(%a: memref<?x200x72xf16> {sck.operand = "A"}, %b: memref<?x72x264xf16> {sck.operand = "B"}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
    // expected-error @below {{sc-convert-sck-to-mma-sync: a '!sck.acc<128x256xf32>' accumulator in a CTA of 256 threads (nvvm.maxntid), not 128}}
    %zero = sck.zero : !sck.acc<128x256xf32>
    gpu.return
  }
}

// -----

// Rows of 130 f16 (260 bytes) are no 16-byte multiple: their boxes must be
// loaded by threads (in pieces), not in 16-byte chunks.
gpu.module @kernels {
  gpu.func @gemm(%a: memref<?x200x72xf16> {sck.operand = "A"}, %b: memref<?x72x130xf16> {sck.operand = "B"}) kernel attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %ring = sck.ring {stages = 2 : i64} : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>
    %a0 = sck.load "A"[%c0, %c0, %c0] : !sck.box<128x32xf16>
    // expected-error @below {{sc-convert-sck-to-mma-sync: an operand of rows of 16-byte multiples (else loaded by threads)}}
    %b0 = sck.load "B"[%c0, %c0, %c0] : !sck.box<32x128xf16>
    sck.put %ring[%c0], %a0, %b0 : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>, !sck.box<128x32xf16>, !sck.box<32x128xf16>
    gpu.return
  }
}
