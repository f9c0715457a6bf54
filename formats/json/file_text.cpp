#include "formats/json/file_text.hpp"

#include "semantics/diagnostic.hpp"

#include <cerrno>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tfsem::format {

namespace {

[[noreturn]] void cannot_read(const std::filesystem::path& file, const char* why) {
  throw InputError("G-JSON", file.string(), "", why);
}

// Closes the descriptor however the constructor ends.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

FileText::FileText(const std::filesystem::path& file) {
  const Descriptor d{::open(file.c_str(), O_RDONLY | O_CLOEXEC)};
  if (d.fd < 0) cannot_read(file, "cannot open file");
  struct stat st {};
  if (::fstat(d.fd, &st) != 0) cannot_read(file, "cannot open file");
  if (S_ISDIR(st.st_mode)) cannot_read(file, "a directory, not a graph file (nor a SavedModel's: no saved_model.pb in it)");
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto n = static_cast<std::size_t>(st.st_size);
    // MAP_POPULATE: the pages are mapped in one call rather than faulted in one by one.
    if (void* p = ::mmap(nullptr, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, d.fd, 0); p != MAP_FAILED) {
      map_ = static_cast<const char*>(p);
      size_ = n;
      return;
    }
  }
  char buffer[1 << 16];
  for (;;) {
    const auto got = ::read(d.fd, buffer, sizeof buffer);
    if (got == 0) return;
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) cannot_read(file, "cannot read file");
    read_.append(buffer, static_cast<std::size_t>(got));
  }
}

FileText::~FileText() {
  if (map_ != nullptr) ::munmap(const_cast<char*>(map_), size_);
}

}  // namespace tfsem::format
