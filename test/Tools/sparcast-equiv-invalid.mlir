// Counts the checker cannot honour are refused with a message, never an
// abort; a comparison of no trial is not EQUIVALENT.
// RUN: not sparcast-equiv %s --ref=f --pass-pipeline='builtin.module(sc-lower-to-linalg)' --candidates=9223372036854775807 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not sparcast-equiv %s --ref=f --pass-pipeline='builtin.module(sc-lower-to-linalg)' --users=9223372036854775807 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not sparcast-equiv %s --ref=f --pass-pipeline='builtin.module(sc-lower-to-linalg)' --trials=0 2>&1 | FileCheck %s --check-prefix=TRIALS
// RUN: not sparcast-equiv %s --ref=f --pass-pipeline='builtin.module(sc-lower-to-linalg)' --candidates=1048576 --dynamic-size=4096 2>&1 | FileCheck %s --check-prefix=ELEMENTS
// COUNT: sparcast-equiv: --users, --candidates and --dynamic-size must be at most 2^30
// TRIALS: sparcast-equiv: --trials must be at least 1: no trial compares nothing
// TRIALS-NOT: EQUIVALENT
// ELEMENTS: error: argument #0 would hold more than 2^30 elements
// ELEMENTS: sparcast-equiv: cannot make inputs

func.func @f(%x: tensor<?x?x64xf32> {sc.lineage = #sc.lineage<candidate>},
             %w: tensor<64x8xf32> {sc.lineage = #sc.lineage<shared>}) -> tensor<?x?x8xf32> {
  %y = sc.batch_matmul %x, %w : tensor<?x?x64xf32>, tensor<64x8xf32> -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}
