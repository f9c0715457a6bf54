// The options every command that reads a graph shares: the file (tfsem's JSON
// or a TensorFlow graph), feeds, pruning and term normalization.
#pragma once

#include "semantics/diagnostic.hpp"
#include "semantics/program.hpp"
#include "semantics/semantics.hpp"
#include "support/stop_token.hpp"

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace tfsem::cli {

struct GraphOptions {
  std::string file;
  std::vector<std::string> feeds;    // EDGE=VALUE
  bool prune = false;                // footnote 7
  std::vector<std::string> fetches;  // prune to these fetches
  bool normalize = false;            // terms modulo the declared laws
  bool initialized = false;          // a GraphDef's variables hold their initializers' values
  bool tf1_refs = false;             // a GraphDef's `x/read` aliases the variable (S-DEREF)
  std::string tag, signature;        // a SavedModel's MetaGraph and SignatureDef
  const CLI::App* command = nullptr;  // a stop while loading is reported as JSON under the command's --json

  void add_to(CLI::App& app);
  // Loads (importing a GraphDef, with its notes on stderr unless not `notes`),
  // feeds, validates and (optionally) prunes (format::load_program); throws
  // InputError, and Stopped when `stop` (may be null) stops the work.
  [[nodiscard]] std::shared_ptr<const Program> program(bool notes = true, const StopToken* stop = nullptr) const {
    return program(file, notes, stop);
  }
  [[nodiscard]] Semantics load(const StopToken* stop = nullptr) const { return load(file, stop); }
  // The semantics' options these give (--normalize).
  [[nodiscard]] Options options() const;
  // The same, for another file with these options (refines reads two).
  [[nodiscard]] std::shared_ptr<const Program> program(const std::string& path, bool notes = true,
                                                       const StopToken* stop = nullptr) const;
  [[nodiscard]] Semantics load(const std::string& path, const StopToken* stop = nullptr) const;
};

}  // namespace tfsem::cli
