// Attention kernels checked and timed on the H200 by bench/attention_check.py.
// Target attention (IKBO type II): Q [B_cand, H, n_seed, d], K/V [B_user, H, S, d]
// read through the candidate->user index.

func.func @ta_s500(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x500x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x500x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x500x128xf16>, tensor<?x2x500x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

func.func @ta_s512(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x512x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x512x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x512x128xf16>, tensor<?x2x512x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

func.func @ta_s1000(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x1000x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x1000x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x1000x128xf16>, tensor<?x2x1000x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

func.func @ta_s1024(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x1024x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x1024x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x1024x128xf16>, tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

func.func @ta_s2000(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x2000x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x2000x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x2000x128xf16>, tensor<?x2x2000x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

func.func @ta_s2048(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x2048x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x2048x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x2048x128xf16>, tensor<?x2x2048x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

func.func @ta_s4096(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x4096x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x4096x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x4096x128xf16>, tensor<?x2x4096x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

func.func @ta_h1_bf16(%q: tensor<?x1x64x128xbf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x1x1024x128xbf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x1x1024x128xbf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x1x64x128xbf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x1x64x128xbf16>, tensor<?x1x1024x128xbf16>, tensor<?x1x1024x128xbf16>, tensor<?xi32> -> tensor<?x1x64x128xbf16>
  return %o : tensor<?x1x64x128xbf16>
}

func.func @ta_h4_seed32(%q: tensor<?x4x32x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x4x512x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x4x512x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x32x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x4x32x128xf16>, tensor<?x4x512x128xf16>, tensor<?x4x512x128xf16>, tensor<?xi32> -> tensor<?x4x32x128xf16>
  return %o : tensor<?x4x32x128xf16>
}

func.func @ta_seed128_d64(%q: tensor<?x2x128x64xbf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x1000x64xbf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x1000x64xbf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x128x64xbf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x128x64xbf16>, tensor<?x2x1000x64xbf16>, tensor<?x2x1000x64xbf16>, tensor<?xi32> -> tensor<?x2x128x64xbf16>
  return %o : tensor<?x2x128x64xbf16>
}

func.func @ta_speed_s512(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x512x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x512x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x512x128xf16>, tensor<?x2x512x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

func.func @ta_speed_s2048(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x2048x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x2048x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x2048x128xf16>, tensor<?x2x2048x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

func.func @ta_speed_s4096(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x4096x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x4096x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x4096x128xf16>, tensor<?x2x4096x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

func.func @ta_speed_s8192(%q: tensor<?x2x64x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x8192x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x8192x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x64x128xf16>, tensor<?x2x8192x128xf16>, tensor<?x2x8192x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

// Self-attention with log-linear block masks: Q, K, V [B, H, N, d].
func.func @ll_n1024_b64(%q: tensor<2x2x1024x128xbf16>, %k: tensor<2x2x1024x128xbf16>, %v: tensor<2x2x1024x128xbf16>) -> tensor<2x2x1024x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64>) : tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16> -> tensor<2x2x1024x128xbf16>
  return %o : tensor<2x2x1024x128xbf16>
}

func.func @ll_n1024_b64_causal(%q: tensor<2x2x1024x128xbf16>, %k: tensor<2x2x1024x128xbf16>, %v: tensor<2x2x1024x128xbf16>) -> tensor<2x2x1024x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>) : tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16> -> tensor<2x2x1024x128xbf16>
  return %o : tensor<2x2x1024x128xbf16>
}

func.func @ll_n1024_b128(%q: tensor<2x2x1024x128xbf16>, %k: tensor<2x2x1024x128xbf16>, %v: tensor<2x2x1024x128xbf16>) -> tensor<2x2x1024x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>) : tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16> -> tensor<2x2x1024x128xbf16>
  return %o : tensor<2x2x1024x128xbf16>
}

func.func @ll_n1024_b128_causal(%q: tensor<2x2x1024x128xbf16>, %k: tensor<2x2x1024x128xbf16>, %v: tensor<2x2x1024x128xbf16>) -> tensor<2x2x1024x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128, causal = true>) : tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16>, tensor<2x2x1024x128xbf16> -> tensor<2x2x1024x128xbf16>
  return %o : tensor<2x2x1024x128xbf16>
}

func.func @ll_n4096_b64(%q: tensor<2x2x4096x128xbf16>, %k: tensor<2x2x4096x128xbf16>, %v: tensor<2x2x4096x128xbf16>) -> tensor<2x2x4096x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64>) : tensor<2x2x4096x128xbf16>, tensor<2x2x4096x128xbf16>, tensor<2x2x4096x128xbf16> -> tensor<2x2x4096x128xbf16>
  return %o : tensor<2x2x4096x128xbf16>
}

func.func @ll_n4096_b64_causal(%q: tensor<2x2x4096x128xbf16>, %k: tensor<2x2x4096x128xbf16>, %v: tensor<2x2x4096x128xbf16>) -> tensor<2x2x4096x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>) : tensor<2x2x4096x128xbf16>, tensor<2x2x4096x128xbf16>, tensor<2x2x4096x128xbf16> -> tensor<2x2x4096x128xbf16>
  return %o : tensor<2x2x4096x128xbf16>
}

func.func @ll_n4096_b128(%q: tensor<2x2x4096x128xbf16>, %k: tensor<2x2x4096x128xbf16>, %v: tensor<2x2x4096x128xbf16>) -> tensor<2x2x4096x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>) : tensor<2x2x4096x128xbf16>, tensor<2x2x4096x128xbf16>, tensor<2x2x4096x128xbf16> -> tensor<2x2x4096x128xbf16>
  return %o : tensor<2x2x4096x128xbf16>
}

func.func @ll_n4096_b128_causal(%q: tensor<2x2x4096x128xbf16>, %k: tensor<2x2x4096x128xbf16>, %v: tensor<2x2x4096x128xbf16>) -> tensor<2x2x4096x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128, causal = true>) : tensor<2x2x4096x128xbf16>, tensor<2x2x4096x128xbf16>, tensor<2x2x4096x128xbf16> -> tensor<2x2x4096x128xbf16>
  return %o : tensor<2x2x4096x128xbf16>
}

func.func @ll_n16384_b64_f16(%q: tensor<1x2x16384x128xf16>, %k: tensor<1x2x16384x128xf16>, %v: tensor<1x2x16384x128xf16>) -> tensor<1x2x16384x128xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64>) : tensor<1x2x16384x128xf16>, tensor<1x2x16384x128xf16>, tensor<1x2x16384x128xf16> -> tensor<1x2x16384x128xf16>
  return %o : tensor<1x2x16384x128xf16>
}

func.func @ll_n16384_b64_causal_f16(%q: tensor<1x2x16384x128xf16>, %k: tensor<1x2x16384x128xf16>, %v: tensor<1x2x16384x128xf16>) -> tensor<1x2x16384x128xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>) : tensor<1x2x16384x128xf16>, tensor<1x2x16384x128xf16>, tensor<1x2x16384x128xf16> -> tensor<1x2x16384x128xf16>
  return %o : tensor<1x2x16384x128xf16>
}

func.func @ll_n16384_b128_causal_f16(%q: tensor<1x2x16384x128xf16>, %k: tensor<1x2x16384x128xf16>, %v: tensor<1x2x16384x128xf16>) -> tensor<1x2x16384x128xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128, causal = true>) : tensor<1x2x16384x128xf16>, tensor<1x2x16384x128xf16>, tensor<1x2x16384x128xf16> -> tensor<1x2x16384x128xf16>
  return %o : tensor<1x2x16384x128xf16>
}

func.func @ll_n1000_b128_f16(%q: tensor<2x2x1000x128xf16>, %k: tensor<2x2x1000x128xf16>, %v: tensor<2x2x1000x128xf16>) -> tensor<2x2x1000x128xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>) : tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16> -> tensor<2x2x1000x128xf16>
  return %o : tensor<2x2x1000x128xf16>
}

func.func @ll_n1000_b64_causal_f16(%q: tensor<2x2x1000x128xf16>, %k: tensor<2x2x1000x128xf16>, %v: tensor<2x2x1000x128xf16>) -> tensor<2x2x1000x128xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>) : tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16>, tensor<2x2x1000x128xf16> -> tensor<2x2x1000x128xf16>
  return %o : tensor<2x2x1000x128xf16>
}

func.func @ll_n16384_b128_f16_d64(%q: tensor<1x2x16384x64xf16>, %k: tensor<1x2x16384x64xf16>, %v: tensor<1x2x16384x64xf16>) -> tensor<1x2x16384x64xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>) : tensor<1x2x16384x64xf16>, tensor<1x2x16384x64xf16>, tensor<1x2x16384x64xf16> -> tensor<1x2x16384x64xf16>
  return %o : tensor<1x2x16384x64xf16>
}

func.func @ll_speed_n4096(%q: tensor<4x16x4096x128xbf16>, %k: tensor<4x16x4096x128xbf16>, %v: tensor<4x16x4096x128xbf16>) -> tensor<4x16x4096x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>) : tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16>, tensor<4x16x4096x128xbf16> -> tensor<4x16x4096x128xbf16>
  return %o : tensor<4x16x4096x128xbf16>
}


func.func @ll_speed_n16384_b64(%q: tensor<4x16x16384x128xbf16>, %k: tensor<4x16x16384x128xbf16>, %v: tensor<4x16x16384x128xbf16>) -> tensor<4x16x16384x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64>) : tensor<4x16x16384x128xbf16>, tensor<4x16x16384x128xbf16>, tensor<4x16x16384x128xbf16> -> tensor<4x16x16384x128xbf16>
  return %o : tensor<4x16x16384x128xbf16>
}

func.func @ll_speed_n65536(%q: tensor<4x16x65536x128xbf16>, %k: tensor<4x16x65536x128xbf16>, %v: tensor<4x16x65536x128xbf16>) -> tensor<4x16x65536x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>) : tensor<4x16x65536x128xbf16>, tensor<4x16x65536x128xbf16>, tensor<4x16x65536x128xbf16> -> tensor<4x16x65536x128xbf16>
  return %o : tensor<4x16x65536x128xbf16>
}

// Dynamic lengths: L and S are read at launch (any L, any S).
func.func @ta_dyn(%q: tensor<?x2x?x128xf16> {sc.lineage = #sc.lineage<candidate>}, %k: tensor<?x2x?x128xf16> {sc.lineage = #sc.lineage<request>}, %v: tensor<?x2x?x128xf16> {sc.lineage = #sc.lineage<request>}, %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x2x?x128xf16> {
  %o = sc.attention %q, %k, %v index %idx : tensor<?x2x?x128xf16>, tensor<?x2x?x128xf16>, tensor<?x2x?x128xf16>, tensor<?xi32> -> tensor<?x2x?x128xf16>
  return %o : tensor<?x2x?x128xf16>
}

func.func @self_dyn_d64(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x4x?x64xbf16>, %v: tensor<?x4x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %o = sc.attention %q, %k, %v : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// Log-linear masks over dynamic lengths: the runtime builds the tables.
func.func @ll_dyn(%q: tensor<?x2x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>) -> tensor<?x2x?x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128>) : tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x2x?x128xbf16>
  return %o : tensor<?x2x?x128xbf16>
}

func.func @ll_dyn_b64_causal(%q: tensor<?x2x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>) -> tensor<?x2x?x64xf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 64, causal = true>) : tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x2x?x64xf16>
  return %o : tensor<?x2x?x64xf16>
}

// Self-attention of the user history alone (the fused example's self part).
func.func @self_s1024(%q: tensor<?x2x1024x128xf16>, %k: tensor<?x2x1024x128xf16>, %v: tensor<?x2x1024x128xf16>) -> tensor<?x2x1024x128xf16> {
  %o = sc.attention %q, %k, %v : tensor<?x2x1024x128xf16>, tensor<?x2x1024x128xf16>, tensor<?x2x1024x128xf16> -> tensor<?x2x1024x128xf16>
  return %o : tensor<?x2x1024x128xf16>
}
