//===- TestKernelPass.h - what the kernel test passes share -----*- C++ -*-===//
//
// The test passes run a kernel generator on every op of a kind and append
// the kernels to the module, one gpu.module per function, so that lit
// tests can check the generated IR.
//
//===----------------------------------------------------------------------===//
#ifndef SPARCAST_TEST_LIB_CONVERSION_TESTKERNELPASS_H
#define SPARCAST_TEST_LIB_CONVERSION_TESTKERNELPASS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/FormatVariadic.h"

#include <string>

namespace mlir::sc::detail {

/// The name a test kernel gives an operand: `arg<i>` for a function
/// argument, else "value".
inline std::string testOperandName(Value v) {
  if (auto arg = dyn_cast_if_present<BlockArgument>(v))
    return llvm::formatv("arg{0}", arg.getArgNumber()).str();
  return "value";
}

/// Calls `build(op, gpuModule, name)` for every OpT of every function of
/// `module`, the kernels going to `gpu.module @<func>_kernels` under names
/// `<func>_<what><i>`; the op gets `sc.kernel = name`.
template <typename OpT>
LogicalResult buildTestKernels(
    ModuleOp module, StringRef what,
    function_ref<LogicalResult(OpT, gpu::GPUModuleOp, StringRef)> build) {
  // Collect first: kernels are appended to the module being walked.
  SmallVector<std::pair<func::FuncOp, SmallVector<OpT>>> work;
  for (auto func : module.getOps<func::FuncOp>()) {
    SmallVector<OpT> ops;
    func.walk([&](OpT op) { ops.push_back(op); });
    if (!ops.empty())
      work.push_back({func, ops});
  }
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  for (auto &[func, ops] : work) {
    auto gpuModule = gpu::GPUModuleOp::create(
        builder, func.getLoc(), (func.getSymName() + "_kernels").str());
    for (auto [i, op] : llvm::enumerate(ops)) {
      std::string name = llvm::formatv("{0}_{1}{2}", func.getSymName(), what, i);
      if (failed(build(op, gpuModule, name)))
        return failure();
      op->setAttr("sc.kernel", builder.getStringAttr(name));
    }
  }
  return success();
}

} // namespace mlir::sc::detail

#endif // SPARCAST_TEST_LIB_CONVERSION_TESTKERNELPASS_H
