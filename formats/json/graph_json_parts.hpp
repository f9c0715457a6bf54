// The pieces of the JSON graph reader that both of its paths share: the
// document reader (graph_json.cpp, over an nlohmann DOM) and the streaming
// reader (graph_stream.cpp). Each throws InputError naming the JSON path.
#pragma once

#include "semantics/program.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tfsem::format {

// "NODE" or "NODE:PORT", the text of an edge's "from" or "to" at path/key.
PortRef port_ref(std::string_view text, const std::string& path, const char* key);
// A node's "attrs" at path, read by the types op's attributes have.
Attrs parse_attrs(const nlohmann::json& attrs, const std::string& path, std::string_view op);
// An input edge's "value" (at path) by the edge's kind: GO, a variable name or a tensor.
void set_edge_value(EdgeSpec& es, const nlohmann::json& value, const std::string& path);
// The document's "variables", "functions" and "library" members, appended to spec.
void read_variables(const nlohmann::json& variables, ProgramSpec& spec);
void read_functions(const nlohmann::json& functions, ProgramSpec& spec);
void read_library(const nlohmann::json& library, ProgramSpec& spec);

// How the streaming reader shares a large array (a graph's nodes or its
// edges) among threads: in at most `threads` parts (0: one per core), as
// many as the array has `min_part` elements, each read on a thread of its
// own (a part starts at a comma the count noted, every min_part / 8
// elements, so it may be that much shorter). The spec it reads is the same
// for any split; a thread that cannot be started leaves the text to the
// document reader.
// stream_build hands the edges to the builder in pieces of `piece` edges,
// read by up to `threads` threads (at most four), the calling thread
// reading the pieces of a thread that cannot start.
struct StreamSplit {
  unsigned threads = 0;
  std::size_t min_part = std::size_t{1} << 15;
  std::size_t piece = std::size_t{1} << 14;
};

// The streaming reader: the spec parse_program(json::parse(text)) gives, read
// without building the document; nullopt where it cannot vouch for that (any
// malformed JSON or invalid graph, and rare forms: escapes or non-ASCII
// characters in names, a key given twice), which the document reader then reads.
std::optional<ProgramSpec> stream_program(std::string_view text, StreamSplit split = {});
// The Program Program::build(stream_program(text)) gives, or nullopt where
// stream_program gives none, built as the text is read: the graph's edges
// are read last, in pieces that the builder takes as they come and the
// reader then frees, so the spec's edges never lie in memory at once, and
// the reading runs beside the building. Throws InputError or Stopped as
// Program::build does, and std::bad_alloc when reading a piece runs out of
// memory; it tells `stop` (may be null) the phase, "during validation",
// once the builder takes the graph.
std::optional<std::shared_ptr<const Program>> stream_build(std::string_view text, const StopToken* stop,
                                                           StreamSplit split = {});

}  // namespace tfsem::format
