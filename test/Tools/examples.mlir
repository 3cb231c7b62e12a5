// RUN: sparcast-opt %sparcast_src_root/examples/lce.mlir | FileCheck %s --check-prefix=LCE
// RUN: sparcast-opt %sparcast_src_root/examples/target_attention.mlir | FileCheck %s --check-prefix=TA
// RUN: sparcast-opt %sparcast_src_root/examples/loglinear_attention.mlir | FileCheck %s --check-prefix=LL
// RUN: sparcast-opt %sparcast_src_root/examples/lce.mlir --sc-lower-to-linalg | FileCheck %s --check-prefix=LOWERED
// RUN: sparcast-translate --mlir-to-ptx %sparcast_src_root/examples/kernels/scale_rows.mlir | FileCheck %s --check-prefix=PTX

// The bundled examples verify, lower to the golden model, and compile.
// LCE: func.func @lce
// LCE: sc.gather_rows
// LCE: tensor.concat dim(1)
// LCE: sc.batch_matmul
// TA: sc.attention
// LL: mask(#sc.log_linear<block_size = 128>)
// LOWERED-NOT: sc.batch_matmul
// LOWERED: linalg.generic
// PTX: .entry scale_rows
