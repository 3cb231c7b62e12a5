// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck -sc-split-k=splits=2 -canonicalize | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck -sc-split-k=report=1 -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO
// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck -sc-split-k=splits=2 -sc-warp-specialize -sc-schedule-wgmma -canonicalize | FileCheck %s --check-prefix=WS
// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck -sc-split-k="dense=1 report=1" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DENSE
// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck -sc-split-k=dense=1 -canonicalize | FileCheck %s --check-prefix=DENSEIR

// sc-split-k on a decode GEMM over a hybrid-tiled weight (one consumer,
// 64 weight rows a tile): the tile loop runs two tiles for each tile, the
// parts of one tile adjacent (b = bs / 2, part s = bs mod 2); part s walks
// k-tiles [s x 43, min(86, (s + 1) x 43)); sck.reduce_splits keeps the
// partial sums of tile (b, m, n) and the epilogue runs in the part that
// arrives last, on their sum.
// CHECK-LABEL: func.func private @decode_gemm0_kernel(
// CHECK: %[[BS:.*]] = arith.muli %arg0, %c2 : index
// CHECK: sck.tile_loop %[[BS]], %c1, %c64 attributes {schedule = #sck.tile_schedule<grid>}
// CHECK: ^bb0(%[[ARG:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index):
// CHECK: %[[B:.*]] = arith.divui %[[ARG]], %c2 : index
// CHECK: %[[S:.*]] = arith.remui %[[ARG]], %c2 : index
// CHECK: %[[LO:.*]] = arith.muli %[[S]], %c43 : index
// CHECK: %[[END:.*]] = arith.addi %[[LO]], %c43 : index
// CHECK: %[[HI:.*]] = arith.minui %[[END]], %c86 : index
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %[[LO]] to %[[HI]] step %c1
// CHECK: sck.load "A"[%{{.*}}, %{{.*}}, %[[B]]]
// CHECK: %[[BM:.*]] = arith.addi %[[B]], %[[M]] : index
// CHECK: %[[BMN:.*]] = arith.muli %[[BM]], %c64 : index
// CHECK: %[[TILE:.*]] = arith.addi %[[BMN]], %[[N]] : index
// CHECK: %[[SUM:.*]], %[[LAST:.*]] = sck.reduce_splits %[[ACC]] into "C"[%[[TILE]]] split %[[S]] of %c2 : !sck.acc<64x8xf32>
// CHECK: scf.if %[[LAST]] {
// CHECK-NEXT: sck.epilogue "C"[%{{.*}}, %{{.*}}, %[[B]]] transposed, %[[SUM]] : !sck.acc<64x8xf32>
// Auto: 64 tiles a batch element of 86 k-tiles run in 4 parts (256 CTAs,
// two an SM of 132 SMs).
// AUTO: remark: split-K: 4 parts of 22 k-tiles (of 86) a tile, 256 CTAs a batch element
// Warp-specialized: the producer loads its part's k-tiles; the reduction
// and the epilogue are the consumer's.
// WS-LABEL: func.func private @decode_gemm0_kernel(
// WS: sck.role producer
// WS-NOT: sck.reduce_splits
// WS: sck.role consumer
// WS: sck.reduce_splits
// WS: scf.if
// WS: sck.epilogue
#w = #sc.hybrid_tiles<tile = [64, 128], grid = [64, 86], kinds = "">
func.func @decode(%k: tensor<64x86xi8>, %s: tensor<64x86xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x1x11008xf16>) -> tensor<?x1x4096xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<64x86xi8>, tensor<64x86xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<4096x11008xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x11008xf16>, tensor<4096x11008xf16, #w> -> tensor<?x1x4096xf16>
  return %y : tensor<?x1x4096xf16>
}

// -----

// A weight of 8192 rows: 128 tiles keep over half the SMs busy, and auto
// leaves them (in two parts they took 0.84-0.91x the time on the H100).
// AUTO: remark: split-K: none (128 tiles a batch element keep half the SMs busy, or 86 k-tiles are too few to cut)
#w = #sc.hybrid_tiles<tile = [64, 128], grid = [128, 86], kinds = "">
func.func @square(%k: tensor<128x86xi8>, %s: tensor<128x86xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x1x11008xf16>) -> tensor<?x1x8192xf16> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<128x86xi8>, tensor<128x86xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<8192x11008xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x11008xf16>, tensor<8192x11008xf16, #w> -> tensor<?x1x8192xf16>
  return %y : tensor<?x1x8192xf16>
}

// -----

// A weight of 11008 rows: its 172 tiles fill the SMs (auto leaves it;
// a count given splits it all the same). Prefill (two consumers a tile)
// is left alone.
// AUTO: remark: split-K: none (172 tiles a batch element keep half the SMs busy, or 32 k-tiles are too few to cut)
// AUTO-NOT: split-K
// CHECK-LABEL: func.func private @wide_gemm1_kernel(
// CHECK-NOT: sck.reduce_splits
// CHECK-LABEL: func.func private @wide_gemm0_kernel(
// CHECK: sck.reduce_splits {{.*}} of %c2
#w = #sc.hybrid_tiles<tile = [64, 128], grid = [172, 32], kinds = "">
#p = #sc.hybrid_tiles<tile = [128, 128], grid = [86, 32], kinds = "">
func.func @wide(%k: tensor<172x32xi8>, %s: tensor<172x32xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x1x4096xf16>,
                %k2: tensor<86x32xi8>, %s2: tensor<86x32xi32>, %d2: tensor<?x128x128xf16>, %sp2: tensor<?x128x64xf16>, %m2: tensor<?x128x4xi32>, %x2: tensor<?x2048x4096xf16>) -> (tensor<?x1x11008xf16>, tensor<?x2048x11008xf16>) {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<172x32xi8>, tensor<172x32xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<11008x4096xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x1x4096xf16>, tensor<11008x4096xf16, #w> -> tensor<?x1x11008xf16>
  %w2 = sc.assemble_hybrid %k2, %s2, %d2, %sp2, %m2 : tensor<86x32xi8>, tensor<86x32xi32>, tensor<?x128x128xf16>, tensor<?x128x64xf16>, tensor<?x128x4xi32> -> tensor<11008x4096xf16, #p>
  %y2 = sc.batch_matmul %x2, %w2 {transpose_rhs} : tensor<?x2048x4096xf16>, tensor<11008x4096xf16, #p> -> tensor<?x2048x11008xf16>
  return %y, %y2 : tensor<?x1x11008xf16>, tensor<?x2048x11008xf16>
}

// -----

// Dense warp-specialized GEMMs (dense=1): the tower layer of a ranking
// model, its rows the candidates (a tile count the call knows): 128
// k-tiles cut into 8, 4 or 2 parts, the largest whose parts all fit the
// SMs at once, else 1, computed in the kernel. Each part's k loop counts
// its share from 0 and reads k-tile s x share + k.
// DENSE: remark: split-K: parts chosen at run time, the largest of 8 4 2 with tiles x parts <= 132 (else 1), of 128 k-tiles
// DENSEIR-LABEL: func.func private @tower_gemm0_kernel(
// DENSEIR: %[[MT:.*]] = arith.ceildivui %arg0, %c128 : index
// DENSEIR: %[[T2:.*]] = arith.muli %[[MT]], %c8 : index
// DENSEIR: %[[F2:.*]] = arith.cmpi ule, %[[T2]], %c132 : index
// DENSEIR: %[[S2:.*]] = arith.select %[[F2]], %c2, %c1 : index
// DENSEIR: %[[T4:.*]] = arith.muli %[[MT]], %c16 : index
// DENSEIR: %[[F4:.*]] = arith.cmpi ule, %[[T4]], %c132 : index
// DENSEIR: %[[S4:.*]] = arith.select %[[F4]], %c4, %[[S2]] : index
// DENSEIR: %[[T8:.*]] = arith.muli %[[MT]], %c32 : index
// DENSEIR: %[[F8:.*]] = arith.cmpi ule, %[[T8]], %c132 : index
// DENSEIR: %[[S:.*]] = arith.select %[[F8]], %c8, %[[S4]] : index
// DENSEIR: %[[SHARE:.*]] = arith.divui %c128, %[[S]] : index
// DENSEIR: sck.tile_loop %[[S]], %[[MT]], %c4
// DENSEIR: ^bb0(%[[BS:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index):
// DENSEIR: %[[PART:.*]] = arith.remui %[[BS]], %[[S]] : index
// DENSEIR: %[[FIRST:.*]] = arith.muli %[[PART]], %[[SHARE]] : index
// DENSEIR: scf.for %[[K:.*]] = %c0 to %[[SHARE]] step %c1
// DENSEIR: %[[KT:.*]] = arith.addi %[[FIRST]], %[[K]] : index
// DENSEIR: arith.muli %[[KT]], %c64 : index
// DENSEIR: sck.reduce_splits %{{.*}} into "C"[%{{.*}}] split %[[PART]] of %[[S]] {max_parts = 132 : i64} : !sck.acc<128x256xf32>
// DENSEIR: scf.if
// DENSEIR-NEXT: sck.epilogue "C"
func.func @tower(%x: tensor<?x1x8192xbf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<1024x8192xbf16>) -> tensor<?x1x1024xbf16> {
  %y = sc.batch_matmul %x, %w {transpose_rhs, sc.gemm_schedule = #sc.gemm_schedule<cooperative>} : tensor<?x1x8192xbf16>, tensor<1024x8192xbf16> -> tensor<?x1x1024xbf16>
  return %y : tensor<?x1x1024xbf16>
}

// -----

// A K too short to cut into parts of 8 k-tiles, 64 x 32 tiles a batch
// element, and an epilogue that reads the request's tile through the
// index (prefetched under the MMAs): left alone.
// DENSE: remark: split-K: none (8 k-tiles do not cut into parts of 8 or more)
// DENSE: remark: split-K: none (at least 2048 tiles keep half the SMs busy)
// DENSE: remark: split-K: none (its epilogue reads an operand's tile, prefetched under the MMAs)
// DENSEIR-LABEL: func.func private @short_k_gemm0_kernel(
// DENSEIR-NOT: sck.reduce_splits
// DENSEIR-LABEL: func.func private @square_gemm0_kernel(
// DENSEIR-NOT: sck.reduce_splits
// DENSEIR-LABEL: func.func private @gather_add_gemm0_kernel(
// DENSEIR-NOT: sck.reduce_splits
func.func @short_k(%x: tensor<?x64x512xbf16>, %w: tensor<256x512xbf16>) -> tensor<?x64x256xbf16> {
  %y = sc.batch_matmul %x, %w {transpose_rhs, sc.gemm_schedule = #sc.gemm_schedule<cooperative>} : tensor<?x64x512xbf16>, tensor<256x512xbf16> -> tensor<?x64x256xbf16>
  return %y : tensor<?x64x256xbf16>
}

func.func @square(%a: tensor<8192x8192xbf16>, %b: tensor<?x8192x8192xbf16>) -> tensor<?x8192x8192xbf16> {
  %c = sc.batch_matmul %a, %b {sc.gemm_schedule = #sc.gemm_schedule<cooperative>} : tensor<8192x8192xbf16>, tensor<?x8192x8192xbf16> -> tensor<?x8192x8192xbf16>
  return %c : tensor<?x8192x8192xbf16>
}

func.func @gather_add(%w: tensor<433x2048xf16>, %e: tensor<?x2048x256xf16>, %user: tensor<?x433x256xf32>, %idx: tensor<?xi32>) -> tensor<?x433x256xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x433x256xf32>, tensor<?xi32>) {sc.gemm_schedule = #sc.gemm_schedule<pingpong>}
      : tensor<433x2048xf16>, tensor<?x2048x256xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x433x256xf32>, %i: tensor<?xi32>):
    %r = tensor.extract %i[%b] : tensor<?xi32>
    %ri = arith.index_cast %r : i32 to index
    %x = tensor.extract %u[%ri, %m, %n] : tensor<?x433x256xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x433x256xf16>
}
