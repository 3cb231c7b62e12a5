// RUN: sparcast-equiv %s --ref=upstream --test=sc --users=5 --candidates=23 --trials=3 | FileCheck %s
// RUN: sparcast-equiv %s --ref=upstream --test=sc --users=7 --candidates=7 --shuffle-index | FileCheck %s

// sc.gather_rows against the same gather written with scf.for and slices.
// CHECK-COUNT-2: ok
// CHECK: EQUIVALENT

func.func @sc(%user: tensor<?x3x5xf16> {sc.lineage = #sc.lineage<request>},
              %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x3x5xf16> {
  %e = sc.gather_rows %user[%idx] : tensor<?x3x5xf16>, tensor<?xi32> -> tensor<?x3x5xf16>
  return %e : tensor<?x3x5xf16>
}

func.func @upstream(%user: tensor<?x3x5xf16> {sc.lineage = #sc.lineage<request>},
                    %idx: tensor<?xi32> {sc.lineage = #sc.lineage<index>}) -> tensor<?x3x5xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %idx, %c0 : tensor<?xi32>
  %init = tensor.empty(%n) : tensor<?x3x5xf16>
  %r = scf.for %b = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<?x3x5xf16> {
    %u32 = tensor.extract %idx[%b] : tensor<?xi32>
    %u = arith.index_cast %u32 : i32 to index
    %row = tensor.extract_slice %user[%u, 0, 0] [1, 3, 5] [1, 1, 1] : tensor<?x3x5xf16> to tensor<1x3x5xf16>
    %next = tensor.insert_slice %row into %acc[%b, 0, 0] [1, 3, 5] [1, 1, 1] : tensor<1x3x5xf16> into tensor<?x3x5xf16>
    scf.yield %next : tensor<?x3x5xf16>
  }
  return %r : tensor<?x3x5xf16>
}
