#include "models/generate/families.hpp"

#include "models/generate/spec_builder.hpp"
#include "models/generate/training.hpp"
#include "semantics/diagnostic.hpp"

namespace tfsem::generate {

namespace {

Tensor i32(int v) { return Tensor::scalar(static_cast<std::int32_t>(v)); }
std::string at(const std::string& base, int i) { return base + std::to_string(i); }
std::string graph_name(std::string_view family, int n) { return std::string(family) + "-" + std::to_string(n); }

// A Read of x after every one of `after`, fetched as `fetch`.
void final_read(SpecBuilder& b, const std::string& var, const std::vector<std::string>& after, const std::string& fetch) {
  const auto r = b.node("final_read", "Read");
  b.var_for(r, var);
  for (const auto& a : after) b.control(a, r);
  b.output({r, 0}, fetch);
}

// Read x, Add `constant`, Write x (Figure 4's replica); returns the Write.
std::string read_add_write(SpecBuilder& b, int i, const std::string& var, int constant) {
  const auto r = b.node(at("read", i), "Read"), add = b.node(at("add", i), "Add"), w = b.node(at("write", i), "Write");
  b.var_for(r, var);
  b.var_for(w, var);
  b.tensor({r, 0}, {add, 0});
  b.feed(i32(constant), {add, 1});
  b.tensor({add, 0}, {w, 1});
  return w;
}

ProgramSpec independent_chains(int n) {
  SpecBuilder b(graph_name("independent-chains", n), "n chains, each reads its own variable, adds 1 and writes it back");
  for (int i = 0; i < n; ++i) {
    b.variable(at("x", i), i32(0));
    read_add_write(b, i, at("x", i), 1);
  }
  return std::move(b).build();
}

ProgramSpec lastwrite(int n) {
  SpecBuilder b(graph_name("lastwrite", n), "n Writes of distinct values into x, then one Read after all of them");
  b.variable("x", i32(0));
  std::vector<std::string> writes;
  for (int i = 0; i < n; ++i) {
    const auto w = b.node(at("write", i), "Write");
    b.var_for(w, "x");
    b.feed(i32(i + 1), {w, 1});
    writes.push_back(w);
  }
  final_read(b, "x", writes, "y");
  return std::move(b).build();
}

ProgramSpec lost_update(int n) {
  SpecBuilder b(graph_name("lost-update", n),
                "n replicas each Read x, Add a distinct constant and Write x (Figure 4); then a Read after all writes");
  b.variable("x", i32(0));
  std::vector<std::string> writes;
  for (int i = 0; i < n; ++i) writes.push_back(read_add_write(b, i, "x", i + 1));
  final_read(b, "x", writes, "y");
  return std::move(b).build();
}

ProgramSpec assign_add(int n) {
  SpecBuilder b(graph_name("assign-add", n), "n Assign-Add nodes of distinct constants into x; then a Read after all");
  b.variable("x", i32(0));
  std::vector<std::string> adds;
  for (int i = 0; i < n; ++i) {
    const auto a = b.node(at("assign_add", i), "Assign-Add");
    b.var_for(a, "x");
    b.feed(i32(i + 1), {a, 1});
    adds.push_back(a);
  }
  final_read(b, "x", adds, "y");
  return std::move(b).build();
}

ProgramSpec sgd_workers(int n) {
  SpecBuilder b(graph_name("sgd-workers", n),
                "n workers each Read w, compute the gradient 2(w - t_k) of (w - t_k)^2 and Assign-Sub it, lock-free");
  b.variable("w", i32(0));
  std::vector<std::string> steps;
  for (int k = 0; k < n; ++k) {
    const auto r = b.node(at("read_w", k), "Read"), diff = b.node(at("diff", k), "Sub"), grad = b.node(at("grad", k), "Mul"),
               step = b.node(at("step", k), "Assign-Sub");
    b.var_for(r, "w");
    b.var_for(step, "w");
    b.tensor({r, 0}, {diff, 0});
    b.feed(i32(k + 1), {diff, 1});
    b.tensor({diff, 0}, {grad, 0});
    b.feed(i32(2), {grad, 1});
    b.tensor({grad, 0}, {step, 1});
    steps.push_back(step);
  }
  final_read(b, "w", steps, "w_final");
  return std::move(b).build();
}

}  // namespace

const std::vector<Family>& families() {
  static const std::vector<Family> all = {
      {"independent-chains", "n chains on n variables: every reduction collapses them to one order", independent_chains},
      {"lastwrite", "n Writes then a Read: n! orders, n outcomes", lastwrite},
      {"lost-update", "n Read/Add/Write replicas on one variable (Figure 4)", lost_update},
      {"assign-add", "n Assign-Add nodes: a benign race, one outcome", assign_add},
      {"sgd-workers", "n lock-free SGD workers on one weight", sgd_workers},
  };
  return all;
}

const std::vector<Family>& training_shapes() {
  static const std::vector<Family> all = {
      {"lstm-training", "an n-layer LSTM training step in the shape TensorFlow 1 gives it: a tf.while_loop, its gradient loop, Adam",
       lstm_training},
      {"cnn-training", "a CNN training step of n bottleneck blocks with batch norm, Adam and a Saver", cnn_training},
  };
  return all;
}

ProgramSpec family_graph(std::string_view name, int n) {
  if (n < 1) throw InputError("G-FAMILY", "", std::string(name), "the size must be at least 1");
  std::string known;
  for (const auto* list : {&families(), &training_shapes()})
    for (const auto& f : *list) {
      if (f.name == name) return f.make(n);
      known += (known.empty() ? "" : ", ") + std::string(f.name);
    }
  throw InputError("G-FAMILY", "", std::string(name), "unknown family; known: " + known);
}

}  // namespace tfsem::generate
