// Building a ProgramSpec in code: the graph generators' common vocabulary.
// Node and edge ids are given or numbered; every edge is one call.
#pragma once

#include "semantics/program.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tfsem::generate {

// "node" or "node:port".
struct End {
  std::string node;
  Port port;
};

class SpecBuilder {
 public:
  explicit SpecBuilder(std::string name, std::string description = "");

  void variable(const std::string& name, std::optional<Tensor> init);
  // The variables declared so far, in order.
  [[nodiscard]] std::vector<std::string> variables() const;
  // Declares an uninterpreted function (G-FUNCTION), once per name.
  void declare(const std::string& name, bool stateful);
  // Adds a node; returns its id.
  std::string node(const std::string& id, const std::string& op, const std::string& var = "", Attrs attrs = {});

  void tensor(const End& from, const End& to);
  void handle(const End& from, const End& to);  // a variable edge
  void control(const std::string& from, const std::string& to);
  // Input edges: a tensor fed to a port, GO to a node.
  void feed(const Tensor& value, const End& to);
  void go(const std::string& to);
  // Var(x) for an accessor: a Var node triggered by GO, its edge on port 0.
  void var_for(const std::string& accessor, const std::string& var);
  // An output edge, fetched under its id.
  void output(const End& from, const std::string& fetch);
  // An output edge that is not fetched: its values are dropped.
  void drop(const End& from);

  // In a library function's body: an input edge carrying argument `arg`, an
  // output edge giving result `result`.
  void arg(const std::string& arg, const End& to);
  void result(const End& from, const std::string& result);
  // A function of the library, called by nodes whose op is its name.
  void library(LibraryFunction f);

  // A graph's edges carry no argument and give no result: arg() and result()
  // are for a body, made by function().
  [[nodiscard]] ProgramSpec build() && {
    if (!bindings_.empty()) throw std::logic_error("SpecBuilder: arg() and result() are for a function's body");
    return std::move(spec_);
  }
  // The nodes and edges built so far as the body of a library function.
  [[nodiscard]] LibraryFunction function(std::string name, std::vector<std::string> args,
                                         std::vector<std::string> results) &&;

 private:
  ProgramSpec spec_;
  // The body's edges that carry an argument or give a result, by index.
  struct Binding {
    std::size_t edge;
    std::string arg, result;
  };
  std::vector<Binding> bindings_;
  std::size_t next_edge_ = 0;
  std::string edge_id(const std::string& hint);
  EdgeSpec& add(const std::string& kind, std::optional<End> from, std::optional<End> to,
                decltype(EdgeSpec::value) value = {}, std::optional<std::string> fetch = std::nullopt, std::string id = "");
};

}  // namespace tfsem::generate
