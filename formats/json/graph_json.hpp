// The JSON graph format (specs/graph.schema.json, docs/format.md): reading it
// into a ProgramSpec with a JSON path on every element, and writing values,
// states and outputs back as JSON. The semantics itself knows no JSON.
#pragma once

#include "semantics/program.hpp"
#include "semantics/state.hpp"
#include "semantics/term_text.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace tfsem::format {

// Throws InputError naming the JSON path of every problem.
ProgramSpec parse_program(const nlohmann::json& doc);
// The inverse of parse_program: a spec as the JSON format writes it.
nlohmann::json program_to_json(const ProgramSpec& spec);
// Reads a graph from its JSON text, streaming (no document is built) where it
// can; malformed JSON is an InputError with line and column (origin:LINE:COL),
// and every other problem names its JSON path, as parse_program's do.
ProgramSpec parse_program_text(std::string_view text, const std::string& origin);
// Reads a file and parses it with parse_program_text.
ProgramSpec load_program_file(const std::filesystem::path& file);
// Program::build of parse_program_text's spec, building the Program while a
// large graph's edges are still being read (stream_build); throws
// InputError as the two do, and Stopped when `stop` (may be null) stops it,
// which it tells the phase: "during validation" once the builder takes the
// graph ("during import" while the document reader reads a text the stream
// leaves to it).
std::shared_ptr<const Program> build_program_text(std::string_view text, const std::string& origin,
                                                  const StopToken* stop = nullptr);
nlohmann::json parse_json_text(std::string_view text, const std::string& origin);

// A tensor literal: "A" (a symbolic atom), "f(A,g(B))" (a symbolic term), 3 (i32), 2.5 (f32), true (bool),
// [[1,2],[3,4]] (i32 or f32), {"dtype": "f64", "value": ...},
// {"dtype": "i32", "shape": [1000], "fill": 1}, {"error": "domain", "message": "..."}.
Tensor parse_tensor(const nlohmann::json& j, const std::string& path);

// Overrides the initial contents of input edge `edge` with the JSON `value`
// (`--feed EDGE=VALUE` on the command line).
void apply_feed(ProgramSpec& spec, const std::string& assignment);
// EDGE=VALUE as {EDGE, VALUE}; throws InputError (G-FEED) without '='.
std::pair<std::string, std::string> split_feed(const std::string& assignment);

// A term is its text (Tensor::to_string): with the names of a TermNames::Scope
// open on this thread, else self-contained.
nlohmann::json tensor_to_json(const Tensor& t);
nlohmann::json content_to_json(const Program& p, const Content& c);
// The definitions of the subterms that values written with `names` share, in
// the order they were named, each using only names defined before it:
// [{"name": "%1", "term": "F(X,X)"}, {"name": "%2", "term": "F(%1,%1)"}].
nlohmann::json terms_to_json(const TermNames& names);
// {"VarValue": {...}, "InTransit": {"edge": ..., "edge[while:2]": ...}}, and with
// control flow "Fired": ["node", "node[while:2]", ...]; with "terms" (terms_to_json)
// when its values share subterms.
nlohmann::json state_to_json(const Program& p, const Contexts& contexts, const State& s);
// A run's outputs by fetch name ({"y": ...}) and VarValue by variable name ({"x": ...}).
nlohmann::json outputs_to_json(const Program& p, const std::vector<std::pair<std::string, Content>>& outputs);
nlohmann::json var_value_to_json(const Program& p, const std::vector<Tensor>& var_value);

}  // namespace tfsem::format
