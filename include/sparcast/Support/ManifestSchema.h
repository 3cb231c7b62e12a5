//===- ManifestSchema.h - the names manifest.json is written with -*- C++ -*-===//
//
// One list of the manifest's format tag, keys and parameter kinds, shared
// by the writer (sparcast-aot, lib/Target/AOT) and the reader (the runtime,
// runtime/lib/Manifest.cpp): header-only, no LLVM, so that the runtime
// builds on machines without it. docs/architecture.md describes the format.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_SUPPORT_MANIFESTSCHEMA_H
#define SPARCAST_SUPPORT_MANIFESTSCHEMA_H

namespace sparcast::manifest {

/// The format this compiler writes and this runtime reads (2: tensor maps
/// passed by value).
inline constexpr const char *kFormatVersion = "sparcast-artifact-2";

namespace key {
// The manifest.
inline constexpr const char *kFormat = "format", *kChip = "chip",
                            *kModules = "modules", *kEntries = "entries";
// A kernel module.
inline constexpr const char *kName = "name", *kPtx = "ptx", *kCubin = "cubin";
// An entry and its tensors.
inline constexpr const char *kArgs = "args", *kResults = "results",
                            *kWorkspace = "workspace", *kLaunches = "launches",
                            *kDtype = "dtype", *kShape = "shape",
                            *kIndexInto = "index_into", *kZeroInit = "zero_init",
                            *kMayBeEmpty = "may_be_empty", *kViews = "views",
                            *kOf = "of";
// A launch.
inline constexpr const char *kModule = "module", *kKernel = "kernel",
                            *kGrid = "grid", *kBlock = "block", *kSmem = "smem",
                            *kParams = "params", *kAtMost = "at_most",
                            *kWhen = "when", *kUnless = "unless", *kLhs = "lhs",
                            *kCmp = "cmp", *kRhs = "rhs", *kTune = "tune",
                            *kGroup = "group", *kChoice = "choice",
                            *kFallback = "fallback";
// A kernel parameter.
inline constexpr const char *kKind = "kind", *kTensor = "tensor", *kDim = "dim",
                            *kDims = "dims", *kStrides = "strides",
                            *kOffset = "offset",
                            *kBox = "box", *kSwizzle = "swizzle",
                            *kQueryLen = "query_len", *kKeyLen = "key_len",
                            *kLocalWidth = "local_width", *kAnchors = "anchors",
                            *kCausal = "causal";
} // namespace key

namespace param {
inline constexpr const char *kMemref = "memref", *kDim = "dim", *kTma = "tma",
                            *kLogLinearTables = "log_linear_tables";
} // namespace param

} // namespace sparcast::manifest

#endif // SPARCAST_SUPPORT_MANIFESTSCHEMA_H
