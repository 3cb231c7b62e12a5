//===- KernelBuilder.cpp - what the kernels built with OpBuilder share ----===//

#include "KernelBuilder.h"
#include "sparcast/Conversion/ScToGPU/HybridKernel.h"
#include "sparcast/Conversion/ScToGPU/MmaSyncKernel.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"
#include "sparcast/Dialect/SCK/IR/SckDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

std::string mlir::sc::detail::typeToString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  type.print(os);
  return s;
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

SmallVector<Value> mlir::sc::detail::loadMatrixX4(OpBuilder &b, Location loc,
                                                  Value sharedPtr,
                                                  bool transposed) {
  MLIRContext *ctx = b.getContext();
  auto x4 = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(4, b.getI32Type()));
  Value loaded = NVVM::LdMatrixOp::create(
      b, loc, x4, sharedPtr, 4u,
      transposed ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8), NVVM::LdStMatrixEltType::B16);
  SmallVector<Value> regs;
  for (int64_t r = 0; r < 4; ++r)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, loaded, r));
  return regs;
}

Value mlir::sc::detail::namedKernelArgument(gpu::GPUFuncOp kernel,
                                            StringRef name) {
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
    if (auto attr = kernel.getArgAttrOfType<StringAttr>(i, kOperandAttrName);
        attr && attr.getValue() == name)
      return kernel.getArgument(i);
  return Value();
}

Value mlir::sc::detail::kernelArgumentOf(Value tensor) {
  auto cast = tensor.getDefiningOp<UnrealizedConversionCastOp>();
  if (!cast || cast.getNumOperands() != 1)
    return Value();
  auto arg = dyn_cast<BlockArgument>(cast.getOperand(0));
  return arg && isa<gpu::GPUFuncOp>(arg.getOwner()->getParentOp()) ? arg
                                                                   : Value();
}

void mlir::sc::detail::addKernelConversionLegality(ConversionTarget &target) {
  target.addIllegalDialect<sck::SckDialect>();
  target.addDynamicallyLegalOp<sck::LoadOp>([](sck::LoadOp load) {
    return llvm::all_of(load->getUsers(), llvm::IsaPred<sck::PutOp>);
  });
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
}

void mlir::sc::detail::erasePutAndItsLoads(ConversionPatternRewriter &rewriter,
                                           sck::PutOp put) {
  rewriter.eraseOp(put);
  for (Value box : put.getBoxes())
    rewriter.eraseOp(box.getDefiningOp());
}

LogicalResult mlir::sc::detail::applyKernelConversion(
    gpu::GPUFuncOp kernel, const ConversionTarget &target,
    RewritePatternSet &&patterns, bool cse) {
  MLIRContext *ctx = kernel.getContext();
  {
    bool refused = false;
    ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (refused && StringRef(diag.str()).starts_with("failed to legalize"))
        return success();
      refused = true;
      return failure();
    });
    if (failed(applyPartialConversion(kernel, target, std::move(patterns))))
      return failure();
  }
  for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
    kernel.removeArgAttr(i, kOperandAttrName);
  kernel->removeAttr(sck::kKernelScheduleAttrName);
  kernel->removeAttr(sck::kConsumersAttrName);
  if (!cse)
    return success();
  IRRewriter rewriter(ctx);
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, kernel);
  return success();
}

LogicalResult mlir::sc::detail::MmaWaitToWgmmaWait::matchAndRewrite(
    sck::MmaWaitOp wait, OpAdaptor, ConversionPatternRewriter &rewriter) const {
  rewriter.replaceOpWithNewOp<NVVM::WgmmaWaitGroupSyncOp>(wait,
                                                          wait.getPending());
  return success();
}

void mlir::sc::detail::publishBarrierInits(OpBuilder &b, Location loc,
                                           gpu::GPUFuncOp kernel, bool pairs) {
  if (!pairs) {
    gpu::BarrierOp::create(b, loc);
    return;
  }
  NVVM::FenceMbarrierInitOp::create(b, loc);
  NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
  OpBuilder atEnd(kernel.getBody().front().getTerminator());
  NVVM::ClusterArriveOp::create(atEnd, loc, UnitAttr());
  NVVM::ClusterWaitOp::create(atEnd, loc, UnitAttr());
}

void mlir::sc::detail::KernelArith::releaseByLaneZero(Value tid, Value barriers,
                                                      Value slot, Value peer) {
  Value laneZero = cmp(arith::CmpIPredicate::eq, rem(tid, index(32)), index(0));
  auto ifLane = scf::IfOp::create(b, loc, laneZero, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifLane.getThenRegion().front());
  nvgpu::MBarrierArriveOp::create(
      b, loc, nvgpu::MBarrierTokenType::get(b.getContext()), barriers, slot);
  if (!peer)
    return;
  Value address =
      nvgpu::MBarrierGetOp::create(b, loc, b.getI32Type(), barriers, slot);
  NVVM::InlinePtxOp::create(
      b, loc, TypeRange(), ValueRange{address, peer}, ValueRange(),
      "{ .reg .b32 ra; mapa.shared::cluster.u32 ra, $0, $1; "
      "mbarrier.arrive.shared::cluster.b64 _, [ra]; }",
      Value());
}
