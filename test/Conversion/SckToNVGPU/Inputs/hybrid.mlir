// The kernel-level IR of a hybrid-tiled GEMM (y = x W^T, W of 2 x 2 tiles of
// 64 x 128 dense or 2:4, 5 tokens in tiles of 8, one consumer) after
// sc-warp-specialize and sc-schedule-wgmma, in a gpu.func whose arguments are named for its ops and
// whose rings have 4 slots: the input of hybrid-patterns.mlir.
gpu.module @kernels {
  gpu.func @linear(%a: !llvm.ptr {sck.operand = "A"}, %dense: !llvm.ptr {sck.operand = "B.dense"}, %sparse: !llvm.ptr {sck.operand = "B.sparse"}, %meta: !llvm.ptr {sck.operand = "B.meta"}, %kinds: memref<2x2xi8> {sck.operand = "B.kinds"}, %slots: memref<2x2xi32> {sck.operand = "B.slots"}, %c: memref<?x5x128xf32> {sck.operand = "C"}) kernel attributes {sck.consumers = 1 : i64, sck.schedule = #sck.kernel_schedule<hybrid>} {
    %zero = arith.constant 0 : index
    %arg0 = memref.dim %c, %zero : memref<?x5x128xf32>
    %c128 = arith.constant 128 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c8 = arith.constant 8 : index
    %c128_0 = arith.constant 128 : index
    %c1_1 = arith.constant 1 : index
    %c2_2 = arith.constant 2 : index
    %c0_3 = arith.constant 0 : index
    %c64_4 = arith.constant 64 : index
    %c8_5 = arith.constant 8 : index
    %c1_6 = arith.constant 1 : index
    %c2_7 = arith.constant 2 : index
    %0 = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x8xf16>>
    %1 = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x128xf16>>
    %2 = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x4xi32>>
    sck.role  producer attributes {regs = 128 : i64} {
      sck.tile_loop %arg0, %c1_6, %c2_7 attributes {schedule = #sck.tile_schedule<grid>} {
      ^bb0(%arg1: index, %arg2: index, %arg3: index):
        %3 = arith.muli %arg2, %c8_5 : index
        %4 = arith.muli %arg3, %c64_4 : index
        %5 = arith.divui %4, %c64_4 : index
        %6 = arith.remui %4, %c64_4 : index
        scf.for %arg4 = %c0_3 to %c2_2 step %c1_1 {
          %7 = arith.muli %arg4, %c128_0 : index
          %8 = sck.load "A"[%7, %3, %arg1] {transposed} : !sck.box<128x8xf16>
          sck.put %0, %8 : !sck.ring<!sck.box<128x8xf16>>, !sck.box<128x8xf16>
          %kind, %slot = sck.hybrid_tile "B"[%5, %arg4]
          scf.index_switch %kind 
          case 1 {
            %9 = sck.load "B.dense"[%c0_3, %6, %slot] : !sck.box<64x128xf16>
            sck.put %1, %9 : !sck.ring<!sck.box<64x128xf16>>, !sck.box<64x128xf16>
            scf.yield
          }
          case 2 {
            %9 = sck.load "B.sparse"[%c0_3, %6, %slot] : !sck.box<64x64xf16>
            %10 = sck.load "B.meta"[%c0_3, %6, %slot] : !sck.box<64x4xi32>
            sck.put %2, %9, %10 : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x4xi32>>, !sck.box<64x64xf16>, !sck.box<64x4xi32>
            scf.yield
          }
          default {
          }
        }
      }
    }
    sck.role  consumer attributes {regs = 128 : i64} {
      sck.tile_loop %arg0, %c1_6, %c2_7 attributes {schedule = #sck.tile_schedule<grid>} {
      ^bb0(%arg1: index, %arg2: index, %arg3: index):
        %3 = arith.muli %arg2, %c8 : index
        %4 = arith.muli %arg3, %c64 : index
        %5 = arith.divui %4, %c64 : index
        %6 = sck.zero : !sck.acc<64x8xf32>
        %7 = scf.for %arg4 = %c0 to %c2 step %c1 iter_args(%arg5 = %6) -> (!sck.acc<64x8xf32>) {
          %8 = sck.get %0 : !sck.ring<!sck.box<128x8xf16>> -> !sck.box<128x8xf16>
          %kind, %slot = sck.hybrid_tile "B"[%5, %arg4]
          %9 = scf.index_switch %kind -> !sck.acc<64x8xf32> 
          case 1 {
            %10 = sck.get %1 : !sck.ring<!sck.box<64x128xf16>> -> !sck.box<64x128xf16>
            %11 = sck.mma %10, %8, %arg5 : !sck.box<64x128xf16>, !sck.box<128x8xf16>, !sck.acc<64x8xf32>
            scf.yield %11 : !sck.acc<64x8xf32>
          }
          case 2 {
            %10:2 = sck.get %2 : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x4xi32>> -> !sck.box<64x64xf16>, !sck.box<64x4xi32>
            %11 = sck.mma_sp %10#0, %10#1, %8, %arg5 : !sck.box<64x64xf16>, !sck.box<64x4xi32>, !sck.box<128x8xf16>, !sck.acc<64x8xf32>
            scf.yield %11 : !sck.acc<64x8xf32>
          }
          default {
            scf.yield %arg5 : !sck.acc<64x8xf32>
          }
          sck.mma_wait 0
          sck.release %0 : !sck.ring<!sck.box<128x8xf16>>
          scf.index_switch %kind
          case 1 {
            sck.release %1 : !sck.ring<!sck.box<64x128xf16>>
            scf.yield
          }
          case 2 {
            sck.release %2 : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x4xi32>>
            scf.yield
          }
          default {
          }
          scf.yield %9 : !sck.acc<64x8xf32>
        }
        sck.epilogue "C"[%4, %3, %arg1] transposed, %7 : !sck.acc<64x8xf32>
      }
    }
    gpu.return
  }
}
