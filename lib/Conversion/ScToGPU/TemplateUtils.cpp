//===- TemplateUtils.cpp - textual kernel templates -----------------------===//

#include "TemplateUtils.h"

#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

using namespace mlir;

std::string
mlir::sc::detail::replaceAll(std::string text,
                             const llvm::StringMap<std::string> &values) {
  std::vector<std::pair<std::string, std::string>> ordered;
  for (const auto &kv : values)
    ordered.push_back({"$" + kv.getKey().str(), kv.getValue()});
  llvm::sort(ordered, [](const auto &a, const auto &b) {
    return a.first.size() > b.first.size();
  });
  for (const auto &[key, value] : ordered) {
    size_t pos = 0;
    while ((pos = text.find(key, pos)) != std::string::npos) {
      text.replace(pos, key.size(), value);
      pos += value.size();
    }
  }
  return text;
}

std::string mlir::sc::detail::typeToString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
}

OwningOpRef<ModuleOp>
mlir::sc::detail::parseTemplate(MLIRContext *context, const std::string &text) {
  ParserConfig config(context);
  return parseSourceString<ModuleOp>(text, config);
}

gpu::GPUModuleOp mlir::sc::detail::templateModule(ModuleOp parsed) {
  return *parsed.getOps<gpu::GPUModuleOp>().begin();
}

void mlir::sc::detail::moveKernels(gpu::GPUModuleOp from,
                                   gpu::GPUModuleOp to) {
  for (Operation &op : llvm::make_early_inc_range(*from.getBody()))
    op.moveBefore(to.getBody(), to.getBody()->end());
}
