// A validated Program compiled once into flat arrays for the executor: per
// node its operation, its input and output edges and where each output goes;
// per static frame (the root, a loop, a function) the template of one
// iteration's state: how many inputs each node waits for, the input slots, and
// the frame instances that an iteration can start (loops it enters, calls it
// makes). The executor keeps one such state per iteration of a frame instance,
// as TensorFlow's executor does (Yu et al., EuroSys 2018, section 4.1).
#pragma once

#include "semantics/program.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace tfsem::fast_exec {

inline constexpr std::uint32_t kNone = ~std::uint32_t{0};

// Where the token a node puts on an outgoing edge goes (C-SLOT): the same
// iteration, iteration 0 of a frame instance it starts (Enter, Call), the
// enclosing iteration (Exit, and a result into its caller's Return), the next
// iteration (NextIteration), or out of the graph (an output edge).
enum class Route : std::uint8_t { same, enter, exit, next, call, caller, output };

// What kind of node an edge goes into, as arriving tokens tell them apart:
// a Merge (C-MERGE) and a Return (C-RETURN) take tokens their own way.
enum class Into : std::uint8_t { node, merge, return_ };

// 20 bytes: a graph of millions of edges holds one for each edge that has a
// source. A data edge's input port is its Edge's in the Program: only a Merge
// asks, as a live token arrives.
struct CompiledOut {
  std::uint32_t edge = 0;
  std::uint32_t dst = kNone;   // the destination node; kNone for an output edge
  // A data edge: its input slot in the destination's iteration state. An
  // output edge: its index in CompiledGraph::fetched, or kNone (not fetched).
  std::uint32_t slot = 0;
  std::uint32_t local = 0;     // the destination's CompiledNode::local
  Route route = Route::same;
  Into into = Into::node;
  bool control = false;
};
static_assert(sizeof(CompiledOut) == 20);

struct CompiledNode {
  const FunctionDef* fn = nullptr;
  const Attrs* attrs = nullptr;
  VarId var{};                 // Var(x), or the variable a Read or Assign-f accesses
  std::uint32_t frame = 0;     // the static frame it fires in
  std::uint32_t local = 0;     // its index among its frame's nodes
  std::uint32_t in_begin = 0;  // the input slot of each data input, by port: in_slots[in_begin ..)
  std::uint32_t in_count = 0;
  std::uint32_t out_begin = 0;  // data outputs by port, then control outputs: outs[out_begin ..)
  std::uint32_t out_count = 0;  // data outputs
  std::uint32_t control_out_count = 0;
  std::int32_t pending = 0;     // incoming edges it waits for (a Merge: its control edges)
  std::uint32_t child = kNone;  // Enter, Call: the child instance slot of its iteration state
  std::uint32_t target = 0;     // Enter: the loop frame entered; Call: the function's frame
  std::uint32_t site = 0;       // Call, Return: the call site
  std::uint32_t exit = 0;       // Exit: its index among its frame's Exits
  // A deterministic function without inputs (Const) is computed once, here:
  // its tuple, one tensor per data output, is constants[constant - 1 ..
  // constant - 1 + out_count), which constant nodes of one function and one
  // value of attributes share. 0: computed at run time. Not a key: a NoOp's
  // tuple is empty, and its index the next constant's.
  std::uint32_t constant = 0;
  Op::Kind kind = Op::Kind::function;  // beside the flags: 80 bytes a node, not 88
  bool stateful = false;        // Read or Assign-f
  bool invariant = false;       // a constant Enter (C-ENTER-CONST)
  bool loop_merge = false;      // a Merge with a back edge
  bool returns = false;         // an output goes to a caller's Return (C-RETURN)
};

// The template of an iteration's state in one static frame.
struct CompiledFrame {
  Frame::Kind kind = Frame::Kind::root;
  std::uint32_t parallel_iterations = 1;
  std::uint32_t slots = 0;     // input slots of the frame's nodes
  std::uint32_t children = 0;  // frame instances one iteration can start
  std::int32_t enters = 0;     // a loop: its Enters (the instance waits for each)
  std::vector<std::uint32_t> nodes;           // global ids, by local index
  std::vector<std::int32_t> pending;          // by local index
  std::vector<std::uint32_t> merges, exits;   // global ids
  std::vector<std::uint32_t> sources;         // nodes ready as soon as an iteration starts
};

struct CompiledGraph {
  std::shared_ptr<const Program> program;
  std::vector<CompiledNode> nodes;
  std::vector<CompiledFrame> frames;
  std::vector<std::uint32_t> in_slots, in_edges;  // by CompiledNode::in_begin: each data input's slot and edge
  std::vector<CompiledOut> outs;        // by CompiledNode::out_begin
  std::vector<CompiledOut> inputs;      // the input edges, delivered when a run starts
  std::vector<Tensor> constants;        // the constants' tuples, one after another (CompiledNode::constant)
  std::vector<std::uint32_t> fetched;    // the output edges that have a fetch name, in edge order
  // By Call node: the Calls of its site (the callee waits for each); empty in a graph without Calls.
  std::vector<std::uint32_t> calls_at_site;
  // By edge: a Call's data output: its site (C-CALL); kNone otherwise.
  // Empty in a graph without Calls.
  std::vector<std::uint32_t> call_site;
  std::vector<std::uint8_t> back_edge;  // by edge: leaves a NextIteration; empty in a graph without loops

  CompiledGraph(std::shared_ptr<const Program> p, const TermOptions& terms);

  // C-MERGE-DEAD: whether a Merge (a loop's if `loop_merge`) counts its data
  // input edge e among those it waits for, in an iteration (`later`: not
  // the first) of an instance of call site `site`: a call's argument from
  // that site, a loop's entering value in iteration 0 and its
  // NextIteration's after, any input of a Merge of neither.
  [[nodiscard]] bool waits_for(std::uint32_t e, bool loop_merge, std::uint32_t site, bool later) const {
    if (!call_site.empty() && call_site[e] != kNone) return call_site[e] == site;
    return !loop_merge || (!back_edge.empty() && back_edge[e] != 0) == later;
  }

  // A constant node's tuple (CompiledNode::constant).
  [[nodiscard]] std::span<const Tensor> tuple(const CompiledNode& c) const {
    return std::span(constants).subspan(c.constant - 1, c.out_count);
  }
};

}  // namespace tfsem::fast_exec
