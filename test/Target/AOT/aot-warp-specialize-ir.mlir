// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// The candidate GEMM is dispatched on the dims (sc-dispatch-gemm-schedule):
// a kernel-level function for each of its kernels, the transposed one's
// N tiles in CTA pairs.
// RUN: sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/ir-report --report | FileCheck %s --check-prefix=DISPATCH
// Multicast decided on the IR (sc-multicast): the same kernels.
// RUN: sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/mc-ir --gemm-multicast --report | FileCheck %s --check-prefix=MC
// RUN: sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/tuned --gemm-schedule=pingpong --ws-stages=3 --ws-producer-regs=24 --ws-consumer-regs=240 --report | FileCheck %s
// RUN: FileCheck %s --check-prefix=PTX < %t/tuned/lce_kernels.ptx
// RUN: not sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/bad --ws-stages=6 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/bad --ws-consumer-regs=248 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/grid --ws-group=0 --report | FileCheck %s --check-prefix=GRID
// RUN: FileCheck %s --check-prefix=GRID-LAUNCH < %t/grid/manifest.json
// RUN: sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/g4 --ws-group=4 --report | FileCheck %s --check-prefix=G4
// RUN: not sparcast-aot %sparcast_src_root/examples/lce.mlir -o %t/bad --ws-group=-1 2>&1 | FileCheck %s --check-prefix=BAD-GROUP

// (on by default): each warp-specialized GEMM's ring and
// register split are decided on the kernel-level IR (sc-lower-to-sck,
// sc-warp-specialize); with other options than the defaults the kernels
// follow them.
// CHECK: lce.mlir:{{[0-9]+}}: warp-specialized: producer (2 box(es) per k-tile, 24 registers) + 2 consumer(s) (pingpong, 240 registers), ring of 3 slots
// CHECK: kernel lce_gemm{{[0-9]+}}: {{.*}} producer warpgroup (TMA, 24 registers) + 2 consumer warpgroups (wgmma + epilogue, 240 registers), {{.*}}, 3 stages,
// CHECK: kernel lce_gemm{{[0-9]+}}: {{.*}} producer warpgroup (TMA, 24 registers) + 2 consumer warpgroups (wgmma + epilogue, 240 registers), {{.*}}, 3 stages,
// CHECK-NOT: {{[1-9][0-9]*}} bytes spill stores
// PTX: setmaxnreg.dec.sync.aligned.u32 24;
// PTX: setmaxnreg.inc.sync.aligned.u32 240;
// TOO-MANY: error: the kernel-level IR asks for 6 ring stages; 4 fit
// BUDGET: error: registers: producer 40 + 2 x 248 exceeds the launch budget of 3 x 168

// sc-persistent (--ws-group, default 8) decides the tile loop's schedule:
// persistent with M tiles in groups of G, or, without it (0), one CTA per
// pair of ping-pong tiles, the launch sized from B at run time.
// GRID: kernel lce_gemm{{[0-9]+}}: {{.*}} warp-specialized, ping-pong: {{.*}} one CTA per pair of tiles, 
// GRID-LAUNCH: "U*7/2",
// GRID-LAUNCH: "B*7/2",
// G4: tile loop: persistent, M tiles in groups of 4
// G4: kernel lce_gemm{{[0-9]+}}: {{.*}} warp-specialized persistent, ping-pong: {{.*}} one CTA per SM walking tiles in groups of 4 M tiles
// BAD-GROUP: error: sc-persistent: group must lie in [1, 65536], got -1
// MC: tile loop: CTA pairs on pairs of M tiles, B shared by TMA multicast
// MC: kernel lce_gemm{{[0-9]+}}: {{.*}} clusters of 2 CTAs on pairs of M tiles sharing B by TMA multicast
// DISPATCH: GEMM schedule dispatched at run time
// DISPATCH-COUNT-3: tile loop: persistent, M tiles in groups of 8
// DISPATCH: tile loop: CTA pairs on pairs of N tiles, the shared lhs (W) by TMA multicast
// DISPATCH-COUNT-3: warp-specialized: producer
// DISPATCH: kernel lce_gemm3: {{.*}} transposed ping-pong: {{.*}} (launched when B >= U*64 and B >= 2048)
// DISPATCH: kernel lce_gemm4: {{.*}} ping-pong: {{.*}} (launched when not (B >= U*64 and B >= 2048))
