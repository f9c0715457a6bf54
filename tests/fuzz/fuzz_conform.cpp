// libFuzzer: a graph loaded, then `tfsem conform` on it: the reference search
// within small limits, three runs of the fast executor on two threads, each
// outcome and recorded access order checked against the semantics. Oracle: a
// complete conformance check conforms (the executor is correct).
#include "conformance/conform.hpp"
#include "explorer/memory_gauge.hpp"
#include "fuzz_support.hpp"
#include "semantics/diagnostic.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tfsem;
  const auto program = fuzz::load_program(fuzz::text_of(data, size));
  if (!program) return 0;
  conform::Options o;
  o.runs = 3;
  o.exec.threads = 2;
  o.explore.limits.max_states = 2000;
  o.explore.limits.max_memory_bytes = tfsem::resident_set_bytes().value_or(0) + (std::uint64_t{256} << 20);
  StopToken stop;
  stop.set_deadline(StopToken::Clock::now() + std::chrono::seconds(2));
  o.explore.limits.stop = &stop;
  o.explore.limits.bounds = {.max_iterations = 8, .max_depth = 4};
  try {
    const auto report = conform::conform(program, o);
    if (report.complete() && !report.conforms()) fuzz::fuzz_fail("the executor does not conform:\n" + conform::report_text(report));
  } catch (const InputError&) {  // X-EXEC: the executor runs no S-DEREF (--tf1-refs)
  }
  return 0;
}
