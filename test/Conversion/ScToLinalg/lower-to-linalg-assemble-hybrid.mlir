// RUN: sparcast-opt %s --sc-lower-to-linalg | FileCheck %s

// sc.assemble_hybrid's reference lowering: the dense weight element by
// element (docs/hybrid-tiles.md): the tile's kind and slot, a dense tile's
// element, or a 2:4 tile's stored value whose metadata position (the
// group's nibble of word col / 32) is the element's column in its group;
// the GEMM then multiplies that weight. The CPU proof that this is the
// weight the inspector packed: test/unit/HybridGemmCpuTest.cpp.
// CHECK-LABEL: func.func @unpack
// CHECK: %[[W:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<128x256xf16>)
// CHECK: tensor.extract %arg0[%{{.*}}, %{{.*}}] : tensor<2x2xi8>
// CHECK: tensor.extract %arg1[%{{.*}}, %{{.*}}] : tensor<2x2xi32>
// CHECK: scf.if
// CHECK: tensor.extract %arg2[{{.*}}] : tensor<?x64x128xf16>
// CHECK: scf.if
// CHECK: tensor.extract %arg4[{{.*}}] : tensor<?x64x4xi32>
// CHECK: arith.shrui
// CHECK: tensor.extract %arg3[{{.*}}] : tensor<?x64x64xf16>
// CHECK: tensor.extract %arg3[{{.*}}] : tensor<?x64x64xf16>
// CHECK: linalg.generic {{.*}} ins(%arg5, %[[W]] : tensor<?x8x256xf16>, tensor<128x256xf16>)
#w = #sc.hybrid_tiles<tile = [64, 128], grid = [2, 2], kinds = "">
func.func @unpack(%k: tensor<2x2xi8>, %s: tensor<2x2xi32>, %d: tensor<?x64x128xf16>, %sp: tensor<?x64x64xf16>, %m: tensor<?x64x4xi32>, %x: tensor<?x8x256xf16>) -> tensor<?x8x128xf32> {
  %w = sc.assemble_hybrid %k, %s, %d, %sp, %m : tensor<2x2xi8>, tensor<2x2xi32>, tensor<?x64x128xf16>, tensor<?x64x64xf16>, tensor<?x64x4xi32> -> tensor<128x256xf16, #w>
  %y = sc.batch_matmul %x, %w {transpose_rhs} : tensor<?x8x256xf16>, tensor<128x256xf16, #w> -> tensor<?x8x128xf32>
  return %y : tensor<?x8x128xf32>
}
