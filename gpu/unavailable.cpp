// The CUDA backend was not built (TFSEM_CUDA=OFF, or CMake found no nvcc).
#include "gpu/cuda_device.hpp"

namespace tfsem::gpu {

bool built_with_cuda() { return false; }

std::shared_ptr<fast_exec::Device> open_cuda_device() {
  throw Unavailable("this tfsem was built without the CUDA backend (configure with nvcc on the PATH and TFSEM_CUDA=ON)");
}

}  // namespace tfsem::gpu
