// Devices (G-DEVICE): where a node runs. A node's device is "" (none given),
// a short name ("ps", "worker0", "gpu_1"), or a TensorFlow device name, whole
// or partial ("/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/task:1",
// "/gpu:0"). The semantics does not read it: devices matter to the
// partitioner (semantics/partition.hpp), which puts a Send/Recv pair on each
// edge between two of them.
#pragma once

#include <string>
#include <string_view>

namespace tfsem {

// Why `device` is not a device name, or "" when it is one (or is "").
std::string device_problem(std::string_view device);

}  // namespace tfsem
