//===- SckDialect.cpp - the Sparcast kernel-level `sck` dialect -----------===//
//
// Types, ops and their verifiers.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sck;

/// `64x64xf16`: a static shape and an element type.
static ParseResult parseShapeAndType(AsmParser &parser,
                                     SmallVector<int64_t> &shape,
                                     Type &elementType) {
  if (parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return failure();
  return success();
}

static void printShapeAndType(AsmPrinter &printer, ArrayRef<int64_t> shape,
                              Type elementType) {
  for (int64_t d : shape)
    printer << d << "x";
  printer << elementType;
}

#include "sparcast/Dialect/SCK/IR/SckOpsDialect.cpp.inc"

#include "sparcast/Dialect/SCK/IR/SckEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "sparcast/Dialect/SCK/IR/SckAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "sparcast/Dialect/SCK/IR/SckOpsTypes.cpp.inc"

#define GET_OP_CLASSES
#include "sparcast/Dialect/SCK/IR/SckOps.cpp.inc"

void SckDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "sparcast/Dialect/SCK/IR/SckAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "sparcast/Dialect/SCK/IR/SckOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "sparcast/Dialect/SCK/IR/SckOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

/// Boxes and accumulators are 2-D tiles of positive extent.
static LogicalResult verifyTile(function_ref<InFlightDiagnostic()> emitError,
                                StringRef what, ArrayRef<int64_t> shape,
                                Type elementType) {
  if (shape.size() != 2 || shape[0] <= 0 || shape[1] <= 0)
    return emitError() << what << " must be a 2-D tile of positive extent";
  if (!elementType.isIntOrFloat())
    return emitError() << what << " elements must be integers or floats";
  return success();
}

LogicalResult BoxType::verify(function_ref<InFlightDiagnostic()> emitError,
                              ArrayRef<int64_t> shape, Type elementType) {
  return verifyTile(emitError, "a box", shape, elementType);
}

LogicalResult FragType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType) {
  return verifyTile(emitError, "a register tile", shape, elementType);
}

LogicalResult AccType::verify(function_ref<InFlightDiagnostic()> emitError,
                              ArrayRef<int64_t> shape, Type elementType) {
  if (failed(verifyTile(emitError, "an accumulator", shape, elementType)))
    return failure();
  if (!elementType.isF32())
    return emitError() << "accumulators are f32";
  return success();
}

LogicalResult RingType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<Type> boxes) {
  if (boxes.empty())
    return emitError() << "a ring slot holds at least one box";
  if (!llvm::all_of(boxes, llvm::IsaPred<BoxType>))
    return emitError() << "a ring slot holds boxes (!sck.box)";
  return success();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult TileLoopOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 3 ||
      !llvm::all_of(body.getArgumentTypes(),
                    [](Type t) { return t.isIndex(); }))
    return emitOpError(
        "expects three index block arguments (batch, M tile, N tile)");
  if (getGroup() < 1)
    return emitOpError("group must be at least 1");
  if (getCluster() != 1 && getCluster() != 2)
    return emitOpError("cluster must be 1 or 2, got ") << getCluster();
  // A pair's CTAs wait on each other: both must be resident. A persistent
  // walk's are; a grid's are when the pair is a cluster the launch
  // co-schedules (the hybrid-tiled GEMM: a CTA a tile, pairs of N tiles).
  if (getCluster() == 2 && getSchedule() != TileSchedule::persistent &&
      kernelSchedule(*this) != KernelSchedule::hybrid)
    return emitOpError("a cluster of 2 (multicast) needs the persistent "
                       "schedule: CTAs of a pair wait on each other");
  return success();
}

bool TileLoopOp::isAttention() {
  return getBody()
      .walk([](SoftmaxOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

LogicalResult EpilogueOp::verify() {
  if (getSumRows() && (getBody().empty() || *getSumRows() < 1))
    return emitOpError("sum_rows needs the region and a row count of at "
                       "least 1");
  if (getBody().empty()) {
    if (!getIns().empty())
      return emitOpError("has operands but no region to read them");
    return success();
  }
  Block &body = getBody().front();
  // (acc element, b, m, n, ins...), as the op's epilogue region.
  SmallVector<Type> expected = {getAcc().getType().getElementType()};
  Type index = IndexType::get(getContext());
  expected.append({index, index, index});
  // A box operand (sck.prefetch) is the tile in the result's orientation;
  // the region sees its elements.
  SmallVector<int64_t> tileShape = getTileShape();
  for (Type in : getIns().getTypes()) {
    auto box = dyn_cast<BoxType>(in);
    if (!box) {
      expected.push_back(in);
      continue;
    }
    if (box.getShape() != ArrayRef<int64_t>(tileShape))
      return emitOpError("a box operand must have the tile's shape ")
             << tileShape[0] << "x" << tileShape[1] << ", got " << box;
    expected.push_back(box.getElementType());
  }
  if (body.getArgumentTypes() != ArrayRef<Type>(expected))
    return emitOpError("region arguments must be (accumulator element, b, m, "
                       "n, ins...): ")
           << expected.size() << " of them, the first of type "
           << expected.front();
  if (!isa_and_nonnull<YieldOp>(body.getTerminator()))
    return emitOpError("region must end with sck.yield");
  return success();
}

SmallVector<int64_t> EpilogueOp::getTileShape() {
  SmallVector<int64_t> shape(getAcc().getType().getShape());
  if (getTransposed())
    std::swap(shape[0], shape[1]);
  return shape;
}

Type EpilogueOp::getYieldedType() {
  if (getBody().empty())
    return Type();
  return getBody().front().getTerminator()->getOperand(0).getType();
}

LogicalResult PrefetchOp::verify() {
  auto source = cast<RankedTensorType>(getSource().getType());
  if (static_cast<int64_t>(getCoords().size()) != source.getRank())
    return emitOpError("expects ")
           << source.getRank() << " coordinates (the source's rank), got "
           << getCoords().size();
  if (source.getRank() < 2)
    return emitOpError("the source must have at least two dims");
  if (getBox().getType().getElementType() != source.getElementType())
    return emitOpError("box element type ")
           << getBox().getType().getElementType()
           << " differs from the source's " << source.getElementType();
  return success();
}

ArrayRef<int64_t> MmaOp::getAShape() {
  if (auto box = dyn_cast<BoxType>(getA().getType()))
    return box.getShape();
  return cast<FragType>(getA().getType()).getShape();
}

Type MmaOp::getAElementType() {
  if (auto box = dyn_cast<BoxType>(getA().getType()))
    return box.getElementType();
  return cast<FragType>(getA().getType()).getElementType();
}

TypedValue<BoxType> MmaOp::getABox() {
  return isa<BoxType>(getA().getType()) ? cast<TypedValue<BoxType>>(getA())
                                        : TypedValue<BoxType>();
}

LogicalResult MmaOp::verify() {
  auto b = getB().getType();
  auto acc = getAcc().getType();
  ArrayRef<int64_t> a = getAShape();
  if (getAElementType() != b.getElementType())
    return emitOpError("operands of different element types: ")
           << getAElementType() << " and " << b.getElementType();
  // A is [M, K], B is [K, N], the accumulator [M, N].
  if (a[1] != b.getShape()[0] || acc.getShape()[0] != a[0] ||
      acc.getShape()[1] != b.getShape()[1])
    return emitOpError("shapes do not compose: ")
           << getA().getType() << " times " << b << " into " << acc;
  return success();
}

LogicalResult LoadFragOp::verify() {
  BoxType box = getBox().getType();
  FragType frag = getFrag().getType();
  if (box.getShape() != frag.getShape() ||
      box.getElementType() != frag.getElementType())
    return emitOpError("reads a box into a register tile of its shape and "
                       "type, got ")
           << box << " into " << frag;
  return success();
}

LogicalResult MmaSparseOp::verify() {
  auto a = getA().getType(), meta = getMeta().getType(), b = getB().getType();
  auto acc = getAcc().getType();
  if (a.getElementType() != b.getElementType())
    return emitOpError("operands of different element types: ")
           << a.getElementType() << " and " << b.getElementType();
  if (!meta.getElementType().isSignlessInteger(32))
    return emitOpError("metadata words are i32, got ") << meta.getElementType();
  // A is [M, K/2] (two of every four), its metadata [M, K/32], B [K, N].
  int64_t k = b.getShape()[0];
  if (k % 32 != 0 || a.getShape()[1] * 2 != k || meta.getShape()[1] * 32 != k ||
      meta.getShape()[0] != a.getShape()[0] ||
      acc.getShape()[0] != a.getShape()[0] || acc.getShape()[1] != b.getShape()[1])
    return emitOpError("shapes do not compose: ")
           << a << " (two of four) with " << meta << " times " << b << " into "
           << acc;
  return success();
}

/// An online softmax's statistics: an M x 2 accumulator.
static LogicalResult verifyState(Operation *op, AccType state, int64_t rows) {
  if (state.getShape()[1] != 2)
    return op->emitOpError("statistics are M x 2 (running maximum, sum), got ")
           << state;
  if (rows >= 0 && state.getShape()[0] != rows)
    return op->emitOpError("statistics of ")
           << state.getShape()[0] << " rows for a tile of " << rows;
  return success();
}

LogicalResult SoftmaxInitOp::verify() {
  return verifyState(*this, getState().getType(), -1);
}

LogicalResult SoftmaxOp::verify() {
  ArrayRef<int64_t> s = getS().getType().getShape();
  ArrayRef<int64_t> p = getP().getType().getShape();
  if (p != s)
    return emitOpError("P must have the scores' shape, got ")
           << getP().getType() << " for " << getS().getType();
  Type element = getP().getType().getElementType();
  if (!element.isF16() && !element.isBF16())
    return emitOpError("P is f16 or bf16 (an MMA operand), got ") << element;
  if (std::optional<int64_t> keys = getConstantIntValue(getKeys());
      keys && *keys < 1)
    return emitOpError("needs at least one key, got ") << *keys;
  return verifyState(*this, getState().getType(), s[0]);
}

LogicalResult RescaleOp::verify() {
  return verifyState(*this, getFrom().getType(), getO().getType().getShape()[0]);
}

LogicalResult ConsumerIndexOp::verify() {
  auto role = (*this)->getParentOfType<RoleOp>();
  if (!role || role.getKind() != RoleKind::consumer)
    return emitOpError("is the index of a consumer: inside a consumer role");
  return success();
}

LogicalResult NormalizeOp::verify() {
  return verifyState(*this, getState().getType(), getO().getType().getShape()[0]);
}

LogicalResult RingOp::verify() {
  // 0: as many as fit next to the rest of the kernel's shared memory,
  // decided when the kernel is generated.
  // (Read signed: the attribute's accessor is unsigned, -5 would pass.)
  int64_t stages = getStagesAttr().getInt();
  if (stages != 0 && (stages < 2 || stages > 64))
    return emitOpError("needs 2 to 64 stages (one loading while one is "
                       "read), or 0 for as many as fit, got ")
           << stages;
  return success();
}

/// A put or get moves one box of each of the slot's types, in a role of
/// the given kind (at the next slot, or at a position it names), or
/// outside roles at a position it names (a ring whose threads both put and
/// get: the slots are not taken in turn).
static LogicalResult verifySlotAccess(Operation *op, RingType ring,
                                      TypeRange boxes, Value position,
                                      RoleKind role, StringRef what,
                                      StringRef preposition) {
  if (boxes != TypeRange(ring.getBoxes()))
    return op->emitOpError() << what
                             << " boxes of types that differ from the ring's slot";
  auto parent = op->getParentOfType<RoleOp>();
  if (!parent) {
    if (!position)
      return op->emitOpError()
             << "outside roles " << what << " " << preposition
             << " the ring position it names";
    return success();
  }
  if (parent.getKind() != role)
    return op->emitOpError() << "only a " << stringifyRoleKind(role) << " role "
                             << what << " "
                             << preposition << " a ring";
  return success();
}

LogicalResult PutOp::verify() {
  return verifySlotAccess(*this, getRing().getType(), getBoxes().getTypes(),
                          getPosition(), RoleKind::producer, "puts", "into");
}

LogicalResult GetOp::verify() {
  return verifySlotAccess(*this, getRing().getType(), getBoxes().getTypes(),
                          getPosition(), RoleKind::consumer, "gets", "from");
}

/// `op` runs in a consumer role (of ping-pong order with `pingpong`).
static LogicalResult verifyInConsumer(Operation *op, bool turns = false) {
  auto role = op->getParentOfType<RoleOp>();
  if (!role || role.getKind() != RoleKind::consumer)
    return op->emitOpError("only in a consumer role");
  if (turns && role.getOrder() != ConsumerOrder::pingpong &&
      role.getOrder() != ConsumerOrder::turns)
    return op->emitOpError(
        "only in a consumer role whose consumers take turns (ping-pong or "
        "turns order)");
  return success();
}

std::optional<int64_t> ReduceSplitsOp::getStaticSplits() {
  return getConstantIntValue(getSplits());
}

LogicalResult ReduceSplitsOp::verify() {
  std::optional<int64_t> splits = getStaticSplits();
  if (splits && (*splits < 1 || *splits > kMaxSplits))
    return emitOpError("splits must be 1 to ") << kMaxSplits << ", got "
                                               << *splits;
  if (!splits && !getMaxPartsAttr())
    return emitOpError("a part count computed at run time needs max_parts "
                       "(the partial-sum buffer's parts)");
  // (Read signed: the attribute's accessor is unsigned.)
  if (getMaxPartsAttr() && getMaxPartsAttr().getInt() < 1)
    return emitOpError("max_parts must be positive, got ")
           << getMaxPartsAttr().getInt();
  // Before warp specialization in the tile loop; after, in the consumer.
  auto role = (*this)->getParentOfType<RoleOp>();
  if (role && role.getKind() != RoleKind::consumer)
    return emitOpError("only in a consumer role");
  if (!(*this)->getParentOfType<TileLoopOp>())
    return emitOpError("only in a kernel's tile loop");
  return success();
}

LogicalResult ReleaseOp::verify() { return verifyInConsumer(*this); }

LogicalResult DiscardOp::verify() { return verifyInConsumer(*this); }

LogicalResult MmaWaitOp::verify() {
  // (Read signed: the attribute's accessor is unsigned.)
  if (getPendingAttr().getInt() < 0)
    return emitOpError("pending must be at least 0, got ")
           << getPendingAttr().getInt();
  return verifyInConsumer(*this);
}

LogicalResult AwaitTurnOp::verify() {
  return verifyInConsumer(*this, /*turns=*/true);
}

LogicalResult PassTurnOp::verify() {
  return verifyInConsumer(*this, /*turns=*/true);
}

LogicalResult RoleOp::verify() {
  // setmaxnreg: a multiple of 8 in [24, 256].
  if (getRegs() < 24 || getRegs() > 256 || getRegs() % 8 != 0)
    return emitOpError("regs must be a multiple of 8 in [24, 256] "
                       "(setmaxnreg), got ")
           << getRegs();
  if (getKind() == RoleKind::producer) {
    if (getCount() != 1)
      return emitOpError("a producer role is one warpgroup");
    if (getOrder())
      return emitOpError("only consumer roles have an order");
    return success();
  }
  if (getCount() < 1 || getCount() > 2)
    return emitOpError("1 or 2 consumer warpgroups, got ") << getCount();
  return success();
}

std::optional<KernelSchedule> mlir::sck::kernelSchedule(Operation *op) {
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (auto schedule =
            parent->getAttrOfType<KernelScheduleAttr>(kKernelScheduleAttrName))
      return schedule.getValue();
  return std::nullopt;
}

int64_t mlir::sck::launchRegisters(int64_t warpgroups, int64_t ctasPerSM) {
  return 65536 / (128 * warpgroups * ctasPerSM) / 8 * 8;
}

sck::RoleRegisters mlir::sck::defaultRoleRegisters(int64_t consumers,
                                                   int64_t ctasPerSM) {
  // 232-register consumers, the producer keeping what is left of the
  // launch budget: 40 with two consumers (3 x 168), 24 with one at two
  // CTAs an SM (2 x 128).
  return {consumers == 1 && ctasPerSM == 2 ? 24 : 40, 232};
}

bool mlir::sck::ctaPairsByDefault(llvm::StringRef schedule, bool aBatched,
                                  bool bBatched, bool nTilesEven) {
  // Where pairs are faster on the H200 (docs/decisions.md: a shared rhs
  // under cooperative or ping-pong, and the transposed tile's W).
  if (schedule == "transposed")
    return nTilesEven;
  return (schedule == "cooperative" || schedule == "pingpong") && aBatched &&
         !bBatched;
}

//===----------------------------------------------------------------------===//
// The CUDA-core ops
//===----------------------------------------------------------------------===//

/// A #sc.block_csr word's decoding: a power-of-two block of at most
/// 2^offset_bits columns.
static LogicalResult verifyWordLayout(Operation *op, int64_t block,
                                      int64_t bits) {
  if (bits < 1 || bits > 31 || block < 1 || !llvm::isPowerOf2_64(block) ||
      block > (int64_t(1) << bits))
    return op->emitOpError() << "expected a power-of-two block size of at "
                                "most 2^offset_bits (offset_bits in [1, 31]), "
                                "got "
                             << block << " and " << bits;
  return success();
}

LogicalResult CsrEntryOp::verify() {
  return verifyWordLayout(*this, getBlockSize(), getOffsetBits());
}

LogicalResult CsrLowerBoundOp::verify() {
  return verifyWordLayout(*this, getBlockSize(), getOffsetBits());
}

/// A hash table's buffer: a contiguous static power-of-two length in
/// workgroup memory.
static LogicalResult verifyTableBuffer(Operation *op, MemRefType buffer) {
  auto space =
      dyn_cast_or_null<gpu::AddressSpaceAttr>(buffer.getMemorySpace());
  if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
    return op->emitOpError() << "expected a table in workgroup memory, got "
                             << buffer;
  if (!buffer.hasStaticShape() || !buffer.getLayout().isIdentity() ||
      !llvm::isPowerOf2_64(buffer.getDimSize(0)) ||
      buffer.getDimSize(0) > (int64_t(1) << 30))
    return op->emitOpError()
           << "expected a contiguous table of a static power-of-two length, "
              "got "
           << buffer;
  return success();
}

LogicalResult TableAddOp::verify() {
  MemRefType keys = getKeys().getType(), sums = getSums().getType();
  if (failed(verifyTableBuffer(*this, keys)) ||
      failed(verifyTableBuffer(*this, sums)))
    return failure();
  if (keys.getDimSize(0) != sums.getDimSize(0))
    return emitOpError() << "expected keys and sums of one length, got "
                         << keys.getDimSize(0) << " and " << sums.getDimSize(0);
  return success();
}

LogicalResult TableFindOp::verify() {
  return verifyTableBuffer(*this, getKeys().getType());
}

/// The stages sck.fma_tile reads: K x P with P >= 128, in shared memory.
static LogicalResult verifyStage(Operation *op, MemRefType stage,
                                 int64_t rows) {
  auto space =
      dyn_cast_or_null<gpu::AddressSpaceAttr>(stage.getMemorySpace());
  if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
    return op->emitOpError() << "expected a stage in workgroup memory, got "
                             << stage;
  if (!stage.hasStaticShape() || stage.getDimSize(1) < rows)
    return op->emitOpError() << "expected a static K x P stage with P >= "
                             << rows << ", got " << stage;
  return success();
}

LogicalResult ScatterAddOp::verify() {
  if (!getScale() && !getIns().empty())
    return emitOpError() << "has ins but no scaled_by function";
  return success();
}

LogicalResult StageRowsOp::verify() {
  if (getRows() < 1)
    return emitOpError() << "expected rows >= 1, got " << getRows();
  return verifyStage(*this, getStage().getType(), getRows());
}

LogicalResult FmaTileOp::verify() {
  MemRefType a = getA().getType(), b = getB().getType();
  if (failed(verifyStage(*this, a, 128)) || failed(verifyStage(*this, b, 128)))
    return failure();
  if (a.getDimSize(0) != b.getDimSize(0))
    return emitOpError() << "expected stages of one depth K, got "
                         << a.getDimSize(0) << " and " << b.getDimSize(0);
  if (a.getDimSize(1) % 4 != 0 || b.getDimSize(1) % 4 != 0)
    return emitOpError() << "expected stage rows of a multiple of 4 floats "
                            "(16-byte vector reads)";
  return success();
}
