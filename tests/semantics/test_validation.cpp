// Graphs that must be rejected, grouped by the rule they break:
// tests/malformed/<RULE>/<name>.json beside <name>.expected, the exact errors.
// TFSEM_PROMOTE=1 re-records the .expected files (review the diff!).
#include <doctest/doctest.h>

#include "semantics/diagnostic.hpp"
#include "formats/json/graph_json.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace tfsem;
namespace fs = std::filesystem;

namespace {
std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("every malformed graph is rejected with its expected errors, and the first names its rule") {
  const fs::path root = fs::path(TFSEM_SOURCE_DIR) / "tests" / "malformed";
  const bool promote = std::getenv("TFSEM_PROMOTE") != nullptr;
  int count = 0;
  for (const auto& dir : fs::directory_iterator(root)) {
    for (const auto& f : fs::directory_iterator(dir.path())) {
      if (f.path().extension() != ".json") continue;
      ++count;
      const auto rel = fs::relative(f.path(), fs::path(TFSEM_SOURCE_DIR)).string();
      CAPTURE(rel);
      std::vector<Diagnostic> diags;
      try {
        Program::build(format::load_program_file(rel.empty() ? f.path() : fs::path(TFSEM_SOURCE_DIR) / rel));
      } catch (const InputError& e) {
        diags = e.diagnostics();
      }
      REQUIRE_FALSE(diags.empty());
      CHECK(diags.front().rule == dir.path().filename().string());
      std::string got;
      for (auto d : diags) {
        if (d.where.starts_with(TFSEM_SOURCE_DIR)) d.where = d.where.substr(std::string(TFSEM_SOURCE_DIR).size() + 1);
        got += d.to_string() + "\n";
      }
      auto expected_file = f.path();
      expected_file.replace_extension(".expected");
      if (promote) std::ofstream(expected_file) << got;
      else CHECK(got == read(expected_file));
    }
  }
  CHECK(count >= 20);
}
