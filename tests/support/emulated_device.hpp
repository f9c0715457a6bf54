// An accelerator in host memory, for testing what the executor does with one
// (placement, the copies on crossing edges, resident variables, falling back
// to the host) where no GPU is present. Its "device memory" is a Tensor; it
// computes with the registry's kernels and, as a real device does, declines
// whenever the result would be an error element.
#pragma once

#include "fast_exec/device.hpp"

#include <atomic>

namespace tfsem::test {

class EmulatedDevice final : public fast_exec::Device {
 public:
  std::atomic<std::uint64_t> kernels{0}, declined{0};

  [[nodiscard]] std::string name() const override { return "emulated accelerator (host memory)"; }
  [[nodiscard]] bool implements(const FunctionDef& f, const Attrs&) const override {
    return f.inputs > 0 && !f.nondeterministic && f.name != "Project";  // one function left to the host
  }
  [[nodiscard]] bool holds(const Tensor& t) const override { return t.is_dense(); }
  fast_exec::DeviceTensor upload(const Tensor& t) override {
    return {t.as_dense().dtype(), t.as_dense().shape, std::make_shared<Tensor>(t)};
  }
  Tensor download(const fast_exec::DeviceTensor& t) override { return *static_cast<const Tensor*>(t.memory.get()); }
  std::optional<std::vector<fast_exec::DeviceTensor>> run(const FunctionDef& f, const Attrs& attrs,
                                                         std::span<const fast_exec::DeviceTensor> args) override {
    std::vector<Tensor> host;
    for (const auto& a : args) host.push_back(download(a));
    auto tuples = apply(f, host, attrs, {});
    std::vector<fast_exec::DeviceTensor> out;
    for (const auto& t : tuples.at(0)) {
      if (!holds(t)) {
        ++declined;
        return std::nullopt;
      }
      out.push_back(upload(t));
    }
    ++kernels;
    return out;
  }
};

}  // namespace tfsem::test
