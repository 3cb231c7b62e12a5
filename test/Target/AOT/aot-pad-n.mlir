// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %s -o %t --report | FileCheck %s

// An LCE whose N (250) is not a multiple of 8 stays on the tensor cores:
// both GEMMs computed over 256 columns of zero-padded inputs, their results
// sliced back (the request GEMM's before the candidate GEMM's epilogue
// gathers it, the candidate GEMM's into the entry's result), never the
// portable kernel.
// CHECK: padded N 250 -> 256 (16-byte rows), the result sliced back
// CHECK-NOT: portable
// CHECK: kernel lce250_gemm2: {{.*}}; lowered from the kernel-level IR
// CHECK: kernel lce250_copy5: copy ws2 -> ws5 (?x433x250, zero outside the source box)
// CHECK: kernel lce250_gemm6: {{.*}}; lowered from the kernel-level IR
// CHECK: kernel lce250_copy7: copy ws6 -> result0 (?x433x250, zero outside the source box)
func.func @lce250(%w: tensor<433x2044xf16> {sc.lineage = #sc.lineage<shared>},
                  %e_user: tensor<?x1178x250xf16> {sc.lineage = #sc.lineage<request>},
                  %e_cand: tensor<?x866x250xf16> {sc.lineage = #sc.lineage<candidate>},
                  %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> tensor<?x433x250xf16> {
  %user_b = sc.gather_rows %e_user[%idx]
      : tensor<?x1178x250xf16>, tensor<?xi32> -> tensor<?x1178x250xf16>
  %e = tensor.concat dim(1) %user_b, %e_cand
      : (tensor<?x1178x250xf16>, tensor<?x866x250xf16>) -> tensor<?x2044x250xf16>
  %out = sc.batch_matmul %w, %e
      : tensor<433x2044xf16>, tensor<?x2044x250xf16> -> tensor<?x433x250xf16>
  return %out : tensor<?x433x250xf16>
}
