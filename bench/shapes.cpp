#include "bench/shapes.hpp"

#include "models/generate/spec_builder.hpp"
#include "semantics/session.hpp"

namespace tfsem::bench {

Shape chain(std::size_t n) {
  Shape s{"chain", n, {}};
  for (std::uint32_t i = 1; i < n; ++i) s.edges.emplace_back(i - 1, i);
  return s;
}

Shape fan_out_in(std::size_t width) {
  Shape s{"fan-out-in", width + 2, {}};
  const auto sink = static_cast<std::uint32_t>(width + 1);
  for (std::uint32_t i = 1; i <= width; ++i) {
    s.edges.emplace_back(0, i);
    s.edges.emplace_back(i, sink);
  }
  return s;
}

Shape layered(std::size_t layers, std::size_t width, std::uint64_t seed) {
  Shape s{"layered", layers * width, {}};
  RandomScheduler rng(seed);
  for (std::size_t l = 1; l < layers; ++l)
    for (std::size_t i = 0; i < width; ++i) {
      const auto node = static_cast<std::uint32_t>(l * width + i);
      const auto a = rng.below(width), b = rng.below(width);
      s.edges.emplace_back(static_cast<std::uint32_t>((l - 1) * width + a), node);
      if (b != a) s.edges.emplace_back(static_cast<std::uint32_t>((l - 1) * width + b), node);
    }
  return s;
}

ProgramSpec trivial_graph(const Shape& s) {
  generate::SpecBuilder b(s.name + "-" + std::to_string(s.nodes));
  const Tensor one = Tensor::scalar(std::int32_t{1});
  std::vector<bool> has_input(s.nodes, false);
  for (const auto& [from, to] : s.edges) has_input[to] = true;
  for (std::size_t i = 0; i < s.nodes; ++i) {
    const auto id = b.node("n" + std::to_string(i), "Const", "", {{"value", one}});
    if (!has_input[i]) b.go(id);
    b.output({id, 0}, "o" + std::to_string(i));
  }
  for (const auto& [from, to] : s.edges) b.control("n" + std::to_string(from), "n" + std::to_string(to));
  return std::move(b).build();
}

ProgramSpec matmul_graph(std::size_t width, std::size_t n) {
  generate::SpecBuilder b("matmul-" + std::to_string(width) + "x" + std::to_string(n));
  Buffer<float> data(static_cast<std::ptrdiff_t>(n * n));
  for (std::ptrdiff_t i = 0; i < data.size(); ++i) data[i] = static_cast<float>(i % 7) * 0.25f;
  const auto side = static_cast<std::int64_t>(n);
  const auto m = Tensor::dense(tfsem::Shape{side, side}, data);
  for (std::size_t i = 0; i < width; ++i) {
    const auto id = b.node("mm" + std::to_string(i), "MatMul");
    b.feed(m, {id, 0});
    b.feed(m, {id, 1});
    b.output({id, 0}, "o" + std::to_string(i));
  }
  return std::move(b).build();
}

}  // namespace tfsem::bench
