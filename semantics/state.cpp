#include "semantics/state.hpp"

#include "support/hash.hpp"
#include "semantics/program.hpp"

namespace tfsem {

const Content& State::at(EdgeId e, ContextId c) const {
  static const Content empty = Empty{};
  const auto it = in_transit.find({e, c});
  return it == in_transit.end() ? empty : it->second;
}

void State::put(Slot s, Content c) {
  if (is_empty(c)) in_transit.erase(s);
  else in_transit.insert_or_assign(s, std::move(c));
}

std::size_t State::hash() const {
  std::size_t h = 0x5eed;
  for (const auto& v : var_value) h = hash_combine(h, v.hash());
  for (const auto& [slot, c] : in_transit)
    h = hash_combine(hash_combine(h, std::size_t{slot.edge.value} << 32 | slot.context.value), hash_content(c));
  for (const auto& t : fired) h = hash_combine(h, std::hash<Transition>{}(t));
  if (retired != 0) h = hash_combine(h, retired);
  if (!path.empty()) h = hash_combine(h, path.hash());
  return h;
}

std::string content_to_string(const Program& p, const Content& c, std::size_t max_elements) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Empty>) return "EMPTY";
        else if constexpr (std::is_same_v<T, Go>) return "GO";
        else if constexpr (std::is_same_v<T, Dead>) return "DEAD";
        else if constexpr (std::is_same_v<T, VarId>) return p.variable(v).name;
        else return v.to_string(max_elements);
      },
      c);
}

std::string context_to_string(const Program& p, const Contexts& contexts, ContextId c) {
  std::string out;
  for (; c != kRootContext; c = contexts[c].parent) {
    const auto& e = contexts[c];
    out = p.frame(e.frame).name + ":" + std::to_string(e.iteration) + (out.empty() ? "" : ",") + out;
  }
  return out;
}

const std::string& ContextNames::operator()(ContextId c) {
  if (const auto it = names_.find(c.value); it != names_.end()) return it->second;
  // The unnamed ancestors, innermost first, are named outermost first.
  std::vector<ContextId> unnamed;
  for (auto a = c; !names_.contains(a.value); a = contexts_[a].parent) unnamed.push_back(a);
  for (auto it = unnamed.rbegin(); it != unnamed.rend(); ++it) {
    const auto& e = contexts_[*it];
    const auto& outer = names_.at(e.parent.value);
    names_.emplace(it->value, outer + (outer.empty() ? "" : ",") + std::string(program_.frame(e.frame).name) + ":" +
                                  std::to_string(e.iteration));
  }
  return names_.at(c.value);
}

std::string ContextNames::transition(Transition t) {
  std::string name(program_.node(t.node).name());
  return t.context == kRootContext ? name : name + "[" + (*this)(t.context) + "]";
}

std::string bound_to_string(const Program& p, FrameId f, const Bounds& b) {
  const auto& frame = p.frame(f);
  return frame.kind == Frame::Kind::function ? "max-depth " + std::to_string(b.max_depth) + " in function '" + frame.name + "'"
                                             : "max-iterations " + std::to_string(b.max_iterations) + " in loop '" + frame.name + "'";
}

namespace {
std::string in_context(const Program& p, const Contexts& contexts, std::string_view name, ContextId c) {
  std::string text(name);
  return c == kRootContext ? text : text + "[" + context_to_string(p, contexts, c) + "]";
}
}  // namespace

std::string transition_to_string(const Program& p, const Contexts& contexts, Transition t) {
  return in_context(p, contexts, p.node(t.node).name(), t.context);
}

std::string slot_to_string(const Program& p, const Contexts& contexts, Slot s) {
  return in_context(p, contexts, p.edge(s.edge).name(), s.context);
}

std::string state_to_string(const Program& p, const Contexts& contexts, const State& s, const std::string& indent,
                            std::size_t max_elements) {
  std::string out = indent + "VarValue:";
  for (std::size_t x = 0; x < s.var_value.size(); ++x)
    out += (x ? ", " : " ") + p.variable(VarId(x)).name + " = " + s.var_value[x].to_string(max_elements);
  out += "\n" + indent + "InTransit:";
  bool any = false;
  for (const auto& [slot, c] : s.in_transit) {  // by edge, then context
    out += std::string(any ? ", " : " ") + slot_to_string(p, contexts, slot) + " = " + content_to_string(p, c, max_elements);
    any = true;
  }
  if (!any) out += " (all edges EMPTY)";
  if (!s.path.empty()) out += "\n" + indent + "Path: " + s.path.to_string();
  return out;
}

}  // namespace tfsem
