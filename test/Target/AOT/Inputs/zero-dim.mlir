func.func @empty(%x: tensor<?x0x128xf16> {sc.lineage = #sc.lineage<candidate>},
                 %w: tensor<128x64xf16> {sc.lineage = #sc.lineage<shared>}) -> tensor<?x0x64xf16> {
  %y = sc.batch_matmul %x, %w : tensor<?x0x128xf16>, tensor<128x64xf16> -> tensor<?x0x64xf16>
  return %y : tensor<?x0x64xf16>
}
