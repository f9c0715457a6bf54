// Checkpoint files (explorer/checkpoint_file.hpp, checkpoint.hpp): what is
// written reads back the same; a header of another tfsem, graph or search
// options, a truncated, corrupted or unfinished file are refused, each with
// its reason; a file being written never replaces the last one until it is
// committed.
#include <doctest/doctest.h>

#include "explorer/checkpoint.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

using namespace tfsem::explorer;
namespace fs = std::filesystem;

namespace {

struct Dir {
  fs::path path = fs::temp_directory_path() / ("tfsem-checkpoint-test-" + std::to_string(::getpid()));
  Dir() { fs::create_directories(path); }
  ~Dir() { fs::remove_all(path); }
  [[nodiscard]] std::string file(const std::string& name) const { return (path / name).string(); }
};

const CheckpointHeader kHeader{"tfsem 0.1", "0123456789abcdef", "--por rf --max-iterations 100 --max-depth 100", 4};

// A checkpoint of kHeader with `n` numbers 0..n-1 and a text after it.
void write(const std::string& path, std::uint64_t n, const CheckpointHeader& h = kHeader) {
  CheckpointOut out(path);
  write_header(out, h);
  std::vector<std::uint64_t> numbers(n);
  for (std::uint64_t k = 0; k < n; ++k) numbers[k] = k;
  out.list(numbers);
  out.text("the end");
  out.commit();
}

std::string refusal(const std::string& path, const CheckpointHeader& expected = kHeader) {
  try {
    CheckpointIn in(path);
    read_header(in, expected);
    in.list<std::uint64_t>(UINT64_MAX);
    in.text();
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a checkpoint reads back what was written, across the checksum's blocks") {
  Dir d;
  const auto path = d.file("rf.checkpoint");
  write(path, 300'000);  // 2.4 MB: three blocks
  CheckpointIn in(path);
  const auto h = read_header(in, kHeader);
  CHECK(h.shards == 4);
  const auto numbers = in.list<std::uint64_t>(UINT64_MAX);
  REQUIRE(numbers.size() == 300'000);
  CHECK(numbers[299'999] == 299'999);
  CHECK(in.text() == "the end");
  CHECK(in.at_end());
  CHECK_FALSE(fs::exists(path + ".tmp"));
}

TEST_CASE("a checkpoint of another tfsem, graph or search options is refused, naming both") {
  Dir d;
  const auto path = d.file("rf.checkpoint");
  write(path, 10);
  auto other = kHeader;
  other.version = "tfsem 0.2";
  CHECK(contains(refusal(path, other), "a checkpoint of another tfsem (tfsem 0.1), not of tfsem 0.2"));
  other = kHeader;
  other.graph_hash = "fedcba9876543210";
  CHECK(contains(refusal(path, other), "a checkpoint of another graph (hash 0123456789abcdef), not of hash fedcba9876543210"));
  other = kHeader;
  other.options = "--por none --max-iterations 100 --max-depth 100";
  CHECK(contains(refusal(path, other), "a checkpoint of other search options (--por rf"));
  other = kHeader;
  other.shards = 1;  // not compared: the resumed search takes the checkpoint's
  CHECK(refusal(path, other).empty());
}

TEST_CASE("a truncated, corrupted, unfinished or foreign file is refused with its reason") {
  Dir d;
  const auto path = d.file("rf.checkpoint");
  write(path, 300'000);
  const auto size = fs::file_size(path);
  SUBCASE("truncated") {
    fs::resize_file(path, size - 1);
    CHECK(contains(refusal(path), "truncated: " + std::to_string(size - 1) + " bytes of " + std::to_string(size)));
    fs::resize_file(path, 10);
    CHECK(contains(refusal(path), "truncated"));
  }
  SUBCASE("corrupted") {
    for (const auto at : {std::uint64_t{40}, size / 2, size - 1}) {
      write(path, 300'000);
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(static_cast<std::streamoff>(at));
      char c = 0;
      f.get(c);
      f.seekp(static_cast<std::streamoff>(at));
      f.put(static_cast<char>(c ^ 0x10));
      f.close();
      CHECK(contains(refusal(path), "corrupted: its checksum does not match"));
    }
  }
  SUBCASE("longer than it says") {
    std::ofstream(path, std::ios::app | std::ios::binary) << "more";
    CHECK(contains(refusal(path), "corrupted"));
  }
  SUBCASE("not a checkpoint") {
    std::ofstream(path, std::ios::trunc) << "{\"graph\": 1}";
    CHECK(contains(refusal(path), "not a tfsem checkpoint"));
  }
  SUBCASE("missing") {
    fs::remove(path);
    CHECK(contains(refusal(path), "cannot open"));
  }
}

TEST_CASE("a checkpoint being written leaves the last one whole until it is committed") {
  Dir d;
  const auto path = d.file("rf.checkpoint");
  write(path, 10);
  {
    CheckpointOut out(path);
    write_header(out, kHeader);
    out.text("half");
    CHECK(fs::exists(path + ".tmp"));
    CHECK(refusal(path).empty());  // the last one, whole
  }  // never committed: the temporary file goes
  CHECK_FALSE(fs::exists(path + ".tmp"));
  CHECK(refusal(path).empty());
}

TEST_CASE("reading past the end of the contents is refused, never read") {
  Dir d;
  const auto path = d.file("rf.checkpoint");
  write(path, 10);
  CheckpointIn in(path);
  read_header(in, kHeader);
  CHECK_THROWS_AS(in.list<std::uint64_t>(5), CheckpointError);  // a list longer than its bound
}
