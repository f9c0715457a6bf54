// Where each entry of a Program's table of nodes or edges was declared: a
// JSON path, or what an importer wrote ("node 3 'x'"). Kept as runs of
// consecutive entries, each either declared at places of the array, one
// after another (node 7 at "/nodes/7", or at "/nodes/9" when two elements
// before it were left out or put after it), or declared at one path (a
// GraphDef node's edges at that node's; a spec made in code, whose paths are
// all ""). A graph read from tfsem's JSON is one run and holds no path; one
// whose library was inlined, a run or two for each call site.
#pragma once

#include "support/compact_string.hpp"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tfsem {

// The JSON path of element i of an array ("/nodes/" or "/edges/"),
// "/nodes/12", written in a buffer of its own.
class ElementPath {
 public:
  template <std::size_t N>
  ElementPath(const char (&array)[N], std::uint64_t i) : ElementPath(std::string_view(array, N - 1), i) {
    static_assert(N - 1 + 20 <= sizeof text_, "the array's path and 20 digits");
  }
  ElementPath(std::string_view array, std::uint64_t i) {
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
    if (const auto place = place_of(where.view())) {
      const std::uint64_t shift = *place - id;  // modulo 2^64, as the place is made again
      if (!runs_.empty() && runs_.back().placed && runs_.back().shift == shift) return;
      runs_.push_back({id, true, shift, {}});
    } else if (runs_.empty() || runs_.back().placed || runs_.back().where != where) {
      runs_.push_back({id, false, 0, std::move(where)});
    }
  }
  // Once every entry is in: lets go of the room the runs did not take.
  void shrink() { runs_.shrink_to_fit(); }
  [[nodiscard]] std::size_t runs() const { return runs_.size(); }

  // Entry `id`'s path.
  [[nodiscard]] std::string operator()(std::uint32_t id) const {
    assert(id < added_);
    const auto run = std::upper_bound(runs_.begin(), runs_.end(), id, [](std::uint32_t x, const Run& r) { return x < r.first; });
    const auto& r = *std::prev(run);
    return r.placed ? std::string(ElementPath(array_, id + r.shift).view()) : r.where.str();
  }

 private:
  struct Run {
    std::uint32_t first;  // its first entry; it lasts until the next run's
    bool placed;          // entry i at place i + shift of the array; else every one at `where`
    std::uint64_t shift;
    CompactString where;
  };
  std::string_view array_;
  std::vector<Run> runs_;  // by first entry
  std::uint32_t added_ = 0;

  // The place a path names in the array, if it is one as ElementPath writes
  // it ("/nodes/12"; not "/nodes/012").
  [[nodiscard]] std::optional<std::uint64_t> place_of(std::string_view path) const {
    if (!path.starts_with(array_)) return std::nullopt;
    const auto digits = path.substr(array_.size());
    std::uint64_t i = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), i);
    if (ec != std::errc() || end != digits.data() + digits.size() || (digits.size() > 1 && digits[0] == '0'))
      return std::nullopt;
    return i;
  }
};

}  // namespace tfsem
