// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline)' --users=4 --candidates=17 --trials=3 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline)' --users=6 --candidates=6 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-opt %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --sc-ikbo-pipeline | FileCheck %s --check-prefix=IR

// The whole IKBO type I pipeline (decompose, pad K, fuse the gather-add)
// on an LCE graph whose K_user and K_cand are odd: same results on the CPU,
// and the IR is two GEMMs, the second reading the first through the index.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT
// IR: %[[USER:.*]] = sc.batch_matmul {{.*}} -> tensor<?x7x6xf32>
// IR: sc.batch_matmul {{.*}} epilogue_ins(%[[USER]], %{{.*}} : tensor<?x7x6xf32>, tensor<?xi32>) : tensor<7x16xf16>, tensor<?x16x6xf16> -> tensor<?x7x6xf16>
// IR-NOT: sc.gather_rows
