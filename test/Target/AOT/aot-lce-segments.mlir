// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %s -o %t --report | FileCheck %s

// An LCE whose K interleaves two request and two candidate segments: the
// decomposition gathers each side's segments (the weight's columns and the
// features) with concat kernels past the batch dim, then the request GEMM,
// the candidate GEMM and the gather-add as for one segment each.
// CHECK: decomposed: request GEMM with K = 1178 (2 segment(s)) at request rows, candidate GEMM with K = 866 (2 segment(s)) at candidate rows, joined by a gather-add
// CHECK: kernel lce2_concat1: copy ws0 into ws1 (433x1178) at dim-1.. offsets
// CHECK: kernel lce2_concat4: copy arg1 into ws3 (?x1178x256) at dim-1.. offsets
// CHECK: kernel lce2_concat5: copy arg3 into ws3 (?x1178x256) at dim-1.. offsets
// CHECK: kernel lce2_gemm7: {{.*}}; lowered from the kernel-level IR
// CHECK: kernel lce2_concat12: copy arg2 into ws9 (?x866x256) at dim-1.. offsets
// CHECK: kernel lce2_gemm{{1[56]}}: {{.*}}; lowered from the kernel-level IR
func.func @lce2(%w: tensor<433x2044xf16> {sc.lineage = #sc.lineage<shared>},
                %u1: tensor<?x600x256xf16> {sc.lineage = #sc.lineage<request>},
                %c1: tensor<?x400x256xf16> {sc.lineage = #sc.lineage<candidate>},
                %u2: tensor<?x578x256xf16> {sc.lineage = #sc.lineage<request>},
                %c2: tensor<?x466x256xf16> {sc.lineage = #sc.lineage<candidate>},
                %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> tensor<?x433x256xf16> {
  %g1 = sc.gather_rows %u1[%idx] : tensor<?x600x256xf16>, tensor<?xi32> -> tensor<?x600x256xf16>
  %g2 = sc.gather_rows %u2[%idx] : tensor<?x578x256xf16>, tensor<?xi32> -> tensor<?x578x256xf16>
  %e = tensor.concat dim(1) %g1, %c1, %g2, %c2
      : (tensor<?x600x256xf16>, tensor<?x400x256xf16>, tensor<?x578x256xf16>, tensor<?x466x256xf16>) -> tensor<?x2044x256xf16>
  %out = sc.batch_matmul %w, %e : tensor<433x2044xf16>, tensor<?x2044x256xf16> -> tensor<?x433x256xf16>
  return %out : tensor<?x433x256xf16>
}
