#include "semantics/session.hpp"

#include "semantics/diagnostic.hpp"
#include "support/hash.hpp"

#include <algorithm>

namespace tfsem {

namespace {

[[noreturn]] void refuse(const std::string& item, const std::string& message) {
  throw InputError("T-SCHEDULE", "schedule", "step '" + item + "'", message);
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 6 && s.find_first_not_of("0123456789") == std::string::npos;
}

// "F:i,G:j": iteration i of frame F, and in it iteration j of frame G. Each
// iteration of a loop takes a step (its NextIteration's), so a run of `steps`
// steps reaches no iteration beyond it; the contexts up to it are interned.
ContextId parse_context(const Semantics& sem, const std::string& item, const std::string& text, std::size_t steps) {
  const auto& p = sem.program();
  ContextId c = kRootContext;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const auto end = std::min(text.find(',', begin), text.size());
    const auto part = text.substr(begin, end - begin);
    const auto colon = part.rfind(':');
    if (colon == std::string::npos || !all_digits(part.substr(colon + 1)))
      refuse(item, "a context is FRAME:ITERATION,..., not '" + text + "'");
    const auto frame = p.find_frame(part.substr(0, colon));
    if (!frame) refuse(item, "no loop frame or function '" + part.substr(0, colon) + "'");
    const auto& f = p.frame(*frame);
    const auto here = sem.contexts()[c].frame;
    const auto number = static_cast<std::uint32_t>(std::stoul(part.substr(colon + 1)));
    const bool call = f.kind == Frame::Kind::function;
    const bool reached = call ? std::any_of(f.calls.begin(), f.calls.end(), [&](NodeId n) { return p.node(n).frame == here; })
                              : f.parent == here;
    if (!reached)
      refuse(item, (call ? "function '" : "loop frame '") + part.substr(0, colon) + "' is not " +
                       (call ? "called" : "entered") + " from " +
                       (c == kRootContext ? std::string("the root frame") : "context " + context_to_string(p, sem.contexts(), c)));
    if (!call && number > steps)
      refuse(item, "iteration " + std::to_string(number) + " of loop frame '" + part.substr(0, colon) +
                       "' cannot be reached in a run of " + std::to_string(steps) + " steps");
    c = call ? sem.contexts().call(c, *frame, number) : sem.contexts().child(c, *frame, number);
    begin = end + 1;
  }
  return c;
}

Step parse_step(const Semantics& sem, const std::string& item, std::size_t steps) {
  const auto& p = sem.program();
  std::string name = item, context, choice;
  if (const auto open = item.find('['); open != std::string::npos) {
    const auto close = item.find(']', open);
    if (close == std::string::npos) refuse(item, "a step is NODE, NODE[CONTEXT] or either with /CHOICE");
    name = item.substr(0, open);
    context = item.substr(open + 1, close - open - 1);
    const auto rest = item.substr(close + 1);
    if (!rest.empty() && (rest[0] != '/' || !all_digits(rest.substr(1))))
      refuse(item, "a step is NODE, NODE[CONTEXT] or either with /CHOICE");
    if (!rest.empty()) choice = rest.substr(1);
  } else if (const auto slash = item.rfind('/'); slash != std::string::npos && !p.find_node(item)) {
    name = item.substr(0, slash);
    choice = item.substr(slash + 1);
    if (!all_digits(choice)) refuse(item, "a step is NODE, NODE[CONTEXT] or either with /CHOICE");
  }
  const auto n = p.find_node(name);
  if (!n) refuse(item, "no node '" + name + "'");
  Step step{*n, context.empty() ? kRootContext : parse_context(sem, item, context, steps), 0};
  if (!choice.empty()) step.choice = static_cast<std::uint32_t>(std::stoul(choice));
  if (const auto frame = p.node(*n).frame; sem.contexts()[step.context].frame != frame)
    refuse(item, "node '" + name + "' fires in loop frame '" + p.frame(frame).name + "': name its context, as in " + name + "[" +
                     p.frame(frame).name + ":0]");
  return step;
}

}  // namespace

Schedule parse_schedule(const Semantics& sem, const std::string& text) {
  std::vector<std::string> items(1);
  int depth = 0;  // commas inside [...] separate a context's frames
  for (char c : text) {
    depth += c == '[' ? 1 : c == ']' ? -1 : 0;
    if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n')) {
      if (!items.back().empty()) items.emplace_back();
    } else {
      items.back() += c;
    }
  }
  if (items.back().empty()) items.pop_back();
  Schedule out;
  for (const auto& item : items) out.push_back(parse_step(sem, item, items.size()));
  return out;
}

namespace {
std::string step_name(ContextNames& names, const Step& s) {
  auto out = names.transition(s.transition());
  if (s.choice) out += "/" + std::to_string(s.choice);
  return out;
}
}  // namespace

std::string step_to_string(const Semantics& sem, const Step& s) {
  ContextNames names(sem.program(), sem.contexts());
  return step_name(names, s);
}

std::string schedule_to_string(const Semantics& sem, const Schedule& s) {
  ContextNames names(sem.program(), sem.contexts());
  std::string out;
  for (const auto& step : s) {
    if (!out.empty()) out += ',';
    out += step_name(names, step);
  }
  return out;
}

std::optional<std::string> refuse_step(const Semantics& sem, const State& s, const Step& step) {
  const auto name = transition_to_string(sem.program(), sem.contexts(), step.transition());
  if (!sem.enabled(s, step.transition())) {
    std::string why = "node '" + name + "' is not enabled:";
    for (const auto& b : sem.why_not_enabled(s, step.transition())) why += " " + b.reason + ";";
    why.pop_back();
    return why;
  }
  if (step.choice != 0) {
    const auto results = sem.fire(s, step.transition()).size();
    if (step.choice >= results)
      return "node '" + name + "' has " + std::to_string(results) + " possible result" + (results == 1 ? "" : "s") +
             ", so no choice " + std::to_string(step.choice);
  }
  return std::nullopt;
}

std::optional<std::string> replay(const Semantics& sem, State& s, const Schedule& schedule) {
  for (const auto& step : schedule) {
    if (auto why = refuse_step(sem, s, step)) return why;
    s = std::move(sem.fire(s, step.transition())[step.choice]);
  }
  return std::nullopt;
}

std::vector<std::pair<std::string, Content>> outputs(const Program& p, const State& s) {
  std::vector<std::pair<std::string, Content>> out;
  for (std::size_t e = 0; e < p.edges().size(); ++e) {
    const auto& edge = p.edge(EdgeId(e));
    if (!p.fetch(edge).empty()) out.emplace_back(p.fetch(edge), s.at(EdgeId(e)));
  }
  return out;
}

std::uint64_t RandomScheduler::next() {
  state_ += 0x9e3779b97f4a7c15ULL;
  return mix64(state_);
}

}  // namespace tfsem
