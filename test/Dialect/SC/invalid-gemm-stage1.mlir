// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

// sc.gemm_stage1 (sc-fuse-gemm-stages) is checked: the GEMM's result must
// be read by another GEMM's epilogue only, at [g(b), m, n].

func.func @not_a_gemm(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'sc.gemm_stage1' is a unit attribute of sc.batch_matmul}}
  %b = arith.addf %a, %a {sc.gemm_stage1} : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

func.func @returned(%w: tensor<64x64xf16>, %e: tensor<?x64x128xf16>) -> tensor<?x64x128xf32> {
  // expected-error @+1 {{'sc.gemm_stage1': this GEMM cannot run as stage 1 of its consumer's kernel: its result is not read by one other sc.batch_matmul's epilogue only}}
  %u = sc.batch_matmul %w, %e {sc.gemm_stage1} : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf32>
  return %u : tensor<?x64x128xf32>
}

// -----

func.func @transposed_read(%w: tensor<64x64xf16>, %eu: tensor<?x64x64xf16>, %ec: tensor<?x64x64xf16>)
    -> tensor<?x64x64xf16> {
  // expected-error @+1 {{'sc.gemm_stage1': this GEMM cannot run as stage 1 of its consumer's kernel: the epilogue reads the first GEMM's result other than at [g(b), m, n]}}
  %u = sc.batch_matmul %w, %eu {sc.gemm_stage1} : tensor<64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf32>
  %c = sc.batch_matmul %w, %ec epilogue_ins(%u : tensor<?x64x64xf32>)
      : tensor<64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %ut: tensor<?x64x64xf32>):
    %x = tensor.extract %ut[%b, %n, %m] : tensor<?x64x64xf32>
    %s = arith.addf %acc, %x : f32
    %t = arith.truncf %s : f32 to f16
    sc.yield %t : f16
  }
  return %c : tensor<?x64x64xf16>
}
