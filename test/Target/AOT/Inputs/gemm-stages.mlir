// Two GEMM pairs in the shape the IKBO pipeline leaves them (a user GEMM
// whose result a candidate GEMM's epilogue reads), which multi-stage fusion
// must refuse, and one it takes.

// The user GEMM's result is also returned: it cannot live inside the other
// kernel only.
func.func @also_returned(%w: tensor<64x64xf16>, %eu: tensor<?x64x128xf16> {sc.lineage = #sc.lineage<request>},
                         %ec: tensor<?x64x128xf16> {sc.lineage = #sc.lineage<candidate>},
                         %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> (tensor<?x64x128xf16>, tensor<?x64x128xf32>) {
  %u = sc.batch_matmul %w, %eu : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf32>
  %c = sc.batch_matmul %w, %ec epilogue_ins(%u, %idx : tensor<?x64x128xf32>, tensor<?xi32>)
      : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %ut: tensor<?x64x128xf32>, %it: tensor<?xi32>):
    %i = tensor.extract %it[%b] : tensor<?xi32>
    %ii = arith.index_cast %i : i32 to index
    %x = tensor.extract %ut[%ii, %m, %n] : tensor<?x64x128xf32>
    %s = arith.addf %acc, %x : f32
    %t = arith.truncf %s : f32 to f16
    sc.yield %t : f16
  }
  return %c, %u : tensor<?x64x128xf16>, tensor<?x64x128xf32>
}

// The user row read depends on the output row: the tile a candidate tile
// waits for is not one per tile.
func.func @row_dependent(%w: tensor<64x64xf16>, %eu: tensor<?x64x128xf16> {sc.lineage = #sc.lineage<request>},
                         %ec: tensor<?x64x128xf16> {sc.lineage = #sc.lineage<candidate>},
                         %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> tensor<?x64x128xf16> {
  %u = sc.batch_matmul %w, %eu : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf32>
  %c = sc.batch_matmul %w, %ec epilogue_ins(%u : tensor<?x64x128xf32>)
      : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %ut: tensor<?x64x128xf32>):
    %c2 = arith.constant 2 : index
    %g = arith.remui %m, %c2 : index
    %x = tensor.extract %ut[%g, %m, %n] : tensor<?x64x128xf32>
    %s = arith.addf %acc, %x : f32
    %t = arith.truncf %s : f32 to f16
    sc.yield %t : f16
  }
  return %c : tensor<?x64x128xf16>
}

// The gather-add through the index, the dependency computed from two
// epilogue operands (idx[b] + offset[0]): fused.
func.func @gather_offset(%w: tensor<64x64xf16>, %eu: tensor<?x64x128xf16> {sc.lineage = #sc.lineage<request>},
                         %ec: tensor<?x64x128xf16> {sc.lineage = #sc.lineage<candidate>},
                         %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>},
                         %off: tensor<1xi32>)
    -> tensor<?x64x128xf16> {
  %u = sc.batch_matmul %w, %eu : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf32>
  %c = sc.batch_matmul %w, %ec epilogue_ins(%u, %idx, %off : tensor<?x64x128xf32>, tensor<?xi32>, tensor<1xi32>)
      : tensor<64x64xf16>, tensor<?x64x128xf16> -> tensor<?x64x128xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %ut: tensor<?x64x128xf32>, %it: tensor<?xi32>, %ot: tensor<1xi32>):
    %c0 = arith.constant 0 : index
    %i = tensor.extract %it[%b] : tensor<?xi32>
    %o = tensor.extract %ot[%c0] : tensor<1xi32>
    %io = arith.addi %i, %o : i32
    %ii = arith.index_cast %io : i32 to index
    %x = tensor.extract %ut[%ii, %m, %n] : tensor<?x64x128xf32>
    %s = arith.addf %acc, %x : f32
    %t = arith.truncf %s : f32 to f16
    sc.yield %t : f16
  }
  return %c : tensor<?x64x128xf16>
}
