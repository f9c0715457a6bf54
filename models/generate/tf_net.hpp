// Building graphs in the shape TensorFlow 1 gives a training step: values
// that several ops take (shared through Copy chains, G-FANOUT, as the importer
// shares them), TensorFlow ops tfsem does not model as uninterpreted functions
// named as the importer names them, while loops as tf.while_loop builds them,
// and Adam's updates. Used by the training-shaped generators (training.hpp).
#pragma once

#include "models/generate/spec_builder.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace tfsem::generate {

class Net {
 public:
  // A value: one output port, taken by any number of input ports.
  using Val = std::size_t;

  explicit Net(SpecBuilder& b) : b_(b) {}

  // The node `id` applying `op` (a built-in function, or a TensorFlow op
  // declared uninterpreted, stateful or not) to `in`; its `outputs` results.
  std::vector<Val> apply(const std::string& id, const std::string& op, const std::vector<Val>& in, std::size_t outputs,
                         bool stateful = false);
  Val op(const std::string& id, const std::string& op, const std::vector<Val>& in, bool stateful = false) {
    return apply(id, op, in, 1, stateful)[0];
  }
  // A value fed from outside the graph (a placeholder's symbol, a constant).
  Val input(const Tensor& value, const std::string& id);
  // A Const in a loop's body, triggered by its pivot.
  Val constant(const Tensor& value, const std::string& id, const std::string& pivot);
  Val read(const std::string& var, const std::string& id);
  // Port 0 of a node the caller wired, as a value.
  Val port(const std::string& node, std::uint32_t p) { return add({node, p}); }
  void use(Val v, const End& to) { vals_[v].takers.push_back(to); }
  // A fetched output.
  void fetch(Val v, const std::string& name) { vals_[v].fetch = name; }

  // tf.while_loop: a counter up to `steps` and the carried values; open()
  // gives their values in the body, close() takes their next values and
  // gives the values at the exits.
  struct Loop {
    std::string frame, pivot;
    Val i;  // the counter in the body: the pivot's value
    std::vector<std::string> merges, nexts;
    std::vector<Val> body, exits;
  };
  Loop open(const std::string& frame, int steps, const std::vector<Val>& carried);
  // A value of the enclosing frame, entered as a loop invariant.
  Val invariant(const Loop& loop, Val v);
  std::vector<Val> close(Loop& loop, const std::vector<Val>& next);

  // The gradient of a binary elementwise op (Mul: `other` is the other
  // operand; Add: none) with TensorFlow's broadcasting: Shape,
  // BroadcastGradientArgs, Sum and Reshape for each operand.
  std::pair<Val, Val> binary_grad(const std::string& id, Val grad, Val x, Val y, bool mul);

  // Adam (ApplyAdam with use_locking): one atomic Assign-f for the weight
  // and each of its slots m and v, from the step's arguments; returns the
  // NoOp done when all three are.
  std::string adam(const std::string& var, Val grad, const std::vector<Val>& hyper);

  // Wires every value to its takers (a Copy chain for several, an output
  // that is not fetched for none).
  void finish();

 private:
  struct Value {
    End from;
    std::vector<End> takers;
    std::string fetch;
  };
  SpecBuilder& b_;
  std::vector<Value> vals_;
  Val add(End from) {
    vals_.push_back({std::move(from), {}, {}});
    return vals_.size() - 1;
  }
};

}  // namespace tfsem::generate
