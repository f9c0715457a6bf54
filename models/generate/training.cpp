#include "models/generate/training.hpp"

#include "models/generate/tf_net.hpp"

#include <cctype>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfsem::generate {

namespace {

using Val = Net::Val;
std::string at(const std::string& base, int i) { return base + std::to_string(i); }
// A symbol named after `name`, as an identifier (JSON atoms are letters, digits and _).
Tensor symbol(std::string name) {
  for (auto& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return Tensor::atom(std::move(name));
}

// A trainable variable with Adam's slots m and v, each initialized to a symbol.
void weight(SpecBuilder& b, const std::string& var) {
  for (const auto& v : {var, var + "/Adam", var + "/Adam_1"}) b.variable(v, symbol(v));
}

// Adam on each (weight, gradient), then beta1_power and beta2_power times
// beta1 and beta2 once every update is done; the loss is fetched after all.
void adam_step(SpecBuilder& b, Net& net, const std::vector<std::pair<std::string, Val>>& grads, Val loss) {
  for (const auto* p : {"beta1_power", "beta2_power"}) b.variable(p, symbol(p));
  const auto b1p = net.read("beta1_power", "Adam/beta1_power/read"), b2p = net.read("beta2_power", "Adam/beta2_power/read");
  const auto beta1 = net.input(symbol("beta1"), "Adam/beta1"), beta2 = net.input(symbol("beta2"), "Adam/beta2");
  const std::vector<Val> hyper = {b1p, b2p, net.input(symbol("learning_rate"), "Adam/learning_rate"), beta1, beta2,
                                  net.input(symbol("epsilon"), "Adam/epsilon")};
  std::vector<std::string> updates;
  for (const auto& [var, grad] : grads) updates.push_back(net.adam(var, grad, hyper));
  const auto train = b.node("Adam", "NoOp");
  int k = 0;
  for (const auto& [power, beta] : {std::pair{"beta1_power", beta1}, std::pair{"beta2_power", beta2}}) {
    const auto read = net.read(power, at("Adam/read_power_", k));
    for (const auto& u : updates) b.control(u, at("Adam/read_power_", k));
    const auto write = b.node(at("Adam/Assign_", k++), "Write");
    b.var_for(write, power);
    net.use(net.op(at("Adam/mul_", k), "Mul", {read, beta}), {write, 1});
    b.control(write, train);
  }
  const auto fetched = net.op("loss_after_train", "Identity", {loss});
  b.control(train, "loss_after_train");
  net.fetch(fetched, "loss");
}

// A dense softmax head on `features`: the loss, and the gradients of its
// weights and of the features.
struct Head {
  Val loss, features_grad;
  std::vector<std::pair<std::string, Val>> grads;
};
Head softmax_head(SpecBuilder& b, Net& net, Val features) {
  const std::string w = "dense/kernel", bias = "dense/bias";
  weight(b, w);
  weight(b, bias);
  const auto wr = net.read(w, "dense/kernel/read"), br = net.read(bias, "dense/bias/read");
  const auto logits = net.op("dense/BiasAdd", "BiasAdd", {net.op("dense/MatMul", "MatMul", {features, wr}), br});
  const auto xent = net.apply("loss/SoftmaxCrossEntropyWithLogits", "SoftmaxCrossEntropyWithLogits",
                              {logits, net.input(symbol("labels"), "labels")}, 2);
  const auto loss = net.op("loss/Mean", "tf.Mean", {xent[0], net.input(symbol("axes"), "loss/Const")});
  const auto fill = net.op("gradients/Fill", "Fill", {net.input(symbol("shape"), "gradients/Shape"),
                                                     net.input(symbol("one"), "gradients/grad_ys_0")});
  const auto tile = net.op("gradients/loss/Mean_grad/Tile", "Tile", {fill, net.input(symbol("multiples"), "gradients/loss/Mean_grad/Const")});
  const auto g = net.op("gradients/loss/xent_grad/mul", "Mul",
                        {net.op("gradients/loss/xent_grad/ExpandDims", "ExpandDims", {tile, net.input(symbol("dim"), "gradients/loss/xent_grad/dim")}), xent[1]});
  return {loss,
          net.op("gradients/dense/MatMul_grad/MatMul", "tf.MatMul", {g, wr}),
          {{w, net.op("gradients/dense/MatMul_grad/MatMul_1", "tf.MatMul", {features, g})},
           {bias, net.op("gradients/dense/BiasAdd_grad/BiasAddGrad", "BiasAddGrad", {g})}}};
}

}  // namespace

ProgramSpec lstm_training(int n) {
  SpecBuilder b(at("lstm-training-", n), "a " + std::to_string(n) + "-layer LSTM in a tf.while_loop over " +
                                             std::to_string(kLstmSteps) + " steps, its gradient loop and Adam");
  Net net(b);
  constexpr int kSaved = 7;  // concat, c, sigmoid(f), sigmoid(i), tanh(j), sigmoid(o), tanh(new c)
  std::vector<Val> weights, biases, stacks, h0, c0;
  for (int l = 0; l < n; ++l) {
    const auto cell = at("rnn/multi_rnn_cell/cell_", l) + "/basic_lstm_cell/";
    weight(b, cell + "kernel");
    weight(b, cell + "bias");
    weights.push_back(net.read(cell + "kernel", cell + "kernel/read"));
    biases.push_back(net.read(cell + "bias", cell + "bias/read"));
    h0.push_back(net.input(symbol("zeros"), at("rnn/zeros_h", l)));
    c0.push_back(net.input(symbol("zeros"), at("rnn/zeros_c", l)));
    for (int k = 0; k < kSaved; ++k) {
      const auto id = at(at("gradients/f_acc_", l) + "_", k);
      stacks.push_back(net.op(id, "StackV2", {net.input(symbol("max_size"), id + "/max_size")}, true));
    }
  }
  // The input sequence as a TensorArray, read at each step.
  const auto ta = net.apply("rnn/TensorArray", "TensorArrayV3", {net.input(symbol("time_steps"), "rnn/strided_slice")}, 2, true);
  const auto flow = net.op("rnn/TensorArrayUnstack/TensorArrayScatterV3", "TensorArrayScatterV3",
                           {ta[0], net.input(symbol("range"), "rnn/TensorArrayUnstack/range"),
                            net.input(symbol("inputs"), "inputs"), ta[1]},
                           true);

  std::vector<Val> carried;
  for (int l = 0; l < n; ++l) carried.insert(carried.end(), {h0[l], c0[l]});
  auto fwd = net.open("rnn/while", kLstmSteps, carried);
  std::vector<Val> next;
  auto x = net.op("rnn/while/TensorArrayReadV3", "TensorArrayReadV3",
                  {net.invariant(fwd, ta[0]), fwd.i, net.invariant(fwd, flow)}, true);
  for (int l = 0; l < n; ++l) {
    const auto p = at("rnn/while/cell_", l) + "/";
    const auto k = [&](const Tensor& v, const std::string& id) { return net.constant(v, p + id, fwd.pivot); };
    const auto h = fwd.body[static_cast<std::size_t>(2 * l)], c = fwd.body[static_cast<std::size_t>(2 * l + 1)];
    const auto concat = net.op(p + "concat", "ConcatV2", {x, h, k(Tensor::scalar(std::int32_t{1}), "concat/axis")});
    const auto z = net.op(p + "BiasAdd", "BiasAdd",
                          {net.op(p + "MatMul", "MatMul", {concat, net.invariant(fwd, weights[l])}), net.invariant(fwd, biases[l])});
    const auto gates = net.apply(p + "split", "tf.Split", {k(Tensor::scalar(std::int32_t{1}), "split/dim"), z}, 4);
    const auto sf = net.op(p + "Sigmoid", "Sigmoid", {net.op(p + "Add", "Add", {gates[2], k(symbol("forget_bias"), "Const")})});
    const auto si = net.op(p + "Sigmoid_1", "Sigmoid", {gates[0]}), tj = net.op(p + "Tanh", "Tanh", {gates[1]});
    const auto so = net.op(p + "Sigmoid_2", "Sigmoid", {gates[3]});
    const auto nc = net.op(p + "Add_1", "Add", {net.op(p + "Mul", "Mul", {c, sf}), net.op(p + "Mul_1", "Mul", {si, tj})});
    const auto tc = net.op(p + "Tanh_1", "Tanh", {nc});
    const auto nh = net.op(p + "Mul_2", "Mul", {tc, so});
    const Val saved[kSaved] = {concat, c, sf, si, tj, so, tc};
    for (int s = 0; s < kSaved; ++s)
      net.op(at(p + "StackPushV2_", s), "StackPushV2", {net.invariant(fwd, stacks[static_cast<std::size_t>(l * kSaved + s)]), saved[s]},
             true);
    next.insert(next.end(), {nh, nc});
    x = nh;
  }
  const auto finals = net.close(fwd, next);

  auto head = softmax_head(b, net, finals[static_cast<std::size_t>(2 * (n - 1))]);
  // The gradient loop: per layer dh and dc, then the weights' accumulated gradients.
  carried.clear();
  for (int l = 0; l < n; ++l) {
    const auto dh = l + 1 == n ? head.features_grad
                               : net.op(at("gradients/zeros_like_h", l), "ZerosLike", {finals[static_cast<std::size_t>(2 * l)]});
    carried.insert(carried.end(), {dh, net.op(at("gradients/zeros_like_c", l), "ZerosLike", {finals[static_cast<std::size_t>(2 * l + 1)]})});
  }
  for (int l = 0; l < n; ++l)
    carried.insert(carried.end(), {net.op(at("gradients/zeros_like_kernel", l), "ZerosLike", {weights[l]}),
                                   net.op(at("gradients/zeros_like_bias", l), "ZerosLike", {biases[l]})});
  auto bwd = net.open("gradients/rnn/while", kLstmSteps, carried);
  next.assign(carried.size(), 0);
  std::optional<Val> dx_above;
  for (int l = n - 1; l >= 0; --l) {
    const auto p = at("gradients/rnn/while/cell_", l) + "/";
    const auto k = [&](const Tensor& v, const std::string& id) { return net.constant(v, p + id, bwd.pivot); };
    Val saved[kSaved];
    for (int s = 0; s < kSaved; ++s) {
      const auto id = at(p + "StackPopV2_", s);
      saved[s] = net.op(id, "StackPopV2", {net.invariant(bwd, stacks[static_cast<std::size_t>(l * kSaved + s)])}, true);
      b.control(bwd.pivot, id);
    }
    const auto [concat, c, sf, si, tj, so, tc] = saved;
    const auto li = static_cast<std::size_t>(l);
    auto dh = bwd.body[2 * li];
    if (dx_above) dh = net.op(p + "AddN", "AddN", {dh, *dx_above});
    const auto [d_tc, d_so] = net.binary_grad(p + "Mul_2_grad", dh, tc, so, true);
    const auto d_nc = net.op(p + "AddN_1", "AddN", {bwd.body[2 * li + 1], net.op(p + "Tanh_1_grad/TanhGrad", "TanhGrad", {tc, d_tc})});
    const auto [d_c1, d_c2] = net.binary_grad(p + "Add_1_grad", d_nc, c, si, false);
    const auto [d_c, d_sf] = net.binary_grad(p + "Mul_grad", d_c1, c, sf, true);
    const auto [d_si, d_tj] = net.binary_grad(p + "Mul_1_grad", d_c2, si, tj, true);
    const auto d_z = net.op(p + "split_grad/concat", "ConcatV2",
                            {net.op(p + "Sigmoid_1_grad/SigmoidGrad", "SigmoidGrad", {si, d_si}),
                             net.op(p + "Tanh_grad/TanhGrad", "TanhGrad", {tj, d_tj}),
                             net.op(p + "Sigmoid_grad/SigmoidGrad", "SigmoidGrad", {sf, d_sf}),
                             net.op(p + "Sigmoid_2_grad/SigmoidGrad", "SigmoidGrad", {so, d_so}),
                             k(Tensor::scalar(std::int32_t{1}), "split_grad/concat/axis")});
    const auto d_b = net.op(p + "BiasAdd_grad/BiasAddGrad", "BiasAddGrad", {d_z});
    const auto d_concat = net.op(p + "MatMul_grad/MatMul", "tf.MatMul", {d_z, net.invariant(bwd, weights[li])});
    const auto d_w = net.op(p + "MatMul_grad/MatMul_1", "tf.MatMul", {concat, d_z});
    const auto shape_x = k(symbol("shape_x"), "concat_grad/Shape"), shape_h = k(symbol("shape_h"), "concat_grad/Shape_1");
    const auto offset = net.apply(p + "concat_grad/ConcatOffset", "ConcatOffset",
                                  {k(Tensor::scalar(std::int32_t{1}), "concat_grad/mod"), shape_x, shape_h}, 2);
    dx_above = net.op(p + "concat_grad/Slice", "Slice", {d_concat, offset[0], shape_x});
    next[2 * li] = net.op(p + "concat_grad/Slice_1", "Slice", {d_concat, offset[1], shape_h});
    next[2 * li + 1] = d_c;
    const auto acc = 2 * static_cast<std::size_t>(n) + 2 * li;
    next[acc] = net.op(p + "kernel_acc", "Add", {bwd.body[acc], d_w});
    next[acc + 1] = net.op(p + "bias_acc", "Add", {bwd.body[acc + 1], d_b});
  }
  const auto grads = net.close(bwd, next);
  for (int l = 0; l < n; ++l) {
    const auto cell = at("rnn/multi_rnn_cell/cell_", l) + "/basic_lstm_cell/";
    const auto acc = 2 * static_cast<std::size_t>(n + l);
    head.grads.emplace_back(cell + "kernel", grads[acc]);
    head.grads.emplace_back(cell + "bias", grads[acc + 1]);
  }
  adam_step(b, net, head.grads, head.loss);
  net.finish();
  return std::move(b).build();
}

namespace {

// A conv unit: Conv2D, FusedBatchNorm (its moving averages updated by
// Assign-Sub), Relu; what its backward pass takes.
struct ConvUnit {
  std::string scope;
  Val x, w, c, gamma, reserve1, reserve2, y;
  bool relu;
};

ConvUnit conv_forward(SpecBuilder& b, Net& net, const std::string& scope, Val x, bool relu) {
  for (const auto* v : {"weights", "gamma", "beta"}) weight(b, scope + "/" + v);
  ConvUnit u{scope, x, net.read(scope + "/weights", scope + "/weights/read"), 0,
             net.read(scope + "/gamma", scope + "/gamma/read"), 0, 0, 0, relu};
  u.c = net.op(scope + "/Conv2D", "Conv2D", {x, u.w});
  const auto bn = net.apply(scope + "/FusedBatchNorm", "FusedBatchNorm",
                            {u.c, u.gamma, net.read(scope + "/beta", scope + "/beta/read"),
                             net.input(symbol("empty"), scope + "/Const"), net.input(symbol("empty"), scope + "/Const_1")},
                            5);
  int k = 1;
  for (const auto* m : {"moving_mean", "moving_variance"}) {
    const auto var = scope + "/" + m;
    b.variable(var, symbol(var));
    const auto id = scope + "/AssignMovingAvg_" + std::to_string(k);
    const auto sub = net.op(id + "/sub", "Sub", {net.read(var, id + "/read"), bn[static_cast<std::size_t>(k++)]});
    const auto update = b.node(id, "Assign-Sub");
    b.var_for(update, var);
    net.use(net.op(id + "/mul", "Mul", {sub, net.input(symbol("decay"), id + "/decay")}), {update, 1});
  }
  u.reserve1 = bn[3];
  u.reserve2 = bn[4];
  u.y = relu ? net.op(scope + "/Relu", "Relu", {bn[0]}) : bn[0];
  return u;
}

// The unit's backward pass from the gradient of its output: the gradient of
// its input; its weights' gradients go to `grads`.
Val conv_backward(Net& net, const ConvUnit& u, Val g, std::vector<std::pair<std::string, Val>>& grads) {
  const auto p = "gradients/" + u.scope;
  if (u.relu) g = net.op(p + "/Relu_grad/ReluGrad", "ReluGrad", {g, u.y});
  const auto bn = net.apply(p + "/FusedBatchNorm_grad/FusedBatchNormGrad", "FusedBatchNormGrad",
                            {g, u.c, u.gamma, u.reserve1, u.reserve2}, 5);
  const auto shapes = net.apply(p + "/Conv2D_grad/ShapeN", "ShapeN", {u.x, u.w}, 2);
  grads.emplace_back(u.scope + "/weights",
                     net.op(p + "/Conv2D_grad/Conv2DBackpropFilter", "Conv2DBackpropFilter", {u.x, shapes[1], bn[0]}));
  grads.emplace_back(u.scope + "/gamma", bn[1]);
  grads.emplace_back(u.scope + "/beta", bn[2]);
  return net.op(p + "/Conv2D_grad/Conv2DBackpropInput", "Conv2DBackpropInput", {shapes[0], u.w, bn[0]});
}

// tf.train.Saver: SaveV2 of every variable, then the prefix as the save op's
// result; RestoreV2 and an Assign of each variable, grouped as restore_all.
void saver(SpecBuilder& b, Net& net) {
  const auto vars = b.variables();
  const auto prefix = net.input(symbol("checkpoint"), "save/filename");
  std::vector<Val> in = {prefix, net.input(symbol("tensor_names"), "save/SaveV2/tensor_names"),
                         net.input(symbol("shape_and_slices"), "save/SaveV2/shape_and_slices")};
  for (std::size_t k = 0; k < vars.size(); ++k) in.push_back(net.read(vars[k], "save/read_" + std::to_string(k)));
  net.apply("save/SaveV2", "SaveV2", in, 0, true);
  const auto saved = net.op("save/control_dependency", "Identity", {prefix});
  b.control("save/SaveV2", "save/control_dependency");
  net.fetch(saved, "save/Const");
  const auto restored = net.apply("save/RestoreV2", "RestoreV2",
                                  {prefix, net.input(symbol("tensor_names"), "save/RestoreV2/tensor_names"),
                                   net.input(symbol("shape_and_slices"), "save/RestoreV2/shape_and_slices")},
                                  vars.size(), true);
  const auto all = b.node("save/restore_all", "NoOp");
  for (std::size_t k = 0; k < vars.size(); ++k) {
    const auto assign = b.node("save/Assign_" + std::to_string(k), "Write");
    b.var_for(assign, vars[k]);
    net.use(restored[k], {assign, 1});
    b.control(assign, all);
  }
}

}  // namespace

ProgramSpec cnn_training(int n) {
  SpecBuilder b(at("cnn-training-", n), "a CNN of " + std::to_string(n) +
                                            " bottleneck blocks with batch norm: forward, backward, Adam and a Saver");
  Net net(b);
  const auto stem = conv_forward(b, net, "resnet/conv1", net.input(symbol("images"), "images"), true);
  const auto pooled = net.op("resnet/pool1/MaxPool", "MaxPool", {stem.y});
  struct Block {
    Val x, sum, out;
    ConvUnit units[3];
  };
  std::vector<Block> blocks;
  auto x = pooled;
  for (int k = 0; k < n; ++k) {
    const auto scope = at("resnet/block", k) + "/";
    Block blk{x, 0, 0, {}};
    auto h = x;
    for (int u = 0; u < 3; ++u) h = (blk.units[u] = conv_forward(b, net, at(scope + "conv", u), h, u < 2)).y;
    blk.sum = net.op(scope + "add", "Add", {x, h});
    blk.out = x = net.op(scope + "Relu", "Relu", {blk.sum});
    blocks.push_back(blk);
  }
  const auto features = net.op("resnet/pool5/Mean", "tf.Mean", {x, net.input(symbol("axes"), "resnet/pool5/axes")});
  auto head = softmax_head(b, net, features);
  auto g = net.op("gradients/resnet/pool5/Mean_grad/BroadcastTo", "BroadcastTo",
                  {head.features_grad, net.input(symbol("shape"), "gradients/resnet/pool5/Mean_grad/Shape")});
  for (auto blk = blocks.rbegin(); blk != blocks.rend(); ++blk) {
    const auto p = "gradients/" + blk->units[0].scope.substr(0, blk->units[0].scope.rfind('/') + 1);
    g = net.op(p + "Relu_grad/ReluGrad", "ReluGrad", {g, blk->out});
    const auto [g_x, g_main] = net.binary_grad(p + "add_grad", g, blk->x, blk->sum, false);
    auto gm = g_main;
    for (int u = 2; u >= 0; --u) gm = conv_backward(net, blk->units[u], gm, head.grads);
    g = net.op(p + "AddN", "AddN", {g_x, gm});
  }
  g = net.op("gradients/resnet/pool1/MaxPool_grad/MaxPoolGrad", "MaxPoolGrad", {stem.y, pooled, g});
  conv_backward(net, stem, g, head.grads);
  adam_step(b, net, head.grads, head.loss);
  saver(b, net);
  net.finish();
  return std::move(b).build();
}

}  // namespace tfsem::generate
