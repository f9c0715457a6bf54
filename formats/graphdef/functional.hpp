// TensorFlow 2's functions, made of the round-2 primitives before the import
// (docs/import.md, "TensorFlow 2: calls, resource variables, functional ops";
// rule I-CALL of specs/semantics.md):
// - a call of a function of the library (PartitionedCall,
//   StatefulPartitionedCall, a node whose op names the function) is inlined at
//   its call site, as TensorFlow's function inlining does: the body's nodes
//   named "<call>/<node>", its arguments the call's inputs, its results the
//   call's outputs; the call's control inputs gate the body's nodes that take
//   no value from another body node, and a node named after the call, a NoOp
//   waiting for the body's control_ret nodes and results, is what a control
//   edge from the call waits for. A recursive function stays a call (C-CALL),
//   and so does a call of a function tfsem interprets as it is (library.hpp);
//   the body of a function left a call is flattened in its turn when imported;
// - If, Case and While (and their Stateless forms) are lowered as TensorFlow's
//   lower_if_op, lower_case_op and lower_while_op passes lower them: Switch
//   and Merge around the branches, and a frame of Enter, Merge, Switch,
//   NextIteration and Exit around cond and body, parallel_iterations kept.
#pragma once

#include "formats/graphdef/graphdef.pb.h"
#include "formats/graphdef/library.hpp"
#include "support/stop_token.hpp"

#include <map>
#include <string>
#include <vector>

namespace tfsem::graphdef {

struct Flattened {
  GraphDef graph;
  // The output that stands for a fetched output of a call or functional op,
  // "node:port", by the fetch ("call:k").
  std::map<std::string, std::string> fetches;
  // The nodes each call or functional op expands to: a run that needs one of
  // them needs all, as a needed call runs its whole body.
  std::vector<std::vector<std::string>> units;
  std::vector<std::string> notes;
};

// Throws InputError (I-NODE, I-ATTR) naming the call or functional op, and
// Stopped when `stop` (may be null) stops the work.
Flattened flatten_functions(const GraphDef& graph, const Library& library, const std::vector<std::string>& fetches,
                            const StopToken* stop = nullptr);

}  // namespace tfsem::graphdef
