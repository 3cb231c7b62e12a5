// RUN: sparcast-opt %s -split-input-file | sparcast-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @gather_rows
// CHECK-SAME: {sc.lineage = #sc.lineage<request>}
// CHECK-SAME: {sc.lineage = #sc.lineage<index>}
// CHECK: sc.gather_rows %{{.*}}[%{{.*}}] : tensor<?x64x32xf16>, tensor<?xi32> -> tensor<?x64x32xf16>
func.func @gather_rows(%user: tensor<?x64x32xf16> {sc.lineage = #sc.lineage<request>},
                       %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x64x32xf16> {
  %e = sc.gather_rows %user[%idx] : tensor<?x64x32xf16>, tensor<?xi32> -> tensor<?x64x32xf16>
  return %e : tensor<?x64x32xf16>
}

// -----

// CHECK-LABEL: func.func @batch_matmul_plain
// CHECK: sc.batch_matmul %{{.*}}, %{{.*}} : tensor<16x64xf16>, tensor<?x64x32xf16> -> tensor<?x16x32xf32>
// CHECK-NOT: epilogue
func.func @batch_matmul_plain(%w: tensor<16x64xf16>, %e: tensor<?x64x32xf16>) -> tensor<?x16x32xf32> {
  %c = sc.batch_matmul %w, %e : tensor<16x64xf16>, tensor<?x64x32xf16> -> tensor<?x16x32xf32>
  return %c : tensor<?x16x32xf32>
}

// -----

// CHECK-LABEL: func.func @batch_matmul_transposed
// CHECK: sc.batch_matmul %{{.*}}, %{{.*}} {transpose_rhs} : tensor<?x16x64xbf16>, tensor<32x64xbf16> -> tensor<?x16x32xbf16>
func.func @batch_matmul_transposed(%e: tensor<?x16x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<?x16x32xbf16> {
  %c = sc.batch_matmul %e, %w {transpose_rhs} : tensor<?x16x64xbf16>, tensor<32x64xbf16> -> tensor<?x16x32xbf16>
  return %c : tensor<?x16x32xbf16>
}

// -----

// CHECK-LABEL: func.func @batch_matmul_gather_add
// CHECK: sc.batch_matmul %{{.*}}, %{{.*}} epilogue_ins(%{{.*}}, %{{.*}} : tensor<?x16x32xf32>, tensor<?xi32>)
// CHECK: ^bb0(%[[ACC:.*]]: f32, %[[B:.*]]: index, %[[M:.*]]: index, %[[N:.*]]: index, %[[U:.*]]: tensor<?x16x32xf32>, %[[I:.*]]: tensor<?xi32>):
// CHECK: tensor.extract %[[I]][%[[B]]]
// CHECK: sc.yield %{{.*}} : f16
func.func @batch_matmul_gather_add(%w: tensor<16x64xf16>, %e: tensor<?x64x32xf16>,
                                   %user: tensor<?x16x32xf32>, %idx: tensor<?xi32>) -> tensor<?x16x32xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x16x32xf32>, tensor<?xi32>)
      : tensor<16x64xf16>, tensor<?x64x32xf16> -> tensor<?x16x32xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x16x32xf32>, %i: tensor<?xi32>):
    %r = tensor.extract %i[%b] : tensor<?xi32>
    %ri = arith.index_cast %r : i32 to index
    %x = tensor.extract %u[%ri, %m, %n] : tensor<?x16x32xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x16x32xf16>
}

// -----

// CHECK-LABEL: func.func @attention_indexed
// CHECK: sc.attention %{{.*}}, %{{.*}}, %{{.*}} index %{{.*}} : tensor<?x2x64x128xf16>, tensor<?x2x1024x128xf16>, tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
func.func @attention_indexed(%q: tensor<?x2x64x128xf16>, %k: tensor<?x2x1024x128xf16>,
                             %v: tensor<?x2x1024x128xf16>, %idx: tensor<?xi32>) -> tensor<?x2x64x128xf16> {
  %o = sc.attention %q, %k, %v index %idx
      : tensor<?x2x64x128xf16>, tensor<?x2x1024x128xf16>, tensor<?x2x1024x128xf16>, tensor<?xi32> -> tensor<?x2x64x128xf16>
  return %o : tensor<?x2x64x128xf16>
}

// -----

// CHECK-LABEL: func.func @attention_log_linear
// CHECK: sc.attention %{{.*}}, %{{.*}}, %{{.*}} mask(#sc.log_linear<block_size = 128, causal = true>) {scale = 1.250000e-01 : f32}
func.func @attention_log_linear(%q: tensor<4x16x16384x128xbf16>, %k: tensor<4x16x16384x128xbf16>,
                                %v: tensor<4x16x16384x128xbf16>) -> tensor<4x16x16384x128xbf16> {
  %o = sc.attention %q, %k, %v mask(#sc.log_linear<block_size = 128, local_width = 1, anchors = [first, middle, last], causal = true>) {scale = 0.125 : f32}
      : tensor<4x16x16384x128xbf16>, tensor<4x16x16384x128xbf16>, tensor<4x16x16384x128xbf16> -> tensor<4x16x16384x128xbf16>
  return %o : tensor<4x16x16384x128xbf16>
}

// -----

// CHECK-LABEL: func.func @attention_block_sparse
// CHECK: mask(#sc.block_sparse<block_size = 64, key_blocks = 2, offsets = [0, 1, 3], indices = [0, 0, 1]>)
func.func @attention_block_sparse(%q: tensor<1x1x128x64xf32>, %k: tensor<1x1x128x64xf32>,
                                  %v: tensor<1x1x128x64xf32>) -> tensor<1x1x128x64xf32> {
  %o = sc.attention %q, %k, %v mask(#sc.block_sparse<block_size = 64, key_blocks = 2, offsets = [0, 1, 3], indices = [0, 0, 1]>)
      : tensor<1x1x128x64xf32>, tensor<1x1x128x64xf32>, tensor<1x1x128x64xf32> -> tensor<1x1x128x64xf32>
  return %o : tensor<1x1x128x64xf32>
}
