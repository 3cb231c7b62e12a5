// RUN: sparcast-opt %s -split-input-file -sc-select-kernel-config -sc-fuse-gemm-stages="report=true" -verify-diagnostics | FileCheck %s

// IKBO's user GEMM under the candidate GEMM's gather-add: the user GEMM
// runs as stage 1 of the candidate GEMM's kernel.
// CHECK-LABEL: func.func @gather_add
// CHECK: sc.batch_matmul {{.*}} {sc.gemm_schedule = #sc.gemm_schedule<pingpong>, sc.gemm_stage1}
// CHECK: sc.batch_matmul {{.*}} epilogue_ins
// CHECK-NOT: sc.gemm_stage1
func.func @gather_add(%w: tensor<64x64xf16>, %eu: tensor<?x64x128xf16>, %ec: tensor<?x64x128xf16>,
                      %idx: tensor<?xi32>) -> tensor<?x64x128xf16> {
  %u = sc.batch_matmul %w, %eu : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf32>
  // expected-remark @+1 {{GEMM stages fused: the GEMM at fuse-gemm-stages.mlir:11 runs as stage 1 of this GEMM's kernel}}
  %c = sc.batch_matmul %w, %ec epilogue_ins(%u, %idx : tensor<?x64x128xf32>, tensor<?xi32>)
      : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %ut: tensor<?x64x128xf32>, %it: tensor<?xi32>):
    %i = tensor.extract %it[%b] : tensor<?xi32>
    %ii = arith.index_cast %i : i32 to index
    %x = tensor.extract %ut[%ii, %m, %n] : tensor<?x64x128xf32>
    %s = arith.addf %acc, %x : f32
    %t = arith.truncf %s : f32 to f16
    sc.yield %t : f16
  }
  return %c : tensor<?x64x128xf16>
}

// -----

// The user GEMM's result is also returned.
// CHECK-LABEL: func.func @also_returned
// CHECK-NOT: sc.gemm_stage1
func.func @also_returned(%w: tensor<64x64xf16>, %eu: tensor<?x64x128xf16>, %ec: tensor<?x64x128xf16>)
    -> (tensor<?x64x128xf16>, tensor<?x64x128xf32>) {
  %u = sc.batch_matmul %w, %eu : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf32>
  // expected-remark @+1 {{GEMM stages not fused: the first GEMM's result has uses other than the second GEMM's epilogue}}
  %c = sc.batch_matmul %w, %ec epilogue_ins(%u : tensor<?x64x128xf32>)
      : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %ut: tensor<?x64x128xf32>):
    %x = tensor.extract %ut[%b, %m, %n] : tensor<?x64x128xf32>
    %s = arith.addf %acc, %x : f32
    %t = arith.truncf %s : f32 to f16
    sc.yield %t : f16
  }
  return %c, %u : tensor<?x64x128xf16>, tensor<?x64x128xf32>
}

// -----

// The row read from the user GEMM depends on the column: one candidate
// tile would read many user tiles.
// CHECK-LABEL: func.func @column_dependent
// CHECK-NOT: sc.gemm_stage1
func.func @column_dependent(%w: tensor<64x64xf16>, %eu: tensor<?x64x128xf16>, %ec: tensor<?x64x128xf16>)
    -> tensor<?x64x128xf16> {
  %u = sc.batch_matmul %w, %eu : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf32>
  // expected-remark @+1 {{GEMM stages not fused: the batch index read from the first GEMM's result depends on the accumulator, the row or the column}}
  %c = sc.batch_matmul %w, %ec epilogue_ins(%u : tensor<?x64x128xf32>)
      : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %ut: tensor<?x64x128xf32>):
    %c3 = arith.constant 3 : index
    %g = arith.remui %n, %c3 : index
    %x = tensor.extract %ut[%g, %m, %n] : tensor<?x64x128xf32>
    %s = arith.addf %acc, %x : f32
    %t = arith.truncf %s : f32 to f16
    sc.yield %t : f16
  }
  return %c : tensor<?x64x128xf16>
}

// -----

// A transposed read of the user result ([g, n, m]) is not a tile-for-tile
// dependency.
// CHECK-LABEL: func.func @transposed_read
// CHECK-NOT: sc.gemm_stage1
func.func @transposed_read(%w: tensor<64x64xf16>, %eu: tensor<?x64x64xf16>, %ec: tensor<?x64x64xf16>)
    -> tensor<?x64x64xf16> {
  %u = sc.batch_matmul %w, %eu : tensor<64x64xf16>, tensor<?x64x64xf16> -> tensor<?x64x64xf32>
  // expected-remark @+1 {{GEMM stages not fused: the epilogue reads the first GEMM's result other than at [g(b), m, n]}}
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

// -----

// Different schedules (one pinned to simple): no shared persistent kernel.
// CHECK-LABEL: func.func @schedules_differ
// CHECK-NOT: sc.gemm_stage1
func.func @schedules_differ(%w: tensor<64x64xf16>, %eu: tensor<?x64x128xf16>, %ec: tensor<?x64x128xf16>)
    -> tensor<?x64x128xf16> {
  %u = sc.batch_matmul %w, %eu {sc.gemm_schedule = #sc.gemm_schedule<simple>} : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf32>
  // expected-remark @+1 {{GEMM stages not fused: both GEMMs need the same warp-specialized schedule, got simple and pingpong}}
  %c = sc.batch_matmul %w, %ec epilogue_ins(%u : tensor<?x64x128xf32>)
      : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %ut: tensor<?x64x128xf32>):
    %x = tensor.extract %ut[%b, %m, %n] : tensor<?x64x128xf32>
    %s = arith.addf %acc, %x : f32
    %t = arith.truncf %s : f32 to f16
    sc.yield %t : f16
  }
  return %c : tensor<?x64x128xf16>
}
