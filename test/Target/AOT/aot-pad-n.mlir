// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %s -o %t --report 2>&1 | FileCheck %s --check-prefix=PADDED
// RUN: rm -rf %t.rows && sparcast-aot %s -o %t.rows --report --rows-by-threads 2>&1 | FileCheck %s
// RUN: rm -rf %t.rows80 && sparcast-aot %s -o %t.rows80 --sm=sm_80 --report --rows-by-threads 2>&1 | FileCheck %s --check-prefix=SM80

// An LCE whose N (250) is not a multiple of 8 stays on the tensor cores.
// With --rows-by-threads, without copies: each GEMM's producer threads
// copy B's boxes (rows of 500 bytes are no TMA stride; the candidates read
// unpadded, K's padding left to the copies' zero fill), its consumers
// store their pairs of C themselves, and the request part is read in
// place by the candidate GEMM's epilogue (not prefetched by TMA). Never
// the portable kernel.
// CHECK-NOT: padded N
// CHECK: epilogue operand #0 read in place: rows of other than a multiple of 16 bytes (TMA's stride)
// CHECK-NOT: portable
// CHECK: kernel lce250_gemm1: 433x250x1184 f16, {{.*}}B's boxes by its threads' cp.async{{.*}}stores of each thread's pairs (C's rows are no TMA stride)
// CHECK: padding of arg2 along K (866 -> 872) left to the kernel's zero fill
// CHECK-NOT: kernel lce250_copy{{.*}}arg2
// CHECK: kernel lce250_gemm3: 433x250x872 f16, {{.*}}B's boxes by its threads' cp.async{{.*}}stores of each thread's pairs
// CHECK-NOT: kernel lce250_copy

// sm_80 with --rows-by-threads: the multistage kernels copy B's rows in
// 4-byte pieces (their C stores are per thread anyway), no copies.
// SM80-NOT: padded N
// SM80: kernel lce250_gemm1: 433x250x1184 f16, multistage {{.*}}B N-major (copied in 4- or 8-byte pieces: its rows are no 16-byte multiple)
// SM80: padding of arg2 along K (866 -> 872) left to the kernel's zero fill
// SM80-NOT: kernel lce250_copy{{.*}}arg2
// SM80: kernel lce250_gemm3: 433x250x872 f16, multistage {{.*}}(copied in 4- or 8-byte pieces
// SM80-NOT: kernel lce250_copy

// By default: both GEMMs computed over 256 columns of zero-padded
// inputs, their results sliced back (the request GEMM's before the
// candidate GEMM's epilogue gathers it, the candidate GEMM's into the
// entry's result).
// PADDED: padded N 250 -> 256 (16-byte rows), the result sliced back
// PADDED-NOT: portable
// PADDED: kernel lce250_gemm2: {{.*}}; lowered from the kernel-level IR
// PADDED: kernel lce250_copy5: copy ws2 -> ws5 (?x433x250, zero outside the source box)
// PADDED: kernel lce250_gemm6: {{.*}}; lowered from the kernel-level IR
// PADDED: kernel lce250_copy7: copy ws6 -> result0 (?x433x250, zero outside the source box)
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
