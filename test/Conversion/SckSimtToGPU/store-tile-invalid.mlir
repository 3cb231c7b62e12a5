// RUN: sparcast-opt %s -split-input-file -verify-diagnostics -sc-lower-sck-simt

// sck.store_tile's and sck.scatter_add's epilogue functions must take (element, row, column,
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

// -----

// sck.scatter_add's scaled_by function must take (f32, row, column, ins...)
// to f32.
gpu.module @m {
  func.func private @two(%x: f32, %m: index, %n: index, %a: memref<?xf32>) -> f32 {
    return %x : f32
  }
  gpu.func @scatter(%x: f32, %out: memref<?x?xf32>, %r: index) kernel {
    // expected-error @below {{failed to legalize operation 'sck.scatter_add'}}
    // expected-error @below {{expected 'two' to be a function of the gpu.module taking (f32, index, index, ins...) to 'f32'}}
    sck.scatter_add %x, %out[%r, %r] scaled_by @two : memref<?x?xf32>
    gpu.return
  }
}
