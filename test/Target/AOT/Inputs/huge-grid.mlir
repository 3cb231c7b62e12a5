func.func @huge(%x: tensor<4294967296x64x128xf16> {sc.lineage = #sc.lineage<candidate>},
                %w: tensor<128x64xf16> {sc.lineage = #sc.lineage<shared>}) -> tensor<4294967296x64x64xf16> {
  %y = sc.batch_matmul %x, %w : tensor<4294967296x64x128xf16>, tensor<128x64xf16> -> tensor<4294967296x64x64xf16>
  return %y : tensor<4294967296x64x64xf16>
}
