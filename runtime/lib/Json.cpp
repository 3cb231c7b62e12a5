//===- Json.cpp - a small JSON reader for manifests -----------------------===//

#include "Json.h"

#include <cctype>
#include <cstdlib>

using namespace sparcast::json;

namespace {
class Parser {
public:
  Parser(const std::string &text, std::string &error)
      : text(text), error(error) {}

  bool parseDocument(Value &out) {
    if (!parseValue(out, 0))
      return false;
    skipSpace();
    if (pos != text.size())
      return fail("trailing characters");
    return true;
  }

private:
  const std::string &text;
  std::string &error;
  size_t pos = 0;

  bool fail(const std::string &what) {
    error = what + " at offset " + std::to_string(pos);
    return false;
  }
  void skipSpace() {
    while (pos < text.size() && std::isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool parseLiteral(const char *word) {
    size_t n = std::char_traits<char>::length(word);
    if (text.compare(pos, n, word) != 0)
      return fail(std::string("expected ") + word);
    pos += n;
    return true;
  }

  bool parseValue(Value &out, int depth) {
    if (depth > 64)
      return fail("nesting too deep");
    skipSpace();
    if (pos >= text.size())
      return fail("unexpected end of input");
    char c = text[pos];
    if (c == '{')
      return parseObject(out, depth);
    if (c == '[')
      return parseArray(out, depth);
    if (c == '"') {
      out.kind = Value::Kind::String;
      return parseString(out.string);
    }
    if (c == 't' || c == 'f') {
      out.kind = Value::Kind::Bool;
      out.boolean = c == 't';
      return parseLiteral(c == 't' ? "true" : "false");
    }
    if (c == 'n') {
      out.kind = Value::Kind::Null;
      return parseLiteral("null");
    }
    if (c == '-' || std::isdigit((unsigned char)c))
      return parseNumber(out);
    return fail(std::string("unexpected character '") + c + "'");
  }

  bool parseNumber(Value &out) {
    size_t start = pos;
    if (text[pos] == '-')
      ++pos;
    bool integral = true;
    while (pos < text.size()) {
      char c = text[pos];
      if (std::isdigit((unsigned char)c)) {
        ++pos;
      } else if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
        integral = false;
        ++pos;
      } else {
        break;
      }
    }
    std::string token = text.substr(start, pos - start);
    char *end = nullptr;
    out.kind = Value::Kind::Number;
    out.number = std::strtod(token.c_str(), &end);
    if (!end || *end != '\0' || token == "-")
      return fail("bad number '" + token + "'");
    out.isInteger = integral;
    if (integral)
      out.integer = std::strtoll(token.c_str(), nullptr, 10);
    return true;
  }

  bool parseString(std::string &out) {
    if (!consume('"'))
      return fail("expected '\"'");
    out.clear();
    while (pos < text.size()) {
      char c = text[pos++];
      if (c == '"')
        return true;
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos >= text.size())
        break;
      char e = text[pos++];
      switch (e) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        if (pos + 4 > text.size())
          return fail("bad \\u escape");
        unsigned code = std::strtoul(text.substr(pos, 4).c_str(), nullptr, 16);
        pos += 4;
        if (code > 0x7f)
          return fail("non-ASCII \\u escape");
        out.push_back(static_cast<char>(code));
        break;
      }
      default:
        return fail("bad escape");
      }
    }
    return fail("unterminated string");
  }

  bool parseArray(Value &out, int depth) {
    out.kind = Value::Kind::Array;
    ++pos;
    if (consume(']'))
      return true;
    while (true) {
      out.array.emplace_back();
      if (!parseValue(out.array.back(), depth + 1))
        return false;
      if (consume(']'))
        return true;
      if (!consume(','))
        return fail("expected ',' or ']'");
    }
  }

  bool parseObject(Value &out, int depth) {
    out.kind = Value::Kind::Object;
    ++pos;
    if (consume('}'))
      return true;
    while (true) {
      std::string key;
      skipSpace();
      if (!parseString(key))
        return false;
      if (!consume(':'))
        return fail("expected ':'");
      if (!parseValue(out.object[key], depth + 1))
        return false;
      if (consume('}'))
        return true;
      if (!consume(','))
        return fail("expected ',' or '}'");
    }
  }
};
} // namespace

bool sparcast::json::parse(const std::string &text, Value &out,
                           std::string &error) {
  out = Value();
  return Parser(text, error).parseDocument(out);
}
