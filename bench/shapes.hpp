// DAG shapes for the executor benchmark, as edge lists over nodes 0..n-1 (an
// edge a -> b with a < b), turned into tfsem graphs of trivial nodes.
#pragma once

#include "semantics/program.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tfsem::bench {

struct Shape {
  std::string name;
  std::size_t nodes = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
};

Shape chain(std::size_t n);
Shape fan_out_in(std::size_t width);           // root -> width nodes -> sink
Shape layered(std::size_t layers, std::size_t width, std::uint64_t seed);  // two random parents in the previous layer

// Trivial nodes: each node is Const (it fires when its control edges are GO)
// with a dangling output; the shape's edges are control edges.
ProgramSpec trivial_graph(const Shape& s);
// `width` independent MatMul nodes of two fed n x n f32 matrices.
ProgramSpec matmul_graph(std::size_t width, std::size_t n);

}  // namespace tfsem::bench
