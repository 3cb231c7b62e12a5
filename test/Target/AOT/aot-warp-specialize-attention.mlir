// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: sparcast-aot %S/Inputs/target_attention_long.mlir -o %t/tuned --ws-stages=2 --ws-producer-regs=24 --ws-consumer-regs=240 --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/tuned/target_attention_kernels.ptx
// RUN: not sparcast-aot %S/Inputs/target_attention_long.mlir -o %t/bad --ws-stages=4 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not sparcast-aot %sparcast_src_root/examples/target_attention.mlir -o %t/bad1 --ws-producer-regs=24 --ws-consumer-regs=240 2>&1 | FileCheck %s --check-prefix=ONE-BUDGET

// (on by default) lowers the attention kernels to the
// kernel-level IR as well (sc-lower-to-sck{attention=1}), splits the
// two-consumer ones into roles there (sc-warp-specialize: a Q ring and a
// key/value ring), and the attention generator reads the key/value ring's
// stages and the register split back: with other options than the
// defaults the kernels follow them (here the pairs kernel of a history of
// 2048 keys).
// CHECK: target_attention_long.mlir:{{[0-9]+}}: warp-specialized: producer (4 + 3 box(es) per pass through their blocks (one ring each), 24 registers) + 2 consumer(s) (turns, 240 registers), ring of 2 slots
// CHECK: kernel target_attention_attention1: {{.*}} 128-key blocks, 2 ring slots,
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill stores
// PTX: setmaxnreg.dec.sync.aligned.u32 24;
// PTX: setmaxnreg.inc.sync.aligned.u32 240;
// TOO-MANY: error: the kernel-level IR asks for 4 key/value ring slots; 3 fit in shared memory
// A history of 1024 keys takes one consumer a candidate, two CTAs an SM:
// 128 registers a thread at launch, so 24 + 240 do not fit.
// ONE-BUDGET: error: registers: producer 24 + 1 x 240 exceeds the launch budget of 2 x 128 (two CTAs an SM)
