func.func @alone(%cos: tensor<?x?xf32>, %theta: tensor<?xf32>) -> (tensor<?xi32>, tensor<?x64xf32>, tensor<?x64xi32>) {
  %n, %v, %c = sc.select_rows_above %cos, %theta {capacity = 64 : i64} : tensor<?x?xf32>, tensor<?xf32> -> tensor<?xi32>, tensor<?x64xf32>, tensor<?x64xi32>
  return %n, %v, %c : tensor<?xi32>, tensor<?x64xf32>, tensor<?x64xi32>
}
