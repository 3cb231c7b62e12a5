//===- InitAll.h - register everything Sparcast tools need ------*- C++ -*-===//
#ifndef SPARCAST_INITALL_H
#define SPARCAST_INITALL_H

namespace mlir {
class DialectRegistry;
namespace sc {

/// Upstream dialects, extensions and LLVM/GPU translations, plus `sc`.
void registerAllSparcastDialects(DialectRegistry &registry);

/// Upstream passes, plus Sparcast passes and pipelines.
void registerAllSparcastPasses();

} // namespace sc
} // namespace mlir

#endif // SPARCAST_INITALL_H
