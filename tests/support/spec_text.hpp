// A ProgramSpec as text, with every field a reader fills (the JSON its writer
// gives, and the JSON path of each element): two readers of one graph agree
// exactly when their specs' texts are equal. And what a build gives, as
// text: two ways of building one graph agree exactly when these are equal.
#pragma once

#include "semantics/diagnostic.hpp"
#include "formats/json/graph_json.hpp"

#include <string>

namespace tfsem::test {

inline std::string spec_text(const ProgramSpec& spec) {
  std::string text = format::program_to_json(spec).dump() + "\nwhere " + spec.where;
  const auto add = [&text](const std::string& what, std::string_view where) { text.append("\n" + what + " ").append(where); };
  for (const auto& v : spec.variables) add("variable " + v.name, v.where);
  for (const auto& f : spec.functions) add("function " + f.name + " " + f.description, f.where);
  const auto body = [&](const std::vector<NodeSpec>& nodes, const auto& edges) {
    for (const auto& n : nodes) add("node " + n.id, n.where);
    for (const auto& e : edges) add("edge " + e.id, e.where);
  };
  body(spec.nodes, spec.edges);
  for (const auto& f : spec.library) {
    add("library " + f.name, f.where);
    body(f.nodes, f.edges);
  }
  return text;
}

// What build() gives: the spec its Program gives back, or "error:" and
// every problem the rules find, one a line.
template <class Build>
std::string built_text(Build&& build) {
  try {
    return spec_text(build()->spec());
  } catch (const InputError& e) {
    std::string out = "error:";
    for (const auto& d : e.diagnostics()) out += "\n" + d.to_string();
    return out;
  }
}

}  // namespace tfsem::test
