// The partitioner (docs/devices.md): a graph split per device as TensorFlow's
// graph_partition.cc splits it. Every edge whose ends run on two devices gets
// a Send on the source's device and a Recv on the destination's; a value read
// on a device (a producer's output port, with the Copy nodes that share it,
// G-FANOUT) gets one Recv there, feeding every consumer there; a control edge
// across devices is carried by a dummy tensor (a Const on the source's device,
// triggered by the source, sent to a Recv whose control edges reach the
// destinations). The result is one graph, every node placed, the rendezvous
// of each pair the tensor edge between them named by its key,
// "SEND_DEVICE;RECV_DEVICE;TENSOR" (S-SEND, S-RECV).
#pragma once

#include "semantics/program.hpp"

#include <string>
#include <vector>

namespace tfsem {

struct PartitionOptions {
  // The devices to place nodes on: with `keep`, those for nodes that name
  // none; with `round_robin`, all of them, in turn.
  std::vector<std::string> devices{};
  enum class Assign : std::uint8_t {
    keep,         // each node's own device (NodeSpec::device), the first of `devices` for one with none
    round_robin,  // the k-th node in topological order on devices[k mod |devices|]
  } assign = Assign::keep;
  // A pair on every edge that can be cut, whether or not its ends' devices
  // differ (a Recv per consumer's device still): the most Send/Recv pairs a
  // placement could give, which is what the refinement tests sweep.
  bool every_edge = false;
};

// spec (its functions made static first) partitioned. Nodes taking a variable
// edge stay on the variable's device, as TensorFlow colocates a reference's
// consumers, except a dereferencing function (S-DEREF), which gets the value
// from a Send of the variable edge (the copy of a reference, taken when sent).
// Back edges, an Enter's out-edges (the Enter goes on its consumer's device,
// and the edge into it is cut: a pair after it would wait in every iteration
// after the first), and the edges into and out of Calls and Returns are not cut. Throws InputError when spec is not a valid graph, a
// device is not a device name (G-DEVICE), or a node has no device and none is
// given.
ProgramSpec partition(ProgramSpec spec, const PartitionOptions& options);

}  // namespace tfsem
