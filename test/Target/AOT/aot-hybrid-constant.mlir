// REQUIRES: ptxas
// RUN: python3 %sparcast_src_root/bench/make_hybrid_suite.py --constant --constant-shape 256x512x9 > %t.mlir
// RUN: rm -rf %t && sparcast-aot %t.mlir -o %t --hybrid-weights=128x128 --report | FileCheck %s
// RUN: not sparcast-aot %t.mlir -o %t-bad --hybrid-weights=128 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not sparcast-aot %t.mlir -o %t-bad --hybrid-weights=100x128 2>&1 | FileCheck %s --check-prefix=TILE
// RUN: not sparcast-aot %t.mlir -o %t-bad --hybrid-prune 2>&1 | FileCheck %s --check-prefix=PRUNE

// A constant f16 weight in an entry (bench/make_hybrid_suite.py
// --constant: tiles zero, 2:4, one value of four and dense in turns) packed
// at compile time by --hybrid-weights: the packed constants copied out of
// the kernels' module, the GEMM the hybrid-tiled kernel (checked on the
// GPU by bench/hybrid_check.py --constant-artifacts).
// CHECK: weight packed in 128 x 128 hybrid tiles: 2 dense, 4 2:4, 2 zero
// CHECK: kernel const_f16_gemm5: hybrid-tiled GEMM (tiles 128 x 128)
// SYNTAX: error: --hybrid-weights takes ROWSxCOLS (e.g. 128x128), got '128'
// TILE: error: sc-pack-hybrid-weights: tiles of multiples of 64 rows and 32 columns and a dense budget in [0, 1], got 100 x 128
// PRUNE: error: --hybrid-prune and --hybrid-dense-budget go with --hybrid-weights
