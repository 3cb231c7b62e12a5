// What sparcast-aot cannot honour is a located error, never a kernel
// compiled silently: tensor encodings no pass lowers (a dense kernel would
// read packed data), zero-sized dims, static launch grids past the
// hardware's limits (options out of range: aot-warp-specialize-ir.mlir).
// RUN: not sparcast-aot %S/Inputs/hybrid-weight.mlir -o %t 2>&1 | FileCheck %s --check-prefix=HYBRID
// RUN: not sparcast-aot %S/Inputs/junk-encoding.mlir -o %t 2>&1 | FileCheck %s --check-prefix=JUNK
// RUN: not sparcast-aot %S/Inputs/similarity.mlir -o %t 2>&1 | FileCheck %s --check-prefix=CSR
// RUN: not sparcast-aot %S/Inputs/select-alone.mlir -o %t 2>&1 | FileCheck %s --check-prefix=SELECT
// RUN: not sparcast-aot %S/Inputs/zero-dim.mlir -o %t 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not sparcast-aot %S/Inputs/huge-grid.mlir -o %t --ws-group=0 2>&1 | FileCheck %s --check-prefix=GRID
// HYBRID: hybrid-weight.mlir:3:8: error: 'sc.batch_matmul' op expected a hybrid-tiled operand to be a shared rhs read [n, k] (transpose_rhs)
// JUNK: junk-encoding.mlir:1:1: error: sparcast-aot: tensor encoding "junk" is not supported yet
// CSR: similarity.mlir:5:8: error: sparcast-aot: no kernel for this sc.sparse_matmul: the GPU runs the product split at a head
// SELECT: select-alone.mlir:2:16: error: sparcast-aot: sc.select_rows_above runs only as the one consumer of an sc.sparse_matmul (fused into its kernel)
// ZERO: zero-dim.mlir:1:1: error: entry argument #0 has a zero-sized dim: 'tensor<?x0x128xf16>'
// GRID: huge-grid.mlir:3:8: error: sparcast-aot: kernel huge_gemm0 would need grid dim 0 = 2147483648, outside [1, 2147483647]
