// libFuzzer: the inputs beside the graph, on the shipped models: a `--feed
// EDGE=VALUE` (the first line) and a schedule file (the rest), replayed run by
// run as `tfsem trace --schedule-file` does. The first byte picks the model.
// Oracle: a parsed schedule prints back to a text that parses to itself.
#include "cli/schedule_file.hpp"
#include "fuzz_support.hpp"
#include "semantics/diagnostic.hpp"
#include "semantics/format/graph_json.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

namespace {

// The shipped models, in name order.
const std::vector<tfsem::ProgramSpec>& models() {
  static const auto specs = [] {
    std::vector<std::filesystem::path> files;
    for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(TFSEM_SOURCE_DIR) / "models"))
      if (f.path().extension() == ".json") files.push_back(f.path());
    std::sort(files.begin(), files.end());
    std::vector<tfsem::ProgramSpec> out;
    for (const auto& f : files) out.push_back(tfsem::format::load_program_file(f));
    return out;
  }();
  return specs;
}

// The value of a feed, when it is JSON the harness can afford.
bool affordable_feed(const std::string& feed) {
  const auto value = nlohmann::json::parse(feed.substr(std::min(feed.size(), feed.find('=') + 1)), nullptr, false);
  return value.is_discarded() || tfsem::fuzz::affordable(value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tfsem;
  if (size == 0) return 0;
  auto spec = models()[data[0] % models().size()];
  const auto text = fuzz::text_of(data + 1, size - 1);
  const auto newline = std::min(text.find('\n'), text.size());
  const auto feed = text.substr(0, newline), schedule_text = text.substr(std::min(newline + 1, text.size()));
  if (!affordable_feed(feed)) return 0;
  try {
    if (!feed.empty()) format::apply_feed(spec, feed);
    const Semantics sem(Program::build(std::move(spec)));
    const auto runs = cli::read_schedule_text(sem, schedule_text, "fuzz");
    State s = sem.initial();
    for (std::size_t r = 0; r < runs.size(); ++r) {
      const auto printed = schedule_to_string(sem, runs[r]);
      if (parse_schedule(sem, printed) != runs[r]) fuzz::fuzz_fail("schedule '" + printed + "' parses to another one");
      if (r > 0) s = sem.next_run(s);
      if (replay(sem, s, runs[r])) break;  // a refused step ends the trace, as in tfsem trace
      (void)outputs(sem.program(), s);
      if (sem.terminal(s)) (void)sem.stuck(s), (void)sem.violations(s);
    }
  } catch (const InputError&) {
  }
  return 0;
}
