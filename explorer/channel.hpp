// The distributed search's successors on the wire (distributed.hpp), a few
// bytes each. A process numbers its tensors, contexts and path conditions
// in the order it meets them (codec.hpp, context.hpp), so each direction
// between two ranks keeps a dictionary of its own: the first time a Sender
// sends one, it sends its value (wire.hpp), which becomes the channel's next
// number for it; after that it sends the number. A successor's row travels
// as the columns in which it differs from the row sent before it on the same
// channel, and its other fields as variable-length integers, the parent and
// the level as differences from the previous successor's. A Receiver
// rebuilds the row in its own codes, the contexts' entries in its own order.
//
// A state's owner is chosen from Canonical::row, a hash every process
// computes alike from its own codes: tensors and path conditions by their
// structural hashes, contexts by their stacks of (frame, iteration), and an
// entry's part added to the rest rather than chained, so that the order of
// the entries (which differs between processes) does not count.
#pragma once

#include "explorer/codec.hpp"
#include "explorer/reduction.hpp"
#include "explorer/result.hpp"
#include "explorer/wire.hpp"

#include <boost/container/small_vector.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace tfsem::explorer::channel {

inline constexpr std::uint32_t kNone = UINT32_MAX;

// What a record on a channel is: its first number's low two bits.
enum Record : std::uint8_t { kSuccessor, kTensor, kContext, kPath };

// What a successor carries beside its row.
struct Successor {
  std::uint32_t parent = kNone;  // its index on the sending rank; kNone: the initial state, with no move
  Move move{};
  std::uint32_t result = 0;
  std::uint64_t level = 0;
  PathCount paths = 0;
};

class Canonical {
 public:
  explicit Canonical(const Codec& codec) : codec_(codec) {}
  // The state's hash, the same in every process for the same state.
  [[nodiscard]] std::uint64_t row(std::span<const Code> row);
  [[nodiscard]] std::size_t bytes() const;

 private:
  const Codec& codec_;
  std::vector<std::uint64_t> tensors_, contexts_, paths_;  // by code or id; 0: not computed yet
  std::uint64_t value(Code code, Codec::Column kind);
  std::uint64_t context(ContextId c);
};

// One direction of one pair of ranks, on the sending side.
class Sender {
 public:
  explicit Sender(const Codec& codec) : codec_(codec) {}
  // Where take_back() returns to: before a state's successors.
  void mark();
  // Forgets what was sent since mark(), definitions included.
  void take_back();
  void send(const Successor& s, std::span<const Transition> sleep, std::span<const Code> row);
  [[nodiscard]] wire::Bytes& bytes() { return out_; }
  [[nodiscard]] std::size_t memory() const;

 private:
  const Codec& codec_;
  wire::Bytes out_;
  // The channel's numbers: of tensors (by identity: a compound term is sent
  // as its head and its arguments' numbers), of term heads, of this
  // process's contexts (by id; 0 is the root) and path conditions (by code;
  // 0 is the empty one); and of this process's tensor codes, the number of
  // their tensor plus first_tensor (0: not looked up yet).
  std::unordered_map<const void*, std::uint32_t> tensors_;
  std::unordered_map<std::string, std::uint32_t> heads_;
  std::vector<const std::string*> head_names_;          // by number
  std::vector<std::uint32_t> contexts_, paths_, codes_;  // 0: none yet
  std::uint32_t next_tensor_ = 0, next_context_ = 1, next_path_ = 1;
  Row last_;  // the row sent last, in the channel's numbers
  std::uint32_t last_parent_ = 0;
  std::uint64_t last_level_ = 0;
  // Since mark(): what was numbered (a tensor by identity, the others by
  // their place in their table), and the fields above as they were.
  enum class Table : std::uint8_t { tensors, heads, contexts, paths, codes };
  struct Numbered {
    Table table;
    std::uintptr_t key;
  };
  struct Mark {
    std::size_t bytes = 0;
    std::vector<Numbered> numbered;
    Row last;
    std::uint32_t last_parent = 0;
    std::uint64_t last_level = 0;
    bool sent = false;
  } mark_;
  Row channel_row_;
  boost::container::small_vector<std::uint32_t, 16> numbers_;  // send(): the move's and the sleep set's contexts
  // Each one's number on the channel, its definition sent first if it has none yet.
  std::uint32_t code(Code c);
  std::uint32_t tensor(const Tensor& t);
  std::uint32_t context(ContextId c);
  std::uint32_t path(Code c);
  std::uint32_t head(const std::string& h, bool& fresh);
  void remember(Table table, std::vector<std::uint32_t>& numbers, std::size_t k, std::uint32_t number);
};

// One direction of one pair of ranks, on the receiving side.
class Receiver {
 public:
  explicit Receiver(Codec& codec) : codec_(codec) {}
  // Reads the next successor (after any definitions before it) into s,
  // sleep (sorted in this process's order) and row (this process's codes);
  // false at the end of `in`. Malformed bytes (a bug) throw std::runtime_error.
  bool next(wire::Reader& in, Successor& s, SleepSet& sleep, Row& row);
  [[nodiscard]] std::size_t memory() const;

 private:
  Codec& codec_;
  std::vector<Tensor> tensors_;  // by number
  std::vector<Code> codes_;      // by number: its code here (0: not looked up yet)
  std::vector<std::string> heads_;
  std::vector<Code> paths_{0};
  std::vector<ContextId> contexts_{kRootContext};
  Row last_;
  std::uint32_t last_parent_ = 0;
  std::uint64_t last_level_ = 0;
  // next(): the row's entries, by this process's ids, and where each is in the row (its id's column, its block's end).
  struct Entry {
    Code id;
    std::uint32_t start, end;
  };
  std::vector<Entry> entries_;
  Row reordered_;  // next(): the row, its entries in this process's order
  void define(wire::Reader& in, Record kind);
  Code code(Code number);
  ContextId context(std::uint64_t number) const;
  Transition transition(wire::Reader& in);
};

// The successors a rank owns itself, kept as they are (its own codes) until
// they are stored in their turn among the other ranks'.
class Loopback {
 public:
  void mark() { mark_ = entries_.size(); }
  void take_back();
  void send(const Successor& s, std::span<const Transition> sleep, std::span<const Code> row);
  // The next successor sent, in order, as Receiver::next; false when none is
  // left (then the loopback is empty again).
  bool next(Successor& s, SleepSet& sleep, Row& row);
  [[nodiscard]] std::size_t memory() const;

 private:
  struct Entry {
    Successor s;
    std::size_t sleep, row;  // where its sleep set and row start
  };
  std::vector<Entry> entries_;
  std::vector<Transition> sleeps_;
  Row rows_;
  std::size_t mark_ = 0, read_ = 0;
};

}  // namespace tfsem::explorer::channel
