// Reading a TensorFlow GraphDef from a file in any of its three encodings:
// binary (.pb), protobuf's text format (.pbtxt), or the JSON protobuf prints
// for it (MessageToJson). A file that does not parse is an InputError (I-PROTO)
// that says where: a line and column, or a byte offset and the field path.
#pragma once

#include "formats/graphdef/graphdef.pb.h"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tfsem::graphdef {

enum class Encoding : std::uint8_t { binary, text, json };

// The encoding of a GraphDef file, by its extension (.pb, .pbtxt, .pbtext) or,
// for any other, by its contents; nullopt for a JSON object that is not a
// GraphDef (tfsem's own format).
std::optional<Encoding> sniff(const std::filesystem::path& file, std::string_view contents);

struct ReadGraph {
  GraphDef graph;
  // Fields of a binary file outside the subset in graphdef.proto, skipped:
  // "NodeDef field 7 (node 'x')".
  std::vector<std::string> skipped;
};

// Parses `contents`; `origin` (the file name) starts every error's place.
ReadGraph parse(std::string_view contents, Encoding encoding, const std::string& origin);

}  // namespace tfsem::graphdef
