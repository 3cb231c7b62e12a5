//===- EpilogueScreen.h - a cheap test before an epilogue's threshold -*- C++ -*-===//
#ifndef SPARCAST_CONVERSION_SCTOGPU_EPILOGUESCREEN_H
#define SPARCAST_CONVERSION_SCTOGPU_EPILOGUESCREEN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::sc {

/// Writes, at `b`'s insertion point, a private function `name`:
/// (dot f32, m index, n index, threshold f32, ins...) -> i1, false only
/// where `epilogue(dot, m, n, ins...) > threshold` is false. `epilogue` is
/// an sc.sparse_matmul epilogue block (dot, m, n, ins...) -> f32 (null: the
/// dot itself); `ins` are the memref types its operands have in the
/// function (tensor.extract becomes memref.load).
///
/// The test is exact except on a value that scales the dot (the dot times
/// and divided by values without it, negated, under selects on conditions
/// without it: the cosine, dot / (|q| |i|)). There the quotients become
/// products by reciprocals (dot * (1 / |q|) * (1 / |i|)), which a kernel
/// computes once a row and once a column where the division itself is once
/// an element, and the function says false only when that value is below
/// the threshold by more than its error bound (docs/sparse-similarity.md):
/// every factor's magnitude in [2^-16, 2^16], at most
/// kMaxScreenRoundings roundings in both forms, the margin 2^-19 of the
/// value plus 2^-40. Anything else (NaN, infinities, factors out of range)
/// says true, and the caller's exact test decides.
FailureOr<func::FuncOp> writeEpilogueScreen(OpBuilder &b, Location loc,
                                            Block *epilogue,
                                            ArrayRef<Type> ins,
                                            StringRef name);

/// The roundings a screened value may take in its exact and approximate
/// forms together: the margin 2^-19 covers 32 of 2^-24 each.
constexpr int64_t kMaxScreenRoundings = 16;

} // namespace mlir::sc

#endif // SPARCAST_CONVERSION_SCTOGPU_EPILOGUESCREEN_H
