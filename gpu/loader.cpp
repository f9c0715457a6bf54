// open_cuda_device() loads the CUDA backend (the tfsem_cuda module) on first
// use, as TensorFlow loads its CUDA libraries: a tfsem that never asks for the
// GPU never maps the CUDA runtime or cuBLAS (hundreds of MiB, a third of a
// second at every start).
#include "gpu/cuda_device.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <string>

namespace tfsem::gpu {

namespace {

// The module built beside this program (CMake passes its path), or $TFSEM_CUDA_MODULE.
std::string module_path() {
  if (const char* p = std::getenv("TFSEM_CUDA_MODULE")) return p;
  return TFSEM_CUDA_MODULE_PATH;
}

using Open = std::shared_ptr<fast_exec::Device> (*)(std::string* why);

}  // namespace

bool built_with_cuda() { return !std::string(TFSEM_CUDA_MODULE_PATH).empty(); }

std::shared_ptr<fast_exec::Device> open_cuda_device() {
  if (!built_with_cuda() && std::getenv("TFSEM_CUDA_MODULE") == nullptr)
    throw Unavailable("this tfsem was built without the CUDA backend (configure with nvcc on the PATH and TFSEM_CUDA=ON)");
  static std::once_flag once;
  static Open open = nullptr;
  static std::string error;
  std::call_once(once, [] {
    void* module = dlopen(module_path().c_str(), RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) {
      error = std::string("cannot load the CUDA backend: ") + dlerror();
      return;
    }
    open = reinterpret_cast<Open>(dlsym(module, "tfsem_open_cuda_device"));
    if (open == nullptr) error = "the CUDA backend " + module_path() + " has no tfsem_open_cuda_device";
  });
  if (open == nullptr) throw Unavailable(error);
  std::string why;
  auto device = open(&why);
  if (!device) throw Unavailable(why);
  return device;
}

}  // namespace tfsem::gpu
