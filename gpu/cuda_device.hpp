// The CUDA device of the fast executor (fast_exec/device.hpp): elementwise
// functions, reductions, MatMul (cuBLAS for floating point), Concat and Split
// on the GPU. Values live in device memory from the stream-ordered allocator;
// each kernel runs on the calling thread's default stream, which is
// synchronized before the result is handed on, so the executor's threads can
// pass device tensors among themselves.
#pragma once

#include "fast_exec/device.hpp"

#include <memory>
#include <stdexcept>

namespace tfsem::gpu {

// Why no CUDA device can be used: none present, no driver, or a tfsem built
// without the CUDA backend (TFSEM_CUDA=OFF, or no nvcc).
struct Unavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Whether this tfsem was built with the CUDA backend (the tfsem_cuda module).
bool built_with_cuda();
// The first CUDA device, from the module loaded on first use ($TFSEM_CUDA_MODULE
// overrides its path); throws Unavailable with the reason.
std::shared_ptr<fast_exec::Device> open_cuda_device();

}  // namespace tfsem::gpu
