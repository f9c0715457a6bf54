#include "gpu/kernels.cuh"

#include <type_traits>

namespace tfsem::gpu::kernels {

namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n) {
  const auto b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : b > 65535 * 16 ? 65535 * 16 : b);
}

template <class T>
constexpr bool is_int = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// Wrapping integer arithmetic through the unsigned type; plain for floats.
template <class T>
__device__ T add(T a, T b) {
  if constexpr (is_int<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else return a + b;
}
template <class T>
__device__ T sub(T a, T b) {
  if constexpr (is_int<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(b));
  else return a - b;
}
template <class T>
__device__ T mul(T a, T b) {
  if constexpr (is_int<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) * static_cast<std::make_unsigned_t<T>>(b));
  else return a * b;
}

template <class T>
__global__ void binary_kernel(Binary op, const T* a, bool a_scalar, const T* b, bool b_scalar, void* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const T x = a[a_scalar ? 0 : i], y = b[b_scalar ? 0 : i];
    if (op == Binary::less) static_cast<bool*>(out)[i] = x < y;
    else if (op == Binary::equal) static_cast<bool*>(out)[i] = x == y;
    else if constexpr (!std::is_same_v<T, bool>) {
      T r{};
      switch (op) {
        case Binary::add: r = add(x, y); break;
        case Binary::sub: r = sub(x, y); break;
        case Binary::mul: r = mul(x, y); break;
        case Binary::div: r = x / y; break;  // floating point only (IEEE)
        default: break;
      }
      static_cast<T*>(out)[i] = r;
    }
  }
}

template <class T>
__global__ void unary_kernel(Unary op, const T* a, T* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const T v = a[i];
    switch (op) {
      case Unary::neg: out[i] = sub(T(0), v); break;
      case Unary::square: out[i] = mul(v, v); break;
      case Unary::relu: out[i] = v > T(0) ? v : T(0); break;
      case Unary::sigmoid:
        if constexpr (std::is_floating_point_v<T>) out[i] = T(1) / (T(1) + exp(-v));
        break;
    }
  }
}

template <class T>
__global__ void reduce_kernel(bool mean, const T* in, T* out, std::int64_t len, std::int64_t inner) {
  __shared__ T partial[kThreads];
  const std::int64_t o = blockIdx.x / inner, i = blockIdx.x % inner;
  T acc = 0;
  for (std::int64_t l = threadIdx.x; l < len; l += blockDim.x) acc = add(acc, in[(o * len + l) * inner + i]);
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) partial[threadIdx.x] = add(partial[threadIdx.x], partial[threadIdx.x + s]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = mean ? static_cast<T>(partial[0] / static_cast<T>(len)) : partial[0];
}

template <class T>
__global__ void int_matmul_kernel(const T* a, const T* b, T* out, std::int64_t m, std::int64_t k, std::int64_t n) {
  for (std::int64_t idx = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; idx < m * n; idx += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t r = idx / n, c = idx % n;
    T acc = 0;
    for (std::int64_t l = 0; l < k; ++l) acc = add(acc, mul(a[r * k + l], b[l * n + c]));
    out[idx] = acc;
  }
}

template <class E>
__global__ void copy_kernel(const E* src, std::int64_t len, std::int64_t inner, std::int64_t begin, std::int64_t rows,
                            E* dst, std::int64_t dst_len, std::int64_t dst_begin, std::int64_t total) {
  for (std::int64_t idx = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; idx < total; idx += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t i = idx % inner, l = (idx / inner) % rows, o = idx / (inner * rows);
    dst[(o * dst_len + dst_begin + l) * inner + i] = src[(o * len + begin + l) * inner + i];
  }
}

template <class F>
cudaError_t with_type(Type t, F&& f) {
  switch (t) {
    case Type::f32: return f(float{});
    case Type::f64: return f(double{});
    case Type::i32: return f(std::int32_t{});
    case Type::i64: return f(std::int64_t{});
    case Type::boolean: return f(bool{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t binary(Binary op, Type t, const void* a, bool a_scalar, const void* b, bool b_scalar, void* out,
                   std::int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_type(t, [&](auto v) {
    using T = decltype(v);
    binary_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(op, static_cast<const T*>(a), a_scalar,
                                                            static_cast<const T*>(b), b_scalar, out, n);
    return cudaGetLastError();
  });
}

cudaError_t unary(Unary op, Type t, const void* a, void* out, std::int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  return with_type(t, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) return cudaErrorInvalidValue;
    else {
      unary_kernel<T><<<blocks_for(n), kThreads, 0, stream>>>(op, static_cast<const T*>(a), static_cast<T*>(out), n);
      return cudaGetLastError();
    }
  });
}

cudaError_t reduce(bool mean, Type t, const void* in, void* out, std::int64_t outer, std::int64_t len,
                   std::int64_t inner, cudaStream_t stream) {
  if (outer * inner == 0) return cudaSuccess;
  return with_type(t, [&](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) return cudaErrorInvalidValue;
    else {
      reduce_kernel<T><<<static_cast<unsigned>(outer * inner), kThreads, 0, stream>>>(mean, static_cast<const T*>(in),
                                                                                    static_cast<T*>(out), len, inner);
      return cudaGetLastError();
    }
  });
}

cudaError_t int_matmul(Type t, const void* a, const void* b, void* out, std::int64_t m, std::int64_t k,
                       std::int64_t n, cudaStream_t stream) {
  if (m * n == 0) return cudaSuccess;
  return with_type(t, [&](auto v) {
    using T = decltype(v);
    if constexpr (!is_int<T>) return cudaErrorInvalidValue;
    else {
      int_matmul_kernel<T><<<blocks_for(m * n), kThreads, 0, stream>>>(static_cast<const T*>(a), static_cast<const T*>(b),
                                                                       static_cast<T*>(out), m, k, n);
      return cudaGetLastError();
    }
  });
}

cudaError_t copy_block(std::size_t bytes, const void* src, std::int64_t outer, std::int64_t len, std::int64_t inner,
                       std::int64_t begin, std::int64_t end, void* dst, std::int64_t dst_len, std::int64_t dst_begin,
                       cudaStream_t stream) {
  const auto rows = end - begin, total = outer * rows * inner;
  if (total == 0) return cudaSuccess;
  auto launch = [&](auto e) {
    using E = decltype(e);
    copy_kernel<E><<<blocks_for(total), kThreads, 0, stream>>>(static_cast<const E*>(src), len, inner, begin, rows,
                                                              static_cast<E*>(dst), dst_len, dst_begin, total);
    return cudaGetLastError();
  };
  switch (bytes) {
    case 1: return launch(std::uint8_t{});
    case 4: return launch(std::uint32_t{});
    case 8: return launch(std::uint64_t{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace tfsem::gpu::kernels
