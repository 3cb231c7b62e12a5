// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck=attention=1 | sed '/sck.softmax/s/scale = 5.000000e-01/scale = 2.500000e-01/' | sparcast-opt -split-input-file -sc-test-attention-kernel | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck=attention=1 | sparcast-opt -split-input-file -sc-test-attention-kernel | FileCheck %s --check-prefix=OP
// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck=attention=1 | sed 's/arith.constant 100 : index/arith.constant 90 : index/' | not sparcast-opt -split-input-file -sc-test-attention-kernel 2>&1 | FileCheck %s --check-prefix=KEYS
// RUN: sparcast-opt %s -split-input-file -sc-lower-to-sck=attention=1 | awk '/-----/ { after = 1 } after && !done && /sck.softmax %/ { sub(/scale = 5.000000e-01/, "scale = 2.500000e-01"); done = 1 } { print }' | not sparcast-opt -split-input-file -sc-test-attention-kernel 2>&1 | FileCheck %s --check-prefix=MIXED

// The attention kernel computes what its kernel-level IR says: the scores'
// scale is the IR's online softmax's (here edited to 0.25 where the op says
// 0.5), folded with log2(e) for exp2: 0.25 log2(e) = 0.3606740.
// CHECK-LABEL: gpu.func @short_attention0(
// CHECK: arith.constant 0.36067{{[0-9]*}} : f32
// OP-LABEL: gpu.func @short_attention0(
// OP: arith.constant 0.72134{{[0-9]*}} : f32
// A key length other than the op's (here 90 of its 100 keys) is not what
// the kernel masks: a located error rather than another kernel.
// KEYS: error: the attention kernel masks keys past 100; the kernel-level IR's online softmax masks past 90
// Two steps that disagree (the split form's first half edited) are not
// one kernel.
// MIXED: error: the attention kernel applies one scale; the kernel-level IR's online softmax steps use 2.500000e-01 and 5.000000e-01
func.func @short(%q: tensor<2x1x40x64xf16>, %k: tensor<2x1x100x64xf16>, %v: tensor<2x1x100x64xf16>) -> tensor<2x1x40x64xf16> {
  %o = sc.attention %q, %k, %v {scale = 0.5 : f32} : tensor<2x1x40x64xf16>, tensor<2x1x100x64xf16>, tensor<2x1x100x64xf16> -> tensor<2x1x40x64xf16>
  return %o : tensor<2x1x40x64xf16>
}

// -----

func.func @split(%q: tensor<1x2x256x64xf16>, %k: tensor<1x2x256x64xf16>, %v: tensor<1x2x256x64xf16>) -> tensor<1x2x256x64xf16> {
  %o = sc.attention %q, %k, %v {scale = 0.5 : f32} : tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16> -> tensor<1x2x256x64xf16>
  return %o : tensor<1x2x256x64xf16>
}
