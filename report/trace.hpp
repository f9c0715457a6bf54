// The report of `tfsem trace`: each run's states as the paper's figures show
// them, step by step, and how each run ended (text), or the same as one JSON
// document. A walk reports to a TraceWriter as it goes, so the text of the
// steps taken is out before a step the walk refuses.
#pragma once

#include "semantics/semantics.hpp"
#include "semantics/session.hpp"

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

namespace tfsem::report {

// How a run ended.
struct RunEnd {
  std::size_t steps = 0;
  Schedule taken;                 // the steps fired
  bool terminal = false;          // no transition is enabled
  std::optional<FrameId> beyond;  // the loop or function the next step would take past `bounds`
  Bounds bounds{};
};

class TraceWriter {
 public:
  virtual ~TraceWriter() = default;
  // The graph of the last run.
  virtual void begin(const Program& last) = 0;
  // Run `run` (from 1) has a graph of its own, `sem`'s.
  virtual void graph(const Semantics& sem, int run) = 0;
  // Run `run` (from 1) starts in `s`.
  virtual void run(const Semantics& sem, int run, const State& s) = 0;
  // Step `index` (from 1) fired `step`, leading to `s`.
  virtual void step(const Semantics& sem, std::size_t index, const Step& step, const State& s) = 0;
  // The run ended in `s`.
  virtual void end_run(const Semantics& sem, const State& s, const RunEnd& end) = 0;
  // The walk ended in `s`, the variables named in the last run's graph.
  virtual void end(const Program& last, const State& s) = 0;
};

// Each writes to `out`: the text line by line, the JSON at the end.
std::unique_ptr<TraceWriter> trace_text(std::ostream& out);
std::unique_ptr<TraceWriter> trace_json(std::ostream& out);

// Writes what `also` writes, and keeps each run as a witness of a page
// (report/page.hpp) of the first run's graph.
class TracePageWriter : public TraceWriter {
 public:
  // The page, once the walk has ended ("" if no run started).
  [[nodiscard]] virtual std::string html() const = 0;
};
std::unique_ptr<TracePageWriter> trace_page(TraceWriter& also);

}  // namespace tfsem::report
