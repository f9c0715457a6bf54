// The graph of a SavedModel or a MetaGraphDef, as a run of it: the MetaGraph
// --tag chooses and the SignatureDef --signature chooses, whose inputs are the
// placeholders to feed and whose outputs the fetches, unless --fetch names others.
#pragma once

#include "formats/graphdef/graphdef.pb.h"

#include <string>
#include <vector>

namespace tfsem::graphdef {

struct MetaGraphChoice {
  // "": the MetaGraph tagged "serve", else the only one; "a,b": the one whose
  // tags include a and b (of several, the one tagged with exactly these).
  std::string tag;
  // "": "serving_default", when the MetaGraph has it; else no signature.
  std::string signature;
};

struct ChosenGraph {
  GraphDef graph;
  std::vector<std::string> inputs;   // the signature's input tensors ("x:0"), by key
  std::vector<std::string> outputs;  // its output tensors, by key: the default fetches
  std::vector<std::string> notes;    // which MetaGraph and signature, and what else there is
};

// Takes the chosen MetaGraph's graph out of `meta_graphs`. Throws InputError
// (I-OPTION) when the choice names no MetaGraph or signature, or when several
// MetaGraphs fit it.
ChosenGraph choose_graph(std::vector<MetaGraphDef>& meta_graphs, const MetaGraphChoice& choice);

}  // namespace tfsem::graphdef
