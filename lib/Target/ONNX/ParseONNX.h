//===- ParseONNX.h - an ONNX model from bytes -------------------*- C++ -*-===//
#ifndef SPARCAST_LIB_TARGET_ONNX_PARSEONNX_H
#define SPARCAST_LIB_TARGET_ONNX_PARSEONNX_H

#include "llvm/ADT/StringRef.h"

#include "onnx/onnx_pb.h"

#include <string>

namespace mlir::sc::detail {

/// `contents` (a serialized ModelProto, or ONNX's textual syntax) into
/// `model`; false with `error` set when it is neither.
bool parseOnnxModel(llvm::StringRef contents, onnx::ModelProto &model,
                    std::string &error);

} // namespace mlir::sc::detail

#endif // SPARCAST_LIB_TARGET_ONNX_PARSEONNX_H
