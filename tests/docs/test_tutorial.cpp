// Runs every command of docs/tutorial.md and compares its output with the one
// shown there. In a ```console block, "$ tfsem ARGS" is a command (run from the
// repository root) and the lines after it are its output (stdout and stderr);
// a line "..." stands for any number of lines; "time:" lines are ignored.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Example {
  std::string args;
  std::vector<std::string> expected;
};

std::vector<Example> examples(const std::string& file) {
  std::ifstream in(file);
  std::vector<Example> out;
  bool console = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("```")) {
      console = line == "```console";
      continue;
    }
    if (!console) continue;
    if (line.starts_with("$ tfsem ")) out.push_back({line.substr(8), {}});
    else if (!out.empty()) out.back().expected.push_back(line);
  }
  return out;
}

std::vector<std::string> run(const std::string& args) {
  const std::string command = std::string("cd '") + TFSEM_SOURCE_DIR + "' && '" + TFSEM_BINARY + "' " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string text;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) text.append(buf.data(), n);
  pclose(pipe);
  std::vector<std::string> lines;
  std::istringstream ss(text);
  for (std::string line; std::getline(ss, line);)
    if (!line.starts_with("time: ")) lines.push_back(line);
  return lines;
}

// Whether `actual` matches `expected`, where "..." matches any run of lines
// and a line ending in " ..." matches any line with that prefix.
bool matches(const std::vector<std::string>& expected, std::size_t e, const std::vector<std::string>& actual, std::size_t a) {
  if (e == expected.size()) return a == actual.size();
  if (expected[e] == "...") {
    for (std::size_t k = a; k <= actual.size(); ++k)
      if (matches(expected, e + 1, actual, k)) return true;
    return false;
  }
  if (a == actual.size()) return false;
  const auto& want = expected[e];
  const bool prefix = want.ends_with(" ...");
  const bool same = prefix ? actual[a].starts_with(want.substr(0, want.size() - 3)) : actual[a] == want;
  return same && matches(expected, e + 1, actual, a + 1);
}

}  // namespace

TEST_CASE("every command in docs/tutorial.md prints what the tutorial shows") {
  const auto all = examples(std::string(TFSEM_SOURCE_DIR) + "/docs/tutorial.md");
  CHECK(all.size() >= 10);
  for (const auto& ex : all) {
    CAPTURE(ex.args);
    const auto actual = run(ex.args);
    std::string shown;
    for (const auto& l : actual) shown += l + "\n";
    CAPTURE(shown);
    CHECK(matches(ex.expected, 0, actual, 0));
  }
}
