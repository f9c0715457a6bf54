// The pages (report/page.hpp): self-contained, and each witness's steps, applied
// to its first state, give the states the semantics reaches along it.
#include <doctest/doctest.h>

#include "report/check.hpp"
#include "report/page.hpp"
#include "support/graphs.hpp"

#include <map>

using namespace tfsem;

TEST_CASE("a check's page holds everything it shows, and nothing it must fetch") {
  const Semantics sem(test::program_file("models/figure-4-lost-update.json"));
  const auto r = explorer::explore(sem);
  const report::CheckFixes fixes;
  const std::vector<explorer::distributed::RankReport> ranks;
  const auto page = report::check_page({sem, r, fixes, ranks});
  CHECK(page.starts_with("<!DOCTYPE html>"));
  CHECK(page.find("/*TFSEM_DATA*/") == std::string::npos);  // the data is in
  CHECK(page.find("\"race_groups\"") != std::string::npos);
  for (const char* fetching : {"<script src", "<link", "url(http", "fetch(", "import("}) {
    CAPTURE(fetching);
    CHECK(page.find(fetching) == std::string::npos);
  }
}

TEST_CASE("a witness's steps rebuild its states, forward from the first") {
  const Semantics sem(test::program_file("models/thesis-figure-4-while.json"));
  const auto& p = sem.program();
  Schedule schedule;
  State s = sem.initial();
  for (auto t = sem.enabled_transitions(s); !t.empty(); t = sem.enabled_transitions(s)) {
    schedule.push_back({t.front().node, t.front().context, 0});
    s = std::move(sem.fire(s, t.front())[0]);
  }
  report::PageWitnesses witnesses(sem);
  REQUIRE(witnesses.replay("all", schedule) == 0);
  const auto& w = witnesses.json()[0];
  REQUIRE(w["steps"].size() == schedule.size());
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> slots;
  for (const auto& e : w["slots"]) slots[{e[0], e[1]}] = e[3];
  for (const auto& step : w["steps"])
    for (const auto& c : step["slots"]) {
      CHECK(c[3].is_null() == !slots.contains({c[0], c[1]}));  // "before" is what was there
      if (c[4].is_null()) slots.erase({c[0], c[1]});
      else slots[{c[0], c[1]}] = c[4];
    }
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> final_slots;
  for (const auto& [slot, c] : s.in_transit) final_slots[{slot.edge.value, slot.context.value}] = content_to_string(p, c);
  CHECK(slots == final_slots);
  CHECK(w["steps"][0]["fire"] == step_to_string(sem, schedule[0]));
}
