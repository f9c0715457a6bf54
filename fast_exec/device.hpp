// Devices (TensorFlow chapter, "Devices"): the host runs every kernel of the
// registry on host tensors; an accelerator (gpu/ has the CUDA one) runs the
// kernels it implements on tensors in its own memory. An executor placed on an
// accelerator runs each node there when it can, and copies a value between
// host and accelerator only where an edge crosses the two (Send/Recv).
#pragma once

#include "semantics/registry.hpp"
#include "semantics/tensor.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tfsem::fast_exec {

// A dense tensor resident in an accelerator's memory: dtype and shape on the
// host, elements on the device. Immutable once made, and shared, like Tensor.
struct DeviceTensor {
  DType dtype{};
  Shape shape;
  std::shared_ptr<void> memory;  // owned by the device; null: no tensor
  explicit operator bool() const { return memory != nullptr; }
};

class Device {
 public:
  virtual ~Device() = default;
  // For messages and reports: "CUDA: NVIDIA H100 80GB HBM3".
  [[nodiscard]] virtual std::string name() const = 0;
  // Placement: whether f with these attributes has a kernel here.
  [[nodiscard]] virtual bool implements(const FunctionDef& f, const Attrs& attrs) const = 0;
  // Whether t can live here (a dense tensor of a dtype the device stores).
  [[nodiscard]] virtual bool holds(const Tensor& t) const = 0;
  // The two copies of an edge that crosses devices. upload requires holds(t).
  virtual DeviceTensor upload(const Tensor& t) = 0;
  virtual Tensor download(const DeviceTensor& t) = 0;
  // f's results on device tensors; nullopt when these arguments are outside
  // the kernel (mismatched shapes or dtypes, integer division: whatever the
  // semantics answers with an error element), so that the host computes f.
  virtual std::optional<std::vector<DeviceTensor>> run(const FunctionDef& f, const Attrs& attrs,
                                                       std::span<const DeviceTensor> args) = 0;
};

}  // namespace tfsem::fast_exec
