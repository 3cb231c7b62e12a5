// A multistage kernel whose puts run one k-tile too far ahead of its gets
// (two ring slots, k-tile k + 2 put into the slot k-tile k is about to be
// read from): kernel-ir-multistage.mlir checks that the CPU execution of
// the kernel IR, which keeps only the ring's slots, shows the overwrite.
func.func @bmm(%a: tensor<?x128x96xf16> {sc.lineage = #sc.lineage<candidate>}, %b: tensor<?x96x128xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x128x128xf32> {
  %o = sc.batch_matmul %a, %b {sc.gemm_schedule = #sc.gemm_schedule<multistage>, sc.kernel_ir = @bmm_kernel} : tensor<?x128x96xf16>, tensor<?x96x128xf16> -> tensor<?x128x128xf32>
  return %o : tensor<?x128x128xf32>
}
func.func private @bmm_kernel(%batch: index) attributes {sck.schedule = #sck.kernel_schedule<multistage>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %ring = sck.ring {stages = 2 : i64} : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>
  sck.tile_loop %batch, %c1, %c1 attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%i: index, %mt: index, %nt: index):
    %zero = sck.zero : !sck.acc<128x128xf32>
    %a0 = sck.load "A"[%c0, %c0, %i] : !sck.box<128x32xf16>
    %b0 = sck.load "B"[%c0, %c0, %i] : !sck.box<32x128xf16>
    sck.put %ring[%c0], %a0, %b0 : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>, !sck.box<128x32xf16>, !sck.box<32x128xf16>
    %a1 = sck.load "A"[%c32, %c0, %i] : !sck.box<128x32xf16>
    %b1 = sck.load "B"[%c0, %c32, %i] : !sck.box<32x128xf16>
    sck.put %ring[%c1], %a1, %b1 : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>, !sck.box<128x32xf16>, !sck.box<32x128xf16>
    %acc = scf.for %k = %c0 to %c3 step %c1 iter_args(%x = %zero) -> (!sck.acc<128x128xf32>) {
      %next = arith.addi %k, %c2 : index
      %k0 = arith.muli %next, %c32 : index
      %an = sck.load "A"[%k0, %c0, %i] : !sck.box<128x32xf16>
      %bn = sck.load "B"[%c0, %k0, %i] : !sck.box<32x128xf16>
      sck.put %ring[%next], %an, %bn : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>>, !sck.box<128x32xf16>, !sck.box<32x128xf16>
      %got:2 = sck.get %ring[%k] : !sck.ring<!sck.box<128x32xf16>, !sck.box<32x128xf16>> -> !sck.box<128x32xf16>, !sck.box<32x128xf16>
      %r = sck.mma %got#0, %got#1, %x : !sck.box<128x32xf16>, !sck.box<32x128xf16>, !sck.acc<128x128xf32>
      scf.yield %r : !sck.acc<128x128xf32>
    }
    sck.epilogue "C"[%c0, %c0, %i], %acc : !sck.acc<128x128xf32>
  }
  return
}
