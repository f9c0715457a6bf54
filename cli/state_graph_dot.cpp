#include "cli/state_graph_dot.hpp"

#include "cli/dot.hpp"
#include "cli/output.hpp"
#include "semantics/diagnostic.hpp"

namespace tfsem::cli {

explorer::Observer StateGraphDot::observer() {
  return {[this](std::uint32_t i, const State& s, bool terminal) {
            if (i >= max_) return;
            out_ << "  s" << i << " [label=\"s" << i << "\\l" << dot_escape(state_to_string(sem_.program(), sem_.contexts(), s, "", 8)) << "\""
                 << (terminal ? ", peripheries=2" : "") << (i == 0 ? ", style=bold" : "") << "];\n";
          },
          [this](std::uint32_t from, std::uint32_t to, const Schedule& steps) {
            if (from >= max_ || to >= max_) return;
            out_ << "  s" << from << " -> s" << to << " [label=\"" << dot_escape(schedule_to_string(sem_, steps)) << "\"];\n";
          }};
}

void StateGraphDot::write(const std::string& file, std::uint64_t states) const {
  if (states > max_)
    throw InputError("", "--dot", "", "the explored state graph has " + std::to_string(states) +
                                          " states; --dot draws at most " + std::to_string(max_) +
                                          " (raise --dot-max-states, or pick a stronger --por)");
  write_text("digraph states {\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n  label=\"" +
                 dot_escape(sem_.program().name()) + ": explored state graph\";\n" + out_.str() + "}\n",
             file);
}

}  // namespace tfsem::cli
