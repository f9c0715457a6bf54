// States on the wire (explorer/wire.hpp) mean the same in every process: a
// state written by one Semantics and read by another, which interned its
// contexts in another order, is the same state, and writing it again gives the
// same bytes (so the owner a state's hash selects is the same on every rank).
#include <doctest/doctest.h>

#include "explorer/wire.hpp"
#include "models/generate/random_graph.hpp"
#include "support/graphs.hpp"

#include <random>

using namespace tfsem;
using explorer::wire::Bytes;

namespace {

Bytes bytes_of(const Semantics& sem, const State& s) {
  Bytes out;
  explorer::wire::Writer(sem, out).state(s);
  return out;
}

// Along a random behaviour, every state through a second Semantics and back.
void check_round_trip(const std::shared_ptr<const Program>& program, std::uint64_t seed) {
  CAPTURE(program->name());
  const Semantics sem(program), other(program);
  // `other` meets contexts in another order: it first reads a later state.
  std::mt19937_64 rng(seed);
  std::vector<State> states{sem.initial()};
  for (int step = 0; step < 200; ++step) {
    const auto enabled = sem.enabled_transitions(states.back());
    if (enabled.empty()) break;
    auto next = sem.fire(states.back(), enabled[rng() % enabled.size()]);
    states.push_back(std::move(next[rng() % next.size()]));
  }
  explorer::wire::TensorCache cache;
  for (auto it = states.rbegin(); it != states.rend(); ++it) {
    const auto bytes = bytes_of(sem, *it);
    explorer::wire::Reader in(other, bytes, &cache);
    const auto read = in.state();
    CHECK(in.done());
    CHECK(bytes_of(other, read) == bytes);
    explorer::wire::Reader back(sem, bytes);
    CHECK(back.state() == *it);
  }
}

}  // namespace

TEST_CASE("every shipped model, and random graphs with loops") {
  for (const auto& p : test::shipped_models()) check_round_trip(p, 1);
  for (std::uint64_t seed = 1; seed <= 30; ++seed)
    check_round_trip(Program::build(generate::random_graph(seed, generate::kRandomControl)), seed);
}

TEST_CASE("schedules and transitions in contexts") {
  const auto program = test::program_file("models/nested-loops.json");
  const Semantics sem(program), other(program);
  auto s = sem.initial();
  Schedule schedule;
  for (int step = 0; step < 60; ++step) {
    const auto enabled = sem.enabled_transitions(s);
    if (enabled.empty()) break;
    schedule.push_back({enabled.back().node, enabled.back().context, 0});
    s = sem.fire(s, enabled.back())[0];
  }
  Bytes bytes;
  explorer::wire::Writer(sem, bytes).steps(schedule);
  explorer::wire::Reader in(other, bytes);
  const auto read = in.steps();
  CHECK(schedule_to_string(other, read) == schedule_to_string(sem, schedule));
}

TEST_CASE("a term's DAG on the wire: each compound subterm once, read back as the same term") {
  const auto program = test::program_file("models/first-example.json");
  const Semantics sem(program);
  auto a = Tensor::atom("X");
  for (int k = 0; k < 24; ++k) a = Tensor::apply("F", {a, Tensor::scalar(std::int32_t{k}), a});  // 2^24 leaves
  const auto b = Tensor::apply("G", {a, Tensor::apply("F", {Tensor::atom("X")}), a});
  Bytes bytes;
  explorer::wire::Writer(sem, bytes).tensor(b);
  CHECK(bytes.size() < 64 * 25);
  explorer::wire::TensorCache cache;
  explorer::wire::Reader in(sem, bytes, &cache);
  const auto read = in.tensor();
  CHECK(in.done());
  CHECK(read.identity() == b.identity());  // terms are hash-consed: the one G(...) alive
  Bytes again;
  explorer::wire::Writer(sem, again).tensor(read);
  CHECK(again == bytes);
  auto cut = bytes;
  // After b's length, kind, head ("G": length and byte), atom flag and argument count: its
  // first argument's kind, made a reference to a term not read yet.
  cut[4 + 1 + (4 + 1) + 1 + 4] = 3;
  explorer::wire::Reader bad(sem, cut);
  CHECK_THROWS_AS(bad.tensor(), std::runtime_error);
}
