// RUN: sparcast-translate --import-onnx %S/Inputs/target_attention.onnx --onnx-lineage=q=candidate,k=request,v=request,idx=index | FileCheck %s
// RUN: sparcast-translate --import-onnx %S/Inputs/target_attention.onnx --onnx-lineage=q=candidate,k=request,v=request,idx=index --onnx-entry=ta_onnx -o %t.ta.mlir
// RUN: sparcast-equiv %sparcast_src_root/examples/target_attention.mlir --link=%t.ta.mlir --ref=target_attention --test=ta_onnx --users=2 --candidates=3 --shuffle-index --rtol=2e-3 | FileCheck %s --check-prefix=EQUIV
// RUN: rm -rf %t.art && sparcast-aot %S/Inputs/target_attention.onnx --onnx-lineage=q=candidate,k=request,v=request,idx=index -o %t.art --report | FileCheck %s --check-prefix=AOT
// RUN: sparcast-translate --import-onnx %S/Inputs/attention_fused.onnxtxt | FileCheck %s --check-prefix=FUSED
// RUN: sparcast-translate --import-onnx %S/Inputs/attention_fused.onnxtxt -o %t.fused.mlir
// RUN: sparcast-translate --import-onnx %S/Inputs/attention_unfused.onnxtxt -o %t.unfused.mlir
// RUN: sparcast-equiv %t.fused.mlir --link=%t.unfused.mlir --ref=attention_unfused --test=attention_fused | FileCheck %s --check-prefix=EQUIV
// RUN: sparcast-translate --import-onnx %S/Inputs/attention_op.onnxtxt -o %t.op.mlir
// RUN: sparcast-equiv %t.op.mlir --link=%t.unfused.mlir --ref=attention_unfused --test=attention_op | FileCheck %s --check-prefix=EQUIV

// Target attention as a plain model exports it (Inputs/target_attention.onnx,
// written by ONNX's Python helpers: float16 initializers have no textual
// form): K and V gathered by the index, MatMul(Q, Transpose(K)), Mul by
// the f16 scale, Softmax over the last axis, MatMul with V. The pattern
// imports as one sc.attention (its scale the model's f16 one) over the
// gathered K/V, so sc-ikbo-attention reads them through the index.
// CHECK: func.func @target_attention(
// CHECK-DAG: %[[K:.*]] = sc.gather_rows %arg1[%arg3]
// CHECK-DAG: %[[V:.*]] = sc.gather_rows %arg2[%arg3]
// CHECK: sc.attention %arg0, %[[K]], %[[V]] {scale = 0.0883789062 : f32}
// CHECK-NOT: linalg.softmax
// EQUIV: EQUIVALENT

// sparcast-aot compiles the ONNX model into the chained target-attention
// kernel reading K/V through the index.
// AOT: lineage: gathered
// AOT: keys and values read through the index
// AOT: kernel target_attention_attention0: attention 64 x 1024 keys, 2 heads, head dim 128, f16, keys/values read through the index, one consumer warpgroup
// AOT-SAME: chained heads

// The same pattern in f32 with Div by a constant: matched (axis -1) and
// not (axis 3: the same meaning, imported op by op as batch_matmul and a
// softmax); the two are equivalent on the CPU.
// FUSED: sc.attention %arg0, %arg1, %arg2 {scale = 1.250000e-01 : f32} : tensor<2x3x5x64xf32>

// ONNX's own Attention op (opset 23, 4-D form, Inputs/attention_op.onnxtxt)
// is sc.attention too, equivalent to the unfused pattern.
