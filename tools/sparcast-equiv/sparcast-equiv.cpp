//===- sparcast-equiv.cpp - prove rewrites by running them on the CPU -----===//
//
// Runs two versions of a function on the same random inputs and compares
// the results:
//
//   sparcast-equiv FILE --ref=f --test=g         two functions of FILE
//   sparcast-equiv FILE --ref=f --pass-pipeline=P  f before and after P
//
// Inputs follow the arguments' types and `sc.lineage`: request tensors get
// --users rows, candidate and index tensors --candidates rows, the index
// maps candidates to users in uneven runs (shuffled with --shuffle-index).
// Prints one line per trial and exits non-zero when any trial differs by
// more than --rtol (relative Frobenius), produces a non-finite value, or
// when the reference result is all zeros (the comparison would be vacuous).
//
//===----------------------------------------------------------------------===//

#include "sparcast/ExecutionEngine/CpuRunner.h"
#include "sparcast/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::sc;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::Required);
static cl::opt<std::string> refName("ref", cl::desc("Reference function"),
                                    cl::Required);
static cl::opt<std::string>
    testName("test", cl::desc("Function to compare with --ref"));
static cl::opt<std::string> linkFile(
    "link", cl::desc("Another MLIR file whose functions join the input's "
                     "(e.g. an importer's output to compare with a "
                     "hand-written reference)"));
static cl::opt<std::string>
    pipeline("pass-pipeline",
             cl::desc("Compare --ref before and after this pipeline"));
static cl::opt<int64_t> users("users", cl::desc("Request rows (B_user)"),
                              cl::init(3));
static cl::opt<int64_t> candidates("candidates",
                                   cl::desc("Candidate rows (B)"), cl::init(10));
static cl::opt<int64_t>
    otherSize("dynamic-size", cl::desc("Size of other dynamic dimensions"),
              cl::init(7));
static cl::opt<bool> shuffleIndex("shuffle-index",
                                  cl::desc("Shuffle the candidate->user index"));
static cl::opt<unsigned> trials("trials", cl::desc("Random trials"),
                                cl::init(2));
static cl::opt<double> inputScale(
    "input-scale",
    cl::desc("Float inputs uniform in [-scale, scale) (default 1; smaller "
             "keeps a whole model's activations from saturating)"),
    cl::init(1.0));
static cl::opt<uint64_t> seed("seed", cl::desc("First random seed"),
                              cl::init(1));
static cl::opt<double> rtol("rtol",
                            cl::desc("Largest relative Frobenius difference"),
                            cl::init(1e-5));

namespace mlir::sc::test {
void registerTestPasses();
} // namespace mlir::sc::test

static int fail(const Twine &message) {
  llvm::errs() << "sparcast-equiv: " << message << "\n";
  return 2;
}

/// Erases the functions that `roots` do not reach through symbol uses, so
/// that a test file of many cases lowers and JIT-compiles only the one it
/// compares.
static void eraseUnreachableFunctions(ModuleOp module,
                                      ArrayRef<StringRef> roots) {
  llvm::StringSet<> reached;
  SmallVector<Operation *> work;
  for (StringRef root : roots)
    if (Operation *op = SymbolTable::lookupSymbolIn(module, root))
      if (reached.insert(root).second)
        work.push_back(op);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    auto uses = SymbolTable::getSymbolUses(op);
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses) {
      StringRef name = use.getSymbolRef().getRootReference().getValue();
      if (reached.insert(name).second)
        if (Operation *callee = SymbolTable::lookupSymbolIn(module, name))
          work.push_back(callee);
    }
  }
  for (auto func : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!reached.contains(func.getName()))
      func.erase();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAllSparcastPasses();
  test::registerTestPasses();
  cl::ParseCommandLineOptions(argc, argv, "Sparcast CPU equivalence checker\n");
  if (testName.empty() == pipeline.empty())
    return fail("give exactly one of --test and --pass-pipeline");
  if (users < 1 || candidates < 1 || otherSize < 1)
    return fail("--users, --candidates and --dynamic-size must be positive");
  constexpr int64_t kMaxCount = int64_t(1) << 30;
  if (users > kMaxCount || candidates > kMaxCount || otherSize > kMaxCount)
    return fail("--users, --candidates and --dynamic-size must be at most 2^30");
  if (trials < 1)
    return fail("--trials must be at least 1: no trial compares nothing");

  DialectRegistry registry;
  registerAllSparcastDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> reference =
      parseSourceFile<ModuleOp>(inputFile, sourceMgr, &context);
  if (!reference)
    return fail("cannot parse " + inputFile);
  if (!linkFile.empty()) {
    llvm::SourceMgr linkSourceMgr;
    OwningOpRef<ModuleOp> linked =
        parseSourceFile<ModuleOp>(linkFile, linkSourceMgr, &context);
    if (!linked)
      return fail("cannot parse " + linkFile);
    for (Operation &op : llvm::make_early_inc_range(*linked->getBody())) {
      auto symbol = dyn_cast<SymbolOpInterface>(op);
      if (symbol && reference->lookupSymbol(symbol.getName()))
        return fail("--link: @" + symbol.getName().str() +
                    " is defined in both files");
      op.moveBefore(reference->getBody(), reference->getBody()->end());
    }
  }
  auto refFunc = reference->lookupSymbol<func::FuncOp>(refName);
  if (!refFunc)
    return fail("no function @" + refName);
  eraseUnreachableFunctions(*reference, {refName, testName});

  // The version under test: another function, or a transformed copy.
  OwningOpRef<ModuleOp> tested = reference->clone();
  std::string tested_name = testName.empty() ? refName : testName;
  if (!pipeline.empty()) {
    // The passes run on the module itself: "builtin.module(p, q)" (the
    // mlir-opt spelling) is taken as "p, q". Given to the module's pass
    // manager as is, it would nest them on modules inside the module, run
    // them on nothing, and compare the function with itself.
    StringRef passes = StringRef(pipeline).trim();
    if (passes.consume_front("builtin.module(") && !passes.consume_back(")"))
      return fail("bad --pass-pipeline: unbalanced builtin.module(...)");
    PassManager pm(&context);
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    if (failed(parsePassPipeline(passes, pm, errorStream)))
      return fail("bad --pass-pipeline: " + errors);
    // The function under test as text, before and after.
    auto printed = [&]() {
      std::string text;
      llvm::raw_string_ostream os(text);
      if (auto func = tested->lookupSymbol<func::FuncOp>(tested_name))
        func.print(os);
      return text;
    };
    std::string before = printed();
    if (failed(pm.run(*tested)))
      return fail("--pass-pipeline failed");
    // A pipeline that leaves the function as it was proves nothing.
    if (printed() == before)
      return fail("--pass-pipeline changed nothing in @" + tested_name +
                  ": the comparison would be vacuous");
  }
  auto testFunc = tested->lookupSymbol<func::FuncOp>(tested_name);
  if (!testFunc)
    return fail("no function @" + tested_name);
  if (testFunc.getFunctionType() != refFunc.getFunctionType())
    return fail("@" + refName + " and @" + tested_name +
                " have different types");

  // Inputs are made from the reference signature before it is lowered.
  std::vector<std::vector<HostTensor>> inputs;
  for (unsigned t = 0; t < trials; ++t) {
    InputSpec spec;
    spec.users = users;
    spec.candidates = candidates;
    spec.otherDynamicSize = otherSize;
    spec.shuffleIndex = shuffleIndex;
    spec.seed = seed + t;
    spec.floatScale = inputScale;
    FailureOr<std::vector<HostTensor>> made = makeRandomInputs(refFunc, spec);
    if (failed(made))
      return fail("cannot make inputs");
    inputs.push_back(std::move(*made));
  }

  // Functions of the kernel-level IR (sck) describe GPU kernels; they do
  // not run on the host (sc-test-execute-kernel-ir runs them in place of
  // their GEMMs), so they are left out of what is compiled.
  for (ModuleOp module : {*reference, *tested}) {
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.getName() != refName && func.getName() != tested_name &&
          func.walk([](Operation *op) {
                return op->getDialect() &&
                               op->getDialect()->getNamespace() == "sck"
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              }).wasInterrupted())
        kernels.push_back(func);
    for (func::FuncOp kernel : kernels)
      kernel.erase();
  }
  auto refCompiled = CpuFunction::compile(*reference, refName);
  auto testCompiled = CpuFunction::compile(*tested, tested_name);
  if (failed(refCompiled) || failed(testCompiled))
    return fail("cannot compile for the CPU");

  bool allOk = true;
  for (unsigned t = 0; t < trials; ++t) {
    auto want = (*refCompiled)->call(inputs[t]);
    auto got = (*testCompiled)->call(inputs[t]);
    if (failed(want) || failed(got) || want->size() != got->size())
      return fail("call failed");
    // Each result on its own line (tagged when there are several).
    for (size_t r = 0; r < want->size(); ++r) {
      Difference diff = compareTensors((*got)[r], (*want)[r]);
      // An all-zero reference proves nothing: treat it as a failure.
      bool ok = diff.shapesMatch && diff.allFinite &&
                diff.referenceNorm > 0 && diff.relativeFrobenius <= rtol;
      allOk &= ok;
      llvm::outs() << "trial " << t << " seed " << seed + t << " users "
                   << users << " candidates " << candidates;
      if (want->size() > 1)
        llvm::outs() << " result " << r;
      llvm::outs() << ": ";
      if (!diff.shapesMatch)
        llvm::outs() << "result shapes differ";
      else
        llvm::outs() << llvm::format("ref_norm %.3e max_abs %.3e rel_fro %.3e",
                                     diff.referenceNorm, diff.maxAbs,
                                     diff.relativeFrobenius)
                     << (diff.allFinite ? "" : " non-finite");
      llvm::outs() << (ok ? " ok" : " MISMATCH") << "\n";
    }
  }
  llvm::outs() << (allOk ? "EQUIVALENT" : "NOT EQUIVALENT") << "\n";
  return allOk ? 0 : 1;
}
