// A validated Program compiled once into flat arrays for the executor: per
// node its operation, its input and output edges, the nodes its edges feed
// (one entry per edge, so a node fed twice by one node is counted twice) and
// how many of its incoming edges must be filled before it is ready.
#pragma once

#include "semantics/program.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace tfsem::fast_exec {

struct CompiledNode {
  Op::Kind kind = Op::Kind::function;
  const FunctionDef* fn = nullptr;
  const Attrs* attrs = nullptr;
  VarId var{};                 // Var(x), or the variable a Read or Assign-f accesses
  std::uint32_t in_begin = 0;  // tensor and variable inputs, by port: in_edges[in_begin ..)
  std::uint32_t in_count = 0;
  std::uint32_t out_begin = 0;  // tensor and variable outputs, by port
  std::uint32_t out_count = 0;
  std::uint32_t control_out_begin = 0;
  std::uint32_t control_out_count = 0;
  std::uint32_t succ_begin = 0;  // destination of each outgoing edge that has one
  std::uint32_t succ_count = 0;
  std::int32_t pending = 0;  // incoming edges that are not input edges
  bool stateful = false;     // Read or Assign-f
  // A deterministic function without inputs (Const) is computed once, here:
  // its result is constants[constant - 1]. 0: computed at run time.
  std::uint32_t constant = 0;
};

struct CompiledGraph {
  std::shared_ptr<const Program> program;
  std::vector<CompiledNode> nodes;
  std::vector<std::uint32_t> in_edges, out_edges, control_out_edges, succ;
  std::vector<std::uint32_t> initially_ready;  // nodes with no pending edge
  std::vector<Tuple> constants;
  std::vector<std::uint32_t> fetched;  // the output edges that have a fetch name, in edge order

  CompiledGraph(std::shared_ptr<const Program> p, const TermOptions& terms);
};

}  // namespace tfsem::fast_exec
