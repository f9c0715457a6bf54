// Static recursion (thesis section 5): at each call site, a Call per argument
// takes it into the context of the call (the tag with the site appended),
// and a Return per result brings it back to the caller's context.
#pragma once

#include "semantics/rules/op_rule.hpp"

namespace tfsem::rules {

inline std::uint32_t call_site(const Node& n) {
  return static_cast<std::uint32_t>(std::get<std::int64_t>(n.attrs().at(std::string(kSiteAttr))));
}

// Call(function, site).
struct Call : OpRule {
  // Its control edges go to the site's Returns, in the caller's context.
  static constexpr bool kControlStays = true;
  static std::uint32_t site(const Node& n) { return call_site(n); }
  static std::uint32_t moves(const Program&, NodeId) { return kMovesFirstInput; }

  // C-CALL: into the function's frame, the site appended to the tag.
  static ContextId out_context(const Semantics& sem, NodeId n, ContextId c) {
    const auto& p = sem.program();
    return sem.contexts().call(c, p.edge(p.node(n).out[0]).frame, sem.site(n));
  }
  static Successors fire(Firing& f, bool dead_control) {
    if (dead_control || is_dead(f.input(f.node.in[0]))) return fire_dead_call(f);
    // C-CALL: Call consumes its argument in context c and puts it in the context
    // of the call made at its site from c (the tag with the site appended), and
    // GO on its control edges to the site's Returns, in c.
    return pass_on(f);
  }
  // C-CALL-DEAD: a DEAD argument makes no call (the function's frame gets
  // nothing, so a dead recursive call ends); DEAD goes on the control edges to
  // the site's Returns instead ("every Call has a control edge to its Return").
  static Successors fire_dead_call(Firing& f) {
    f.consume(f.node.in[0]);
    f.control_out(Dead{});
    return f.one();
  }
  // Its argument fills the call its site makes; its control edges stay in the caller.
  template <class Dep, class View>
  static void producers(const Dep& dep, const View& v, const Frontier&, const Edge& e, Slot s, std::vector<Transition>& out) {
    if (e.kind == EdgeKind::control) return dep.unfired(v, {e.src, s.context}, out);
    const auto& sem = dep.semantics();
    const auto& entry = sem.contexts()[s.context];
    if (entry.iteration == sem.site(e.src)) dep.unfired(v, {e.src, entry.parent}, out);
  }
};

// Return(function, site).
struct Return : OpRule {
  static constexpr bool kReadsCallee = true;
  static std::uint32_t site(const Node& n) { return call_site(n); }
  static std::uint32_t moves(const Program&, NodeId) { return kMovesFirstInput; }

  // C-RETURN: the call's result; a DEAD control input (the call was not made) needs none.
  template <class View>
  static bool ready(const Semantics& sem, const View& v, Transition t) {
    const auto& node = sem.program().node(t.node);
    for (auto d : node.control_in)
      if (v.holds(sem.in_slot(d, t.context)) == Holds::dead) return true;
    return v.holds(sem.in_slot(node.in[0], t.context)) != Holds::empty;
  }
  // C-RETURN: Return, in the caller's context c, takes the result of the call
  // its site made from c (the input whose tag ends with its site, which it
  // removes) and puts it in c. A DEAD control input from the site's Call means
  // the call was not made: C-DEAD then outputs DEAD without the result.
  static Successors fire(Firing& f, bool dead_control) {
    if (f.dead(dead_control)) return fire_dead(f);
    return pass_on(f);
  }
};

}  // namespace tfsem::rules
