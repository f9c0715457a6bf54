// libFuzzer: a graph loaded, then checked as `tfsem check` does it (every
// behaviour explored, races, fixes), within small limits of states, memory,
// time, loop iterations and call depth, under one of the three reductions
// (the input's length picks it). Oracle: each outcome's witness schedule
// replays, in the semantics, to a terminal state with that outcome.
#include "explorer/explore.hpp"
#include "explorer/fix.hpp"
#include "explorer/memory_gauge.hpp"
#include "fuzz_support.hpp"

namespace {

// `stop`: two seconds from now.
tfsem::explorer::ExploreOptions small_limits(tfsem::explorer::Por por, tfsem::StopToken& stop) {
  tfsem::explorer::ExploreOptions o;
  o.por = por;
  o.limits.max_states = 2000;
  o.limits.max_memory_bytes = tfsem::resident_set_bytes().value_or(0) + (std::uint64_t{256} << 20);
  stop.set_deadline(tfsem::StopToken::Clock::now() + std::chrono::seconds(2));
  o.limits.stop = &stop;
  o.limits.bounds = {.max_iterations = 8, .max_depth = 4};
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tfsem;
  const auto program = fuzz::load_program(fuzz::text_of(data, size));
  if (!program) return 0;
  const Semantics sem(program);
  constexpr explorer::Por reductions[] = {explorer::Por::none, explorer::Por::stubborn, explorer::Por::rf};
  StopToken stop;
  const auto options = small_limits(reductions[size % 3], stop);
  const auto result = explorer::explore(sem, options);
  for (const auto& o : result.outcomes) {
    State s = sem.initial();
    if (const auto refused = replay(sem, s, o.witness)) fuzz::fuzz_fail("a witness is refused: " + *refused);
    if (!sem.terminal(s)) fuzz::fuzz_fail("a witness ends in a state that is not terminal");
    const auto expected = explorer::outcome_text(sem, o), replayed = explorer::outcome_text(sem, explorer::outcome_of(sem, s));
    if (replayed != expected) fuzz::fuzz_fail("the witness of " + expected + " replays to " + replayed);
  }
  (void)explorer::suggest_fixes(sem, result, {options, 4});
  return 0;
}
