// Conformance of the fast executor to the reference semantics, the way litmus7
// results are checked against herd7's model: the explorer gives every allowed
// outcome; each executor run must produce one of them, and the order in which
// it touched each variable must replay in the semantics to the same result.
// This is the one place where explorer/ and fast_exec/ meet.
#pragma once

#include "explorer/explore.hpp"
#include "fast_exec/executor.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfsem::conform {

// The default tolerance of --device gpu: 1024 times the f32 epsilon (2^-23),
// the classic bound n * eps on the relative error of an n-term sum in any
// order, for the reductions and dot products of up to 1024 terms that the
// models and the benchmark have. docs/gpu.md gives the argument.
inline constexpr double kGpuTolerance = 1024.0 / (1 << 23);

struct Options {
  std::size_t runs = 100;
  fast_exec::ExecOptions exec{};
  // Floats compare equal when |a - b| <= tolerance * (1 + |b|) elementwise;
  // 0: exact, as integers and symbolic values always are.
  double tolerance = 0;
  // Its limits' stop flag stops the executor's runs too.
  explorer::ExploreOptions explore{};
};

// Equal, or (tol > 0) dense floats of one shape with |a - b| <= tol * (1 + |b|) elementwise.
bool close(const Tensor& a, const Tensor& b, double tol);

// One executor run that broke the contract.
struct Failure {
  std::size_t run = 0;  // 1-based
  std::string what;
  std::string outcome;   // what the executor produced
  Schedule schedule;     // the run's order, rebuilt from its access log (empty if inconsistent)
};

struct Report {
  std::shared_ptr<const Semantics> semantics;  // the reference
  std::string graph, reference_hash, executor_hash;
  explorer::Result reference;
  std::vector<std::size_t> seen;  // runs producing each reference outcome
  std::vector<std::pair<std::string, std::size_t>> unexpected;  // outcomes outside the reference set, with counts
  std::vector<Failure> failures;
  std::size_t runs = 0, replayed = 0;
  std::string stopped_by;  // what stopped the executor's runs before the last one
  [[nodiscard]] bool complete() const { return reference.complete && stopped_by.empty(); }
  [[nodiscard]] bool conforms() const { return complete() && failures.empty(); }
};

Report conform(const std::shared_ptr<const Program>& program, const Options& options,
               const std::function<void(std::size_t)>& on_run = {});

// The report as text (one fact per line) or JSON.
std::string report_text(const Report& r, std::size_t max_failures = 5);
std::string report_json(const Report& r);

}  // namespace tfsem::conform
