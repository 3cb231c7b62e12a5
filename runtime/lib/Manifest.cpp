//===- Manifest.cpp - artifact manifest model and argument checks ---------===//

#include "Manifest.h"
#include "sparcast/Support/ManifestSchema.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <set>
#include <unordered_set>

using namespace sparcast::rt;
using Value = nlohmann::json;
using namespace sparcast::manifest;

int64_t DimExpr::evaluate(const DimBindings &dims) const {
  int64_t value = constant;
  if (isSymbolic()) {
    auto it = dims.find(symbol);
    int64_t scaled;
    if (it == dims.end() ||
        __builtin_mul_overflow(factor, it->second, &scaled) ||
        __builtin_add_overflow(scaled, divisor - 1, &scaled))
      return -1;
    value = scaled / divisor;
  }
  for (const DimExpr &term : plus) {
    int64_t t = term.evaluate(dims);
    if (t < 0 || __builtin_add_overflow(value, t, &value))
      return -1;
  }
  return value;
}

bool LaunchSpec::Condition::holds(const DimBindings &dims) const {
  int64_t l = lhs.evaluate(dims), r = rhs.evaluate(dims);
  return atLeast ? l >= r : l < r;
}

std::string DimExpr::str() const {
  std::string s = std::to_string(constant);
  if (isSymbolic()) {
    s = symbol;
    if (factor != 1)
      s += "*" + std::to_string(factor);
    if (divisor != 1)
      s += "/" + std::to_string(divisor);
  }
  for (const DimExpr &term : plus)
    s += "+" + term.str();
  return s;
}

uint64_t sparcast::rt::tensorMapEnd(int64_t offsetBytes,
                                    const std::vector<uint64_t> &dims,
                                    const std::vector<uint64_t> &strides,
                                    uint64_t elementBytes) {
  uint64_t end = static_cast<uint64_t>(offsetBytes) + elementBytes;
  for (size_t i = 0; i < dims.size(); ++i)
    end += (dims[i] - 1) * (i == 0 ? elementBytes : strides[i - 1]);
  return end;
}

size_t sparcast::rt::dtypeBytes(scDType dtype) {
  if (dtype == SC_U8)
    return 1;
  return (dtype == SC_F16 || dtype == SC_BF16) ? 2 : 4;
}

const char *sparcast::rt::dtypeName(scDType dtype) {
  switch (dtype) {
  case SC_F32: return "f32";
  case SC_F16: return "f16";
  case SC_BF16: return "bf16";
  case SC_I32: return "i32";
  case SC_U8: return "u8";
  }
  return "?";
}

const TensorSpec *EntrySpec::findTensor(const std::string &n) const {
  for (const TensorSpec &t : args)
    if (t.name == n)
      return &t;
  for (const TensorSpec &t : results)
    if (t.name == n)
      return &t;
  for (const TensorSpec &t : workspace)
    if (t.name == n)
      return &t;
  for (const TensorSpec &t : views)
    if (t.name == n)
      return &t;
  return nullptr;
}

bool sparcast::rt::tensorBytes(scDType dtype, const int64_t *shape,
                               int32_t rank, uint64_t &bytes) {
  bytes = dtypeBytes(dtype);
  for (int32_t i = 0; i < rank; ++i)
    if (shape[i] < 0 ||
        __builtin_mul_overflow(bytes, static_cast<uint64_t>(shape[i]), &bytes))
      return false;
  return true;
}

WorkspaceLayout sparcast::rt::layoutWorkspace(const EntrySpec &entry,
                                              const DimBindings &dims) {
  WorkspaceLayout layout;
  for (const TensorSpec &t : entry.workspace) {
    std::vector<int64_t> shape;
    for (const DimExpr &d : t.shape)
      shape.push_back(d.evaluate(dims));
    uint64_t bytes, start;
    if (!tensorBytes(t.dtype, shape.data(), static_cast<int32_t>(shape.size()),
                     bytes) ||
        __builtin_add_overflow(layout.bytes, uint64_t(255), &start) ||
        __builtin_add_overflow(start / 256 * 256, bytes, &layout.bytes)) {
      layout.overflow = true;
      return layout;
    }
    layout.offsets.push_back(start / 256 * 256);
  }
  return layout;
}

const EntrySpec *Manifest::findEntry(const std::string &n) const {
  for (const EntrySpec &e : entries)
    if (e.name == n)
      return &e;
  return nullptr;
}

const ModuleSpec *Manifest::findModule(const std::string &n) const {
  for (const ModuleSpec &m : modules)
    if (m.name == n)
      return &m;
  return nullptr;
}

namespace {
/// Reads JSON into the manifest model; every error names its path.
/// One term of a dim: INTEGER, SYMBOL, SYMBOL*FACTOR or
/// SYMBOL[*FACTOR]/DIVISOR.
bool parseDimTerm(const std::string &s, DimExpr &out) {
  if (s.empty())
    return false;
  if (std::all_of(s.begin(), s.end(), ::isdigit)) {
    out.constant = std::strtoll(s.c_str(), nullptr, 10);
    return true;
  }
  size_t slash = s.find('/');
  std::string head = s.substr(0, slash);
  if (slash != std::string::npos) {
    char *end = nullptr;
    out.divisor = std::strtoll(s.c_str() + slash + 1, &end, 10);
    if (!end || *end != '\0' || out.divisor <= 0 || slash + 1 == s.size())
      return false;
  }
  size_t star = head.find('*');
  out.symbol = head.substr(0, star);
  if (star != std::string::npos) {
    char *end = nullptr;
    out.factor = std::strtoll(head.c_str() + star + 1, &end, 10);
    if (!end || *end != '\0' || out.factor <= 0 || star + 1 == head.size())
      return false;
  }
  return !out.symbol.empty();
}

/// `key` of the object `obj`, or null (also when `obj` is no object).
const Value *get(const Value &obj, const std::string &key) {
  if (!obj.is_object())
    return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

const std::string &str(const Value &v) {
  return v.get_ref<const std::string &>();
}

struct Reader {
  std::string &error;

  bool fail(const std::string &path, const std::string &what) {
    error = path + ": " + what;
    return false;
  }
  bool getString(const Value &obj, const std::string &key,
                 const std::string &path, std::string &out,
                 bool required = true) {
    const Value *v = get(obj, key);
    if (!v)
      return !required || fail(path, "missing \"" + key + "\"");
    if (!v->is_string())
      return fail(path + "." + key, "expected a string");
    out = str(*v);
    return true;
  }
  bool getInt(const Value &v, const std::string &path, int64_t &out) {
    if (!v.is_number_integer())
      return fail(path, "expected an integer");
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
      return fail(path, "integer out of range");
    out = v.get<int64_t>();
    return true;
  }
  const Value *getArray(const Value &obj, const std::string &key,
                        const std::string &path) {
    const Value *v = get(obj, key);
    if (!v) {
      fail(path, "missing \"" + key + "\"");
      return nullptr;
    }
    if (!v->is_array()) {
      fail(path + "." + key, "expected an array");
      return nullptr;
    }
    return v;
  }
  bool getDim(const Value &v, const std::string &path, DimExpr &out) {
    out = DimExpr();
    if (v.is_number())
      return getInt(v, path, out.constant);
    if (!v.is_string() || str(v).empty())
      return fail(path, "expected an integer or a dim symbol");
    // One term, or a sum of terms: the first in `out`, the others in
    // `out.plus`.
    const std::string &whole = str(v);
    for (size_t start = 0;;) {
      size_t cut = whole.find('+', start);
      DimExpr term;
      if (!parseDimTerm(whole.substr(start, cut - start), term))
        return fail(path, "expected SYMBOL, SYMBOL*FACTOR or SYMBOL[*FACTOR]/DIVISOR, "
                          "or a sum of such terms, got \"" + whole + "\"");
      if (start == 0)
        out = term;
      else
        out.plus.push_back(term);
      if (cut == std::string::npos)
        return true;
      start = cut + 1;
    }
  }
  bool getDims(const Value &obj, const std::string &key,
               const std::string &path, std::vector<DimExpr> &out) {
    const Value *arr = getArray(obj, key, path);
    if (!arr)
      return false;
    out.clear();
    for (size_t i = 0; i < arr->size(); ++i) {
      DimExpr d;
      if (!getDim((*arr)[i], path + "." + key + "[" + std::to_string(i) + "]",
                  d))
        return false;
      out.push_back(d);
    }
    return true;
  }
  bool getDType(const Value &obj, const std::string &path, scDType &out) {
    std::string s;
    if (!getString(obj, key::kDtype, path, s))
      return false;
    if (s == "f32") out = SC_F32;
    else if (s == "f16") out = SC_F16;
    else if (s == "bf16") out = SC_BF16;
    else if (s == "i32") out = SC_I32;
    else if (s == "u8") out = SC_U8;
    else return fail(path + ".dtype", "unknown dtype \"" + s + "\"");
    return true;
  }
  bool getTensors(const Value &obj, const std::string &key,
                  const std::string &path, std::vector<TensorSpec> &out) {
    const Value *arr = getArray(obj, key, path);
    if (!arr)
      return false;
    for (size_t i = 0; i < arr->size(); ++i) {
      std::string p = path + "." + key + "[" + std::to_string(i) + "]";
      const Value &t = (*arr)[i];
      TensorSpec spec;
      if (!t.is_object())
        return fail(p, "expected an object");
      if (!getString(t, key::kName, p, spec.name) || !getDType(t, p, spec.dtype) ||
          !getDims(t, key::kShape, p, spec.shape) ||
          !getString(t, key::kIndexInto, p, spec.indexInto, /*required=*/false))
        return false;
      if (const Value *z = get(t, key::kZeroInit)) {
        if (!z->is_boolean())
          return fail(p + ".zero_init", "expected true or false");
        spec.zeroInit = z->get<bool>();
      }
      if (const Value *e = get(t, key::kMayBeEmpty)) {
        if (!e->is_boolean())
          return fail(p + ".may_be_empty", "expected true or false");
        spec.mayBeEmpty = e->get<bool>();
      }
      if (!getString(t, key::kOf, p, spec.viewOf, /*required=*/false))
        return false;
      if (spec.viewOf.empty() != (key != key::kViews))
        return fail(p, key == key::kViews ? "a view names its tensor (\"of\")"
                                          : "only views name a tensor (\"of\")");
      if (spec.shape.size() > SC_MAX_RANK)
        return fail(p, "rank above " + std::to_string(SC_MAX_RANK));
      out.push_back(spec);
    }
    return true;
  }
  bool getParam(const Value &v, const std::string &p, ParamSpec &out) {
    std::string kind;
    if (!v.is_object() || !getString(v, key::kKind, p, kind))
      return fail(p, "expected an object with a \"kind\"");
    if (kind == param::kMemref) {
      out.kind = ParamSpec::Kind::Memref;
      return getString(v, key::kTensor, p, out.tensor);
    }
    if (kind == param::kDim) {
      out.kind = ParamSpec::Kind::Dim;
      const Value *d = get(v, key::kDim);
      return d ? getDim(*d, p + ".dim", out.dim) : fail(p, "missing \"dim\"");
    }
    if (kind == param::kLogLinearTables) {
      out.kind = ParamSpec::Kind::LogLinearTables;
      const Value *q = get(v, key::kQueryLen), *k = get(v, key::kKeyLen);
      if (!q || !k)
        return fail(p, "missing \"query_len\" or \"key_len\"");
      if (!getDim(*q, p + ".query_len", out.queryLen) ||
          !getDim(*k, p + ".key_len", out.keyLen))
        return false;
      for (auto [key, field] : {std::pair<const char *, int64_t *>{key::kBlock, &out.maskBlock},
                                {key::kLocalWidth, &out.localWidth},
                                {key::kAnchors, &out.anchors},
                                {key::kCausal, &out.causal}}) {
        const Value *x = get(v, key);
        if (!x)
          return fail(p, std::string("missing integer \"") + key + "\"");
        if (!getInt(*x, p + "." + key, *field))
          return false;
      }
      if (out.maskBlock <= 0 || out.localWidth < 0)
        return fail(p, "log_linear_tables needs block > 0 and local_width >= 0");
      return true;
    }
    if (kind != param::kTma)
      return fail(p + ".kind", "unknown parameter kind \"" + kind + "\"");
    out.kind = ParamSpec::Kind::Tma;
    if (!getString(v, key::kTensor, p, out.tensor) ||
        !getDims(v, key::kDims, p, out.dims) ||
        !getDims(v, key::kStrides, p, out.stridesBytes))
      return false;
    const Value *box = getArray(v, key::kBox, p);
    if (!box)
      return false;
    for (const Value &b : *box) {
      int64_t x;
      if (!getInt(b, p + ".box", x))
        return false;
      if (x < 1 || x > 256)
        return fail(p + ".box", "box sizes must lie in [1, 256], got " +
                                    std::to_string(x));
      out.box.push_back(x);
    }
    const Value *swz = get(v, key::kSwizzle);
    if (!swz)
      return fail(p, "missing integer \"swizzle\"");
    if (!getInt(*swz, p + ".swizzle", out.swizzleBytes))
      return false;
    if (out.swizzleBytes != 0 && out.swizzleBytes != 32 &&
        out.swizzleBytes != 64 && out.swizzleBytes != 128)
      return fail(p + ".swizzle", "expected 0, 32, 64 or 128, got " +
                                      std::to_string(out.swizzleBytes));
    if (out.dims.empty() || out.dims.size() > 5 ||
        out.box.size() != out.dims.size() ||
        out.stridesBytes.size() + 1 != out.dims.size())
      return fail(p, "tma needs 1-5 dims, as many box sizes, one stride less");
    if (const Value *offset = get(v, key::kOffset)) {
      if (!getInt(*offset, p + ".offset", out.offsetBytes))
        return false;
      if (out.offsetBytes < 0 || out.offsetBytes % 16 != 0)
        return fail(p + ".offset", "expected a non-negative multiple of 16, got " +
                                       std::to_string(out.offsetBytes));
    }
    return true;
  }
  bool getLaunch(const Value &v, const std::string &p, LaunchSpec &out) {
    if (!getString(v, key::kModule, p, out.module) ||
        !getString(v, key::kKernel, p, out.kernel))
      return false;
    std::vector<DimExpr> grid;
    if (!getDims(v, key::kGrid, p, grid))
      return false;
    if (grid.size() != 3)
      return fail(p + ".grid", "expected 3 sizes");
    for (int i = 0; i < 3; ++i)
      out.grid[i] = grid[i];
    const Value *block = getArray(v, key::kBlock, p);
    if (!block || block->size() != 3)
      return fail(p + ".block", "expected 3 sizes");
    for (int i = 0; i < 3; ++i) {
      if (!getInt((*block)[i], p + ".block", out.block[i]))
        return false;
      if (out.block[i] < 1 || out.block[i] > 1024)
        return fail(p + ".block", "sizes must lie in [1, 1024], got " +
                                      std::to_string(out.block[i]));
    }
    if (out.block[0] * out.block[1] * out.block[2] > 1024)
      return fail(p + ".block", "more than 1024 threads");
    const Value *smem = get(v, key::kSmem);
    if (!smem)
      return fail(p, "missing integer \"smem\"");
    if (!getInt(*smem, p + ".smem", out.sharedBytes))
      return false;
    // 227 KB: the most a CTA can ask for on any chip the compiler targets.
    if (out.sharedBytes < 0 || out.sharedBytes > 227 * 1024)
      return fail(p + ".smem", "expected 0 to 232448 bytes, got " +
                                   std::to_string(out.sharedBytes));
    const Value *params = getArray(v, key::kParams, p);
    if (!params)
      return false;
    for (size_t i = 0; i < params->size(); ++i) {
      ParamSpec param;
      if (!getParam((*params)[i], p + ".params[" + std::to_string(i) + "]",
                    param))
        return false;
      out.params.push_back(param);
    }
    if (const Value *atMost = get(v, key::kAtMost)) {
      if (!atMost->is_array())
        return fail(p + ".at_most", "expected an array of [symbol, symbol]");
      for (const Value &pair : *atMost) {
        if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string() ||
            !pair[1].is_string() || str(pair[0]).empty() ||
            str(pair[1]).empty())
          return fail(p + ".at_most", "expected an array of [symbol, symbol]");
        out.atMost.push_back({str(pair[0]), str(pair[1])});
      }
    }
    // `when`: one comparison or a list of them, all of which must hold;
    // `unless`: a list, not all of which may hold.
    const Value *when = get(v, key::kWhen), *unless = get(v, key::kUnless);
    if (when && unless)
      return fail(p, "a launch has \"when\" or \"unless\", not both");
    if (unless && !unless->is_array())
      return fail(p + ".unless", "expected a list of comparisons");
    out.unless = unless != nullptr;
    const Value *conditions = unless ? unless : when;
    std::string at = p + (unless ? ".unless" : ".when");
    if (conditions && conditions->is_array()) {
      if (conditions->empty())
        return fail(at, "expected at least one comparison");
      for (size_t i = 0; i < conditions->size(); ++i)
        if (!getCondition((*conditions)[i],
                          at + "[" + std::to_string(i) + "]", out.when))
          return false;
    } else if (conditions && !getCondition(*conditions, at, out.when)) {
      return false;
    }
    if (const Value *tune = get(v, key::kTune)) {
      int64_t group = -1, choice = -1;
      const Value *g = get(*tune, key::kGroup), *c = get(*tune, key::kChoice);
      if (!g || !c || !getInt(*g, p + ".tune.group", group) ||
          !getInt(*c, p + ".tune.choice", choice))
        return fail(p + ".tune", "expected {\"group\": int, \"choice\": int}");
      if (group < 0 || group > 1023 || choice < 0 || choice > 15)
        return fail(p + ".tune", "group in [0, 1023] and choice in [0, 15]");
      out.tuneGroup = static_cast<int>(group);
      out.tuneChoice = static_cast<int>(choice);
      if (const Value *fallback = get(*tune, key::kFallback)) {
        if (!fallback->is_boolean())
          return fail(p + ".tune.fallback", "expected true or false");
        out.tuneFallback = fallback->get<bool>();
      }
    }
    return true;
  }

  bool getCondition(const Value &v, const std::string &p,
                    std::vector<LaunchSpec::Condition> &out) {
    LaunchSpec::Condition c;
    std::string cmp;
    const Value *lhs = get(v, key::kLhs), *rhs = get(v, key::kRhs);
    if (!lhs || !rhs || !getString(v, key::kCmp, p, cmp) ||
        !getDim(*lhs, p + ".lhs", c.lhs) || !getDim(*rhs, p + ".rhs", c.rhs))
      return fail(p, "expected {\"lhs\": dim, \"cmp\": \">=\" or "
                     "\"<\", \"rhs\": dim}");
    if (cmp != ">=" && cmp != "<")
      return fail(p + ".cmp", "expected \">=\" or \"<\", got \"" + cmp + "\"");
    c.atLeast = cmp == ">=";
    out.push_back(c);
    return true;
  }
};

/// A first pass over the text with nlohmann's SAX parser: syntax errors
/// with their offset, and what the DOM parser would accept silently
/// refused: nesting deeper than a manifest has, and repeated keys (the DOM
/// keeps the last; a manifest is written once, so a repeat is corruption).
class SyntaxCheck : public nlohmann::json_sax<Value> {
public:
  explicit SyntaxCheck(std::string &error) : error(error) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override {
    keys.emplace_back();
    return deeper();
  }
  bool key(string_t &k) override {
    if (keys.back().insert(k).second)
      return true;
    error = "key \"" + k + "\" repeated in one object";
    return false;
  }
  bool end_object() override {
    keys.pop_back();
    --depth;
    return true;
  }
  bool start_array(std::size_t) override { return deeper(); }
  bool end_array() override {
    --depth;
    return true;
  }
  bool parse_error(std::size_t position, const std::string &,
                   const nlohmann::detail::exception &e) override {
    // e.what(): "[json.exception.parse_error.101] parse error at line 1,
    // column 5: syntax error while parsing ..."; keep what follows the tag.
    std::string what = e.what();
    size_t tag = what.find("] ");
    error = (tag == std::string::npos ? what : what.substr(tag + 2)) +
            " (offset " + std::to_string(position) + ")";
    return false;
  }

private:
  static constexpr int kMaxDepth = 64;
  std::string &error;
  int depth = 0;
  std::vector<std::unordered_set<std::string>> keys;

  bool deeper() {
    if (++depth <= kMaxDepth)
      return true;
    error = "nesting deeper than " + std::to_string(kMaxDepth);
    return false;
  }
};

bool checkSyntax(const std::string &text, std::string &error) {
  SyntaxCheck check(error);
  error.clear();
  bool ok = Value::sax_parse(text, &check, nlohmann::json::input_format_t::json,
                             /*strict=*/true, /*ignore_comments=*/false);
  if (!ok && error.empty())
    error = "unreadable JSON";
  return ok;
}

/// A kernel file is named by a plain name inside the artifact folder: no
/// path separators, no "." or "..".
bool isPlainFileName(const std::string &name) {
  return !name.empty() && name != "." && name != ".." &&
         name.find('/') == std::string::npos &&
         name.find('\\') == std::string::npos &&
         name.find('\0') == std::string::npos;
}

/// Every symbol used anywhere must be bound by an argument's shape.
bool checkSymbols(const EntrySpec &e, std::string &error) {
  std::set<std::string> bound;
  for (const TensorSpec &t : e.args)
    for (const DimExpr &d : t.shape)
      if (d.isSymbolic())
        bound.insert(d.symbol);
  // SMS: the number of SMs of the device, bound at launch (persistent grids).
  bound.insert("SMS");
  auto checkTerm = [&](const DimExpr &d, const std::string &where) {
    if (d.isSymbolic() && !bound.count(d.symbol)) {
      error = "entry " + e.name + ": " + where + " uses dim \"" + d.symbol +
              "\" that no argument shape binds";
      return false;
    }
    return true;
  };
  // A sum's terms are plain terms (the reader flattens it).
  auto check = [&](const DimExpr &d, const std::string &where) {
    return checkTerm(d, where) &&
           std::all_of(d.plus.begin(), d.plus.end(),
                       [&](const DimExpr &t) { return checkTerm(t, where); });
  };
  for (const TensorSpec &t : e.results)
    for (const DimExpr &d : t.shape)
      if (!check(d, "result " + t.name))
        return false;
  for (const TensorSpec &t : e.workspace)
    for (const DimExpr &d : t.shape)
      if (!check(d, "workspace " + t.name))
        return false;
  // Tensor names are unique; a view reads an argument's, a result's or a
  // workspace tensor's buffer of its element type.
  std::set<std::string> names;
  for (const std::vector<TensorSpec> *list :
       {&e.args, &e.results, &e.workspace, &e.views})
    for (const TensorSpec &t : *list)
      if (!names.insert(t.name).second) {
        error = "entry " + e.name + ": tensor \"" + t.name + "\" named twice";
        return false;
      }
  for (const TensorSpec &v : e.views) {
    const TensorSpec *of = e.findTensor(v.viewOf);
    if (!of || !of->viewOf.empty() || of->dtype != v.dtype) {
      error = "entry " + e.name + ": view " + v.name +
              " is not of an argument, result or workspace tensor of its "
              "dtype (\"" + v.viewOf + "\")";
      return false;
    }
    for (const DimExpr &d : v.shape)
      if (!check(d, "view " + v.name))
        return false;
  }
  for (const TensorSpec &t : e.args)
    if (!t.indexInto.empty() && !bound.count(t.indexInto)) {
      error = "entry " + e.name + ": index " + t.name + " points into \"" +
              t.indexInto + "\" that no argument shape binds";
      return false;
    }
  for (const LaunchSpec &l : e.launches) {
    for (const DimExpr &d : l.grid)
      if (!check(d, "kernel " + l.kernel + " grid"))
        return false;
    for (const LaunchSpec::Condition &c : l.when)
      if (!check(c.lhs, "kernel " + l.kernel + " when") ||
          !check(c.rhs, "kernel " + l.kernel + " when"))
        return false;
    for (const auto &[a, b] : l.atMost) {
      DimExpr da, db;
      da.symbol = a;
      db.symbol = b;
      if (!check(da, "kernel " + l.kernel + " at_most") ||
          !check(db, "kernel " + l.kernel + " at_most"))
        return false;
    }
    for (const ParamSpec &p : l.params) {
      bool usesTensor = p.kind == ParamSpec::Kind::Tma ||
                        p.kind == ParamSpec::Kind::Memref;
      if (usesTensor && !e.findTensor(p.tensor)) {
        error = "entry " + e.name + ": kernel " + l.kernel +
                " refers to unknown tensor \"" + p.tensor + "\"";
        return false;
      }
      for (const DimExpr &d : p.dims)
        if (!check(d, "kernel " + l.kernel))
          return false;
      for (const DimExpr &d : p.stridesBytes)
        if (!check(d, "kernel " + l.kernel))
          return false;
      if (p.kind == ParamSpec::Kind::Dim && !check(p.dim, "kernel " + l.kernel))
        return false;
      if (p.kind == ParamSpec::Kind::LogLinearTables &&
          (!check(p.queryLen, "kernel " + l.kernel) ||
           !check(p.keyLen, "kernel " + l.kernel)))
        return false;
    }
  }
  return true;
}
} // namespace

bool sparcast::rt::parseManifest(const std::string &text, Manifest &out,
                                 std::string &error) {
  out = Manifest(); // what was read before is replaced, not added to
  if (!checkSyntax(text, error)) {
    error = "manifest.json: " + error;
    return false;
  }
  Value root = Value::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded())
    return (error = "manifest.json: unreadable JSON", false);
  Reader r{error};
  if (!root.is_object())
    return r.fail("manifest.json", "expected an object");
  std::string format;
  if (!r.getString(root, key::kFormat, "manifest", format))
    return false;
  // Format 2 passes tensor maps by value (format 1 artifacts took device
  // pointers to them: rebuild those with this sparcast-aot).
  if (format != kFormatVersion)
    return r.fail("manifest.format", "unsupported format \"" + format +
                                         "\" (this runtime reads "
                                         "sparcast-artifact-2)");
  const Value *modules = r.getArray(root, key::kModules, "manifest");
  if (!modules)
    return false;
  for (size_t i = 0; i < modules->size(); ++i) {
    std::string p = "manifest.modules[" + std::to_string(i) + "]";
    const Value &m = (*modules)[i];
    ModuleSpec spec;
    if (!m.is_object() || !r.getString(m, key::kName, p, spec.name) ||
        !r.getString(m, key::kPtx, p, spec.ptxFile) ||
        !r.getString(m, key::kCubin, p, spec.cubinFile, false) ||
        !r.getString(m, key::kChip, p, spec.chip, false))
      return error.empty() ? r.fail(p, "expected an object") : false;
    for (const std::string *file : {&spec.ptxFile, &spec.cubinFile})
      if ((!file->empty() || file == &spec.ptxFile) && !isPlainFileName(*file))
        return r.fail(p, "kernel file \"" + *file +
                             "\" is not a plain file name in the artifact "
                             "folder");
    if (out.findModule(spec.name))
      return r.fail(p, "module \"" + spec.name + "\" named twice");
    out.modules.push_back(spec);
  }
  const Value *entries = r.getArray(root, key::kEntries, "manifest");
  if (!entries)
    return false;
  for (size_t i = 0; i < entries->size(); ++i) {
    std::string p = "manifest.entries[" + std::to_string(i) + "]";
    const Value &e = (*entries)[i];
    EntrySpec spec;
    if (!e.is_object())
      return r.fail(p, "expected an object");
    if (!r.getString(e, key::kName, p, spec.name) ||
        !r.getTensors(e, key::kArgs, p, spec.args) ||
        !r.getTensors(e, key::kResults, p, spec.results))
      return false;
    if (get(e, key::kWorkspace) && !r.getTensors(e, key::kWorkspace, p, spec.workspace))
      return false;
    if (get(e, key::kViews) && !r.getTensors(e, key::kViews, p, spec.views))
      return false;
    const Value *launches = r.getArray(e, key::kLaunches, p);
    if (!launches)
      return false;
    for (size_t j = 0; j < launches->size(); ++j) {
      LaunchSpec launch;
      std::string lp = p + ".launches[" + std::to_string(j) + "]";
      if (!(*launches)[j].is_object())
        return r.fail(lp, "expected an object");
      if (!r.getLaunch((*launches)[j], lp, launch))
        return false;
      if (!out.findModule(launch.module))
        return r.fail(lp, "unknown module \"" + launch.module + "\"");
      spec.launches.push_back(launch);
    }
    if (!checkSymbols(spec, error))
      return false;
    if (out.findEntry(spec.name))
      return r.fail(p, "entry \"" + spec.name + "\" named twice");
    out.entries.push_back(spec);
  }
  return true;
}

namespace {
bool checkTensor(const TensorSpec &spec, const scTensor &t,
                 const char *role, DimBindings &dims, std::string &error) {
  // The messages name the tensor; they are built only on failure (this
  // runs on every call).
  auto what = [&] { return std::string(role) + " '" + spec.name + "'"; };
  // A caller's dtype may hold any integer: read it as one, not as the enum.
  int32_t dtype;
  static_assert(sizeof(dtype) == sizeof(t.dtype), "scDType is 32-bit");
  std::memcpy(&dtype, &t.dtype, sizeof(dtype));
  if (dtype != spec.dtype) {
    error = what() + ": expected dtype " + dtypeName(spec.dtype) + ", got " +
            (dtype >= SC_F32 && dtype <= SC_U8
                 ? dtypeName(static_cast<scDType>(dtype))
                 : "an unknown dtype (" + std::to_string(dtype) + ")");
    return false;
  }
  if (t.rank != static_cast<int32_t>(spec.shape.size())) {
    error = what() + ": expected rank " + std::to_string(spec.shape.size()) +
            ", got " + std::to_string(t.rank);
    return false;
  }
  for (size_t d = 0; d < spec.shape.size(); ++d) {
    const DimExpr &want = spec.shape[d];
    int64_t have = t.shape[d];
    auto at = [&] { return what() + " dim " + std::to_string(d); };
    if (have < 0 || (have == 0 && !(d == 0 && spec.mayBeEmpty))) {
      error = at() + ": expected a positive size, got " + std::to_string(have);
      return false;
    }
    if (!want.isSymbolic()) {
      if (have != want.constant) {
        error = at() + ": expected " + std::to_string(want.constant) +
                ", got " + std::to_string(have);
        return false;
      }
      continue;
    }
    if (want.divisor != 1 || !want.plus.empty()) {
      error = at() + ": a tensor dim cannot be " + want.str();
      return false;
    }
    if (have % want.factor != 0) {
      error = at() + ": expected a multiple of " + std::to_string(want.factor) +
              " (" + want.str() + "), got " + std::to_string(have);
      return false;
    }
    int64_t value = have / want.factor;
    auto [it, inserted] = dims.emplace(want.symbol, value);
    if (!inserted && it->second != value) {
      error = at() + ": " + want.str() + " = " + std::to_string(have) +
              " but an earlier tensor has " + want.symbol + " = " +
              std::to_string(it->second);
      return false;
    }
  }
  uint64_t bytes;
  if (!tensorBytes(spec.dtype, t.shape, t.rank, bytes)) {
    error = what() + ": its size in bytes overflows 64 bits";
    return false;
  }
  // A tensor without elements may have no data (nothing reads it).
  if (!t.data && bytes != 0) {
    error = what() + ": null data pointer";
    return false;
  }
  // TMA needs 16-byte aligned global addresses; ask it of every tensor.
  if (reinterpret_cast<uintptr_t>(t.data) % 16 != 0) {
    error = what() + ": data pointer must be 16-byte aligned";
    return false;
  }
  return true;
}
} // namespace

bool sparcast::rt::bindArguments(const EntrySpec &entry, const scTensor *args,
                                 int32_t numArgs, DimBindings &dims,
                                 std::string &error) {
  auto where = [&] { return "entry '" + entry.name + "': "; };
  if (numArgs != static_cast<int32_t>(entry.args.size())) {
    error = where() + "expected " + std::to_string(entry.args.size()) +
            " arguments, got " + std::to_string(numArgs);
    return false;
  }
  if (numArgs && !args) {
    error = where() + "null tensor array";
    return false;
  }
  dims.clear();
  for (int32_t i = 0; i < numArgs; ++i)
    if (!checkTensor(entry.args[i], args[i], "argument", dims, error)) {
      error = where() + error;
      return false;
    }
  return true;
}

bool sparcast::rt::resultShape(const EntrySpec &entry, const DimBindings &dims,
                               int32_t index, std::vector<int64_t> &shape,
                               std::string &error) {
  if (index < 0 || index >= static_cast<int32_t>(entry.results.size())) {
    error = "entry '" + entry.name + "' has no result #" + std::to_string(index);
    return false;
  }
  const TensorSpec &spec = entry.results[index];
  shape.clear();
  for (const DimExpr &d : spec.shape) {
    int64_t size = d.evaluate(dims);
    if (size < 1) {
      error = "entry '" + entry.name + "': result '" + spec.name + "' dim " +
              d.str() + " cannot be sized from the arguments";
      return false;
    }
    shape.push_back(size);
  }
  return true;
}

bool sparcast::rt::validateCall(const EntrySpec &entry, const scTensor *args,
                                int32_t numArgs, const scTensor *results,
                                int32_t numResults, DimBindings &dims,
                                std::string &error) {
  auto where = [&] { return "entry '" + entry.name + "': "; };
  if (numArgs != static_cast<int32_t>(entry.args.size()) ||
      numResults != static_cast<int32_t>(entry.results.size())) {
    error = where() + "expected " + std::to_string(entry.args.size()) +
            " arguments and " + std::to_string(entry.results.size()) +
            " results, got " + std::to_string(numArgs) + " and " +
            std::to_string(numResults);
    return false;
  }
  if (numResults && !results) {
    error = where() + "null tensor array";
    return false;
  }
  if (!bindArguments(entry, args, numArgs, dims, error))
    return false;
  for (int32_t i = 0; i < numResults; ++i)
    if (!checkTensor(entry.results[i], results[i], "result", dims, error)) {
      error = where() + error;
      return false;
    }
  // SMS is known at launch; any device has at least one. (Bound for the
  // grid checks only, without copying the bindings.)
  bool smsAdded = dims.emplace("SMS", 1).second;
  struct DropSms {
    DimBindings &dims;
    bool added;
    ~DropSms() {
      if (added)
        dims.erase("SMS");
    }
  } dropSms{dims, smsAdded};
  for (const LaunchSpec &l : entry.launches) {
    for (const LaunchSpec::Condition &c : l.when)
      if (c.lhs.evaluate(dims) < 0 || c.rhs.evaluate(dims) < 0) {
        error = where() + "kernel " + l.kernel + ": its launch condition " +
                c.lhs.str() + (c.atLeast ? " >= " : " < ") + c.rhs.str() +
                " overflows for these dims";
        return false;
      }
    if (!l.runsWith(dims))
      continue;
    for (const auto &[a, b] : l.atMost) {
      auto ia = dims.find(a), ib = dims.find(b);
      if (ia == dims.end() || ib == dims.end()) {
        error = where() + "kernel " + l.kernel + ": at_most names an unbound dim";
        return false;
      }
      if (ia->second > ib->second) {
        error = where() + "kernel " + l.kernel + " needs " + a + " <= " + b +
                ", got " + a + " = " + std::to_string(ia->second) + " and " +
                b + " = " + std::to_string(ib->second);
        return false;
      }
    }
    const int64_t limits[3] = {(int64_t(1) << 31) - 1, 65535, 65535};
    for (int i = 0; i < 3; ++i) {
      int64_t g = l.grid[i].evaluate(dims);
      if (g < 0) {
        error = where() + "kernel " + l.kernel + ": grid dim " +
                std::to_string(i) + " (" + l.grid[i].str() +
                ") overflows for these dims";
        return false;
      }
      if (g < 1 || g > limits[i]) {
        error = where() + "kernel " + l.kernel + " would need grid dim " +
                std::to_string(i) + " = " + std::to_string(g) +
                ", outside [1, " + std::to_string(limits[i]) + "]";
        return false;
      }
    }
  }
  if (layoutWorkspace(entry, dims).overflow) {
    error = where() + "its workspace size overflows 64 bits for these dims";
    return false;
  }
  return true;
}
