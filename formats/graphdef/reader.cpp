#include "formats/graphdef/reader.hpp"

#include "semantics/diagnostic.hpp"
#include "formats/graphdef/wire_locator.hpp"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include <cctype>

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

// The first key of a JSON object: GraphDef's JSON starts with one of its fields.
bool graphdef_json(std::string_view s) {
  s = skip_space(s.substr(1));
  if (s.empty() || s.front() != '"') return false;
  const auto close = s.find('"', 1);
  const auto key = s.substr(1, close == std::string_view::npos ? 0 : close - 1);
  return key == "node" || key == "versions" || key == "library" || key == "version";
}

// Text format begins with a field name, then '{' or ':'.
bool text_format(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
  if (i == 0) return s.empty();
  s = skip_space(s.substr(i));
  return !s.empty() && (s.front() == '{' || s.front() == ':' || s.front() == '<');
}

class TextErrors : public pb::io::ErrorCollector {
 public:
  explicit TextErrors(const std::string& origin) : origin_(origin) {}
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    if (first_.empty()) first_ = origin_ + ":" + std::to_string(line + 1) + ":" + std::to_string(column + 1) + "\n" + message;
  }
  [[nodiscard]] const std::string& first() const { return first_; }

 private:
  const std::string& origin_;
  std::string first_;
};

// Every unknown field of m and of the messages in it, with the node it is in.
void collect_skipped(const pb::Message& m, const std::string& node, std::vector<std::string>& out) {
  const auto* reflection = m.GetReflection();
  const auto& unknown = reflection->GetUnknownFields(m);
  for (int i = 0; i < unknown.field_count(); ++i)
    out.push_back(std::string(m.GetDescriptor()->name()) + " field " + std::to_string(unknown.field(i).number()) +
                  (node.empty() ? "" : " (node '" + node + "')"));
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

std::optional<Encoding> sniff(const std::filesystem::path& file, std::string_view contents) {
  const auto ext = file.extension().string();
  if (ext == ".pb") return Encoding::binary;
  if (ext == ".pbtxt" || ext == ".pbtext") return Encoding::text;
  const auto s = skip_space(contents);
  if (!s.empty() && s.front() == '{') return graphdef_json(s) ? std::optional(Encoding::json) : std::nullopt;
  if (ext == ".json") return std::nullopt;
  return text_format(s) ? Encoding::text : Encoding::binary;
}

ReadGraph parse(std::string_view contents, Encoding encoding, const std::string& origin) {
  const pb::LogSilencer quiet;  // the errors below say it all, with their place
  ReadGraph out;
  switch (encoding) {
    case Encoding::binary:
      if (contents.size() > static_cast<std::size_t>(INT32_MAX)) fail(origin, "a binary GraphDef is at most 2 GiB");
      if (!out.graph.ParseFromArray(contents.data(), static_cast<int>(contents.size()))) {
        const auto where = locate_wire_error(contents, *GraphDef::descriptor());
        fail(origin, "not a binary GraphDef: " + (where.empty() ? std::string("protobuf rejects it") : where));
      }
      collect_skipped(out.graph, out.skipped);
      break;
    case Encoding::text: {
      TextErrors errors(origin);
      pb::TextFormat::Parser parser;
      parser.RecordErrorsTo(&errors);
      if (!parser.ParseFromString(std::string(contents), &out.graph)) {
        const auto& first = errors.first();
        const auto nl = first.find('\n');
        fail(first.substr(0, nl), "not a text GraphDef: " + first.substr(nl + 1));
      }
      break;
    }
    case Encoding::json: {
      const auto status = pb::util::JsonStringToMessage(contents, &out.graph, pb::util::JsonParseOptions{});
      if (!status.ok()) fail(origin, "not a GraphDef in JSON: " + std::string(status.message()));
      break;
    }
  }
  return out;
}

}  // namespace tfsem::graphdef
