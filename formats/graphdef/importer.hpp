// A TensorFlow GraphDef as a tfsem graph: each op becomes the construct of the
// paper that op_table.hpp (and docs/import.md) names for it. Nothing is
// dropped silently: what the import models loosely (uninterpreted ops, values
// held as symbols, placeholders, initializers) comes back as notes to show.
#pragma once

#include "formats/graphdef/graphdef.pb.h"
#include "semantics/program.hpp"

#include <string>
#include <vector>

namespace tfsem::graphdef {

struct ImportOptions {
  // What session.run fetches: "node:k" a tensor, "node" an op to run (a target).
  // Nothing else is fetched.
  std::vector<std::string> fetches;
  // Variables start with the values of their initializers (the Assign named
  // "<variable>/Assign"), as after running tf.global_variables_initializer() in
  // an earlier session.run; those initializers are left out of the graph.
  bool initialized = false;
  // TensorFlow 1's references: `x/read` (Identity of a reference) aliases the
  // variable's buffer, so it is a RefIdentity passing the variable on, and a
  // function reading it (or the reference itself) dereferences the variable
  // when it fires (S-DEREF) instead of reading a snapshot taken by a Read.
  bool tf1_refs = false;
};

struct Imported {
  ProgramSpec spec;
  // The input edges that stand for placeholders: each holds a symbolic atom
  // until --feed gives it a value, and a run that needs it must feed it.
  std::vector<std::string> placeholders;
  std::vector<std::string> notes;
};

// Throws InputError (I-NODE, I-ARITY, I-ATTR, I-TENSOR, I-REF, I-FETCH) naming
// the node, input, attribute or field.
Imported import_graph(const GraphDef& graph, const std::string& name, const ImportOptions& options);

}  // namespace tfsem::graphdef
