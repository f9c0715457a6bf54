// The search of explore.hpp over the processes of an MPI job (mpirun -np K):
// each state is owned by the rank its canonical hash (channel.hpp) names, and
// each rank stores only its own states. The search goes level by level, a
// level being the states reached by the same number of firings (every path to
// a state fires the same nodes), as the one-process search does: a rank
// expands its states of the level with the same code (expansion.hpp), records
// what it finds and when it stops as that one does (findings.hpp,
// stopping.hpp), and sends each successor, with its path count and sleep
// set, to its owner (as the change from the row sent before it on the same
// channel, in a few bytes: channel.hpp); a rank expands at most a round of
// states between two exchanges, so the messages stay small. After each round
// every rank learns every rank's status: a limit hit or a stop on any rank
// stops all of them (INCOMPLETE), and the next level is the lowest nonempty
// one of any rank, so empty levels are skipped and the search ends when none
// is left. A level that fits one round on every rank is an MPI_Alltoall of
// the sizes, an MPI_Alltoallv of the successors and an MPI_Allgather of the
// statuses; on a wider one, each round's messages are received while the
// next round is expanded, and the ranks pause together only to end the
// level, stop or write a checkpoint. Every arrival at a state comes from a
// lower level, so a state's path count and sleep set are final before it is
// expanded, and the states, counters, outcomes and races are those of one
// process. Rank 0 gathers the outcomes and races, and rebuilds their
// witnesses by following each state's parent (a rank and an index) from rank
// to rank.
#pragma once

#include "explorer/options.hpp"
#include "explorer/result.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace tfsem::explorer::distributed {

// Whether this build has MPI; if not, why (for the refusal of --distributed).
bool available();
std::string unavailable_reason();

// This process's rank and the job's size; MPI is started on first use (and
// finalized at exit). Without MPI: 0 and 1.
int rank();
int ranks();

// What one rank did, for the report.
struct RankReport {
  std::uint64_t states = 0;          // stored, owned by this rank
  std::uint64_t bytes_sent = 0;      // to the other ranks
  std::uint64_t bytes_received = 0;  // from the other ranks
  double idle_seconds = 0;           // waiting in MPI calls for the other ranks
  std::uint64_t memory_bytes = 0;    // the rank's peak, as --max-memory counts it
  std::uint64_t store_bytes = 0;     // its visited states' structures at the end
};

struct Report {
  Result result;                  // complete on rank 0; the others hold their own counters only
  std::vector<RankReport> ranks;  // by rank, on rank 0
};

// Every rank calls it with the same arguments. options.threads and the
// observer are not used: each rank expands its states with one thread. Every
// rank's result says whether the search is complete, and why it stopped.
// With `checkpoints`, each rank writes its part of the search's checkpoints
// (checkpoint.hpp), and a search resumes from them on any number of ranks.
// `round`: the most states a rank expands between two exchanges (tests make
// it small, so that small graphs take many rounds).
inline constexpr std::size_t kRound = 4096;
Report explore(const Semantics& sem, const ExploreOptions& options = {}, const Checkpoints* checkpoints = nullptr,
               std::size_t round = kRound);

// Every rank returns rank 0's `code` (the others' is ignored).
int agree(int code);

}  // namespace tfsem::explorer::distributed
