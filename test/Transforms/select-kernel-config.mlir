// RUN: sparcast-opt %s -split-input-file -sc-select-kernel-config="report=true" -verify-diagnostics | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-select-kernel-config="schedule=cooperative" | FileCheck %s --check-prefix=FORCED
// RUN: not sparcast-opt %s -split-input-file -sc-select-kernel-config="schedule=fastest" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not sparcast-opt %s -split-input-file -sc-select-kernel-config="pairs-min-keys=0" 2>&1 | FileCheck %s --check-prefix=BADKEYS
// RUN: sparcast-opt %s -split-input-file -sc-select-kernel-config="chain-heads=false group-candidates=true p-in-f16=true pairs-min-keys=512" | FileCheck %s --check-prefix=OPTIONS

// Each GEMM records its schedule. Short K: ping-pong; long K: cooperative;
// an epilogue that reads other tensors: ping-pong; a pinned one is kept.
// CHECK-LABEL: func.func @choices
// CHECK: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<pingpong>}
// CHECK: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<cooperative>}
// CHECK: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<pingpong>}
// FORCED-COUNT-3: sc.gemm_schedule = #sc.gemm_schedule<cooperative>
// BAD: error: sc-select-kernel-config: unknown GEMM schedule 'fastest', expected auto, cooperative, pingpong or transposed
// BADKEYS: error: sc-select-kernel-config: pairs-min-keys must lie in [1, 2^31], got 0
func.func @choices(%a: tensor<?x64x872xf16>, %b: tensor<?x872x256xf16>,
                   %c: tensor<?x64x8192xf16>, %d: tensor<?x8192x256xf16>)
    -> (tensor<?x64x256xf16>, tensor<?x64x256xf16>, tensor<?x64x256xf16>) {
  // expected-remark @+1 {{GEMM schedule pingpong (K = 872 < 4096: the epilogue is a large share of each tile, ping-pong hides it)}}
  %0 = sc.batch_matmul %a, %b : tensor<?x64x872xf16>, tensor<?x872x256xf16> -> tensor<?x64x256xf16>
  // expected-remark @+1 {{GEMM schedule cooperative (K = 8192 >= 4096: bound by L2 bandwidth, the cooperative 128x256 tile reads less per flop)}}
  %1 = sc.batch_matmul %c, %d : tensor<?x64x8192xf16>, tensor<?x8192x256xf16> -> tensor<?x64x256xf16>
  // expected-remark @+1 {{GEMM schedule pingpong (pinned on the op)}}
  %2 = sc.batch_matmul %c, %d {sc.gemm_schedule = #sc.gemm_schedule<pingpong>} : tensor<?x64x8192xf16>, tensor<?x8192x256xf16> -> tensor<?x64x256xf16>
  return %0, %1, %2 : tensor<?x64x256xf16>, tensor<?x64x256xf16>, tensor<?x64x256xf16>
}

// -----

// CHECK-LABEL: func.func @gather_add
// CHECK: sc.gemm_schedule = #sc.gemm_schedule<pingpong>
func.func @gather_add(%w: tensor<64x8192xf16>, %e: tensor<?x8192x256xf16>,
                      %u: tensor<?x64x256xf32>, %i: tensor<?xi32>) -> tensor<?x64x256xf16> {
  // expected-remark @+1 {{GEMM schedule pingpong (the epilogue reads other tensors: ping-pong runs those loads under the other consumer's wgmma)}}
  %c = sc.batch_matmul %w, %e epilogue_ins(%u, %i : tensor<?x64x256xf32>, tensor<?xi32>)
      : tensor<64x8192xf16>, tensor<?x8192x256xf16> -> tensor<?x64x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %ut: tensor<?x64x256xf32>, %it: tensor<?xi32>):
    %r = tensor.extract %it[%b] : tensor<?xi32>
    %ri = arith.index_cast %r : i32 to index
    %x = tensor.extract %ut[%ri, %m, %n] : tensor<?x64x256xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x64x256xf16>
}

// -----

// x @ w^T (a batched lhs, a shared rhs, a bias in the epilogue): every tile
// reads the shared rhs, cooperative tiles read it half as often.
// CHECK-LABEL: func.func @linear
// CHECK: sc.gemm_schedule = #sc.gemm_schedule<cooperative>
func.func @linear(%x: tensor<?x433x872xf16>, %w: tensor<256x872xf16>,
                  %bias: tensor<256xf32>) -> tensor<?x433x256xf16> {
  // expected-remark @+1 {{GEMM schedule cooperative (a shared rhs (x @ w): every tile reads all of it at once, cooperative's 128-row tiles read it half as often (H200, 1024 x 433 rows x 256 x 872: 0.59 vs 0.90 ms ping-pong))}}
  %y = sc.batch_matmul %x, %w epilogue_ins(%bias : tensor<256xf32>) {transpose_rhs}
      : tensor<?x433x872xf16>, tensor<256x872xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %bt: tensor<256xf32>):
    %v = tensor.extract %bt[%n] : tensor<256xf32>
    %s = arith.addf %acc, %v : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %y : tensor<?x433x256xf16>
}

// -----

// x @ w^T + r (a batched lhs, a shared rhs, a batched residual in the
// epilogue): the shared rhs decides, cooperative as without the residual.
// CHECK-LABEL: func.func @linear_residual
// CHECK: sc.gemm_schedule = #sc.gemm_schedule<cooperative>
func.func @linear_residual(%x: tensor<?x433x872xf16>, %w: tensor<256x872xf16>,
                           %r: tensor<?x433x256xf16>) -> tensor<?x433x256xf16> {
  // expected-remark @+1 {{GEMM schedule cooperative (a shared rhs (x @ w)}}
  %y = sc.batch_matmul %x, %w epilogue_ins(%r : tensor<?x433x256xf16>) {transpose_rhs}
      : tensor<?x433x872xf16>, tensor<256x872xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %rt: tensor<?x433x256xf16>):
    %v = tensor.extract %rt[%b, %m, %n] : tensor<?x433x256xf16>
    %vf = arith.extf %v : f16 to f32
    %s = arith.addf %acc, %vf : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %y : tensor<?x433x256xf16>
}

// -----

// Attention: an indexed target attention over at most 1024 static keys and
// two heads chains its heads (one consumer a candidate, 64-key blocks);
// over longer keys two candidates of one request share a CTA (128-key
// blocks); an unindexed attention of 256 query rows splits 128-row tiles
// between two consumers; a block mask gives its block size. A pinned
// configuration is kept. The options: no chained heads (a grid walk
// instead), pairs from 512 keys, the request-order walk where there is one
// to order, P in f16 for bf16 only.
// CHECK-LABEL: func.func @attention
// CHECK: sc.attention_config = #sc.attention_config<walk = chained, consumers = 1, key_block = 64, group_candidates = false, p_in_f16 = false>
// CHECK: sc.attention_config = #sc.attention_config<walk = pairs, consumers = 2, key_block = 128, group_candidates = false, p_in_f16 = false>
// CHECK: sc.attention_config = #sc.attention_config<walk = grid, consumers = 2, key_block = 128, group_candidates = false, p_in_f16 = false>
// CHECK: sc.attention_config = #sc.attention_config<walk = grid, consumers = 1, key_block = 64, group_candidates = false, p_in_f16 = false>
// CHECK: sc.attention_config = #sc.attention_config<walk = grid, consumers = 1, key_block = 64, group_candidates = false, p_in_f16 = true>
// OPTIONS-LABEL: func.func @attention
// OPTIONS: #sc.attention_config<walk = pairs, consumers = 2, key_block = 128, group_candidates = true, p_in_f16 = false>
// OPTIONS: #sc.attention_config<walk = pairs, consumers = 2, key_block = 128, group_candidates = true, p_in_f16 = false>
// OPTIONS: #sc.attention_config<walk = grid, consumers = 2, key_block = 128, group_candidates = false, p_in_f16 = true>
// OPTIONS: #sc.attention_config<walk = grid, consumers = 1, key_block = 64, group_candidates = false, p_in_f16 = false>
// OPTIONS: #sc.attention_config<walk = grid, consumers = 1, key_block = 64, group_candidates = false, p_in_f16 = true>
func.func @attention(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x1024x128xf16>,
                     %kl: tensor<?x2x2048x128xf16>, %idx: tensor<?xi32>,
                     %s: tensor<1x2x256x64xbf16>, %m: tensor<1x2x256x64xf16>)
    -> (tensor<?x2x64x128xf16>, tensor<?x2x64x128xf16>, tensor<1x2x256x64xbf16>,
        tensor<1x2x256x64xf16>, tensor<1x2x256x64xbf16>) {
  // expected-remark @+1 {{attention kernel #sc.attention_config<walk = chained, consumers = 1, key_block = 64, group_candidates = false, p_in_f16 = false>}}
  %0 = sc.attention %q, %k, %k index %idx : tensor<?x2x64x128xf16>, tensor<?x2x1024x128xf16>, tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  // expected-remark @+1 {{attention kernel #sc.attention_config<walk = pairs}}
  %1 = sc.attention %q, %kl, %kl index %idx : tensor<?x2x64x128xf16>, tensor<?x2x2048x128xf16>, tensor<?x2x2048x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  // expected-remark @+1 {{attention kernel #sc.attention_config<walk = grid, consumers = 2, key_block = 128}}
  %2 = sc.attention %s, %s, %s : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  // expected-remark @+1 {{attention kernel #sc.attention_config<walk = grid, consumers = 1, key_block = 64}}
  %3 = sc.attention %m, %m, %m mask(#sc.log_linear<block_size = 64>) : tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16> -> tensor<1x2x256x64xf16>
  // expected-remark @+1 {{(pinned on the op)}}
  %4 = sc.attention %s, %s, %s {sc.attention_config = #sc.attention_config<walk = grid, consumers = 1, key_block = 64, group_candidates = false, p_in_f16 = true>} : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16>
  return %0, %1, %2, %3, %4 : tensor<?x2x64x128xf16>, tensor<?x2x64x128xf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xbf16>
}
