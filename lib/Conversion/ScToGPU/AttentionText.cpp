//===- AttentionText.cpp - MLIR text of the attention kernel's steps ------===//
//
// The steps AttentionKernel.cpp assembles its flash-attention kernel from,
// as MLIR text: the key/value TMA loads, Q K^T and P V by wgmma (A from
// registers or shared memory), Q's fragments by ldmatrix, the online
// softmax (plain, or guessing that no running maximum moves), O's rescale
// and the final normalization into the staging tile.
//
//===----------------------------------------------------------------------===//

#include "AttentionText.h"

#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace mlir::sc::detail::attention {

// TMA loads of key block %kb (rows kb * BN ..) of K and V into ring slot
// %$SLOT: K (one box of BN rows per 64-column chunk of the head dim) on
// %full, then, once the slot's values are free (%emptyV, phase parity
// %pepar, as the caller waited %empty for the keys), V (64-row boxes,
// 64-column chunks, (block, chunk) order) on %fullV.
std::string loadKeyValueText(StringRef p, StringRef t, int64_t dChunks,
                             int64_t blockN, StringRef kbExpr) {
  std::string text = llvm::formatv(R"mlir(
        %{0}_slot = arith.remui {1}, %cS : index
{2}
        %{0}_row = arith.muli %{0}_kb, %cBN : index
        %{0}_so = arith.muli %{0}_slot, %slotBytes : index
        %{0}_k0 = arith.addi %pad, %ringOff : index
        %{0}_k = arith.addi %{0}_k0, %{0}_so : index
        %{0}_v = arith.addi %{0}_k, %kBytes : index
        nvgpu.mbarrier.arrive.expect_tx %full[%{0}_slot], %kBytes : !bars
)mlir",
                                   p, t, kbExpr)
                         .str();
  for (int64_t c = 0; c < dChunks; ++c)
    text += llvm::formatv(R"mlir(
        %{0}_kc{1} = arith.constant {2} : index
        %{0}_ka{1} = arith.addi %{0}_k, %{0}_kc{1} : index
        %{0}_kv{1} = memref.view %smem[%{0}_ka{1}][] : !smem to !boxK
        %{0}_d{1} = arith.constant {3} : index
        nvgpu.tma.async.load %tmaK[%{0}_d{1}, %{0}_row, %h, %kvBatch], %full[%{0}_slot] to %{0}_kv{1} : !tmaK, !bars -> !boxK
)mlir",
                          p, c, c * blockN * 128, c * 64)
                .str();
  text += llvm::formatv(
              "        nvgpu.mbarrier.try_wait.parity %emptyV[%{0}_slot], "
              "%pepar, %ticks : !bars\n",
              p)
              .str();
  text += llvm::formatv("        nvgpu.mbarrier.arrive.expect_tx "
                        "%fullV[%{0}_slot], %kBytes : !bars\n",
                        p)
              .str();
  for (int64_t c = 0; c < dChunks; ++c)
    for (int64_t j = 0; j < blockN / 64; ++j)
      text += llvm::formatv(R"mlir(
        %{0}_vc{1}{2} = arith.constant {3} : index
        %{0}_va{1}{2} = arith.addi %{0}_v, %{0}_vc{1}{2} : index
        %{0}_vv{1}{2} = memref.view %smem[%{0}_va{1}{2}][] : !smem to !box64
        %{0}_vr{1}{2}0 = arith.constant {4} : index
        %{0}_vr{1}{2} = arith.addi %{0}_row, %{0}_vr{1}{2}0 : index
        nvgpu.tma.async.load %tmaV[%{0}_d{1}, %{0}_vr{1}{2}, %h, %kvBatch], %fullV[%{0}_slot] to %{0}_vv{1}{2} : !tmaV, !bars -> !box64
)mlir",
                            p, c, j, (j * dChunks + c) * 8192, j * 64)
                  .str();
  return text;
}


/// wgmma of S = Q K^T: head dim in 64-column chunks, 4 k16 steps each; the
/// first step ignores the (undefined) accumulator.
std::string qkText(int64_t dChunks, int64_t blockN, StringRef type) {
  std::string text;
  std::string acc = "%sU";
  int64_t steps = dChunks * 4;
  int64_t step = 0;
  for (int64_t c = 0; c < dChunks; ++c)
    for (int64_t kk = 0; kk < 4; ++kk, ++step) {
      std::string out = step == steps - 1 ? std::string("%sFinal")
                                          : llvm::formatv("%s{0}", step).str();
      text += llvm::formatv(R"mlir(
      %qa{0} = arith.constant {1} : i64
      %qd{0} = arith.addi %qDesc, %qa{0} : i64
      %ka{0} = arith.constant {2} : i64
      %kd{0} = arith.addi %kDesc, %ka{0} : i64
      {3} = nvvm.wgmma.mma_async %qd{0}, %kd{0}, {4}, #nvvm.shape<m = 64, n = {5}, k = 16>, D [<f32>, <{6}>], A [<{7}>, <one>, <row>], B [<{7}>, <one>, <col>] : !accS -> !accS
)mlir",
                            step, (c * 8192 + kk * 32) >> 4,
                            (c * blockN * 128 + kk * 32) >> 4, out, acc,
                            blockN, step == 0 ? "zero" : "one", type)
                  .str();
      acc = out;
    }
  return text;
}

/// One k16 step of wgmma with A from registers (NVVM's wgmma op takes A only
/// from shared memory, so this is the PTX instruction itself): `out` (a
/// struct `accType` of nAcc = n / 2 f32) = `acc` (extracted into
/// %<tag>_<r>, tied in and out) + A B, or A B alone when !accumulate. `a`
/// names the four A registers (%<a>_0 .. %<a>_3), `bDesc` B's descriptor;
/// B transposed (N-major) or not (K-major).
static std::string wgmmaRegsAText(StringRef tag, StringRef out, StringRef acc,
                           StringRef accType, int64_t n, StringRef type,
                           StringRef a, StringRef bDesc, bool accumulate,
                           bool transposeB) {
  int64_t nAcc = n / 2;
  std::string constraints, regsD, argTypes = "i32, i32, i32, i32, i64", ins,
                                  text;
  for (int64_t r = 0; r < nAcc; ++r) {
    constraints += "=f,";
    regsD += llvm::formatv("{0}${1}", r ? "," : "", r).str();
  }
  constraints += "r,r,r,r,l";
  for (int64_t r = 0; r < nAcc; ++r) {
    constraints += llvm::formatv(",{0}", r).str();
    argTypes += ", f32";
    text += llvm::formatv("      %{0}_{1} = llvm.extractvalue {2}[{1}] : {3}\n",
                          tag, r, acc, accType)
                .str();
    ins += llvm::formatv(", %{0}_{1}", tag, r).str();
  }
  text += llvm::formatv(
              "      {0} = llvm.inline_asm has_side_effects asm_dialect = att "
              "\"{{ .reg .pred p; setp.ne.b32 p, {1}, 0; "
              "wgmma.mma_async.sync.aligned.m64n{2}k16.f32.{3}.{3} {{{4}}, "
              "{{${5}, ${6}, ${7}, ${8}}, ${9}, p, 1, 1, {10}; }\", \"{11}\" "
              "%{12}_0, %{12}_1, %{12}_2, %{12}_3, {13}{14} : ({15}) -> {16}\n",
              out, accumulate ? 1 : 0, n, type, regsD, nAcc, nAcc + 1,
              nAcc + 2, nAcc + 3, nAcc + 4, transposeB ? 1 : 0, constraints,
              a, bDesc, ins, argTypes, accType)
              .str();
  return text;
}

/// The consumer's Q tile as wgmma A fragments in registers (%qf<k>_<r>:
/// k16 step k, registers r = rows r0 / r8 at columns 16k + 2 (lane % 4),
/// then + 8), read once from the swizzled tile: Q K^T then reads only K
/// from shared memory.
/// This lane's row of the four 8 x 8 matrices that ldmatrix / stmatrix
/// .x4 move for its warp's 16 rows of a 64-row tile: lanes 8 m .. 8 m + 7
/// address matrix m's rows, which are the warp's rows 8 (m % 2) .. and the
/// 16-byte chunk m / 2 of a 16-column step. %lmRowB: the row's byte
/// offset in the tile; %lmHi: the chunk; %lmSw: the row's swizzle (TMA's
/// 128-byte pattern XORs a 16-byte chunk with the row modulo 8).
const char *const kMatrixLanes = R"mlir(
      %lmM = arith.divui %lane, %c8 : index
      %lmRowIn = arith.remui %lane, %c8 : index
      %lmOdd = arith.remui %lmM, %c2 : index
      %lmRowOff = arith.muli %lmOdd, %c8 : index
      %lmRow0 = arith.addi %warpRow, %lmRowIn : index
      %lmRow = arith.addi %lmRow0, %lmRowOff : index
      %lmHi = arith.divui %lmM, %c2 : index
      %lmRowB = arith.muli %lmRow, %c128b : index
      %lmSw = arith.remui %lmRow, %c8 : index
)mlir";

/// %<p>_ptr: this lane's row (kMatrixLanes) in 16-column step `step` of
/// the swizzled 64-row tile at byte offset `at` of the shared memory.
static std::string matrixRowPtrText(StringRef p, StringRef at, int64_t step) {
  return llvm::formatv(R"mlir(
      %{0}_cb = arith.constant {1} : index
      %{0}_c = arith.addi %lmHi, %{0}_cb : index
      %{0}_sw = arith.xori %{0}_c, %lmSw : index
      %{0}_swb = arith.muli %{0}_sw, %c16 : index
      %{0}_bo = arith.constant {2} : index
      %{0}_o1 = arith.addi %lmRowB, %{0}_bo : index
      %{0}_o2 = arith.addi %{0}_o1, %{0}_swb : index
      %{0}_o3 = arith.addi %{0}_o2, {3} : index
      %{0}_a = arith.addi %{0}_o3, %base : index
      %{0}_a64 = arith.index_cast %{0}_a : index to i64
      %{0}_ptr = llvm.inttoptr %{0}_a64 : i64 to !llvm.ptr<3>
)mlir",
                       p, (2 * step) % 8, (2 * step / 8) * 8192, at)
      .str();
}

/// ldmatrix / stmatrix attributes: four 8 x 8 matrices of 16-bit elements.
constexpr const char *kMatrixX4Attrs =
    "layout = #nvvm.mma_layout<row>, shape = #nvvm.ld_st_matrix_shape<m = 8, "
    "n = 8>, eltType = #nvvm.ld_st_matrix_elt_type<b16>";

/// Q's A fragments %qf<kk>_<r> (wgmma's register form) from the consumer's
/// swizzled Q tile (%stageAt), one ldmatrix .x4 a k16 step: its four
/// matrices are the fragment's rows r0 / r8 at columns 16 kk + 2 (lane %
/// 4) and + 8, in order (one instruction in place of four 4-byte loads a
/// step).
std::string loadQRegsText(int64_t headDim) {
  std::string text;
  for (int64_t kk = 0; kk < headDim / 16; ++kk) {
    std::string p = llvm::formatv("lq{0}", kk).str();
    text += matrixRowPtrText(p, "%stageAt", kk);
    text += llvm::formatv(
                "      %{0} = nvvm.ldmatrix %{0}_ptr {{num = 4 : i32, {1}} : "
                "(!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>\n",
                p, kMatrixX4Attrs)
                .str();
    for (int64_t r = 0; r < 4; ++r)
      text += llvm::formatv("      %qf{0}_{1} = llvm.extractvalue %{2}[{1}] : "
                            "!llvm.struct<(i32, i32, i32, i32)>\n",
                            kk, r, p)
                  .str();
  }
  return text;
}

/// qkText with Q from registers (loadQRegsText): the PTX instruction
/// itself (NVVM's wgmma takes A only from shared memory), the accumulator
/// tied in and out; the first step ignores it (scale-d false).
std::string qkRegsText(int64_t dChunks, int64_t blockN, StringRef type) {
  std::string text, acc = "%sU";
  int64_t steps = dChunks * 4;
  for (int64_t step = 0; step < steps; ++step) {
    int64_t c = step / 4, kk = step % 4;
    std::string out = step == steps - 1 ? std::string("%sFinal")
                                        : llvm::formatv("%s{0}", step).str();
    text += llvm::formatv("      %ka{0} = arith.constant {1} : i64\n"
                          "      %kd{0} = arith.addi %kDesc, %ka{0} : i64\n",
                          step, (c * blockN * 128 + kk * 32) >> 4)
                .str();
    text += wgmmaRegsAText(llvm::formatv("qki{0}", step).str(), out, acc,
                           "!accS", blockN, type,
                           llvm::formatv("qf{0}", step).str(),
                           llvm::formatv("%kd{0}", step).str(),
                           /*accumulate=*/step != 0, /*transposeB=*/false);
    acc = out;
  }
  return text;
}

/// An empty asm taking P's A fragments (%<pName><k>_<r>, blockN / 16 k16
/// steps of 4): they stay in their registers until the P V reading them
/// is done.
std::string keepPText(int64_t blockN, StringRef pName) {
  std::string regs, args, types;
  for (int64_t kk = 0; kk < blockN / 16; ++kk)
    for (int64_t r = 0; r < 4; ++r) {
      bool first = regs.empty();
      regs += first ? "r" : ",r";
      types += first ? "i32" : ", i32";
      args += llvm::formatv("{0}%{1}{2}_{3}", first ? "" : ", ", pName, kk, r).str();
    }
  return llvm::formatv("            llvm.inline_asm has_side_effects "
                       "asm_dialect = att \"\", \"{0}\" {1} : ({2}) -> ()\n",
                       regs, args, types)
      .str();
}

/// wgmma of O += P V with P in registers (the A fragment of a k16 step is
/// the S accumulator's layout: registers 8c .. 8c + 7 of the thread hold
/// its rows r0 / r8 at keys 16c + 2 (lane % 4) + {0, 1, 8, 9}), V N-major
/// in the slot (64-key blocks of head-dim chunks). NVVM's wgmma op takes A
/// only from shared memory, so this is the PTX instruction itself, the
/// accumulators tied in and out.
std::string pvText(int64_t dChunks, int64_t blockN, int64_t headDim,
                   StringRef type, StringRef pName, StringRef accIn,
                   StringRef accOut) {
  std::string text;
  std::string acc = accIn.str();
  for (int64_t kk = 0; kk < blockN / 16; ++kk) {
    std::string out = kk == blockN / 16 - 1 ? accOut.str()
                                            : llvm::formatv("%pv{0}", kk).str();
    int64_t vOff = (kk / 4) * dChunks * 8192 + (kk % 4) * 2048;
    text += llvm::formatv("      %va{0} = arith.constant {1} : i64\n"
                          "      %vd{0} = arith.addi %vDesc, %va{0} : i64\n",
                          kk, vOff >> 4)
                .str();
    text += wgmmaRegsAText(llvm::formatv("pvi{0}", kk).str(), out, acc,
                           "!accO", headDim, type,
                           llvm::formatv("{0}{1}", pName, kk).str(),
                           llvm::formatv("%vd{0}", kk).str(),
                           /*accumulate=*/true, /*transposeB=*/true);
    acc = out;
  }
  return text;
}

/// The block's p = exp2(z * scale - m) from the rows' negated maxima
/// `neg`0 / `neg`8, their partial row sums and P's A fragments; names
/// prefixed by `p` (%<p>p<i>, %<p>pa<k>_<r>). Returns the row sums' last
/// values (rows r0, r8).
static std::pair<std::string, std::string>
appendExpSumsAndP(std::string &text, int64_t n, StringRef type, StringRef p,
                  StringRef neg) {
  // exp2 is ex2.approx.ftz (here and for alpha): math.exp2 gives ex2.approx
  // without ftz, which ptxas wraps in a compare and two multiplies for
  // subnormal inputs and results (three instructions more per score, a
  // quarter of the loop's); a p below 2^-126 adds nothing to a row sum of
  // at least 1 (the score that set the running maximum), nor an alpha
  // below it to O.
  std::string sum0 = "%zeroF", sum8 = "%zeroF";
  for (int64_t i = 0; i < n; ++i) {
    int row = (i / 2) % 2 ? 8 : 0;
    text += llvm::formatv(R"mlir(
      %{2}e{0} = math.fma %z{0}, %scale2, {3}{1} : f32
      %{2}p{0} = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%{2}e{0}) : (f32) -> f32
)mlir",
                          i, row, p, neg)
                .str();
    std::string &sum = row ? sum8 : sum0;
    std::string out = llvm::formatv("%{0}ps{1}", p, i).str();
    text += llvm::formatv("      {0} = arith.addf {1}, %{2}p{3} : f32\n", out,
                          sum, p, i)
                .str();
    sum = out;
    if (i % 2 == 1)
      // P's A fragment for O += P V: register j = (i % 8) / 2 of k16 step
      // i / 8, two keys packed.
      text += llvm::formatv(R"mlir(
      %{5}pa{0}_{1}a = arith.truncf %{5}p{2} : f32 to {4}
      %{5}pa{0}_{1}b = arith.truncf %{5}p{3} : f32 to {4}
      %{5}pa{0}_{1}v = vector.from_elements %{5}pa{0}_{1}a, %{5}pa{0}_{1}b : vector<2x{4}>
      %{5}pa{0}_{1} = llvm.bitcast %{5}pa{0}_{1}v : vector<2x{4}> to i32
)mlir",
                            i / 8, (i % 8) / 2, i - 1, i, type, p)
                  .str();
  }
  return {sum0, sum8};
}

/// The exponentials of softmaxText (from %mNeg0 / %mNeg8): P's A fragments
/// %pa<k>_<r>, the row sums %lNew0 / %lNew8.
static std::string softmaxExpText(int64_t n, StringRef type) {
  std::string text;
  auto [sum0, sum8] = appendExpSumsAndP(text, n, type, "", "%mNeg");
  text += llvm::formatv(R"mlir(
      %la0 = arith.mulf %l0, %alpha0 : f32
      %lNew0 = arith.addf %la0, {0} : f32
      %la8 = arith.mulf %l8, %alpha8 : f32
      %lNew8 = arith.addf %la8, {1} : f32
)mlir",
                        sum0, sum8)
              .str();
  return text;
}

/// The block's scores %z<i> (BN / 2 a thread) from the S registers
/// %sFinal; with `maskTail`, keys past the length are -inf.
static std::string blockScoresText(int64_t blockN, bool maskTail) {
  std::string text;
  int64_t n = blockN / 2;
  if (maskTail)
    text += R"mlir(
      %kPos0 = arith.muli %kb, %cBN : index
      %kPosQ = arith.addi %kPos0, %q2 : index
)mlir";
  // Scores stay unscaled (z); the running maxima are kept scaled (m), so
  // p = exp2(z * scale - m) is one fma. scale > 0: the maximum of z scaled
  // is the scaled maximum. maxnumf: scores are finite, no NaN handling.
  for (int64_t i = 0; i < n; ++i) {
    int64_t col = 8 * (i / 4) + (i % 2);
    std::string x = llvm::formatv("%x{0}", i).str();
    text += llvm::formatv(R"mlir(
      {1} = llvm.extractvalue %sFinal[{0}] : !accS
)mlir",
                          i, maskTail ? x : llvm::formatv("%z{0}", i).str())
                .str();
    if (maskTail)
      text += llvm::formatv(R"mlir(
      %kc{0} = arith.constant {1} : index
      %kp{0} = arith.addi %kPosQ, %kc{0} : index
      %kin{0} = arith.cmpi ult, %kp{0}, %keyLen : index
      %z{0} = arith.select %kin{0}, %x{0}, %negInf : f32
)mlir",
                            i, col)
                  .str();
  }
  return text;
}

/// Online softmax of the block's scores (blockScoresText's %z<i>): defines
/// %mNew0/8, %lNew0/8, the rescale factors %alpha0/8 (%big0/8: the row
/// took a new maximum) and P packed as wgmma A fragments %pa<k>_<r>.
/// `skipUnmovedMaxima`: the quads' maxima only when some thread's own
/// maximum could move a running one (below).
static std::string softmaxFromScoresText(int64_t blockN, StringRef type,
                                  bool skipUnmovedMaxima) {
  std::string text;
  int64_t n = blockN / 2;
  // A row's maximum over its quad (two shuffles) from this thread's
  // `local`, scaled; whether it moves the running maximum (by more than the
  // lazy bound), the new one and the factor alpha for O and the sum. `q`
  // suffixes the names.
  auto quadMax = [](int row, StringRef local, StringRef q) {
    return llvm::formatv(R"mlir(
      %mq{0}a, %mqv{0}a = gpu.shuffle xor {1}, %c1i32, %c32i32 : f32
      %mr{0}a = arith.maxnumf {1}, %mq{0}a : f32
      %mq{0}b, %mqv{0}b = gpu.shuffle xor %mr{0}a, %c2i32, %c32i32 : f32
      %mr{0}u = arith.maxnumf %mr{0}a, %mq{0}b : f32
      %mr{0} = arith.mulf %mr{0}u, %scale2 : f32
      %grow{0} = arith.subf %mr{0}, %m{0} : f32
      %big{2}{0} = arith.cmpf ogt, %grow{0}, %lazyBound : f32
      %mNew{2}{0} = arith.select %big{2}{0}, %mr{0}, %m{0} : f32
      %md{0} = arith.subf %m{0}, %mNew{2}{0} : f32
      %alpha{2}{0} = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%md{0}) : (f32) -> f32
)mlir",
                         row, local, q)
        .str();
  };
  // Row maxima (registers with (i / 2) % 2 == 0 hold row r0, else r0 + 8):
  // this thread's (local[]), then the quad's.
  std::string local[2];
  for (int row : {0, 8}) {
    std::string prev;
    for (int64_t i = 0; i < n; ++i) {
      if (((i / 2) % 2 == 0) != (row == 0))
        continue;
      if (prev.empty()) {
        prev = llvm::formatv("%z{0}", i).str();
        continue;
      }
      std::string out = llvm::formatv("%mx{0}_{1}", row, i).str();
      text += llvm::formatv("      {0} = arith.maxnumf {1}, %z{2} : f32\n",
                            out, prev, i)
                  .str();
      prev = out;
    }
    local[row / 8] = prev;
    if (!skipUnmovedMaxima)
      text += quadMax(row, prev, "") +
              llvm::formatv("      %mNeg{0} = arith.negf %mNew{0} : f32\n", row)
                  .str();
  }
  if (!skipUnmovedMaxima)
    return text + softmaxExpText(n, type);
  // A row's running maximum moves only when the block's exceeds it by more
  // than the lazy bound, which needs some thread's own maximum to: when no
  // thread of the warp has one (most blocks but a row's first few), the
  // maxima stay and alpha is 1, without the quads' shuffles and the exp2 of
  // alpha on the softmax's path (the same values either way).
  text += llvm::formatv(R"mlir(
      %lms0 = arith.mulf {0}, %scale2 : f32
      %lms8 = arith.mulf {1}, %scale2 : f32
      %lgrow0 = arith.subf %lms0, %m0 : f32
      %lgrow8 = arith.subf %lms8, %m8 : f32
      %lbig0 = arith.cmpf ogt, %lgrow0, %lazyBound : f32
      %lbig8 = arith.cmpf ogt, %lgrow8, %lazyBound : f32
      %lbig = arith.ori %lbig0, %lbig8 : i1
      %lbigLanes = arith.constant -1 : i32
      %anyBig = nvvm.vote.sync any %lbigLanes, %lbig -> i1
      %mNew0, %mNew8, %alpha0, %alpha8, %big0, %big8 = scf.if %anyBig -> (f32, f32, f32, f32, i1, i1) {{
)mlir",
                        local[0], local[1])
              .str();
  text += quadMax(0, local[0], "Q") + quadMax(8, local[1], "Q");
  text += R"mlir(
        scf.yield %mNewQ0, %mNewQ8, %alphaQ0, %alphaQ8, %bigQ0, %bigQ8 : f32, f32, f32, f32, i1, i1
      } else {
        %alphaOne = arith.constant 1.0 : f32
        scf.yield %m0, %m8, %alphaOne, %alphaOne, %false, %false : f32, f32, f32, f32, i1, i1
      }
      %mNeg0 = arith.negf %mNew0 : f32
      %mNeg8 = arith.negf %mNew8 : f32
)mlir";
  return text + softmaxExpText(n, type);
}

/// Online softmax of the S registers (%sFinal): blockScoresText, then
/// softmaxFromScoresText.
std::string softmaxText(int64_t blockN, bool maskTail, StringRef type,
                        bool skipUnmovedMaxima) {
  return blockScoresText(blockN, maskTail) +
         softmaxFromScoresText(blockN, type, skipUnmovedMaxima);
}

/// softmaxText's results, guessing first that no running maximum moves:
/// p = exp2(s - m) with the maxima as they are, and when every thread's
/// partial row sums stay within 2^8 (so every p does: the lazy bound, as
/// if no block maximum had passed m + 8) those are P and the sums, alpha
/// is 1 and O is not rescaled. Otherwise (a row's first block, whose
/// maximum starts at -1e30, or a maximum that moved far) the warp takes
/// the plain softmax, exponentials again included. The guess takes the
/// row maxima (16 compares a row a block) and their vote off the path
/// from S to P, which then starts with the exponentials.
std::string speculativeSoftmaxText(int64_t blockN, bool maskTail,
                                   StringRef type) {
  std::string text = blockScoresText(blockN, maskTail);
  int64_t n = blockN / 2;
  text += R"mlir(
      %gNeg0 = arith.negf %m0 : f32
      %gNeg8 = arith.negf %m8 : f32
)mlir";
  auto [sum0, sum8] = appendExpSumsAndP(text, n, type, "g", "%gNeg");
  // P's fragments: the if's results (%pa..), the guess's (%gpa..).
  std::string results, guessed, types;
  for (int64_t k = 0; k < n / 8; ++k)
    for (int64_t r = 0; r < 4; ++r) {
      results += llvm::formatv(", %pa{0}_{1}", k, r).str();
      guessed += llvm::formatv(", %gpa{0}_{1}", k, r).str();
      types += ", i32";
    }
  // ole: a sum that is NaN takes the plain softmax too.
  text += llvm::formatv(R"mlir(
      %gBound = arith.constant 256.0 : f32
      %gFit0 = arith.cmpf ole, {0}, %gBound : f32
      %gFit8 = arith.cmpf ole, {1}, %gBound : f32
      %gFit = arith.andi %gFit0, %gFit8 : i1
      %gLanes = arith.constant -1 : i32
      %gAllFit = nvvm.vote.sync all %gLanes, %gFit -> i1
      %mNew0, %mNew8, %alpha0, %alpha8, %big0, %big8, %lNew0, %lNew8{2} = scf.if %gAllFit -> (f32, f32, f32, f32, i1, i1, f32, f32{3}) {{
        %gOne = arith.constant 1.0 : f32
        %gl0 = arith.addf %l0, {0} : f32
        %gl8 = arith.addf %l8, {1} : f32
        scf.yield %m0, %m8, %gOne, %gOne, %false, %false, %gl0, %gl8{4} : f32, f32, f32, f32, i1, i1, f32, f32{3}
      } else {{
)mlir",
                        sum0, sum8, results, types, guessed)
              .str();
  text += softmaxFromScoresText(blockN, type, /*skipUnmovedMaxima=*/false);
  text += llvm::formatv(R"mlir(
        scf.yield %mNew0, %mNew8, %alpha0, %alpha8, %big0, %big8, %lNew0, %lNew8{0} : f32, f32, f32, f32, i1, i1, f32, f32{1}
      }
)mlir",
                        results, types)
              .str();
  return text;
}

/// O *= alpha (softmaxText's), row by row, when a row of the warp took a
/// new maximum: `oIn` -> `oOut`.
std::string rescaleText(int64_t headDim, StringRef oIn, StringRef oOut) {
  std::string text = llvm::formatv(R"mlir(
      %grew = arith.ori %big0, %big8 : i1
      %allLanes = arith.constant -1 : i32
      %warpGrew = nvvm.vote.sync any %allLanes, %grew -> i1
      {0} = scf.if %warpGrew -> (!accO) {{
)mlir",
                                   oOut)
                         .str();
  std::string acc = oIn.str();
  for (int64_t i = 0; i < headDim / 2; ++i) {
    int row = (i / 2) % 2 ? 8 : 0;
    std::string out = llvm::formatv("%os{0}", i).str();
    text += llvm::formatv(R"mlir(
        %ov{0} = llvm.extractvalue {4}[{0}] : !accO
        %ow{0} = arith.mulf %ov{0}, %alpha{1} : f32
        {2} = llvm.insertvalue %ow{0}, {3}[{0}] : !accO
)mlir",
                          i, row, out, acc, oIn)
                .str();
    acc = out;
  }
  text += llvm::formatv(R"mlir(
        scf.yield {0} : !accO
      } else {{
        scf.yield {1} : !accO
      }
)mlir",
                        acc, oIn)
              .str();
  return text;
}

/// The inverse row sums %inv0 / %inv8 of the thread's rows r0 / r8: the
/// four threads of a row (a quad) add their partial sums %lEnd0 / %lEnd8.
/// rcp.approx (1 ulp), not a division (IEEE: a dozen instructions and a
/// branch).
constexpr const char *kInverseRowSums = R"mlir(
    %ls0a, %lsv0a = gpu.shuffle xor %lEnd0, %c1i32, %c32i32 : f32
    %ls0b = arith.addf %lEnd0, %ls0a : f32
    %ls0c, %lsv0c = gpu.shuffle xor %ls0b, %c2i32, %c32i32 : f32
    %lSum0 = arith.addf %ls0b, %ls0c : f32
    %ls8a, %lsv8a = gpu.shuffle xor %lEnd8, %c1i32, %c32i32 : f32
    %ls8b = arith.addf %lEnd8, %ls8a : f32
    %ls8c, %lsv8c = gpu.shuffle xor %ls8b, %c2i32, %c32i32 : f32
    %lSum8 = arith.addf %ls8b, %ls8c : f32
    %inv0 = llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"(%lSum0) : (f32) -> f32
    %inv8 = llvm.call_intrinsic "llvm.nvvm.rcp.approx.ftz.f"(%lSum8) : (f32) -> f32
)mlir";

/// After the loop: row sums across the quad, then O / sum into the staging
/// tile at byte offset `stageAt` (64 rows x head dim) in the swizzled
/// layout of the O tensor map, by stmatrix.
std::string finishText(int64_t headDim, StringRef type, StringRef stageAt) {
  std::string text = kInverseRowSums;
  text += R"mlir(
    // The last P V has been read by every thread: the staging tile is free.
    nvvm.barrier id = %wgBar number_of_threads = %c128i32
)mlir";
  for (int64_t i = 1; i < headDim / 2; i += 2) {
    int row = (i / 2) % 2 ? 8 : 0;
    text += llvm::formatv(R"mlir(
    %fa{0} = llvm.extractvalue %oEnd[{1}] : !accO
    %fb{0} = llvm.extractvalue %oEnd[{0}] : !accO
    %fsa{0} = arith.mulf %fa{0}, %inv{2} : f32
    %fsb{0} = arith.mulf %fb{0}, %inv{2} : f32
    %fta{0} = arith.truncf %fsa{0} : f32 to {3}
    %ftb{0} = arith.truncf %fsb{0} : f32 to {3}
    %fv{0} = vector.from_elements %fta{0}, %ftb{0} : vector<2x{3}>
)mlir",
                          i, i - 1, row, type)
                .str();
    // Column groups g - 1, g (16 columns), rows r0 / r8 of each: stmatrix
    // .x4's four matrices in order, one store once all four are packed.
    int64_t g = i / 4;
    if (i % 4 != 3 || g % 2 != 1)
      continue;
    std::string q = llvm::formatv("so{0}", g / 2).str(), regs;
    text += matrixRowPtrText(q, stageAt, g / 2);
    for (int64_t k : {4 * (g - 1) + 1, 4 * (g - 1) + 3, 4 * g + 1, 4 * g + 3}) {
      text += llvm::formatv("    %fi{0} = llvm.bitcast %fv{0} : vector<2x{1}> to i32\n",
                            k, type)
                  .str();
      regs += llvm::formatv(", %fi{0}", k).str();
    }
    text += llvm::formatv("    nvvm.stmatrix %{0}_ptr{1} {{{2}} : !llvm.ptr<3>, "
                          "i32, i32, i32, i32\n",
                          q, regs, kMatrixX4Attrs)
                .str();
  }
  return text;
}

} // namespace mlir::sc::detail::attention
