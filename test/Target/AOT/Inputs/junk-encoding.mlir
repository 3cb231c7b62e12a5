func.func @junk(%x: tensor<?x64x128xf16, "junk"> {sc.lineage = #sc.lineage<candidate>},
                %w: tensor<128x64xf16> {sc.lineage = #sc.lineage<shared>}) -> tensor<?x64x64xf16> {
  %y = sc.batch_matmul %x, %w : tensor<?x64x128xf16, "junk">, tensor<128x64xf16> -> tensor<?x64x64xf16>
  return %y : tensor<?x64x64xf16>
}
