// The streaming reader of the JSON graph format: one pass over the text that
// builds the ProgramSpec as it goes, without the document parse_program reads
// (which, for a million nodes, takes most of the loading time and several times
// the memory of the text). Nodes and edges, the bulk of a large graph, are read
// here key by key; a tensor literal, a node's attributes, the variables, the
// function declarations and the library are parsed as small documents by
// nlohmann and handed to the document reader's own code (graph_json_parts.hpp).
// A large array of nodes or edges is read in parts on threads of their own,
// each starting where the count that sizes the array saw a comma between
// elements (read_array). stream_build reads the edges last, in pieces that a
// ProgramBuilder takes in order as they are read (read_in_pieces), so that a
// graph is validated as it is read and its edges never lie in memory at once.
//
// It reads only what it can vouch for: the result is the one the document
// reader gives. Anything else (malformed JSON, a graph parse_program refuses,
// or a rare form: a name with an escape or a non-ASCII character, a key given
// twice, whose last value JSON readers keep) ends it without a result, and the
// document reader reads the text again and reports the first problem, as it
// always has.
#include "semantics/declared_where.hpp"
#include "semantics/diagnostic.hpp"
#include "formats/json/array_count.hpp"
#include "formats/json/graph_json.hpp"
#include "formats/json/graph_json_parts.hpp"
#include "support/back_pages.hpp"
#include "support/hash.hpp"
#include "support/on_threads.hpp"

#include <algorithm>
#include <array>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

namespace tfsem::format {

namespace {

using nlohmann::json;

// Ends the streaming read: the document reader takes over.
struct Unsupported {};

// The bytes a scan stops at, as a table: one lookup a byte.
using Stops = std::array<bool, 256>;
constexpr Stops stops(std::string_view chars, bool controls_and_non_ascii) {
  Stops t{};
  for (std::size_t b = 0; b < t.size(); ++b) t[b] = controls_and_non_ascii && (b < 0x20 || b >= 0x80);
  for (const char ch : chars) t[static_cast<unsigned char>(ch)] = true;
  return t;
}
constexpr Stops kStructural = stops("\"{}[],", false);  // outside a string
constexpr Stops kInString = stops("\"\\", true);      // what ends a plain string's text (or a raw one's escape)

// A cursor over JSON text: objects, arrays, keys and plain strings, and the
// raw text of any other value, which its reader checks by parsing it.
class Cursor {
 public:
  explicit Cursor(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}

  bool at_end() {
    skip_space();
    return p_ == end_;
  }
  [[nodiscard]] bool take(char c) {
    skip_space();
    if (p_ == end_ || *p_ != c) return false;
    ++p_;
    return true;
  }
  void expect(char c) {
    if (!take(c)) throw Unsupported{};
  }
  // A string of printable ASCII without escapes: its text is its value.
  std::string_view plain_string() {
    expect('"');
    const char* start = p_;
    skip_until(kInString);
    if (p_ == end_ || *p_ != '"') throw Unsupported{};
    return {start, static_cast<std::size_t>(p_++ - start)};
  }
  // The text of the next value, up to its end; not checked.
  std::string_view raw_value() {
    skip_space();
    const char* start = p_;
    if (p_ == end_) throw Unsupported{};
    if (*p_ == '"') skip_string();
    else if (*p_ == '{' || *p_ == '[') skip_nested();
    else {
      // A NUL ends a scalar too. nlohmann takes a NUL at a token's start for the
      // end of the text, so it would read "3\0" as 3 where the document reader
      // refuses the text; a scalar is the one raw text whose end the cursor
      // decides, and any other NUL fails its structure or nlohmann's parse.
      while (p_ != end_ && !is_space(*p_) && *p_ != ',' && *p_ != '}' && *p_ != ']' && *p_ != '\0') ++p_;
    }
    return {start, static_cast<std::size_t>(p_ - start)};
  }
  // The array that comes next (not consumed): how many elements it has, so
  // that a large graph's nodes and edges are stored without moving them, and
  // with a `stride` (0: none) a cursor at every stride-th of them (just past
  // the comma before it).
  // Its `after` is just past the array's ']', where the array ends in the text.
  struct Layout {
    std::size_t elements = 0;
    std::vector<Cursor> marks;
    const char* after = nullptr;
  };
  [[nodiscard]] Layout layout(std::size_t stride) const {
    Cursor c = *this;
    c.skip_space();
    if (c.p_ == c.end_ || *c.p_ != '[') return {};
    std::vector<std::size_t> commas;
    std::size_t end = 0;
    const auto elements = count_array_elements({c.p_, static_cast<std::size_t>(c.end_ - c.p_)},
                                               stride > 0 ? &commas : nullptr, stride, &end);
    Layout l{elements.value_or(0), {}, {}};
    for (const auto at : commas) l.marks.push_back(Cursor(c.p_ + at + 1, c.end_));
    if (elements) l.after = c.p_ + end + 1;
    return l;
  }
  // Moves past the array whose layout this cursor, at its start, gave.
  void skip(const Layout& array) { p_ = array.after; }
  // Whether it stands just past that array, where a reading of it must end.
  [[nodiscard]] bool past(const Layout& array) const { return p_ == array.after; }
  // Whether the next character, after white space, is the one `mark` is just
  // past: a part of an array ends right where the next part's comma is.
  [[nodiscard]] bool stands_before(const Cursor& mark) {
    skip_space();
    return p_ + 1 == mark.p_;
  }

 private:
  const char* p_;
  const char* end_;

  Cursor(const char* p, const char* end) : p_(p), end_(end) {}
  static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  void skip_space() {
    while (p_ != end_ && is_space(*p_)) ++p_;
  }
  // Skips an object or array.
  void skip_nested() {
    int depth = 0;
    do {
      skip_until(kStructural);
      if (p_ == end_) throw Unsupported{};
      switch (*p_) {
        case '"': skip_string(); continue;
        case '{': case '[': ++depth; break;
        case '}': case ']': --depth; break;
        default: break;  // ','
      }
      ++p_;
    } while (depth > 0);
  }
  void skip_string() {
    for (++p_;; ++p_) {
      skip_until(kInString);
      if (p_ == end_) throw Unsupported{};
      if (*p_ == '"') break;
      if (*p_ == '\\' && ++p_ == end_) throw Unsupported{};
    }
    ++p_;
  }

  void skip_until(const Stops& stop) {
    while (p_ != end_ && !stop[static_cast<unsigned char>(*p_)]) ++p_;
  }
};

// Calls read(key) for each member of an object, at the value.
template <class Read>
void members(Cursor& c, Read&& read) {
  c.expect('{');
  if (c.take('}')) return;
  do {
    const auto key = c.plain_string();
    c.expect(':');
    read(key);
  } while (c.take(','));
  c.expect('}');
}

// Calls read(i) for each element i of an array, at the element.
template <class Read>
void elements(Cursor& c, Read&& read) {
  c.expect('[');
  if (c.take(']')) return;
  std::size_t i = 0;
  do read(i++);
  while (c.take(','));
  c.expect(']');
}

json parse(std::string_view text) { return json::parse(text.begin(), text.end()); }
void check(std::string_view text) {  // a value nothing reads, which must still be JSON
  if (!json::accept(text.begin(), text.end())) throw Unsupported{};
}

// The keys an object of the format may have: each one's index, once.
template <std::size_t N>
class Keys {
 public:
  explicit constexpr Keys(std::array<std::string_view, N> names) : names_(names) {}
  std::size_t operator()(std::string_view key, unsigned& seen) const {
    for (std::size_t k = 0; k < N; ++k)
      if (names_[k] == key) {
        if (seen & (1U << k)) throw Unsupported{};
        seen |= 1U << k;
        return k;
      }
    throw Unsupported{};
  }

 private:
  std::array<std::string_view, N> names_;
};

constexpr Keys<6> kNodeKeys({"id", "op", "var", "attrs", "description", "device"});
constexpr Keys<7> kEdgeKeys({"id", "kind", "from", "to", "value", "fetch", "description"});
constexpr Keys<8> kGraphKeys({"name", "description", "variables", "functions", "nodes", "edges", "library", "$schema"});

// Tensor literals and attributes, parsed once per distinct text: reading one
// is a function of its text alone (and, for attributes, the node's op), and
// large graphs repeat them (every Const node of a layer, every GO).
class Literals {
 public:
  // An edge's "value", the edge at `edge`.
  Tensor tensor(std::string_view text, const std::string& edge) {
    if (const auto it = tensors_.find(text); it != tensors_.end()) return it->second;
    return remember(tensors_, text, parse_tensor(parse(text), edge + "/value"));
  }
  // A node's "attrs", the node at `node`.
  // One value per distinct text, which the nodes that give it share.
  CopyOnWrite<Attrs> attrs(std::string_view op, std::string_view text, const std::string& node) {
    key_.assign(op).append(1, '\0').append(text);
    if (const auto it = attrs_.find(key_); it != attrs_.end()) return it->second;
    return remember(attrs_, key_, CopyOnWrite<Attrs>(parse_attrs(parse(text), node + "/attrs", op)));
  }

 private:
  static constexpr std::size_t kMaxEntries = 4096;  // a graph of distinct literals keeps only the latest

  template <class V>
  static V remember(TextMap<V>& cache, std::string_view key, V value) {
    if (cache.size() == kMaxEntries) cache.clear();
    cache.emplace(key, value);
    return value;
  }
  TextMap<Tensor> tensors_;
  TextMap<CopyOnWrite<Attrs>> attrs_;
  std::string key_;
};

// Reads a node into n, a fresh NodeSpec in its place in the spec.
void read_node(Cursor& c, std::string path, Literals& literals, NodeSpec& n) {
  std::string_view attrs;
  unsigned seen = 0;
  members(c, [&](std::string_view key) {
    switch (kNodeKeys(key, seen)) {
      case 0: n.id = c.plain_string(); break;
      case 1: n.op = c.plain_string(); break;
      case 2: n.var = c.plain_string(); break;
      case 3: attrs = c.raw_value(); break;
      case 5: n.device = c.plain_string(); break;
      default: check(c.raw_value()); break;
    }
  });
  if ((seen & 3U) != 3U) throw Unsupported{};  // "id" and "op" are required
  if (seen & 8U) n.attrs = literals.attrs(n.op, attrs, path);
  n.where = std::move(path);
}

// Reads an edge into e, a fresh EdgeSpec in its place in the spec.
void read_edge(Cursor& c, std::string path, Literals& literals, EdgeSpec& e) {
  std::string_view value;
  unsigned seen = 0;
  members(c, [&](std::string_view key) {
    switch (kEdgeKeys(key, seen)) {
      case 0: e.id = c.plain_string(); break;
      case 1: e.kind = c.plain_string(); break;
      case 2: e.from = port_ref(c.plain_string(), path, "from"); break;
      case 3: e.to = port_ref(c.plain_string(), path, "to"); break;
      case 4: value = c.raw_value(); break;
      case 5: e.fetch = c.plain_string(); break;
      default: check(c.raw_value()); break;
    }
  });
  if ((seen & 3U) != 3U) throw Unsupported{};  // "id" and "kind" are required
  if (seen & 16U) {
    if (e.kind == "control" || e.kind == "variable") set_edge_value(e, parse(value), path + "/value");
    else e.value = literals.tensor(value, path);
  }
  e.drop_default_fetch();
  e.where = std::move(path);
}

// Reads the array that comes next into `out`: read(cursor, i, literals,
// out[i]) for each element i. A large one is read in parts, each on a thread
// of its own with a literal cache of its own; the first on this thread, with
// `literals`. Each part starts just past a comma the count noted, and must
// end right before the comma the next one starts after: the parts then cover
// the array as a read from its start would.
template <class T, class Read>
void read_array(Cursor& c, std::vector<T>& out, Literals& literals, const StreamSplit& split, Read read) {
  const std::size_t stride = std::max<std::size_t>(1, split.min_part / 8);  // parts balanced to within 1/8 of the least
  const auto layout = c.layout(split.threads > 1 ? stride : 0);
  const std::size_t n = layout.elements;
  const std::size_t parts = std::min<std::size_t>(split.threads, n / std::max<std::size_t>(1, split.min_part));
  out.reserve(n);
  // With two parts or more, n - 1 commas >= 2 min_part - 1 >= stride: some
  // are noted. The test guards the index below on any text all the same.
  if (parts < 2 || layout.marks.empty()) {
    elements(c, [&](std::size_t i) { read(c, i, literals, out.emplace_back()); });
    return;
  }
  // Part k starts at the noted comma at or below element k * (n / parts):
  // it may be up to a stride shorter than the others.
  std::vector<std::size_t> first(parts + 1, n);
  std::vector<Cursor> start(parts, c);
  for (std::size_t k = 1; k < parts; ++k) {
    const auto mark = std::min(std::max<std::size_t>(k * (n / parts) / stride, 1), layout.marks.size()) - 1;
    first[k] = (mark + 1) * stride;
    start[k] = layout.marks[mark];
  }
  first[0] = 0;
  back_pages(out.data(), n * sizeof(T), parts);  // before one thread constructs the objects they will hold
  out.resize(n);
  start[0].expect('[');
  const auto read_part = [&](std::size_t k, Literals& cache) {
    Cursor at = start[k];
    for (std::size_t i = first[k]; i < first[k + 1]; ++i) {
      if (i > first[k]) at.expect(',');
      read(at, i, cache, out[i]);
    }
    if (k + 1 < parts ? !at.stands_before(start[k + 1]) : !at.take(']')) throw Unsupported{};
    if (k + 1 == parts) c = at;  // the reading goes on after the array
  };
  std::vector<std::exception_ptr> failed(parts);
  on_threads(parts, [&](std::size_t k) {
    try {
      Literals own;
      read_part(k, k == 0 ? literals : own);
    } catch (...) {
      failed[k] = std::current_exception();
    }
  });
  for (const auto& f : failed)
    if (f) std::rethrow_exception(f);
}

// Reads the node at path /nodes/i, or the edge at /edges/i.
void read_node_at(Cursor& at, std::size_t i, Literals& cache, NodeSpec& n) {
  read_node(at, std::string(ElementPath("/nodes/", i).view()), cache, n);
}
void read_edge_at(Cursor& at, std::size_t i, Literals& cache, EdgeSpec& e) {
  read_edge(at, std::string(ElementPath("/edges/", i).view()), cache, e);
}

// The graph's edges array, found but not read: where it starts, and its
// layout with a mark every `stride` elements, where the pieces of
// read_in_pieces begin.
struct EdgesAt {
  Cursor start;
  Cursor::Layout layout;
  std::size_t stride;
};

// Reads the graph object into spec. With `later`, the edges array is not
// read but noted there, and the reading goes on past it.
void read_graph(Cursor& c, Literals& literals, const StreamSplit& split, ProgramSpec& spec,
                std::optional<EdgesAt>* later) {
  unsigned seen = 0;
  members(c, [&](std::string_view key) {
    switch (kGraphKeys(key, seen)) {
      case 0: spec.name = c.plain_string(); break;
      case 1: spec.description = c.plain_string(); break;
      case 2: read_variables(parse(c.raw_value()), spec); break;
      case 3: read_functions(parse(c.raw_value()), spec); break;
      case 4: read_array(c, spec.nodes, literals, split, read_node_at); break;
      case 5:
        if (later) {
          const auto stride = std::max<std::size_t>(1, split.piece);
          later->emplace(EdgesAt{c, c.layout(stride), stride});
          if (!(*later)->layout.after) throw Unsupported{};
          c.skip((*later)->layout);
        } else {
          read_array(c, spec.edges, literals, split, read_edge_at);
        }
        break;
      case 6: {
        const auto library = parse(c.raw_value());
        if (!library.is_array()) throw Unsupported{};
        read_library(library, spec);
        break;
      }
      default: check(c.raw_value()); break;
    }
  });
}

// The spec of the whole text, with the edges left for later if `later` is
// given (read_graph), or nullopt where the stream cannot vouch for it.
std::optional<ProgramSpec> read_spec(std::string_view text, const StreamSplit& split, std::optional<EdgesAt>* later) {
  try {
    Cursor c(text);
    Literals literals;
    ProgramSpec spec;
    read_graph(c, literals, split, spec, later);
    if (!c.at_end()) return std::nullopt;
    // A library is made static over the whole spec, and a few edges are
    // read at once.
    if (later && *later && (!spec.library.empty() || (*later)->layout.elements < 2 * (*later)->stride)) {
      Cursor at = (*later)->start;
      read_array(at, spec.edges, literals, split, read_edge_at);
      if (!at.past((*later)->layout)) return std::nullopt;
      later->reset();
    }
    return spec;
  } catch (const Unsupported&) {
  } catch (const InputError&) {
  } catch (const json::exception&) {
  } catch (const std::system_error&) {  // no thread for a part
  }
  return std::nullopt;
}

// The edges array read in pieces of `stride` edges (the last may be shorter)
// by up to `threads` threads, this one among them, each piece handed to
// `take` on this thread, in order, as soon as it and those before it are
// read. While `take` has piece k, no thread reads past piece k + ahead - 1,
// so that only those lie in memory at once (and no more than `ahead`
// threads have a piece to read); this thread reads one while the piece it
// waits for is not read yet. False, once every thread has stopped, when a
// piece's text is not one the reader vouches for; running out of memory in
// any piece is thrown here, once every thread has stopped.
template <class Take>
bool read_in_pieces(const EdgesAt& edges, unsigned threads, Take&& take) {
  constexpr std::size_t ahead = 4;
  const auto n = edges.layout.elements, stride = edges.stride;
  const auto pieces = (n + stride - 1) / stride;
  if (edges.layout.marks.size() + 1 < pieces) return false;  // never: the count marks every stride-th comma
  std::vector<bool> ready(pieces, false);  // piece k is read (or failed)
  std::vector<std::vector<EdgeSpec>> read(pieces);
  std::size_t next = 0, taken = 0;  // the next piece to read, and to take
  bool failed = false, done = false;
  std::exception_ptr no_memory;
  std::mutex m;
  std::condition_variable changed;
  // Reads the next piece if one may be read now; false if none may.
  const auto read_next = [&](std::unique_lock<std::mutex>& lock, Literals& cache) {
    if (failed || done || next == pieces || next >= taken + ahead) return false;
    const auto k = next++;
    lock.unlock();
    std::vector<EdgeSpec> out;
    bool ok = true;
    std::exception_ptr oom;
    try {
      const auto first = k * stride, last = std::min(n, first + stride);
      out.reserve(last - first);
      Cursor at = k == 0 ? edges.start : edges.layout.marks[k - 1];
      if (k == 0) at.expect('[');
      for (std::size_t i = first; i < last; ++i) {
        if (i > first) at.expect(',');
        read_edge_at(at, i, cache, out.emplace_back());
      }
      ok = k + 1 < pieces ? at.stands_before(edges.layout.marks[k]) : at.take(']') && at.past(edges.layout);
    } catch (const std::bad_alloc&) {
      ok = false;
      oom = std::current_exception();
    } catch (...) {  // a text it cannot vouch for: the document reader reads it
      ok = false;
    }
    lock.lock();
    read[k] = std::move(out);
    ready[k] = true;
    failed = failed || !ok;
    if (oom && !no_memory) no_memory = oom;
    changed.notify_all();
    return true;
  };
  const auto help = [&] {
    Literals cache;
    std::unique_lock lock(m);
    while (!failed && !done && next < pieces)
      if (!read_next(lock, cache)) changed.wait(lock);
  };
  // Every helper stops and is joined before this returns, whatever `take` throws.
  struct Stop {
    std::mutex& m;
    std::condition_variable& changed;
    bool& done;
    ~Stop() {
      const std::lock_guard lock(m);
      done = true;
      changed.notify_all();
    }
  };
  std::vector<std::jthread> helpers;
  const Stop stop{m, changed, done};  // destroyed before the helpers are joined
  try {
    for (std::size_t t = 1; t < std::min<std::size_t>(threads, ahead); ++t) helpers.emplace_back(help);
  } catch (const std::system_error&) {  // no thread: this one reads the pieces the others do not
  }
  Literals cache;
  for (std::size_t k = 0; k < pieces; ++k) {
    std::unique_lock lock(m);
    while (!failed && !ready[k])
      if (!read_next(lock, cache)) changed.wait(lock);
    if (no_memory) std::rethrow_exception(no_memory);
    if (failed) return false;
    auto piece = std::move(read[k]);
    lock.unlock();
    take(std::span<EdgeSpec>(piece));
    piece = {};
    lock.lock();
    taken = k + 1;
    changed.notify_all();
  }
  return true;
}

}  // namespace

std::optional<ProgramSpec> stream_program(std::string_view text, StreamSplit split) {
  if (split.threads == 0) split.threads = std::max(1U, std::thread::hardware_concurrency());
  return read_spec(text, split, nullptr);
}

std::optional<std::shared_ptr<const Program>> stream_build(std::string_view text, const StopToken* stop, StreamSplit split) {
  if (split.threads == 0) split.threads = std::max(1U, std::thread::hardware_concurrency());
  std::optional<EdgesAt> edges;
  auto spec = read_spec(text, split, &edges);
  if (!spec) return std::nullopt;
  if (stop) stop->enter("during validation");
  if (!edges) return Program::build(std::move(*spec), stop);
  ProgramBuilder builder(std::move(*spec), edges->layout.elements, stop);
  if (!read_in_pieces(*edges, split.threads, [&](std::span<EdgeSpec> piece) { builder.add_edges(piece); }))
    return std::nullopt;
  return builder.finish();
}

}  // namespace tfsem::format
