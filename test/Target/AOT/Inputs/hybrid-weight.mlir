func.func @hybrid(%x: tensor<?x64x128xf16> {sc.lineage = #sc.lineage<candidate>},
                  %w: tensor<128x64xf16, #sc.hybrid_tiles<tile = [64, 64], grid = [2, 1], kinds = "ds">> {sc.lineage = #sc.lineage<shared>}) -> tensor<?x64x64xf16> {
  %y = sc.batch_matmul %x, %w : tensor<?x64x128xf16>, tensor<128x64xf16, #sc.hybrid_tiles<tile = [64, 64], grid = [2, 1], kinds = "ds">> -> tensor<?x64x64xf16>
  return %y : tensor<?x64x64xf16>
}
