// RUN: sparcast-opt %s -sc-select-kernel-config=chip=sm_86 -sc-lower-to-sck -sc-pipeline-multistage=stages=4 -sc-test-gemm-kernel=chip=sm_86 -verify-diagnostics
// RUN: sparcast-opt %s -sc-select-kernel-config=chip=sm_80 -sc-lower-to-sck -sc-pipeline-multistage=stages=4 -sc-test-gemm-kernel=chip=sm_80 -o /dev/null

// A ring of 4 slots of 128 x 32 and 32 x 256 boxes (rows padded by 16
// bytes: 4 x (10240 + 16896) = 108544 bytes) fits sm_80's 163 KB a CTA,
// not sm_86's 99 KB: a located error there, never a kernel that fails to
// launch.
func.func @wide(%a: tensor<?x200x72xf16>, %b: tensor<?x72x256xf16>) -> tensor<?x200x256xf16> {
  // expected-error @below {{multistage-gemm-kernel: the ring needs 108544 bytes of shared memory, more than sm_86's 101376 a CTA (fewer stages, or 128-column tiles)}}
  %c = sc.batch_matmul %a, %b : tensor<?x200x72xf16>, tensor<?x72x256xf16> -> tensor<?x200x256xf16>
  return %c : tensor<?x200x256xf16>
}
