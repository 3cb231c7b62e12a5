// RUN: sparcast-opt %s -split-input-file -sc-prefetch-epilogue-operands | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-prefetch-epilogue-operands=report=1 -verify-diagnostics -o /dev/null

// IKBO's gather-add: the epilogue reads the request result only at
// [idx[b], m, n]. The index is read at the tile's start, after its
// coordinates; the tile of the request result is a box there, and the
// region reads its element. The index leaves the epilogue (nothing else
// reads it there).
// CHECK-LABEL: func.func private @gather_add
// CHECK-SAME: (%[[BATCH:.*]]: index, %[[X:.*]]: tensor<?x433x256xf32>, %[[IDX:.*]]: tensor<?xi32>)
// CHECK: ^bb0(%[[B:.*]]: index, %[[MT:.*]]: index, %[[NT:.*]]: index):
// CHECK-NEXT: %[[M0:.*]] = arith.muli %[[MT]]
// CHECK-NEXT: %[[N0:.*]] = arith.muli %[[NT]]
// CHECK-NEXT: %[[U:.*]] = tensor.extract %[[IDX]][%[[B]]] : tensor<?xi32>
// CHECK-NEXT: %[[G:.*]] = arith.index_cast %[[U]] : i32 to index
// CHECK-NEXT: %[[BOX:.*]] = sck.prefetch %[[X]][%[[N0]], %[[M0]], %[[G]]] : tensor<?x433x256xf32> -> !sck.box<64x256xf32>
// CHECK-NEXT: sck.zero
// CHECK: sck.epilogue "C"[%[[N0]], %[[M0]], %[[B]]], %{{.*}} ins(%[[BOX]] : !sck.box<64x256xf32>) : !sck.acc<64x256xf32> {
// CHECK-NEXT: ^bb0(%[[ACC:.*]]: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %[[V:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK-NEXT: arith.truncf %[[S]]
// CHECK-NEXT: sck.yield
func.func private @gather_add(%batch: index, %x: tensor<?x433x256xf32>, %idx: tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c14 = arith.constant 14 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  sck.tile_loop %batch, %c7, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %m0 = arith.muli %mt, %c64 : index
    %n0 = arith.muli %nt, %c256 : index
    %zero = sck.zero : !sck.acc<64x256xf32>
    %acc = scf.for %k = %c0 to %c14 step %c1 iter_args(%a = %zero) -> (!sck.acc<64x256xf32>) {
      %k0 = arith.muli %k, %c64 : index
      %ba = sck.load "A"[%k0, %m0] : !sck.box<64x64xf16>
      %bb = sck.load "B"[%n0, %k0, %b] : !sck.box<64x256xf16>
      %r = sck.mma %ba, %bb, %a : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
      scf.yield %r : !sck.acc<64x256xf32>
    }
    // expected-remark @+1 {{epilogue operand #0 ('tensor<?x433x256xf32>') read at [g(b), m, n]: prefetched as a '!sck.box<64x256xf32>' per tile}}
    sck.epilogue "C"[%n0, %m0, %b], %acc ins(%x, %idx : tensor<?x433x256xf32>, tensor<?xi32>) : !sck.acc<64x256xf32> {
    ^bb0(%v: f32, %bb: index, %m: index, %n: index, %xs: tensor<?x433x256xf32>, %is: tensor<?xi32>):
      %u = tensor.extract %is[%bb] : tensor<?xi32>
      %g = arith.index_cast %u : i32 to index
      %e = tensor.extract %xs[%g, %m, %n] : tensor<?x433x256xf32>
      %s = arith.addf %v, %e : f32
      %t = arith.truncf %s : f32 to f16
      sck.yield %t : f16
    }
  }
  return
}

// -----

// A transposed accumulator (E^T W^T): the box is the tile in the result's
// orientation, the accumulator's shape transposed. The operand read at
// [b, m, n] (g = b) needs no index. A bias read at [n] stays a tensor.
// CHECK-LABEL: func.func private @transposed
// CHECK: ^bb0(%[[B:.*]]: index, %[[MT:.*]]: index, %[[NT:.*]]: index):
// CHECK: %[[BOX:.*]] = sck.prefetch %{{.*}}[%{{.*}}, %{{.*}}, %[[B]]] : tensor<?x300x256xf32> -> !sck.box<152x128xf32>
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}, %[[B]]] transposed, %{{.*}} ins(%[[BOX]], %{{.*}} : !sck.box<152x128xf32>, tensor<256xf32>) : !sck.acc<128x152xf32> {
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %[[N:.*]]: index, %[[V:.*]]: f32, %[[BIAS:.*]]: tensor<256xf32>):
// CHECK-NEXT: tensor.extract %[[BIAS]][%[[N]]]
func.func private @transposed(%batch: index, %x: tensor<?x300x256xf32>, %bias: tensor<256xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c152 = arith.constant 152 : index
  sck.tile_loop %batch, %c2, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %m0 = arith.muli %mt, %c152 : index
    %n0 = arith.muli %nt, %c128 : index
    %acc = sck.zero : !sck.acc<128x152xf32>
    // expected-remark @+1 {{epilogue operand #0 ('tensor<?x300x256xf32>') read at [g(b), m, n]: prefetched as a '!sck.box<152x128xf32>' per tile}}
    sck.epilogue "C"[%n0, %m0, %b] transposed, %acc ins(%x, %bias : tensor<?x300x256xf32>, tensor<256xf32>) : !sck.acc<128x152xf32> {
    ^bb0(%v: f32, %bb: index, %m: index, %n: index, %xs: tensor<?x300x256xf32>, %bs: tensor<256xf32>):
      %ef = tensor.extract %xs[%bb, %m, %n] : tensor<?x300x256xf32>
      %w = tensor.extract %bs[%n] : tensor<256xf32>
      %s = arith.addf %v, %ef : f32
      %s2 = arith.addf %s, %w : f32
      %t = arith.truncf %s2 : f32 to f16
      sck.yield %t : f16
    }
  }
  return
}

// -----

// The transposed tile's epilogue streams f32 operands only (in 32-row
// chunks, sck-to-nvgpu): an f16 one is read in place.
// CHECK-LABEL: func.func private @transposed_f16
// CHECK-NOT: sck.prefetch
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}, %{{.*}}] transposed, %{{.*}} ins(%{{.*}} : tensor<?x300x256xf16>)
func.func private @transposed_f16(%batch: index, %x: tensor<?x300x256xf16>) {
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c152 = arith.constant 152 : index
  sck.tile_loop %batch, %c2, %c2 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %m0 = arith.muli %mt, %c152 : index
    %n0 = arith.muli %nt, %c128 : index
    %acc = sck.zero : !sck.acc<128x152xf32>
    // expected-remark @+1 {{epilogue operand #0 read in place: the transposed tile's epilogue streams f32 operands only}}
    sck.epilogue "C"[%n0, %m0, %b] transposed, %acc ins(%x : tensor<?x300x256xf16>) : !sck.acc<128x152xf32> {
    ^bb0(%v: f32, %bb: index, %m: index, %n: index, %xs: tensor<?x300x256xf16>):
      %e = tensor.extract %xs[%bb, %m, %n] : tensor<?x300x256xf16>
      %ef = arith.extf %e : f16 to f32
      %s = arith.addf %v, %ef : f32
      %t = arith.truncf %s : f32 to f16
      sck.yield %t : f16
    }
  }
  return
}

// -----

// Not one tile per output tile: the batch index read depends on the row,
// so the operand stays read in place; nothing changes.
// CHECK-LABEL: func.func private @row_dependent
// CHECK-NOT: sck.prefetch
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x64x256xf32>, tensor<?xi32>)
func.func private @row_dependent(%batch: index, %x: tensor<?x64x256xf32>, %idx: tensor<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %acc = sck.zero : !sck.acc<64x256xf32>
    // expected-remark @+1 {{epilogue operand #0 read in place: the batch index read from the operand depends on the accumulator, the row or the column}}
    sck.epilogue "C"[%c0, %c0, %b], %acc ins(%x, %idx : tensor<?x64x256xf32>, tensor<?xi32>) : !sck.acc<64x256xf32> {
    ^bb0(%v: f32, %bb: index, %m: index, %n: index, %xs: tensor<?x64x256xf32>, %is: tensor<?xi32>):
      %u = tensor.extract %is[%m] : tensor<?xi32>
      %g = arith.index_cast %u : i32 to index
      %e = tensor.extract %xs[%g, %m, %n] : tensor<?x64x256xf32>
      %s = arith.addf %v, %e : f32
      sck.yield %s : f32
    }
  }
  return
}

// -----

// An operand computed inside the tile loop cannot be loaded before the
// tile starts.
// CHECK-LABEL: func.func private @inside_loop
// CHECK-NOT: sck.prefetch
func.func private @inside_loop(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %x = tensor.empty(%batch) : tensor<?x64x256xf32>
    %acc = sck.zero : !sck.acc<64x256xf32>
    // expected-remark @+1 {{epilogue operand #0 read in place: an operand defined inside the tile loop}}
    sck.epilogue "C"[%c0, %c0, %b], %acc ins(%x : tensor<?x64x256xf32>) : !sck.acc<64x256xf32> {
    ^bb0(%v: f32, %bb: index, %m: index, %n: index, %xs: tensor<?x64x256xf32>):
      %e = tensor.extract %xs[%bb, %m, %n] : tensor<?x64x256xf32>
      %s = arith.addf %v, %e : f32
      sck.yield %s : f32
    }
  }
  return
}

// -----

// A narrow tile (64 f32 columns: two 128-byte subtiles a row) is
// prefetched too (sck-to-nvgpu counts each buffer's fills across tiles).
// CHECK-LABEL: func.func private @narrow_tile
// CHECK: sck.prefetch %{{.*}} : tensor<?x64x32xf32> -> !sck.box<64x64xf32>
func.func private @narrow_tile(%batch: index, %x: tensor<?x64x32xf32>, %idx: tensor<?xi32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %m0 = arith.muli %mt, %c64 : index
    %n0 = arith.muli %nt, %c64 : index
    %acc = sck.zero : !sck.acc<64x64xf32>
    // expected-remark @+1 {{epilogue operand #0 ('tensor<?x64x32xf32>') read at [g(b), m, n]: prefetched as a '!sck.box<64x64xf32>' per tile}}
    sck.epilogue "C"[%n0, %m0, %b], %acc ins(%x, %idx : tensor<?x64x32xf32>, tensor<?xi32>) : !sck.acc<64x64xf32> {
    ^bb0(%v: f32, %bb: index, %m: index, %n: index, %xs: tensor<?x64x32xf32>, %is: tensor<?xi32>):
      %u32 = tensor.extract %is[%bb] : tensor<?xi32>
      %u = arith.index_cast %u32 : i32 to index
      %e = tensor.extract %xs[%u, %m, %n] : tensor<?x64x32xf32>
      %s = arith.addf %v, %e : f32
      %t = arith.truncf %s : f32 to f16
      sck.yield %t : f16
    }
  }
  return
}

// -----

// Rows of 250 f32 (1000 bytes) are no TMA stride: read in place, and the
// result stored by threads.
// CHECK-LABEL: func.func private @unaligned_rows
// CHECK-NOT: sck.prefetch
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x128x250xf32>, tensor<?xi32>) {direct_stores}
func.func private @unaligned_rows(%batch: index, %x: tensor<?x128x250xf32>, %idx: tensor<?xi32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  sck.tile_loop %batch, %c2, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %m0 = arith.muli %mt, %c64 : index
    %n0 = arith.muli %nt, %c256 : index
    %acc = sck.zero : !sck.acc<64x256xf32>
    // expected-remark @+1 {{epilogue operand #0 read in place: rows of other than a multiple of 16 bytes (TMA's stride)}}
    sck.epilogue "C"[%n0, %m0, %b], %acc ins(%x, %idx : tensor<?x128x250xf32>, tensor<?xi32>) {direct_stores} : !sck.acc<64x256xf32> {
    ^bb0(%v: f32, %bb: index, %m: index, %n: index, %xs: tensor<?x128x250xf32>, %is: tensor<?xi32>):
      %u = tensor.extract %is[%bb] : tensor<?xi32>
      %g = arith.index_cast %u : i32 to index
      %e = tensor.extract %xs[%g, %m, %n] : tensor<?x128x250xf32>
      %s = arith.addf %v, %e : f32
      %t = arith.truncf %s : f32 to f16
      sck.yield %t : f16
    }
  }
  return
}
