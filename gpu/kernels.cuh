// The CUDA kernels of the GPU device, behind a plain interface (no project
// headers, so that nvcc compiles only this): each launches on `stream` and
// returns the launch's error. Integer arithmetic wraps (two's complement), as
// the reference kernels' does (semantics/kernels.cpp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace tfsem::gpu::kernels {

enum class Type : std::uint8_t { f32, f64, i32, i64, boolean };  // DType's order
enum class Binary : std::uint8_t { add, sub, mul, div, less, equal };
enum class Unary : std::uint8_t { neg, square, sigmoid, relu };

// out[i] = a[i or 0] op b[i or 0] for i < n (a scalar operand broadcasts);
// less and equal write bool. Callers leave out integer div and bool arithmetic.
cudaError_t binary(Binary op, Type t, const void* a, bool a_scalar, const void* b, bool b_scalar, void* out,
                   std::int64_t n, cudaStream_t stream);
cudaError_t unary(Unary op, Type t, const void* a, void* out, std::int64_t n, cudaStream_t stream);
// in viewed as outer x len x inner; out[o * inner + i] is the sum (or the
// mean) over len. One block per output element, a tree in shared memory.
cudaError_t reduce(bool mean, Type t, const void* in, void* out, std::int64_t outer, std::int64_t len,
                   std::int64_t inner, cudaStream_t stream);
// Row-major integer product (floating point goes to cuBLAS).
cudaError_t int_matmul(Type t, const void* a, const void* b, void* out, std::int64_t m, std::int64_t k,
                       std::int64_t n, cudaStream_t stream);
// Copies src (outer x len x inner elements of `bytes` each) rows [begin, end)
// of the middle axis to dst (outer x dst_len x inner) from row dst_begin.
cudaError_t copy_block(std::size_t bytes, const void* src, std::int64_t outer, std::int64_t len, std::int64_t inner,
                       std::int64_t begin, std::int64_t end, void* dst, std::int64_t dst_len, std::int64_t dst_begin,
                       cudaStream_t stream);

}  // namespace tfsem::gpu::kernels
