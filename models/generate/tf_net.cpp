#include "models/generate/tf_net.hpp"

#include "semantics/ops.hpp"
#include "semantics/registry.hpp"

namespace tfsem::generate {

std::vector<Net::Val> Net::apply(const std::string& id, const std::string& op, const std::vector<Val>& in,
                                 std::size_t outputs, bool stateful) {
  if (!Registry::builtin().find(op) && !find_control_op(op)) b_.declare(op, stateful);
  b_.node(id, op);
  for (std::size_t k = 0; k < in.size(); ++k) use(in[k], {id, static_cast<std::uint32_t>(k)});
  std::vector<Val> out;
  for (std::uint32_t p = 0; p < outputs; ++p) out.push_back(add({id, p}));
  return out;
}

Net::Val Net::input(const Tensor& value, const std::string& id) {
  const auto n = b_.node(id, "Identity");
  b_.feed(value, {n, 0});
  return add({n, 0});
}

Net::Val Net::constant(const Tensor& value, const std::string& id, const std::string& pivot) {
  const auto n = b_.node(id, "Const", "", {{"value", value}});
  b_.control(pivot, n);
  return add({n, 0});
}

Net::Val Net::read(const std::string& var, const std::string& id) {
  const auto r = b_.node(id, "Read");
  b_.var_for(r, var);
  return add({r, 0});
}

Net::Loop Net::open(const std::string& frame, int steps, const std::vector<Val>& carried) {
  Loop loop{frame, frame + "/pivot", 0, {}, {}, {}, {}};
  const Attrs enter{{"frame", frame}, {"parallel_iterations", std::int64_t{32}}};
  const auto loop_var = [&](Val initial, const std::string& tag) {
    const auto e = b_.node(frame + "/Enter_" + tag, "Enter", "", enter);
    use(initial, {e, 0});
    loop.merges.push_back(b_.node(frame + "/Merge_" + tag, "Merge"));
    loop.nexts.push_back(b_.node(frame + "/NextIteration_" + tag, "NextIteration"));
    b_.tensor({e, 0}, {loop.merges.back(), 0});
    b_.tensor({loop.nexts.back(), 0}, {loop.merges.back(), 1});
  };
  loop_var(input(Tensor::scalar(std::int32_t{0}), frame + "/Const"), "i");
  for (std::size_t k = 0; k < carried.size(); ++k) loop_var(carried[k], std::to_string(k));
  const auto limit = invariant(loop, input(Tensor::scalar(static_cast<std::int32_t>(steps)), frame + "/limit"));
  const auto i = port(loop.merges[0], 0);
  const auto cond = op(frame + "/LoopCond", "LoopCond", {op(frame + "/Less", "Less", {i, limit})});
  for (std::size_t k = 0; k < loop.merges.size(); ++k) {
    const auto tag = std::to_string(k);
    const auto sw = apply(frame + "/Switch_" + tag, "Switch", {k == 0 ? i : port(loop.merges[k], 0), cond}, 2);
    loop.exits.push_back(op(frame + "/Exit_" + tag, "Exit", {sw[0]}));
    if (k > 0) {
      loop.body.push_back(sw[1]);
      continue;
    }
    loop.i = op(loop.pivot, "Identity", {sw[1]});
  }
  return loop;
}

Net::Val Net::invariant(const Loop& loop, Val v) {
  const Attrs enter{{"frame", loop.frame}, {"parallel_iterations", std::int64_t{32}}, {"is_constant", true}};
  const auto e = b_.node(loop.frame + "/Enter_inv" + std::to_string(vals_.size()), "Enter", "", enter);
  use(v, {e, 0});
  return add({e, 0});
}

std::vector<Net::Val> Net::close(Loop& loop, const std::vector<Val>& next) {
  const auto one = invariant(loop, input(Tensor::scalar(std::int32_t{1}), loop.frame + "/one"));
  use(op(loop.frame + "/add_i", "Add", {loop.i, one}), {loop.nexts[0], 0});
  for (std::size_t k = 0; k < next.size(); ++k) use(next[k], {loop.nexts[k + 1], 0});
  return {loop.exits.begin() + 1, loop.exits.end()};  // the counter's exit is dropped
}

std::pair<Net::Val, Net::Val> Net::binary_grad(const std::string& id, Val grad, Val x, Val y, bool mul) {
  const auto sx = op(id + "/Shape", "Shape", {x}), sy = op(id + "/Shape_1", "Shape", {y});
  const auto r = apply(id + "/BroadcastGradientArgs", "BroadcastGradientArgs", {sx, sy}, 2);
  const auto gx = mul ? op(id + "/Mul", "Mul", {grad, y}) : grad;
  const auto gy = mul ? op(id + "/Mul_1", "Mul", {x, grad}) : grad;
  return {op(id + "/Reshape", "Reshape", {op(id + "/Sum", "tf.Sum", {gx, r[0]}), sx}),
          op(id + "/Reshape_1", "Reshape", {op(id + "/Sum_1", "tf.Sum", {gy, r[1]}), sy})};
}

std::string Net::adam(const std::string& var, Val grad, const std::vector<Val>& hyper) {
  const auto id = "Adam/update_" + var;
  auto in = hyper;
  in.push_back(grad);
  const auto args = op(id + "/ApplyAdam@args", "ApplyAdam.args", in);
  const auto done = b_.node(id + "/ApplyAdam", "NoOp");
  int k = 0;
  for (const auto& v : {var, var + "/Adam", var + "/Adam_1"}) {
    const auto f = "ApplyAdam.in" + std::to_string(k);
    b_.declare(f, false);
    const auto a = b_.node(id + "/ApplyAdam@in" + std::to_string(k++), "Assign-" + f);
    b_.var_for(a, v);
    use(args, {a, 1});
    b_.control(a, done);
  }
  return done;
}

void Net::finish() {
  for (auto& v : vals_) {
    if (!v.fetch.empty()) {
      b_.output(v.from, v.fetch);
      continue;
    }
    if (v.takers.empty()) {
      b_.drop(v.from);
      continue;
    }
    auto from = v.from;
    for (std::size_t k = 0; k + 1 < v.takers.size(); ++k) {
      const auto c = b_.node(v.from.node + "@copy" + std::to_string(v.from.port.value_or(0)) + "_" + std::to_string(k), "Copy");
      b_.tensor(from, {c, 0});
      b_.tensor({c, 0}, v.takers[k]);
      from = {c, 1};
    }
    b_.tensor(from, v.takers.back());
  }
  vals_.clear();
}

}  // namespace tfsem::generate
