// The executor on the GPU against the executor on the CPU, on the same wide
// MLP-style graph in one run: layers h = Relu(MatMul(h, W) + B) over
// variables resident on the device, then Sum(Sigmoid(h)). Prints a Markdown
// row per width: milliseconds per run on each device and the CPU/GPU ratio.
// Without a usable GPU it prints the CPU figures and says why the GPU's are
// missing. Usage: bench_gpu [RUNS] [WIDTH ...]   (defaults: 10; 1024 2048)
#include "fast_exec/executor.hpp"
#include "gpu/cuda_device.hpp"
#include "models/generate/spec_builder.hpp"
#include "semantics/session.hpp"

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

using namespace tfsem;

namespace {

constexpr int kLayers = 4;

Tensor random_matrix(std::int64_t rows, std::int64_t cols, RandomScheduler& rng, float scale) {
  Buffer<float> b(rows * cols);
  for (std::ptrdiff_t i = 0; i < b.size(); ++i) b[i] = scale * (static_cast<float>(rng.below(2001)) / 1000.0F - 1.0F);
  return Tensor::dense({rows, cols}, Storage{std::move(b)});
}

std::shared_ptr<const Program> mlp(std::int64_t width) {
  RandomScheduler rng(static_cast<std::uint64_t>(width));
  generate::SpecBuilder b("mlp-" + std::to_string(width), "wide MLP-style graph for bench_gpu");
  b.node("x", "Identity");
  b.feed(random_matrix(width, width, rng, 1.0F), {"x", 0});
  std::string h = "x";
  for (int l = 0; l < kLayers; ++l) {
    const auto s = std::to_string(l);
    b.variable("W" + s, random_matrix(width, width, rng, 1.0F / static_cast<float>(width)));
    b.variable("B" + s, random_matrix(width, width, rng, 0.1F));
    b.node("readW" + s, "Read");
    b.var_for("readW" + s, "W" + s);
    b.node("readB" + s, "Read");
    b.var_for("readB" + s, "B" + s);
    b.node("mm" + s, "MatMul");
    b.tensor({h, 0}, {"mm" + s, 0});
    b.tensor({"readW" + s, 0}, {"mm" + s, 1});
    b.node("bias" + s, "Add");
    b.tensor({"mm" + s, 0}, {"bias" + s, 0});
    b.tensor({"readB" + s, 0}, {"bias" + s, 1});
    b.node("relu" + s, "Relu");
    b.tensor({"bias" + s, 0}, {"relu" + s, 0});
    h = "relu" + s;
  }
  b.node("sigmoid", "Sigmoid");
  b.tensor({h, 0}, {"sigmoid", 0});
  b.node("sum", "Sum");
  b.tensor({"sigmoid", 0}, {"sum", 0});
  b.output({"sum", 0}, "y");
  return Program::build(std::move(b).build());
}

// Milliseconds per run, after one warm-up run.
double per_run(const std::shared_ptr<const Program>& p, fast_exec::ExecOptions o, int runs, std::string& y) {
  o.var_values = false;
  fast_exec::Executor executor(p, o);
  executor.run();
  const auto start = std::chrono::steady_clock::now();
  fast_exec::RunResult r;
  for (int k = 0; k < runs; ++k) r = executor.run();
  y = content_to_string(*p, r.fetched.at(0));
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / runs;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::stoi(argv[1]) : 10;
  std::vector<std::int64_t> widths;
  for (int i = 2; i < argc; ++i) widths.push_back(std::stoll(argv[i]));
  if (widths.empty()) widths = {1024, 2048};
  std::shared_ptr<fast_exec::Device> gpu;
  std::string why;
  try {
    gpu = gpu::open_cuda_device();
  } catch (const gpu::Unavailable& e) {
    why = e.what();
  }
  const int threads = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  // The executor runs independent nodes on its threads and each kernel on one
  // of them; this graph is a chain, so the CPU side is one core's GEMM.
  std::printf("GPU: %s; CPU: the executor on %d threads, each kernel on one\n\n",
              gpu ? gpu->name().c_str() : ("none, " + why).c_str(), threads);
  std::printf("| graph | CPU ms/run | GPU ms/run | CPU/GPU | y on CPU | y on GPU |\n|---|---|---|---|---|---|\n");
  for (auto width : widths) {
    const auto p = mlp(width);
    fast_exec::ExecOptions cpu;
    cpu.threads = threads;
    std::string y_cpu, y_gpu = "-";
    const double t_cpu = per_run(p, cpu, runs, y_cpu);
    if (!gpu) {
      std::printf("| %s | %.1f | - | - | %s | - |\n", p->name().c_str(), t_cpu, y_cpu.c_str());
      continue;
    }
    fast_exec::ExecOptions on_gpu = cpu;
    on_gpu.accelerator = gpu;
    const double t_gpu = per_run(p, on_gpu, runs, y_gpu);
    std::printf("| %s | %.1f | %.2f | %.1fx | %s | %s |\n", p->name().c_str(), t_cpu, t_gpu, t_cpu / t_gpu, y_cpu.c_str(),
                y_gpu.c_str());
  }
}
