// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

// sc.assemble_hybrid: the buffers must have the shapes the layout gives
// (docs/hybrid-tiles.md), and a GEMM reads the weight only as its rhs [n, k].

#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @kinds_grid(%k: tensor<2x3xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>) {
  // expected-error @below {{expected kinds dim 1 to be 2, got 3}}
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x3xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  return
}

// -----

#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @sparse_width(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x128xf16>, %m: tensor<?x64x4xi32>) {
  // expected-error @below {{expected sparse dim 2 to be 64, got 128}}
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x128xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  return
}

// -----

#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @meta_width(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x8xi32>) {
  // expected-error @below {{expected meta dim 2 to be 4, got 8}}
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x8xi32> -> tensor<128x256xf16, #w>
  return
}

// -----

#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @weight_shape(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>) {
  // expected-error @below {{expected result columns to be 256, got 512}}
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x512xf16, #w>
  return
}

// -----

func.func @no_layout(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>) {
  // expected-error @below {{expected a result with a #sc.hybrid_tiles encoding}}
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16>
  return
}

// -----

#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @element_type(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xbf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>) {
  // expected-error @below {{expected dense and sparse tiles of the weight's element type 'f16'}}
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xbf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  return
}

// -----

#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @as_lhs(%w: tensor<128x256xf16, #w>, %e: tensor<?x256x8xf16>) -> tensor<?x128x8xf32> {
  // expected-error @below {{expected a hybrid-tiled operand to be a shared rhs read [n, k] (transpose_rhs)}}
  %y = sc.batch_matmul %w, %e : tensor<128x256xf16, #w>, tensor<?x256x8xf16> -> tensor<?x128x8xf32>
  return %y : tensor<?x128x8xf32>
}

// -----

#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @not_transposed(%x: tensor<?x8x128xf16>, %w: tensor<128x256xf16, #w>) -> tensor<?x8x256xf32> {
  // expected-error @below {{expected a hybrid-tiled operand to be a shared rhs read [n, k] (transpose_rhs)}}
  %y = sc.batch_matmul %x, %w : tensor<?x8x128xf16>, tensor<128x256xf16, #w> -> tensor<?x8x256xf32>
  return %y : tensor<?x8x256xf32>
}
