// RUN: sparcast-opt %S/Inputs/wgmma-by-threads.mlir -sc-convert-sck-to-nvgpu -cse | FileCheck %s

// B's rows (250 f16, 500 bytes) are no TMA stride: every producer thread
// walks the ring. Each full barrier hears thread 256's TMA issue and the
// 128 threads' copies (129 arrivals). After the empty barrier's wait,
// thread 256 alone expects A's 8192 bytes and TMA-loads A's box; then each
// thread copies its 4-byte pieces of B's box: column 2 (t mod 128) of rows
// t / 128 .. 63 (one piece a row), from B[b][k0 + r][n0 + column] when
// that lies in B (k < 120, n < 250; else nothing read, zeros written),
// into the slot's B part (past every slot's A: 32768 + slot x 32768) at
// 64-column part column / 64, row r of 128 bytes, 16-byte chunk swizzled
// by r mod 8; then tells the slot's full barrier once its copies land
// (noinc: the arrival counted at init).
// CHECK-LABEL: gpu.func @unaligned(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %[[B:.*]]: memref<?x120x250xf16>
// CHECK: nvgpu.mbarrier.init %[[FULL:.*]][%{{.*}}], %c129
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK-NOT: arith.cmpi eq, %thread_id_x, %c256
// CHECK: nvgpu.mbarrier.try_wait.parity %{{.*}}[%[[SLOT:.*]]],
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %thread_id_x, %c256 : index
// CHECK-NEXT: scf.if %[[LEADER]] {
// CHECK: nvgpu.mbarrier.arrive.expect_tx %[[FULL]][%[[SLOT]]], %{{.*}}
// CHECK: nvgpu.tma.async.load {{.*}} -> memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK-NOT: nvgpu.tma.async.load
// CHECK: }
// CHECK: %[[T:.*]] = arith.remui %thread_id_x, %c128 : index
// CHECK: %[[PIECE:.*]] = arith.remui %[[T]], %c128 : index
// CHECK: %[[COL:.*]] = arith.muli %[[PIECE]], %c2 : index
// CHECK: %[[N:.*]] = arith.addi %{{.*}}, %[[COL]] : index
// CHECK: %[[NIN:.*]] = arith.cmpi ult, %[[N]], %c250 : index
// CHECK: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: arith.muli %{{.*}}, %c30000 : index
// CHECK: %[[R0:.*]] = arith.divui %[[T]], %c128 : index
// CHECK: scf.for %[[R:.*]] = %[[R0]] to %c64 step %c1 {
// CHECK: %[[KIN:.*]] = arith.cmpi ult, %{{.*}}, %c120 : index
// CHECK: %[[OK:.*]] = arith.andi %[[NIN]], %[[KIN]] : i1
// CHECK: %[[FROM:.*]] = arith.select %[[OK]], %{{.*}}, %[[BASE]] : index
// CHECK: %[[SIZE:.*]] = arith.select %[[OK]], %c4_i32, %c0_i32 : i32
// CHECK: %[[ROW8:.*]] = arith.remui %[[R]], %c8 : index
// CHECK: arith.xori %{{.*}}, %[[ROW8]] : index
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache =  ca, %[[SIZE]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: }
// CHECK: %[[BAR:.*]] = nvgpu.mbarrier.get %[[FULL]][%[[SLOT]]]
// CHECK: %[[PTR:.*]] = llvm.inttoptr %[[BAR]] : i32 to !llvm.ptr<3>
// CHECK: nvvm.cp.async.mbarrier.arrive %[[PTR]] {noinc = true} : !llvm.ptr<3>
// CHECK-NOT: sck.load
