#include "cli/graph_options.hpp"

#include "cli/exit_codes.hpp"
#include "cli/huge_pages.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "formats/load.hpp"

#include <cstdlib>
#include <iostream>

namespace tfsem::cli {

void GraphOptions::add_to(CLI::App& app) {
  command = &app;
  app.add_option("FILE", file,
                 "graph: tfsem's JSON, or a TensorFlow GraphDef, MetaGraphDef (.meta) or SavedModel (saved_model.pb, or "
                 "its directory), binary, text or JSON")
      ->required();
  app.add_option("--feed", feeds, "EDGE=VALUE: replace an input edge's initial contents (JSON tensor literal); "
                                  "for a TensorFlow graph, a placeholder by its name (unfed, it is the symbol named after it)");
  app.add_flag("--prune", prune, "keep only the nodes a fetched output depends on (footnote 7)");
  app.add_option("--fetch", fetches,
                 "fetch names to keep when pruning (default: all); for a GraphDef, what session.run fetches: "
                 "NODE:K a tensor, NODE an op to run")
      ->delimiter(',');
  app.add_flag("--normalize", normalize, "normalize symbolic terms modulo the functions' algebraic laws");
  app.add_flag("--initialized", initialized,
               "GraphDef: variables start with their initializers' values, as after running the initializers in an "
               "earlier session.run; the initializers are left out");
  app.add_flag("--tf1-refs", tf1_refs,
               "GraphDef: TensorFlow 1's references: x/read aliases the variable, and a function reading it "
               "dereferences the variable when it runs (S-DEREF), not a snapshot taken before");
  app.add_option("--tag", tag,
                 "SavedModel: the MetaGraph with these tags (TAG or TAG,TAG; default: the one tagged serve, else the "
                 "only one)");
  app.add_option("--signature", signature,
                 "SavedModel or MetaGraphDef: the SignatureDef whose inputs are fed and whose outputs are fetched unless "
                 "--fetch names others (default: serving_default, if there is one)");
}

namespace {

// A stop while a graph loads: nothing is found yet, so the stop is reported
// (as text, or as JSON) and the process ends at once, INCOMPLETE (exit 3).
template <bool kJson>
[[noreturn]] void end_at_once(const Stopped& e) {
  std::cerr << std::flush;
  std::cout << stop_report(e.what(), e.phase(), kJson) << std::flush;
  std::_Exit(kIncomplete);
}

}  // namespace

std::shared_ptr<const Program> GraphOptions::program(const std::string& path, bool notes, const StopToken* stop) const {
  std::function<void(const std::string&)> print;
  if (notes)  // over the progress line, if one is drawn
    print = [](const std::string& note) { std::cerr << (progress_shown() ? "\r\033[K" : "") << "tfsem: import: " << note << "\n"; };
  graphdef::ImportOptions import{.fetches = fetches, .initialized = initialized, .tf1_refs = tf1_refs, .stop = stop};
  struct EndAtOnce {  // while the graph loads
    const StopToken* stop;
    EndAtOnce(const StopToken* s, bool json) : stop(s) {
      if (stop) stop->end_on_stop(json ? &end_at_once<true> : &end_at_once<false>);
    }
    ~EndAtOnce() {
      if (stop) stop->end_on_stop(nullptr);
    }
    EndAtOnce(const EndAtOnce&) = delete;
    EndAtOnce& operator=(const EndAtOnce&) = delete;
  } const ending(stop, asks_json(command));
  const ElapsedProgress progress("loading " + path, stop);
  const BackLargeBlocks backing;  // the spec's and the Program's arrays
  return format::load_program(path, {import, feeds, prune, {tag, signature}}, print);
}

Options GraphOptions::options() const {
  Options opts;
  opts.terms.normalize = normalize;
  return opts;
}

Semantics GraphOptions::load(const std::string& path, const StopToken* stop) const {
  return Semantics(program(path, true, stop), options());
}

}  // namespace tfsem::cli
