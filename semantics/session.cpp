#include "semantics/session.hpp"

#include "semantics/diagnostic.hpp"
#include "semantics/hash.hpp"

namespace tfsem {

Schedule parse_schedule(const Program& p, const std::string& text) {
  Schedule out;
  std::string item;
  auto flush = [&] {
    if (item.empty()) return;
    std::string name = item;
    std::uint32_t choice = 0;
    if (auto slash = item.find('/'); slash != std::string::npos) {
      name = item.substr(0, slash);
      const auto digits = item.substr(slash + 1);
      if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
        throw InputError("T-SCHEDULE", "schedule", "step '" + item + "'", "a step is NODE or NODE/CHOICE");
      choice = static_cast<std::uint32_t>(std::stoul(digits));
    }
    auto n = p.find_node(name);
    if (!n) throw InputError("T-SCHEDULE", "schedule", "step '" + item + "'", "no node '" + name + "'");
    out.push_back({*n, choice});
    item.clear();
  };
  for (char c : text) {
    if (c == ',' || c == ' ' || c == '\t') flush();
    else item += c;
  }
  flush();
  return out;
}

std::string schedule_to_string(const Program& p, const Schedule& s) {
  std::string out;
  for (const auto& step : s) {
    if (!out.empty()) out += ',';
    out += p.node(step.node).name;
    if (step.choice) out += "/" + std::to_string(step.choice);
  }
  return out;
}

std::optional<std::string> refuse_step(const Semantics& sem, const State& s, const Step& step) {
  const auto& name = sem.program().node(step.node).name;
  if (!sem.enabled(s, step.node)) {
    std::string why = "node '" + name + "' is not enabled:";
    for (const auto& b : sem.why_not_enabled(s, step.node)) why += " " + b.reason + ";";
    why.pop_back();
    return why;
  }
  const auto& op = sem.program().node(step.node).op;
  const bool relation = (op.kind == Op::Kind::function || op.kind == Op::Kind::assign) && op.fn->nondeterministic;
  if (step.choice != 0 && !relation) return "node '" + name + "' is deterministic: it has no choice " + std::to_string(step.choice);
  return std::nullopt;
}

std::optional<std::string> replay(const Semantics& sem, State& s, const Schedule& schedule) {
  for (const auto& step : schedule) {
    if (auto why = refuse_step(sem, s, step)) return why;
    s = std::move(sem.fire(s, step.node)[step.choice]);
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, Content>> outputs(const Program& p, const State& s) {
  std::vector<std::pair<std::string, Content>> out;
  for (std::size_t e = 0; e < p.edges().size(); ++e) {
    const auto& edge = p.edge(EdgeId(e));
    if (edge.is_output() && !edge.fetch.empty()) out.emplace_back(edge.fetch, s.in_transit[e]);
  }
  return out;
}

std::uint64_t RandomScheduler::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  return mix64(state_);
}

}  // namespace tfsem
