#include "semantics/state.hpp"

#include "semantics/hash.hpp"
#include "semantics/program.hpp"

namespace tfsem {

std::size_t State::hash() const {
  std::size_t h = 0x5eed;
  for (const auto& v : var_value) h = hash_combine(h, v.hash());
  for (const auto& c : in_transit) h = hash_combine(h, hash_content(c));
  return h;
}

std::string content_to_string(const Program& p, const Content& c, std::size_t max_elements) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Empty>) return "EMPTY";
        else if constexpr (std::is_same_v<T, Go>) return "GO";
        else if constexpr (std::is_same_v<T, VarId>) return p.variable(v).name;
        else return v.to_string(max_elements);
      },
      c);
}

std::string state_to_string(const Program& p, const State& s, const std::string& indent, std::size_t max_elements) {
  std::string out = indent + "VarValue:";
  for (std::size_t x = 0; x < s.var_value.size(); ++x)
    out += (x ? ", " : " ") + p.variable(VarId(x)).name + " = " + s.var_value[x].to_string(max_elements);
  out += "\n" + indent + "InTransit:";
  bool any = false;
  for (std::size_t e = 0; e < s.in_transit.size(); ++e) {
    if (is_empty(s.in_transit[e])) continue;
    out += std::string(any ? ", " : " ") + p.edge(EdgeId(e)).name + " = " +
           content_to_string(p, s.in_transit[e], max_elements);
    any = true;
  }
  if (!any) out += " (all edges EMPTY)";
  return out;
}

}  // namespace tfsem
