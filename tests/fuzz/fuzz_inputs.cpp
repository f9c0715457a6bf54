// libFuzzer: the inputs beside the graph, on the shipped models. The first
// line names a model (models/NAME.json), the second is a `--feed EDGE=VALUE`
// (or empty), the rest a schedule file, replayed run by run as `tfsem trace
// --schedule-file` does. Oracle: a parsed schedule prints back to a text that
// parses to itself.
#include "cli/schedule_file.hpp"
#include "fuzz_support.hpp"
#include "semantics/diagnostic.hpp"
#include "formats/json/graph_json.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

namespace {

// The shipped models, by name.
const std::map<std::string, tfsem::ProgramSpec>& models() {
  static const auto specs = [] {
    std::map<std::string, tfsem::ProgramSpec> out;
    for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(TFSEM_SOURCE_DIR) / "models"))
      if (f.path().extension() == ".json") out.emplace(f.path().stem().string(), tfsem::format::load_program_file(f.path()));
    return out;
  }();
  return specs;
}

// The value of a feed, when it is JSON the harness can afford.
bool affordable_feed(const std::string& feed) {
  const auto value = nlohmann::json::parse(feed.substr(std::min(feed.size(), feed.find('=') + 1)), nullptr, false);
  return value.is_discarded() || tfsem::fuzz::affordable(value);
}

// The text up to the next newline (or the end), and the position after it.
std::string line_at(const std::string& text, std::size_t& pos) {
  const auto end = std::min(text.find('\n', pos), text.size());
  auto line = text.substr(pos, end - pos);
  pos = std::min(end + 1, text.size());
  return line;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tfsem;
  const auto text = fuzz::text_of(data, size);
  std::size_t pos = 0;
  const auto model = models().find(line_at(text, pos));
  if (model == models().end()) return 0;
  const auto feed = line_at(text, pos);
  if (!affordable_feed(feed)) return 0;
  auto spec = model->second;
  try {
    if (!feed.empty()) format::apply_feed(spec, feed);
    const Semantics sem(Program::build(std::move(spec)));
    const auto runs = cli::read_schedule_text(sem, text.substr(pos), "fuzz");
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
