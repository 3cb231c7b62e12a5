// A batched GEMM nothing pins: --autotune compiles it for each schedule.
func.func @bmm(%a: tensor<?x128x192xf16> {sc.lineage = #sc.lineage<candidate>},
               %b: tensor<?x192x256xf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x128x256xf16> {
  %c = sc.batch_matmul %a, %b : tensor<?x128x192xf16>, tensor<?x192x256xf16> -> tensor<?x128x256xf16>
  return %c : tensor<?x128x256xf16>
}
