// A batched GEMM with the IKBO gather-add epilogue: every candidate b
// multiplies the shared weight W [433, 872] with its features E[b]
// [872, 256]; the epilogue adds its user's precomputed row U[idx[b]] and
// rounds to f16. sparcast-aot compiles it into one sm_90a kernel.
func.func @gemm_gather_add(
    %w: tensor<433x872xf16> {sc.lineage = #sc.lineage<shared>},
    %e: tensor<?x872x256xf16> {sc.lineage = #sc.lineage<candidate>},
    %user: tensor<?x433x256xf32> {sc.lineage = #sc.lineage<request>},
    %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>})
    -> tensor<?x433x256xf16> {
  %c = sc.batch_matmul %w, %e epilogue_ins(%user, %idx : tensor<?x433x256xf32>, tensor<?xi32>)
      : tensor<433x872xf16>, tensor<?x872x256xf16> -> tensor<?x433x256xf16> {
  ^bb0(%acc: f32, %b: index, %m: index, %n: index,
       %u: tensor<?x433x256xf32>, %i: tensor<?xi32>):
    %r = tensor.extract %i[%b] : tensor<?xi32>
    %ri = arith.index_cast %r : i32 to index
    %x = tensor.extract %u[%ri, %m, %n] : tensor<?x433x256xf32>
    %s = arith.addf %acc, %x : f32
    %h = arith.truncf %s : f32 to f16
    sc.yield %h : f16
  }
  return %c : tensor<?x433x256xf16>
}
