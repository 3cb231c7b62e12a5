// Cases the TMA/wgmma path does not take on sm_90a; they run on the
// portable kernel (checked by bench/gemm_check.py).

// B laid out [batch, N, K].
func.func @transposed_f16(%a: tensor<?x70x40xf16>, %b: tensor<?x50x40xf16>) -> tensor<?x70x50xf32> {
  %c = sc.batch_matmul %a, %b {transpose_rhs} : tensor<?x70x40xf16>, tensor<?x50x40xf16> -> tensor<?x70x50xf32>
  return %c : tensor<?x70x50xf32>
}

// K not a multiple of 8.
func.func @unaligned_k_bf16(%a: tensor<33x13xbf16>, %b: tensor<?x13x24xbf16>) -> tensor<?x33x24xf32> {
  %c = sc.batch_matmul %a, %b : tensor<33x13xbf16>, tensor<?x13x24xbf16> -> tensor<?x33x24xf32>
  return %c : tensor<?x33x24xf32>
}

// f32 operands.
func.func @f32_operands(%a: tensor<?x17x9xf32>, %b: tensor<9x11xf32>) -> tensor<?x17x11xf32> {
  %c = sc.batch_matmul %a, %b : tensor<?x17x9xf32>, tensor<9x11xf32> -> tensor<?x17x11xf32>
  return %c : tensor<?x17x11xf32>
}
