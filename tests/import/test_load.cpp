// The loader every command reads a graph through (formats/load.hpp): load,
// feed (G-FEED), validate, prune (S-PRUNE), and refuse a placeholder the run
// needs and nobody fed (I-FEED); each problem names the file.
#include <doctest/doctest.h>

#include "formats/load.hpp"

#include <filesystem>

using namespace tfsem;

namespace {

const std::filesystem::path kPlaceholder = std::filesystem::path(TFSEM_SOURCE_DIR) / "tests/import/graphs/placeholder.pbtxt";

// The one problem `load` throws.
Diagnostic refusal(const std::function<void()>& load) {
  try {
    load();
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    return e.diagnostics().front();
  }
  FAIL("no InputError");
  return {};
}

}  // namespace

TEST_CASE("a placeholder the run needs must be fed (I-FEED)") {
  const auto d = refusal([] { format::load_program(kPlaceholder, {{{"y:0"}}, {}, false}); });
  CHECK(d.rule == "I-FEED");
  CHECK(d.where == kPlaceholder.string());
  CHECK(d.subject == "placeholder 'x'");
  const auto fed = format::load_program(kPlaceholder, {{{"y:0"}}, {"x=20"}, false});
  CHECK(fed->find_edge("x"));
}

TEST_CASE("a placeholder pruned away needs no feed") {
  const auto p = format::load_program(kPlaceholder, {{{"z:0"}}, {}, false});
  CHECK(!p->find_edge("x"));
}

TEST_CASE("a feed of no edge is refused, naming the file") {
  const auto d = refusal([] { format::load_program(kPlaceholder, {{{"y:0"}}, {"nope=1"}, false}); });
  CHECK(d.where.starts_with(kPlaceholder.string()));
  CHECK(d.message.find("no such edge") != std::string::npos);
}

TEST_CASE("the import's notes go to on_note; tfsem's JSON has none") {
  const auto graphdef = std::filesystem::path(TFSEM_SOURCE_DIR) / "tests/import/issues/13174-assign-mul.pbtxt";
  std::vector<std::string> notes;
  graphdef::ImportOptions import;
  import.tf1_refs = true;
  format::load_program(graphdef, {import, {}, false}, [&](const std::string& n) { notes.push_back(n); });
  REQUIRE(!notes.empty());
  CHECK(notes.front().starts_with("--tf1-refs: "));
  const auto json = std::filesystem::path(TFSEM_SOURCE_DIR) / "models/first-example.json";
  notes.clear();
  const auto p = format::load_program(json, {{}, {"b=\"Q\""}, true}, [&](const std::string& n) { notes.push_back(n); });
  CHECK(notes.empty());
  CHECK(p->nodes().size() == 4);
}
