//===- ParseONNX.cpp - an ONNX model from bytes, exceptions contained -----===//
//
// ONNX's textual parser reports some malformed numbers by throwing
// (std::stoi and friends): this file alone is compiled with exceptions and
// RTTI (lib/Target/ONNX/CMakeLists.txt) so that no exception reaches the
// importer, built like the rest of the project without them.
//
//===----------------------------------------------------------------------===//

#include "ParseONNX.h"

#include "onnx/defs/parser.h"

#include <exception>

bool mlir::sc::detail::parseOnnxModel(llvm::StringRef contents,
                                      onnx::ModelProto &model,
                                      std::string &error) {
  try {
    // A serialized model, else the textual syntax.
    if (model.ParseFromArray(contents.data(), static_cast<int>(contents.size())))
      return true;
    model.Clear();
    onnx::Common::Status status =
        onnx::OnnxParser::Parse(model, contents.str().c_str());
    if (status.IsOK())
      return true;
    error = status.ErrorMessage();
  } catch (const std::exception &e) {
    error = e.what();
  } catch (...) {
    error = "the ONNX parser failed";
  }
  return false;
}
