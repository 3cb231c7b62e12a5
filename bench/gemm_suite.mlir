// GEMM kernels checked and timed on the H200 by bench/gemm_check.py.

// The LCE shape with a shared weight (peer: torch.matmul broadcasting W).
func.func @shared_w_f16(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>) -> tensor<?x433x256xf16> {
  %c = sc.batch_matmul %w, %e : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16>
  return %c : tensor<?x433x256xf16>
}

// Fully batched operands (peer: torch.bmm).
func.func @bmm_f16(%a: tensor<?x433x872xf16>, %b: tensor<?x872x256xf16>) -> tensor<?x433x256xf16> {
  %c = sc.batch_matmul %a, %b : tensor<?x433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16>
  return %c : tensor<?x433x256xf16>
}

// The large square GEMM (peer: torch.matmul / cuBLAS), batch of one.
func.func @square_bf16(%a: tensor<8192x8192xbf16>, %b: tensor<?x8192x8192xbf16>) -> tensor<?x8192x8192xbf16> {
  %c = sc.batch_matmul %a, %b : tensor<8192x8192xbf16>, tensor<?x8192x8192xbf16> -> tensor<?x8192x8192xbf16>
  return %c : tensor<?x8192x8192xbf16>
}

// Odd sizes: no dim a multiple of its tile; bias + relu epilogue, f32 out.
func.func @odd_bias_relu_f16(%a: tensor<?x200x72xf16>, %b: tensor<?x72x136xf16>, %bias: tensor<136xf32>) -> tensor<?x200x136xf32> {
  %c = sc.batch_matmul %a, %b epilogue_ins(%bias : tensor<136xf32>)
      : tensor<?x200x72xf16>, tensor<?x72x136xf16> -> tensor<?x200x136xf32> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %bs: tensor<136xf32>):
    %x = tensor.extract %bs[%n] : tensor<136xf32>
    %s = arith.addf %acc, %x : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    sc.yield %r : f32
  }
  return %c : tensor<?x200x136xf32>
}

// Odd sizes in bf16 with a shared lhs and a scale epilogue.
func.func @odd_scale_bf16(%a: tensor<333x40xbf16>, %b: tensor<?x40x264xbf16>) -> tensor<?x333x264xbf16> {
  %c = sc.batch_matmul %a, %b : tensor<333x40xbf16>, tensor<?x40x264xbf16> -> tensor<?x333x264xbf16> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index):
    %half = arith.constant 0.5 : f32
    %s = arith.mulf %acc, %half : f32
    %h = arith.truncf %s : f32 to bf16
    sc.yield %h : bf16
  }
  return %c : tensor<?x333x264xbf16>
}

// Activations in the epilogue: gelu (tanh form) + silu, f16 out.
func.func @gelu_silu_f16(%a: tensor<?x96x64xf16>, %b: tensor<?x64x136xf16>) -> tensor<?x96x136xf16> {
  %c = sc.batch_matmul %a, %b : tensor<?x96x64xf16>, tensor<?x64x136xf16> -> tensor<?x96x136xf16> {
  ^bb0(%x: f32, %i: index, %m: index, %n: index):
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %k0 = arith.constant 0.797884583 : f32
    %k1 = arith.constant 0.044715 : f32
    %x2 = arith.mulf %x, %x : f32
    %x3 = arith.mulf %x2, %x : f32
    %p = arith.mulf %k1, %x3 : f32
    %q = arith.addf %x, %p : f32
    %r = arith.mulf %k0, %q : f32
    %t = math.tanh %r : f32
    %u = arith.addf %one, %t : f32
    %hx = arith.mulf %half, %x : f32
    %gelu = arith.mulf %hx, %u : f32
    %nx = arith.negf %x : f32
    %e = math.exp %nx : f32
    %d = arith.addf %one, %e : f32
    %silu = arith.divf %x, %d : f32
    %s = arith.addf %gelu, %silu : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x96x136xf16>
}

// A transposed rhs [B, N, K] on the TMA path; K = 136 and N = 264 are not
// multiples of the tile (wide tile, second N tile partial).
func.func @transposed_bf16(%a: tensor<?x200x136xbf16>, %b: tensor<?x264x136xbf16>) -> tensor<?x200x264xf32> {
  %c = sc.batch_matmul %a, %b {transpose_rhs} : tensor<?x200x136xbf16>, tensor<?x264x136xbf16> -> tensor<?x200x264xf32>
  return %c : tensor<?x200x264xf32>
}

// A transposed shared weight (E @ W^T), narrow tile.
func.func @transposed_shared_f16(%e: tensor<?x70x40xf16>, %w: tensor<48x40xf16>) -> tensor<?x70x48xf16> {
  %c = sc.batch_matmul %e, %w {transpose_rhs} : tensor<?x70x40xf16>, tensor<48x40xf16> -> tensor<?x70x48xf16>
  return %c : tensor<?x70x48xf16>
}

// nn.Linear as models write it: activations [B, M, K] times a weight
// [N, K] transposed (peer: torch.matmul(x, w.t())).
func.func @linear_f16(%x: tensor<?x433x872xf16>, %w: tensor<256x872xf16>) -> tensor<?x433x256xf16> {
  %c = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x433x872xf16>, tensor<256x872xf16> -> tensor<?x433x256xf16>
  return %c : tensor<?x433x256xf16>
}

// nn.Linear with a residual added in the epilogue: a batched epilogue
// operand, so the default schedule is ping-pong (peer: torch.matmul(x,
// w.t()) + r).
func.func @linear_residual_f16(%x: tensor<?x433x872xf16>, %w: tensor<256x872xf16>, %r: tensor<?x433x256xf16>) -> tensor<?x433x256xf16> {
  %c = sc.batch_matmul %x, %w epilogue_ins(%r : tensor<?x433x256xf16>) {transpose_rhs}
      : tensor<?x433x872xf16>, tensor<256x872xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %res: tensor<?x433x256xf16>):
    %x0 = tensor.extract %res[%b, %m, %n] : tensor<?x433x256xf16>
    %xf = arith.extf %x0 : f16 to f32
    %s = arith.addf %acc, %xf : f32
    %o = arith.truncf %s : f32 to f16
    sc.yield %o : f16
  }
  return %c : tensor<?x433x256xf16>
}

// The IKBO gather-add with the request GEMM's result in f16: the kernels
// load its tile [idx[b], rows, cols] by TMA during the tile's wgmma
// (peer: torch.matmul + gather + add).
func.func @gather_add_f16_user(
    %w: tensor<433x872xf16> {sc.lineage = #sc.lineage<shared>},
    %e: tensor<?x872x256xf16> {sc.lineage = #sc.lineage<candidate>},
    %user: tensor<?x433x256xf16> {sc.lineage = #sc.lineage<request>},
    %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x433x256xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x433x256xf16>, tensor<?xi32>)
      : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x433x256xf16>, %i: tensor<?xi32>):
    %r = tensor.extract %i[%b] : tensor<?xi32>
    %ri = arith.index_cast %r : i32 to index
    %x = tensor.extract %u[%ri, %m, %n] : tensor<?x433x256xf16>
    %xf = arith.extf %x : f16 to f32
    %s = arith.addf %acc, %xf : f32
    %o = arith.truncf %s : f32 to f16
    sc.yield %o : f16
  }
  return %c : tensor<?x433x256xf16>
}

// A tower layer over candidate rows (x @ w^T + bias, ReLU): its tiles
// depend on the batch, and where they leave SMs idle the kernel runs each
// tile's K in parts (split-K, the count chosen in the kernel).
func.func @tower_bf16(%x: tensor<?x1x4096xbf16>, %w: tensor<1024x4096xbf16>, %bias: tensor<1024xf32>) -> tensor<?x1x1024xbf16> {
  %c = sc.batch_matmul %x, %w epilogue_ins(%bias : tensor<1024xf32>) {transpose_rhs}
      : tensor<?x1x4096xbf16>, tensor<1024x4096xbf16> -> tensor<?x1x1024xbf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bs: tensor<1024xf32>):
    %v = tensor.extract %bs[%n] : tensor<1024xf32>
    %s = arith.addf %acc, %v : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    sc.yield %t : bf16
  }
  return %c : tensor<?x1x1024xbf16>
}

// Odd K: W's rows padded by a copy, E's rows past K left to the kernel's
// zero fill (TMA's on sm_90a, the cp.async copies' on sm_80), E unpadded.
func.func @odd_k_f16(%w: tensor<100x77xf16>, %e: tensor<?x77x256xf16>) -> tensor<?x100x256xf16> {
  %c = sc.batch_matmul %w, %e : tensor<100x77xf16>, tensor<?x77x256xf16> -> tensor<?x100x256xf16>
  return %c : tensor<?x100x256xf16>
}

// Rows that are no TMA stride (N even, not a multiple of 8): on sm_90a the
// producer's threads copy B's boxes and the consumers store C's pairs
// themselves, nothing padded. 250 columns (4-byte pieces), a batched rhs.
func.func @unaligned_n_f16(%w: tensor<128x200xf16>, %e: tensor<?x200x250xf16>) -> tensor<?x128x250xf16> {
  %c = sc.batch_matmul %w, %e : tensor<128x200xf16>, tensor<?x200x250xf16> -> tensor<?x128x250xf16>
  return %c : tensor<?x128x250xf16>
}

// 252 columns (8-byte pieces), odd K (the rhs's padding along K left to
// the copies' zero fill), bias epilogue, bf16 out.
func.func @unaligned_odd_k_bias_bf16(%w: tensor<100x77xbf16>, %e: tensor<?x77x252xbf16>, %bias: tensor<252xf32>) -> tensor<?x100x252xbf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%bias : tensor<252xf32>)
      : tensor<100x77xbf16>, tensor<?x77x252xbf16> -> tensor<?x100x252xbf16> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %bs: tensor<252xf32>):
    %x = tensor.extract %bs[%n] : tensor<252xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to bf16
    sc.yield %h : bf16
  }
  return %c : tensor<?x100x252xbf16>
}

// x @ w^T with 250 output features: B read by TMA (rows of K), C stored
// directly, rows of all batch elements as one matrix.
func.func @linear_unaligned_bf16(%x: tensor<?x300x64xbf16>, %w: tensor<250x64xbf16>) -> tensor<?x300x250xbf16> {
  %c = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x300x64xbf16>, tensor<250x64xbf16> -> tensor<?x300x250xbf16>
  return %c : tensor<?x300x250xbf16>
}

// x @ w with a shared [K, 250] weight: its boxes copied by threads.
func.func @shared_rhs_unaligned_f16(%x: tensor<?x70x64xf16>, %w: tensor<64x250xf16>) -> tensor<?x70x250xf16> {
  %c = sc.batch_matmul %x, %w : tensor<?x70x64xf16>, tensor<64x250xf16> -> tensor<?x70x250xf16>
  return %c : tensor<?x70x250xf16>
}
