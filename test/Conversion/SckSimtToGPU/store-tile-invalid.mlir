// RUN: sparcast-opt %s -verify-diagnostics -sc-lower-sck-simt

// sck.store_tile's epilogue function must take (element, row, column,
// ins...) to the result's element type: lowering it otherwise is an error.

gpu.module @m {
  func.func private @epi(%x: f32, %m: index, %n: index) -> f32 {
    return %x : f32
  }
  gpu.func @store(%t: vector<64xf32>, %out: memref<?x?xf16>, %r: index) kernel {
    // expected-error @below {{failed to legalize operation 'sck.store_tile'}}
    // expected-error @below {{expected 'epi' to be a function of the gpu.module taking (f32, index, index, ins...) to 'f16'}}
    sck.store_tile %t, %out[%r, %r] epilogue @epi : vector<64xf32>, memref<?x?xf16>
    gpu.return
  }
}
