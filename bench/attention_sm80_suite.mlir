// Log-linear attention for the sm_80 / sm_86 / sm_89 kernel, checked by
// bench/attention_sm80_check.py: 64- and 128-token mask blocks (a
// 128-token block is two 64-key blocks there), a partial last block, and
// dynamic lengths (the runtime builds the tables at launch).

func.func @ll_n1024_b64_causal(%q: tensor<2x2x1024x128xbf16>, %k: tensor<2x2x1024x128xbf16>, %v: tensor<2x2x1024x128xbf16>) -> tensor<2x2x1024x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>) : tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16> -> tensor<2x2x1024x128xbf16>
  return %o : tensor<2x2x1024x128xbf16>
}

func.func @ll_n1024_b128_causal(%q: tensor<2x2x1024x128xbf16>, %k: tensor<2x2x1024x128xbf16>, %v: tensor<2x2x1024x128xbf16>) -> tensor<2x2x1024x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128, causal = true>) : tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16> -> tensor<2x2x1024x128xbf16>
  return %o : tensor<2x2x1024x128xbf16>
}

func.func @ll_n1000_b128_f16(%q: tensor<2x2x1000x128xf16>, %k: tensor<2x2x1000x128xf16>, %v: tensor<2x2x1000x128xf16>) -> tensor<2x2x1000x128xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>) : tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16> -> tensor<2x2x1000x128xf16>
  return %o : tensor<2x2x1000x128xf16>
}

func.func @ll_dyn(%q: tensor<?x2x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>) -> tensor<?x2x?x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>) : tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x2x?x128xbf16>
  return %o : tensor<?x2x?x128xbf16>
}
