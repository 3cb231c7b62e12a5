// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %s -o %t --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json

// A layer over concatenated features (the ranking model's tower input):
// two GEMMs reading the features where they are, the weight's two parts
// read in place through tensor maps that start at the part (no copy of the
// rows, none of the weight).
// CHECK: split at the concatenation along K (2048 + 8192)
// CHECK-NOT: kernel tower_copy
// CHECK-NOT: kernel tower_concat
// CHECK: kernel tower_gemm0: 1x1024x2048 bf16
// CHECK: kernel tower_gemm1: 1x1024x8192 bf16
// The second part of the weight [1024, 10240] from column 2048: byte 4096,
// rows of 20480 bytes.
// MANIFEST: "kernel": "tower_gemm1",
// MANIFEST: "dims": [
// MANIFEST-NEXT: 8192,
// MANIFEST-NEXT: "B"
// MANIFEST: "dims": [
// MANIFEST-NEXT: 8192,
// MANIFEST-NEXT: 1024
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "kind": "tma",
// MANIFEST-NEXT: "offset": 4096,
// MANIFEST-NEXT: "strides": [
// MANIFEST-NEXT: 20480
// MANIFEST-NEXT: ],
// MANIFEST-NEXT: "swizzle": 128,
// MANIFEST-NEXT: "tensor": "arg2"
func.func @tower(%a: tensor<?x2048xbf16> {sc.lineage = #sc.lineage<candidate>},
                 %b: tensor<?x8192xbf16> {sc.lineage = #sc.lineage<candidate>},
                 %w: tensor<1024x10240xbf16> {sc.lineage = #sc.lineage<shared>},
                 %bias: tensor<1024xf32> {sc.lineage = #sc.lineage<shared>}) -> tensor<?x1x1024xbf16> {
  %c0 = arith.constant 0 : index
  %x = tensor.concat dim(1) %a, %b : (tensor<?x2048xbf16>, tensor<?x8192xbf16>) -> tensor<?x10240xbf16>
  %d = tensor.dim %x, %c0 : tensor<?x10240xbf16>
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [%d, 1, 10240] : tensor<?x10240xbf16> into tensor<?x1x10240xbf16>
  %h = sc.batch_matmul %x3, %w epilogue_ins(%bias : tensor<1024xf32>) {transpose_rhs} : tensor<?x1x10240xbf16>, tensor<1024x10240xbf16> -> tensor<?x1x1024xbf16> {
  ^bb0(%acc: f32, %i: index, %m: index, %n: index, %bt: tensor<1024xf32>):
    %bv = tensor.extract %bt[%n] : tensor<1024xf32>
    %s = arith.addf %acc, %bv : f32
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %s, %zero : f32
    %t = arith.truncf %r : f32 to bf16
    sc.yield %t : bf16
  }
  return %h : tensor<?x1x1024xbf16>
}
