//===- sparcast-aot.cpp - compile a model graph into an artifact ----------===//
//
//   sparcast-aot MODEL.mlir -o DIR [--sm=sm_90a] [--report]
//
// Writes DIR/manifest.json, one .ptx (and .cubin where ptxas exists) per
// kernel module, and DIR/<model>.h with the C entry points.
//
//===----------------------------------------------------------------------===//

#include "sparcast/InitAll.h"
#include "sparcast/Target/AOT.h"
#include "sparcast/Target/ONNX.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.mlir>"),
                                      cl::Required);
static cl::opt<std::string> outDir("o", cl::desc("Artifact directory"),
                                   cl::value_desc("dir"), cl::Required);
static cl::opt<std::string> chip("sm", cl::desc("Target chip"),
                                 cl::init("sm_90a"));
static cl::opt<std::string>
    schedule("gemm-schedule",
             cl::desc("GEMM schedule: auto | cooperative | pingpong | transposed"),
             cl::init("auto"));
static cl::opt<bool> attentionF16P(
    "attention-f16-p",
    cl::desc("bf16 attention with P in f16 (V converted to f16 once per "
             "call: values beyond +-65504 overflow)"));
static cl::opt<bool> attentionChainHeads(
    "attention-chain-heads",
    cl::desc("Target attention of one consumer a candidate (at most 1024 "
             "static keys) as resident CTAs each walking its share of the "
             "candidates head by head, the software pipeline running on "
             "from head to head"),
    cl::init(true));
static cl::opt<bool> ampereAttention(
    "ampere-attention",
    cl::desc("With --sm=sm_80 / sm_86 / sm_89: attention by the mma.sync "
             "kernel lowered from its kernel-level IR (experimental: correct "
             "through PTX JIT on an H100, 0.35-0.42x the sm_90a kernel's "
             "speed there)"));
static cl::opt<int64_t> ampereAttentionStages(
    "ampere-attention-stages",
    cl::desc("With --ampere-attention: slots of the K/V ring (0: 2, two "
             "CTAs an SM on sm_80; else 2 to 8)"),
    cl::init(0));
static cl::opt<int64_t> ampereGemmTileCols(
    "ampere-gemm-tile-cols",
    cl::desc("With --sm=sm_80 / sm_86 / sm_89: the multistage GEMM's tile "
             "columns, 128 (4 warps) or 256 (8 warps); 0: 256 past 128 columns, else 128"),
    cl::init(0));
static cl::opt<bool> attentionFromKernelIR(
    "attention-from-kernel-ir",
    cl::desc("Lower the attention kernels op by op from their scheduled "
             "kernel-level IR instead of the writer (experimental: every "
             "walk correct on the H100, not yet at the writer's speed on "
             "every form: docs/decisions.md)"));
static cl::opt<bool> attentionGroupCandidates(
    "attention-group-candidates",
    cl::desc("A chained target attention walks its candidates in request "
             "order (a grouping kernel sorts them by the index first), so "
             "that the CTAs running at once share requests' keys in L2 "
             "whatever order the index lists them in (opt-in: for indices "
             "not grouped by request)"),
    cl::init(false));
static cl::opt<int64_t> dispatchMinCandidatesPerUser(
    "dispatch-min-candidates-per-user",
    cl::desc("With the default schedules: IKBO's candidate GEMM gets two "
             "kernels, the transposed one launched when B >= this x the "
             "users (and B >= --dispatch-min-batch), ping-pong's otherwise "
             "(0: ping-pong's only)"),
    cl::init(64));
static cl::opt<int64_t> dispatchMinBatch(
    "dispatch-min-batch",
    cl::desc("With the dispatch: the transposed kernel only from this many "
             "candidates (B) on (0: any B)"),
    cl::init(2048));
static cl::opt<bool> autotune(
    "autotune",
    cl::desc("Compile every Hopper GEMM for each schedule it can take; the "
             "runtime measures them on a shape bucket's first call and keeps "
             "the fastest (scSetTuning, python -m sparcast.tune)"));
static cl::opt<bool> gemmMulticast(
    "gemm-multicast",
    cl::desc("Warp-specialized GEMMs in CTA pairs sharing B by TMA multicast "
             "(experimental: correct on the H200 but slower so far)"));
static cl::opt<bool> ikboRequestInResultType(
    "ikbo-request-in-result-type",
    cl::desc("IKBO: keep the request GEMM's result in the model's result "
             "type (f16/bf16) instead of f32; the candidate GEMM then "
             "prefetches its tiles by TMA (faster; one more rounding of the "
             "request part, so not within FBGEMM's max-error rule)"));
static cl::opt<std::string> hybridWeights(
    "hybrid-weights",
    cl::desc("Pack constant f16/bf16 GEMM weights at compile time into "
             "hybrid dense / 2:4 / zero tiles of ROWSxCOLS (e.g. 128x128; "
             "docs/hybrid-tiles.md): tiles already 2:4 run on the sparse "
             "tensor cores, zero tiles are skipped"),
    cl::value_desc("ROWSxCOLS"));
static cl::opt<bool> hybridPrune(
    "hybrid-prune",
    cl::desc("With --hybrid-weights: prune dense tiles to 2:4 by magnitude "
             "(changes the model) except --hybrid-dense-budget of them"));
static cl::opt<double> hybridDenseBudget(
    "hybrid-dense-budget",
    cl::desc("With --hybrid-prune: the fraction of tiles kept dense, those "
             "pruning would change most"),
    cl::init(0.0));
static cl::opt<int64_t> hybridSplitK(
    "hybrid-split-k",
    cl::desc("Decode GEMMs over hybrid-tiled weights (one consumer, 64 "
             "weight rows a CTA) run each tile's k-tiles in this many parts, "
             "the last to finish adding the partial sums (sc-split-k): 1 "
             "off, 0 auto (where the tiles alone leave over half the SMs "
             "idle: as many as fill two CTAs an SM), else 2 to 16"),
    cl::init(0));
static cl::opt<bool> fuseRowSum(
    "fuse-row-sum",
    cl::desc("Fold sums over a GEMM's rows (a mean pooling) into the GEMM, "
             "whose result is then never stored (sc-fuse-row-sum; "
             "measured no faster overall: docs/decisions.md)"));
static cl::opt<bool> sumRowsFirst(
    "sum-rows-first",
    cl::desc("Experimental (not yet run on a GPU), implies --fuse-row-sum: "
             "a GEMM of a shared weight whose result rows are summed (a mean "
             "pooling) multiplies the weight's row sum instead, one row "
             "for M (sc-sum-rows-first; exact in real arithmetic)"));
static cl::opt<bool> rowsByThreads(
    "rows-by-threads",
    cl::desc("Experimental (not yet run on a GPU): a GEMM whose N is even "
             "but no multiple of 8 reads its rhs and stores its result in "
             "place, its rows copied and stored by the kernel's threads in "
             "4- or 8-byte pieces, instead of through zero-padded copies "
             "(sc-pad-n)"));
static cl::opt<bool> denseSplitK(
    "dense-split-k",
    cl::desc("Dense warp-specialized GEMMs run each tile's k-tiles in 2, 4 "
             "or 8 parts where their tiles leave SMs idle, the count chosen "
             "in the kernel from its tile count (sc-split-k dense)"),
    cl::init(true));
static cl::opt<int64_t> wsStages(
    "ws-stages", cl::desc("Ring stages of the warp-specialized kernels (0: as many as fit)"),
    cl::init(0));
static cl::opt<int64_t> wsProducerRegs(
    "ws-producer-regs",
    cl::desc("The producer's registers (setmaxnreg; "
             "0: 40, or 24 for one-consumer attention at two CTAs an SM)"),
    cl::init(0));
static cl::opt<int64_t> wsConsumerRegs(
    "ws-consumer-regs",
    cl::desc("Each consumer's registers (setmaxnreg)"),
    cl::init(232));
static cl::opt<int64_t> wsGroup(
    "ws-group",
    cl::desc("Persistent kernels walking M tiles in "
             "groups of this many (sc-persistent); 0: one CTA per tile"),
    cl::init(8));
static cl::opt<std::string> onnxLineage(
    "onnx-lineage",
    cl::desc("An ONNX model's input lineage: input=shared|request|"
             "candidate|index,... (the rest is inferred)"),
    cl::init(""));
static cl::opt<bool> report("report",
                            cl::desc("Print what each step decided"));

/// The model: MLIR, or an ONNX model (.onnx, or ONNX's textual syntax in
/// .onnxtxt) imported with its lineage.
static OwningOpRef<ModuleOp> loadModel(llvm::SourceMgr &sourceMgr,
                                       MLIRContext *context) {
  StringRef ext = llvm::sys::path::extension(inputFile);
  if (ext != ".onnx" && ext != ".onnxtxt")
    return parseSourceFile<ModuleOp>(inputFile, sourceMgr, context);
  auto buffer = llvm::MemoryBuffer::getFile(inputFile);
  if (!buffer) {
    llvm::errs() << "error: cannot read " << inputFile << ": "
                 << buffer.getError().message() << "\n";
    return nullptr;
  }
  sc::OnnxImportOptions options;
  std::string why = sc::parseOnnxLineage(onnxLineage, options.lineage);
  if (!why.empty()) {
    llvm::errs() << "error: --onnx-lineage: " << why << "\n";
    return nullptr;
  }
  return sc::importOnnxModel((*buffer)->getBuffer(), inputFile, context,
                             options);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "Sparcast ahead-of-time compiler\n");
  DialectRegistry registry;
  sc::registerAllSparcastDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = loadModel(sourceMgr, &context);
  if (!module)
    return 1;
  sc::AotOptions options;
  options.chip = chip;
  options.schedule = schedule;
  options.attentionF16P = attentionF16P;
  options.attentionChainHeads = attentionChainHeads;
  options.attentionGroupCandidates = attentionGroupCandidates;
  options.attentionFromKernelIR = attentionFromKernelIR;
  options.ampereAttention = ampereAttention;
  options.gemmMulticast = gemmMulticast;
  options.autotune = autotune;
  options.dispatchMinCandidatesPerUser = dispatchMinCandidatesPerUser;
  options.dispatchMinBatch = dispatchMinBatch;
  options.ikboRequestInResultType = ikboRequestInResultType;
  if (!hybridWeights.empty()) {
    StringRef rows, cols;
    std::tie(rows, cols) = StringRef(hybridWeights).split('x');
    if (rows.getAsInteger(10, options.hybridTileRows) ||
        cols.getAsInteger(10, options.hybridTileCols) ||
        options.hybridTileRows <= 0 || options.hybridTileCols <= 0) {
      llvm::errs() << "error: --hybrid-weights takes ROWSxCOLS (e.g. 128x128), "
                      "got '"
                   << hybridWeights << "'\n";
      return 1;
    }
  }
  if ((hybridPrune || hybridDenseBudget != 0.0) && hybridWeights.empty()) {
    llvm::errs() << "error: --hybrid-prune and --hybrid-dense-budget go with "
                    "--hybrid-weights\n";
    return 1;
  }
  options.hybridPrune = hybridPrune;
  options.hybridDenseBudget = hybridDenseBudget;
  options.hybridSplitK = hybridSplitK;
  options.denseSplitK = denseSplitK;
  options.fuseRowSum = fuseRowSum;
  options.sumRowsFirst = sumRowsFirst;
  options.rowsByThreads = rowsByThreads;
  options.ampereAttentionStages = ampereAttentionStages;
  options.ampereGemmTileCols = ampereGemmTileCols;
  options.wsStages = wsStages;
  options.wsProducerRegs = wsProducerRegs;
  options.wsConsumerRegs = wsConsumerRegs;
  options.wsGroup = wsGroup;
  options.modelName = llvm::sys::path::stem(inputFile).str();
  if (failed(sc::compileArtifact(*module, options, outDir,
                                 report ? &llvm::outs() : nullptr)))
    return 1;
  if (report)
    llvm::outs() << "wrote " << outDir << "/manifest.json\n";
  return 0;
}
