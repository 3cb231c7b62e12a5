//===- TemplateUtils.cpp - textual kernel templates -----------------------===//

#include "TemplateUtils.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "llvm/Support/FormatVariadic.h"

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

LogicalResult mlir::sc::detail::installTemplate(Location loc,
                                                gpu::GPUModuleOp gpuModule,
                                                const std::string &text,
                                                StringRef kind) {
  OwningOpRef<ModuleOp> parsed = parseTemplate(gpuModule.getContext(), text);
  if (!parsed)
    return emitError(loc) << "internal error: the " << kind
                          << " kernel template does not parse";
  moveKernels(templateModule(*parsed), gpuModule);
  return success();
}

std::string mlir::sc::detail::f32StructType(int64_t n) {
  std::string s = "!llvm.struct<(";
  for (int64_t i = 0; i < n; ++i)
    s += i ? ", f32" : "f32";
  return s + ")>";
}

std::string mlir::sc::detail::wgmmaDescriptorConstantsText() {
  return llvm::formatv(R"mlir(
    %descBits = arith.constant {0} : i64
    %descAddrMask = arith.constant 262143 : i64
    %c4i64 = arith.constant 4 : i64
)mlir",
                       kWgmmaDescriptorBits)
      .str();
}

std::string mlir::sc::detail::wgmmaDescriptorText(StringRef desc,
                                                  StringRef offset) {
  return llvm::formatv(R"mlir(
          %{0}_off64 = arith.index_cast %{1} : index to i64
          %{0}_abs = arith.addi %smemBase, %{0}_off64 : i64
          %{0}_masked = arith.andi %{0}_abs, %descAddrMask : i64
          %{0}_enc = arith.shrui %{0}_masked, %c4i64 : i64
          %{0} = arith.ori %{0}_enc, %descBits : i64
)mlir",
                       desc, offset)
      .str();
}

std::string mlir::sc::detail::smemRegionText() {
  return R"mlir(
    %smemPast = arith.constant 256 : index
    %smemFrom = arith.addi %base, %smemPast : index
    %mis = arith.remui %smemFrom, %c1024 : index
    %pad0 = arith.subi %c1024, %mis : index
    %pad1 = arith.remui %pad0, %c1024 : index
    %pad = arith.addi %pad1, %smemPast : index
)mlir";
}

std::string mlir::sc::detail::ringPositionText(StringRef j, StringRef slot,
                                               StringRef parity,
                                               RingWait wait, StringRef slots) {
  bool empty = wait == RingWait::Empty;
  return llvm::formatv("        {1} = arith.remui {0}, {5} : index\n"
                       "        {2}_round = arith.divui {0}, {5} : index\n"
                       "        {2}_phase = arith.remui {2}_round, %c2 : index\n"
                       "{3}"
                       "        {2} = arith.index_cast {2}_{4} : index to i1\n",
                       j, slot, parity,
                       empty ? llvm::formatv("        {0}_free = arith.xori {0}_phase, "
                                             "%c1 : index\n",
                                             parity)
                                   .str()
                             : std::string(),
                       empty ? "free" : "phase", slots)
      .str();
}

std::string mlir::sc::detail::drainSlotsText(StringRef count, StringRef first,
                                             StringRef alsoRelease,
                                             StringRef alsoWait) {
  return replaceAll(R"mlir(
          scf.for %dk = %c0 to $COUNT step %c1 {
            %dj = arith.addi $FIRST, %dk : index
$SLOT            nvgpu.mbarrier.try_wait.parity %full[%ds], %dpar, %ticks : !bars
$WAIT            scf.if %laneZero {
              %dtok = nvgpu.mbarrier.arrive %empty[%ds] : !bars -> !nvgpu.mbarrier.token
$ALSO            }
            // The warp meets again before the next slot: lanes 1-31 must not
            // spin ahead on later slots while lane 0, which frees this one,
            // waits to be scheduled (nothing but fair scheduling of diverged
            // lanes would let it run; compute-sanitizer does not promise it).
            %dlanes = arith.constant -1 : i32
            nvvm.bar.warp.sync %dlanes : i32
          }
)mlir",
                    {{"COUNT", count.str()},
                     {"SLOT", ringPositionText("%dj", "%ds", "%dpar", RingWait::Full)},
                     {"FIRST", first.str()},
                     {"ALSO", alsoRelease.str()},
                     {"WAIT", alsoWait.str()}});
}

FailureOr<func::FuncOp> mlir::sc::detail::kernelIRFunction(Operation *op) {
  auto ref =
      op->getAttrOfType<FlatSymbolRefAttr>(BatchMatmulOp::getKernelAttrName());
  if (!ref)
    return func::FuncOp();
  auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(op, ref);
  if (!kernel)
    return op->emitError() << "no kernel-level function " << ref;
  return kernel;
}
