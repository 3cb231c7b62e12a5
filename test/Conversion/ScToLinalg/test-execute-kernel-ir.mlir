// RUN: sparcast-opt %s -split-input-file -sc-test-execute-kernel-ir -verify-diagnostics

// The CPU runner of the kernel-level IR (its proofs by execution are in
// test/Integration/CPU/kernel-ir.mlir): what it does not run is said, at
// the kernel.

// Kernel arguments: (batch, the epilogue's tensors...).
func.func @arguments(%w: tensor<64x64xf16>, %e: tensor<?x64x256xf16>, %x: tensor<?x64x256xf32>) -> tensor<?x64x256xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%x : tensor<?x64x256xf32>) {sc.kernel_ir = @arguments_kernel} : tensor<64x64xf16>, tensor<?x64x256xf16> -> tensor<?x64x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %r: tensor<?x64x256xf32>):
    %t = arith.truncf %acc : f32 to f16
    sc.yield %t : f16
  }
  return %c : tensor<?x64x256xf16>
}
// expected-error @below {{the CPU runner takes (batch, epilogue tensors...)}}
func.func private @arguments_kernel(%batch: index, %batch1: index, %x: tensor<?x64x256xf32>) {
  return
}

// -----

// Operands A and B only.
func.func @other_operand(%w: tensor<64x64xf16>, %e: tensor<?x64x256xf16>) -> tensor<?x64x256xf16> {
  %c = sc.batch_matmul %w, %e {sc.kernel_ir = @other_operand_kernel} : tensor<64x64xf16>, tensor<?x64x256xf16> -> tensor<?x64x256xf16>
  return %c : tensor<?x64x256xf16>
}
func.func private @other_operand_kernel(%batch: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%b: index, %mt: index, %nt: index):
    // expected-error @below {{the CPU runner knows operands A and B (Q, K and V of an attention), got 'X'}}
    %a = sck.load "X"[%c0, %c0] : !sck.box<64x64xf16>
  }
  return
}

// -----

func.func @no_kernel(%w: tensor<64x64xf16>, %e: tensor<?x64x256xf16>) -> tensor<?x64x256xf16> {
  // expected-error @below {{no kernel-level function @missing}}
  %c = sc.batch_matmul %w, %e {sc.kernel_ir = @missing} : tensor<64x64xf16>, tensor<?x64x256xf16> -> tensor<?x64x256xf16>
  return %c : tensor<?x64x256xf16>
}

// -----

// An attention kernel takes (batch(, index)(, dynamic lengths)(, mask
// tables)); its result is "O".
func.func @attention_arguments(%q: tensor<?x1x64x64xf16>, %k: tensor<?x1x64x64xf16>, %v: tensor<?x1x64x64xf16>) -> tensor<?x1x64x64xf16> {
  %o = sc.attention %q, %k, %v {sc.kernel_ir = @attention_two_args} : tensor<?x1x64x64xf16>, tensor<?x1x64x64xf16>, tensor<?x1x64x64xf16> -> tensor<?x1x64x64xf16>
  return %o : tensor<?x1x64x64xf16>
}
// expected-error @below {{the CPU runner takes an attention kernel's (batch(, index(, pairs)(, order))(, dynamic lengths)(, mask tables))}}
func.func private @attention_two_args(%batch: index, %extra: index) {
  return
}

// -----

func.func @attention_result(%q: tensor<?x1x64x64xf16>, %k: tensor<?x1x64x64xf16>, %v: tensor<?x1x64x64xf16>) -> tensor<?x1x64x64xf16> {
  %o = sc.attention %q, %k, %v {sc.kernel_ir = @attention_to_c} : tensor<?x1x64x64xf16>, tensor<?x1x64x64xf16>, tensor<?x1x64x64xf16> -> tensor<?x1x64x64xf16>
  return %o : tensor<?x1x64x64xf16>
}
func.func private @attention_to_c(%batch: index) {
  %c0 = arith.constant 0 : index
  %z = sck.zero : !sck.acc<64x64xf32>
  // expected-error @below {{the CPU runner knows result C (O of an attention), got 'C'}}
  sck.epilogue "C"[%c0, %c0, %c0, %c0], %z : !sck.acc<64x64xf32>
  return
}
