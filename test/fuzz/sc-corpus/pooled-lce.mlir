#x3 = affine_map<(b, m, n) -> (b, m, n)>
#bn = affine_map<(b, m, n) -> (b, n)>
#id = affine_map<(b, n) -> (b, n)>
func.func @pooled_lce(%w: tensor<6x40xbf16> {sc.lineage = #sc.lineage<shared>},
                      %e: tensor<?x40x16xbf16> {sc.lineage = #sc.lineage<candidate>},
                      %user: tensor<?x6x16xf32> {sc.lineage = #sc.lineage<request>},
                      %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x16xbf16> {
  %c0 = arith.constant 0 : index
  %nb = tensor.dim %e, %c0 : tensor<?x40x16xbf16>
  %lce = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x6x16xf32>, tensor<?xi32>) : tensor<6x40xbf16>, tensor<?x40x16xbf16> -> tensor<?x6x16xbf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index, %u: tensor<?x6x16xf32>, %ix: tensor<?xi32>):
    %i = tensor.extract %ix[%b] : tensor<?xi32>
    %ii = arith.index_cast %i : i32 to index
    %r = tensor.extract %u[%ii, %m, %n] : tensor<?x6x16xf32>
    %s = arith.addf %acc, %r : f32
    %h = arith.truncf %s : f32 to bf16
    sc.yield %h : bf16
  }
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%nb) : tensor<?x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x16xf32>) -> tensor<?x16xf32>
  %sum = linalg.generic {indexing_maps = [#x3, #bn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%lce : tensor<?x6x16xbf16>) outs(%z : tensor<?x16xf32>) {
  ^bb0(%v: bf16, %acc: f32):
    %x = arith.extf %v : bf16 to f32
    %a = arith.addf %acc, %x : f32
    linalg.yield %a : f32
  } -> tensor<?x16xf32>
  %six = arith.constant 6.0 : f32
  %e1 = tensor.empty(%nb) : tensor<?x16xbf16>
  %mean = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<?x16xf32>) outs(%e1 : tensor<?x16xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %q = arith.divf %v, %six : f32
    %t = arith.truncf %q : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x16xbf16>
  return %mean : tensor<?x16xbf16>
}

func.func @pooled_wide(%w: tensor<150x1024xbf16> {sc.lineage = #sc.lineage<shared>},
                       %e: tensor<?x1024x24xbf16> {sc.lineage = #sc.lineage<candidate>}) -> tensor<?x24xf32> {
  %c0 = arith.constant 0 : index
  %nb = tensor.dim %e, %c0 : tensor<?x1024x24xbf16>
  %p = sc.batch_matmul %w, %e : tensor<150x1024xbf16>, tensor<?x1024x24xbf16> -> tensor<?x150x24xbf16>
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%nb) : tensor<?x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?x24xf32>) -> tensor<?x24xf32>
  %sum = linalg.generic {indexing_maps = [#x3, #bn], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%p : tensor<?x150x24xbf16>) outs(%z : tensor<?x24xf32>) {
  ^bb0(%v: bf16, %acc: f32):
    %x = arith.extf %v : bf16 to f32
    %a = arith.addf %acc, %x : f32
    linalg.yield %a : f32
  } -> tensor<?x24xf32>
  return %sum : tensor<?x24xf32>
}
