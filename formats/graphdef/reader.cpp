#include "formats/graphdef/reader.hpp"

#include "semantics/diagnostic.hpp"
#include "formats/graphdef/wire_locator.hpp"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace tfsem::graphdef {

namespace {

namespace pb = google::protobuf;

[[noreturn]] void fail(const std::string& where, const std::string& message) {
  throw InputError("I-PROTO", where, "", message);
}

std::string_view skip_space(std::string_view s) {
  while (!s.empty()) {
    if (std::isspace(static_cast<unsigned char>(s.front()))) {
      s.remove_prefix(1);
    } else if (s.front() == '#') {  // a text-format comment
      const auto eol = s.find('\n');
      s.remove_prefix(eol == std::string_view::npos ? s.size() : eol);
    } else {
      break;
    }
  }
  return s;
}

// The first key of a JSON object, or "".
std::string_view first_json_key(std::string_view s) {
  s = skip_space(s.substr(1));
  if (s.empty() || s.front() != '"') return {};
  const auto close = s.find('"', 1);
  return s.substr(1, close == std::string_view::npos ? 0 : close - 1);
}

// The text from the value of `key` on, where key is first_json_key(s) and
// not empty: past its closing quote and the colon ("" if there is none).
std::string_view first_json_value(std::string_view s, std::string_view key) {
  const auto rest = skip_space(s.substr(static_cast<std::size_t>(key.data() - s.data()) + key.size() + 1));
  return rest.starts_with(':') ? skip_space(rest.substr(1)) : std::string_view{};
}

// The field name text format begins with (then '{', '<' or ':'); "" for an
// empty message; nullopt when `s` does not begin so.
std::optional<std::string_view> first_text_field(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
  if (i == 0) return s.empty() ? std::optional(std::string_view()) : std::nullopt;
  const auto rest = skip_space(s.substr(i));
  if (rest.empty() || (rest.front() != '{' && rest.front() != ':' && rest.front() != '<')) return std::nullopt;
  return s.substr(0, i);
}

// Whether the start of a file has bytes that text does not: control
// characters other than white space, as every binary protobuf has early.
bool binary_bytes(std::string_view s) {
  s = s.substr(0, std::size_t{1} << 16);
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && !std::isspace(u)) || u == 0x7f;
  });
}

// The message whose field (by its name, or its JSON name) a file starts with.
std::optional<Container> container_of(std::string_view field) {
  for (const auto* c : {GraphDef::descriptor(), MetaGraphDef::descriptor(), SavedModel::descriptor()})
    for (int i = 0; i < c->field_count(); ++i)
      if (c->field(i)->name() == field || c->field(i)->json_name() == field)
        return c == GraphDef::descriptor() ? Container::graph_def
               : c == SavedModel::descriptor() ? Container::saved_model : Container::meta_graph_def;
  for (std::string_view skipped : {"saver_def", "collection_def", "asset_file_def", "object_graph_def", "saverDef",
                                   "collectionDef", "assetFileDef", "objectGraphDef"})
    if (field == skipped) return Container::meta_graph_def;
  return std::nullopt;
}

Container container_named(const std::filesystem::path& file) {
  const auto name = file.filename().string();
  if (name == "saved_model.pb" || name == "saved_model.pbtxt") return Container::saved_model;
  return file.extension() == ".meta" ? Container::meta_graph_def : Container::graph_def;
}

class TextErrors : public pb::io::ErrorCollector {
 public:
  explicit TextErrors(const std::string& origin) : origin_(origin) {}
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    if (first_.empty()) first_ = origin_ + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1) + "\n" + message;
  }
  // An unknown field the parser skips: "Message type "P.M" has no field named "f"."
  void AddWarning(int line, pb::io::ColumnNumber /*column*/, const std::string& message) override {
    static const std::string kPackage = "tfsem.graphdef.";
    auto text = message;
    for (auto at = text.find(kPackage); at != std::string::npos; at = text.find(kPackage)) text.erase(at, kPackage.size());
    if (!text.empty() && text.back() == '.') text.pop_back();
    warnings_.push_back(text + " (line " + std::to_string(line + 1) + ")");
  }
  [[nodiscard]] const std::string& first() const { return first_; }
  [[nodiscard]] std::vector<std::string>& warnings() { return warnings_; }

 private:
  const std::string& origin_;
  std::string first_;
  std::vector<std::string> warnings_;
};

// The name TensorFlow gives a field outside the subset that files commonly have.
std::string tensorflow_name(std::string_view message, int number) {
  static const std::map<std::pair<std::string_view, int>, std::string_view> names = {
      {{"MetaGraphDef", 3}, "saver_def"},       {{"MetaGraphDef", 4}, "collection_def"},
      {{"MetaGraphDef", 6}, "asset_file_def"},  {{"MetaGraphDef", 7}, "object_graph_def"},
      {{"MetaInfoDef", 2}, "stripped_op_list"}, {{"MetaInfoDef", 3}, "any_info"},
      {{"TensorInfo", 4}, "coo_sparse"},        {{"TensorInfo", 5}, "composite_tensor"},
      {{"NodeDef", 7}, "experimental_type"}};
  const auto it = names.find({message, number});
  return it == names.end() ? "" : " (" + std::string(it->second) + ")";
}

// Every unknown field of m and of the messages in it, with the node it is in;
// one outside a graph's node (of a function's nodes, say) is listed once.
void collect_skipped(const pb::Message& m, const std::string& node, std::vector<std::string>& out) {
  const auto* reflection = m.GetReflection();
  const auto& unknown = reflection->GetUnknownFields(m);
  for (int i = 0; i < unknown.field_count(); ++i) {
    auto label = std::string(m.GetDescriptor()->name()) + " field " + std::to_string(unknown.field(i).number()) +
                 tensorflow_name(m.GetDescriptor()->name(), unknown.field(i).number());
    if (!node.empty()) {
      out.push_back(label + " (node '" + node + "')");
    } else if (std::find(out.begin(), out.end(), label) == out.end()) {
      out.push_back(std::move(label));
    }
  }
  std::vector<const pb::FieldDescriptor*> fields;
  reflection->ListFields(m, &fields);
  for (const auto* f : fields) {
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int k = 0; k < reflection->FieldSize(m, f); ++k) collect_skipped(reflection->GetRepeatedMessage(m, f, k), node, out);
    } else {
      collect_skipped(reflection->GetMessage(m, f), node, out);
    }
  }
}

bool known(const pb::Message& m) { return m.GetReflection()->GetUnknownFields(m).empty(); }

// The unknown fields of m itself, not of the messages in it.
void collect_top_skipped(const pb::Message& m, std::vector<std::string>& out) {
  const auto& unknown = m.GetReflection()->GetUnknownFields(m);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const auto label = std::string(m.GetDescriptor()->name()) + " field " + std::to_string(unknown.field(i).number()) +
                       tensorflow_name(m.GetDescriptor()->name(), unknown.field(i).number());
    if (std::find(out.begin(), out.end(), label) == out.end()) out.push_back(label);  // once, of several MetaGraphs
  }
}

// The same, for a graph: its nodes and their attributes first, without
// listing fields, as a large graph has many of them and few unknown fields.
void collect_skipped(const GraphDef& g, std::vector<std::string>& out) {
  if (!known(g) || !known(g.versions())) {
    GraphDef top = g;
    top.clear_node();
    top.clear_library();
    collect_skipped(top, "", out);
  }
  for (const auto& n : g.node()) {
    bool clean = known(n) && known(n.experimental_debug_info());
    for (const auto& [key, value] : n.attr()) {
      clean = clean && known(value);
      if (value.has_tensor()) clean = clean && known(value.tensor()) && known(value.tensor().tensor_shape());
      if (value.has_shape()) clean = clean && known(value.shape());
      if (value.has_list() || value.has_func()) clean = false;  // rare: the general walk
    }
    if (!clean) collect_skipped(n, n.name(), out);
  }
  if (g.has_library()) collect_skipped(g.library(), "", out);
}

}  // namespace

std::optional<Sniffed> sniff(const std::filesystem::path& file, std::string_view contents) {
  const auto s = skip_space(contents);
  if (!s.empty() && s.front() == '{') {
    const auto key = first_json_key(s);
    const auto container = container_of(key);
    // tfsem's own JSON; "library" is a key of both: tfsem's is an array of functions, a GraphDef's an object.
    if (!container || (key == "library" && first_json_value(s, key).starts_with('['))) return std::nullopt;
    return Sniffed{Encoding::json, *container};
  }
  if (file.extension() == ".json") return std::nullopt;  // tfsem's JSON says what is wrong with it
  if (const auto field = first_text_field(s); field && !binary_bytes(contents))
    return Sniffed{Encoding::text, field->empty() ? container_named(file) : container_of(*field).value_or(container_named(file))};
  // A SavedModel starts with its schema version (field 1, a varint); a
  // GraphDef's and a MetaGraphDef's first field is a message.
  if (!contents.empty() && contents.front() == '\x08') return Sniffed{Encoding::binary, Container::saved_model};
  return Sniffed{Encoding::binary, container_named(file)};
}

std::optional<Encoding> named_encoding(const std::filesystem::path& file) {
  const auto ext = file.extension().string();
  if (ext == ".pb" || ext == ".meta") return Encoding::binary;
  if (ext == ".pbtxt" || ext == ".pbtext") return Encoding::text;
  if (ext == ".json") return Encoding::json;
  return std::nullopt;
}

std::string_view encoding_name(Encoding e) {
  switch (e) {
    case Encoding::binary: return "binary protobuf";
    case Encoding::text: return "protobuf's text format";
    case Encoding::json: return "protobuf's JSON";
  }
  return "";
}

namespace {

// The contents in blocks, the stop token (may be null) polled before each:
// a stop ends the input there, and the parse fails.
class PollingInput : public pb::io::ZeroCopyInputStream {
 public:
  static constexpr int kBlock = 1 << 16;
  PollingInput(std::string_view contents, const StopToken* stop)
      : in_(contents.data(), static_cast<int>(std::min<std::size_t>(contents.size(), INT32_MAX)), kBlock), stop_(stop) {}
  bool Next(const void** data, int* size) override { return (stop_ == nullptr || !stop_->stopped()) && in_.Next(data, size); }
  void BackUp(int count) override { in_.BackUp(count); }
  bool Skip(int count) override { return in_.Skip(count); }
  std::int64_t ByteCount() const override { return in_.ByteCount(); }

 private:
  pb::io::ArrayInputStream in_;
  const StopToken* stop_;
};

// Parses `contents` into m, a `what` ("GraphDef"). Unknown fields of the text
// and JSON encodings are errors, unless `skipped` takes them (a text file's by
// name and line; a JSON file's, which protobuf does not name, as one entry).
void parse_message(std::string_view contents, Encoding encoding, const std::string& origin, const std::string& what,
                   pb::Message& m, std::vector<std::string>* skipped, const StopToken* stop) {
  const pb::LogSilencer quiet;  // the errors below say it all, with their place
  const StopPoll poll(stop);
  poll.check();
  if (contents.size() > static_cast<std::size_t>(INT32_MAX) && encoding != Encoding::json)
    fail(origin, std::string(encoding == Encoding::binary ? "a binary " : "a text ") + what + " is at most 2 GiB");
  PollingInput input(contents, stop);
  switch (encoding) {
    case Encoding::binary:
      if (!m.ParseFromZeroCopyStream(&input)) {
        poll.check();
        const auto where = locate_wire_error(contents, *m.GetDescriptor());
        fail(origin, "not a binary " + what + ": " + (where.empty() ? std::string("protobuf rejects it") : where));
      }
      return;
    case Encoding::text: {
      TextErrors errors(origin);
      pb::TextFormat::Parser parser;
      parser.RecordErrorsTo(&errors);
      parser.AllowUnknownField(skipped != nullptr);
      if (!parser.Parse(&input, &m)) {
        poll.check();
        const auto& first = errors.first();
        const auto nl = first.find('\n');
        fail(first.substr(0, nl), "not a text " + what + ": " + first.substr(nl + 1));
      }
      if (skipped) skipped->insert(skipped->end(), errors.warnings().begin(), errors.warnings().end());
      return;
    }
    case Encoding::json: {
      auto status = pb::util::JsonStringToMessage(contents, &m, pb::util::JsonParseOptions{});
      if (!status.ok() && skipped) {
        pb::util::JsonParseOptions lenient;
        lenient.ignore_unknown_fields = true;
        m.Clear();
        if (pb::util::JsonStringToMessage(contents, &m, lenient).ok()) {
          skipped->push_back("fields of the JSON that " + what + " does not have (" + std::string(status.message()) + ")");
          status = pb::util::Status();
        }
      }
      if (!status.ok()) fail(origin, "not a " + what + " in JSON: " + std::string(status.message()));
      poll.check();
      return;
    }
  }
}

}  // namespace

ReadGraph parse(std::string_view contents, Encoding encoding, const std::string& origin, const StopToken* stop) {
  ReadGraph out;
  parse_message(contents, encoding, origin, "GraphDef", out.graph, nullptr, stop);
  if (encoding == Encoding::binary) collect_skipped(out.graph, out.skipped);
  return out;
}

ReadMetaGraphs parse_meta_graphs(std::string_view contents, Encoding encoding, Container container, const std::string& origin,
                                 const StopToken* stop) {
  ReadMetaGraphs out;
  if (container == Container::saved_model) {
    SavedModel model;
    parse_message(contents, encoding, origin, "SavedModel", model, &out.skipped, stop);
    if (encoding == Encoding::binary) collect_top_skipped(model, out.skipped);
    for (auto& g : *model.mutable_meta_graphs()) out.meta_graphs.push_back(std::move(g));
  } else {
    out.meta_graphs.emplace_back();
    parse_message(contents, encoding, origin, "MetaGraphDef", out.meta_graphs.back(), &out.skipped, stop);
  }
  if (encoding == Encoding::binary)
    for (const auto& g : out.meta_graphs) {
      collect_top_skipped(g, out.skipped);
      collect_skipped(g.meta_info_def(), "", out.skipped);
      for (const auto& [key, signature] : g.signature_def()) collect_skipped(signature, "", out.skipped);
      collect_skipped(g.graph_def(), out.skipped);
    }
  return out;
}

}  // namespace tfsem::graphdef
