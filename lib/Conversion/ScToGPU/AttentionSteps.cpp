//===- AttentionSteps.cpp - the attention kernel's steps ------------------===//
//
// The steps AttentionKernel.cpp's pipeline is made of, each written with
// the OpBuilder: the key/value TMA loads, Q K^T and P V by wgmma (A from
// registers or shared memory), Q's fragments by ldmatrix, the online
// softmax (plain, or guessing that no running maximum moves), O's rescale
// and the final normalization into the staging tile by stmatrix.
//
// A thread holds rows r0 and r0 + 8 of its warp's 16 of the 64-row tile
// (the wgmma fragment layout): accumulator register i is row r0 + 8 ((i /
// 2) % 2), column 8 (i / 4) + 2 (lane % 4) + i % 2.
//
//===----------------------------------------------------------------------===//

#include "AttentionKernelWriter.h"
#include "KernelBuilder.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sc::detail;

// TMA loads of iteration t's key block kb (rows kb * BN ..) of K and V into the slot of
// ring position `position`: K (one box of BN rows per 64-column chunk of
// the head dim) on full, then, once the slot's values are free (emptyV, at
// `emptyParity`, as the caller waited empty for the keys), V (64-row boxes,
// 64-column chunks, (block, chunk) order) on fullV.
void AttentionKernelWriter::loadKeyValue(Value position, Value t,
                                         Value emptyParity) {
  Value ringSlot = rem(position, index(s.stages));
  Value kbValue = keyBlockOf(t);
  Value row = mul(kbValue, index(s.blockN));
  Value kAt = keysAt(ringSlot), vAt = valuesAt(ringSlot);
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, full, index(s.kBytes),
                                          ringSlot, Value());
  for (int64_t c = 0; c < s.dChunks(); ++c) {
    Value box = memref::ViewOp::create(b, loc, boxK, smem,
                                       add(kAt, index(c * s.blockN * 128)),
                                       ValueRange());
    nvgpu::TmaAsyncLoadOp::create(b, loc, box, full, tmaK,
                                  ValueRange{index(c * 64), row, h, rA},
                                  ringSlot, Value(), Value());
  }
  wait(emptyV, ringSlot, emptyParity);
  nvgpu::MBarrierArriveExpectTxOp::create(b, loc, fullV, index(s.kBytes),
                                          ringSlot, Value());
  for (int64_t c = 0; c < s.dChunks(); ++c)
    for (int64_t j = 0; j < s.blockN / 64; ++j) {
      Value box = memref::ViewOp::create(
          b, loc, box64, smem, add(vAt, index((j * s.dChunks() + c) * 8192)),
          ValueRange());
      nvgpu::TmaAsyncLoadOp::create(
          b, loc, box, fullV, tmaV,
          ValueRange{index(c * 64), add(row, index(j * 64)), h, rA}, ringSlot,
          Value(), Value());
    }
}

// The wgmma descriptor of the 128B-swizzled tile at `byteOffset` from the
// shared memory's v.base: (address >> 4) in bits 0-13 over the fixed bits.
Value AttentionSteps::descriptor(Value byteOffset) {
  if (!v.descriptorBase)
    return wgmmaDescriptor(v.smemBase, byteOffset);
  Value offset = arith::IndexCastOp::create(b, loc, b.getI64Type(), byteOffset);
  return add(v.descriptorBase, arith::ShRUIOp::create(b, loc, offset, i64(4)));
}

// This lane's row of the four 8 x 8 matrices that ldmatrix / stmatrix .x4
// move for its warp's 16 rows, in 16-column step `step` of the swizzled
// 64-row tile at byte offset `at`: lanes 8 m .. 8 m + 7 address matrix m's
// rows, the warp's rows 8 (m % 2) .. in the 16-byte chunk m / 2 of the
// step (v.lmHi); TMA's 128-byte swizzle XORs a chunk with the row mod 8
// (v.lmSw).
Value AttentionSteps::matrixRowPointer(Value at, int64_t step) {
  Value chunk = add(v.lmHi, index((2 * step) % 8));
  Value swizzled = arith::XOrIOp::create(b, loc, chunk, v.lmSw);
  Value offset = add(add(add(v.lmRowB, index((2 * step / 8) * 8192)),
                         mul(swizzled, index(16))),
                     at);
  Value address = arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                             add(offset, v.base));
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, 3),
                                  address);
}

// Q's A fragments (wgmma's register form, 4 registers a k16 step) from
// the consumer's swizzled Q tile, one ldmatrix .x4 a step: its four
// matrices are the fragment's rows r0 / r8 at columns 16 kk + 2 (lane % 4)
// and + 8, in order.
SmallVector<Value> AttentionSteps::loadQFragments(Value at, int64_t steps) {
  SmallVector<Value> fragments;
  for (int64_t kk = 0; kk < (steps < 0 ? s.headDim / 16 : steps); ++kk)
    llvm::append_range(fragments, loadMatrixX4(b, loc, matrixRowPointer(at, kk),
                                               /*transposed=*/false));
  return fragments;
}

// One k16 step of wgmma with A from registers: NVVM's wgmma op takes A only
// from shared memory, so this is the PTX instruction itself, the
// accumulator (`accType`, n / 2 f32) tied in and out; !accumulate ignores
// it (scale-d false). B transposed (N-major) or not (K-major).
Value AttentionSteps::wgmmaWithRegisterA(Value acc, Type accType,
                                                int64_t n, Type type,
                                                ArrayRef<Value> a, Value bDesc,
                                                bool accumulate,
                                                bool transposeB) {
  int64_t nAcc = n / 2;
  std::string constraints, regsD;
  for (int64_t r = 0; r < nAcc; ++r) {
    constraints += "=f,";
    regsD += llvm::formatv("{0}${1}", r ? "," : "", r).str();
  }
  constraints += "r,r,r,r,l";
  SmallVector<Value> operands(a);
  operands.push_back(bDesc);
  for (int64_t r = 0; r < nAcc; ++r) {
    constraints += llvm::formatv(",{0}", r).str();
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, r));
  }
  std::string typeName = type.isBF16() ? "bf16" : "f16";
  std::string text = llvm::formatv(
      "{{ .reg .pred p; setp.ne.b32 p, {0}, 0; "
      "wgmma.mma_async.sync.aligned.m64n{1}k16.f32.{2}.{2} {{{3}}, "
      "{{${4}, ${5}, ${6}, ${7}}, ${8}, p, 1, 1, {9}; }",
      accumulate ? 1 : 0, n, typeName, regsD, nAcc, nAcc + 1, nAcc + 2,
      nAcc + 3, nAcc + 4, transposeB ? 1 : 0);
  return LLVM::InlineAsmOp::create(
             b, loc, accType, operands, text, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::TailCallKind::None,
             LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT),
             /*operand_attrs=*/ArrayAttr())
      .getResult(0);
}

// S = Q K^T: the head dim in 64-column chunks, 4 k16 steps each, K read
// K-major from its slot; Q from registers, or (pairs) from its tile.
Value AttentionSteps::qk(ArrayRef<Value> qFragments, Value qDesc,
                        Value kDesc) {
  Value acc = LLVM::UndefOp::create(b, loc, v.accS);
  int64_t steps = s.dChunks() * 4;
  auto type = s.elementType.isBF16() ? NVVM::WGMMATypes::bf16
                                     : NVVM::WGMMATypes::f16;
  for (int64_t step = 0; step < steps; ++step) {
    int64_t c = step / 4, kk = step % 4;
    if (!qFragments.empty()) {
      Value kd = add(kDesc, i64((c * s.blockN * 128 + kk * 32) >> 4));
      acc = wgmmaWithRegisterA(acc, v.accS, s.blockN, s.elementType,
                               qFragments.slice(4 * step, 4),
                               kd, /*accumulate=*/step != 0,
                               /*transposeB=*/false);
      continue;
    }
    Value qd = add(qDesc, i64((c * 8192 + kk * 32) >> 4));
    Value kd = add(kDesc, i64((c * s.blockN * 128 + kk * 32) >> 4));
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, v.accS, acc, qd, kd,
        NVVM::MMAShapeAttr::get(ctx, 64, s.blockN, 16),
        NVVM::WGMMATypesAttr::get(ctx, type),
        NVVM::WGMMATypesAttr::get(ctx, type),
        NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, step == 0 ? NVVM::WGMMAScaleOut::zero
                                                    : NVVM::WGMMAScaleOut::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col), nullptr);
  }
  return acc;
}

// O += P V with P in registers: the A fragment of a k16 step is the S
// accumulator's layout (registers 8c .. 8c + 7 hold rows r0 / r8 at keys
// 16c + 2 (lane % 4) + {0, 1, 8, 9}); V N-major in its slot (64-key blocks
// of head-dim chunks).
Value AttentionSteps::pv(ArrayRef<Value> p, Value acc, Value vDesc) {
  for (int64_t kk = 0; kk < s.blockN / 16; ++kk) {
    int64_t vOff = (kk / 4) * s.dChunks() * 8192 + (kk % 4) * 2048;
    acc = wgmmaWithRegisterA(acc, v.accO, s.headDim, s.pType,
                             p.slice(4 * kk, 4), add(vDesc, i64(vOff >> 4)),
                             /*accumulate=*/true, /*transposeB=*/true);
  }
  return acc;
}

// An empty asm taking P's fragments: they stay in their registers until
// the P V reading them is done (so the next block's P gets its own).
void AttentionSteps::keepP(ArrayRef<Value> p) {
  std::string constraints;
  for (size_t i = 0; i < p.size(); ++i)
    constraints += i ? ",r" : "r";
  LLVM::InlineAsmOp::create(
      b, loc, TypeRange(), p, "", constraints, /*has_side_effects=*/true,
      /*is_align_stack=*/false, LLVM::TailCallKind::None,
      LLVM::AsmDialectAttr::get(ctx, LLVM::AsmDialect::AD_ATT), ArrayAttr());
}

// exp2 is ex2.approx.ftz (here and for alpha): math.exp2 gives ex2.approx
// without ftz, which ptxas wraps in a compare and two multiplies for
// subnormal inputs and results; a p below 2^-126 adds nothing to a row sum
// of at least 1 (the score that set the running maximum), nor an alpha
// below it to O.
Value AttentionSteps::exp2(Value x) {
  return LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(),
                                       b.getStringAttr("llvm.nvvm.ex2.approx.ftz.f32"),
                                       ValueRange{x})
      .getResult(0);
}

// The block's scores from the S registers; with maskTail, keys past the
// length are -inf. Scores stay unscaled (z); the running maxima are kept
// scaled (m), so p = exp2(z v.scale2 - m) is one fma.
SmallVector<Value> AttentionSteps::blockScores(Value sFinal,
                                               Value keyBlock) {
  SmallVector<Value> z;
  Value kPosQ;
  if (s.maskTail)
    kPosQ = add(mul(keyBlock, index(s.blockN)), v.q2);
  for (int64_t i = 0; i < s.blockN / 2; ++i) {
    Value score = LLVM::ExtractValueOp::create(b, loc, sFinal, i);
    if (s.maskTail) {
      Value key = add(kPosQ, index(8 * (i / 4) + (i % 2)));
      score = select(ult(key, v.keyLen), score, v.negInf);
    }
    z.push_back(score);
  }
  return z;
}

std::pair<Value, Value>
AttentionSteps::expSumsAndP(ArrayRef<Value> z, Value neg0, Value neg8,
                                   SmallVector<Value> &p) {
  Value sum0 = v.zeroF, sum8 = v.zeroF;
  Type packed = VectorType::get({2}, s.pType);
  Value previous;
  for (auto [i, score] : llvm::enumerate(z)) {
    bool row8 = (i / 2) % 2;
    Value e = math::FmaOp::create(b, loc, score, v.scale2, row8 ? neg8 : neg0);
    Value pi = exp2(e);
    Value &sum = row8 ? sum8 : sum0;
    sum = arith::AddFOp::create(b, loc, sum, pi);
    if (i % 2 == 0) {
      previous = pi;
      continue;
    }
    // P's A fragment for O += P V: register (i % 8) / 2 of k16 step i / 8,
    // two keys packed.
    Value lo = arith::TruncFOp::create(b, loc, s.pType, previous);
    Value hi = arith::TruncFOp::create(b, loc, s.pType, pi);
    Value pair = vector::FromElementsOp::create(b, loc, packed, ValueRange{lo, hi});
    p.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), pair));
  }
  return {sum0, sum8};
}

// Online softmax of the block's scores: new maxima, the rescale factors
// alpha (big: the row took a new maximum), row sums and P.
// Lazy rescaling: a row keeps its running maximum until a block's maximum
// exceeds it by more than v.lazyBound (log2 units); p then stays below 2^8.
SoftmaxStep AttentionSteps::softmaxFromScores(ArrayRef<Value> z,
                                                     const RowState &rows,
                                                     bool skipUnmovedMaxima) {
  SoftmaxStep out;
  // A row's maximum over its quad (two shuffles) from this thread's
  // `local`, scaled; whether it moves the running maximum m, the new one
  // and alpha.
  auto quadMax = [&](Value local, Value m, Value &mNew, Value &alpha,
                     Value &big) {
    auto shuffleMax = [&](Value v, int64_t mask) {
      Value other = gpu::ShuffleOp::create(b, loc, v, i32(mask), i32(32),
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      return arith::MaxNumFOp::create(b, loc, v, other).getResult();
    };
    Value rowMax = arith::MulFOp::create(
        b, loc, shuffleMax(shuffleMax(local, 1), 2), v.scale2);
    Value grow = arith::SubFOp::create(b, loc, rowMax, m);
    big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, grow,
                                v.lazyBound);
    mNew = select(big, rowMax, m);
    alpha = exp2(arith::SubFOp::create(b, loc, m, mNew));
  };
  // This thread's maximum of each row (registers with (i / 2) % 2 == 0
  // hold row r0, else r0 + 8), then (plain) the quad's.
  Value local[2], neg[2];
  for (int row = 0; row < 2; ++row) {
    Value prev;
    for (auto [i, score] : llvm::enumerate(z)) {
      if (static_cast<int>((i / 2) % 2) != row)
        continue;
      prev = prev ? arith::MaxNumFOp::create(b, loc, prev, score).getResult()
                  : score;
    }
    local[row] = prev;
    if (!skipUnmovedMaxima) {
      quadMax(prev, row ? rows.m8 : rows.m0, row ? out.mNew8 : out.mNew0,
              row ? out.alpha8 : out.alpha0, row ? out.big8 : out.big0);
      neg[row] = arith::NegFOp::create(b, loc, row ? out.mNew8 : out.mNew0);
    }
  }
  if (skipUnmovedMaxima) {
    // A row's maximum moves only when the block's exceeds it by more than
    // the lazy bound, which needs some thread's own maximum to: when no
    // thread of the warp has one (most blocks but a row's first few), the
    // maxima stay and alpha is 1, without the quads' shuffles and the exp2
    // of alpha (the same values either way).
    auto grows = [&](Value localMax, Value m) {
      Value scaled = arith::MulFOp::create(b, loc, localMax, v.scale2);
      Value grow = arith::SubFOp::create(b, loc, scaled, m);
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, grow,
                                   v.lazyBound)
          .getResult();
    };
    Value big0 = grows(local[0], rows.m0), big8 = grows(local[1], rows.m8);
    Value anyBig = NVVM::VoteSyncOp::create(
        b, loc, b.getI1Type(), i32(-1), arith::OrIOp::create(b, loc, big0, big8),
        NVVM::VoteSyncKind::any);
    Type f32Type = b.getF32Type(), i1 = b.getI1Type();
    SmallVector<Value> moved = ifElse(
        anyBig, {f32Type, f32Type, f32Type, f32Type, i1, i1},
        [&]() -> SmallVector<Value> {
          Value m[2], alpha[2], big[2];
          quadMax(local[0], rows.m0, m[0], alpha[0], big[0]);
          quadMax(local[1], rows.m8, m[1], alpha[1], big[1]);
          return {m[0], m[1], alpha[0], alpha[1], big[0], big[1]};
        },
        [&]() -> SmallVector<Value> {
          Value one = f32(1.0), no = boolean(false);
          return {rows.m0, rows.m8, one, one, no, no};
        });
    out.mNew0 = moved[0];
    out.mNew8 = moved[1];
    out.alpha0 = moved[2];
    out.alpha8 = moved[3];
    out.big0 = moved[4];
    out.big8 = moved[5];
    neg[0] = arith::NegFOp::create(b, loc, out.mNew0);
    neg[1] = arith::NegFOp::create(b, loc, out.mNew8);
  }
  auto [sum0, sum8] = expSumsAndP(z, neg[0], neg[1], out.p);
  out.lNew0 = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, rows.l0, out.alpha0), sum0);
  out.lNew8 = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, rows.l8, out.alpha8), sum8);
  return out;
}

SoftmaxStep AttentionSteps::softmax(Value sFinal, Value keyBlock,
                                    const RowState &rows,
                                    bool skipUnmovedMaxima) {
  return softmaxFromScores(blockScores(sFinal, keyBlock), rows,
                           skipUnmovedMaxima);
}

// The softmax's results, guessing first that no running maximum moves:
// p = exp2(z v.scale2 - m) with the maxima as they are, and when every
// thread's partial row sums stay within 2^8 (so every p does: the lazy
// bound) those are P and the sums, alpha is 1 and O is not rescaled.
// Otherwise (a row's first block, or a maximum that moved far) the warp
// takes the plain softmax, exponentials again included. The guess takes
// the row maxima and their vote off the path from S to P.
SoftmaxStep AttentionSteps::speculativeSoftmax(Value sFinal, Value keyBlock,
                                               const RowState &rows) {
  SmallVector<Value> z = blockScores(sFinal, keyBlock);
  Value gNeg0 = arith::NegFOp::create(b, loc, rows.m0);
  Value gNeg8 = arith::NegFOp::create(b, loc, rows.m8);
  SmallVector<Value> guessedP;
  Value sum0, sum8;
  std::tie(sum0, sum8) = expSumsAndP(z, gNeg0, gNeg8, guessedP);
  // ole: a sum that is NaN takes the plain softmax too.
  Value bound = f32(256.0);
  auto fits = [&](Value sum) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, sum, bound)
        .getResult();
  };
  Value fit0 = fits(sum0), fit8 = fits(sum8);
  Value allFit = NVVM::VoteSyncOp::create(
      b, loc, b.getI1Type(), i32(-1), andi(fit0, fit8),
      NVVM::VoteSyncKind::all);
  Type f32Type = b.getF32Type(), i1 = b.getI1Type();
  SmallVector<Type> types = {f32Type, f32Type, f32Type, f32Type,
                             i1,      i1,      f32Type, f32Type};
  types.append(guessedP.size(), b.getI32Type());
  SmallVector<Value> r = ifElse(
      allFit, types,
      [&]() -> SmallVector<Value> {
        Value one = f32(1.0), no = boolean(false);
        Value l0 = arith::AddFOp::create(b, loc, rows.l0, sum0);
        Value l8 = arith::AddFOp::create(b, loc, rows.l8, sum8);
        SmallVector<Value> yields = {rows.m0, rows.m8, one, one, no, no, l0, l8};
        llvm::append_range(yields, guessedP);
        return yields;
      },
      [&]() -> SmallVector<Value> {
        SoftmaxStep plain = softmaxFromScores(z, rows, /*skipUnmovedMaxima=*/false);
        SmallVector<Value> yields = {plain.mNew0,  plain.mNew8, plain.alpha0,
                                     plain.alpha8, plain.big0,  plain.big8,
                                     plain.lNew0,  plain.lNew8};
        llvm::append_range(yields, plain.p);
        return yields;
      });
  SoftmaxStep out{r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], {}};
  out.p.assign(r.begin() + 8, r.end());
  return out;
}

// O *= alpha, row by row, when a row of the warp took a new maximum.
Value AttentionSteps::rescale(Value o, const SoftmaxStep &step) {
  Value grew = arith::OrIOp::create(b, loc, step.big0, step.big8);
  Value warpGrew = NVVM::VoteSyncOp::create(b, loc, b.getI1Type(), i32(-1),
                                            grew, NVVM::VoteSyncKind::any);
  return ifElse(
      warpGrew, {v.accO},
      [&]() -> SmallVector<Value> {
        Value acc = o;
        for (int64_t i = 0; i < s.headDim / 2; ++i) {
          Value v = LLVM::ExtractValueOp::create(b, loc, o, i);
          Value scaled = arith::MulFOp::create(
              b, loc, v, (i / 2) % 2 ? step.alpha8 : step.alpha0);
          acc = LLVM::InsertValueOp::create(b, loc, acc, scaled, i);
        }
        return {acc};
      },
      [&]() -> SmallVector<Value> { return {o}; })[0];
}

// Row sums across the four threads of a row (a quad), their inverses by
// rcp.approx (1 ulp; a division is a dozen instructions and a branch),
// then O / sum into the staging tile at `at` (64 rows x head dim, the O
// tensor map's swizzled layout) by stmatrix, 16 columns a store.
void AttentionSteps::finish(Value oEnd, Value lEnd0, Value lEnd8,
                                   Value at) {
  auto inverseRowSum = [&](Value partial) {
    Value sum = partial;
    for (int64_t mask : {1, 2}) {
      Value other = gpu::ShuffleOp::create(b, loc, sum, i32(mask), i32(32),
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      sum = arith::AddFOp::create(b, loc, sum, other);
    }
    return sum;
  };
  Value sum0 = inverseRowSum(lEnd0), sum8 = inverseRowSum(lEnd8);
  auto rcp = [&](Value v) {
    return LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(),
                                         b.getStringAttr("llvm.nvvm.rcp.approx.ftz.f"),
                                         ValueRange{v})
        .getResult(0);
  };
  Value inv0 = rcp(sum0), inv8 = rcp(sum8);
  // The last P V has been read by every thread: the staging tile is free.
  namedBarrier(v.wgBar, i32(128));
  Type packed = VectorType::get({2}, s.elementType);
  SmallVector<Value> pairs(s.headDim / 2);
  for (int64_t i = 1; i < s.headDim / 2; i += 2) {
    Value inv = (i / 2) % 2 ? inv8 : inv0;
    Value lo = LLVM::ExtractValueOp::create(b, loc, oEnd, i - 1);
    Value hi = LLVM::ExtractValueOp::create(b, loc, oEnd, i);
    lo = arith::MulFOp::create(b, loc, lo, inv);
    hi = arith::MulFOp::create(b, loc, hi, inv);
    lo = arith::TruncFOp::create(b, loc, s.elementType, lo);
    hi = arith::TruncFOp::create(b, loc, s.elementType, hi);
    pairs[i] = vector::FromElementsOp::create(b, loc, packed, ValueRange{lo, hi});
    // Column groups g - 1 and g (16 columns), rows r0 / r8 of each:
    // stmatrix .x4's four matrices in order.
    int64_t g = i / 4;
    if (i % 4 != 3 || g % 2 != 1)
      continue;
    Value ptr = matrixRowPointer(at, g / 2);
    SmallVector<Value> words;
    for (int64_t k : {4 * (g - 1) + 1, 4 * (g - 1) + 3, 4 * g + 1, 4 * g + 3})
      words.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), pairs[k]));
    NVVM::StMatrixOp::create(b, loc, ptr, words, NVVM::MMALayout::row,
                             NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
                             NVVM::LdStMatrixEltType::B16);
  }
}

Value AttentionSteps::qkChunk(ArrayRef<Value> qFragments, Value qDesc,
                              Value kDesc, Value acc, bool fresh) {
  auto type = s.elementType.isBF16() ? NVVM::WGMMATypes::bf16
                                     : NVVM::WGMMATypes::f16;
  for (int64_t kk = 0; kk < 4; ++kk) {
    bool accumulate = !(fresh && kk == 0);
    Value kd = add(kDesc, i64((kk * 32) >> 4));
    if (!qFragments.empty()) {
      acc = wgmmaWithRegisterA(acc, v.accS, s.blockN, s.elementType,
                               qFragments.slice(4 * kk, 4), kd, accumulate,
                               /*transposeB=*/false);
      continue;
    }
    Value qd = add(qDesc, i64((kk * 32) >> 4));
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, v.accS, acc, qd, kd,
        NVVM::MMAShapeAttr::get(ctx, 64, s.blockN, 16),
        NVVM::WGMMATypesAttr::get(ctx, type),
        NVVM::WGMMATypesAttr::get(ctx, type),
        NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, accumulate ? NVVM::WGMMAScaleOut::one
                                                     : NVVM::WGMMAScaleOut::zero),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::col), nullptr);
  }
  return acc;
}

Value AttentionSteps::normalized(Value o, Value lEnd0, Value lEnd8) {
  auto rowSum = [&](Value partial) {
    Value sum = partial;
    for (int64_t mask : {1, 2}) {
      Value other = gpu::ShuffleOp::create(b, loc, sum, i32(mask), i32(32),
                                           gpu::ShuffleMode::XOR)
                        .getShuffleResult();
      sum = arith::AddFOp::create(b, loc, sum, other);
    }
    return LLVM::CallIntrinsicOp::create(
               b, loc, b.getF32Type(),
               b.getStringAttr("llvm.nvvm.rcp.approx.ftz.f"), ValueRange{sum})
        .getResult(0);
  };
  Value inv0 = rowSum(lEnd0), inv8 = rowSum(lEnd8);
  Value out = o;
  for (int64_t i = 0; i < s.headDim / 2; ++i) {
    Value x = LLVM::ExtractValueOp::create(b, loc, o, i);
    x = arith::MulFOp::create(b, loc, x, (i / 2) % 2 ? inv8 : inv0);
    out = LLVM::InsertValueOp::create(b, loc, out, x, i);
  }
  return out;
}

void AttentionSteps::stage(Value o, Value stageAt) {
  // The last P V has been read by every thread: the staging tile is free.
  namedBarrier(v.wgBar, i32(128));
  Type packed = VectorType::get({2}, s.elementType);
  SmallVector<Value> pairs(s.headDim / 2);
  for (int64_t i = 1; i < s.headDim / 2; i += 2) {
    Value lo = LLVM::ExtractValueOp::create(b, loc, o, i - 1);
    Value hi = LLVM::ExtractValueOp::create(b, loc, o, i);
    lo = arith::TruncFOp::create(b, loc, s.elementType, lo);
    hi = arith::TruncFOp::create(b, loc, s.elementType, hi);
    pairs[i] = vector::FromElementsOp::create(b, loc, packed, ValueRange{lo, hi});
    int64_t g = i / 4;
    if (i % 4 != 3 || g % 2 != 1)
      continue;
    Value ptr = matrixRowPointer(stageAt, g / 2);
    SmallVector<Value> words;
    for (int64_t k : {4 * (g - 1) + 1, 4 * (g - 1) + 3, 4 * g + 1, 4 * g + 3})
      words.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), pairs[k]));
    NVVM::StMatrixOp::create(b, loc, ptr, words, NVVM::MMALayout::row,
                             NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
                             NVVM::LdStMatrixEltType::B16);
  }
}
