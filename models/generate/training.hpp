// Graphs in the shape of real TensorFlow 1 training steps, for the benchmark
// of check on real graphs (bench/real_shapes.sh): the TensorFlow ops tfsem
// does not model are uninterpreted functions on terms, as an import makes them.
#pragma once

#include "semantics/program.hpp"

namespace tfsem::generate {

// An n-layer LSTM (BasicLSTMCell: ConcatV2, MatMul, BiasAdd, Split into four
// gates, Sigmoid, Tanh, Mul, Add) in a tf.while_loop over kLstmSteps time
// steps, saving what the gradient needs on stacks; a softmax loss on the last
// output; the gradient loop running backwards over the stacks, with
// TensorFlow's broadcasting gradients and the weights' gradients accumulated;
// Adam on every weight with its m and v slots. The loss is fetched after the
// updates.
inline constexpr int kLstmSteps = 5;
ProgramSpec lstm_training(int n);

// A convolutional network of n bottleneck blocks (three conv units each:
// Conv2D, FusedBatchNorm with its moving averages, Relu; a residual Add)
// after a stem with MaxPool, and a dense softmax head; the backward pass of
// every op, Adam on every weight; and a Saver (SaveV2 reading every variable,
// RestoreV2 writing each back, which no fetch of the training step needs).
ProgramSpec cnn_training(int n);

}  // namespace tfsem::generate
