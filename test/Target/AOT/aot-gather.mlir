// REQUIRES: ptxas
// RUN: rm -rf %t && sparcast-aot %s -o %t --report | FileCheck %s --check-prefix=REPORT
// RUN: FileCheck %s --check-prefix=MANIFEST < %t/manifest.json
// RUN: FileCheck %s --check-prefix=PTX < %t/gather_kernels.ptx

// A gather no GEMM epilogue or attention takes (here: returned as it is)
// runs as the generated kernel of its linalg form: one thread an element,
// the row read through the index, bounds-checked (an index past the
// request rows reads 0, never outside the table); the kernel takes the
// index and the table as gathered tensors, after its inputs. A
// linalg.generic whose body reads a tensor by tensor.extract (what a
// gather lowers to; also imported graphs) takes it the same way.
// REPORT: kernel gather_generic0: linalg.generic (3 loops) as one thread per 8 consecutive elements of result0 (16-byte accesses)
// REPORT: kernel lookup_generic0: linalg.generic (1 loops, 0 reduced) as one thread per output element of result0
// MANIFEST: "index_into": "U",
// MANIFEST-NEXT: "name": "arg1",
// MANIFEST-NEXT: "shape": [
// MANIFEST-NEXT: "B"
// MANIFEST: "grid": [
// MANIFEST-NEXT: "B*32/2048",
// MANIFEST: "kernel": "gather_generic0",
// MANIFEST: "tensor": "arg1"
// MANIFEST: "tensor": "arg0"
// MANIFEST: "tensor": "result0"
// MANIFEST: "name": "gather"
// PTX: .entry gather_generic0(
// PTX: setp.{{.*}}
// PTX: ld.global
// PTX: st.global.v4.b32
func.func @gather(%user: tensor<?x4x8xf16> {sc.lineage = #sc.lineage<request>},
                  %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x4x8xf16> {
  %e = sc.gather_rows %user[%idx] : tensor<?x4x8xf16>, tensor<?xi32> -> tensor<?x4x8xf16>
  return %e : tensor<?x4x8xf16>
}

#id = affine_map<(d0) -> (d0)>
func.func @lookup(%table: tensor<16xf32>, %ids: tensor<?xi32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %ids, %c0 : tensor<?xi32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%ids : tensor<?xi32>) outs(%e : tensor<?xf32>) {
  ^bb0(%id: i32, %out: f32):
    %i = arith.index_cast %id : i32 to index
    %v = tensor.extract %table[%i] : tensor<16xf32>
    linalg.yield %v : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}
