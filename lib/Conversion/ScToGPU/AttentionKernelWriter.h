//===- AttentionKernelWriter.h - the attention kernel, op by op -*- C++ -*-===//
//
// The flash-attention kernel written with an OpBuilder: AttentionKernel.cpp
// decides its shape (AttentionShape, from the op, its configuration and its
// kernel-level IR) and writes the skeleton (roles, tile walk, ring, the
// consumer's software pipeline); AttentionSteps.cpp writes the steps
// (K/V loads, Q K^T and P V by wgmma, the online softmax, O's rescale and
// normalization). The consumer's steps (AttentionSteps) read only what a
// CTA sets up once (AttentionStepValues) and their arguments, so that
// lowerings of the kernel-level IR's ops can emit them too.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONKERNELWRITER_H
#define SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONKERNELWRITER_H

#include "KernelBuilder.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::sc::detail {

/// What the attention kernel computes and how, decided before it is
/// written.
struct AttentionShape {
  /// Consumers of a CTA: one on a 64-row query tile (Single); two on two
  /// candidates of one request sharing its K/V (Pairs); two on the halves
  /// of a 128-row query block (Split).
  enum class Mode { Single, Pairs, Split } mode = Mode::Single;
  /// Resident CTAs each walking candidates head by head (the chained walk).
  bool chained = false;
  /// The chained and pairs walks take candidates in request order (the
  /// grouping kernel's table).
  bool grouped = false;
  bool indexed = false;
  bool dynamicQuery = false, dynamicKey = false, dynamicBatch = false;
  /// Kept key blocks from tables the runtime builds at launch.
  bool runtimeTables = false;
  /// Keys past the length inside the last block are masked to -inf.
  bool maskTail = false;
  /// Q K^T reads Q from registers (ldmatrix once a tile), not shared memory.
  bool qInRegs = true;
  /// The softmax of blocks after the first guesses no maximum moves.
  bool speculativeSoftmax = false;
  /// The softmax skips the quads' maxima when no thread's could move one.
  bool skipUnmovedMaxima = true;
  int64_t consumers = 1, ctasPerSM = 2;
  int64_t heads = 0, headDim = 0, blockN = 64;
  int64_t queryLen = 0, keyLen = 0, tilesX = 0, tilesY = 0;
  int64_t stages = 2, producerRegs = 0, consumerRegs = 0;
  /// Shared memory: each consumer's Q tile (qBytes, later O's staging),
  /// then the K/V ring from ringOff (slots of K then V, kBytes each), then
  /// (chained) each consumer's O staging tile from oStageOff.
  int64_t qBytes = 0, kBytes = 0, slotBytes = 0, ringOff = 0, oStageOff = 0;
  /// scale * log2(e): scores are exponentiated with exp2.
  double scale2 = 0;
  /// Q, K, V and O's element type; P's (V's, as the kernel reads it).
  Type elementType, pType;
  /// A static block mask's tables (BSR offsets and kept key blocks) and its
  /// query blocks heaviest first.
  bool staticMask = false;
  SmallVector<int32_t> offsets, indices, order;

  int64_t dChunks() const { return headDim / 64; }
  /// The tensor map of Q, K, V or O: [1, 1, rows, 64] boxes, 128-byte
  /// swizzle, zeros past the tensor.
  Type tensorMapType(MLIRContext *ctx, int64_t rows,
                     nvgpu::TensorMapL2PromoKind promo) const {
    auto space = IntegerAttr::get(IntegerType::get(ctx, 64), 3);
    return nvgpu::TensorMapDescriptorType::get(
        ctx,
        MemRefType::get({1, 1, rows, 64}, elementType,
                        MemRefLayoutAttrInterface(), space),
        nvgpu::TensorMapSwizzleKind::SWIZZLE_128B, promo,
        nvgpu::TensorMapOOBKind::OOB_ZERO,
        nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  }
  /// P's wgmma A fragments: blockN / 16 k16 steps of 4 registers.
  int64_t pRegs() const { return blockN / 16 * 4; }
};

/// The kernel's parameters (the tensor maps of Q, K, V and O first), and
/// the position of each that only some kernels have (-1: none).
struct AttentionParams {
  std::vector<KernelParam> list;
  int index = -1, pairs = -1, order = -1, queryLen = -1, keyLen = -1,
      tables = -1, tilesX = -1;
  /// Appends `param`; its position.
  int add(KernelParam param) {
    list.push_back(std::move(param));
    return static_cast<int>(list.size()) - 1;
  }
};

/// A thread's running softmax state of its two rows (r0 and r0 + 8) and
/// P of its last block as wgmma A fragments.
struct RowState {
  Value m0, m8, l0, l8;
  SmallVector<Value> p;
};

/// The online softmax's results for one block.
struct SoftmaxStep {
  Value mNew0, mNew8, alpha0, alpha8, big0, big8, lNew0, lNew8;
  SmallVector<Value> p;
};

/// What the steps read that is set up once a CTA (by the writer, or by a
/// conversion's frame): shared memory's base, this lane's place in the
/// ldmatrix / stmatrix and wgmma fragment layouts, the softmax's constants.
struct AttentionStepValues {
  /// Shared memory's base (i64, for wgmma descriptors; index, for
  /// pointers).
  Value smemBase, base;
  /// If set, the wgmma descriptor of the base itself: a box's descriptor
  /// is then this plus its offset / 16 (shared addresses stay below the
  /// descriptor's 18 address bits, so no mask is needed), an add a box.
  Value descriptorBase;
  /// This lane's row of the four 8 x 8 matrices of ldmatrix / stmatrix
  /// .x4: its 16-byte chunk, its byte offset in the tile, its swizzle; its
  /// column pair 2 (lane % 4) of the wgmma fragments.
  Value lmHi, lmRowB, lmSw, q2;
  /// The key length (masking keys past it), -inf, scale * log2(e), the
  /// lazy rescaling's bound, 0.0.
  Value keyLen, negInf, scale2, lazyBound, zeroF;
  /// The consumer warpgroup's named barrier (its 128 threads).
  Value wgBar;
  /// The S and O accumulators' types (structs of f32).
  Type accS, accO;
};

/// The steps of the attention kernel's consumer, each written with the
/// OpBuilder at its point (AttentionSteps.cpp): Q K^T and P V by wgmma,
/// Q's fragments by ldmatrix, the online softmax, O's rescale and the
/// normalization into the staging tile.
class AttentionSteps : protected KernelArith {
public:
  AttentionSteps(OpBuilder &b, Location loc, AttentionShape shape,
                 AttentionStepValues values = {})
      : KernelArith(b, loc), s(std::move(shape)), ctx(b.getContext()),
        v(values) {}

  /// The wgmma descriptor of the 128B-swizzled tile at `byteOffset`.
  Value descriptor(Value byteOffset);
  /// Q's A fragments from the 64-row tile at `stageAt` (ldmatrix): every
  /// k16 step of the head dim, or the first `steps`.
  SmallVector<Value> loadQFragments(Value stageAt, int64_t steps = -1);
  /// S = Q K^T of the block whose K is at kDesc: Q from registers
  /// (`qFragments`) or else from shared memory (`qDesc`).
  Value qk(ArrayRef<Value> qFragments, Value qDesc, Value kDesc);
  /// O (`acc`) += P V, V at vDesc.
  Value pv(ArrayRef<Value> p, Value acc, Value vDesc);
  /// P's registers kept until the P V reading them is done.
  void keepP(ArrayRef<Value> p);
  /// One online-softmax step on the scores of key block `keyBlock`.
  SoftmaxStep softmax(Value sFinal, Value keyBlock, const RowState &rows,
                      bool skipUnmovedMaxima);
  SoftmaxStep speculativeSoftmax(Value sFinal, Value keyBlock,
                                 const RowState &rows);
  /// O *= alpha where a row of the warp took a new maximum.
  Value rescale(Value o, const SoftmaxStep &step);
  /// O / row sums into the staging tile at `stageAt`.
  void finish(Value oEnd, Value lEnd0, Value lEnd8, Value stageAt);
  /// The same in two parts (for the kernel-level IR's normalize and
  /// epilogue): O times the inverse row sums; O into the staging tile.
  Value normalized(Value o, Value lEnd0, Value lEnd8);
  void stage(Value o, Value stageAt);
  /// S (`acc`, or from nothing when `fresh`) += one 64-column chunk of Q
  /// (4 k16 steps; from registers, or its tile at qDesc) times K^T at
  /// kDesc.
  Value qkChunk(ArrayRef<Value> qFragments, Value qDesc, Value kDesc,
                Value acc, bool fresh);

protected:
  // Arithmetic.
  Value i64(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }
  Value f32(double v) {
    return arith::ConstantFloatOp::create(b, loc, b.getF32Type(),
                                          APFloat(static_cast<float>(v)));
  }
  Value boolean(bool v) {
    return arith::ConstantIntOp::create(b, loc, b.getI1Type(), v);
  }
  Value andi(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value notI1(Value x) { return arith::XOrIOp::create(b, loc, x, boolean(true)); }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value toIndex(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  /// Control flow: the body builders yield their results.
  void ifThen(Value cond, function_ref<void()> body);
  SmallVector<Value> ifElse(Value cond, TypeRange types,
                            function_ref<SmallVector<Value>()> thenBody,
                            function_ref<SmallVector<Value>()> elseBody);
  SmallVector<Value>
  forLoop(Value from, Value to, ValueRange init,
          function_ref<SmallVector<Value>(Value, ValueRange)> body);
  void namedBarrier(Value id, Value count);
  void warpSync();

  AttentionShape s;
  MLIRContext *ctx;
  AttentionStepValues v;

private:
  Value matrixRowPointer(Value at, int64_t step);
  Value wgmmaWithRegisterA(Value acc, Type accType, int64_t n, Type type,
                           ArrayRef<Value> a, Value bDesc, bool accumulate,
                           bool transposeB);
  SmallVector<Value> blockScores(Value sFinal, Value keyBlock);
  SoftmaxStep softmaxFromScores(ArrayRef<Value> z, const RowState &rows,
                                bool skipUnmovedMaxima);
  /// p = exp2(z scale2 + neg), the rows' sums of p and P's fragments.
  std::pair<Value, Value> expSumsAndP(ArrayRef<Value> z, Value neg0, Value neg8,
                                      SmallVector<Value> &p);
  Value exp2(Value x);
};

/// Writes the kernel into a gpu.func; see AttentionKernel.cpp.
class AttentionKernelWriter : AttentionSteps {
public:
  AttentionKernelWriter(AttentionShape shape, OpBuilder &b, Location loc)
      : AttentionSteps(b, loc, std::move(shape)) {}

  /// Kernel `name` at the end of `module`, of parameters `params`.
  void write(gpu::GPUModuleOp module, StringRef name,
             const AttentionParams &params);

private:
  /// `table`[i] (i32) as an index.
  Value loadIndex(Value table, Value i);

  // Synchronization.
  /// Ring position `j` -> its slot and the parity its full barrier has
  /// when the slot is full (`free`: its empty barrier's, when it is free).
  std::pair<Value, Value> ringPosition(Value j, bool free);
  void wait(Value barriers, Value slot, Value parity);
  void arrive(Value barriers, Value slot);
  /// Lane 0 of the warp arrives.
  void laneZeroArrive(Value barriers, Value slot);

  // The kernel's parts (AttentionKernel.cpp).
  void writeParameters(gpu::GPUFuncOp func, const AttentionParams &params);
  /// Non-chained: the CTA's tile from its block ids.
  void assignTile(Value x, Value y, Value &run);
  /// The query tile of grid row y (a static mask's heaviest first).
  Value tileOfRow(Value y);
  Value userOf(Value candidate);
  /// nkb and the first kept block of tile A's query block.
  void keyBlocks();
  /// Key block of iteration t.
  Value keyBlockOf(Value t);
  /// The chained walk: item -> (candidate tile, head); candidate tile ->
  /// (batch element, query tile).
  std::pair<Value, Value> chainItem(Value item);
  std::pair<Value, Value> chainTile(Value tile);
  /// The chained walk's decode of tile `tile` (its values as a grid CTA's).
  void decodeChainedTile(Value tile, Value &run);
  void writeBarrierInits();
  void writeProducer();
  void loadQ(Value tileA, Value bA, Value tileB, Value bB, Value head);
  /// TMA loads of iteration t's key block into ring position `position`.
  void loadKeyValue(Value position, Value t, Value emptyParity);
  void writeConsumer();
  void consumerTileSetup(Value ringBase);
  void writeGridConsumerBody();
  void writeChainedConsumerBody();
  /// Where ring slot `ringSlot`'s keys and values lie in shared memory.
  Value keysAt(Value ringSlot);
  Value valuesAt(Value ringSlot);
  /// Block t's ring slot once its keys landed: sets position, slot, kb,
  /// kOff.
  void keyBlockIn(Value t);
  /// Two consumers' wgmma turns (named barriers).
  void myTurnBegins();
  void handTurnOver(Value when);
  /// The pipelined consumer: block 0 (Q K^T and softmax), blocks 1 ..
  /// nkb - 1 (Q K^T (t) with P V (t - 1)), the last P V.
  RowState pipelinedPrologue();
  RowState freshRows();
  std::pair<Value, SoftmaxStep> pipelinedBlock(Value t, Value o,
                                               const RowState &rows, bool fresh);
  std::pair<Value, RowState> pipelinedLoop(const RowState &first);
  Value pipelinedLastPV(Value oL, ArrayRef<Value> pl);
  /// A chained item's first block with the item before's last P V; that
  /// item's O normalized and stored.
  RowState chainedPrologue(Value oC, Value lC0, Value lC8, ArrayRef<Value> pc,
                           Value hPrev);
  /// The chained item `item`'s O from oEnd through the O staging tile.
  void stagedFinish(Value item, Value oEnd, Value lEnd0, Value lEnd8, bool last);
  void storeO(Value at, Value head, Value row, Value batch);
  void fenceAndStore(Value at, Value head, Value row, Value batch,
                     bool waitForReads);
  /// An idle consumer waits for and frees every block of the tile.
  void drainSlots();
  /// S = Q K^T of this consumer's Q (in registers or in its tile).
  Value qk(Value kDesc) { return AttentionSteps::qk(qFragments, qDesc, kDesc); }

  std::string kernelName;
  gpu::GPUModuleOp module;
  // Types.
  Type barsType, qbarType, tmaQType, tmaKType, tmaVType, tmaOType;
  MemRefType box64, boxK, smemType;
  // Parameters.
  Value tmaQ, tmaK, tmaV, tmaO, idx, pairs, order, tables, tilesXArg;
  Value queryLen, ticks;
  // The CTA.
  Value tid, w, smem, pad;
  Value full, fullV, empty, emptyV, qbar, qfree;
  Value x, y, h, bA, bB, tileA, tileB, noB, rA, run, nkb, firstKb;
  Value maskOffsets, maskIndices;
  Value cta, ctas, cH, chainX, chainTiles, cItems, chainAny;
  // The consumer.
  Value bW, q0, elected, stageAt, oStageAt, lane, laneZero, qDesc;
  Value oZero;
  SmallVector<Value> qFragments;
  // The consumer's tile (consumerTileSetup).
  Value jBase, active, turns, myTurn, hisTurn, turnCount, isW0t, nkbLast;
  // The block being computed (keyBlockIn).
  Value position, slot, kb, kOff;
};

/// Lowers the multistage kernel-level IR of an attention
/// (sc-pipeline-multistage's, sm_80 / sm_86 / sm_89), cloned into `kernel`
/// (its memref arguments Q, K, V and O named by `sck.operand`), op by op
/// (SckAttentionToMmaSync.cpp); `keyLen` is the key length in the kernel.
/// Returns the shared memory the kernel needs.
FailureOr<int64_t> convertAttentionSckToMmaSync(gpu::GPUFuncOp kernel,
                                                const AttentionShape &shape,
                                                Value keyLen);

/// Lowers the scheduled kernel-level IR of an attention
/// (sc-schedule-attention's), cloned into `kernel` (whose parameters are
/// the writer's: the tensor maps of Q, K, V and O first), op by op
/// (SckAttentionToNVGPU.cpp); `keyLen` is the key length in the kernel.
LogicalResult convertAttentionSckToNVGPU(gpu::GPUFuncOp kernel,
                                         const AttentionShape &shape,
                                         Value keyLen);

} // namespace mlir::sc::detail

#endif // SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONKERNELWRITER_H
