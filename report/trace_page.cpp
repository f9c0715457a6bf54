#include "report/page.hpp"
#include "report/trace.hpp"

#include <optional>

namespace tfsem::report {

namespace {

// Writes what `also` writes, and keeps each run as a witness of the page.
class TracePage : public TracePageWriter {
 public:
  explicit TracePage(TraceWriter& also) : also_(also) {}

  void begin(const Program& last) override { also_.begin(last); }
  void graph(const Semantics& sem, int run) override { also_.graph(sem, run); }
  void run(const Semantics& sem, int run, const State& s) override {
    also_.run(sem, run, s);
    if (!witnesses_) {
      sem_ = &sem;
      witnesses_.emplace(sem);
    }
    witnesses_->begin("run " + std::to_string(run), s);
  }
  void step(const Semantics& sem, std::size_t index, const Step& step, const State& s) override {
    also_.step(sem, index, step, s);
    witnesses_->step(step, s);
  }
  void end_run(const Semantics& sem, const State& s, const RunEnd& end) override { also_.end_run(sem, s, end); }
  void end(const Program& last, const State& s) override { also_.end(last, s); }

  [[nodiscard]] std::string html() const override {
    if (!witnesses_) return "";
    return page_html("tfsem trace " + sem_->program().name(), sem_->program(), nullptr, *witnesses_);
  }

 private:
  TraceWriter& also_;
  const Semantics* sem_ = nullptr;
  std::optional<PageWitnesses> witnesses_;
};

}  // namespace

std::unique_ptr<TracePageWriter> trace_page(TraceWriter& also) { return std::make_unique<TracePage>(also); }

}  // namespace tfsem::report
