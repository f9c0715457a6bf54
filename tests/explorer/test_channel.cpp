// Successors on a channel between two ranks (explorer/channel.hpp): a row
// sent by one process and received by another, which met its tensors and
// contexts in another order, is the row that process packs for the same
// state; the other fields arrive as sent; both processes hash the state to
// the same owner; and what a sender takes back is as if never sent.
#include <doctest/doctest.h>

#include "explorer/channel.hpp"
#include "explorer/state_table.hpp"
#include "models/generate/random_graph.hpp"
#include "support/graphs.hpp"

#include <random>

using namespace tfsem;
using namespace tfsem::explorer;

namespace {

wire::Bytes bytes_of(const Semantics& sem, const State& s) {
  wire::Bytes out;
  wire::Writer(sem, out).state(s);
  return out;
}
wire::Bytes bytes_of(const Semantics& sem, Transition t) {
  wire::Bytes out;
  wire::Writer(sem, out).transition(t);
  return out;
}

// A random behaviour: its states, and the transition fired from each.
std::pair<std::vector<State>, std::vector<Transition>> behaviour(const Semantics& sem, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<State> states{sem.initial()};
  std::vector<Transition> fired;
  for (int step = 0; step < 200; ++step) {
    const auto enabled = sem.enabled_transitions(states.back());
    if (enabled.empty()) break;
    fired.push_back(enabled[rng() % enabled.size()]);
    auto next = sem.fire(states.back(), fired.back());
    states.push_back(std::move(next[rng() % next.size()]));
  }
  return {std::move(states), std::move(fired)};
}

struct Process {
  explicit Process(const std::shared_ptr<const Program>& p) : sem(p), codec(sem), canonical(codec) {}
  Semantics sem;
  Codec codec;
  channel::Canonical canonical;
};

void check_channel(const std::shared_ptr<const Program>& program, std::uint64_t seed) {
  CAPTURE(program->name());
  CAPTURE(seed);
  Process a(program), b(program);
  const auto [states, fired] = behaviour(a.sem, seed);
  // b meets the states' tensors and contexts first, in reverse order (its
  // context ids, and so the order of a row's entries, differ from a's).
  std::vector<State> in_b(states.size());
  Row scratch;
  for (auto i = states.size(); i-- > 0;) {
    const auto bytes = bytes_of(a.sem, states[i]);
    in_b[i] = wire::Reader(b.sem, bytes).state();
    b.codec.pack(in_b[i], scratch);
  }

  channel::Sender sender(a.codec);
  channel::Receiver receiver(b.codec);
  const auto send = [&](std::size_t i) {
    Row row;
    a.codec.pack(states[i], row);
    const auto enabled = a.sem.enabled_transitions(states[i]);
    const channel::Successor s{i == 0 ? channel::kNone : static_cast<std::uint32_t>(i - 1),
                               i == 0 ? Move{} : Move{fired[i - 1], static_cast<Move::Kind>(i % 3)},
                               static_cast<std::uint32_t>(i % 2), 1000 - 3 * i, std::uint64_t{1} << (i % 64)};
    sender.send(s, enabled, row);
  };
  // States 0, 2, 4, ... are sent once; 1, 3, 5, ... sent, taken back and sent again.
  for (std::size_t i = 0; i < states.size(); ++i) {
    sender.mark();
    send(i);
    if (i % 2 == 1) {
      if (i + 1 < states.size()) send(i + 1);
      sender.take_back();
      send(i);
    }
  }

  wire::Reader in(b.sem, sender.bytes());
  channel::Successor s;
  SleepSet sleep;
  Row row;
  for (std::size_t i = 0; i < states.size(); ++i) {
    CAPTURE(i);
    REQUIRE(receiver.next(in, s, sleep, row));
    Row packed;
    b.codec.pack(in_b[i], packed);
    CHECK(StateTable::same_row(row, packed));
    // Every entry's block whole, as a firing's put() and record() need it.
    b.codec.blocks(row, [&](ContextId c, std::uint32_t start) {
      CHECK(start + b.codec.block_size(b.sem.contexts()[c].frame) <= row.size());
    });
    CHECK(bytes_of(b.sem, b.codec.unpack(row)) == bytes_of(a.sem, states[i]));
    Row row_a;
    a.codec.pack(states[i], row_a);
    CHECK(b.canonical.row(row) == a.canonical.row(row_a));
    CHECK(s.parent == (i == 0 ? channel::kNone : i - 1));
    if (i > 0) {
      CHECK(bytes_of(b.sem, s.move.t) == bytes_of(a.sem, fired[i - 1]));
      CHECK(s.move.kind == static_cast<Move::Kind>(i % 3));
    }
    CHECK(s.result == i % 2);
    CHECK(s.level == 1000 - 3 * i);
    CHECK(s.paths == std::uint64_t{1} << (i % 64));
    const auto enabled = a.sem.enabled_transitions(states[i]);
    REQUIRE(sleep.size() == enabled.size());
    CHECK(std::is_sorted(sleep.begin(), sleep.end()));
    std::multiset<wire::Bytes> want, got;
    for (auto t : enabled) want.insert(bytes_of(a.sem, t));
    for (auto t : sleep) got.insert(bytes_of(b.sem, t));
    CHECK(got == want);
  }
  CHECK_FALSE(receiver.next(in, s, sleep, row));
}

}  // namespace

TEST_CASE("every shipped model, and random graphs with loops, unknown predicates and recursion") {
  for (const auto& p : test::shipped_models()) check_channel(p, 1);
  for (std::uint64_t seed = 1; seed <= 30; ++seed)
    for (const auto& options : {generate::kRandomControl, generate::kRandomSymbolic, generate::kRandomRecursive})
      check_channel(Program::build(generate::random_graph(seed, options)), seed);
}

TEST_CASE("a successor costs a few bytes once its tensors and contexts are known") {
  const auto program = test::program_file("models/nested-loops.json");
  Process a(program), b(program);
  const auto [states, fired] = behaviour(a.sem, 7);
  REQUIRE(states.size() > 20);
  channel::Sender sender(a.codec);
  Row row;
  for (int round = 0; round < 2; ++round) {
    const auto before = sender.bytes().size();
    for (std::size_t i = 1; i < states.size(); ++i) {
      a.codec.pack(states[i], row);
      sender.mark();
      sender.send({static_cast<std::uint32_t>(i - 1), Move{fired[i - 1]}, 0, i, 1}, {}, row);
    }
    // The second time every number is known: the parent, move, level and the columns a firing changed.
    if (round == 1) CHECK((sender.bytes().size() - before) / (states.size() - 1) < 24);
  }
}
