// What the libFuzzer harnesses share: reading a graph from the fuzzer's bytes
// the way every command does, and a bound on what one input may ask for.
//
// Bad input must give an InputError (a clear error and exit 2); the harnesses
// catch those and nothing else, so any other exception, a sanitizer report or
// a failed oracle (fuzz_fail) is a crash for the fuzzer.
#pragma once

#include "semantics/program.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tfsem::fuzz {

std::string text_of(const std::uint8_t* data, std::size_t size);

// What a harness affords on every input: at most kMaxNodes nodes, at most
// kMaxGrowing of them MatMul or Concat (which make tensors larger than their
// inputs), and no shape of more than kMaxElements elements. tfsem accepts
// larger ones (up to 2^28 elements a tensor); the fuzzer would spend its time
// allocating them.
inline constexpr std::size_t kMaxNodes = 64;
inline constexpr int kMaxGrowing = 8;
inline constexpr double kMaxElements = 256;

// Whether a JSON document (a graph, a fed value) is within those bounds.
bool affordable(const nlohmann::json& doc);

// The program of a graph text, as the commands load it: null when the text is
// malformed or breaks a rule (an InputError), or is not affordable.
std::shared_ptr<const Program> load_program(std::string_view text);

// An oracle failed: prints what and aborts, which the fuzzer reports as a crash.
[[noreturn]] void fuzz_fail(const std::string& what);

}  // namespace tfsem::fuzz
