module {
  func.func @bmm(%arg0: tensor<?x128x192xf16>, %arg1: tensor<?x192x256xf16>) -> tensor<?x128x256xf16> {
    %0 = sc.batch_matmul %arg0, %arg1 {sc.gemm_schedule = #sc.gemm_schedule<pingpong>, sc.kernel_ir = @bmm_gemm0_kernel} : tensor<?x128x192xf16>, tensor<?x192x256xf16> -> tensor<?x128x256xf16>
    return %0 : tensor<?x128x256xf16>
  }
  func.func private @bmm_gemm0_kernel(%arg0: index) attributes {sck.op = "bmm/gemm0", sck.schedule = #sck.kernel_schedule<pingpong>} {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %c64 = arith.constant 64 : index
    %c1_0 = arith.constant 1 : index
    %c0_1 = arith.constant 0 : index
    %c256_2 = arith.constant 256 : index
    %c64_3 = arith.constant 64 : index
    %c2 = arith.constant 2 : index
    %c1_4 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %0 = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
    sck.role  producer attributes {regs = 40 : i64} {
      sck.tile_loop %arg0, %c2, %c1_4 attributes {cluster = 2 : i64, group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%arg1: index, %arg2: index, %arg3: index):
        %1 = arith.muli %arg2, %c64_3 : index
        %2 = arith.muli %arg3, %c256_2 : index
        scf.for %arg4 = %c0_1 to %c3 step %c1_0 {
          %3 = arith.muli %arg4, %c64_3 : index
          %4 = sck.load "A"[%3, %1, %arg1] : !sck.box<64x64xf16>
          %5 = sck.load "B"[%2, %3, %arg1] : !sck.box<64x256xf16>
          sck.put %0, %4, %5 : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>, !sck.box<64x64xf16>, !sck.box<64x256xf16>
        }
      }
    }
    sck.role  consumer attributes {count = 2 : i64, order = #sck.consumer_order<pingpong>, regs = 232 : i64} {
      sck.tile_loop %arg0, %c2, %c1_4 attributes {cluster = 2 : i64, group = 8 : i64, schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%arg1: index, %arg2: index, %arg3: index):
        %1 = arith.muli %arg2, %c64 : index
        %2 = arith.muli %arg3, %c256 : index
        %3 = sck.zero : !sck.acc<64x256xf32>
        %4 = scf.for %arg4 = %c0 to %c3 step %c1 iter_args(%arg5 = %3) -> (!sck.acc<64x256xf32>) {
          %5:2 = sck.get %0 : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>> -> !sck.box<64x64xf16>, !sck.box<64x256xf16>
          %6 = sck.mma %5#0, %5#1, %arg5 : !sck.box<64x64xf16>, !sck.box<64x256xf16>, !sck.acc<64x256xf32>
          sck.release %0 : !sck.ring<!sck.box<64x64xf16>, !sck.box<64x256xf16>>
          scf.yield %6 : !sck.acc<64x256xf32>
        }
        sck.epilogue "C"[%2, %1, %arg1], %4 : !sck.acc<64x256xf32>
      }
    }
    return
  }
}

