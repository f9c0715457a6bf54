#include "report/trace.hpp"

#include "formats/json/graph_json.hpp"
#include "report/forms.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace tfsem::report {

namespace {

std::string name(const Semantics& sem, Transition t) { return transition_to_string(sem.program(), sem.contexts(), t); }

class TraceText : public TraceWriter {
 public:
  explicit TraceText(std::ostream& out) : out_(out) {}

  void begin(const Program& last) override { out_ << "graph " << last.name() << " hash " << last.hash_hex() << "\n"; }

  void graph(const Semantics& sem, int run) override {
    out_ << "graph of run " << run << ": hash " << sem.program().hash_hex() << "\n";
  }

  void run(const Semantics& sem, int run, const State& s) override {
    out_ << "run " << run << "\n  initial state\n" << state_text(sem, s);
  }

  void step(const Semantics& sem, std::size_t index, const Step& step, const State& s) override {
    const auto& p = sem.program();
    out_ << "  step " << index << ": fire " << name(sem, step.transition()) << " (" << p.label(step.node) << ")"
         << (step.choice ? " choosing result " + std::to_string(step.choice) : "") << "\n"
         << state_text(sem, s);
  }

  void end_run(const Semantics& sem, const State& s, const RunEnd& end) override {
    const auto& p = sem.program();
    if (end.beyond) {
      out_ << "  INCOMPLETE: the next step goes past --" << bound_to_string(p, *end.beyond, end.bounds) << "\n";
    } else if (end.terminal) {
      out_ << "  terminal state after " << end.steps << " steps\n";
    } else {
      out_ << "  the schedule ended before a terminal state; still enabled:";
      for (auto t : sem.enabled_transitions(s)) out_ << " " << name(sem, t);
      out_ << "\n";
    }
    SharedTerms terms;
    const auto lines = terms([&] {
      std::string text;
      for (const auto& [fetch, c] : outputs(p, s)) text += "  output " + fetch + " = " + content_to_string(p, c) + "\n";
      return text;
    });
    out_ << terms.lines("  ") << lines;
    if (!end.terminal) return;
    for (const auto& st : sem.stuck(s)) {
      out_ << "  stuck node " << name(sem, st.transition) << ":";
      for (const auto& b : st.waiting_on) out_ << " " << b.reason << ";";
      out_ << "\n";
    }
    for (const auto& v : sem.violations(s))
      out_ << "  violation " << violation_name(v.kind) << " at " << name(sem, v.at) << ": edge '" << p.edge(v.edge).name()
           << "' holds a second live value\n";
  }

  void end(const Program& last, const State& s) override {
    SharedTerms terms;
    const auto line = terms([&] {
      std::string text = "final VarValue:";
      for (std::size_t x = 0; x < s.var_value.size(); ++x) text += " " + last.variable(VarId(x)).name + " = " + s.var_value[x].to_string();
      return text;
    });
    out_ << terms.lines() << line << "\n";
  }

 private:
  // The state's lines, after those defining the subterms its values share.
  static std::string state_text(const Semantics& sem, const State& s) {
    SharedTerms terms;
    const auto text = terms([&] { return state_to_string(sem.program(), sem.contexts(), s, "    "); });
    return terms.lines("    ") + text + "\n";
  }

  std::ostream& out_;
};

class TraceJson : public TraceWriter {
 public:
  explicit TraceJson(std::ostream& out) : out_(out) {}

  void begin(const Program& last) override {
    doc_ = {{"graph", last.name()}, {"hash", last.hash_hex()}, {"runs", nlohmann::json::array()}};
  }

  void graph(const Semantics&, int) override {}

  void run(const Semantics& sem, int run, const State& s) override {
    run_ = {{"run", run}, {"states", nlohmann::json::array({{{"state", format::state_to_json(sem.program(), sem.contexts(), s)}}})}};
  }

  void step(const Semantics& sem, std::size_t, const Step& step, const State& s) override {
    const auto& p = sem.program();
    run_["states"].push_back({{"fire", name(sem, step.transition())}, {"label", p.label(step.node)}, {"choice", step.choice},
                              {"state", format::state_to_json(p, sem.contexts(), s)}});
  }

  void end_run(const Semantics& sem, const State& s, const RunEnd& end) override {
    const auto& p = sem.program();
    run_["schedule"] = schedule_to_string(sem, end.taken);
    run_["terminal"] = end.terminal;
    SharedTerms terms;
    run_["outputs"] = terms([&] { return format::outputs_to_json(p, outputs(p, s)); });
    terms.add_to(run_);
    nlohmann::json stuck = nlohmann::json::array(), violations = nlohmann::json::array();
    if (end.terminal) {
      for (const auto& st : sem.stuck(s)) {
        nlohmann::json why = nlohmann::json::array();
        for (const auto& b : st.waiting_on) why.push_back(b.reason);
        stuck.push_back({{"node", name(sem, st.transition)}, {"waiting_on", why}});
      }
      for (const auto& v : sem.violations(s))
        violations.push_back({{"kind", violation_name(v.kind)}, {"at", name(sem, v.at)}, {"edge", p.edge(v.edge).name()}});
    }
    run_["stuck"] = stuck;
    run_["violations"] = violations;
    if (end.beyond) run_["stopped_by"] = bound_to_string(p, *end.beyond, end.bounds);
    doc_["runs"].push_back(std::move(run_));
  }

  void end(const Program& last, const State& s) override {
    SharedTerms terms;
    doc_["VarValue"] = terms([&] { return format::var_value_to_json(last, s.var_value); });
    terms.add_to(doc_);
    out_ << doc_.dump(2) << "\n";
  }

 private:
  std::ostream& out_;
  nlohmann::json doc_, run_;
};

}  // namespace

std::unique_ptr<TraceWriter> trace_text(std::ostream& out) { return std::make_unique<TraceText>(out); }
std::unique_ptr<TraceWriter> trace_json(std::ostream& out) { return std::make_unique<TraceJson>(out); }

}  // namespace tfsem::report
