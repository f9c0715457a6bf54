// A GraphDef's function library (FunctionDefLibrary) as tfsem's library of
// functions (thesis section 5, semantics/functions.hpp): a FunctionDef whose
// body tfsem interprets becomes a LibraryFunction, and a node calling it (its
// op names the function, or a PartitionedCall / StatefulPartitionedCall names
// it in attr f) a call site, recursion included (a recursion through If,
// Case or While too, its body lowered at import). Any other function stays an
// uninterpreted one (importer.cpp).
#pragma once

#include "formats/graphdef/graphdef.pb.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tfsem::graphdef {

class Library {
 public:
  explicit Library(const FunctionDefLibrary& library);

  // The function named `name`, and the function node calls, if it calls one.
  [[nodiscard]] const FunctionDef* find(std::string_view name) const;
  [[nodiscard]] const FunctionDef* callee(const NodeDef& node) const;
  // Whether tfsem interprets f: every node of its body is an op of
  // op_table.hpp that computes on values (a constant, a function, Identity,
  // Print, NoOp, control flow), a call of a function tfsem interprets, or a
  // functional op (If, Case, While) whose functions it interprets.
  [[nodiscard]] bool interpreted(const FunctionDef& f) const { return interpreted_.count(f.signature().name()) != 0; }
  // Whether f's body holds a functional op, which the import lowers
  // (functional.hpp), or calls a function that does: f is interpreted once its
  // body is flattened, not as it is.
  [[nodiscard]] bool lowered(const FunctionDef& f) const { return lowered_.count(f.signature().name()) != 0; }
  // The functions a node of a body calls: its callee, or the functions a
  // functional op's attributes name (null for a name no function has).
  [[nodiscard]] std::vector<const FunctionDef*> called(const NodeDef& node) const;
  // Whether f reaches itself: by a call in its body, or through a function an
  // attribute of a body node names (If's branches, While's cond and body).
  [[nodiscard]] bool recursive(const FunctionDef& f) const { return recursive_.count(f.signature().name()) != 0; }

  // f's body as a GraphDef: each argument a Placeholder named after it, each
  // input "node:output_arg:index" written "node:port"; and the output each
  // result (output_arg) names, "node:port", in the signature's order. Throws
  // InputError (I-NODE) naming the function, node and input.
  struct Body {
    GraphDef graph;
    std::vector<std::string> results;
  };
  [[nodiscard]] Body body(const FunctionDef& f) const;

 private:
  std::map<std::string, const FunctionDef*, std::less<>> by_name_;
  std::set<std::string, std::less<>> interpreted_;
  std::set<std::string, std::less<>> recursive_;
  std::set<std::string, std::less<>> lowered_;

  void find_recursive();

  [[nodiscard]] bool computes_on_values(const NodeDef& node) const;
  // The port of `node`'s output `out_arg`, element `index`.
  [[nodiscard]] std::optional<int> port(const NodeDef& node, const std::string& out_arg, int index) const;
};

}  // namespace tfsem::graphdef
