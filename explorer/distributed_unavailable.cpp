// The distributed search in a build without MPI (TFSEM_MPI=OFF, or AUTO
// where no MPI was found): --distributed refuses, saying why.
#include "explorer/distributed.hpp"

#include <stdexcept>

namespace tfsem::explorer::distributed {

bool available() { return false; }
std::string unavailable_reason() {
  return "this tfsem was built without MPI (configure with -DTFSEM_MPI=ON where Open MPI is installed: "
         "openmpi-bin, libopenmpi-dev)";
}
int rank() { return 0; }
int ranks() { return 1; }
Report explore(const Semantics&, const ExploreOptions&, const Checkpoints*, std::size_t) { throw std::logic_error(unavailable_reason()); }
int agree(int code) { return code; }

}  // namespace tfsem::explorer::distributed
