#include "formats/json/graph_json.hpp"

#include "formats/json/file_text.hpp"
#include "formats/json/graph_json_parts.hpp"

#include "semantics/diagnostic.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <type_traits>

namespace tfsem::format {

using nlohmann::json;

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& message) {
  throw InputError("G-JSON", path.empty() ? "/" : path, "", message);
}

std::string type_name(const json& j) { return j.type_name(); }

// A value as an error message quotes it: a number, string, bool or null as
// written, anything else by its type (dumping an arbitrarily nested document
// would recurse as deep as it goes).
std::string describe(const json& j) { return j.is_primitive() ? j.dump() : type_name(j); }

void expect_keys(const json& obj, const std::string& path, std::initializer_list<const char*> allowed) {
  for (const auto& [k, v] : obj.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      fail(path + "/" + k, "unknown key '" + k + "' (allowed: " + list + ")");
    }
  }
}

std::string get_string(const json& obj, const char* key, const std::string& path, bool required) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) fail(path, std::string("missing \"") + key + "\"");
    return {};
  }
  if (!it->is_string()) fail(path + "/" + key, std::string("\"") + key + "\" must be a string, not " + type_name(*it));
  return it->get<std::string>();
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '\'')) return false;
  return true;
}

// The shape of a nested array, read along its first elements; no deeper than
// kMaxRank, so that reading the elements recurses no deeper either.
Shape infer_shape(const json& j, const std::string& path) {
  Shape shape;
  for (const json* cur = &j; cur->is_array(); cur = &(*cur)[0]) {
    if (shape.size() == kMaxRank) fail(path, "nested deeper than " + std::to_string(kMaxRank) + " dimensions");
    shape.push_back(static_cast<std::int64_t>(cur->size()));
    if (cur->empty()) break;
  }
  return shape;
}

// "PATH/i/j/k": where the element at index `at` of the nested array at `path` is.
std::string element_path(const std::string& path, const std::vector<std::size_t>& at) {
  std::string out = path;
  for (auto i : at) out += "/" + std::to_string(i);
  return out;
}

// Collects the leaves of a nested array of the given shape, row-major; `at`
// is the index of j in the array at `path` (its path is made only to fail).
void collect(const json& j, const std::string& path, const Shape& shape, std::vector<std::size_t>& at,
             std::vector<const json*>& leaves) {
  const auto depth = at.size();
  if (depth == shape.size()) {
    if (j.is_array()) fail(element_path(path, at), "ragged nested array: not a tensor");
    leaves.push_back(&j);
    return;
  }
  if (!j.is_array() || static_cast<std::int64_t>(j.size()) != shape[depth])
    fail(element_path(path, at), "ragged nested array: not a tensor of shape " + shape_to_string(shape));
  for (std::size_t i = 0; i < j.size(); ++i) {
    at.push_back(i);
    collect(j[i], path, shape, at, leaves);
    at.pop_back();
  }
}

// Element j of a tensor of `dtype`; where() is its JSON path, made only to fail.
template <class T, class Where>
T element(const json& j, const Where& where, DType dtype) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!j.is_boolean()) fail(where(), "a bool tensor holds true or false, not " + describe(j));
    return j.get<bool>();
  } else {
    if constexpr (std::is_floating_point_v<T>) {  // as tensor_to_json writes the values JSON has no number for
      if (j.is_string()) {
        if (j == "nan") return std::numeric_limits<T>::quiet_NaN();
        if (j == "inf" || j == "-inf") return (j == "inf" ? 1 : -1) * std::numeric_limits<T>::infinity();
      }
    }
    if (!j.is_number()) fail(where(), "a " + std::string(dtype_name(dtype)) + " tensor holds numbers, not " + describe(j));
    if constexpr (std::is_integral_v<T>) {
      if (!j.is_number_integer()) fail(where(), "a " + std::string(dtype_name(dtype)) + " tensor holds integers, not " + j.dump());
      const bool fits = j.is_number_unsigned() ? j.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<T>::max())
                                               : (j.get<std::int64_t>() >= std::numeric_limits<T>::min() &&
                                                  j.get<std::int64_t>() <= std::numeric_limits<T>::max());
      if (!fits) fail(where(), j.dump() + " does not fit in " + std::string(dtype_name(dtype)));
    }
    return j.get<T>();
  }
}

// The JSON path of leaf i, row-major, of a nested array of `shape` at `path`.
std::string leaf_path(const std::string& path, const Shape& shape, std::size_t i) {
  std::vector<std::size_t> at(shape.size());
  for (auto d = shape.size(); d-- > 0;) {
    const auto n = static_cast<std::size_t>(shape[d]);
    at[d] = i % n;
    i /= n;
  }
  return element_path(path, at);
}

template <class T>
Storage fill_storage(const std::vector<const json*>& leaves, const std::string& path, const Shape& shape, DType dtype) {
  Buffer<T> b(static_cast<std::ptrdiff_t>(leaves.size()));
  for (std::size_t i = 0; i < leaves.size(); ++i)
    b[static_cast<std::ptrdiff_t>(i)] = element<T>(*leaves[i], [&] { return leaf_path(path, shape, i); }, dtype);
  return Storage{std::move(b)};
}

Storage make_storage(DType dtype, const std::vector<const json*>& leaves, const std::string& path, const Shape& shape) {
  return with_element_type(dtype, [&](auto t) { return fill_storage<decltype(t)>(leaves, path, shape, dtype); });
}

// n copies of one element, read once.
Storage filled_storage(DType dtype, const json& value, const std::string& path, std::int64_t n) {
  return with_element_type(dtype, [&](auto t) {
    using T = decltype(t);
    Buffer<T> b = Buffer<T>::Constant(n, element<T>(value, [&] { return path; }, dtype));
    return Storage{std::move(b)};
  });
}

[[noreturn]] void too_large(const std::string& path) {
  fail(path, "tensor too large (its nonzero dimensions multiply to over 2^28)");
}

Tensor dense_literal(const json& value, const std::string& path, std::optional<DType> dtype) {
  const Shape shape = infer_shape(value, path);
  if (!shape_within_limits(shape)) too_large(path);
  std::vector<const json*> leaves;
  std::vector<std::size_t> at;
  collect(value, path, shape, at, leaves);
  if (!dtype) {  // TensorFlow's defaults for literals: int32, float32, bool
    bool any_float = false, any_bool = false;
    for (const auto* l : leaves) {
      any_float = any_float || l->is_number_float();
      any_bool = any_bool || l->is_boolean();
    }
    dtype = any_bool ? DType::boolean : any_float ? DType::f32 : DType::i32;
  }
  return Tensor::dense(shape, make_storage(*dtype, leaves, path, shape));
}

}  // namespace

namespace {

// A symbolic term as Tensor::to_string writes one: an atom, or f(t1,...,tn)
// applying a function name to terms (restored(w)). Consumes it from `text`.
Tensor parse_term(std::string_view& text, const std::string& path, int depth = 0) {
  constexpr int kMaxDepth = 256;  // this parser recurses
  std::size_t n = 0;
  while (n < text.size() && text[n] != '(' && text[n] != ',' && text[n] != ')') ++n;
  const std::string name(text.substr(0, n));
  text.remove_prefix(n);
  if (!is_identifier(name)) fail(path, "symbolic atom '" + name + "' must be an identifier (letters, digits, _)");
  if (name == "GO" || name == "EMPTY") fail(path, "'" + name + "' is reserved: GO and EMPTY are not tensors");
  if (text.empty() || text.front() != '(') return Tensor::atom(name);
  if (depth == kMaxDepth) fail(path, "a term nested deeper than " + std::to_string(kMaxDepth));
  std::vector<Tensor> args;
  do {
    text.remove_prefix(1);  // '(' or ','
    args.push_back(parse_term(text, path, depth + 1));
  } while (!text.empty() && text.front() == ',');
  if (text.empty() || text.front() != ')') fail(path, "term '" + name + "(...' lacks its ')'");
  text.remove_prefix(1);
  return Tensor::apply(name, std::move(args));
}

}  // namespace

Tensor parse_tensor(const json& j, const std::string& path) {
  if (j.is_string()) {
    const auto& text = j.get_ref<const std::string&>();
    std::string_view rest = text;
    auto term = parse_term(rest, path);
    if (!rest.empty()) fail(path, "'" + text + "' is not a symbolic term: '" + std::string(rest) + "' follows it");
    return term;
  }
  if (j.is_number() || j.is_boolean() || j.is_array()) return dense_literal(j, path, std::nullopt);
  if (!j.is_object()) fail(path, "expected a tensor literal, not " + type_name(j));
  if (j.contains("error")) {
    expect_keys(j, path, {"error", "message"});
    const auto kind = get_string(j, "error", path, true);
    for (auto k : {ErrorKind::uninitialized, ErrorKind::shape_mismatch, ErrorKind::dtype_mismatch, ErrorKind::domain,
                   ErrorKind::resource_exhausted})
      if (error_kind_name(k) == kind) return Tensor::error(k, get_string(j, "message", path, false));
    fail(path + "/error",
         "unknown error kind '" + kind + "' (uninitialized, shape mismatch, dtype mismatch, domain, resource exhausted)");
  }
  expect_keys(j, path, {"dtype", "value", "shape", "fill"});
  const auto dname = get_string(j, "dtype", path, true);
  const auto dtype = dtype_from_name(dname);
  if (!dtype) fail(path + "/dtype", "unknown dtype '" + dname + "' (f32, f64, i32, i64, bool)");
  if (j.contains("value") == j.contains("fill")) fail(path, "a tensor literal needs either \"value\" or \"fill\"");
  if (!j.contains("shape") && j.contains("fill")) fail(path, "\"fill\" needs a \"shape\"");
  if (!j.contains("shape")) return dense_literal(j["value"], path + "/value", dtype);
  Shape shape;
  const auto& js = j["shape"];
  if (!js.is_array()) fail(path + "/shape", "\"shape\" must be an array of dimensions");
  if (js.size() > kMaxRank) fail(path + "/shape", "more than " + std::to_string(kMaxRank) + " dimensions");
  for (std::size_t i = 0; i < js.size(); ++i) {
    if (!js[i].is_number_integer() || js[i].get<std::int64_t>() < 0 || js[i].get<std::int64_t>() > kMaxElements)
      fail(path + "/shape/" + std::to_string(i), "a dimension is an integer in [0, 2^28]");
    shape.push_back(js[i].get<std::int64_t>());
  }
  if (!shape_within_limits(shape)) too_large(path + "/shape");
  if (j.contains("value")) {  // an explicit shape must agree with the nesting (and gives empty tensors theirs)
    const auto t = dense_literal(j["value"], path + "/value", dtype);
    if (t.as_dense().shape == shape) return t;
    if (element_count(shape) != 0 || element_count(t.as_dense().shape) != 0)
      fail(path + "/value", "value has shape " + shape_to_string(t.as_dense().shape) + ", not " + shape_to_string(shape));
    return Tensor::dense(shape, t.as_dense().data);
  }
  return Tensor::dense(shape, filled_storage(*dtype, j["fill"], path + "/fill", element_count(shape)));
}

namespace {

OptionalPortRef parse_port(const json& obj, const char* key, const std::string& path) {
  const auto text = get_string(obj, key, path, false);
  if (!obj.contains(key)) return std::nullopt;
  return port_ref(text, path, key);
}

}  // namespace

PortRef port_ref(std::string_view text, const std::string& path, const char* key) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return {CompactString(text), std::nullopt};
  const auto digits = text.substr(colon + 1);
  if (digits.empty() || digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](char d) { return d >= '0' && d <= '9'; }))
    fail(path + "/" + key, "'" + std::string(text) + "' is not NODE or NODE:PORT");
  std::uint32_t port = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), port);  // six digits: it fits
  return {CompactString(text.substr(0, colon)), port};
}

Attrs parse_attrs(const json& j, const std::string& path, std::string_view op) {
  Attrs attrs;
  if (!j.is_object()) fail(path, "\"attrs\" must be an object");
  const auto* specs = attr_specs(op);
  for (const auto& [k, v] : j.items()) {
    const auto p = path + "/" + k;
    const AttrSpec* spec = nullptr;
    if (specs)
      for (const auto& s : *specs)
        if (s.name == k) spec = &s;
    // Unknown attributes are reported by the program's validation (G-ATTR); here
    // the value is read by its JSON type.
    const auto type = spec ? spec->type
                      : v.is_number_integer() ? AttrType::integer
                      : v.is_boolean() ? AttrType::boolean
                      : AttrType::tensor;
    switch (type) {
      case AttrType::integer:
        if (!v.is_number_integer()) fail(p, "attribute '" + k + "' must be an integer");
        attrs.emplace(k, v.get<std::int64_t>());
        break;
      case AttrType::tensor: attrs.emplace(k, parse_tensor(v, p)); break;
      case AttrType::tensor_list: {
        if (!v.is_array() || v.empty()) fail(p, "attribute '" + k + "' must be a non-empty list of tensors");
        std::vector<Tensor> list;
        for (std::size_t i = 0; i < v.size(); ++i) list.push_back(parse_tensor(v[i], p + "/" + std::to_string(i)));
        attrs.emplace(k, std::move(list));
        break;
      }
      case AttrType::string:
        if (!v.is_string()) fail(p, "attribute '" + k + "' must be a string");
        attrs.emplace(k, v.get<std::string>());
        break;
      case AttrType::boolean:
        if (!v.is_boolean()) fail(p, "attribute '" + k + "' must be true or false");
        attrs.emplace(k, v.get<bool>());
        break;
    }
  }
  return attrs;
}

namespace {

const json& array_member(const json& doc, const char* key) {
  static const json empty = json::array();
  auto it = doc.find(key);
  if (it == doc.end()) return empty;
  if (!it->is_array()) fail(std::string("/") + key, std::string("\"") + key + "\" must be an array");
  return *it;
}

}  // namespace

void set_edge_value(EdgeSpec& es, const json& value, const std::string& path) {
  if (es.kind == "control") {
    if (value != "GO") fail(path, "a control input edge carries \"GO\"");
    es.value = Go{};
  } else if (es.kind == "variable") {
    if (!value.is_string()) fail(path, "a variable input edge carries a variable name");
    es.value = value.get<std::string>();
  } else {
    es.value = parse_tensor(value, path);
  }
}

namespace {

std::vector<NodeSpec> parse_nodes(const json& nodes, const std::string& base) {
  std::vector<NodeSpec> out;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto path = base + "/nodes/" + std::to_string(i);
    const auto& n = nodes[i];
    if (!n.is_object()) fail(path, "a node is an object");
    expect_keys(n, path, {"id", "op", "var", "attrs", "description", "device"});
    NodeSpec ns{get_string(n, "id", path, true), get_string(n, "op", path, true), get_string(n, "var", path, false), {}, path,
                get_string(n, "device", path, false)};
    if (n.contains("attrs")) ns.attrs = parse_attrs(n["attrs"], path + "/attrs", ns.op);
    out.push_back(std::move(ns));
  }
  return out;
}

// A graph's edges (E: EdgeSpec), or a function body's (BodyEdgeSpec), which
// also has input edges carrying an argument and output edges giving a result.
template <class E>
std::vector<E> parse_edges(const json& edges, const std::string& base) {
  constexpr bool body = std::is_same_v<E, BodyEdgeSpec>;
  std::vector<E> out;
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const auto path = base + "/edges/" + std::to_string(i);
    const auto& e = edges[i];
    if (!e.is_object()) fail(path, "an edge is an object");
    if constexpr (body) expect_keys(e, path, {"id", "kind", "from", "to", "value", "fetch", "arg", "result", "description"});
    else expect_keys(e, path, {"id", "kind", "from", "to", "value", "fetch", "description"});
    E es;
    es.id = get_string(e, "id", path, true);
    es.kind = get_string(e, "kind", path, true);
    es.from = parse_port(e, "from", path);
    es.to = parse_port(e, "to", path);
    if constexpr (body) {
      es.arg = get_string(e, "arg", path, false);
      es.result = get_string(e, "result", path, false);
    }
    es.where = path;
    if (e.contains("fetch")) es.fetch = get_string(e, "fetch", path, true);
    if constexpr (!body) es.drop_default_fetch();  // a body's fetch is refused, so it stays
    if (auto it = e.find("value"); it != e.end()) set_edge_value(es, *it, path + "/value");
    out.push_back(std::move(es));
  }
  return out;
}

std::vector<std::string> parse_names(const json& f, const char* key, const std::string& path) {
  std::vector<std::string> out;
  const auto it = f.find(key);
  if (it == f.end()) fail(path, std::string("a function needs \"") + key + "\": a list of names");
  if (!it->is_array()) fail(path + "/" + key, std::string("\"") + key + "\" must be an array of names");
  for (std::size_t i = 0; i < it->size(); ++i) {
    if (!(*it)[i].is_string()) fail(path + "/" + key + "/" + std::to_string(i), "a name is a string");
    out.push_back((*it)[i].get<std::string>());
  }
  return out;
}

}  // namespace

void read_variables(const json& variables, ProgramSpec& spec) {
  if (!variables.is_object()) fail("/variables", "\"variables\" must be an object mapping names to initial values");
  for (const auto& [name, init] : variables.items()) {
    const auto path = "/variables/" + name;
    spec.variables.push_back({name, init.is_null() ? std::nullopt : std::optional(parse_tensor(init, path)), path});
  }
}

void read_functions(const json& functions, ProgramSpec& spec) {
  if (!functions.is_object()) fail("/functions", "\"functions\" must be an object mapping names to declarations");
  for (const auto& [name, decl] : functions.items()) {
    const auto path = "/functions/" + name;
    if (!decl.is_object()) fail(path, "a function declaration is an object");
    expect_keys(decl, path, {"stateful", "description"});
    FunctionSpec f{name, false, get_string(decl, "description", path, false), path};
    if (auto st = decl.find("stateful"); st != decl.end()) {
      if (!st->is_boolean()) fail(path + "/stateful", "\"stateful\" must be true or false");
      f.stateful = st->get<bool>();
    }
    spec.functions.push_back(std::move(f));
  }
}

void read_library(const json& library, ProgramSpec& spec) {
  for (std::size_t i = 0; i < library.size(); ++i) {
    const auto path = "/library/" + std::to_string(i);
    const auto& f = library[i];
    if (!f.is_object()) fail(path, "a function is an object");
    expect_keys(f, path, {"name", "args", "results", "nodes", "edges", "description"});
    LibraryFunction fs{get_string(f, "name", path, true), parse_names(f, "args", path), parse_names(f, "results", path), {}, {}, path};
    for (const char* key : {"nodes", "edges"})
      if (f.contains(key) && !f[key].is_array()) fail(path + "/" + key, std::string("\"") + key + "\" must be an array");
    if (f.contains("nodes")) fs.nodes = parse_nodes(f["nodes"], path);
    if (f.contains("edges")) fs.edges = parse_edges<BodyEdgeSpec>(f["edges"], path);
    spec.library.push_back(std::move(fs));
  }
}

ProgramSpec parse_program(const json& doc) {
  if (!doc.is_object()) fail("", "a graph is a JSON object, not " + type_name(doc));
  expect_keys(doc, "", {"name", "description", "variables", "functions", "nodes", "edges", "library", "$schema"});
  ProgramSpec spec;
  spec.name = get_string(doc, "name", "", false);
  spec.description = get_string(doc, "description", "", false);
  if (auto it = doc.find("variables"); it != doc.end()) read_variables(*it, spec);
  if (auto it = doc.find("functions"); it != doc.end()) read_functions(*it, spec);
  spec.nodes = parse_nodes(array_member(doc, "nodes"), "");
  spec.edges = parse_edges<EdgeSpec>(array_member(doc, "edges"), "");
  read_library(array_member(doc, "library"), spec);
  return spec;
}

namespace {
// "origin:line:column" of byte `at` (0-based) of text.
std::string place(std::string_view text, std::size_t at, const std::string& origin) {
  std::size_t line = 1, col = 1;
  for (std::size_t i = 0; i < at && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return origin + ":" + std::to_string(line) + ":" + std::to_string(col);
}
}  // namespace

json parse_json_text(std::string_view text, const std::string& origin) {
  // nlohmann's lexer takes a NUL byte for the end of the text, so a file with
  // zeros after a whole graph (a crash's preallocated blocks) would load.
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    throw InputError("G-JSON", place(text, nul, origin), "", "malformed JSON: a NUL byte, which JSON text never holds");
  try {
    return json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (auto pos = what.find("syntax error"); pos != std::string::npos) what = what.substr(pos);
    // e.byte is 1-based.
    throw InputError("G-JSON", place(text, e.byte == 0 ? 0 : e.byte - 1, origin), "", "malformed JSON: " + what);
  } catch (const json::exception& e) {  // a number beyond a double (out_of_range.406), which has no position
    std::string what = e.what();
    if (auto pos = what.find("] "); pos != std::string::npos) what = what.substr(pos + 2);
    throw InputError("G-JSON", origin, "", "malformed JSON: " + what);
  }
}

ProgramSpec parse_program_text(std::string_view text, const std::string& origin) {
  if (auto spec = stream_program(text)) return std::move(*spec);
  return parse_program(parse_json_text(text, origin));  // says what is wrong, and where
}

ProgramSpec load_program_file(const std::filesystem::path& file) {
  return parse_program_text(FileText(file).text(), file.string());
}

std::shared_ptr<const Program> build_program_text(std::string_view text, const std::string& origin,
                                                  const StopToken* stop) {
  if (auto program = stream_build(text, stop)) return std::move(*program);
  if (stop) stop->enter("during import");
  auto spec = parse_program(parse_json_text(text, origin));  // says what is wrong, and where
  if (stop) stop->enter("during validation");
  return Program::build(std::move(spec), stop);
}

std::pair<std::string, std::string> split_feed(const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos) throw InputError("G-FEED", "--feed", "", "'" + assignment + "' is not EDGE=VALUE");
  return {assignment.substr(0, eq), assignment.substr(eq + 1)};
}

void apply_feed(ProgramSpec& spec, const std::string& assignment) {
  const auto [edge, value] = split_feed(assignment);
  for (auto& e : spec.edges) {
    if (e.id != edge) continue;
    if (e.from) throw InputError("G-FEED", "--feed", "edge '" + edge + "'", "not an input edge (it has a source)");
    const auto j = parse_json_text(value, "--feed " + edge);
    if (e.kind == "variable") {
      if (!j.is_string()) throw InputError("G-FEED", "--feed", "edge '" + edge + "'", "feed a variable edge a variable name");
      e.value = j.get<std::string>();
    } else if (e.kind == "control") {
      throw InputError("G-FEED", "--feed", "edge '" + edge + "'", "a control edge always carries GO");
    } else {
      e.value = parse_tensor(j, "--feed " + edge);
    }
    return;
  }
  throw InputError("G-FEED", "--feed", "edge '" + edge + "'", "no such edge");
}

json tensor_to_json(const Tensor& t) {
  switch (t.kind()) {
    case Tensor::Kind::term: return t.to_string();
    case Tensor::Kind::error: return {{"error", error_kind_name(t.as_error().kind)}, {"message", t.as_error().message}};
    case Tensor::Kind::dense: break;
  }
  const auto& d = t.as_dense();
  json shape = json::array();
  for (auto s : d.shape) shape.push_back(s);
  json flat = json::array();
  std::visit(
      [&](const auto& b) {
        for (std::ptrdiff_t i = 0; i < b.size(); ++i) {
          using T = std::decay_t<decltype(b[i])>;
          if constexpr (std::is_floating_point_v<T>) {
            if (std::isfinite(b[i])) flat.push_back(b[i]);
            else flat.push_back(std::isnan(b[i]) ? "nan" : (b[i] > 0 ? "inf" : "-inf"));
          } else {
            flat.push_back(b[i]);
          }
        }
      },
      d.data);
  // Re-nest row-major.
  std::function<json(std::size_t, std::size_t&)> nest = [&](std::size_t dim, std::size_t& pos) -> json {
    if (dim == d.shape.size()) return flat[pos++];
    json a = json::array();
    for (std::int64_t i = 0; i < d.shape[dim]; ++i) a.push_back(nest(dim + 1, pos));
    return a;
  };
  std::size_t pos = 0;
  return {{"dtype", dtype_name(d.dtype())}, {"shape", shape}, {"value", nest(0, pos)}};
}

namespace {

json attr_to_json(const Attr& a) {
  return std::visit(
      [](const auto& v) -> json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, bool> || std::is_same_v<T, std::string>) return v;
        else if constexpr (std::is_same_v<T, Tensor>) return tensor_to_json(v);
        else {
          json list = json::array();
          for (const auto& t : v) list.push_back(tensor_to_json(t));
          return list;
        }
      },
      a);
}

json port_to_json(const PortRef& r) { return r.port ? r.node + ":" + std::to_string(*r.port) : r.node.str(); }

json nodes_to_json(const std::vector<NodeSpec>& list) {
  json nodes = json::array();
  for (const auto& n : list) {
    json j = {{"id", n.id}, {"op", n.op}};
    if (!n.var.empty()) j["var"] = n.var;
    if (!n.device.empty()) j["device"] = n.device;
    if (!n.attrs->empty()) {
      j["attrs"] = json::object();
      for (const auto& [k, a] : *n.attrs) j["attrs"][k] = attr_to_json(a);
    }
    nodes.push_back(std::move(j));
  }
  return nodes;
}

template <class E>
json edges_to_json(const std::vector<E>& list) {
  json edges = json::array();
  for (const auto& e : list) {
    json j = {{"id", e.id}, {"kind", e.kind}};
    if (e.from) j["from"] = port_to_json(*e.from);
    if (e.to) j["to"] = port_to_json(*e.to);
    if constexpr (std::is_same_v<E, BodyEdgeSpec>) {
      if (!e.arg.empty()) j["arg"] = e.arg;
      if (!e.result.empty()) j["result"] = e.result;
    }
    if (e.value)
      std::visit(
          [&](const auto& v) {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, Go>) j["value"] = "GO";
            else if constexpr (std::is_same_v<T, CompactString>) j["value"] = v.str();
            else if constexpr (std::is_same_v<T, Tensor>) j["value"] = tensor_to_json(v);
          },
          *e.value);
    // A graph's output named by default is written as the readers read it; a body's fetch is kept, to be refused.
    if (e.fetch && (std::is_same_v<E, BodyEdgeSpec> || !e.default_fetch_given())) j["fetch"] = *e.fetch;
    edges.push_back(std::move(j));
  }
  return edges;
}

}  // namespace

json program_to_json(const ProgramSpec& spec) {
  json vars = json::object();
  for (const auto& v : spec.variables) vars[v.name] = v.init ? tensor_to_json(*v.init) : json(nullptr);
  json doc = {{"name", spec.name}};
  if (!spec.description.empty()) doc["description"] = spec.description;
  doc["variables"] = vars;
  if (!spec.functions.empty()) {
    json functions = json::object();
    for (const auto& f : spec.functions) {
      json decl = json::object();
      if (f.stateful) decl["stateful"] = true;
      if (!f.description.empty()) decl["description"] = f.description;
      functions[f.name] = decl;
    }
    doc["functions"] = functions;
  }
  doc["nodes"] = nodes_to_json(spec.nodes);
  doc["edges"] = edges_to_json(spec.edges);
  if (!spec.library.empty()) {
    doc["library"] = json::array();
    for (const auto& f : spec.library)
      doc["library"].push_back({{"name", f.name}, {"args", f.args}, {"results", f.results}, {"nodes", nodes_to_json(f.nodes)},
                                  {"edges", edges_to_json(f.edges)}});
  }
  return doc;
}

json content_to_json(const Program& p, const Content& c) {
  return std::visit(
      [&](const auto& v) -> json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Empty>) return nullptr;
        else if constexpr (std::is_same_v<T, Go>) return "GO";
        else if constexpr (std::is_same_v<T, Dead>) return "DEAD";
        else if constexpr (std::is_same_v<T, VarId>) return {{"var", p.variable(v).name}};
        else return tensor_to_json(v);
      },
      c);
}

json outputs_to_json(const Program& p, const std::vector<std::pair<std::string, Content>>& outputs) {
  json out = json::object();
  for (const auto& [fetch, c] : outputs) out[fetch] = content_to_json(p, c);
  return out;
}

json var_value_to_json(const Program& p, const std::vector<Tensor>& var_value) {
  json out = json::object();
  for (std::size_t x = 0; x < var_value.size(); ++x) out[p.variable(VarId(x)).name] = tensor_to_json(var_value[x]);
  return out;
}

json terms_to_json(const TermNames& names) {
  json out = json::array();
  for (const auto& d : names.definitions()) out.push_back({{"name", d.name}, {"term", d.text}});
  return out;
}

json state_to_json(const Program& p, const Contexts& contexts, const State& s) {
  TermNames names;
  json out = names.group([&] {
    json transit = json::object();
    for (const auto& [slot, c] : s.in_transit) transit[slot_to_string(p, contexts, slot)] = content_to_json(p, c);
    return json{{"VarValue", var_value_to_json(p, s.var_value)}, {"InTransit", transit}};
  });
  if (!names.definitions().empty()) out["terms"] = terms_to_json(names);
  if (p.has_control_flow()) {  // a section 3 state's fired records follow from InTransit
    json fired = json::array();
    for (const auto& t : s.fired) fired.push_back(transition_to_string(p, contexts, t));
    out["Fired"] = fired;
  }
  return out;
}

}  // namespace tfsem::format
