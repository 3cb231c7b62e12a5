// RUN: sparcast-translate --mlir-to-ptx %s > %t.ptx
// RUN: FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a %t.ptx -o %t.cubin %}

// Kernel arguments marked sc.tensor_map (sparcast-aot marks every TMA map
// a launch passes) become 128-byte grid-constant parameters, 64-byte
// aligned, at their place among the lowered parameters (the rank-1 memref
// before %o takes five); the TMA load, its prefetch and the store read the
// map through the parameter's generic address. Unmarked pointers stay
// pointers.

// CHECK-LABEL: .visible .entry copy_tile(
// CHECK-NEXT: .param .align 64 .b8 copy_tile_param_0[128],
// CHECK-NEXT: .param .u64 {{.*}}copy_tile_param_1,
// CHECK: .param .u64 copy_tile_param_5,
// CHECK-NEXT: .param .align 64 .b8 copy_tile_param_6[128],
// CHECK-NEXT: .param .u64 {{.*}}copy_tile_param_7
// CHECK: cvta.param.u64
// CHECK: prefetch{{.*}}tensormap
// CHECK: cp.async.bulk.tensor.2d.shared::cluster.global
// CHECK: cp.async.bulk.tensor.2d.global.shared::cta

!map = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
!bars = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>, num_barriers = 1>
!tile = memref<64x64xf16, #gpu.address_space<workgroup>>

gpu.module @kernels {
  gpu.func @copy_tile(%ip: !llvm.ptr {sc.tensor_map}, %flags: memref<?xi32>,
                      %op: !llvm.ptr {sc.tensor_map}, %other: !llvm.ptr) kernel
      attributes {nvvm.maxntid = array<i32: 128, 1, 1>} {
    %c0 = arith.constant 0 : index
    %in = builtin.unrealized_conversion_cast %ip : !llvm.ptr to !map
    %out = builtin.unrealized_conversion_cast %op : !llvm.ptr to !map
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %t = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to !tile
    %b = nvgpu.mbarrier.create -> !bars
    nvgpu.tma.prefetch.descriptor %in : !map
    nvgpu.tma.async.load %in[%c0, %c0], %b[%c0] to %t : !map, !bars -> !tile
    nvgpu.tma.async.store %t to %out[%c0, %c0] : !tile -> !map
    gpu.return
  }
}
