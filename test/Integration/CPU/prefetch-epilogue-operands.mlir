// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline,func.func(sc-select-kernel-config{schedule=pingpong}),sc-lower-to-sck,sc-persistent,sc-warp-specialize,sc-prefetch-epilogue-operands,sc-test-execute-kernel-ir)' --users=4 --candidates=17 --trials=2 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline,func.func(sc-select-kernel-config{schedule=cooperative}),sc-lower-to-sck,sc-persistent,sc-warp-specialize,sc-prefetch-epilogue-operands,sc-test-execute-kernel-ir)' --users=5 --candidates=9 --trials=2 --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %sparcast_src_root/test/Integration/CPU/Inputs/lce-odd.mlir --ref=lce --pass-pipeline='builtin.module(sc-ikbo-pipeline,func.func(sc-select-kernel-config{schedule=transposed}),sc-lower-to-sck,sc-persistent,sc-multicast{shared-rhs-only=1},sc-warp-specialize,sc-prefetch-epilogue-operands,sc-test-execute-kernel-ir)' --users=4 --candidates=17 --trials=2 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=gather_bias --pass-pipeline='builtin.module(sc-lower-to-sck,sc-persistent,sc-warp-specialize,sc-prefetch-epilogue-operands,sc-test-execute-kernel-ir)' --users=3 --candidates=7 --trials=2 --shuffle-index --rtol=2e-3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=gather_bias --pass-pipeline='builtin.module(sc-lower-to-sck,sc-prefetch-epilogue-operands,sc-persistent,sc-warp-specialize,sc-test-execute-kernel-ir)' --users=3 --candidates=7 --trials=2 --rtol=2e-3 | FileCheck %s

// sc-prefetch-epilogue-operands keeps each GEMM's meaning: the epilogue
// reading the box of the gathered tile (loaded at the tile's start, at
// the index's value for the tile's batch element) gives what reading the
// operand in place gave. The LCE's candidate GEMM after the IKBO pipeline
// (the request GEMM's f32 result gathered per candidate) in ping-pong,
// cooperative and transposed tiles (the box in the result's orientation); an
// f16 operand gathered next to a bias over several M and N tiles, the pass
// run after or before sc-warp-specialize (the box stays with the
// consumers).
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @gather_bias(%w: tensor<70x40xf16>,
                       %e: tensor<?x40x300xf16> {sc.lineage = #sc.lineage<candidate>},
                       %x: tensor<?x70x300xf16> {sc.lineage = #sc.lineage<request>},
                       %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>},
                       %bias: tensor<300xf32>) -> tensor<?x70x300xf16> {
  %o = sc.batch_matmul %w, %e epilogue_ins(%x, %idx, %bias : tensor<?x70x300xf16>, tensor<?xi32>, tensor<300xf32>) : tensor<70x40xf16>, tensor<?x40x300xf16> -> tensor<?x70x300xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %xs: tensor<?x70x300xf16>, %is: tensor<?xi32>, %bs: tensor<300xf32>):
    %u = tensor.extract %is[%b] : tensor<?xi32>
    %g = arith.index_cast %u : i32 to index
    %v = tensor.extract %xs[%g, %m, %n] : tensor<?x70x300xf16>
    %vf = arith.extf %v : f16 to f32
    %bv = tensor.extract %bs[%n] : tensor<300xf32>
    %s = arith.addf %acc, %vf : f32
    %s2 = arith.addf %s, %bv : f32
    %t = arith.truncf %s2 : f32 to f16
    sc.yield %t : f16
  }
  return %o : tensor<?x70x300xf16>
}
