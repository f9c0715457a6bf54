// A TensorFlow GraphDef as a tfsem graph: each op becomes the construct of the
// paper that op_table.hpp (and docs/import.md) names for it. Nothing is
// dropped silently: what the import models loosely (uninterpreted ops, values
// held as symbols, placeholders, initializers) comes back as notes to show.
#pragma once

#include "formats/graphdef/graphdef.pb.h"
#include "semantics/program.hpp"
#include "support/stop_token.hpp"

#include <string>
#include <vector>

namespace tfsem::graphdef {

struct ImportOptions {
  // What session.run fetches: "node:k" a tensor, "node" an op to run (a target).
  // Nothing else is fetched, and only the nodes the fetches need (over data and
  // control inputs, as TensorFlow prunes) are imported; with no fetches, all are.
  std::vector<std::string> fetches{};
  // Variables start with the values of their initializers (the Assign named
  // "<variable>/Assign"), as after running tf.global_variables_initializer() in
  // an earlier session.run; those initializers are left out of the graph.
  bool initialized = false;
  // TensorFlow 1's references: `x/read` (Identity of a reference) aliases the
  // variable's buffer, so it is a RefIdentity passing the variable on, and a
  // function reading it (or the reference itself) dereferences the variable
  // when it fires (S-DEREF) instead of reading a snapshot taken by a Read.
  bool tf1_refs = false;
  // The placeholders --feed gives values, each "NAME" or "NAME:0": a fed
  // PlaceholderWithDefault is an input edge to feed, not its default.
  std::vector<std::string> feeds{};
  // A signature's inputs (of a SavedModel or MetaGraphDef), "NAME:0": placeholders
  // to feed, a PlaceholderWithDefault among them too (symbolic unless fed).
  std::vector<std::string> inputs{};
  // Variables start as restored from a checkpoint (a SavedModel's): the
  // symbolic value restored(x), unless an initializer gives one (--initialized).
  bool restored = false;
  // Polled as the import goes through the nodes and the functions: a stop
  // throws Stopped (support/stop_token.hpp). May be null.
  const StopToken* stop = nullptr;
};

struct Imported {
  // A placeholder the run consumes is an input edge named after it, holding
  // the symbolic atom named after it until a feed gives its value (I-FEED).
  ProgramSpec spec;
  // By ImportOptions::feeds: the input edge each feed gives its value, or ""
  // when the run does not consume that placeholder (accepted, as TensorFlow does).
  std::vector<std::string> fed;
  std::vector<std::string> notes;
};

// Throws InputError (I-NODE, I-ARITY, I-ATTR, I-TENSOR, I-REF, I-FETCH, I-FEED)
// naming the node, input, attribute or field.
Imported import_graph(const GraphDef& graph, const std::string& name, const ImportOptions& options);

}  // namespace tfsem::graphdef
