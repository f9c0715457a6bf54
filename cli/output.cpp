#include "cli/output.hpp"

#include "semantics/diagnostic.hpp"

#include <fstream>
#include <iostream>

namespace tfsem::cli {

void write_text(const std::string& text, const std::string& file) {
  if (file.empty()) {
    std::cout << text;
    return;
  }
  std::ofstream f(file);
  f << text;
  if (!f) throw InputError("", file, "", "cannot write the file");
}

}  // namespace tfsem::cli
