//===- ScAttrs.cpp - attributes of the sc dialect -------------------------===//
//
// Verifiers of the layout attributes and the block-mask interface.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Dialect/SC/IR/ScDialect.h"
#include "sparcast/Support/HybridTiles.h"
#include "sparcast/Support/LogLinearPattern.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::sc;

#include "sparcast/Dialect/SC/IR/ScEnums.cpp.inc"

#include "sparcast/Dialect/SC/IR/ScAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "sparcast/Dialect/SC/IR/ScAttrs.cpp.inc"

void ScDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "sparcast/Dialect/SC/IR/ScAttrs.cpp.inc"
      >();
}

/// Block sizes are powers of two between 16 (one MMA fragment) and 1024.
static LogicalResult verifyBlockSize(function_ref<InFlightDiagnostic()> emitError,
                                     int64_t blockSize) {
  if (blockSize < 16 || blockSize > 1024 || !llvm::isPowerOf2_64(blockSize))
    return emitError() << "block_size must be a power of two in [16, 1024], got "
                       << blockSize;
  return success();
}

//===----------------------------------------------------------------------===//
// LogLinearMaskAttr
//===----------------------------------------------------------------------===//

LogicalResult
LogLinearMaskAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          int64_t blockSize, int64_t localWidth,
                          AnchorKinds anchors, bool causal) {
  if (failed(verifyBlockSize(emitError, blockSize)))
    return failure();
  // In blocks; wider than any sequence the tables can describe means
  // nothing.
  if (localWidth < 0 || localWidth > sparcast::kMaxMaskBlocks)
    return emitError() << "local_width must lie in [0, 2^24] blocks, got "
                       << localWidth;
  return success();
}

static constexpr AnchorKinds kDefaultAnchors =
    AnchorKinds::first | AnchorKinds::middle | AnchorKinds::last;

/// `<block_size = N[, local_width = N][, anchors = [kinds]][, causal = b]>`
Attribute LogLinearMaskAttr::parse(AsmParser &parser, Type) {
  int64_t blockSize = -1, localWidth = 1;
  AnchorKinds anchors = kDefaultAnchors;
  bool causal = false;
  llvm::StringSet<> seen;
  auto parseEntry = [&]() -> ParseResult {
    StringRef key;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(loc, "log_linear parameter '")
             << key << "' given twice";
    if (key == "block_size")
      return parser.parseInteger(blockSize);
    if (key == "local_width")
      return parser.parseInteger(localWidth);
    if (key == "causal") {
      StringRef value;
      if (parser.parseKeyword(&value))
        return failure();
      if (value != "true" && value != "false")
        return parser.emitError(loc, "expected true or false");
      causal = value == "true";
      return success();
    }
    if (key == "anchors") {
      anchors = AnchorKinds::none;
      return parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square, [&]() -> ParseResult {
            StringRef name;
            SMLoc at = parser.getCurrentLocation();
            if (parser.parseKeyword(&name))
              return failure();
            std::optional<AnchorKinds> kind = symbolizeAnchorKinds(name);
            if (!kind)
              return parser.emitError(at, "unknown anchor '")
                     << name << "', expected first, middle or last";
            if (bitEnumContainsAll(anchors, *kind))
              return parser.emitError(at, "anchor '") << name << "' listed twice";
            anchors = anchors | *kind;
            return success();
          });
    }
    return parser.emitError(loc, "unknown log_linear parameter '") << key << "'";
  };
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::LessGreater,
                                     parseEntry))
    return {};
  if (blockSize < 0) {
    parser.emitError(parser.getNameLoc(), "log_linear needs a block_size");
    return {};
  }
  return getChecked([&] { return parser.emitError(parser.getNameLoc()); },
                    parser.getContext(), blockSize, localWidth, anchors,
                    causal);
}

void LogLinearMaskAttr::print(AsmPrinter &printer) const {
  printer << "<block_size = " << getBlockSize();
  if (getLocalWidth() != 1)
    printer << ", local_width = " << getLocalWidth();
  if (getAnchors() != kDefaultAnchors) {
    printer << ", anchors = [";
    SmallVector<std::string> names;
    for (AnchorKinds kind :
         {AnchorKinds::first, AnchorKinds::middle, AnchorKinds::last})
      if (bitEnumContainsAll(getAnchors(), kind))
        names.push_back(stringifyAnchorKinds(kind));
    llvm::interleaveComma(names, printer);
    printer << "]";
  }
  if (getCausal())
    printer << ", causal = true";
  printer << ">";
}

int64_t LogLinearMaskAttr::getMaskBlockSize() const { return getBlockSize(); }

SmallVector<int64_t>
LogLinearMaskAttr::getKeptKeyBlocks(int64_t queryBlock, int64_t numQueryBlocks,
                                    int64_t numKeyBlocks) const {
  sparcast::LogLinearParams params;
  params.localWidth = getLocalWidth();
  params.anchorFirst = bitEnumContainsAll(getAnchors(), AnchorKinds::first);
  params.anchorMiddle = bitEnumContainsAll(getAnchors(), AnchorKinds::middle);
  params.anchorLast = bitEnumContainsAll(getAnchors(), AnchorKinds::last);
  params.causal = getCausal();
  std::vector<int64_t> kept =
      sparcast::logLinearKeptBlocks(queryBlock, numKeyBlocks, params);
  return SmallVector<int64_t>(kept.begin(), kept.end());
}

LogicalResult LogLinearMaskAttr::verifyBlockCounts(
    function_ref<InFlightDiagnostic()> emitError, int64_t numQueryBlocks,
    int64_t numKeyBlocks) const {
  if (numKeyBlocks == 0)
    return emitError() << "log-linear mask needs at least one key block";
  // Query block i keeps key block i whenever i < numKeyBlocks; past that a
  // row may come out empty, which softmax cannot normalize. Dynamic counts
  // are checked by the runtime.
  if (ShapedType::isDynamic(numQueryBlocks) ||
      ShapedType::isDynamic(numKeyBlocks) || numQueryBlocks <= numKeyBlocks)
    return success();
  for (int64_t q = numKeyBlocks; q < numQueryBlocks; ++q)
    if (getKeptKeyBlocks(q, numQueryBlocks, numKeyBlocks).empty())
      return emitError() << "log-linear mask leaves query block " << q
                         << " with no key block";
  return success();
}

//===----------------------------------------------------------------------===//
// BlockSparseMaskAttr
//===----------------------------------------------------------------------===//

LogicalResult
BlockSparseMaskAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            int64_t blockSize, int64_t keyBlocks,
                            ArrayRef<int32_t> offsets,
                            ArrayRef<int32_t> indices) {
  if (failed(verifyBlockSize(emitError, blockSize)))
    return failure();
  // At most what the runtime's tables can describe.
  if (keyBlocks < 1 || keyBlocks > sparcast::kMaxMaskBlocks)
    return emitError() << "key_blocks must lie in [1, 2^24], got " << keyBlocks;
  if (offsets.size() < 2)
    return emitError() << "offsets must have at least 2 entries (one query "
                          "block), got "
                       << offsets.size();
  if (offsets.front() != 0)
    return emitError() << "offsets must start at 0, got " << offsets.front();
  if (offsets.back() != static_cast<int64_t>(indices.size()))
    return emitError() << "last offset must equal the number of indices ("
                       << indices.size() << "), got " << offsets.back();
  for (size_t row = 0; row + 1 < offsets.size(); ++row) {
    int32_t begin = offsets[row], end = offsets[row + 1];
    if (end < begin)
      return emitError() << "offsets must be non-decreasing, got "
                         << offsets[row] << " then " << offsets[row + 1];
    if (end == begin)
      return emitError() << "query block " << row << " keeps no key block";
    for (int32_t i = begin; i < end; ++i) {
      if (indices[i] < 0 || indices[i] >= keyBlocks)
        return emitError() << "query block " << row << " keeps key block "
                           << indices[i] << ", out of range [0, " << keyBlocks
                           << ")";
      if (i > begin && indices[i] <= indices[i - 1])
        return emitError() << "key blocks of query block " << row
                           << " must be sorted and distinct, got "
                           << indices[i - 1] << " then " << indices[i];
    }
  }
  return success();
}

int64_t BlockSparseMaskAttr::getMaskBlockSize() const { return getBlockSize(); }

SmallVector<int64_t>
BlockSparseMaskAttr::getKeptKeyBlocks(int64_t queryBlock,
                                      int64_t numQueryBlocks,
                                      int64_t numKeyBlocks) const {
  ArrayRef<int32_t> offsets = getOffsets();
  ArrayRef<int32_t> row =
      getIndices().slice(offsets[queryBlock],
                         offsets[queryBlock + 1] - offsets[queryBlock]);
  return SmallVector<int64_t>(row.begin(), row.end());
}

LogicalResult BlockSparseMaskAttr::verifyBlockCounts(
    function_ref<InFlightDiagnostic()> emitError, int64_t numQueryBlocks,
    int64_t numKeyBlocks) const {
  // The tables are explicit, so they fix both counts.
  if (ShapedType::isDynamic(numQueryBlocks) ||
      ShapedType::isDynamic(numKeyBlocks))
    return emitError() << "a block_sparse mask needs static sequence lengths";
  if (numQueryBlocks != getNumQueryBlocks())
    return emitError() << "mask has " << getNumQueryBlocks()
                       << " query blocks, the queries have " << numQueryBlocks;
  if (numKeyBlocks != getKeyBlocks())
    return emitError() << "mask has " << getKeyBlocks()
                       << " key blocks, the keys have " << numKeyBlocks;
  return success();
}

//===----------------------------------------------------------------------===//
// HybridTilesAttr
//===----------------------------------------------------------------------===//

LogicalResult HybridTilesAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                      ArrayRef<int64_t> tile,
                                      ArrayRef<int64_t> grid, StringRef kinds) {
  if (tile.size() != 2)
    return emitError() << "tile must have 2 sizes, got " << tile.size();
  if (grid.size() != 2)
    return emitError() << "grid must have 2 sizes, got " << grid.size();
  // Bounded so that the products below (a weight's rows and K, its tile
  // count) stay far inside int64.
  constexpr int64_t kMaxSize = int64_t(1) << 24;
  // The packed format's (docs/hybrid-tiles.md): rows in multiples of the
  // sparse MMA's 64, columns of a metadata word's 32.
  if (tile[0] <= 0 || tile[0] % sparcast::hybrid::kTileRowQuantum != 0 ||
      tile[0] > kMaxSize || tile[1] <= 0 ||
      tile[1] % sparcast::hybrid::kTileColQuantum != 0 || tile[1] > kMaxSize)
    return emitError() << "tiles must be positive multiples of 64 rows and 32 "
                          "columns up to 2^24, got "
                       << tile[0] << " x " << tile[1];
  for (int64_t size : grid)
    if (size <= 0 || size > kMaxSize)
      return emitError() << "grid sizes must lie in [1, 2^24], got " << size;
  int64_t numTiles = grid[0] * grid[1];
  // No kinds: the packing decides them at run time (sc.assemble_hybrid's
  // kind table).
  if (!kinds.empty() && static_cast<int64_t>(kinds.size()) != numTiles)
    return emitError() << "expected " << numTiles << " tile kinds, got "
                       << kinds.size();
  for (auto [i, c] : llvm::enumerate(kinds))
    if (c != 'd' && c != 's' && c != 'z')
      return emitError() << "tile " << i << " has kind '" << c
                         << "', expected 'd' (dense), 's' (2:4) or 'z' (zero)";
  return success();
}

HybridTilesAttr::TileKind HybridTilesAttr::getTileKind(int64_t row,
                                                       int64_t col) const {
  char c = getKinds()[row * getGrid()[1] + col];
  if (c == 's')
    return TileKind::sparse24;
  if (c == 'z')
    return TileKind::zero;
  return TileKind::dense;
}

//===----------------------------------------------------------------------===//
// BlockCsrAttr
//===----------------------------------------------------------------------===//

LogicalResult BlockCsrAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t blockSize, int64_t idBits,
                                   int64_t offsetBits) {
  if (blockSize < 1 || !llvm::isPowerOf2_64(blockSize))
    return emitError() << "block_size must be a positive power of two, got "
                       << blockSize;
  // One 32-bit word a column id: the block high, the offset low.
  if (idBits < 1 || offsetBits < 1 || idBits + offsetBits != 32)
    return emitError() << "id_bits + offset_bits must be 32 (one word a "
                          "column id), both at least 1, got "
                       << idBits << " + " << offsetBits;
  if (blockSize > (int64_t(1) << offsetBits))
    return emitError() << "offset_bits = " << offsetBits
                       << " cannot address a block of " << blockSize
                       << " columns";
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult
AttentionConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            AttentionWalk walk, int64_t consumers,
                            int64_t keyBlock, bool groupCandidates,
                            bool pInF16) {
  if (consumers != 1 && consumers != 2)
    return emitError() << "consumers must be 1 or 2, got " << consumers;
  if (walk == AttentionWalk::chained && consumers != 1)
    return emitError() << "a chained walk runs one consumer a CTA";
  if (walk == AttentionWalk::pairs && consumers != 2)
    return emitError() << "a pairs walk runs two consumers a CTA (one a "
                          "candidate)";
  if (keyBlock < 16 || keyBlock > 1024 || !llvm::isPowerOf2_64(keyBlock))
    return emitError() << "key_block must be a power of two in [16, 1024], got "
                       << keyBlock;
  if (groupCandidates && walk == AttentionWalk::grid)
    return emitError() << "group_candidates needs a chained or pairs walk";
  return success();
}
