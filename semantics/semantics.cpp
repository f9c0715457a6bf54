#include "semantics/semantics.hpp"

#include <stdexcept>

namespace tfsem {

Semantics::Semantics(std::shared_ptr<const Program> program, Options options)
    : program_(std::move(program)), options_(options) {
  for (std::size_t i = 0; i < program_->nodes().size(); ++i) {
    const NodeId n(i);
    const auto kind = program_->node(n).op.kind;
    if (kind == Op::Kind::read) access_.push_back({Access::Kind::read, *program_->variable_of(n)});
    else if (kind == Op::Kind::assign) access_.push_back({Access::Kind::update, *program_->variable_of(n)});
    else access_.push_back({});
  }
}

State Semantics::initial() const {
  State s;
  // S-INIT-3: "for each variable x, VarValue(x) is in Tensors" (footnote 4).
  for (const auto& v : program_->variables()) s.var_value.push_back(v.initial);
  // S-INIT-1, S-INIT-2: input edges are not EMPTY; all other edges are EMPTY.
  for (const auto& e : program_->edges()) s.in_transit.push_back(e.is_input() ? e.initial : Content{Empty{}});
  return s;
}

State Semantics::next_run(const State& end_of_run) const {
  State s = initial();
  s.var_value = end_of_run.var_value;  // S-SESSION: "mutable state does persist across executions"
  return s;
}

bool Semantics::enabled(const State& s, NodeId n) const {
  return enabled_by(n, [&](EdgeId d) { return is_empty(s.in_transit[d.index()]); });
}

std::vector<Blocker> Semantics::why_not_enabled(const State& s, NodeId n) const {
  std::vector<Blocker> out;
  const auto fired_now = fired(s);
  for (auto d : program_->incoming(n)) {
    if (!is_empty(s.in_transit[d.index()])) continue;
    const auto& e = program_->edge(d);
    std::string reason = "incoming " + std::string(edge_kind_name(e.kind)) + " edge '" + e.name + "' is EMPTY";
    if (e.is_input()) reason += " (an input edge, already consumed)";
    else if (!fired_now[e.src.index()]) reason += " (node '" + program_->node(e.src).name + "' has not fired)";
    out.push_back({d, std::move(reason)});
  }
  return out;
}

std::vector<NodeId> Semantics::enabled_nodes(const State& s) const {
  std::vector<NodeId> out;
  for (std::size_t i = 0; i < program_->nodes().size(); ++i)
    if (enabled(s, NodeId(i))) out.emplace_back(i);
  return out;
}

Successors Semantics::fire(const State& s, NodeId n) const {
  if (!enabled(s, n)) throw std::logic_error("fire: node '" + program_->node(n).name + "' is not enabled");
  const auto& node = program_->node(n);
  // S-FRAME: s' starts as s; only edges incident on n (and, for Assign-f, VarValue(x)) change.
  State base = s;
  auto in_transit = [&](EdgeId e) -> Content& { return base.in_transit[e.index()]; };
  // S-CTRL-1: "InTransit(d) = EMPTY in s'" for all incoming control edges d.
  for (auto d : node.control_in) in_transit(d) = Empty{};
  // S-CTRL-2: "InTransit(e) = GO in s'" for all outgoing control edges e.
  for (auto e : node.control_out) in_transit(e) = Go{};

  Successors out;
  switch (node.op.kind) {
    case Op::Kind::function: {
      // S-FN-1: InTransit(d_i) = v_i for some tensor v_i in s.
      std::vector<Tensor> args;
      for (auto d : node.in) args.push_back(std::get<Tensor>(in_transit(d)));
      // S-FN-2: InTransit(d_i) = EMPTY in s'.
      for (auto d : node.in) in_transit(d) = Empty{};
      // S-FN-3: InTransit(e_j) is the j-th result of f(v_1..v_k) in s'; S-NONDET: any
      // result of a relation f.
      for (auto& tuple : apply(*node.op.fn, args, node.attrs, options_.terms)) {
        State next = base;
        for (std::size_t j = 0; j < node.out.size(); ++j) next.in_transit[node.out[j].index()] = std::move(tuple[j]);
        out.push_back(std::move(next));
      }
      return out;
    }
    case Op::Kind::var:
      // S-VAR: "InTransit(e) = x in s', where e is n's outgoing variable edge".
      in_transit(node.out[0]) = node.op.var;
      out.push_back(std::move(base));
      return out;
    case Op::Kind::read: {
      // S-READ-1: InTransit(d) = x for some x in s.
      const auto x = std::get<VarId>(in_transit(node.in[0]));
      // S-READ-2: InTransit(d) = EMPTY in s'.
      in_transit(node.in[0]) = Empty{};
      // S-READ-3: InTransit(e) = VarValue(x) in s'.
      in_transit(node.out[0]) = s.var_value[x.index()];
      out.push_back(std::move(base));
      return out;
    }
    case Op::Kind::assign: {
      // S-ASSIGN-1, S-ASSIGN-3: InTransit(d_1) = x and InTransit(d_2) = v in s.
      const auto x = std::get<VarId>(in_transit(node.in[0]));
      const auto v = std::get<Tensor>(in_transit(node.in[1]));
      // S-ASSIGN-2, S-ASSIGN-4: both incoming edges are EMPTY in s'.
      in_transit(node.in[0]) = Empty{};
      in_transit(node.in[1]) = Empty{};
      // S-ERR-ASSIGN (footnote 5): no side effect when the input v is an error.
      if (v.is_error()) {
        out.push_back(std::move(base));
        return out;
      }
      // S-ASSIGN-5: VarValue(x) = f(w, v) in s', where w = VarValue(x) in s.
      // S-ASSIGN-6: every other VarValue(y) is unchanged (base is a copy of s).
      const Tensor w = s.var_value[x.index()];
      const Tensor args[] = {w, v};
      for (auto& tuple : apply(*node.op.fn, args, node.attrs, options_.terms)) {
        State next = base;
        next.var_value[x.index()] = std::move(tuple[0]);
        out.push_back(std::move(next));
      }
      return out;
    }
  }
  return out;
}

bool Semantics::terminal(const State& s) const {
  for (std::size_t i = 0; i < program_->nodes().size(); ++i)
    if (enabled(s, NodeId(i))) return false;
  return true;
}

std::vector<bool> Semantics::fired(const State& s) const {
  std::vector<bool> done;
  fired_by([&](EdgeId d) { return is_empty(s.in_transit[d.index()]); }, done);
  return done;
}

std::vector<StuckNode> Semantics::stuck(const State& s) const {
  std::vector<StuckNode> out;
  const auto done = fired(s);
  for (auto n : program_->topological_order())
    if (!done[n.index()]) out.push_back({n, why_not_enabled(s, n)});
  return out;
}

Access Semantics::access(NodeId n) const { return access_[n.index()]; }

bool Semantics::overwrites(const State& s, NodeId n) const {
  const auto& node = program_->node(n);
  return node.op.kind == Op::Kind::assign && overwrites(n, s.in_transit[node.in[1].index()]);
}

bool Semantics::overwrites(NodeId n, const Content& v) const {
  const auto& op = program_->node(n).op;
  if (op.kind != Op::Kind::assign || (op.fn->ignored_args & 1U) == 0 || op.fn->nondeterministic) return false;
  const auto* t = std::get_if<Tensor>(&v);
  return t != nullptr && !t->is_error();
}

bool Semantics::deterministic(NodeId n) const {
  const auto& op = program_->node(n).op;
  return op.fn == nullptr || !op.fn->nondeterministic;
}

bool Semantics::precedes(NodeId a, NodeId b) const {
  std::call_once(ancestors_->once, [this] {
    const std::size_t n = program_->nodes().size(), words = (n + 63) / 64;
    auto& rows = ancestors_->rows;
    rows.assign(n, std::vector<std::uint64_t>(words, 0));
    for (auto v : program_->topological_order())
      for (auto d : program_->incoming(v)) {
        const auto& e = program_->edge(d);
        if (e.is_input()) continue;
        for (std::size_t w = 0; w < words; ++w) rows[v.index()][w] |= rows[e.src.index()][w];
        rows[v.index()][e.src.index() / 64] |= std::uint64_t{1} << (e.src.index() % 64);
      }
  });
  return (ancestors_->rows[b.index()][a.index() / 64] >> (a.index() % 64) & 1U) != 0;
}

}  // namespace tfsem
