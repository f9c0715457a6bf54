// Reading a TensorFlow graph file in any of its three encodings: binary,
// protobuf's text format, or the JSON protobuf prints for it (MessageToJson),
// holding a GraphDef, a MetaGraphDef (.meta) or a SavedModel (saved_model.pb).
// A file that does not parse is an InputError (I-PROTO) that says where: a
// line and column, or a byte offset and the field path.
#pragma once

#include "formats/graphdef/graphdef.pb.h"
#include "support/stop_token.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfsem::graphdef {

enum class Encoding : std::uint8_t { binary, text, json };
enum class Container : std::uint8_t { graph_def, meta_graph_def, saved_model };

struct Sniffed {
  Encoding encoding;
  Container container;
};

// What a graph file holds, told by its contents: JSON by its first key, text
// by a field name at its start and no binary bytes, the rest binary. The
// container is the message a text or JSON file's first field belongs to; of
// a binary file, a SavedModel when it starts with its schema version or is
// named saved_model.pb, a MetaGraphDef when named *.meta, else a GraphDef.
// nullopt for a JSON object that is none of these (tfsem's own format).
std::optional<Sniffed> sniff(const std::filesystem::path& file, std::string_view contents);

// The encoding a file's name gives it (.pb and .meta binary, .pbtxt and
// .pbtext text, .json JSON), if any.
std::optional<Encoding> named_encoding(const std::filesystem::path& file);
std::string_view encoding_name(Encoding e);

struct ReadGraph {
  GraphDef graph;
  // Fields of a binary file outside the subset in graphdef.proto, skipped:
  // "NodeDef field 7 (node 'x')".
  std::vector<std::string> skipped;
};

// Parses `contents`; `origin` (the file name) starts every error's place.
// Throws Stopped when `stop` (may be null) stops the work: polled every 64 KiB
// of a binary or text file, before and after a JSON one.
ReadGraph parse(std::string_view contents, Encoding encoding, const std::string& origin, const StopToken* stop = nullptr);

struct ReadMetaGraphs {
  // A SavedModel's MetaGraphs, or the one MetaGraphDef of a .meta file.
  std::vector<MetaGraphDef> meta_graphs;
  // Fields outside the subset, skipped: of a binary file, those of the
  // MetaGraphs and their graphs ("MetaGraphDef field 4"); of a text file,
  // by name and line (a GraphDef in a file of its own has them as errors).
  std::vector<std::string> skipped;
};

// Parses `contents` as a SavedModel or a MetaGraphDef (`container`).
ReadMetaGraphs parse_meta_graphs(std::string_view contents, Encoding encoding, Container container, const std::string& origin,
                                 const StopToken* stop = nullptr);

}  // namespace tfsem::graphdef
