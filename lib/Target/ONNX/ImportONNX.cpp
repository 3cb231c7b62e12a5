//===- ImportONNX.cpp - ONNX models into MLIR -----------------------------===//
//
// One importer a node kind (importMatMul, importGather, ...), each building
// the ops of the node's ONNX meaning at the node's location (its name, in
// the model file). Element-wise ops broadcast as numpy does, as
// linalg.generic; products with a batched operand are sc.batch_matmul, the
// others linalg.matmul; Gather along axis 0 of 1-D indices is
// sc.gather_rows. What is not imported is refused with the node's name.
//
//===----------------------------------------------------------------------===//

#include "sparcast/Target/ONNX.h"
#include "sparcast/Dialect/SC/IR/ScOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <cmath>

#include "ParseONNX.h"

#include "onnx/onnx_pb.h"

using namespace mlir;
using namespace mlir::sc;

std::string mlir::sc::parseOnnxLineage(StringRef spec,
                                       llvm::StringMap<LineageKind> &out) {
  SmallVector<StringRef> items;
  spec.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    auto [name, kind] = item.split('=');
    std::optional<LineageKind> lineage = symbolizeLineageKind(kind.trim());
    if (name.trim().empty() || !lineage || *lineage == LineageKind::gathered)
      return ("'" + item + "': expected input=shared|request|candidate|index")
          .str();
    out[name.trim()] = *lineage;
  }
  return "";
}

namespace {

/// The largest dim and initializer element count imported.
constexpr int64_t kMaxDim = int64_t(1) << 40;

/// a x b for static sizes (dynamic if either is, or past kMaxDim).
int64_t mulSizes(int64_t a, int64_t b) {
  if (ShapedType::isDynamic(a) || ShapedType::isDynamic(b))
    return ShapedType::kDynamic;
  std::optional<int64_t> product = llvm::checkedMul(a, b);
  return product && *product <= kMaxDim ? *product : ShapedType::kDynamic;
}

using ImportResults = FailureOr<SmallVector<Value>>;

/// The one result of a node.
ImportResults single(FailureOr<Value> v) {
  if (failed(v))
    return failure();
  return SmallVector<Value>{*v};
}

class OnnxImporter {
public:
  OnnxImporter(MLIRContext *ctx, StringRef fileName,
               const OnnxImportOptions &options)
      : ctx(ctx), b(ctx), fileName(fileName.str()), options(options) {}

  OwningOpRef<ModuleOp> importModel(const onnx::ModelProto &model);

private:
  Location fileLoc() { return FileLineColLoc::get(ctx, fileName, 0, 0); }
  /// Node `index`'s location: its name (or "OpType#index") in the file.
  Location nodeLoc(const onnx::NodeProto &node, int index) {
    std::string name = node.name().empty()
                           ? node.op_type() + "#" + std::to_string(index)
                           : node.name();
    return NameLoc::get(StringAttr::get(ctx, name), fileLoc());
  }
  /// An error at `loc` that names the node being imported, if any.
  InFlightDiagnostic error(Location loc) {
    InFlightDiagnostic diag = mlir::emitError(loc);
    if (!currentNode.empty())
      diag << "node '" << currentNode << "': ";
    return diag;
  }
  FailureOr<Type> elementType(int32_t onnxType, Location loc);
  FailureOr<RankedTensorType> tensorType(const onnx::TypeProto &type,
                                         Location loc);
  FailureOr<Value> constant(const onnx::TensorProto &tensor, Location loc);
  LogicalResult importNode(const onnx::NodeProto &node, Location loc);

  // One importer a node kind: its results' values, or failure (reported).
  using Results = ImportResults;
  Results importMatMul(const onnx::NodeProto &node, Location loc);
  Results importGemm(const onnx::NodeProto &node, Location loc);
  Results importBinary(const onnx::NodeProto &node, Location loc);
  Results importUnary(const onnx::NodeProto &node, Location loc);
  Results importGather(const onnx::NodeProto &node, Location loc);
  Results importConcat(const onnx::NodeProto &node, Location loc);
  Results importTranspose(const onnx::NodeProto &node, Location loc);
  Results importCast(const onnx::NodeProto &node, Location loc);
  Results importSoftmax(const onnx::NodeProto &node, Location loc);
  Results importGelu(const onnx::NodeProto &node, Location loc);
  Results importConstant(const onnx::NodeProto &node, Location loc);
  Results importShape(const onnx::NodeProto &node, Location loc);
  Results importSlice(const onnx::NodeProto &node, Location loc);

  /// An element of a shape computed in the graph (torch exports dynamic
  /// reshapes as Shape / Slice / Gather / Concat of int64 tensors): a
  /// constant, or dim `dim` of the graph value `of`.
  struct ShapeElem {
    int64_t constant = 0;
    std::string of;
    int64_t dim = 0;
  };
  /// The shapes computed so far, by graph value.
  llvm::StringMap<SmallVector<ShapeElem>> shapes;
  /// Whether input `i` of `node` exists and is a computed shape.
  bool isShape(const onnx::NodeProto &node, int i) const {
    return i < node.input_size() && shapes.count(node.input(i));
  }
  /// Input `i` of `node` as shape elements: a computed shape, or a
  /// constant int tensor; failure (not reported) otherwise.
  FailureOr<SmallVector<ShapeElem>> shapeElems(const onnx::NodeProto &node,
                                               int i);
  /// `elems` recorded as `name`'s shape, and as its value: an int64 tensor.
  Results recordShape(StringRef name, ArrayRef<ShapeElem> elems, Location loc);
  Results importReshape(const onnx::NodeProto &node, Location loc);
  Results importFlatten(const onnx::NodeProto &node, Location loc);
  Results importSqueeze(const onnx::NodeProto &node, Location loc);
  Results importUnsqueeze(const onnx::NodeProto &node, Location loc);
  Results importLayerNorm(const onnx::NodeProto &node, Location loc);
  Results importReduce(const onnx::NodeProto &node, Location loc);
  Results importAttention(const onnx::NodeProto &node, Location loc);
  /// `q`, `k`, `v` ([batch, heads, rows, dim]) as sc.attention.
  Results attention(Value q, Value k, Value v, std::optional<float> scale,
                    Location loc);
  /// The attention pattern ending at MatMul node `last`: MatMul(Q,
  /// Transpose(K)) (times or over a constant scale) -> Softmax(axis -1) ->
  /// MatMul(., V), the intermediate values used by nothing else. Returns
  /// the names of (Q, K, V), the scale (1 unless given) and the nodes it
  /// covers, or nothing.
  struct AttentionMatch {
    std::string q, k, v;
    std::optional<float> scale;
    SmallVector<const onnx::NodeProto *> covered;
  };
  std::optional<AttentionMatch> matchAttention(const onnx::NodeProto &last);
  /// The graph's nodes by output name, and how many nodes or graph outputs
  /// read each value.
  llvm::StringMap<const onnx::NodeProto *> producer;
  llvm::StringMap<int> readers;
  /// Nodes an attention match covers (imported as part of its last node).
  llvm::DenseSet<const onnx::NodeProto *> covered;

  /// The integer values of a constant input (an initializer), or failure.
  FailureOr<SmallVector<int64_t>> constantInts(const onnx::NodeProto &node,
                                               int i, Location loc);
  /// `x`'s dims as index values.
  SmallVector<Value> dimValues(Value x, Location loc);
  /// `x` reshaped to `shape` (sizes as values; the type's static sizes
  /// where known).
  Value reshape(Value x, ArrayRef<Value> sizes, ArrayRef<int64_t> shape,
                Location loc);

  /// The value of input `i` of `node`, or failure (reported).
  FailureOr<Value> input(const onnx::NodeProto &node, int i, Location loc);
  /// Integer attribute `name` of `node`, or `otherwise`.
  int64_t intAttr(const onnx::NodeProto &node, StringRef name,
                  int64_t otherwise);
  /// `op(operands)` element by element, broadcasting as numpy does, into
  /// a tensor of `resultElement`.
  FailureOr<Value>
  elementwise(ValueRange operands, Type resultElement, Location loc,
              function_ref<Value(OpBuilder &, Location, ValueRange)> op);
  /// `x @ y` for rank-2 operands (linalg.matmul into a zero tensor).
  Value matmul2d(Value x, Value y, Location loc);
  /// A zero-filled tensor of `type`, dynamic sizes from `like` dims.
  Value zeros(RankedTensorType type, ArrayRef<Value> dynamicSizes,
              Location loc);

  MLIRContext *ctx;
  OpBuilder b;
  std::string fileName;
  const OnnxImportOptions &options;
  /// The graph's values by name.
  llvm::StringMap<Value> values;
  /// The node being imported ("name (OpType)"), for the errors.
  std::string currentNode;
};

} // namespace

FailureOr<Type> OnnxImporter::elementType(int32_t onnxType, Location loc) {
  switch (onnxType) {
  case onnx::TensorProto::FLOAT: return Type(b.getF32Type());
  case onnx::TensorProto::FLOAT16: return Type(b.getF16Type());
  case onnx::TensorProto::BFLOAT16: return Type(b.getBF16Type());
  case onnx::TensorProto::INT32: return Type(b.getI32Type());
  case onnx::TensorProto::INT64: return Type(b.getI64Type());
  case onnx::TensorProto::BOOL: return Type(b.getI1Type());
  default:
    return error(loc) << "ONNX element type "
                          << onnx::TensorProto::DataType_Name(
                                 onnx::TensorProto::DataType(onnxType))
                          << " is not imported (float, float16, bfloat16, "
                             "int32, int64, bool are)";
  }
}

FailureOr<RankedTensorType>
OnnxImporter::tensorType(const onnx::TypeProto &type, Location loc) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape())
    return error(loc) << "expected a tensor of known rank";
  FailureOr<Type> element = elementType(type.tensor_type().elem_type(), loc);
  if (failed(element))
    return failure();
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim :
       type.tensor_type().shape().dim()) {
    if (dim.has_dim_value() && (dim.dim_value() < 0 || dim.dim_value() > kMaxDim))
      return error(loc) << "a dim of " << dim.dim_value()
                        << " (sizes are imported up to 2^40)";
    shape.push_back(dim.has_dim_value() ? dim.dim_value() : ShapedType::kDynamic);
  }
  return RankedTensorType::get(shape, *element);
}

FailureOr<Value> OnnxImporter::constant(const onnx::TensorProto &tensor,
                                        Location loc) {
  FailureOr<Type> element = elementType(tensor.data_type(), loc);
  if (failed(element))
    return failure();
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  // The element count, overflow-checked: an initializer holds its data.
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d != 0 && count > kMaxDim / d))
      return error(loc) << "initializer '" << tensor.name()
                        << "' has more than 2^40 elements or a negative dim";
    count *= d;
  }
  auto type = RankedTensorType::get(shape, *element);
  if (tensor.has_data_location() &&
      tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return error(loc) << "initializer '" << tensor.name()
                          << "': external data is not imported";
  int64_t bytes = count * ((element->getIntOrFloatBitWidth() + 7) / 8);
  std::string raw;
  if (tensor.has_raw_data()) {
    raw = tensor.raw_data();
  } else if (tensor.float_data_size()) {
    raw.assign(reinterpret_cast<const char *>(tensor.float_data().data()),
               tensor.float_data_size() * sizeof(float));
  } else if (tensor.int64_data_size()) {
    raw.assign(reinterpret_cast<const char *>(tensor.int64_data().data()),
               tensor.int64_data_size() * sizeof(int64_t));
  } else if (tensor.int32_data_size()) {
    // int32_data also holds the 16-bit and bool types, one an entry.
    for (int32_t v : tensor.int32_data()) {
      int64_t width = (element->getIntOrFloatBitWidth() + 7) / 8;
      raw.append(reinterpret_cast<const char *>(&v), width);
    }
  }
  if (static_cast<int64_t>(raw.size()) != bytes)
    return error(loc) << "initializer '" << tensor.name() << "' holds "
                          << raw.size() << " bytes, its type " << type
                          << " needs " << bytes;
  DenseElementsAttr value;
  if (element->isInteger(1)) {
    SmallVector<bool> bits(raw.begin(), raw.end());
    value = DenseElementsAttr::get(type, bits);
  } else {
    value = DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(raw.data(), raw.size()));
  }
  return arith::ConstantOp::create(b, loc, value).getResult();
}

FailureOr<Value> OnnxImporter::input(const onnx::NodeProto &node, int i,
                                     Location loc) {
  if (i >= node.input_size() || node.input(i).empty())
    return error(loc) << "'" << node.op_type() << "' needs input #" << i;
  auto it = values.find(node.input(i));
  if (it == values.end())
    return error(loc) << "input '" << node.input(i)
                          << "' is not defined before the node";
  return it->second;
}

int64_t OnnxImporter::intAttr(const onnx::NodeProto &node, StringRef name,
                              int64_t otherwise) {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return a.i();
  return otherwise;
}

Value OnnxImporter::zeros(RankedTensorType type, ArrayRef<Value> dynamicSizes,
                          Location loc) {
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                        type.getElementType(), dynamicSizes);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

FailureOr<Value> OnnxImporter::elementwise(
    ValueRange operands, Type resultElement, Location loc,
    function_ref<Value(OpBuilder &, Location, ValueRange)> op) {
  int64_t rank = 0;
  for (Value v : operands)
    rank = std::max(rank, cast<RankedTensorType>(v.getType()).getRank());
  // The result's sizes, right-aligned as numpy broadcasts; a dynamic size
  // is taken from the first operand that has it (sizes that do not agree
  // at run time are the model's error, as in ONNX).
  SmallVector<int64_t> shape(rank, 1);
  SmallVector<Value> sizeFrom(rank);
  SmallVector<int64_t> sizeDim(rank, 0);
  for (Value v : operands) {
    auto t = cast<RankedTensorType>(v.getType());
    for (int64_t d = 0; d < t.getRank(); ++d) {
      int64_t r = d + rank - t.getRank(), size = t.getDimSize(d);
      if (size == 1)
        continue;
      if (ShapedType::isDynamic(size)) {
        if (!sizeFrom[r] && !ShapedType::isDynamic(shape[r]) && shape[r] == 1) {
          shape[r] = ShapedType::kDynamic;
          sizeFrom[r] = v;
          sizeDim[r] = d;
        }
        continue;
      }
      if (shape[r] != 1 && !ShapedType::isDynamic(shape[r]) && shape[r] != size)
        return error(loc) << "operands of sizes " << shape[r] << " and "
                              << size << " do not broadcast";
      shape[r] = size;
      sizeFrom[r] = Value();
    }
  }
  SmallVector<Value> dynamicSizes;
  for (int64_t r = 0; r < rank; ++r)
    if (ShapedType::isDynamic(shape[r]))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, sizeFrom[r], sizeDim[r]));
  auto resultType = RankedTensorType::get(shape, resultElement);
  Value init = tensor::EmptyOp::create(b, loc, shape, resultElement, dynamicSizes);
  SmallVector<AffineMap> maps;
  for (Value v : operands) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      int64_t r = d + rank - t.getRank();
      bool broadcast = t.getDimSize(d) == 1 && shape[r] != 1;
      exprs.push_back(broadcast ? b.getAffineConstantExpr(0)
                                : b.getAffineDimExpr(r));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, operands, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location at, ValueRange args) {
        Value out = op(nested, at, args.drop_back());
        linalg::YieldOp::create(nested, at, out);
      });
  return generic.getResult(0);
}

Value OnnxImporter::matmul2d(Value x, Value y, Location loc) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto yt = cast<RankedTensorType>(y.getType());
  auto type = RankedTensorType::get({xt.getDimSize(0), yt.getDimSize(1)},
                                    xt.getElementType());
  SmallVector<Value> sizes;
  if (type.isDynamicDim(0))
    sizes.push_back(tensor::DimOp::create(b, loc, x, 0));
  if (type.isDynamicDim(1))
    sizes.push_back(tensor::DimOp::create(b, loc, y, 1));
  return linalg::MatmulOp::create(b, loc, ValueRange{x, y},
                                  ValueRange{zeros(type, sizes, loc)})
      .getResult(0);
}

OnnxImporter::Results OnnxImporter::importMatMul(const onnx::NodeProto &node,
                                                 Location loc) {
  FailureOr<Value> x = input(node, 0, loc), y = input(node, 1, loc);
  if (failed(x) || failed(y))
    return failure();
  auto xt = cast<RankedTensorType>(x->getType());
  auto yt = cast<RankedTensorType>(y->getType());
  if (xt.getElementType() != yt.getElementType() ||
      !isa<FloatType>(xt.getElementType()))
    return error(loc) << "MatMul of " << xt << " and " << yt
                          << ": expected floats of one type";
  if (xt.getRank() < 2 || yt.getRank() < 2)
    return error(loc) << "MatMul of ranks " << xt.getRank() << " and "
                      << yt.getRank()
                      << " is not imported (ranks 2 and 3, and 4 with 4, are)";
  int64_t xk = xt.getDimSize(xt.getRank() - 1);
  int64_t yk = yt.getDimSize(yt.getRank() - 2);
  if (!ShapedType::isDynamic(xk) && !ShapedType::isDynamic(yk) && xk != yk)
    return error(loc) << "MatMul of " << xt << " and " << yt
                      << ": contraction sizes " << xk << " and " << yk;
  if (xt.getRank() == 2 && yt.getRank() == 2)
    return SmallVector<Value>{matmul2d(*x, *y, loc)};
  if (xt.getRank() == 4 && yt.getRank() == 4) {
    // [b, h, m, k] x [b, h, k, n]: the batch dims as one, linalg.batch_matmul.
    SmallVector<Value> xd = dimValues(*x, loc), yd = dimValues(*y, loc);
    auto mul = [&](Value a, Value c) -> Value {
      return arith::MulIOp::create(b, loc, a, c);
    };
    int64_t bh = mulSizes(xt.getDimSize(0), xt.getDimSize(1));
    Value bhv = mul(xd[0], xd[1]);
    Value x3 = reshape(*x, {bhv, xd[2], xd[3]},
                       {bh, xt.getDimSize(2), xt.getDimSize(3)}, loc);
    Value y3 = reshape(*y, {bhv, yd[2], yd[3]},
                       {bh, yt.getDimSize(2), yt.getDimSize(3)}, loc);
    auto type3 = RankedTensorType::get(
        {bh, xt.getDimSize(2), yt.getDimSize(3)}, xt.getElementType());
    SmallVector<Value> sizes;
    if (type3.isDynamicDim(0))
      sizes.push_back(bhv);
    if (type3.isDynamicDim(1))
      sizes.push_back(xd[2]);
    if (type3.isDynamicDim(2))
      sizes.push_back(yd[3]);
    Value product = linalg::BatchMatmulOp::create(
                        b, loc, ValueRange{x3, y3},
                        ValueRange{zeros(type3, sizes, loc)})
                        .getResult(0);
    return SmallVector<Value>{reshape(
        product, {xd[0], xd[1], xd[2], yd[3]},
        {xt.getDimSize(0), xt.getDimSize(1), xt.getDimSize(2),
         yt.getDimSize(3)},
        loc)};
  }
  bool batched = (xt.getRank() == 3 || xt.getRank() == 2) &&
                 (yt.getRank() == 3 || yt.getRank() == 2);
  if (!batched)
    return error(loc) << "MatMul of ranks " << xt.getRank() << " and "
                          << yt.getRank()
                          << " is not imported (ranks 2 and 3, and 4 with 4, are)";
  // A batched operand (the other shared): sc.batch_matmul, the form the
  // IKBO passes and the GPU kernels take.
  int64_t batch = xt.getRank() == 3 ? xt.getDimSize(0) : yt.getDimSize(0);
  if (xt.getRank() == 3 && yt.getRank() == 3 &&
      ShapedType::isDynamic(batch))
    batch = yt.getDimSize(0);
  auto type = RankedTensorType::get(
      {batch, xt.getDimSize(xt.getRank() - 2), yt.getDimSize(yt.getRank() - 1)},
      xt.getElementType());
  return SmallVector<Value>{
      BatchMatmulOp::create(b, loc, type, *x, *y, ValueRange{}).getResult()};
}

OnnxImporter::Results OnnxImporter::importGemm(const onnx::NodeProto &node,
                                               Location loc) {
  FailureOr<Value> a = input(node, 0, loc), bv = input(node, 1, loc);
  if (failed(a) || failed(bv))
    return failure();
  float alpha = 1, beta = 1;
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.name() == "alpha")
      alpha = attr.f();
    if (attr.name() == "beta")
      beta = attr.f();
  }
  auto transpose = [&](Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<Value> sizes;
    for (int64_t d : {1, 0})
      if (t.isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(b, loc, v, d));
    Value init = tensor::EmptyOp::create(
        b, loc, {t.getDimSize(1), t.getDimSize(0)}, t.getElementType(), sizes);
    return linalg::TransposeOp::create(b, loc, v, init, ArrayRef<int64_t>{1, 0})
        .getResult()[0];
  };
  auto at = cast<RankedTensorType>(a->getType());
  auto bt = cast<RankedTensorType>(bv->getType());
  if (at.getRank() != 2 || bt.getRank() != 2 ||
      at.getElementType() != bt.getElementType() ||
      !isa<FloatType>(at.getElementType()))
    return error(loc) << "Gemm of " << at << " and " << bt
                          << ": expected rank-2 floats of one type";
  Value x = intAttr(node, "transA", 0) ? transpose(*a) : *a;
  Value y = intAttr(node, "transB", 0) ? transpose(*bv) : *bv;
  Value product = matmul2d(x, y, loc);
  Type element = at.getElementType();
  auto scaled = [&](OpBuilder &nb, Location l, Value v, float s) -> Value {
    if (s == 1)
      return v;
    Value factor = arith::ConstantOp::create(nb, l, nb.getFloatAttr(element, s));
    return arith::MulFOp::create(nb, l, v, factor);
  };
  if (node.input_size() < 3 || node.input(2).empty() || beta == 0) {
    if (alpha == 1)
      return SmallVector<Value>{product};
    return single(elementwise(product, element, loc,
                              [&](OpBuilder &nb, Location l, ValueRange v) {
                                return scaled(nb, l, v[0], alpha);
                              }));

  }
  FailureOr<Value> c = input(node, 2, loc);
  if (failed(c))
    return failure();
  return single(elementwise({product, *c}, element, loc,
                     [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                       return arith::AddFOp::create(nb, l, scaled(nb, l, v[0], alpha),
                                                    scaled(nb, l, v[1], beta));
                     }));
}

OnnxImporter::Results OnnxImporter::importBinary(const onnx::NodeProto &node,
                                                 Location loc) {
  FailureOr<Value> x = input(node, 0, loc), y = input(node, 1, loc);
  if (failed(x) || failed(y))
    return failure();
  Type element = cast<RankedTensorType>(x->getType()).getElementType();
  if (element != cast<RankedTensorType>(y->getType()).getElementType())
    return error(loc) << "'" << node.op_type()
                          << "' of two element types: " << x->getType()
                          << " and " << y->getType();
  bool isFloat = isa<FloatType>(element);
  StringRef kind = node.op_type();
  return single(elementwise({*x, *y}, element, loc,
                     [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                       if (kind == "Add")
                         return isFloat ? arith::AddFOp::create(nb, l, v[0], v[1]).getResult()
                                        : arith::AddIOp::create(nb, l, v[0], v[1]).getResult();
                       if (kind == "Sub")
                         return isFloat ? arith::SubFOp::create(nb, l, v[0], v[1]).getResult()
                                        : arith::SubIOp::create(nb, l, v[0], v[1]).getResult();
                       if (kind == "Mul")
                         return isFloat ? arith::MulFOp::create(nb, l, v[0], v[1]).getResult()
                                        : arith::MulIOp::create(nb, l, v[0], v[1]).getResult();
                       return isFloat ? arith::DivFOp::create(nb, l, v[0], v[1]).getResult()
                                      : arith::DivSIOp::create(nb, l, v[0], v[1]).getResult();
                     }));
}

OnnxImporter::Results OnnxImporter::importUnary(const onnx::NodeProto &node,
                                                Location loc) {
  FailureOr<Value> x = input(node, 0, loc);
  if (failed(x))
    return failure();
  Type element = cast<RankedTensorType>(x->getType()).getElementType();
  if (!isa<FloatType>(element))
    return error(loc) << "'" << node.op_type() << "' of " << x->getType()
                          << ": expected floats";
  StringRef kind = node.op_type();
  return single(elementwise(*x, element, loc,
                     [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                       auto cst = [&](double c) -> Value {
                         return arith::ConstantOp::create(nb, l, nb.getFloatAttr(element, c));
                       };
                       if (kind == "Relu")
                         return arith::MaximumFOp::create(nb, l, v[0], cst(0));
                       if (kind == "Tanh")
                         return math::TanhOp::create(nb, l, v[0]);
                       if (kind == "Exp")
                         return math::ExpOp::create(nb, l, v[0]);
                       if (kind == "Neg")
                         return arith::NegFOp::create(nb, l, v[0]);
                       if (kind == "Sqrt")
                         return math::SqrtOp::create(nb, l, v[0]);
                       // Sigmoid: 1 / (1 + exp(-x)).
                       Value e = math::ExpOp::create(nb, l, arith::NegFOp::create(nb, l, v[0]));
                       return arith::DivFOp::create(nb, l, cst(1),
                                                    arith::AddFOp::create(nb, l, cst(1), e));
                     }));
}

OnnxImporter::Results OnnxImporter::importGather(const onnx::NodeProto &node,
                                                 Location loc) {
  // An element of a computed shape (x.shape[0]): a constant index.
  if (isShape(node, 0)) {
    FailureOr<SmallVector<int64_t>> at = constantInts(node, 1, loc);
    const SmallVector<ShapeElem> &elems = shapes[node.input(0)];
    if (failed(at) || at->size() != 1 || intAttr(node, "axis", 0) != 0)
      return error(loc) << "Gather of a shape with one constant index only";
    int64_t i = (*at)[0] < 0 ? (*at)[0] + int64_t(elems.size()) : (*at)[0];
    if (i < 0 || i >= int64_t(elems.size()))
      return error(loc) << "Gather of element " << (*at)[0] << " of a shape of "
                        << elems.size();
    // Recorded as one element (what an Unsqueeze or a Concat of it takes).
    return recordShape(node.output_size() ? node.output(0) : "", ArrayRef<ShapeElem>(elems[i]), loc);
  }
  FailureOr<Value> data = input(node, 0, loc), indices = input(node, 1, loc);
  if (failed(data) || failed(indices))
    return failure();
  auto dt = cast<RankedTensorType>(data->getType());
  auto it = cast<RankedTensorType>(indices->getType());
  if (intAttr(node, "axis", 0) != 0 || it.getRank() != 1 ||
      !it.getElementType().isSignlessInteger() || dt.getRank() < 1)
    return error(loc) << "Gather is imported along axis 0 with 1-D "
                             "integer indices (rows of the data), got data "
                          << dt << ", indices " << it << ", axis "
                          << intAttr(node, "axis", 0);
  Value idx = *indices;
  if (!it.getElementType().isInteger(32)) {
    // The row index as i32 (sc.gather_rows's, and the kernels').
    FailureOr<Value> narrowed = elementwise(
        idx, b.getI32Type(), loc, [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
          return arith::TruncIOp::create(nb, l, nb.getI32Type(), v[0]);
        });
    if (failed(narrowed))
      return failure();
    idx = *narrowed;
  }
  SmallVector<int64_t> shape(dt.getShape());
  shape[0] = it.getDimSize(0);
  auto type = RankedTensorType::get(shape, dt.getElementType());
  return SmallVector<Value>{GatherRowsOp::create(b, loc, type, *data, idx).getResult()};
}

OnnxImporter::Results OnnxImporter::importConcat(const onnx::NodeProto &node,
                                                 Location loc) {
  // A shape assembled from computed and constant parts.
  if (llvm::any_of(node.input(), [&](const std::string &in) {
        return shapes.count(in);
      })) {
    SmallVector<ShapeElem> elems;
    for (int i = 0; i < node.input_size(); ++i) {
      FailureOr<SmallVector<ShapeElem>> part = shapeElems(node, i);
      if (failed(part))
        return error(loc) << "Concat of a shape with a part that is not "
                             "constant";
      elems.append(part->begin(), part->end());
    }
    return recordShape(node.output_size() ? node.output(0) : "", elems, loc);
  }
  SmallVector<Value> parts;
  for (int i = 0; i < node.input_size(); ++i) {
    FailureOr<Value> v = input(node, i, loc);
    if (failed(v))
      return failure();
    parts.push_back(*v);
  }
  if (parts.empty())
    return error(loc) << "Concat of no inputs";
  auto first = cast<RankedTensorType>(parts[0].getType());
  int64_t rank = first.getRank();
  for (Value part : parts)
    if (cast<RankedTensorType>(part.getType()).getRank() != rank ||
        cast<RankedTensorType>(part.getType()).getElementType() !=
            first.getElementType())
      return error(loc) << "Concat of " << first << " and " << part.getType()
                        << ": expected one rank and element type";
  int64_t axis = intAttr(node, "axis", 0);
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return error(loc) << "Concat along axis " << intAttr(node, "axis", 0)
                          << " of rank-" << rank << " tensors";
  return SmallVector<Value>{
      tensor::ConcatOp::create(b, loc, axis, parts).getResult()};
}

OnnxImporter::Results
OnnxImporter::importTranspose(const onnx::NodeProto &node, Location loc) {
  FailureOr<Value> x = input(node, 0, loc);
  if (failed(x))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  SmallVector<int64_t> perm;
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == "perm")
      perm.assign(a.ints().begin(), a.ints().end());
  if (perm.empty())
    for (int64_t d = t.getRank() - 1; d >= 0; --d)
      perm.push_back(d);
  SmallVector<int64_t> sorted(perm);
  llvm::sort(sorted);
  if (static_cast<int64_t>(perm.size()) != t.getRank() ||
      llvm::any_of(llvm::enumerate(sorted),
                   [](auto p) { return p.value() != int64_t(p.index()); }))
    return error(loc) << "Transpose: perm is not a permutation of the "
                          << t.getRank() << " dims";
  SmallVector<int64_t> shape;
  SmallVector<Value> sizes;
  for (int64_t d : perm) {
    shape.push_back(t.getDimSize(d));
    if (t.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, *x, d));
  }
  Value init = tensor::EmptyOp::create(b, loc, shape, t.getElementType(), sizes);
  return SmallVector<Value>{
      linalg::TransposeOp::create(b, loc, *x, init, perm).getResult()[0]};
}

OnnxImporter::Results OnnxImporter::importCast(const onnx::NodeProto &node,
                                               Location loc) {
  FailureOr<Value> x = input(node, 0, loc);
  if (failed(x))
    return failure();
  FailureOr<Type> to = elementType(intAttr(node, "to", 0), loc);
  if (failed(to))
    return failure();
  Type from = cast<RankedTensorType>(x->getType()).getElementType();
  Type target = *to;
  return single(elementwise(*x, target, loc,
                     [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                       Value in = v[0];
                       if (from == target)
                         return in;
                       bool fromFloat = isa<FloatType>(from),
                            toFloat = isa<FloatType>(target);
                       unsigned fw = from.getIntOrFloatBitWidth(),
                                tw = target.getIntOrFloatBitWidth();
                       if (fromFloat && toFloat) {
                         // f16 <-> bf16 through f32 (neither holds the other).
                         if (fw == tw)
                           in = arith::ExtFOp::create(nb, l, nb.getF32Type(), in);
                         unsigned iw = in.getType().getIntOrFloatBitWidth();
                         return iw < tw ? arith::ExtFOp::create(nb, l, target, in).getResult()
                                        : arith::TruncFOp::create(nb, l, target, in).getResult();
                       }
                       if (fromFloat)
                         return arith::FPToSIOp::create(nb, l, target, in);
                       if (toFloat)
                         return arith::SIToFPOp::create(nb, l, target, in);
                       return fw < tw ? arith::ExtSIOp::create(nb, l, target, in).getResult()
                                      : arith::TruncIOp::create(nb, l, target, in).getResult();
                     }));
}

OnnxImporter::Results OnnxImporter::importSoftmax(const onnx::NodeProto &node,
                                                  Location loc) {
  FailureOr<Value> x = input(node, 0, loc);
  if (failed(x))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  int64_t axis = intAttr(node, "axis", -1);
  if (axis < 0)
    axis += t.getRank();
  if (axis < 0 || axis >= t.getRank() || !isa<FloatType>(t.getElementType()))
    return error(loc) << "Softmax along axis " << intAttr(node, "axis", -1)
                          << " of " << t;
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (t.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, *x, d));
  Value init = tensor::EmptyOp::create(b, loc, t.getShape(), t.getElementType(), sizes);
  // As its reductions and element-wise steps (linalg.softmax has no loop
  // lowering of its own).
  auto softmax = linalg::SoftmaxOp::create(b, loc, t, *x, init, axis);
  FailureOr<SmallVector<Value>> steps = softmax.decomposeOperation(b);
  softmax.erase();
  if (failed(steps))
    return error(loc) << "Softmax of " << t << " could not be decomposed";
  return *steps;
}

FailureOr<SmallVector<int64_t>>
OnnxImporter::constantInts(const onnx::NodeProto &node, int i, Location loc) {
  FailureOr<Value> v = input(node, i, loc);
  if (failed(v))
    return failure();
  DenseIntElementsAttr values;
  if (auto cst = v->getDefiningOp<arith::ConstantOp>())
    values = dyn_cast<DenseIntElementsAttr>(cst.getValue());
  if (!values)
    return error(loc) << "'" << node.op_type() << "' needs input #" << i
                      << " as a constant (an initializer)";
  SmallVector<int64_t> out;
  for (const APInt &x : values)
    out.push_back(x.getSExtValue());
  return out;
}

SmallVector<Value> OnnxImporter::dimValues(Value x, Location loc) {
  SmallVector<Value> dims;
  auto t = cast<RankedTensorType>(x.getType());
  for (int64_t d = 0; d < t.getRank(); ++d)
    dims.push_back(t.isDynamicDim(d)
                       ? tensor::DimOp::create(b, loc, x, d).getResult()
                       : arith::ConstantIndexOp::create(b, loc, t.getDimSize(d))
                             .getResult());
  return dims;
}

Value OnnxImporter::reshape(Value x, ArrayRef<Value> sizes,
                            ArrayRef<int64_t> shape, Location loc) {
  auto t = cast<RankedTensorType>(x.getType());
  auto type = RankedTensorType::get(shape, t.getElementType());
  if (t == type)
    return x;
  // Dims merged or split in order: collapse_shape / expand_shape (views of
  // the buffer at AOT); any other reshape as tensor.reshape.
  if (type.getRank() < t.getRank())
    if (auto groups = getReassociationIndicesForReshape(t, type))
      return tensor::CollapseShapeOp::create(b, loc, type, x, *groups);
  if (type.getRank() > t.getRank())
    if (auto groups = getReassociationIndicesForReshape(t, type)) {
      SmallVector<OpFoldResult> outputShape;
      for (auto [d, size] : llvm::enumerate(shape))
        outputShape.push_back(ShapedType::isDynamic(size)
                                  ? OpFoldResult(sizes[d])
                                  : OpFoldResult(b.getIndexAttr(size)));
      return tensor::ExpandShapeOp::create(b, loc, type, x, *groups,
                                           outputShape);
    }
  // The new shape as an index tensor (tensor.reshape's operand).
  Value shapeTensor = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({int64_t(sizes.size())}, b.getIndexType()),
      sizes);
  return tensor::ReshapeOp::create(b, loc, type, x, shapeTensor);
}

OnnxImporter::Results OnnxImporter::importReshape(const onnx::NodeProto &node,
                                                  Location loc) {
  FailureOr<Value> x = input(node, 0, loc);
  // A computed target: its dims of the input in place are copies (0).
  FailureOr<SmallVector<int64_t>> target = failure();
  if (isShape(node, 1)) {
    auto it = shapes.find(node.input(1));
    SmallVector<int64_t> ints;
    for (auto [i, e] : llvm::enumerate(it->second)) {
      if (!e.of.empty() && (e.of != node.input(0) || e.dim != int64_t(i)))
        return error(loc) << "Reshape to a dim of another tensor, or of "
                             "another position, is not imported";
      ints.push_back(e.of.empty() ? e.constant : 0);
    }
    target = ints;
  } else {
    target = constantInts(node, 1, loc);
  }
  if (failed(x) || failed(target))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  if (intAttr(node, "allowzero", 0))
    return error(loc) << "Reshape with allowzero = 1 is not imported";
  // 0 copies the input's dim, -1 takes what is left (at most one).
  SmallVector<Value> dims = dimValues(*x, loc);
  SmallVector<Value> sizes;
  SmallVector<int64_t> shape;
  int inferred = -1;
  for (auto [i, size] : llvm::enumerate(*target)) {
    if (size == 0) {
      if (int64_t(i) >= t.getRank())
        return error(loc) << "Reshape copies dim " << i << " of a rank-"
                          << t.getRank() << " input";
      sizes.push_back(dims[i]);
      shape.push_back(t.getDimSize(i));
    } else if (size == -1) {
      if (inferred >= 0)
        return error(loc) << "Reshape infers more than one dim";
      inferred = static_cast<int>(i);
      sizes.push_back(Value());
      shape.push_back(ShapedType::kDynamic);
    } else if (size > 0) {
      sizes.push_back(arith::ConstantIndexOp::create(b, loc, size));
      shape.push_back(size);
    } else {
      return error(loc) << "Reshape to a size of " << size;
    }
  }
  if (inferred >= 0) {
    Value total = arith::ConstantIndexOp::create(b, loc, 1);
    for (Value d : dims)
      total = arith::MulIOp::create(b, loc, total, d);
    Value known = arith::ConstantIndexOp::create(b, loc, 1);
    for (auto [i, size] : llvm::enumerate(sizes))
      if (int(i) != inferred)
        known = arith::MulIOp::create(b, loc, known, size);
    sizes[inferred] = arith::DivUIOp::create(b, loc, total, known);
    // Static when the input's dims that are not copied in place are: the
    // copied ones cancel (B x 4 x 6 to (0, 6, -1): 4).
    int64_t restIn = 1, restOut = 1;
    for (int64_t d = 0; d < t.getRank(); ++d) {
      bool copied = d < int64_t(target->size()) && (*target)[d] == 0;
      if (copied)
        continue;
      restIn = mulSizes(restIn, t.getDimSize(d));
    }
    for (int64_t size : *target)
      restOut = mulSizes(restOut, size > 0 ? size : 1);
    if (ShapedType::isDynamic(restOut))
      return error(loc) << "Reshape to sizes past 2^40";
    if (!ShapedType::isDynamic(restIn)) {
      if (restIn % restOut != 0)
        return error(loc) << "Reshape of " << t << " to (" << target->size()
                          << " dims) does not divide its size";
      shape[inferred] = restIn / restOut;
    }
  }
  return SmallVector<Value>{reshape(*x, sizes, shape, loc)};
}

OnnxImporter::Results OnnxImporter::importFlatten(const onnx::NodeProto &node,
                                                  Location loc) {
  FailureOr<Value> x = input(node, 0, loc);
  if (failed(x))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  int64_t axis = intAttr(node, "axis", 1);
  if (axis < 0)
    axis += t.getRank();
  if (axis < 0 || axis > t.getRank())
    return error(loc) << "Flatten at axis " << intAttr(node, "axis", 1)
                      << " of rank " << t.getRank();
  SmallVector<Value> dims = dimValues(*x, loc);
  Value outer = arith::ConstantIndexOp::create(b, loc, 1);
  Value inner = arith::ConstantIndexOp::create(b, loc, 1);
  int64_t outerSize = 1, innerSize = 1;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    bool isOuter = d < axis;
    Value &acc = isOuter ? outer : inner;
    int64_t &size = isOuter ? outerSize : innerSize;
    acc = arith::MulIOp::create(b, loc, acc, dims[d]);
    size = mulSizes(size, t.getDimSize(d));
  }
  return SmallVector<Value>{
      reshape(*x, {outer, inner}, {outerSize, innerSize}, loc)};
}

OnnxImporter::Results OnnxImporter::importSqueeze(const onnx::NodeProto &node,
                                                  Location loc) {
  FailureOr<Value> x = input(node, 0, loc);
  if (failed(x))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  SmallVector<int64_t> axes;
  if (node.input_size() > 1 && !node.input(1).empty()) {
    FailureOr<SmallVector<int64_t>> given = constantInts(node, 1, loc);
    if (failed(given))
      return failure();
    axes = *given;
  } else {
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (t.getDimSize(d) == 1)
        axes.push_back(d);
  }
  llvm::SmallDenseSet<int64_t> drop;
  for (int64_t a : axes) {
    int64_t d = a < 0 ? a + t.getRank() : a;
    if (d < 0 || d >= t.getRank() || t.getDimSize(d) != 1)
      return error(loc) << "Squeeze of dim " << a << " of " << t
                        << ": only static dims of size 1 squeeze";
    drop.insert(d);
  }
  SmallVector<Value> dims = dimValues(*x, loc), sizes;
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < t.getRank(); ++d)
    if (!drop.contains(d)) {
      sizes.push_back(dims[d]);
      shape.push_back(t.getDimSize(d));
    }
  return SmallVector<Value>{reshape(*x, sizes, shape, loc)};
}

OnnxImporter::Results
OnnxImporter::importUnsqueeze(const onnx::NodeProto &node, Location loc) {
  // A computed shape element made a 1-element shape: the same elements.
  if (isShape(node, 0))
    return recordShape(node.output_size() ? node.output(0) : "", SmallVector<ShapeElem>(shapes[node.input(0)]),
                       loc);
  FailureOr<Value> x = input(node, 0, loc);
  FailureOr<SmallVector<int64_t>> axes = constantInts(node, 1, loc);
  if (failed(x) || failed(axes))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  int64_t rank = t.getRank() + static_cast<int64_t>(axes->size());
  llvm::SmallDenseSet<int64_t> ones;
  for (int64_t a : *axes) {
    int64_t d = a < 0 ? a + rank : a;
    if (d < 0 || d >= rank || !ones.insert(d).second)
      return error(loc) << "Unsqueeze at " << a << " into rank " << rank;
  }
  SmallVector<Value> dims = dimValues(*x, loc), sizes;
  SmallVector<int64_t> shape;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = 0, from = 0; d < rank; ++d) {
    if (ones.contains(d)) {
      sizes.push_back(one);
      shape.push_back(1);
      continue;
    }
    sizes.push_back(dims[from]);
    shape.push_back(t.getDimSize(from++));
  }
  return SmallVector<Value>{reshape(*x, sizes, shape, loc)};
}

OnnxImporter::Results OnnxImporter::importGelu(const onnx::NodeProto &node,
                                               Location loc) {
  FailureOr<Value> x = input(node, 0, loc);
  if (failed(x))
    return failure();
  Type element = cast<RankedTensorType>(x->getType()).getElementType();
  if (!isa<FloatType>(element))
    return error(loc) << "Gelu of " << x->getType() << ": expected floats";
  std::string approximate = "none";
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == "approximate")
      approximate = a.s();
  if (approximate != "none" && approximate != "tanh")
    return error(loc) << "Gelu with approximate = '" << approximate << "'";
  bool tanhForm = approximate == "tanh";
  return single(elementwise(
      *x, element, loc, [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        auto cst = [&](double c) -> Value {
          return arith::ConstantOp::create(nb, l, nb.getFloatAttr(element, c));
        };
        Value in = v[0];
        Value inner;
        if (tanhForm) {
          // tanh(sqrt(2 / pi) (x + 0.044715 x^3))
          Value cube = arith::MulFOp::create(
              nb, l, arith::MulFOp::create(nb, l, in, in), in);
          Value sum = arith::AddFOp::create(
              nb, l, in, arith::MulFOp::create(nb, l, cst(0.044715), cube));
          inner = math::TanhOp::create(
              nb, l, arith::MulFOp::create(nb, l, cst(0.7978845608028654), sum));
        } else {
          // erf(x / sqrt(2))
          inner = math::ErfOp::create(
              nb, l, arith::MulFOp::create(nb, l, in, cst(0.7071067811865476)));
        }
        Value half = arith::MulFOp::create(nb, l, cst(0.5), in);
        return arith::MulFOp::create(
            nb, l, half, arith::AddFOp::create(nb, l, cst(1), inner));
      }));
}

OnnxImporter::Results
OnnxImporter::importLayerNorm(const onnx::NodeProto &node, Location loc) {
  FailureOr<Value> x = input(node, 0, loc), scale = input(node, 1, loc);
  if (failed(x) || failed(scale))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  Type element = t.getElementType();
  int64_t axis = intAttr(node, "axis", -1);
  if (axis < 0)
    axis += t.getRank();
  if (t.getRank() < 1 || axis != t.getRank() - 1 || !isa<FloatType>(element))
    return error(loc) << "LayerNormalization is imported over the last axis "
                         "of floats, got axis "
                      << intAttr(node, "axis", -1) << " of " << t;
  if (node.output_size() > 1)
    return error(loc) << "LayerNormalization's mean and inverse deviation "
                         "outputs are not imported";
  float epsilon = 1e-5f;
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == "epsilon")
      epsilon = a.f();
  int64_t rank = t.getRank();
  // Row statistics in f32: the mean, then the mean of squared deviations.
  SmallVector<int64_t> rowShape(t.getShape().drop_back());
  SmallVector<Value> rowSizes;
  for (int64_t d = 0; d + 1 < rank; ++d)
    if (t.isDynamicDim(d))
      rowSizes.push_back(tensor::DimOp::create(b, loc, *x, d));
  auto rowType = RankedTensorType::get(rowShape, b.getF32Type());
  AffineMap all = b.getMultiDimIdentityMap(rank);
  AffineMap rows = AffineMap::getMultiDimIdentityMap(rank - 1, ctx);
  rows = AffineMap::get(rank, 0, rows.getResults(), ctx);
  SmallVector<utils::IteratorType> reduceLast(rank, utils::IteratorType::parallel);
  reduceLast.back() = utils::IteratorType::reduction;
  Value n = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(float(t.getDimSize(rank - 1))));
  if (t.isDynamicDim(rank - 1)) {
    Value dim = tensor::DimOp::create(b, loc, *x, rank - 1);
    n = arith::UIToFPOp::create(
        b, loc, b.getF32Type(),
        arith::IndexCastOp::create(b, loc, b.getI64Type(), dim));
  }
  auto widen = [&](OpBuilder &nb, Location l, Value v) -> Value {
    return v.getType().isF32() ? v : arith::ExtFOp::create(nb, l, nb.getF32Type(), v).getResult();
  };
  auto rowSum = [&](ValueRange ins, ArrayRef<AffineMap> inMaps,
                    function_ref<Value(OpBuilder &, Location, ValueRange)> term) {
    Value init = zeros(rowType, rowSizes, loc);
    SmallVector<AffineMap> maps(inMaps);
    maps.push_back(rows);
    return linalg::GenericOp::create(
               b, loc, TypeRange{rowType}, ins, ValueRange{init}, maps,
               reduceLast,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 Value sum = arith::AddFOp::create(
                     nb, l, args.back(), term(nb, l, args.drop_back()));
                 linalg::YieldOp::create(nb, l, sum);
               })
        .getResult(0);
  };
  Value sum = rowSum({*x}, {all}, [&](OpBuilder &nb, Location l, ValueRange v) {
    return widen(nb, l, v[0]);
  });
  Value mean = single(elementwise(sum, b.getF32Type(), loc,
                                  [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
                                    return arith::DivFOp::create(nb, l, v[0], n);
                                  }))
                   .value()[0];
  Value squares = rowSum(
      {*x, mean}, {all, rows}, [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
        Value d = arith::SubFOp::create(nb, l, widen(nb, l, v[0]), v[1]);
        return arith::MulFOp::create(nb, l, d, d);
      });
  // (x - mean) / sqrt(var + epsilon) * scale (+ bias), as x's type.
  SmallVector<Value> ins = {*x, mean, squares, *scale};
  SmallVector<AffineMap> maps = {all, rows, rows,
                                 AffineMap::get(rank, 0, b.getAffineDimExpr(rank - 1))};
  bool biased = node.input_size() > 2 && !node.input(2).empty();
  if (biased) {
    FailureOr<Value> bias = input(node, 2, loc);
    if (failed(bias))
      return failure();
    ins.push_back(*bias);
    maps.push_back(maps.back());
  }
  for (Value v : ArrayRef<Value>(ins).drop_front(3))
    if (cast<RankedTensorType>(v.getType()).getRank() != 1)
      return error(loc) << "LayerNormalization's scale and bias are imported "
                           "as 1-D, got "
                        << v.getType();
  maps.push_back(all);
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d)
    if (t.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, *x, d));
  Value init = tensor::EmptyOp::create(b, loc, t.getShape(), element, sizes);
  SmallVector<utils::IteratorType> parallel(rank, utils::IteratorType::parallel);
  auto normalized = linalg::GenericOp::create(
      b, loc, TypeRange{t}, ins, ValueRange{init}, maps, parallel,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value eps = arith::ConstantOp::create(nb, l, nb.getF32FloatAttr(epsilon));
        Value var = arith::DivFOp::create(nb, l, args[2], n);
        Value inv = math::RsqrtOp::create(nb, l, arith::AddFOp::create(nb, l, var, eps));
        Value centered = arith::SubFOp::create(nb, l, widen(nb, l, args[0]), args[1]);
        Value y = arith::MulFOp::create(
            nb, l, arith::MulFOp::create(nb, l, centered, inv), widen(nb, l, args[3]));
        if (biased)
          y = arith::AddFOp::create(nb, l, y, widen(nb, l, args[4]));
        if (!element.isF32())
          y = arith::TruncFOp::create(nb, l, element, y);
        linalg::YieldOp::create(nb, l, y);
      });
  return SmallVector<Value>{normalized.getResult(0)};
}

OnnxImporter::Results OnnxImporter::attention(Value q, Value k, Value v,
                                              std::optional<float> scale,
                                              Location loc) {
  auto qt = cast<RankedTensorType>(q.getType());
  auto kt = cast<RankedTensorType>(k.getType());
  auto vt = cast<RankedTensorType>(v.getType());
  if (qt.getRank() != 4 || kt.getRank() != 4 || vt.getRank() != 4 ||
      qt.getElementType() != kt.getElementType() ||
      qt.getElementType() != vt.getElementType())
    return error(loc) << "attention over " << qt << ", " << kt << ", " << vt
                      << ": expected [batch, heads, rows, dim] tensors of one "
                         "element type";
  auto type = RankedTensorType::get({qt.getDimSize(0), qt.getDimSize(1),
                                     qt.getDimSize(2), vt.getDimSize(3)},
                                    qt.getElementType());
  FloatAttr scaleAttr = scale ? b.getF32FloatAttr(*scale) : FloatAttr();
  return SmallVector<Value>{AttentionOp::create(b, loc, type, q, k, v, Value(),
                                                Attribute(), scaleAttr)
                                .getResult()};
}

std::optional<OnnxImporter::AttentionMatch>
OnnxImporter::matchAttention(const onnx::NodeProto &last) {
  if (last.op_type() != "MatMul" || last.input_size() != 2 ||
      last.output_size() != 1)
    return std::nullopt;
  // A value one node of `kind` with `inputs` inputs and one output makes
  // and only one node reads.
  auto soleProducer = [&](const std::string &name, StringRef kind,
                          int inputs) -> const onnx::NodeProto * {
    const onnx::NodeProto *node = producer.lookup(name);
    if (!node || node->op_type() != kind || node->input_size() != inputs ||
        node->output_size() != 1 || readers.lookup(name) != 1)
      return nullptr;
    return node;
  };
  AttentionMatch m;
  m.v = last.input(1);
  const onnx::NodeProto *softmax = soleProducer(last.input(0), "Softmax", 1);
  if (!softmax || intAttr(*softmax, "axis", -1) != -1)
    return std::nullopt;
  const onnx::NodeProto *scores = soleProducer(softmax->input(0), "MatMul", 2);
  if (!scores) {
    // The scores scaled by a constant: Mul(s, c) or Div(s, c).
    const onnx::NodeProto *scaled = soleProducer(softmax->input(0), "Mul", 2);
    if (!scaled)
      scaled = soleProducer(softmax->input(0), "Div", 2);
    if (!scaled)
      return std::nullopt;
    auto it = values.find(scaled->input(1));
    auto cst = it == values.end() ? arith::ConstantOp()
                                  : it->second.getDefiningOp<arith::ConstantOp>();
    auto dense = cst ? dyn_cast<DenseFPElementsAttr>(cst.getValue())
                     : DenseFPElementsAttr();
    if (!dense || dense.getNumElements() != 1)
      return std::nullopt;
    float c = (*dense.getValues<APFloat>().begin()).convertToFloat();
    m.scale = scaled->op_type() == "Mul" ? c : 1.0f / c;
    m.covered.push_back(scaled);
    scores = soleProducer(scaled->input(0), "MatMul", 2);
    if (!scores)
      return std::nullopt;
  }
  const onnx::NodeProto *transposed = soleProducer(scores->input(1), "Transpose", 1);
  if (!transposed)
    return std::nullopt;
  SmallVector<int64_t> perm;
  for (const onnx::AttributeProto &a : transposed->attribute())
    if (a.name() == "perm")
      perm.assign(a.ints().begin(), a.ints().end());
  if (perm != SmallVector<int64_t>{0, 1, 3, 2})
    return std::nullopt;
  m.q = scores->input(0);
  m.k = transposed->input(0);
  // Without a scale node the scores are unscaled: scale 1.
  if (!m.scale)
    m.scale = 1.0f;
  m.covered.append({softmax, scores, transposed});
  return m;
}

OnnxImporter::Results
OnnxImporter::importAttention(const onnx::NodeProto &node, Location loc) {
  // ONNX's Attention (opset 23) in its 4-D form: Q, K, V as [batch, heads,
  // rows, dim]; no mask, no cache, not causal.
  if (node.input_size() > 3 || node.output_size() > 1 ||
      intAttr(node, "is_causal", 0) != 0)
    return error(loc) << "Attention is imported with Q, K, V only (no mask, "
                         "cache or causal flag) and one output";
  FailureOr<Value> q = input(node, 0, loc), k = input(node, 1, loc),
                   v = input(node, 2, loc);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  std::optional<float> scale;
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == "scale")
      scale = a.f();
  return attention(*q, *k, *v, scale, loc);
}

/// ReduceSum / ReduceMean / ReduceMax / ReduceMin: the axes from input #1
/// (ReduceSum from opset 13, the others from 18) or the `axes` attribute;
/// the reduction in f32 (a 16-bit sum of hundreds of terms would lose most
/// of its bits; maxima and minima are exact either way, NaN propagated as
/// torch's amax does), divided for the mean, rounded to the input's type
/// once.
OnnxImporter::Results OnnxImporter::importReduce(const onnx::NodeProto &node,
                                                 Location loc) {
  FailureOr<Value> x = input(node, 0, loc);
  if (failed(x))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  Type element = t.getElementType();
  if (!isa<FloatType>(element) || t.getRank() < 1)
    return error(loc) << "'" << node.op_type() << "' of " << x->getType()
                      << ": expected floats of rank 1 or more";
  SmallVector<int64_t> axes;
  if (node.input_size() > 1 && !node.input(1).empty()) {
    FailureOr<SmallVector<int64_t>> given = constantInts(node, 1, loc);
    if (failed(given))
      return failure();
    axes = *given;
  }
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == "axes")
      axes.append(a.ints().begin(), a.ints().end());
  if (axes.empty()) {
    if (intAttr(node, "noop_with_empty_axes", 0))
      return SmallVector<Value>{*x};
    for (int64_t d = 0; d < t.getRank(); ++d)
      axes.push_back(d);
  }
  int64_t rank = t.getRank();
  llvm::SmallDenseSet<int64_t> reduced;
  for (int64_t a : axes) {
    int64_t d = a < 0 ? a + rank : a;
    if (d < 0 || d >= rank || !reduced.insert(d).second)
      return error(loc) << "'" << node.op_type() << "' over axis " << a
                        << " of " << t << " (each axis once, within the rank)";
  }
  // The sum over the reduced dims, the kept dims in order.
  SmallVector<AffineExpr> keptExprs;
  SmallVector<int64_t> keptShape;
  SmallVector<Value> keptSizes, dims = dimValues(*x, loc);
  SmallVector<utils::IteratorType> iterators;
  bool mean = node.op_type() == "ReduceMean";
  // The reduced elements a mean divides by.
  Value count = mean ? arith::ConstantIndexOp::create(b, loc, 1).getResult() : Value();
  for (int64_t d = 0; d < rank; ++d) {
    if (reduced.contains(d)) {
      iterators.push_back(utils::IteratorType::reduction);
      if (mean)
        count = arith::MulIOp::create(b, loc, count, dims[d]);
      continue;
    }
    iterators.push_back(utils::IteratorType::parallel);
    keptExprs.push_back(b.getAffineDimExpr(d));
    keptShape.push_back(t.getDimSize(d));
    if (t.isDynamicDim(d))
      keptSizes.push_back(dims[d]);
  }
  auto sumType = RankedTensorType::get(keptShape, b.getF32Type());
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(rank),
                                 AffineMap::get(rank, 0, keptExprs, ctx)};
  StringRef kind = node.op_type();
  bool isMax = kind == "ReduceMax", isMin = kind == "ReduceMin";
  Value start = zeros(sumType, keptSizes, loc);
  if (isMax || isMin) {
    Value empty = tensor::EmptyOp::create(b, loc, keptShape, b.getF32Type(), keptSizes);
    Value infinity = arith::ConstantOp::create(
        b, loc, b.getF32FloatAttr(isMax ? -INFINITY : INFINITY));
    start = linalg::FillOp::create(b, loc, infinity, empty).getResult(0);
  }
  Value sum =
      linalg::GenericOp::create(
          b, loc, TypeRange{sumType}, ValueRange{*x}, ValueRange{start}, maps,
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value v = args[0].getType().isF32()
                          ? args[0]
                          : arith::ExtFOp::create(nb, l, nb.getF32Type(), args[0])
                                .getResult();
            Value next =
                isMax ? arith::MaximumFOp::create(nb, l, args[1], v).getResult()
                : isMin ? arith::MinimumFOp::create(nb, l, args[1], v).getResult()
                        : arith::AddFOp::create(nb, l, args[1], v).getResult();
            linalg::YieldOp::create(nb, l, next);
          })
          .getResult(0);
  FailureOr<SmallVector<Value>> out = SmallVector<Value>{sum};
  if (mean || !element.isF32()) {
    Value n = mean ? arith::UIToFPOp::create(
                         b, loc, b.getF32Type(),
                         arith::IndexCastOp::create(b, loc, b.getI64Type(), count))
                         .getResult()
                   : Value();
    out = single(elementwise(
        sum, element, loc, [&](OpBuilder &nb, Location l, ValueRange v) -> Value {
          Value r = mean ? arith::DivFOp::create(nb, l, v[0], n).getResult() : v[0];
          return element.isF32() ? r : arith::TruncFOp::create(nb, l, element, r).getResult();
        }));
  }
  if (failed(out) || !intAttr(node, "keepdims", 1))
    return out;
  // keepdims: the reduced dims back as dims of size 1.
  SmallVector<int64_t> shape;
  SmallVector<Value> sizes;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = 0; d < rank; ++d) {
    shape.push_back(reduced.contains(d) ? 1 : t.getDimSize(d));
    sizes.push_back(reduced.contains(d) ? one : dims[d]);
  }
  return SmallVector<Value>{reshape((*out)[0], sizes, shape, loc)};
}

OnnxImporter::Results OnnxImporter::importConstant(const onnx::NodeProto &node,
                                                   Location loc) {
  // Its one value attribute: a tensor, or a float / int scalar or list.
  for (const onnx::AttributeProto &a : node.attribute()) {
    if (a.name() == "value" && a.has_t()) {
      FailureOr<Value> v = constant(a.t(), loc);
      if (failed(v))
        return failure();
      return SmallVector<Value>{*v};
    }
    DenseElementsAttr value;
    if (a.name() == "value_float") {
      value = DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                     a.f());
    } else if (a.name() == "value_int") {
      value = DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                     static_cast<int64_t>(a.i()));
    } else if (a.name() == "value_ints") {
      SmallVector<int64_t> ints(a.ints().begin(), a.ints().end());
      value = DenseElementsAttr::get(
          RankedTensorType::get({int64_t(ints.size())}, b.getI64Type()),
          ArrayRef<int64_t>(ints));
    } else if (a.name() == "value_floats") {
      SmallVector<float> floats(a.floats().begin(), a.floats().end());
      value = DenseElementsAttr::get(
          RankedTensorType::get({int64_t(floats.size())}, b.getF32Type()),
          ArrayRef<float>(floats));
    } else {
      continue;
    }
    return SmallVector<Value>{
        arith::ConstantOp::create(b, loc, value).getResult()};
  }
  return error(loc) << "a Constant with none of value, value_float, "
                       "value_int, value_floats, value_ints";
}

FailureOr<SmallVector<OnnxImporter::ShapeElem>>
OnnxImporter::shapeElems(const onnx::NodeProto &node, int i) {
  if (i >= node.input_size())
    return failure();
  auto it = shapes.find(node.input(i));
  if (it != shapes.end())
    return it->second;
  auto v = values.find(node.input(i));
  DenseIntElementsAttr ints;
  if (v == values.end() || !matchPattern(v->second, m_Constant(&ints)) ||
      ints.getType().getRank() > 1)
    return failure();
  SmallVector<ShapeElem> elems;
  for (const APInt &x : ints)
    elems.push_back({x.getSExtValue(), "", 0});
  return elems;
}

OnnxImporter::Results OnnxImporter::recordShape(StringRef name,
                                                ArrayRef<ShapeElem> elems,
                                                Location loc) {
  if (!name.empty())
    shapes[name] = SmallVector<ShapeElem>(elems);
  SmallVector<Value> parts;
  for (const ShapeElem &e : elems) {
    Value part;
    if (e.of.empty())
      part = arith::ConstantIntOp::create(b, loc, b.getI64Type(), e.constant);
    else
      part = arith::IndexCastOp::create(
          b, loc, b.getI64Type(),
          tensor::DimOp::create(b, loc, values.lookup(e.of), e.dim));
    parts.push_back(part);
  }
  auto type = RankedTensorType::get({int64_t(parts.size())}, b.getI64Type());
  return SmallVector<Value>{tensor::FromElementsOp::create(b, loc, type, parts)};
}

OnnxImporter::Results OnnxImporter::importShape(const onnx::NodeProto &node,
                                                Location loc) {
  FailureOr<Value> x = input(node, 0, loc);
  if (failed(x))
    return failure();
  if (intAttr(node, "start", 0) != 0 || intAttr(node, "end", INT64_MAX) != INT64_MAX)
    return error(loc) << "Shape with start or end is not imported";
  auto t = cast<RankedTensorType>(x->getType());
  SmallVector<ShapeElem> elems;
  for (int64_t d = 0; d < t.getRank(); ++d)
    elems.push_back(t.isDynamicDim(d) ? ShapeElem{0, node.input(0), d}
                                      : ShapeElem{t.getDimSize(d), "", 0});
  return recordShape(node.output_size() ? node.output(0) : "", elems, loc);
}

OnnxImporter::Results OnnxImporter::importSlice(const onnx::NodeProto &node,
                                                Location loc) {
  // Of a shape only (the part of a dynamic reshape's target): constant
  // starts and ends along axis 0, step 1.
  FailureOr<SmallVector<ShapeElem>> elems = shapeElems(node, 0);
  FailureOr<SmallVector<int64_t>> starts = constantInts(node, 1, loc),
                                  ends = constantInts(node, 2, loc);
  if (failed(elems) || failed(starts) || failed(ends) || starts->size() != 1 ||
      ends->size() != 1)
    return error(loc) << "Slice is imported on shapes only (Shape's output, "
                         "constant starts and ends along axis 0)";
  for (int i : {3, 4}) {
    if (i >= node.input_size() || node.input(i).empty())
      continue;
    FailureOr<SmallVector<int64_t>> v = constantInts(node, i, loc);
    if (failed(v) || v->size() != 1 || (*v)[0] != (i == 3 ? 0 : 1))
      return error(loc) << "Slice of a shape along axis 0 with step 1 only";
  }
  int64_t size = int64_t(elems->size());
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  int64_t from = clamp((*starts)[0]), to = std::max(clamp((*ends)[0]), from);
  return recordShape(node.output_size() ? node.output(0) : "",
                     ArrayRef<ShapeElem>(*elems).slice(from, to - from), loc);
}

LogicalResult OnnxImporter::importNode(const onnx::NodeProto &node,
                                       Location loc) {
  currentNode = cast<NameLoc>(loc).getName().str();
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return error(loc) << "op '" << node.op_type() << "' of domain '"
                          << node.domain() << "' is not imported";
  if (covered.contains(&node))
    return success(); // imported with the attention it belongs to
  StringRef kind = node.op_type();
  if (std::optional<AttentionMatch> m = matchAttention(node)) {
    Value qv = values.lookup(m->q), kv = values.lookup(m->k),
          vv = values.lookup(m->v);
    if (qv && kv && vv) {
      Results out = attention(qv, kv, vv, m->scale, loc);
      if (failed(out))
        return failure();
      values[node.output(0)] = (*out)[0];
      return success();
    }
  }
  using Importer = Results (OnnxImporter::*)(const onnx::NodeProto &, Location);
  static const llvm::StringMap<Importer> importers = {
      {"MatMul", &OnnxImporter::importMatMul},
      {"Gemm", &OnnxImporter::importGemm},
      {"Add", &OnnxImporter::importBinary},
      {"Sub", &OnnxImporter::importBinary},
      {"Mul", &OnnxImporter::importBinary},
      {"Div", &OnnxImporter::importBinary},
      {"Relu", &OnnxImporter::importUnary},
      {"Sigmoid", &OnnxImporter::importUnary},
      {"Tanh", &OnnxImporter::importUnary},
      {"Exp", &OnnxImporter::importUnary},
      {"Neg", &OnnxImporter::importUnary},
      {"Sqrt", &OnnxImporter::importUnary},
      {"Gather", &OnnxImporter::importGather},
      {"Concat", &OnnxImporter::importConcat},
      {"Transpose", &OnnxImporter::importTranspose},
      {"Cast", &OnnxImporter::importCast},
      {"Softmax", &OnnxImporter::importSoftmax},
      {"Gelu", &OnnxImporter::importGelu},
      {"Reshape", &OnnxImporter::importReshape},
      {"Flatten", &OnnxImporter::importFlatten},
      {"Squeeze", &OnnxImporter::importSqueeze},
      {"Unsqueeze", &OnnxImporter::importUnsqueeze},
      {"LayerNormalization", &OnnxImporter::importLayerNorm},
      {"ReduceSum", &OnnxImporter::importReduce},
      {"ReduceMean", &OnnxImporter::importReduce},
      {"ReduceMax", &OnnxImporter::importReduce},
      {"ReduceMin", &OnnxImporter::importReduce},
      {"Attention", &OnnxImporter::importAttention},
      {"Constant", &OnnxImporter::importConstant},
      {"Shape", &OnnxImporter::importShape},
      {"Slice", &OnnxImporter::importSlice},
  };
  auto it = importers.find(kind);
  if (it == importers.end())
    return error(loc) << "ONNX op '" << kind << "' is not imported yet";
  Results results = (this->*(it->second))(node, loc);
  if (failed(results))
    return failure();
  if (static_cast<int>(results->size()) < node.output_size())
    return error(loc) << "'" << kind << "' has " << node.output_size()
                          << " outputs; " << results->size() << " imported";
  for (auto [name, value] : llvm::zip(node.output(), *results))
    if (!name.empty())
      values[name] = value;
  return success();
}

OwningOpRef<ModuleOp> OnnxImporter::importModel(const onnx::ModelProto &model) {
  const onnx::GraphProto &graph = model.graph();
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc());
  b.setInsertionPointToEnd(module->getBody());
  // Arguments: the graph's inputs that no initializer gives.
  llvm::StringSet<> initialized;
  for (const onnx::TensorProto &t : graph.initializer())
    initialized.insert(t.name());
  SmallVector<Type> argTypes, resultTypes;
  SmallVector<std::string> argNames;
  for (const onnx::ValueInfoProto &in : graph.input()) {
    if (initialized.contains(in.name()))
      continue;
    FailureOr<RankedTensorType> type =
        tensorType(in.type(), NameLoc::get(StringAttr::get(ctx, in.name()), fileLoc()));
    if (failed(type))
      return nullptr;
    // The candidate -> request index is int32 in Sparcast (sc.gather_rows,
    // the kernels, the runtime's index checks): an int64 index input (as
    // torch exports it) becomes an int32 argument.
    auto lineage = options.lineage.find(in.name());
    if (lineage != options.lineage.end() &&
        lineage->second == LineageKind::index &&
        type->getElementType().isInteger(64))
      *type = RankedTensorType::get(type->getShape(), b.getI32Type());
    argTypes.push_back(*type);
    argNames.push_back(in.name());
  }
  for (const onnx::ValueInfoProto &out : graph.output()) {
    FailureOr<RankedTensorType> type =
        tensorType(out.type(), NameLoc::get(StringAttr::get(ctx, out.name()), fileLoc()));
    if (failed(type))
      return nullptr;
    resultTypes.push_back(*type);
  }
  for (const auto &entry : options.lineage)
    if (!llvm::is_contained(argNames, entry.getKey().str())) {
      emitError(fileLoc()) << "--onnx-lineage names '" << entry.getKey()
                           << "', which is no input of the graph";
      return nullptr;
    }
  std::string name = !options.entryName.empty() ? options.entryName
                     : !graph.name().empty()    ? graph.name()
                                                : "model";
  auto func = func::FuncOp::create(b, fileLoc(), name,
                                   b.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  for (auto [i, argName] : llvm::enumerate(argNames)) {
    values[argName] = entry->getArgument(i);
    auto it = options.lineage.find(argName);
    if (it != options.lineage.end())
      func.setArgAttr(i, ScDialect::getLineageAttrName(),
                      LineageKindAttr::get(ctx, it->second));
  }
  b.setInsertionPointToStart(entry);
  for (const onnx::TensorProto &t : graph.initializer()) {
    FailureOr<Value> v =
        constant(t, NameLoc::get(StringAttr::get(ctx, t.name()), fileLoc()));
    if (failed(v))
      return nullptr;
    values[t.name()] = *v;
  }
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &out : node.output())
      producer[out] = &node;
    for (const std::string &in : node.input())
      ++readers[in];
  }
  for (const onnx::ValueInfoProto &out : graph.output())
    ++readers[out.name()];
  // The attention patterns' inner nodes are imported with their last
  // MatMul (as one sc.attention).
  for (const onnx::NodeProto &node : graph.node())
    if (std::optional<AttentionMatch> m = matchAttention(node))
      covered.insert(m->covered.begin(), m->covered.end());
  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (failed(importNode(node, nodeLoc(node, index))))
      return nullptr;
  currentNode.clear();
  SmallVector<Value> results;
  for (auto [out, type] : llvm::zip(graph.output(), resultTypes)) {
    auto it = values.find(out.name());
    if (it == values.end()) {
      emitError(fileLoc()) << "graph output '" << out.name()
                           << "' is computed by no node";
      return nullptr;
    }
    Value v = it->second;
    if (v.getType() != type &&
        !tensor::CastOp::areCastCompatible(v.getType(), type)) {
      emitError(fileLoc()) << "graph output '" << out.name() << "' is "
                           << v.getType() << ", declared " << type;
      return nullptr;
    }
    // The function returns what is known of each dim: the declared size,
    // else the imported value's (an exporter leaves dims it could not
    // infer unnamed); a cast where the declared one is more precise.
    auto declared = cast<RankedTensorType>(type);
    auto got = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < declared.getRank(); ++d)
      shape.push_back(declared.isDynamicDim(d) ? got.getDimSize(d)
                                               : declared.getDimSize(d));
    type = RankedTensorType::get(shape, declared.getElementType());
    if (v.getType() != type)
      v = tensor::CastOp::create(b, fileLoc(), type, v);
    results.push_back(v);
  }
  func.setFunctionType(b.getFunctionType(argTypes, resultTypes));
  func::ReturnOp::create(b, fileLoc(), results);
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> mlir::sc::importOnnxModel(StringRef contents,
                                                StringRef fileName,
                                                MLIRContext *context,
                                                const OnnxImportOptions &options) {
  context->loadDialect<arith::ArithDialect, func::FuncDialect,
                       linalg::LinalgDialect, math::MathDialect, ScDialect,
                       tensor::TensorDialect>();
  onnx::ModelProto model;
  std::string why;
  if (!detail::parseOnnxModel(contents, model, why)) {
    emitError(FileLineColLoc::get(context, fileName, 0, 0))
        << "not an ONNX model (neither a serialized ModelProto nor the "
           "textual syntax): "
        << why;
    return nullptr;
  }
  OnnxImporter importer(context, fileName, options);
  return importer.importModel(model);
}
