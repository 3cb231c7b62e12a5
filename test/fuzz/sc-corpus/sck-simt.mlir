func.func @row(%ptr: memref<?xi32>, %r: index, %entries: index) -> (index, index) {
  %b, %e = sck.csr_row %ptr[%r] entries %entries : memref<?xi32>
  return %b, %e : index, index
}

func.func @entry(%words: memref<?xi32>, %values: memref<?xf32>, %e: index) -> (index, f32) {
  %c, %v = sck.csr_entry %words, %values[%e] {block_size = 1024 : i64, offset_bits = 10 : i64} : memref<?xi32>, memref<?xf32>
  return %c, %v : index, f32
}

func.func @add(%x: f32, %out: memref<?x?xf32>, %r: index, %c: index) {
  sck.scatter_add %x, %out[%r, %c] : memref<?x?xf32>
  return
}

gpu.module @m_stage_rows {
  gpu.func @stage(%src: memref<?x?xf32>, %stage: memref<16x132xf32, #gpu.address_space<workgroup>>, %r: index, %k: index) kernel {
    sck.stage_rows %src[%r, %k] into %stage {rows = 128 : i64} : memref<?x?xf32>, memref<16x132xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

gpu.module @m_fma_tile {
  gpu.func @tile(%a: memref<2x132xf32, #gpu.address_space<workgroup>>, %b: memref<2x132xf32, #gpu.address_space<workgroup>>, %acc: vector<64xf32>, %out: memref<64xf32>) kernel {
    %r = sck.fma_tile %a, %b, %acc : memref<2x132xf32, #gpu.address_space<workgroup>>, memref<2x132xf32, #gpu.address_space<workgroup>>, vector<64xf32>
    %c0 = arith.constant 0 : index
    vector.store %r, %out[%c0] : memref<64xf32>, vector<64xf32>
    gpu.return
  }
}

gpu.module @m_store_tile {
  func.func private @epi(%x: f32, %m: index, %n: index, %s: memref<?xf32>) -> f16 {
    %y = memref.load %s[%n] : memref<?xf32>
    %z = arith.mulf %x, %y : f32
    %h = arith.truncf %z : f32 to f16
    return %h : f16
  }
  gpu.func @store(%t: vector<64xf32>, %out: memref<?x?xf16>, %s: memref<?xf32>, %add: memref<?x?xf32>, %r: index, %c: index) kernel {
    sck.store_tile %t, %out[%r, %c] plus %add : memref<?x?xf32> epilogue @epi ins(%s : memref<?xf32>) : vector<64xf32>, memref<?x?xf16>
    gpu.return
  }
}

gpu.module @m_select_tile {
  func.func private @epi(%x: f32, %m: index, %n: index) -> f32 {
    return %x : f32
  }
  gpu.func @select(%t: vector<64xf32>, %add: memref<?x?xf32>, %th: memref<?xf32>, %cnt: memref<?xi32>, %v: memref<?x4096xf32>, %c: memref<?x4096xi32>, %r: index, %col: index, %rows: index, %cols: index) kernel {
    sck.select_tile %t[%r, %col] within [%rows, %cols] plus %add : memref<?x?xf32> epilogue @epi above %th into %cnt, %v, %c : vector<64xf32>, memref<?xf32>, memref<?xi32>, memref<?x4096xf32>, memref<?x4096xi32>
    gpu.return
  }
}

gpu.module @m_scaled_add {
  func.func private @cosine(%x: f32, %m: index, %n: index, %a: memref<?xf32>, %b: memref<?xf32>) -> f32 {
    %p = memref.load %a[%m] : memref<?xf32>
    %q = memref.load %b[%n] : memref<?xf32>
    %pq = arith.mulf %p, %q : f32
    %c = arith.divf %x, %pq : f32
    return %c : f32
  }
  gpu.func @add(%x: f32, %out: memref<?x?xf32>, %r: index, %c: index, %a: memref<?xf32>, %b: memref<?xf32>) kernel {
    sck.scatter_add %x, %out[%r, %c] scaled_by @cosine ins(%a, %b : memref<?xf32>, memref<?xf32>) : memref<?x?xf32>
    gpu.return
  }
}
