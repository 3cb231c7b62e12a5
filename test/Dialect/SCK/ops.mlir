// RUN: sparcast-opt %s | sparcast-opt | FileCheck %s

// A tiled GEMM at the kernel level, single role: per tile, k-tiles of A and
// B boxes into an accumulator, then the epilogue. It round-trips.
// CHECK-LABEL: func.func @single_role
// CHECK: sck.tile_loop %{{.*}} attributes {group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
// CHECK: sck.load "A"[%{{.*}}, %{{.*}}] : !sck.box<64x64xf16>
// CHECK: sck.load "B"[%{{.*}}, %{{.*}}] : !sck.box<64x256xf16>
// CHECK: sck.mma %{{.*}}, %{{.*}}, %{{.*}} : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
// CHECK: sck.epilogue "C"[%{{.*}}], %{{.*}} : !sck.acc<64x256xf32>
func.func @single_role(%tiles: index, %kTiles: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<persistent>, group = 8} {
  ^bb0(%tb: index, %t: index, %tn: index):
    %zero = sck.zero : !sck.acc<64x256xf32>
    %acc = scf.for %k = %c0 to %kTiles step %c1 iter_args(%a = %zero) -> (!sck.acc<64x256xf32>) {
      %ba = sck.load "A"[%k, %t] : !sck.box<64x64xf16>
      %bb = sck.load "B"[%t, %k] : !sck.box<64x256xf16>
      %n = sck.mma %ba, %bb, %a : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
      scf.yield %n : !sck.acc<64x256xf32>
    }
    sck.epilogue "C"[%t], %acc : !sck.acc<64x256xf32>
  }
  return
}

// Warp-specialized: a producer role puts each k-tile's boxes into the ring,
// consumer roles get them and release the slot.
// CHECK-LABEL: func.func @roles
// CHECK: %[[R:.*]] = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
// CHECK: sck.role producer attributes {regs = 40 : i64} {
// CHECK: sck.put %[[R]], %{{.*}}, %{{.*}} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>, !sck.box<64x64xf16>, !sck.box<64x256xf16>
// CHECK: sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<pingpong>, regs = 232 : i64} {
// CHECK: sck.get %[[R]] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
// CHECK: sck.release %[[R]]
func.func @roles(%tiles: index) {
  %r = sck.ring {stages = 4} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
  sck.role producer attributes {regs = 40} {
    sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%tb: index, %t: index, %tn: index):
      %ba = sck.load "A"[%t, %t] : !sck.box<64x64xf16>
      %bb = sck.load "B"[%t, %t] : !sck.box<64x256xf16>
      sck.put %r, %ba, %bb : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>, !sck.box<64x64xf16>, !sck.box<64x256xf16>
    }
  }
  sck.role consumer attributes {regs = 232, count = 2, order = #sck.consumer_order<pingpong>} {
    sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%tb: index, %t: index, %tn: index):
      %zero = sck.zero : !sck.acc<64x256xf32>
      %ba, %bb = sck.get %r : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
      %n = sck.mma %ba, %bb, %zero : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
      sck.release %r : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
      sck.epilogue "C"[%t], %n : !sck.acc<64x256xf32>
    }
  }
  return
}

// The epilogue's element-wise region, (accumulator element, b, m, n,
// ins...) -> element, its tensors as operands.
// CHECK-LABEL: func.func @epilogue_region
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x64x256xf32>, tensor<?xi32>) : !sck.acc<64x256xf32> {
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: tensor<?x64x256xf32>, %{{.*}}: tensor<?xi32>):
// CHECK: sck.yield %{{.*}} : f16
func.func @epilogue_region(%batch: index, %x: tensor<?x64x256xf32>, %idx: tensor<?xi32>) {
  %c1 = arith.constant 1 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    %zero = sck.zero : !sck.acc<64x256xf32>
    sck.epilogue "C"[%nt, %mt, %b], %zero ins(%x, %idx : tensor<?x64x256xf32>, tensor<?xi32>) : !sck.acc<64x256xf32> {
    ^bb0(%acc: f32, %bb: index, %m: index, %n: index, %xt: tensor<?x64x256xf32>, %it: tensor<?xi32>):
      %u = tensor.extract %it[%bb] : tensor<?xi32>
      %ui = arith.index_cast %u : i32 to index
      %v = tensor.extract %xt[%ui, %m, %n] : tensor<?x64x256xf32>
      %s = arith.addf %acc, %v : f32
      %t = arith.truncf %s : f32 to f16
      sck.yield %t : f16
    }
  }
  return
}

// Attention at the kernel level: per key block, S = Q K^T, one online
// softmax step (P, running statistics), O brought to the new maxima, O +=
// P V; then O divided by the row sums.
// CHECK-LABEL: func.func @attention_tile
// CHECK: %[[ST:.*]] = sck.softmax_init : !sck.acc<64x2xf32>
// CHECK: %[[P:.*]], %[[STN:.*]] = sck.softmax %{{.*}}, %{{.*}} at %{{.*}} of %{{.*}} {scale = 0.0883883461 : f32} : !sck.acc<64x128xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x128xf16>
// CHECK: sck.rescale %{{.*}}, %{{.*}} to %[[STN]] : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
// CHECK: sck.normalize %{{.*}}, %{{.*}} : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
func.func @attention_tile(%blocks: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %keys1000 = arith.constant 1000 : index
  %q = sck.load "Q"[%c0, %c0, %c0, %c0] : !sck.box<64x64xf16>
  %o0 = sck.zero : !sck.acc<64x64xf32>
  %st0 = sck.softmax_init : !sck.acc<64x2xf32>
  %o, %st = scf.for %kb = %c0 to %blocks step %c1 iter_args(%oi = %o0, %sti = %st0) -> (!sck.acc<64x64xf32>, !sck.acc<64x2xf32>) {
    %k0 = arith.muli %kb, %c128 : index
    %k = sck.load "K"[%c0, %k0, %c0, %c0] {transposed} : !sck.box<64x128xf16>
    %z = sck.zero : !sck.acc<64x128xf32>
    %s = sck.mma %q, %k, %z : !sck.box<64x64xf16>, !sck.box<64x128xf16>, !sck.acc<64x128xf32>
    %p, %stn = sck.softmax %s, %sti at %k0 of %keys1000 {scale = 0.0883883461 : f32} : !sck.acc<64x128xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x128xf16>
    %on = sck.rescale %oi, %sti to %stn : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
    %v = sck.load "V"[%c0, %k0, %c0, %c0] : !sck.box<128x64xf16>
    %o1 = sck.mma %p, %v, %on : !sck.frag<64x128xf16>, !sck.box<128x64xf16>, !sck.acc<64x64xf32>
    scf.yield %o1, %stn : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
  }
  %out = sck.normalize %o, %st : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
  sck.epilogue "O"[%c0, %c0, %c0, %c0], %out : !sck.acc<64x64xf32>
  return
}

// An epilogue operand prefetched as a box: the region reads its element
// at the result element's place.
// CHECK-LABEL: func.func @prefetched_operand
// CHECK: %[[X:.*]] = sck.prefetch %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : tensor<?x433x256xf32> -> !sck.box<64x256xf32>
// CHECK: sck.epilogue "C"[%{{.*}}, %{{.*}}, %{{.*}}], %{{.*}} ins(%[[X]] : !sck.box<64x256xf32>) : !sck.acc<64x256xf32> {
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: f32):
func.func @prefetched_operand(%x: tensor<?x433x256xf32>, %g: index, %m0: index, %n0: index) {
  %zero = sck.zero : !sck.acc<64x256xf32>
  %box = sck.prefetch %x[%n0, %m0, %g] : tensor<?x433x256xf32> -> !sck.box<64x256xf32>
  sck.epilogue "C"[%n0, %m0, %g], %zero ins(%box : !sck.box<64x256xf32>) : !sck.acc<64x256xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %v: f32):
    %s = arith.addf %acc, %v : f32
    %t = arith.truncf %s : f32 to f16
    sck.yield %t : f16
  }
  return
}

// A hybrid-tiled weight's tile: its kind and slot, and a 2:4 tile's
// compressed box and metadata multiplied by the sparse MMA.
// CHECK-LABEL: func.func @hybrid_tile
// CHECK: %{{.*}}, %{{.*}} = sck.hybrid_tile "B"[%{{.*}}, %{{.*}}]
// CHECK: sck.mma_sp %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !sck.box<64x64xf16>, !sck.box<64x4xi32>, !sck.box<128x8xf16>, !sck.acc<64x8xf32>
func.func @hybrid_tile(%r: index, %c: index) {
  %zero = sck.zero : !sck.acc<64x8xf32>
  %kind, %slot = sck.hybrid_tile "B"[%r, %c]
  %a = sck.load "B.sparse"[%c, %r, %slot] : !sck.box<64x64xf16>
  %e = sck.load "B.meta"[%c, %r, %slot] : !sck.box<64x4xi32>
  %x = sck.load "A"[%c, %r, %r] {transposed} : !sck.box<128x8xf16>
  %y = sck.mma_sp %a, %e, %x, %zero : !sck.box<64x64xf16>, !sck.box<64x4xi32>, !sck.box<128x8xf16>, !sck.acc<64x8xf32>
  return
}

// The rescoring kernel's ops: a bisection of a sorted row range, a
// shared-memory table of per-item sums, one element of the heads' product,
// one append above a row's threshold. They round-trip.
// CHECK-LABEL: func.func @rescore_ops
// CHECK: sck.csr_lower_bound %{{.*}}[%{{.*}} to %{{.*}}] at_least %{{.*}} {block_size = 1024 : i64, offset_bits = 10 : i64} : memref<?xi32>
// CHECK: sck.row_dot %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] : memref<?x?xf32>, memref<?x?xf32>
// CHECK: sck.table_add %{{.*}} to %{{.*}}, %{{.*}}[%{{.*}}] : memref<8192xi32, #gpu.address_space<workgroup>>, memref<8192xf32, #gpu.address_space<workgroup>>
// CHECK: sck.table_find %{{.*}}[%{{.*}}] : memref<8192xi32, #gpu.address_space<workgroup>>
// CHECK: sck.append_above %{{.*}}[%{{.*}}, %{{.*}}] above %{{.*}} into %{{.*}}, %{{.*}}, %{{.*}} : memref<?xf32>, memref<?xi32>, memref<?x4096xf32>, memref<?x4096xi32>
func.func @rescore_ops(%w: memref<?xi32>, %keys: memref<8192xi32, #gpu.address_space<workgroup>>, %sums: memref<8192xf32, #gpu.address_space<workgroup>>, %qh: memref<?x?xf32>, %ih: memref<?x?xf32>, %th: memref<?xf32>, %cnt: memref<?xi32>, %v: memref<?x4096xf32>, %c: memref<?x4096xi32>, %i: index) {
  %e = sck.csr_lower_bound %w[%i to %i] at_least %i {block_size = 1024 : i64, offset_bits = 10 : i64} : memref<?xi32>
  %x = sck.row_dot %qh[%i], %ih[%e] : memref<?x?xf32>, memref<?x?xf32>
  %added = sck.table_add %x to %keys, %sums[%e] : memref<8192xi32, #gpu.address_space<workgroup>>, memref<8192xf32, #gpu.address_space<workgroup>>
  %found = sck.table_find %keys[%e] : memref<8192xi32, #gpu.address_space<workgroup>>
  sck.append_above %x[%i, %e] above %th into %cnt, %v, %c : memref<?xf32>, memref<?xi32>, memref<?x4096xf32>, memref<?x4096xi32>
  return
}

// Named ring positions in roles, as sc-pipeline-wgmma leaves a Hopper GEMM:
// the tile's index in the CTA's walk, a slot released one k-tile late,
// waits for the asynchronous MMAs, ping-pong turns and a slot discarded.
// CHECK-LABEL: func.func @scheduled_roles
// CHECK: %[[T:.*]] = sck.tile_index
// CHECK: sck.put %[[R:.*]][%{{.*}}], %{{.*}} :
// CHECK: sck.await_turn
// CHECK: sck.get %[[R]][%{{.*}}] :
// CHECK: sck.pass_turn
// CHECK: sck.mma_wait 0
// CHECK: sck.release %[[R]][%{{.*}}] :
// CHECK: sck.discard %[[R]][%{{.*}}] :
func.func @scheduled_roles(%tiles: index) {
  %c2 = arith.constant 2 : index
  %r = sck.ring {stages = 4} : !sck.ring<!sck.box<64x64xf16>>
  sck.role producer attributes {regs = 40} {
    sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
      %t = sck.tile_index
      %p = arith.muli %t, %c2 : index
      %a = sck.load "A"[%m, %b] : !sck.box<64x64xf16>
      sck.put %r[%p], %a : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
    }
  }
  sck.role consumer attributes {regs = 232, count = 2, order = #sck.consumer_order<pingpong>} {
    sck.tile_loop %tiles, %tiles, %tiles attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
      %t = sck.tile_index
      %p = arith.muli %t, %c2 : index
      sck.await_turn
      %a = sck.get %r[%p] : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xf16>
      sck.pass_turn
      sck.mma_wait 0
      sck.release %r[%p] : !sck.ring<!sck.box<64x64xf16>>
      sck.discard %r[%p] : !sck.ring<!sck.box<64x64xf16>>
    }
  }
  return
}

// Consumers taking turns, each running the role's body as its own.
// CHECK-LABEL: func.func @per_consumer
// CHECK: sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<turns>, regs = 232 : i64} {
// CHECK-NEXT: %{{.*}} = sck.consumer_index
func.func @per_consumer() {
  sck.role consumer attributes {count = 2, order = #sck.consumer_order<turns>, regs = 232} {
    %c = sck.consumer_index
  }
  return
}

// A box read into registers once, the A operand of an MMA.
// CHECK-LABEL: func.func @register_a
// CHECK: %[[F:.*]] = sck.load_frag %{{.*}} : !sck.box<64x64xf16> -> !sck.frag<64x64xf16>
// CHECK: sck.mma %[[F]], %{{.*}}, %{{.*}} : !sck.frag<64x64xf16>, !sck.box<64x128xf16>, !sck.acc<64x128xf32>
func.func @register_a(%a: !sck.box<64x64xf16>, %b: !sck.box<64x128xf16>) -> !sck.acc<64x128xf32> {
  %f = sck.load_frag %a : !sck.box<64x64xf16> -> !sck.frag<64x64xf16>
  %z = sck.zero : !sck.acc<64x128xf32>
  %r = sck.mma %f, %b, %z : !sck.frag<64x64xf16>, !sck.box<64x128xf16>, !sck.acc<64x128xf32>
  return %r : !sck.acc<64x128xf32>
}

// A chained walk made explicit: the CTA's tile count, each tile's (b, m, n).
// CHECK-LABEL: func.func @walk
// CHECK: %[[N:.*]] = sck.walk_size %{{.*}}, %{{.*}}, %{{.*}}
// CHECK: %{{.*}}, %{{.*}}, %{{.*}} = sck.walk_tile %{{.*}} of %{{.*}}, %{{.*}}, %{{.*}}
func.func @walk(%b: index, %m: index, %n: index, %i: index) -> (index, index, index, index) {
  %size = sck.walk_size %b, %m, %n
  %tb, %tm, %tn = sck.walk_tile %i of %b, %m, %n
  return %size, %tb, %tm, %tn : index, index, index, index
}
