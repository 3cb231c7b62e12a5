// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %s -o %t --report | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/tower_kernels.ptx
// RUN: rm -rf %t-off && sparcast-aot %s -o %t-off --report --dense-split-k=0 | FileCheck %s --check-prefix=OFF
// RUN: FileCheck %s --check-prefix=OFF-MANIFEST < %t-off/manifest.json

// A tower layer over candidate rows (x @ w^T + bias, ReLU), its tiles a
// count of the call's: the kernel chooses its parts (8, 4 or 2 of K's 64
// k-tiles, the most that fit the 132 SMs, else none). The artifact binds
// the partial sums (132 parts of a 128 x 256 tile: 4,325,376 f32) and two
// arrival counts a tile (one a consumer warpgroup), zeroed at each call,
// after C's tensor map; ptxas takes the fixup (bar.red on the consumer's
// named barrier) without spills. With --dense-split-k=0: none of it.
// REPORT: split-K: parts chosen at run time, the largest of 8 4 2 with tiles x parts <= 132 (else 1), of 64 k-tiles
// REPORT: kernel tower_gemm0: {{.*}}; split-K: each tile's k-tiles in parts the kernel chooses from its tile count (8, 4, 2 or none), the last part of each consumer's rows adding them
// REPORT-NOT: {{[1-9][0-9]*}} bytes spill stores
// MANIFEST: "tensor": "result0"
// MANIFEST: "tensor": "[[PARTIALS:ws[0-9]+]]"
// MANIFEST: "tensor": "[[ARRIVALS:ws[0-9]+]]"
// MANIFEST: "workspace": [
// MANIFEST: "dtype": "f32",
// MANIFEST-NEXT: "name": "[[PARTIALS]]",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 4325376
// MANIFEST: "dtype": "i32",
// MANIFEST-NEXT: "name": "[[ARRIVALS]]",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: 264
// MANIFEST: "zero_init": true
// PTX: atom.global.add.u32
// PTX: bar.red.or.pred
// OFF-NOT: split-K
// OFF: kernel tower_gemm0:
// OFF-NOT: split-K
// OFF-MANIFEST: "workspace": []
func.func @tower(%x: tensor<?x1x4096xbf16> {sc.lineage = #sc.lineage<candidate>}, %w: tensor<1024x4096xbf16>, %bias: tensor<1024xf32>) -> tensor<?x1x1024xbf16> {
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
