// RUN: sparcast-equiv %sparcast_src_root/examples/lce.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline)' --users=2 --candidates=3 --trials=1 --rtol=2e-3 | FileCheck %s

// The IKBO pipeline on the LCE example at its real shapes (M = 433,
// N = 256, K_user = 1178 and K_cand = 866 padded to 1184 and 872): the
// same results on the CPU as the plain graph.
// CHECK: ok
// CHECK: EQUIVALENT
