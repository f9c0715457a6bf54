#include "cli/exec_options.hpp"

#include "gpu/cuda_device.hpp"
#include "semantics/diagnostic.hpp"

#include <thread>

namespace tfsem::cli {

void ExecCli::add_to(CLI::App& app) {
  app.add_option("--threads", threads, "executor threads (0: every hardware thread)")->check(CLI::Range(0, 1024))->capture_default_str();
  app.add_option("--perturb", perturb, "seed for schedule perturbation (random ready order, short random delays)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--device", device,
                 "cpu, or gpu: kernels that have a CUDA implementation on the GPU, the rest on the CPU, with copies "
                 "where an edge crosses the two")
      ->check(CLI::IsMember({"cpu", "gpu"}))
      ->capture_default_str();
  app.add_option("--calls", calls,
                 "static: a call's frame instance reused, its tag the call sites (thesis section 5.2); dynamic: each "
                 "call's state instantiated from the function's body when it is made, as TensorFlow r1.4 does")
      ->check(CLI::IsMember({"static", "dynamic"}))
      ->capture_default_str();
  app.add_flag("--unsafe", unsafe, "Assign-f as separate read, compute and write without the lock (a deliberate bug)");
}

fast_exec::ExecOptions ExecCli::make(const TermOptions& terms) const {
  fast_exec::ExecOptions o;
  o.threads = threads > 0 ? threads : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  if (perturb >= 0) o.perturb_seed = static_cast<std::uint64_t>(perturb);
  o.unsafe_assign = unsafe;
  o.calls = calls == "dynamic" ? fast_exec::Calls::dynamic : fast_exec::Calls::static_;
  o.terms = terms;
  if (device == "gpu") {
    try {
      o.accelerator = gpu::open_cuda_device();
    } catch (const gpu::Unavailable& e) {
      throw InputError("X-DEVICE", "--device gpu", "the GPU", e.what());
    }
  }
  return o;
}

}  // namespace tfsem::cli
