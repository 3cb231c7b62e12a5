// RUN: sparcast-opt %s -split-input-file -sc-convert-sck-to-nvgpu -verify-diagnostics

// Kernel-level IR sc-convert-sck-to-nvgpu does not lower: a located error,
// nothing built.

gpu.module @kernels {
  // expected-error @below {{sck-to-nvgpu does not lower a tile loop outside roles (sc-warp-specialize did not run)}}
  gpu.func @unspecialized(%c: memref<?x64x256xf16> {sck.operand = "C"}) kernel {
    %c1 = arith.constant 1 : index
    sck.tile_loop %c1, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
    ^bb0(%b: index, %m: index, %n: index):
    }
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @stages_left_open(%a: !llvm.ptr {sck.operand = "A"}, %bm: !llvm.ptr {sck.operand = "B"}, %c: memref<?x64x256xf16> {sck.operand = "C"}, %cmap: !llvm.ptr {sck.operand = "C.map"}) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %batch = memref.dim %c, %c0 : memref<?x64x256xf16>
    // expected-error @below {{sck-to-nvgpu: a ring of its stages (2 or more), not as many as fit}}
    %ring = sck.ring {stages = 0 : i64} : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
    sck.role producer attributes {regs = 40 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%b: index, %m: index, %n: index):
        %t = sck.tile_index
        %x = sck.load "A"[%c0, %m] : !sck.box<128x64xf16>
        %y = sck.load "B"[%n, %c0, %b] : !sck.box<64x256xf16>
        sck.put %ring[%t], %x, %y : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>, !sck.box<128x64xf16>, !sck.box<64x256xf16>
      }
    }
    sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>, regs = 232 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%b: index, %m: index, %n: index):
        %t = sck.tile_index
        %zero = sck.zero : !sck.acc<128x256xf32>
        %g:2 = sck.get %ring[%t] : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>> -> !sck.box<128x64xf16>, !sck.box<64x256xf16>
        %acc = sck.mma %g#0, %g#1, %zero : !sck.box<128x64xf16>, !sck.box<64x256xf16>, !sck.acc<128x256xf32>
        sck.mma_wait 0
        sck.release %ring[%t] : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
        sck.epilogue "C"[%n, %m, %b], %acc : !sck.acc<128x256xf32>
      }
    }
    gpu.return
  }
}

// -----

gpu.module @kernels {
  gpu.func @get_of_the_next_slot(%a: !llvm.ptr {sck.operand = "A"}, %bm: !llvm.ptr {sck.operand = "B"}, %c: memref<?x64x256xf16> {sck.operand = "C"}, %cmap: !llvm.ptr {sck.operand = "C.map"}) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %batch = memref.dim %c, %c0 : memref<?x64x256xf16>
    %ring = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
    sck.role producer attributes {regs = 40 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%b: index, %m: index, %n: index):
        %t = sck.tile_index
        %x = sck.load "A"[%c0, %m] : !sck.box<128x64xf16>
        %y = sck.load "B"[%n, %c0, %b] : !sck.box<64x256xf16>
        sck.put %ring[%t], %x, %y : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>, !sck.box<128x64xf16>, !sck.box<64x256xf16>
      }
    }
    sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>, regs = 232 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%b: index, %m: index, %n: index):
        %t = sck.tile_index
        %zero = sck.zero : !sck.acc<128x256xf32>
        // expected-error @below {{sck-to-nvgpu: a get at a named ring position (sc-schedule-wgmma)}}
        %g:2 = sck.get %ring : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>> -> !sck.box<128x64xf16>, !sck.box<64x256xf16>
        %acc = sck.mma %g#0, %g#1, %zero : !sck.box<128x64xf16>, !sck.box<64x256xf16>, !sck.acc<128x256xf32>
        sck.mma_wait 0
        sck.release %ring[%t] : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
        sck.epilogue "C"[%n, %m, %b], %acc : !sck.acc<128x256xf32>
      }
    }
    gpu.return
  }
}

// -----

gpu.module @kernels {
  // expected-error @below {{sck-to-nvgpu: a kernel of arguments named A, B (tensor maps), C (the result's memref [B, M, N], M and N static) and C.map (but with direct stores)}}
  gpu.func @unnamed_operands(%a: !llvm.ptr, %bm: !llvm.ptr, %c: memref<?x64x256xf16>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %batch = memref.dim %c, %c0 : memref<?x64x256xf16>
    %ring = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
    sck.role producer attributes {regs = 40 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%b: index, %m: index, %n: index):
        %t = sck.tile_index
        %x = sck.load "A"[%c0, %m] : !sck.box<128x64xf16>
        %y = sck.load "B"[%n, %c0, %b] : !sck.box<64x256xf16>
        sck.put %ring[%t], %x, %y : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>, !sck.box<128x64xf16>, !sck.box<64x256xf16>
      }
    }
    sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>, regs = 232 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%b: index, %m: index, %n: index):
        %zero = sck.zero : !sck.acc<128x256xf32>
        sck.epilogue "C"[%n, %m, %b], %zero : !sck.acc<128x256xf32>
      }
    }
    gpu.return
  }
}

// -----

// B passed as a memref, but the kernel-level IR loads its boxes by TMA.
gpu.module @kernels {
  // expected-error @below {{sck-to-nvgpu: B is a memref exactly when the kernel-level IR loads its boxes by threads}}
  gpu.func @memref_b_by_tma(%a: !llvm.ptr {sck.operand = "A"}, %bm: memref<?x64x256xf16> {sck.operand = "B"}, %c: memref<?x64x256xf16> {sck.operand = "C"}, %cmap: !llvm.ptr {sck.operand = "C.map"}) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %batch = memref.dim %c, %c0 : memref<?x64x256xf16>
    %ring = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
    sck.role producer attributes {regs = 40 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%b: index, %m: index, %n: index):
        %t = sck.tile_index
        %x = sck.load "A"[%c0, %m] : !sck.box<128x64xf16>
        %y = sck.load "B"[%n, %c0, %b] : !sck.box<64x256xf16>
        sck.put %ring[%t], %x, %y : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>, !sck.box<128x64xf16>, !sck.box<64x256xf16>
      }
    }
    sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>, regs = 232 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%b: index, %m: index, %n: index):
        %zero = sck.zero : !sck.acc<128x256xf32>
        sck.epilogue "C"[%n, %m, %b], %zero : !sck.acc<128x256xf32>
      }
    }
    gpu.return
  }
}

// -----

// Only B's boxes are copied by threads (A's rows are padded to 16 bytes).
gpu.module @kernels {
  // expected-error @below {{sck-to-nvgpu does not lower a box of A loaded by threads}}
  gpu.func @a_by_threads(%a: !llvm.ptr {sck.operand = "A"}, %bm: !llvm.ptr {sck.operand = "B"}, %c: memref<?x64x256xf16> {sck.operand = "C"}, %cmap: !llvm.ptr {sck.operand = "C.map"}) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %batch = memref.dim %c, %c0 : memref<?x64x256xf16>
    %ring = sck.ring {stages = 4 : i64} : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>
    sck.role producer attributes {regs = 40 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%b: index, %m: index, %n: index):
        %t = sck.tile_index
        %x = sck.load "A"[%c0, %m] {by_threads} : !sck.box<128x64xf16>
        %y = sck.load "B"[%n, %c0, %b] : !sck.box<64x256xf16>
        sck.put %ring[%t], %x, %y : !sck.ring<!sck.box<128x64xf16>, !sck.box<64x256xf16>>, !sck.box<128x64xf16>, !sck.box<64x256xf16>
      }
    }
    sck.role consumer attributes {count = 2 : i64, order = #sck.consumer_order<cooperative>, regs = 232 : i64} {
      sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<persistent>} {
      ^bb0(%b: index, %m: index, %n: index):
        %zero = sck.zero : !sck.acc<128x256xf32>
        sck.epilogue "C"[%n, %m, %b], %zero : !sck.acc<128x256xf32>
      }
    }
    gpu.return
  }
}
