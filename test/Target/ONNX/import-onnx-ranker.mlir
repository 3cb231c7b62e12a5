// RUN: sparcast-translate --import-onnx %S/Inputs/ranker-small.onnx --onnx-lineage=user=request,cand=candidate,idx=index,q=candidate,hist_k=request,hist_v=request -o %t-small.mlir
// RUN: sparcast-equiv %t-small.mlir --ref=ranker --pass-pipeline='builtin.module(sc-kernel-pipeline, sc-test-execute-kernel-ir)' --users=2 --candidates=5 --shuffle-index --trials=2 --rtol=2e-2 --input-scale=0.1 | FileCheck %s
// RUN: sparcast-translate --import-onnx %S/Inputs/ranker-reference.onnx --onnx-lineage=user=request,cand=candidate,idx=index,q=candidate,hist_k=request,hist_v=request -o %t-reference.mlir
// RUN: sparcast-equiv %t-reference.mlir --ref=ranker --pass-pipeline='builtin.module(sc-kernel-pipeline, sc-test-execute-kernel-ir)' --users=2 --candidates=5 --trials=1 --rtol=2e-2 --input-scale=0.1 | FileCheck %s

// The whole ranking model of examples/ranking_model.py as torch exports it
// (Inputs/ranker-*.onnx: `compile --model small` and `--model reference`,
// weights as inputs), imported, then everything sparcast-aot runs before
// it builds kernels (raising, lineage, IKBO decomposition, K/V through the
// index, epilogue fusion, padding, split-K, kernel configurations and the
// GEMMs' and attention's kernel-level IR), executed on the host op by op
// against the imported graph: the same model within bf16's roundings.
// Inputs in [-0.1, 0.1) keep the output's sigmoid off its saturation.
// CHECK: ok
// CHECK: EQUIVALENT
