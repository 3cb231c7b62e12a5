// RUN: sparcast-opt %s -split-input-file -verify-diagnostics

func.func @bad_box() {
  // expected-error @below {{a box must be a 2-D tile of positive extent}}
  %b = sck.load "A"[] : !sck.box<64xf16>
  return
}

// -----

func.func @acc_not_f32() {
  // expected-error @below {{accumulators are f32}}
  %z = sck.zero : !sck.acc<64x64xf16>
  return
}

// -----

func.func @mma_shapes(%k: index) {
  %a = sck.load "A"[%k] : !sck.box<64x64xf16>
  %b = sck.load "B"[%k] : !sck.box<32x256xf16>
  %z = sck.zero : !sck.acc<64x256xf32>
  // expected-error @below {{shapes do not compose}}
  %n = sck.mma %a, %b, %z : !sck.box<64x64xf16>, !sck.box<32x256xf16>, !sck.acc<64x256xf32>
  return
}

// -----

func.func @mma_types(%k: index) {
  %a = sck.load "A"[%k] : !sck.box<64x64xf16>
  %b = sck.load "B"[%k] : !sck.box<64x256xbf16>
  %z = sck.zero : !sck.acc<64x256xf32>
  // expected-error @below {{operands of different element types}}
  %n = sck.mma %a, %b, %z : !sck.box<64x64xf16>, !sck.box<64x256xbf16>, !sck.acc<64x256xf32>
  return
}

// -----

func.func @one_stage() {
  // expected-error @below {{needs 2 to 64 stages (one loading while one is read), or 0 for as many as fit, got 1}}
  %r = sck.ring {stages = 1} : !sck.ring<!sck.box<64x64xf16>>
  return
}

// -----

func.func @negative_stages() {
  // expected-error @below {{needs 2 to 64 stages (one loading while one is read), or 0 for as many as fit, got -5}}
  %r = sck.ring {stages = -5} : !sck.ring<!sck.box<64x64xf16>>
  return
}

// -----

func.func @put_outside_roles_unnamed(%k: index) {
  %r = sck.ring {stages = 2} : !sck.ring<!sck.box<64x64xf16>>
  %a = sck.load "A"[%k] : !sck.box<64x64xf16>
  // expected-error @below {{outside roles puts into the ring position it names}}
  sck.put %r, %a : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
  return
}

// -----

func.func @put_in_consumer(%k: index) {
  %r = sck.ring {stages = 2} : !sck.ring<!sck.box<64x64xf16>>
  sck.role consumer attributes {regs = 232} {
    %a = sck.load "A"[%k] : !sck.box<64x64xf16>
    // expected-error @below {{only a producer role puts into a ring}}
    sck.put %r, %a : !sck.ring<!sck.box<64x64xf16>>, !sck.box<64x64xf16>
  }
  return
}

// -----

func.func @release_in_producer(%k: index) {
  %r = sck.ring {stages = 2} : !sck.ring<!sck.box<64x64xf16>>
  sck.role producer attributes {regs = 40} {
    // expected-error @below {{'sck.release' op only in a consumer role}}
    sck.release %r[%k] : !sck.ring<!sck.box<64x64xf16>>
  }
  return
}

// -----

func.func @discard_outside_roles(%k: index) {
  %r = sck.ring {stages = 2} : !sck.ring<!sck.box<64x64xf16>>
  // expected-error @below {{'sck.discard' op only in a consumer role}}
  sck.discard %r[%k] : !sck.ring<!sck.box<64x64xf16>>
  return
}

// -----

func.func @mma_wait_negative() {
  sck.role consumer attributes {regs = 232} {
    // expected-error @below {{pending must be at least 0, got -1}}
    sck.mma_wait -1
  }
  return
}

// -----

func.func @turns_of_cooperative_consumers() {
  sck.role consumer attributes {count = 2, order = #sck.consumer_order<cooperative>, regs = 232} {
    // expected-error @below {{'sck.await_turn' op only in a consumer role whose consumers take turns (ping-pong or turns order)}}
    sck.await_turn
  }
  return
}

// -----

func.func @pass_turn_in_producer() {
  sck.role producer attributes {regs = 40} {
    // expected-error @below {{'sck.pass_turn' op only in a consumer role}}
    sck.pass_turn
  }
  return
}

// -----

func.func @tile_index_outside_tile_loop() {
  // expected-error @below {{'sck.tile_index' op expects parent op 'sck.tile_loop'}}
  %t = sck.tile_index
  return
}

// -----

func.func @get_wrong_types() {
  %r = sck.ring {stages = 2} : !sck.ring<!sck.box<64x64xf16>>
  sck.role consumer attributes {regs = 232} {
    // expected-error @below {{gets boxes of types that differ from the ring's slot}}
    %a = sck.get %r : !sck.ring<!sck.box<64x64xf16>> -> !sck.box<64x64xbf16>
  }
  return
}

// -----

func.func @regs() {
  // expected-error @below {{regs must be a multiple of 8 in [24, 256]}}
  sck.role producer attributes {regs = 42} {
  }
  return
}

// -----

// The roles' order and the tile loops' schedule are typed: a string is
// not one, nor is a name outside the enum.
func.func @order_string() {
  // expected-error @below {{attribute 'order' failed to satisfy constraint: how consumer warpgroups share tiles}}
  sck.role consumer attributes {regs = 232, count = 2, order = "pingpong"} {
  }
  return
}

// -----

func.func @unknown_order() {
  // expected-error @+2 {{expected ::mlir::sck::ConsumerOrder to be one of: cooperative, pingpong, turns}}
  // expected-error @+1 {{failed to parse Sck_ConsumerOrderAttr parameter 'value'}}
  sck.role consumer attributes {regs = 232, count = 2, order = #sck.consumer_order<alternate>} {
  }
  return
}

// -----

func.func @schedule(%n: index) {
  // expected-error @below {{attribute 'schedule' failed to satisfy constraint: how a tile loop's CTAs take its tiles}}
  sck.tile_loop %n, %n, %n attributes {schedule = "grid"} {
  ^bb0(%tb: index, %t: index, %tn: index):
  }
  return
}

// -----

func.func @unknown_schedule(%n: index) {
  // expected-error @+2 {{expected ::mlir::sck::TileSchedule to be one of: grid, persistent, chained}}
  // expected-error @+1 {{failed to parse Sck_TileScheduleAttr parameter 'value'}}
  sck.tile_loop %n, %n, %n attributes {schedule = #sck.tile_schedule<random>} {
  ^bb0(%tb: index, %t: index, %tn: index):
  }
  return
}

// -----

func.func @unknown_kind() {
  // expected-error @+2 {{expected ::mlir::sck::RoleKind to be one of: producer, consumer}}
  // expected-error @+1 {{failed to parse Sck_RoleKindAttr parameter 'value'}}
  sck.role worker attributes {regs = 232} {
  }
  return
}

// -----

func.func @tile_args(%n: index) {
  // expected-error @below {{expects three index block arguments (batch, M tile, N tile)}}
  sck.tile_loop %n, %n, %n attributes {schedule = #sck.tile_schedule<grid>} {
  ^bb0(%t: index):
  }
  return
}

// -----

func.func @epilogue_args(%n: index) {
  %zero = sck.zero : !sck.acc<64x256xf32>
  // expected-error @below {{region arguments must be (accumulator element, b, m, n, ins...): 4 of them, the first of type 'f32'}}
  sck.epilogue "C"[%n], %zero : !sck.acc<64x256xf32> {
  ^bb0(%acc: f16, %b: index, %m: index, %nn: index):
    sck.yield %acc : f16
  }
  return
}

// -----

func.func @epilogue_ins(%n: index, %x: tensor<?xf32>) {
  %zero = sck.zero : !sck.acc<64x256xf32>
  // expected-error @below {{has operands but no region to read them}}
  sck.epilogue "C"[%n], %zero ins(%x : tensor<?xf32>) : !sck.acc<64x256xf32>
  return
}

// -----

func.func @cluster(%n: index) {
  // expected-error @below {{cluster must be 1 or 2, got 3}}
  sck.tile_loop %n, %n, %n attributes {schedule = #sck.tile_schedule<persistent>, cluster = 3} {
  ^bb0(%b: index, %m: index, %nn: index):
  }
  return
}

// -----

func.func @cluster_grid(%n: index) {
  // expected-error @below {{a cluster of 2 (multicast) needs the persistent schedule: CTAs of a pair wait on each other}}
  sck.tile_loop %n, %n, %n attributes {schedule = #sck.tile_schedule<grid>, cluster = 2} {
  ^bb0(%b: index, %m: index, %nn: index):
  }
  return
}

// -----

func.func @softmax_state_shape(%s: !sck.acc<64x128xf32>, %o: !sck.acc<64x64xf32>, %k: index) {
  // expected-error @below {{statistics are M x 2 (running maximum, sum), got '!sck.acc<64x3xf32>'}}
  %st = sck.softmax_init : !sck.acc<64x3xf32>
  return
}

// -----

func.func @softmax_rows(%s: !sck.acc<64x128xf32>, %o: !sck.acc<64x64xf32>, %st: !sck.acc<32x2xf32>, %k: index) {
  %keys10 = arith.constant 10 : index
  // expected-error @below {{statistics of 32 rows for a tile of 64}}
  %p, %stn = sck.softmax %s, %st at %k of %keys10 {scale = 1.0 : f32} : !sck.acc<64x128xf32>, !sck.acc<32x2xf32> -> !sck.frag<64x128xf16>
  return
}

// -----

func.func @softmax_p_shape(%s: !sck.acc<64x128xf32>, %o: !sck.acc<64x64xf32>, %st: !sck.acc<64x2xf32>, %k: index) {
  %keys10 = arith.constant 10 : index
  // expected-error @below {{P must have the scores' shape, got '!sck.frag<64x64xf16>' for '!sck.acc<64x128xf32>'}}
  %p, %stn = sck.softmax %s, %st at %k of %keys10 {scale = 1.0 : f32} : !sck.acc<64x128xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x64xf16>
  return
}

// -----

func.func @softmax_p_type(%s: !sck.acc<64x128xf32>, %o: !sck.acc<64x64xf32>, %st: !sck.acc<64x2xf32>, %k: index) {
  %keys10 = arith.constant 10 : index
  // expected-error @below {{P is f16 or bf16 (an MMA operand), got 'f32'}}
  %p, %stn = sck.softmax %s, %st at %k of %keys10 {scale = 1.0 : f32} : !sck.acc<64x128xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x128xf32>
  return
}

// -----

func.func @rescale_rows(%o: !sck.acc<32x64xf32>, %st: !sck.acc<64x2xf32>, %st2: !sck.acc<64x2xf32>) {
  // expected-error @below {{statistics of 64 rows for a tile of 32}}
  %on = sck.rescale %o, %st to %st2 : !sck.acc<32x64xf32>, !sck.acc<64x2xf32>
  return
}

// -----

func.func @softmax_no_keys(%s: !sck.acc<64x128xf32>, %o: !sck.acc<64x64xf32>, %st: !sck.acc<64x2xf32>, %k: index) {
  %keys0 = arith.constant 0 : index
  // expected-error @below {{needs at least one key, got 0}}
  %p, %stn = sck.softmax %s, %st at %k of %keys0 {scale = 1.0 : f32} : !sck.acc<64x128xf32>, !sck.acc<64x2xf32> -> !sck.frag<64x128xf16>
  return
}

// -----

func.func @normalize_rows(%o: !sck.acc<64x64xf32>, %st: !sck.acc<128x2xf32>) {
  // expected-error @below {{statistics of 128 rows for a tile of 64}}
  %n = sck.normalize %o, %st : !sck.acc<64x64xf32>, !sck.acc<128x2xf32>
  return
}

// -----

func.func @prefetch_coords(%x: tensor<?x64x256xf32>, %n: index) {
  // expected-error @below {{expects 3 coordinates (the source's rank), got 2}}
  %box = sck.prefetch %x[%n, %n] : tensor<?x64x256xf32> -> !sck.box<64x256xf32>
  return
}

// -----

func.func @prefetch_element(%x: tensor<?x64x256xf32>, %n: index) {
  // expected-error @below {{box element type 'f16' differs from the source's 'f32'}}
  %box = sck.prefetch %x[%n, %n, %n] : tensor<?x64x256xf32> -> !sck.box<64x256xf16>
  return
}

// -----

func.func @epilogue_box_shape(%x: tensor<?x64x256xf32>, %n: index) {
  %zero = sck.zero : !sck.acc<64x256xf32>
  %box = sck.prefetch %x[%n, %n, %n] : tensor<?x64x256xf32> -> !sck.box<64x256xf32>
  // expected-error @below {{a box operand must have the tile's shape 256x64, got '!sck.box<64x256xf32>'}}
  sck.epilogue "C"[%n, %n, %n] transposed, %zero ins(%box : !sck.box<64x256xf32>) : !sck.acc<64x256xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %nn: index, %v: f32):
    sck.yield %acc : f32
  }
  return
}

// -----

func.func @epilogue_box_element(%x: tensor<?x64x256xf32>, %n: index) {
  %zero = sck.zero : !sck.acc<64x256xf32>
  %box = sck.prefetch %x[%n, %n, %n] : tensor<?x64x256xf32> -> !sck.box<64x256xf32>
  // expected-error @below {{region arguments must be (accumulator element, b, m, n, ins...): 5 of them, the first of type 'f32'}}
  sck.epilogue "C"[%n, %n, %n], %zero ins(%box : !sck.box<64x256xf32>) : !sck.acc<64x256xf32> {
  ^bb0(%acc: f32, %b: index, %m: index, %nn: index, %v: tensor<?x64x256xf32>):
    sck.yield %acc : f32
  }
  return
}

// -----

func.func @mma_sp_shapes(%n: index) {
  %zero = sck.zero : !sck.acc<64x8xf32>
  %a = sck.load "B.sparse"[%n, %n, %n] : !sck.box<64x32xf16>
  %e = sck.load "B.meta"[%n, %n, %n] : !sck.box<64x4xi32>
  %x = sck.load "A"[%n, %n, %n] {transposed} : !sck.box<128x8xf16>
  // expected-error @below {{shapes do not compose: '!sck.box<64x32xf16>' (two of four) with '!sck.box<64x4xi32>' times '!sck.box<128x8xf16>' into '!sck.acc<64x8xf32>'}}
  %r = sck.mma_sp %a, %e, %x, %zero : !sck.box<64x32xf16>, !sck.box<64x4xi32>, !sck.box<128x8xf16>, !sck.acc<64x8xf32>
  return
}

// -----

func.func @mma_sp_metadata(%n: index) {
  %zero = sck.zero : !sck.acc<64x8xf32>
  %a = sck.load "B.sparse"[%n, %n, %n] : !sck.box<64x64xf16>
  %e = sck.load "B.meta"[%n, %n, %n] : !sck.box<64x4xf32>
  %x = sck.load "A"[%n, %n, %n] {transposed} : !sck.box<128x8xf16>
  // expected-error @below {{metadata words are i32, got 'f32'}}
  %r = sck.mma_sp %a, %e, %x, %zero : !sck.box<64x64xf16>, !sck.box<64x4xf32>, !sck.box<128x8xf16>, !sck.acc<64x8xf32>
  return
}

// -----

func.func @consumer_index_outside_role() {
  // expected-error @below {{is the index of a consumer: inside a consumer role}}
  %c = sck.consumer_index
  return
}

// -----

func.func @consumer_index_in_producer() {
  sck.role producer attributes {regs = 40 : i64} {
    // expected-error @below {{is the index of a consumer: inside a consumer role}}
    %c = sck.consumer_index
  }
  return
}

// -----

func.func @load_frag_shape(%a: !sck.box<64x64xf16>) {
  // expected-error @below {{reads a box into a register tile of its shape and type, got '!sck.box<64x64xf16>' into '!sck.frag<64x32xf16>'}}
  %f = sck.load_frag %a : !sck.box<64x64xf16> -> !sck.frag<64x32xf16>
  return
}

// -----

func.func @mma_register_shapes(%f: !sck.frag<64x32xf16>, %b: !sck.box<64x128xf16>, %z: !sck.acc<64x128xf32>) {
  // expected-error @below {{shapes do not compose: '!sck.frag<64x32xf16>' times '!sck.box<64x128xf16>' into '!sck.acc<64x128xf32>'}}
  %r = sck.mma %f, %b, %z : !sck.frag<64x32xf16>, !sck.box<64x128xf16>, !sck.acc<64x128xf32>
  return
}

// -----

func.func @epilogue_sum_rows_without_region(%n: index) {
  %zero = sck.zero : !sck.acc<64x256xf32>
  // expected-error @below {{sum_rows needs the region and a row count of at least 1}}
  sck.epilogue "C"[%n], %zero {sum_rows = 6 : i64} : !sck.acc<64x256xf32>
  return
}
