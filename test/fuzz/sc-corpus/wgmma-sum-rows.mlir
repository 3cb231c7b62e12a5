gpu.module @kernels {
  gpu.func @gather_add(%a: !llvm.ptr {sck.operand = "A"}, %b: !llvm.ptr {sck.operand = "B"}, %c: memref<?x1x136xf32> {sck.operand = "C"}, %in0: memref<?x200x136xf32> {sck.operand = "in0"}, %in1: memref<?xi32> {sck.operand = "in1"}, %cmap: !llvm.ptr {sck.operand = "C.map"}, %xmap: !llvm.ptr {sck.operand = "in0.map"}) kernel attributes {sck.schedule = #sck.kernel_schedule<pingpong>} {
    %zero = arith.constant 0 : index
    %arg0 = memref.dim %c, %zero : memref<?x1x136xf32>
    %arg1 = builtin.unrealized_conversion_cast %in0 : memref<?x200x136xf32> to tensor<?x200x136xf32>
    %arg2 = builtin.unrealized_conversion_cast %in1 : memref<?xi32> to tensor<?xi32>
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %c64 = arith.constant 64 : index
    %c1_0 = arith.constant 1 : index
    %c0_1 = arith.constant 0 : index
    %c256_2 = arith.constant 256 : index
    %c64_3 = arith.constant 64 : index
    %c4 = arith.constant 4 : index
    %c1_4 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %0 = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
    sck.role  producer attributes {regs = 40 : i64} {
      sck.tile_loop %arg0, %c4, %c1_4 attributes {group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%arg3: index, %arg4: index, %arg5: index):
        %1 = sck.tile_index
        %c2_5 = arith.constant 2 : index
        %2 = arith.muli %1, %c2_5 : index
        %3 = arith.muli %arg4, %c64_3 : index
        %4 = arith.muli %arg5, %c256_2 : index
        scf.for %arg6 = %c0_1 to %c2 step %c1_0 {
          %5 = arith.muli %arg6, %c64_3 : index
          %6 = sck.load "A"[%5, %3] : !sck.box<64x64xf16>
          %7 = sck.load "B"[%4, %5, %arg3] : !sck.box<64x256xf16>
          %8 = arith.addi %2, %arg6 : index
          sck.put %0[%8], %6, %7 : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>, !sck.box<64x64xf16>, !sck.box<64x256xf16>
        }
      }
    }
    sck.role  consumer attributes {count = 2 : i64, order = #sck.consumer_order<pingpong>, regs = 232 : i64} {
      sck.tile_loop %arg0, %c4, %c1_4 attributes {group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%arg3: index, %arg4: index, %arg5: index):
        %1 = sck.tile_index
        sck.await_turn
        %c2_5 = arith.constant 2 : index
        %2 = arith.muli %1, %c2_5 : index
        %3 = arith.muli %arg4, %c64 : index
        %4 = arith.muli %arg5, %c256 : index
        %extracted = tensor.extract %arg2[%arg3] : tensor<?xi32>
        %5 = arith.index_cast %extracted : i32 to index
        %6 = sck.prefetch %arg1[%4, %3, %5] : tensor<?x200x136xf32> -> !sck.box<64x256xf32>
        %7 = sck.zero : !sck.acc<64x256xf32>
        %8:2 = sck.get %0[%2] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
        %9 = sck.mma %8#0, %8#1, %7 : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
        %c1_6 = arith.constant 1 : index
        %10 = scf.for %arg6 = %c1_6 to %c2 step %c1 iter_args(%arg7 = %9) -> (!sck.acc<64x256xf32>) {
          %12 = arith.addi %2, %arg6 : index
          %13:2 = sck.get %0[%12] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
          %14 = sck.mma %13#0, %13#1, %arg7 : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
          %15 = arith.subi %12, %c1_6 : index
          sck.release %0[%15] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
          scf.yield %14 : !sck.acc<64x256xf32>
        }
        %c1_7 = arith.constant 1 : index
        %11 = arith.addi %2, %c1_7 : index
        sck.pass_turn
        sck.mma_wait 0
        sck.release %0[%11] : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
        sck.epilogue "C"[%4, %3, %arg3], %10 ins(%6 : !sck.box<64x256xf32>) {sum_rows = 200 : i64} : !sck.acc<64x256xf32> {
        ^bb0(%arg6: f32, %arg7: index, %arg8: index, %arg9: index, %arg10: f32):
          %12 = arith.addf %arg6, %arg10 : f32
          %13 = arith.truncf %12 : f32 to f16
          sck.yield %13 : f16
        }
      }
    }
    gpu.return
  }
}

