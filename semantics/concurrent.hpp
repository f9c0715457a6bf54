// S-CONCURRENT: runs that overlap in time, as TensorFlow 1's between-graph
// replication makes them (each worker's session.run at once, against variables
// held on a parameter server), are one program: the disjoint union of the
// runs' graphs, with VarValue shared. Every node, edge, loop frame and fetch is
// named after its run ("worker0/train_op"); a variable is one variable in every
// run that names it. Steps of the runs then interleave as any steps do (section
// 3.2), and races between runs are races of the union.
#pragma once

#include "semantics/program.hpp"

#include <memory>
#include <string>
#include <vector>

namespace tfsem {

struct ConcurrentRun {
  std::string label;                       // the run's name: its nodes are "LABEL/node"
  std::shared_ptr<const Program> program;  // its graph, pruned to its fetches
};

// The union of the runs. Throws InputError when two runs give one variable
// different initial values, or give one library function or one uninterpreted
// function different definitions, or when two runs share a label.
ProgramSpec concurrent_runs(const std::vector<ConcurrentRun>& runs);

// Whether nodes a and b of concurrent_runs' union are of one run (their names
// agree up to the first '/'): a control edge between them is one a user can add.
bool one_run(const Program& p, NodeId a, NodeId b);

}  // namespace tfsem
