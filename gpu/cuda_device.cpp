#include "gpu/cuda_device.hpp"

#include "gpu/kernels.cuh"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <array>
#include <string_view>

namespace tfsem::gpu {

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string("cuBLAS: ") + what + ": status " + std::to_string(static_cast<int>(s)));
}

cudaStream_t stream() { return cudaStreamPerThread; }

std::size_t element_bytes(DType d) {
  switch (d) {
    case DType::f32: case DType::i32: return 4;
    case DType::f64: case DType::i64: return 8;
    case DType::boolean: return 1;
  }
  return 1;
}

kernels::Type type_of(DType d) { return static_cast<kernels::Type>(d); }

// A device tensor of this dtype and shape, uninitialized; freed in stream order.
fast_exec::DeviceTensor allocate(DType d, Shape shape) {
  const auto bytes = std::max<std::size_t>(1, element_bytes(d) * static_cast<std::size_t>(element_count(shape)));
  void* p = nullptr;
  check(cudaMallocAsync(&p, bytes, stream()), "cudaMallocAsync");
  return {d, std::move(shape), std::shared_ptr<void>(p, [](void* q) { cudaFreeAsync(q, cudaStreamPerThread); })};
}

// The calling thread's cuBLAS handle, on its default stream, without TF32
// shortcuts (so that f32 products round as f32 arithmetic does).
cublasHandle_t blas() {
  thread_local struct Handle {
    cublasHandle_t h = nullptr;
    Handle() {
      check(cublasCreate(&h), "cublasCreate");
      check(cublasSetStream(h, cudaStreamPerThread), "cublasSetStream");
      check(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    }
    ~Handle() { cublasDestroy(h); }
  } handle;
  return handle.h;
}

template <class Op, std::size_t N>
std::optional<Op> lookup(const std::array<std::pair<std::string_view, Op>, N>& ops, std::string_view f) {
  for (const auto& [name, op] : ops)
    if (name == f) return op;
  return std::nullopt;
}

std::optional<kernels::Binary> binary_op(std::string_view f) {
  using B = kernels::Binary;
  static constexpr std::array<std::pair<std::string_view, B>, 6> ops{
      {{"Add", B::add}, {"Sub", B::sub}, {"Mul", B::mul}, {"Div", B::div}, {"Less", B::less}, {"Equal", B::equal}}};
  return lookup(ops, f);
}

std::optional<kernels::Unary> unary_op(std::string_view f) {
  using U = kernels::Unary;
  static constexpr std::array<std::pair<std::string_view, U>, 4> ops{
      {{"Neg", U::neg}, {"Square", U::square}, {"Sigmoid", U::sigmoid}, {"Relu", U::relu}}};
  return lookup(ops, f);
}

bool valid_axis(const Shape& s, std::int64_t axis) { return axis >= 0 && axis < static_cast<std::int64_t>(s.size()); }

// outer x len x inner around `axis`.
std::array<std::int64_t, 3> around(const Shape& s, std::int64_t axis) {
  std::array<std::int64_t, 3> v{1, s[axis], 1};
  for (std::int64_t d = 0; d < static_cast<std::int64_t>(s.size()); ++d) {
    if (d < axis) v[0] *= s[d];
    if (d > axis) v[2] *= s[d];
  }
  return v;
}

class CudaDevice final : public fast_exec::Device {
 public:
  explicit CudaDevice(int ordinal) : ordinal_(ordinal) {
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties");
    name_ = std::string("CUDA device ") + std::to_string(ordinal) + ": " + prop.name;
  }

  [[nodiscard]] std::string name() const override { return name_; }

  [[nodiscard]] bool implements(const FunctionDef& f, const Attrs&) const override {
    const std::string_view n = f.name;
    return binary_op(n) || unary_op(n) || n == "Sum" || n == "Mean" || n == "MatMul" || n == "Concat" || n == "Split";
  }

  [[nodiscard]] bool holds(const Tensor& t) const override { return t.is_dense(); }

  fast_exec::DeviceTensor upload(const Tensor& t) override {
    select();
    const auto& d = t.as_dense();
    auto out = allocate(d.dtype(), d.shape);
    std::visit([&](const auto& buf) {
      check(cudaMemcpyAsync(out.memory.get(), buf.data(), buf.size() * sizeof(buf[0]), cudaMemcpyHostToDevice, stream()), "upload");
    }, d.data);
    check(cudaStreamSynchronize(stream()), "upload");
    return out;
  }

  Tensor download(const fast_exec::DeviceTensor& t) override {
    select();
    return with_element_type(t.dtype, [&](auto v) -> Tensor {
      using T = decltype(v);
      Buffer<T> buf(element_count(t.shape));
      check(cudaMemcpyAsync(buf.data(), t.memory.get(), buf.size() * sizeof(T), cudaMemcpyDeviceToHost, stream()), "download");
      check(cudaStreamSynchronize(stream()), "download");
      return Tensor::dense(t.shape, Storage{std::move(buf)});
    });
  }

  std::optional<std::vector<fast_exec::DeviceTensor>> run(const FunctionDef& f, const Attrs& attrs,
                                                          std::span<const fast_exec::DeviceTensor> args) override {
    select();
    auto out = dispatch(f, attrs, args);
    if (out) check(cudaStreamSynchronize(stream()), f.name.data());
    return out;
  }

 private:
  int ordinal_;
  std::string name_;

  void select() const { check(cudaSetDevice(ordinal_), "cudaSetDevice"); }

  using Results = std::optional<std::vector<fast_exec::DeviceTensor>>;

  // Each case declines (nullopt) exactly where semantics/kernels.cpp answers
  // with an error element, and for integer division (which can).
  static Results dispatch(const FunctionDef& f, const Attrs& attrs, std::span<const fast_exec::DeviceTensor> a) {
    const std::string_view name = f.name;
    const bool integral = a[0].dtype == DType::i32 || a[0].dtype == DType::i64;
    if (auto op = binary_op(name)) {
      const auto& x = a[0];
      const auto& y = a[1];
      const bool arithmetic = *op != kernels::Binary::less && *op != kernels::Binary::equal;
      if (x.dtype != y.dtype || (x.shape != y.shape && !x.shape.empty() && !y.shape.empty())) return std::nullopt;
      if (arithmetic && (x.dtype == DType::boolean || (*op == kernels::Binary::div && integral))) return std::nullopt;
      const auto& shape = x.shape.empty() ? y.shape : x.shape;
      auto out = allocate(arithmetic ? x.dtype : DType::boolean, shape);
      check(kernels::binary(*op, type_of(x.dtype), x.memory.get(), x.shape.empty(), y.memory.get(), y.shape.empty(),
                            out.memory.get(), element_count(shape), stream()), f.name.data());
      return std::vector{std::move(out)};
    }
    if (auto op = unary_op(name)) {
      if (a[0].dtype == DType::boolean || (*op == kernels::Unary::sigmoid && integral)) return std::nullopt;
      auto out = allocate(a[0].dtype, a[0].shape);
      check(kernels::unary(*op, type_of(a[0].dtype), a[0].memory.get(), out.memory.get(), element_count(a[0].shape), stream()),
            f.name.data());
      return std::vector{std::move(out)};
    }
    if (name == "Sum" || name == "Mean") return reduce(name == "Mean", attrs, a[0]);
    if (name == "MatMul") return matmul(a[0], a[1]);
    if (name == "Concat") return concat(a[0], a[1], int_attr(attrs, "axis", 0));
    if (name == "Split") return split(a[0], int_attr(attrs, "axis", 0));
    return std::nullopt;
  }

  static Results reduce(bool mean, const Attrs& attrs, const fast_exec::DeviceTensor& x) {
    if (x.dtype == DType::boolean) return std::nullopt;
    std::array<std::int64_t, 3> v{1, element_count(x.shape), 1};
    Shape shape;
    if (auto it = attrs.find("axis"); it != attrs.end()) {
      const auto axis = std::get<std::int64_t>(it->second);
      if (!valid_axis(x.shape, axis)) return std::nullopt;
      v = around(x.shape, axis);
      for (std::int64_t d = 0; d < static_cast<std::int64_t>(x.shape.size()); ++d)
        if (d != axis) shape.push_back(x.shape[d]);
    }
    if (mean && v[1] == 0) return std::nullopt;
    auto out = allocate(x.dtype, shape);
    check(kernels::reduce(mean, type_of(x.dtype), x.memory.get(), out.memory.get(), v[0], v[1], v[2], stream()), "reduce");
    return std::vector{std::move(out)};
  }

  static Results matmul(const fast_exec::DeviceTensor& x, const fast_exec::DeviceTensor& y) {
    if (x.dtype != y.dtype || x.dtype == DType::boolean || x.shape.size() != 2 || y.shape.size() != 2 ||
        x.shape[1] != y.shape[0])
      return std::nullopt;
    const auto m = x.shape[0], k = x.shape[1], n = y.shape[1];
    if (!shape_within_limits({m, n})) return std::nullopt;
    auto out = allocate(x.dtype, {m, n});
    if (x.dtype == DType::i32 || x.dtype == DType::i64) {
      check(kernels::int_matmul(type_of(x.dtype), x.memory.get(), y.memory.get(), out.memory.get(), m, k, n, stream()), "MatMul");
      return std::vector{std::move(out)};
    }
    if (m == 0 || n == 0) return std::vector{std::move(out)};
    if (k == 0) {  // an empty sum: zeros
      check(cudaMemsetAsync(out.memory.get(), 0, static_cast<std::size_t>(m * n) * element_bytes(x.dtype), stream()), "MatMul");
      return std::vector{std::move(out)};
    }
    // Row-major C = A B is column-major C^T = B^T A^T.
    const auto im = static_cast<int>(m), ik = static_cast<int>(k), in = static_cast<int>(n);
    if (x.dtype == DType::f32) {
      const float one = 1, zero = 0;
      check(cublasSgemm(blas(), CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, static_cast<const float*>(y.memory.get()), in,
                        static_cast<const float*>(x.memory.get()), ik, &zero, static_cast<float*>(out.memory.get()), in),
            "Sgemm");
    } else {
      const double one = 1, zero = 0;
      check(cublasDgemm(blas(), CUBLAS_OP_N, CUBLAS_OP_N, in, im, ik, &one, static_cast<const double*>(y.memory.get()), in,
                        static_cast<const double*>(x.memory.get()), ik, &zero, static_cast<double*>(out.memory.get()), in),
            "Dgemm");
    }
    return std::vector{std::move(out)};
  }

  static Results concat(const fast_exec::DeviceTensor& x, const fast_exec::DeviceTensor& y, std::int64_t axis) {
    if (x.dtype != y.dtype || !valid_axis(x.shape, axis) || x.shape.size() != y.shape.size()) return std::nullopt;
    for (std::size_t d = 0; d < x.shape.size(); ++d)
      if (static_cast<std::int64_t>(d) != axis && x.shape[d] != y.shape[d]) return std::nullopt;
    Shape shape = x.shape;
    shape[axis] = x.shape[axis] + y.shape[axis];
    if (!shape_within_limits(shape)) return std::nullopt;
    auto out = allocate(x.dtype, shape);
    const auto bytes = element_bytes(x.dtype);
    const auto vx = around(x.shape, axis), vy = around(y.shape, axis);
    check(kernels::copy_block(bytes, x.memory.get(), vx[0], vx[1], vx[2], 0, vx[1], out.memory.get(), shape[axis], 0, stream()), "Concat");
    check(kernels::copy_block(bytes, y.memory.get(), vy[0], vy[1], vy[2], 0, vy[1], out.memory.get(), shape[axis], vx[1], stream()), "Concat");
    return std::vector{std::move(out)};
  }

  static Results split(const fast_exec::DeviceTensor& x, std::int64_t axis) {
    if (!valid_axis(x.shape, axis) || x.shape[axis] % 2 != 0) return std::nullopt;
    const auto v = around(x.shape, axis);
    const auto half = v[1] / 2;
    Shape shape = x.shape;
    shape[axis] = half;
    std::vector<fast_exec::DeviceTensor> out;
    for (std::int64_t part = 0; part < 2; ++part) {
      out.push_back(allocate(x.dtype, shape));
      check(kernels::copy_block(element_bytes(x.dtype), x.memory.get(), v[0], v[1], v[2], part * half, (part + 1) * half,
                                out.back().memory.get(), half, 0, stream()), "Split");
    }
    return out;
  }
};

}  // namespace
}  // namespace tfsem::gpu

// The module's one entry point (gpu/loader.cpp): the first CUDA device, or
// null with the reason in *why.
extern "C" __attribute__((visibility("default"))) std::shared_ptr<tfsem::fast_exec::Device> tfsem_open_cuda_device(
    std::string* why) {
  int count = 0;
  if (const auto e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    // The runtime says "insufficient driver" also where there is no driver at all.
    const char* hint = e == cudaErrorInsufficientDriver ? "no NVIDIA driver, or one older than this CUDA runtime; " : "";
    *why = std::string("no usable CUDA device (") + hint + "CUDA runtime: " + cudaGetErrorString(e) + ")";
    return nullptr;
  }
  if (count == 0) {
    *why = "no CUDA device on this machine";
    return nullptr;
  }
  try {
    return std::make_shared<tfsem::gpu::CudaDevice>(0);
  } catch (const std::exception& e) {
    *why = e.what();
    return nullptr;
  }
}
