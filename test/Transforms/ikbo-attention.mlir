// RUN: sparcast-opt %s -split-input-file -sc-ikbo-attention="report=true" -verify-diagnostics | FileCheck %s

// K and V broadcast by one index: the attention reads them through it.
// CHECK-LABEL: func.func @target_attention
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: {{.*}}, %[[K:[a-z0-9]+]]: {{.*}}, %[[V:[a-z0-9]+]]: {{.*}}, %[[I:[a-z0-9]+]]: {{.*}})
// CHECK: %[[O:.*]] = sc.attention %[[Q]], %[[K]], %[[V]] index %[[I]] {scale = 2.500000e-01 : f32}
// CHECK: return %[[O]]
func.func @target_attention(%q: tensor<?x2x4x16xf16>, %k: tensor<?x2x8x16xf16>,
                            %v: tensor<?x2x8x16xf16>, %i: tensor<?xi32>) -> tensor<?x2x4x16xf16> {
  %kb = sc.gather_rows %k[%i] : tensor<?x2x8x16xf16>, tensor<?xi32> -> tensor<?x2x8x16xf16>
  %vb = sc.gather_rows %v[%i] : tensor<?x2x8x16xf16>, tensor<?xi32> -> tensor<?x2x8x16xf16>
  // expected-remark @+1 {{keys and values read through the index: the B_cand-row broadcasts are gone}}
  %o = sc.attention %q, %kb, %vb {scale = 0.25 : f32} : tensor<?x2x4x16xf16>, tensor<?x2x8x16xf16>, tensor<?x2x8x16xf16> -> tensor<?x2x4x16xf16>
  return %o : tensor<?x2x4x16xf16>
}

// -----

// The mask is kept.
// CHECK-LABEL: func.func @masked
// CHECK: sc.attention {{.*}} index %{{.*}} mask(#sc.log_linear<block_size = 16>)
func.func @masked(%q: tensor<?x1x32x16xf16>, %k: tensor<?x1x32x16xf16>,
                  %v: tensor<?x1x32x16xf16>, %i: tensor<?xi32>) -> tensor<?x1x32x16xf16> {
  %kb = sc.gather_rows %k[%i] : tensor<?x1x32x16xf16>, tensor<?xi32> -> tensor<?x1x32x16xf16>
  %vb = sc.gather_rows %v[%i] : tensor<?x1x32x16xf16>, tensor<?xi32> -> tensor<?x1x32x16xf16>
  // expected-remark @+1 {{keys and values read through the index}}
  %o = sc.attention %q, %kb, %vb mask(#sc.log_linear<block_size = 16>) : tensor<?x1x32x16xf16>, tensor<?x1x32x16xf16>, tensor<?x1x32x16xf16> -> tensor<?x1x32x16xf16>
  return %o : tensor<?x1x32x16xf16>
}

// -----

// What was asked of the kernel (discardable attributes, as sparcast-aot's
// --attention-f16-p and --attention-group-candidates set them) stays with the op.
// CHECK-LABEL: func.func @kernel_requests
// CHECK: sc.attention {{.*}} index %{{.*}} {attention_f16_p, attention_group_candidates}
func.func @kernel_requests(%q: tensor<?x1x4x16xbf16>, %k: tensor<?x1x8x16xbf16>,
                           %v: tensor<?x1x8x16xbf16>, %i: tensor<?xi32>) -> tensor<?x1x4x16xbf16> {
  %kb = sc.gather_rows %k[%i] : tensor<?x1x8x16xbf16>, tensor<?xi32> -> tensor<?x1x8x16xbf16>
  %vb = sc.gather_rows %v[%i] : tensor<?x1x8x16xbf16>, tensor<?xi32> -> tensor<?x1x8x16xbf16>
  // expected-remark @+1 {{keys and values read through the index}}
  %o = sc.attention %q, %kb, %vb {attention_f16_p, attention_group_candidates} : tensor<?x1x4x16xbf16>, tensor<?x1x8x16xbf16>, tensor<?x1x8x16xbf16> -> tensor<?x1x4x16xbf16>
  return %o : tensor<?x1x4x16xbf16>
}

// -----

// Different indices for K and V, or V not broadcast: no change.
// CHECK-LABEL: func.func @two_indices
// CHECK: sc.attention %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK-LABEL: func.func @only_keys
// CHECK: sc.attention %{{.*}}, %{{.*}}, %{{.*}} :
func.func @two_indices(%q: tensor<?x1x4x16xf16>, %k: tensor<?x1x8x16xf16>, %v: tensor<?x1x8x16xf16>,
                       %i: tensor<?xi32>, %j: tensor<?xi32>) -> tensor<?x1x4x16xf16> {
  %kb = sc.gather_rows %k[%i] : tensor<?x1x8x16xf16>, tensor<?xi32> -> tensor<?x1x8x16xf16>
  %vb = sc.gather_rows %v[%j] : tensor<?x1x8x16xf16>, tensor<?xi32> -> tensor<?x1x8x16xf16>
  %o = sc.attention %q, %kb, %vb : tensor<?x1x4x16xf16>, tensor<?x1x8x16xf16>, tensor<?x1x8x16xf16> -> tensor<?x1x4x16xf16>
  return %o : tensor<?x1x4x16xf16>
}
func.func @only_keys(%q: tensor<?x1x4x16xf16>, %k: tensor<?x1x8x16xf16>, %v: tensor<?x1x8x16xf16>,
                     %i: tensor<?xi32>) -> tensor<?x1x4x16xf16> {
  %kb = sc.gather_rows %k[%i] : tensor<?x1x8x16xf16>, tensor<?xi32> -> tensor<?x1x8x16xf16>
  %o = sc.attention %q, %kb, %v : tensor<?x1x4x16xf16>, tensor<?x1x8x16xf16>, tensor<?x1x8x16xf16> -> tensor<?x1x4x16xf16>
  return %o : tensor<?x1x4x16xf16>
}
