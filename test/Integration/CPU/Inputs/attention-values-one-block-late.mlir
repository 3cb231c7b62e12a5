// A scheduled attention kernel (sc-schedule-attention's output for 40
// queries over 200 keys in 64-key blocks) whose pipelined loop multiplies
// P of block i - 1 by the V of block i instead of its own:
// kernel-ir-attention.mlir checks that the CPU execution of the kernel IR,
// which reads each slot at the position a get names, shows it.

  func.func @late_values(%arg0: tensor<?x1x40x64xf16>, %arg1: tensor<?x1x200x64xf16>, %arg2: tensor<?x1x200x64xf16>) -> tensor<?x1x40x64xf16> {
    %0 = sc.attention %arg0, %arg1, %arg2 {sc.kernel_ir = @late_values_attention0_kernel} : tensor<?x1x40x64xf16>, tensor<?x1x200x64xf16>, tensor<?x1x200x64xf16> -> tensor<?x1x40x64xf16>
    return %0 : tensor<?x1x40x64xf16>
  }
  func.func private @late_values_attention0_kernel(%arg0: index) attributes {sck.consumers = 1 : i64, sck.op = "late_values/attention0"} {
    %c3 = arith.constant 3 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c200 = arith.constant 200 : index
    %c4 = arith.constant 4 : index
    %0 = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<64x64xf16>>
    %1 = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<64x64xf16>>
    %2 = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<64x64xf16>>
    sck.role  producer attributes {regs = 24 : i64} {
      sck.tile_loop %arg0, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
      ^bb0(%arg1: index, %arg2: index, %arg3: index):
        %3 = sck.tile_index
        %4 = arith.muli %arg2, %c64 : index
        %5 = sck.load "Q"[%c0, %4, %arg3, %arg1] : !sck.box<64x64xf16>
        sck.put %0[%3], %5 : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
        %6 = arith.muli %3, %c4 : index
        scf.for %arg4 = %c0 to %c4 step %c1 {
          %7 = arith.muli %arg4, %c64 : index
          %8 = sck.load "K"[%c0, %7, %arg3, %arg1] {transposed} : !sck.box<64x64xf16>
          %9 = sck.load "V"[%c0, %7, %arg3, %arg1] : !sck.box<64x64xf16>
          %10 = arith.addi %6, %arg4 : index
          sck.put %1[%10], %8 : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
          sck.put %2[%10], %9 : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
        }
      }
    }
    sck.role  consumer attributes {regs = 232 : i64} {
      sck.tile_loop %arg0, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
      ^bb0(%arg1: index, %arg2: index, %arg3: index):
        %3 = sck.tile_index
        %4 = arith.muli %arg2, %c64 : index
        %5 = arith.muli %3, %c4 : index
        %6 = sck.get %0[%3] : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xf16>
        %7 = sck.load_frag %6 : !sck.box<64x64xf16> -> !sck.frag<64x64xf16>
        sck.release %0[%3] : !sck.ring<!sck.box<64x64xf16>>
        %8 = sck.get %1[%5] : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xf16>
        %9 = sck.zero : !sck.acc<64x64xf32>
        %10 = sck.mma %7, %8, %9 : !sck.frag<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
        sck.mma_wait 0
        sck.release %1[%5] : !sck.ring<!sck.box<64x64xf16>>
        %11 = sck.softmax_init : !sck.acc<64x2xf32>
        %p, %newState = sck.softmax %10, %11 at %c0 of %c200 {scale = 1.250000e-01 : f32} : !sck.acc<64x64xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x64xf16>
        %12 = sck.zero : !sck.acc<64x64xf32>
        %13:3 = scf.for %arg4 = %c1 to %c4 step %c1 iter_args(%arg5 = %12, %arg6 = %newState, %arg7 = %p) -> (!sck.acc<64x64xf32>, !sck.acc<64x2xf32>, !sck.frag<64x64xf16>) {
          %18 = arith.addi %5, %arg4 : index
          %19 = arith.subi %18, %c1 : index
          %20 = sck.get %1[%18] : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xf16>
          %21 = sck.get %2[%18] : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xf16>
          %22 = sck.zero : !sck.acc<64x64xf32>
          %23 = sck.mma %7, %20, %22 : !sck.frag<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
          %24 = sck.mma %arg7, %21, %arg5 : !sck.frag<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
          sck.mma_wait 1
          sck.release %1[%18] : !sck.ring<!sck.box<64x64xf16>>
          %25 = arith.muli %arg4, %c64 : index
          %p_0, %newState_1 = sck.softmax %23, %arg6 at %25 of %c200 {scale = 1.250000e-01 : f32} : !sck.acc<64x64xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x64xf16>
          sck.mma_wait 0
          sck.release %2[%19] : !sck.ring<!sck.box<64x64xf16>>
          %26 = sck.rescale %24, %arg6 to %newState_1 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
          scf.yield %26, %newState_1, %p_0 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>, !sck.frag<64x64xf16>
        }
        %14 = arith.addi %5, %c3 : index
        %15 = sck.get %2[%14] : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xf16>
        %16 = sck.mma %13#2, %15, %13#0 : !sck.frag<64x64xf16>, !sck.box<64x64xf16>, !sck.acc<64x64xf32>
        sck.mma_wait 0
        sck.release %2[%14] : !sck.ring<!sck.box<64x64xf16>>
        %17 = sck.normalize %16, %13#1 : !sck.acc<64x64xf32>, !sck.acc<64x2xf32>
        sck.epilogue "O"[%c0, %4, %arg3, %arg1], %17 : !sck.acc<64x64xf32>
      }
    }
    return
  }


