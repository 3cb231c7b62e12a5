// RUN: sparcast-translate --import-onnx %S/Inputs/lce.onnxtxt --onnx-lineage=w=shared,user=request,cand=candidate,idx=index | FileCheck %s
// RUN: sparcast-translate --import-onnx %S/Inputs/lce.onnx --onnx-lineage=w=shared,user=request,cand=candidate,idx=index | FileCheck %s
// RUN: sparcast-translate --import-onnx %S/Inputs/lce.onnxtxt --onnx-lineage=w=shared,user=request,cand=candidate,idx=index --onnx-entry=lce_onnx -o %t.mlir
// RUN: sparcast-equiv %sparcast_src_root/examples/lce.mlir --link=%t.mlir --ref=lce --test=lce_onnx --users=2 --candidates=3 --trials=1 --shuffle-index | FileCheck %s --check-prefix=EQUIV
// RUN: rm -rf %t.art && sparcast-aot %S/Inputs/lce.onnxtxt --onnx-lineage=w=shared,user=request,cand=candidate,idx=index -o %t.art --report | FileCheck %s --check-prefix=AOT

// The IKBO LCE as exported from a plain model (Inputs/lce.onnxtxt, ONNX's
// textual syntax; Inputs/lce.onnx the same serialized): Gather of the user features by an int64 index, Concat
// with the candidate features along K, MatMul with the shared weight. It
// imports as the hand-written examples/lce.mlir: sc.gather_rows (the index
// an int32 argument, as Sparcast's index is), tensor.concat, and
// sc.batch_matmul (a batched operand, the other shared), the inputs' lineage
// given by name.
// CHECK: func.func @lce(%{{.*}}: tensor<433x2044xf16> {sc.lineage = #sc.lineage<shared>}, %{{.*}}: tensor<?x1178x256xf16> {sc.lineage = #sc.lineage<request>}, %{{.*}}: tensor<?x866x256xf16> {sc.lineage = #sc.lineage<candidate>}, %[[IDX:.*]]: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x433x256xf16>
// CHECK: sc.gather_rows %{{.*}}[%[[IDX]]]
// CHECK: tensor.concat dim(1)
// CHECK: sc.batch_matmul {{.*}} : tensor<433x2044xf16>, tensor<?x2044x256xf16> -> tensor<?x433x256xf16>

// Executed on the CPU against the hand-written model on random inputs.
// EQUIV: EQUIVALENT

// sparcast-aot takes the ONNX model itself: the IKBO passes decompose it as
// they do the hand-written one (request GEMM, candidate GEMM with the
// gather-add, dispatched at launch).
// AOT: lineage: gathered
// AOT: kernel lce_gemm1
// AOT: kernel lce_gemm3: {{.*}} (launched when B >= U*64 and B >= 2048)
// AOT: kernel lce_gemm4: {{.*}} (launched when not (B >= U*64 and B >= 2048))
