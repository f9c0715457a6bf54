#include "fuzz_support.hpp"

#include "semantics/diagnostic.hpp"
#include "formats/json/graph_json.hpp"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace tfsem::fuzz {

std::string text_of(const std::uint8_t* data, std::size_t size) { return {reinterpret_cast<const char*>(data), size}; }

bool affordable(const nlohmann::json& doc) {
  if (const auto nodes = doc.find("nodes"); doc.is_object() && nodes != doc.end() && nodes->size() > kMaxNodes) return false;
  int growing = 0;
  std::vector<const nlohmann::json*> todo{&doc};  // no recursion: the document may nest deeply
  while (!todo.empty()) {
    const auto* j = todo.back();
    todo.pop_back();
    if (j->is_object()) {
      if (const auto op = j->find("op"); op != j->end() && (*op == "MatMul" || *op == "Concat") && ++growing > kMaxGrowing)
        return false;
      if (const auto shape = j->find("shape"); shape != j->end() && shape->is_array()) {
        double elements = 1;
        for (const auto& d : *shape)
          if (d.is_number()) elements *= d.get<double>();
        if (elements > kMaxElements) return false;
      }
    }
    if (j->is_structured())
      for (const auto& child : *j) todo.push_back(&child);
  }
  return true;
}

std::shared_ptr<const Program> load_program(std::string_view text) {
  try {
    const auto doc = format::parse_json_text(std::string(text), "fuzz");
    if (!affordable(doc)) return nullptr;
    return Program::build(format::parse_program(doc));
  } catch (const InputError&) {
    return nullptr;
  }
}

void fuzz_fail(const std::string& what) {
  std::fprintf(stderr, "fuzz oracle failed: %s\n", what.c_str());
  std::abort();
}

}  // namespace tfsem::fuzz
