// The reports' forms (report/): the lines and JSON keys every report shares,
// and the check, session and trace reports of small graphs, line by line.
#include <doctest/doctest.h>

#include "report/check.hpp"
#include "report/forms.hpp"
#include "report/race_groups.hpp"
#include "report/runs.hpp"
#include "report/trace.hpp"
#include "support/graphs.hpp"

#include <sstream>

using namespace tfsem;

TEST_CASE("the shared lines") {
  CHECK(std::string(report::verdict(false, true, true)) == "incomplete");
  CHECK(std::string(report::verdict(true, true, true)) == "violation");
  CHECK(std::string(report::verdict(true, false, true)) == "deterministic");
  CHECK(std::string(report::verdict(true, false, false)) == "nondeterministic");
  CHECK(report::verdict_line("refines") == "verdict: refines\n");
  CHECK(report::stopped_line("max-states") == "INCOMPLETE: stopped by max-states\n");
  CHECK(report::stopped_line("interrupt", " after 3 executor runs") == "INCOMPLETE: stopped by interrupt after 3 executor runs\n");
  CHECK(report::stopped_line("out of memory", " during import") == "INCOMPLETE: out of memory during import\n");
  CHECK(report::memory_line(std::uint64_t{3} << 20, {std::uint64_t{7} << 20, "RLIMIT_AS, less an eighth"}) ==
        "memory: peak 3 MiB | max-memory 7 MiB (RLIMIT_AS, less an eighth)\n");
  CHECK(report::count_line("outcomes", 2, true) == "outcomes: 2\n");
  CHECK(report::count_line("outcomes", 2, false) == "outcomes: 2 (at least)\n");
  CHECK(report::fix_line("add control edge a -> b", "y=B") == "fix: add control edge a -> b | verified deterministic: y=B\n");
  explorer::Counters c;
  c.states_stored = 9;
  c.behaviours = 4;
  c.firings = 12;
  CHECK(report::counters_text(c, 0.25) ==
        "states-stored: 9\nstates-matched: 0\ntransitions: 0\nterminal-states: 0\nbehaviours-explored: 4\n"
        "transitions-pruned: 0\nfirings: 12\ntime: 0.250s\n");
  CHECK(report::counters_json(c)["firings"] == 12);
  CHECK(report::counters_json(c)["behaviours_explored"] == 4);
  explorer::distributed::RankReport rank;
  rank.states = 5;
  CHECK(report::ranks_text({rank}) == "rank: 0 | states 5 | sent 0 bytes | received 0 bytes | idle 0s\n");
  CHECK(report::ranks_json({rank})[0]["states"] == 5);
}

TEST_CASE("check's report of the first example without its control edge") {
  const Semantics sem(test::program_file("models/first-example-no-control.json"));
  const auto r = explorer::explore(sem);
  const report::CheckFixes fixes{true, {}, {}};
  const std::vector<explorer::distributed::RankReport> ranks;
  const report::CheckReport report{sem, r, fixes, ranks};
  const auto text = report::check_text(report);
  CHECK(text.starts_with("graph: first-example-no-control\nhash: "));
  CHECK(text.find("\npor: rf\noutcomes: 2\noutcome: y=") != std::string::npos);
  CHECK(text.find("\nverdict: nondeterministic\nrace: write read | variable x | harmful\nfix: none found\n") != std::string::npos);
  // Each race's instances on request, each order's witness ending in the two racing steps.
  const auto full = report::check_text(report, {report::WitnessForm::brief, true});
  CHECK(full.find("\nrace: write read | variable x | harmful\n  instance: write read | harmful\n    write first: ") !=
        std::string::npos);
  CHECK(full.find(",write,read (") != std::string::npos);
  CHECK(full.find(",read,write (") != std::string::npos);
  CHECK(text.find("\nfix: none found\n") != std::string::npos);  // searched for, none given to the report
  const auto json = report::check_json(report);
  CHECK(json["verdict"] == "nondeterministic");
  CHECK(json["outcomes"].size() == 2);
  CHECK(json["races"][0]["variable"] == "x");
  CHECK(json["race_groups"][0]["races"] == nlohmann::json::array({0}));
  CHECK(!json.contains("ranks"));
  CHECK(json["max_memory"]["from"] == "");
  CHECK(text.find("\nmemory: peak ") != std::string::npos);
}

TEST_CASE("the report polls the stop token: a stop while it is written throws Stopped") {
  const Semantics sem(test::program_file("models/first-example-no-control.json"));
  const auto r = explorer::explore(sem);
  const report::CheckFixes fixes;
  const std::vector<explorer::distributed::RankReport> ranks;
  StopToken stop;
  stop.enter("while writing the report");
  const report::CheckReport report{sem, r, fixes, ranks, {std::uint64_t{1} << 30, "--max-memory"}, &stop};
  CHECK(report::check_text(report).find("\nmemory: peak ") != std::string::npos);
  CHECK(report::check_text(report).find(" | max-memory 1024 MiB (--max-memory)\n") != std::string::npos);
  stop.stop(StopReason::timeout);
  CHECK_THROWS_AS((void)report::check_text(report), Stopped);
  CHECK_THROWS_AS((void)report::check_json(report), Stopped);
}

TEST_CASE("a brief witness shows the steps that matter and counts the rest") {
  const Semantics sem(test::program_file("models/loop-assign-add-p10.json"));
  const auto r = explorer::explore(sem);
  const auto& w = r.outcomes.front().witness;
  const auto is_read = [&](const Step& s) { return sem.program().node(s.node).name() == "read"; };
  const auto brief = report::brief_schedule(sem, w, is_read);
  CHECK(brief.starts_with("...,read[loop:"));
  CHECK(brief.ends_with(" (" + std::to_string(w.size() - 4) + " of " + std::to_string(w.size()) + " steps elided)"));
  // None matters: the last few steps.
  const auto last = report::brief_schedule(sem, w, [](const Step&) { return false; });
  CHECK(last.starts_with("...," + step_to_string(sem, w[w.size() - 3]) + ","));
  CHECK(report::brief_schedule(sem, {}, is_read) == "(no steps)");
  CHECK(report::witness_text(sem, w, report::WitnessForm::full, is_read) == schedule_to_string(sem, w));
}

TEST_CASE("races in a loop are grouped by their pair of nodes, the iterations summarized") {
  const Semantics sem(test::program_file("models/loop-assign-add-p10.json"));
  const auto r = explorer::explore(sem);
  const auto groups = report::race_groups(r.races);
  REQUIRE(groups.size() == 2);
  std::size_t instances = 0;
  for (const auto& g : groups) instances += g.races.size();
  CHECK(instances == r.races.size());
  CHECK(report::contexts_summary(sem, r.races, groups[0]) == "loop 'loop': iterations 0-2 against 0-2");
  CHECK(report::harm_summary(groups[0]) == "harmful");
  CHECK(report::harm_summary(groups[1]) == "benign");
  report::RaceGroup mixed{groups[0].first, groups[0].second, groups[0].var, {0, 1, 2}, 1};
  CHECK(report::harm_summary(mixed) == "harmful in 1 of 3");
  const report::CheckFixes fixes;
  const std::vector<explorer::distributed::RankReport> ranks;
  const auto text = report::check_text({sem, r, fixes, ranks});
  CHECK(text.find("\nrace: read assign | variable x | harmful | loop 'loop': iterations 0-2 against 0-2 | 6 instances\n") !=
        std::string::npos);
}

TEST_CASE("a session's report: each run's outputs, then the final VarValue") {
  const auto program = test::program_file("models/counter.json");
  const std::vector<std::shared_ptr<const Program>> programs(2, program);
  const auto r = explorer::explore_runs(programs, {}, {});
  const std::vector<report::RunLabel> labels(2, report::RunLabel{"", {}});
  const report::RunsReport report{labels, programs, r, "rf", false};
  const auto text = report::runs_text(report);
  CHECK(text.starts_with("graph: counter\nruns: 2\nrun: 1 | - | hash " + program->hash_hex() + "\n"));
  CHECK(text.find("\noutcome: run 1: count=i32:1 | run 2: count=i32:2 | x=i32:2 | behaviours 1 | witness ") != std::string::npos);
  CHECK(text.find("\nverdict: deterministic\nstates-stored: ") != std::string::npos);
  CHECK(report::runs_outcome_text(*program, r.outcomes[0]) == "run 1: count=i32:1 | run 2: count=i32:2 | x=i32:2");
  CHECK(report::runs_json(report)["outcomes"][0]["runs"][1] == "count=i32:2");
}

TEST_CASE("trace's report, text and JSON, of one step") {
  const Semantics sem(test::program_file("models/first-example.json"));
  auto s = sem.initial();
  const auto step = parse_schedule(sem, "var_bottom").front();
  for (const bool json : {false, true}) {
    std::ostringstream out;
    const auto writer = json ? report::trace_json(out) : report::trace_text(out);
    writer->begin(sem.program());
    writer->run(sem, 1, s);
    const auto next = sem.fire(s, step.transition())[0];
    writer->step(sem, 1, step, next);
    writer->end_run(sem, next, {1, {step}, false, std::nullopt, {}});
    writer->end(sem.program(), next);
    if (json) {
      const auto doc = nlohmann::json::parse(out.str());
      CHECK(doc["runs"][0]["schedule"] == "var_bottom");
      CHECK(doc["runs"][0]["states"].size() == 2);
      CHECK(doc["VarValue"]["x"] == "A");
    } else {
      CHECK(out.str().find("\n  step 1: fire var_bottom (Var(x))\n") != std::string::npos);
      CHECK(out.str().find("\n  the schedule ended before a terminal state; still enabled: ") != std::string::npos);
      CHECK(out.str().ends_with("final VarValue: x = A\n"));
    }
  }
}
