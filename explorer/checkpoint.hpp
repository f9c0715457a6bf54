// Checkpoints of explore.cpp's search (docs/checkpoints.md): what it has done
// so far, written at a boundary between chunks where every state of the
// chunks before is merged and reported and none after is, so that a search
// resumed from it reports what the uninterrupted search would. A checkpoint
// is one file per reduction in its directory (checkpoint_file.hpp: written
// whole or not at all, its checksum read first). Its header names the tfsem
// that wrote it, the graph's hash (the report's `hash:`), the search options
// that change what a search finds, and the number of shards of the visited
// store (the resumed search uses as many, whatever its thread count); then
// the semantics' interned contexts (their ids are in the rows), the codec's
// interned tensors and path conditions (their codes are in the rows), the
// visited store (shards.hpp), the unexpanded states by level, the counters,
// and the findings.
#pragma once

#include "explorer/checkpoint_file.hpp"
#include "explorer/options.hpp"

#include <chrono>
#include <string>

namespace tfsem::explorer {

struct CheckpointHeader {
  std::string version;     // the tfsem that wrote it
  std::string graph_hash;  // Program::hash_hex
  std::string options;     // search_options_text
  std::uint32_t shards = 1;
};

// The options that change what a search finds: the reduction and the bounds.
// (The limits stop a search; the threads change nothing it finds.)
std::string search_options_text(const ExploreOptions& o);

// The header a search of `sem` under `o` writes, with `shards` shards.
CheckpointHeader header_for(const Semantics& sem, const ExploreOptions& o, const Checkpoints& c, unsigned shards);

// The checkpoint of the search under reduction `por` in c.dir.
std::string checkpoint_path(const Checkpoints& c, Por por);

// A distributed search's checkpoint (distributed.hpp) in c.dir: each rank's
// part of a generation, and the manifest naming the last generation whose
// parts are all written, and of how many ranks. The manifest is written once
// every part is, and the parts of the generation before are removed after,
// so that a crash at any moment leaves a whole generation named.
std::string manifest_path(const Checkpoints& c, Por por);
std::string part_path(const Checkpoints& c, Por por, std::uint64_t generation, std::uint32_t rank);
// Removes the parts of every other generation, written whole or not.
void remove_parts_but(const Checkpoints& c, Por por, std::uint64_t generation);

void write_header(CheckpointOut& out, const CheckpointHeader& h);
// The header, after checking it against `expected` (all but the shards):
// CheckpointError names what differs.
CheckpointHeader read_header(CheckpointIn& in, const CheckpointHeader& expected);

// The interned contexts, by id; restoring interns them again in id order and
// checks each id, after checking those interned already.
void save_contexts(CheckpointOut& out, const Contexts& contexts);
void restore_contexts(CheckpointIn& in, const Contexts& contexts);

// When the next periodic checkpoint is due.
class CheckpointClock {
 public:
  explicit CheckpointClock(double every_s)
      : every_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(every_s))) {}
  [[nodiscard]] bool due() const { return Clock::now() - last_ >= every_; }
  void written() { last_ = Clock::now(); }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::duration every_;
  Clock::time_point last_ = Clock::now();
};

}  // namespace tfsem::explorer
