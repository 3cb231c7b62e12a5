//===- AttentionText.h - MLIR text of the attention kernel's steps -*- C++ -*-===//
//
// The pieces of MLIR text AttentionKernel.cpp assembles its kernel from
// (defined, with what each expects and defines, in AttentionText.cpp).
// Names follow the kernel template's: %sFinal (S), %o... (O), %pa / %pp
// (P's wgmma A fragments), %m / %l (running row maxima and sums) of the
// thread's rows r0 and r0 + 8.
//
//===----------------------------------------------------------------------===//

#ifndef SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONTEXT_H
#define SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONTEXT_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::sc::detail::attention {

/// The producer's TMA loads of key block `kbExpr` of K and V into the ring
/// slot of position `t` (names prefixed by `p`).
std::string loadKeyValueText(StringRef p, StringRef t, int64_t dChunks,
                             int64_t blockN, StringRef kbExpr);

/// S = Q K^T by wgmma, Q read from its shared-memory tile.
std::string qkText(int64_t dChunks, int64_t blockN, StringRef type);

/// S = Q K^T by wgmma, Q from registers (loadQRegsText's fragments).
std::string qkRegsText(int64_t dChunks, int64_t blockN, StringRef type);

/// This lane's row for ldmatrix / stmatrix .x4 in its warp's 16 rows.
extern const char *const kMatrixLanes;

/// Q's wgmma A fragments from the consumer's swizzled Q tile, by ldmatrix.
std::string loadQRegsText(int64_t headDim);

/// Keeps P's fragments (`pName`) in their registers until here.
std::string keepPText(int64_t blockN, StringRef pName);

/// O (`accIn` -> `accOut`) += P V by wgmma, P from registers (`pName`).
std::string pvText(int64_t dChunks, int64_t blockN, int64_t headDim,
                   StringRef type, StringRef pName, StringRef accIn,
                   StringRef accOut);

/// The online softmax of the block's scores: new maxima, rescale factors,
/// row sums and P.
std::string softmaxText(int64_t blockN, bool maskTail, StringRef type,
                        bool skipUnmovedMaxima);

/// softmaxText's results, guessing first that no running maximum moves.
std::string speculativeSoftmaxText(int64_t blockN, bool maskTail,
                                   StringRef type);

/// O (`oIn` -> `oOut`) scaled by the softmax's alpha when a row moved.
std::string rescaleText(int64_t headDim, StringRef oIn, StringRef oOut);

/// O / row sums into the staging tile at `stageAt`.
std::string finishText(int64_t headDim, StringRef type,
                       StringRef stageAt = "%stageAt");

} // namespace mlir::sc::detail::attention

#endif // SPARCAST_LIB_CONVERSION_SCTOGPU_ATTENTIONTEXT_H
