// Where each entry of a Program's table of nodes or edges was declared: a
// JSON path, or what an importer wrote ("node 3 'x'"). Kept as runs of
// consecutive entries: a run either declared at their places in the table
// (node 7 at "/nodes/7") or declared at one path (a GraphDef node's edges at
// that node's; a spec made in code, whose paths are ""). A graph read from
// tfsem's JSON is one run and holds no path; a refused element, or a library
// function inlined before the rest, starts another.
#pragma once

#include "support/compact_string.hpp"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfsem {

// The JSON path of element i of an array ("/nodes/" or "/edges/"),
// "/nodes/12", written in a buffer of its own.
class ElementPath {
 public:
  ElementPath(std::string_view array, std::size_t i) {
    assert(array.size() + 20 <= sizeof text_);
    std::copy(array.begin(), array.end(), text_);
    size_ = static_cast<std::size_t>(std::to_chars(text_ + array.size(), text_ + sizeof text_, i).ptr - text_);
  }
  [[nodiscard]] std::string_view view() const { return {text_, size_}; }

 private:
  char text_[40];
  std::size_t size_;
};

class DeclaredWhere {
 public:
  // `array`: the JSON path of the table, with its slash ("/nodes/"); a literal.
  explicit DeclaredWhere(std::string_view array) : array_(array) {}

  // Entry `id`'s path; the ids come one after another from 0.
  void add(std::uint32_t id, CompactString where) {
    assert(id == added_);
    ++added_;
    const bool placed = where.view() == ElementPath(array_, id).view();
    if (!runs_.empty() && runs_.back().placed == placed && (placed || runs_.back().where == where)) return;
    runs_.push_back({id, placed, placed ? CompactString() : std::move(where)});
  }
  // Once every entry is in: lets go of the room the runs did not take.
  void shrink() { runs_.shrink_to_fit(); }

  // Entry `id`'s path.
  [[nodiscard]] std::string operator()(std::uint32_t id) const {
    const auto run = std::upper_bound(runs_.begin(), runs_.end(), id, [](std::uint32_t x, const Run& r) { return x < r.first; });
    assert(run != runs_.begin());
    const auto& r = *std::prev(run);
    return r.placed ? std::string(ElementPath(array_, id).view()) : r.where.str();
  }

 private:
  struct Run {
    std::uint32_t first;  // its first entry; it lasts until the next run's
    bool placed;          // each entry at its place; else every one at `where`
    CompactString where;
  };
  std::string_view array_;
  std::vector<Run> runs_;  // by first entry
  std::uint32_t added_ = 0;
};

}  // namespace tfsem
