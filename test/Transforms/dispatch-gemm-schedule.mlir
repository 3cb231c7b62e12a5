// RUN: sparcast-opt %s -split-input-file -sc-dispatch-gemm-schedule="report=true" -verify-diagnostics | FileCheck %s
// RUN: sparcast-opt %s -split-input-file -sc-dispatch-gemm-schedule="min-candidates-per-user=16 min-batch=0" | FileCheck %s --check-prefix=SIXTEEN
// RUN: not sparcast-opt %s -split-input-file -sc-dispatch-gemm-schedule="min-candidates-per-user=0" 2>&1 | FileCheck %s --check-prefix=BAD

// IKBO's candidate GEMM (its epilogue adds the request result through the
// index) gets both kernels: transposed when B >= 64 x the users (dims of the
// rhs and of the gathered operand) and B >= 2048, else its default.
// CHECK-LABEL: func.func @candidate_gemm
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[B:.*]] = tensor.dim %arg1, %[[C0]] : tensor<?x872x256xf16>
// CHECK: %[[U:.*]] = tensor.dim %arg2, %[[C0]] : tensor<?x433x256xf32>
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[LEAST:.*]] = arith.muli %[[U]], %[[C64]] : index
// CHECK: %[[SHARED:.*]] = arith.cmpi sge, %[[B]], %[[LEAST]] : index
// CHECK: %[[C2048:.*]] = arith.constant 2048 : index
// CHECK: %[[LARGE:.*]] = arith.cmpi sge, %[[B]], %[[C2048]] : index
// CHECK: %[[MANY:.*]] = arith.andi %[[SHARED]], %[[LARGE]] : i1
// CHECK: %[[R:.*]] = scf.if %[[MANY]] -> (tensor<?x433x256xf16>) {
// CHECK: %[[T:.*]] = sc.batch_matmul %arg0, %arg1 epilogue_ins(%arg2, %arg3 : {{.*}}) {sc.gemm_schedule = #sc.gemm_schedule<transposed>}
// CHECK: scf.yield %[[T]]
// CHECK: } else {
// CHECK: %[[P:.*]] = sc.batch_matmul %arg0, %arg1 epilogue_ins(%arg2, %arg3 : {{.*}}) {sc.gemm_schedule = #sc.gemm_schedule<pingpong>}
// CHECK: scf.yield %[[P]]
// CHECK: return %[[R]]
// SIXTEEN-LABEL: func.func @candidate_gemm
// SIXTEEN: arith.constant 16 : index
// SIXTEEN-NOT: arith.andi
func.func @candidate_gemm(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>,
                          %r: tensor<?x433x256xf32>, %idx: tensor<?xi32>)
    -> tensor<?x433x256xf16> {
  // expected-remark @+1 {{GEMM schedule dispatched at run time: transposed when B >= 64 x the users (the request tiles then stay in L2) and B >= 2048, else pingpong}}
  %0 = sc.batch_matmul %w, %e epilogue_ins(%r, %idx : tensor<?x433x256xf32>, tensor<?xi32>)
      : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %req: tensor<?x433x256xf32>, %i: tensor<?xi32>):
    %u32 = tensor.extract %i[%b] : tensor<?xi32>
    %u = arith.index_cast %u32 : i32 to index
    %x = tensor.extract %req[%u, %m, %n] : tensor<?x433x256xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %0 : tensor<?x433x256xf16>
}

// -----

// The GEMMs that keep one kernel say why.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.if
func.func @left_alone(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>,
                      %x: tensor<?x433x872xf16>, %r: tensor<?x433x256xf32>,
                      %idx: tensor<?xi32>, %same: tensor<?x433x256xf32>,
                      %r16: tensor<?x433x256xf16>)
    -> (tensor<?x433x256xf16>, tensor<?x433x256xf16>, tensor<?x433x256xf32>,
        tensor<?x433x256xf16>, tensor<?x433x256xf16>, tensor<?x433x256xf16>) {
  // expected-remark @+1 {{GEMM schedule not dispatched: it has no epilogue region}}
  %0 = sc.batch_matmul %w, %e : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16>
  // expected-remark @+1 {{GEMM schedule not dispatched: the transposed schedule cannot take it: its lhs is batched (the transposed tile shares it)}}
  %1 = sc.batch_matmul %x, %e : tensor<?x433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16>
  // expected-remark @+1 {{GEMM schedule not dispatched: the transposed schedule cannot take it: its result is not f16 or bf16}}
  %2 = sc.batch_matmul %w, %e : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf32>
  // A pinned schedule is the model's choice.
  // expected-remark @+1 {{GEMM schedule not dispatched: it has a schedule already}}
  %3 = sc.batch_matmul %w, %e epilogue_ins(%r, %idx : tensor<?x433x256xf32>, tensor<?xi32>) {sc.gemm_schedule = #sc.gemm_schedule<pingpong>}
      : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %req: tensor<?x433x256xf32>, %i: tensor<?xi32>):
    %u32 = tensor.extract %i[%b] : tensor<?xi32>
    %u = arith.index_cast %u32 : i32 to index
    %y = tensor.extract %req[%u, %m, %n] : tensor<?x433x256xf32>
    %s = arith.addf %acc, %y : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  // An epilogue operand read at the element's own batch is not gathered.
  // expected-remark @+1 {{GEMM schedule not dispatched: its epilogue reads no operand of a dynamic batch through an index}}
  %4 = sc.batch_matmul %w, %e epilogue_ins(%same : tensor<?x433x256xf32>)
      : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %add: tensor<?x433x256xf32>):
    %y = tensor.extract %add[%b, %m, %n] : tensor<?x433x256xf32>
    %s = arith.addf %acc, %y : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  // The request result in f16 (--ikbo-request-in-result-type): the
  // transposed kernel does not prefetch it.
  // expected-remark @+1 {{GEMM schedule not dispatched: the operand its epilogue reads through the index is not f32}}
  %5 = sc.batch_matmul %w, %e epilogue_ins(%r16, %idx : tensor<?x433x256xf16>, tensor<?xi32>)
      : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %req: tensor<?x433x256xf16>, %i: tensor<?xi32>):
    %u32 = tensor.extract %i[%b] : tensor<?xi32>
    %u = arith.index_cast %u32 : i32 to index
    %y = tensor.extract %req[%u, %m, %n] : tensor<?x433x256xf16>
    %yf = arith.extf %y : f16 to f32
    %s = arith.addf %acc, %yf : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %0, %1, %2, %3, %4, %5 : tensor<?x433x256xf16>, tensor<?x433x256xf16>, tensor<?x433x256xf32>,
                                  tensor<?x433x256xf16>, tensor<?x433x256xf16>, tensor<?x433x256xf16>
}

// BAD: error: min-candidates-per-user must be at least 1 and min-batch at least 0, got 0 and 2048

// -----

// A GEMM the model already runs under an scf.if keeps its one kernel.
// CHECK-LABEL: func.func @under_if
// CHECK-COUNT-1: scf.if
// CHECK-NOT: scf.if
func.func @under_if(%w: tensor<433x872xf16>, %e: tensor<?x872x256xf16>,
                    %r: tensor<?x433x256xf32>, %idx: tensor<?xi32>, %p: i1)
    -> tensor<?x433x256xf16> {
  %c0 = arith.constant 0 : index
  %c = tensor.dim %e, %c0 : tensor<?x872x256xf16>
  %o = scf.if %p -> (tensor<?x433x256xf16>) {
    // expected-remark @+1 {{GEMM schedule not dispatched: it is inside an scf.if already}}
    %0 = sc.batch_matmul %w, %e epilogue_ins(%r, %idx : tensor<?x433x256xf32>, tensor<?xi32>)
        : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16> {
    ^bb0(%acc: f32, %b: index, %m: index, %n: index, %req: tensor<?x433x256xf32>, %i: tensor<?xi32>):
      %u32 = tensor.extract %i[%b] : tensor<?xi32>
      %u = arith.index_cast %u32 : i32 to index
      %x = tensor.extract %req[%u, %m, %n] : tensor<?x433x256xf32>
      %s = arith.addf %acc, %x : f32
      %h = arith.truncf %s : f32 to f16
      sc.yield %h : f16
    }
    scf.yield %0 : tensor<?x433x256xf16>
  } else {
    %z = tensor.empty(%c) : tensor<?x433x256xf16>
    scf.yield %z : tensor<?x433x256xf16>
  }
  return %o : tensor<?x433x256xf16>
}

// -----

// A result of 128 columns or fewer runs the narrow ping-pong tile, faster
// than the transposed tile there: one kernel.
// CHECK-LABEL: func.func @narrow
// CHECK-NOT: scf.if
func.func @narrow(%w: tensor<64x872xf16>, %e: tensor<?x872x32xf16>,
                  %r: tensor<?x64x32xf32>, %idx: tensor<?xi32>)
    -> tensor<?x64x32xf16> {
  // expected-remark @+1 {{GEMM schedule not dispatched: its 32 columns fit a narrow ping-pong tile (faster than the transposed tile there)}}
  %0 = sc.batch_matmul %w, %e epilogue_ins(%r, %idx : tensor<?x64x32xf32>, tensor<?xi32>)
      : tensor<64x872xf16>, tensor<?x872x32xf16> -> tensor<?x64x32xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %req: tensor<?x64x32xf32>, %i: tensor<?xi32>):
    %u32 = tensor.extract %i[%b] : tensor<?xi32>
    %u = arith.index_cast %u32 : i32 to index
    %x = tensor.extract %req[%u, %m, %n] : tensor<?x64x32xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %0 : tensor<?x64x32xf16>
}
