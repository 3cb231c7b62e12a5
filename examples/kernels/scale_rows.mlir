// A minimal hand-written kernel: every block scales one row of x in place.
// The demo compiles it to PTX (and cubin when ptxas is installed).
gpu.module @kernels {
  gpu.func @scale_rows(%x: memref<?x256xf32>, %s: f32) kernel
      attributes {gpu.known_block_size = array<i32: 256, 1, 1>} {
    %row = gpu.block_id x
    %col = gpu.thread_id x
    %v = memref.load %x[%row, %col] : memref<?x256xf32>
    %r = arith.mulf %v, %s : f32
    memref.store %r, %x[%row, %col] : memref<?x256xf32>
    gpu.return
  }
}
