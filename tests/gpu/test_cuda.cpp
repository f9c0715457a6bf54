// The CUDA device against the reference: each kernel on random tensors of
// every dtype and shape it takes, and every model conforming with --device
// gpu. Without a usable GPU (or without the CUDA backend) it reports itself
// skipped (exit 77), never passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "conformance/conform.hpp"
#include "gpu/cuda_device.hpp"
#include "semantics/session.hpp"
#include "support/graphs.hpp"

#include <iostream>

using namespace tfsem;

namespace {

std::shared_ptr<fast_exec::Device> device;

// Floats are multiples of 1/64 below 16 in magnitude, so that the sums and
// products here are exact in any order: a difference is a bug, not rounding.
Tensor random_tensor(DType d, const Shape& shape, RandomScheduler& rng) {
  const auto n = element_count(shape);
  auto fill = [&](auto v) {
    using T = decltype(v);
    Buffer<T> b(n);
    for (std::ptrdiff_t i = 0; i < n; ++i) {
      const auto r = static_cast<std::int64_t>(rng.below(2001)) - 1000;
      if constexpr (std::is_same_v<T, bool>) b[i] = r > 0;
      else if constexpr (std::is_floating_point_v<T>) b[i] = static_cast<T>(r) / T(64);
      else b[i] = static_cast<T>(r * 3);
    }
    return Tensor::dense(shape, Storage{std::move(b)});
  };
  return with_element_type(d, fill);
}

// f on the GPU against f on the host, or both declining into an error element.
void check_kernel(const FunctionDef& f, const Attrs& attrs, const std::vector<Tensor>& args) {
  CAPTURE(f.name);
  for (const auto& a : args) CAPTURE(a.to_string(8));
  const auto expected = apply(f, args, attrs, {}).at(0);
  std::vector<fast_exec::DeviceTensor> on_device;
  for (const auto& a : args) on_device.push_back(device->upload(a));
  const auto got = device->run(f, attrs, on_device);
  if (!got) {  // declined: the host answers, with an error element or (integer Div) a value
    CHECK((expected[0].is_error() || f.name == "Div"));
    return;
  }
  REQUIRE(got->size() == expected.size());
  for (std::size_t j = 0; j < expected.size(); ++j) {
    const auto value = device->download((*got)[j]);
    CHECK(conform::close(value, expected[j], conform::kGpuTolerance));
  }
}

}  // namespace

TEST_CASE("every kernel against the reference, on every dtype") {
  RandomScheduler rng(2026);
  const auto& reg = Registry::builtin();
  const Shape shapes[] = {{}, {7}, {3, 5}, {2, 3, 4}, {4, 0}};
  const DType dtypes[] = {DType::f32, DType::f64, DType::i32, DType::i64, DType::boolean};
  for (const auto& f : reg.all()) {
    if (!device->implements(f, {})) continue;
    for (auto d : dtypes)
      for (const auto& s : shapes) {
        const auto a = random_tensor(d, s, rng), b = random_tensor(d, s, rng);
        if (f.inputs == 1) {
          check_kernel(f, {}, {a});
          for (std::int64_t axis = -1; axis <= static_cast<std::int64_t>(s.size()); ++axis)
            check_kernel(f, {{"axis", axis}}, {a});
        } else if (f.name == "MatMul") {
          if (s.size() == 2) check_kernel(f, {}, {a, random_tensor(d, {s[1], 6}, rng)});
          check_kernel(f, {}, {a, b});
        } else if (f.name == "Concat") {
          for (std::int64_t axis = 0; axis < static_cast<std::int64_t>(s.size()); ++axis) check_kernel(f, {{"axis", axis}}, {a, b});
        } else {
          check_kernel(f, {}, {a, b});
          check_kernel(f, {}, {a, random_tensor(d, {}, rng)});  // a scalar broadcasts
          check_kernel(f, {}, {a, random_tensor(d, {9}, rng)}); // mismatched shapes: declined
        }
      }
  }
  // Large enough for cuBLAS and many reduction blocks.
  const auto* matmul = reg.find("MatMul");
  check_kernel(*matmul, {}, {random_tensor(DType::f32, {256, 512}, rng), random_tensor(DType::f32, {512, 128}, rng)});
  check_kernel(*reg.find("Sum"), {}, {random_tensor(DType::f32, {1000, 100}, rng)});
}

TEST_CASE("every model of the section 3 core conforms on the GPU") {
  for (const auto& p : test::core_models()) {
    CAPTURE(p->name());
    conform::Options o;
    o.runs = 20;
    o.exec.threads = 2;
    o.exec.perturb_seed = 5;
    o.exec.accelerator = device;
    o.tolerance = conform::kGpuTolerance;
    CHECK(conform::conform(p, o).conforms());
  }
}

TEST_CASE("variables stay on the GPU across runs") {
  const auto p = test::program_file("models/counter.json");
  fast_exec::ExecOptions o;
  o.accelerator = device;
  fast_exec::Executor executor(p, o);
  for (int k = 1; k <= 3; ++k) CHECK(content_to_string(*p, executor.run().fetched.at(0)) == "i32:" + std::to_string(k));
}

int main(int argc, char** argv) {
  try {
    device = gpu::open_cuda_device();
  } catch (const gpu::Unavailable& e) {
    std::cout << "skipped: " << e.what() << "\n";
    return 77;
  }
  std::cout << "on " << device->name() << "\n";
  doctest::Context context(argc, argv);
  return context.run();
}
