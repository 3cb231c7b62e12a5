//===- EpilogueScreen.cpp - a cheap test before an epilogue's threshold ---===//
//
// A selecting kernel compares every element's epilogue value with its
// row's threshold, and almost every element is below it. For the cosine,
// dot / (|q| |i|), the exact value costs an IEEE division an element; the
// screen multiplies the dot by the reciprocals of the norms instead (one a
// row, one a column, hoisted by the kernel's compiler) and rules an element
// out only when that value is below the threshold by more than the
// difference the two forms' roundings can make. The exact test follows for
// what the screen keeps.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Conversion/ScToGPU/EpilogueScreen.h"
#include "GemmKernelCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::sc;

namespace {
// A screened value's factors lie in [2^-kFactorExponent, 2^kFactorExponent]
// and number at most kMaxFactors, so a product of them stays in
// [2^-64, 2^64]: an underflow in either form is off by at most 2^-86 a
// rounding, far below the absolute margin.
constexpr int kFactorExponent = 16, kMaxFactors = 4;
// The margin: relative (32 roundings of 2^-24, twice what
// kMaxScreenRoundings allows) and absolute; and the largest value screened
// (past it an intermediate of the other form may overflow).
constexpr double kRelativeMargin = 0x1p-19, kAbsoluteMargin = 0x1p-40,
                 kLargest = 0x1p100;

/// An approximation of a region value that scales the dot: its value in the
/// screen, the factors it multiplied by (each checked to be in range), and
/// the roundings of both forms from the dot to it.
struct Scaled {
  Value value;
  SmallVector<Value> factors;
  int64_t roundings = 0;
};

/// Writes the screen's ops for the values of one epilogue block, its
/// ops already cloned exactly through `mapping`.
class ScreenWriter {
public:
  ScreenWriter(OpBuilder &b, Location loc, Block &body, IRMapping &mapping,
               Value threshold)
      : b(b), loc(loc), mapping(mapping), threshold(threshold) {
    dot = body.getArgument(0);
    reached.insert(dot);
    for (Operation &op : body.without_terminator()) {
      bool readsDot = false;
      op.walk([&](Operation *inner) {
        readsDot |= llvm::any_of(inner->getOperands(), [&](Value v) {
          return reached.contains(v);
        });
      });
      if (readsDot)
        reached.insert(op.result_begin(), op.result_end());
    }
  }

  /// i1: false only where `v > threshold` is false.
  Value mayExceed(Value v) {
    if (!reached.contains(v))
      return exactlyAbove(v);
    if (auto select = v.getDefiningOp<arith::SelectOp>();
        select && !reached.contains(select.getCondition()))
      return arith::SelectOp::create(b, loc, mapping.lookup(select.getCondition()),
                                     mayExceed(select.getTrueValue()),
                                     mayExceed(select.getFalseValue()));
    FailureOr<Scaled> scaled = scale(v);
    if (failed(scaled) || scaled->factors.size() > kMaxFactors ||
        scaled->roundings > kMaxScreenRoundings)
      return exactlyAbove(v);
    return notSurelyBelow(*scaled);
  }

private:
  Value f32(double x) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(x));
  }
  Value exactlyAbove(Value v) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                 mapping.lookup(v), threshold);
  }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }

  /// `v` as the dot times factors, quotients by values without the dot
  /// turned into products by their reciprocals.
  FailureOr<Scaled> scale(Value v) {
    if (v == dot)
      return Scaled{mapping.lookup(dot), {}, 0};
    Operation *def = v.getDefiningOp();
    if (!def)
      return failure();
    if (auto neg = dyn_cast<arith::NegFOp>(def)) {
      FailureOr<Scaled> x = scale(neg.getOperand());
      if (succeeded(x))
        x->value = arith::NegFOp::create(b, loc, x->value);
      return x;
    }
    if (auto m = dyn_cast<arith::MulFOp>(def)) {
      Value x = m.getLhs(), f = m.getRhs();
      if (reached.contains(f))
        std::swap(x, f);
      if (reached.contains(f))
        return failure();
      FailureOr<Scaled> s = scale(x);
      if (failed(s))
        return failure();
      s->value = mul(s->value, mapping.lookup(f));
      s->factors.push_back(mapping.lookup(f));
      s->roundings += 2; // one in each form
      return s;
    }
    if (auto d = dyn_cast<arith::DivFOp>(def)) {
      if (reached.contains(d.getRhs()))
        return failure();
      FailureOr<Scaled> s = scale(d.getLhs());
      if (failed(s))
        return failure();
      Scaled r = reciprocal(d.getRhs());
      s->value = mul(s->value, r.value);
      s->factors.append(r.factors);
      s->roundings += r.roundings + 2;
      return s;
    }
    return failure();
  }

  /// 1 / f for a value f without the dot: products and quotients taken
  /// apart (1 / (a b) = (1 / a) (1 / b)) so that factors of the row alone
  /// and of the column alone stay apart.
  Scaled reciprocal(Value f) {
    Operation *def = f.getDefiningOp();
    if (auto m = dyn_cast_or_null<arith::MulFOp>(def)) {
      Scaled x = reciprocal(m.getLhs()), y = reciprocal(m.getRhs());
      x.value = mul(x.value, y.value);
      x.factors.append(y.factors);
      x.roundings += y.roundings + 2; // the product, and the exact form's
      return x;
    }
    if (auto d = dyn_cast_or_null<arith::DivFOp>(def)) {
      Scaled x = reciprocal(d.getLhs());
      x.value = mul(x.value, mapping.lookup(d.getRhs()));
      x.factors.push_back(mapping.lookup(d.getRhs()));
      x.roundings += 2;
      return x;
    }
    Value leaf = mapping.lookup(f);
    return Scaled{arith::DivFOp::create(b, loc, f32(1.0), leaf), {leaf}, 1};
  }

  /// True unless the scaled value is surely below the threshold: finite,
  /// at most kLargest, its factors in range, and below the threshold by
  /// more than the margin.
  Value notSurelyBelow(const Scaled &s) {
    auto cmp = [&](arith::CmpFPredicate p, Value x, Value y) {
      return arith::CmpFOp::create(b, loc, p, x, y).getResult();
    };
    auto both = [&](Value x, Value y) {
      return arith::AndIOp::create(b, loc, x, y).getResult();
    };
    // bar = threshold - 2^-40 - 2^-19 |value|: the first part once a row.
    Value magnitude = math::AbsFOp::create(b, loc, s.value);
    Value bar = math::FmaOp::create(
        b, loc, magnitude, f32(-kRelativeMargin),
        arith::SubFOp::create(b, loc, threshold, f32(kAbsoluteMargin)));
    Value below = both(cmp(arith::CmpFPredicate::OLT, s.value, bar),
                       cmp(arith::CmpFPredicate::OLE, magnitude, f32(kLargest)));
    for (Value factor : s.factors) {
      Value size = math::AbsFOp::create(b, loc, factor);
      below = both(below, both(cmp(arith::CmpFPredicate::OGE, size,
                                   f32(std::ldexp(1.0, -kFactorExponent))),
                               cmp(arith::CmpFPredicate::OLE, size,
                                   f32(std::ldexp(1.0, kFactorExponent)))));
    }
    return arith::XOrIOp::create(
        b, loc, below,
        arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  }

  OpBuilder &b;
  Location loc;
  IRMapping &mapping;
  Value threshold, dot;
  llvm::DenseSet<Value> reached;
};
} // namespace

FailureOr<func::FuncOp> mlir::sc::writeEpilogueScreen(OpBuilder &b,
                                                      Location loc,
                                                      Block *epilogue,
                                                      ArrayRef<Type> ins,
                                                      StringRef name) {
  OpBuilder::InsertionGuard guard(b);
  SmallVector<Type> args = {b.getF32Type(), b.getIndexType(),
                            b.getIndexType(), b.getF32Type()};
  llvm::append_range(args, ins);
  auto func = func::FuncOp::create(b, loc, name,
                                   b.getFunctionType(args, {b.getI1Type()}));
  func.setPrivate();
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  Value threshold = entry->getArgument(3);
  if (!epilogue) {
    Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT,
                                        entry->getArgument(0), threshold);
    func::ReturnOp::create(b, loc, above);
    return func;
  }
  if (epilogue->getNumArguments() != 3 + ins.size())
    return emitError(loc) << "expected an epilogue of " << 3 + ins.size()
                          << " arguments to screen";
  IRMapping mapping;
  for (unsigned i = 0; i < 3; ++i)
    mapping.map(epilogue->getArgument(i), entry->getArgument(i));
  for (unsigned i = 0; i < ins.size(); ++i)
    mapping.map(epilogue->getArgument(3 + i), entry->getArgument(4 + i));
  for (Operation &inner : epilogue->without_terminator())
    if (failed(detail::cloneEpilogueOp(inner, b, mapping)))
      return failure();
  ScreenWriter writer(b, loc, *epilogue, mapping, threshold);
  Value may = writer.mayExceed(epilogue->getTerminator()->getOperand(0));
  func::ReturnOp::create(b, loc, may);
  return func;
}
