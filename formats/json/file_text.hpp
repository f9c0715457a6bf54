// A file's bytes, read-only, for the readers of graph files. A regular file
// is mapped into memory: its text is the page cache's own pages, neither
// copied nor zeroed first (a million-node graph's file is a few hundred MiB).
// Anything else (a pipe, /dev/stdin) is read into a string. A mapped file
// changed or truncated by another process while it is read may read as
// garbage or end the process (SIGBUS), as with any reader that maps files.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace tfsem::format {

class FileText {
 public:
  // Throws InputError (G-JSON, naming the file) when it cannot be opened or
  // read, or is a directory.
  explicit FileText(const std::filesystem::path& file);
  ~FileText();
  FileText(const FileText&) = delete;
  FileText& operator=(const FileText&) = delete;

  [[nodiscard]] std::string_view text() const { return map_ != nullptr ? std::string_view(map_, size_) : read_; }

 private:
  const char* map_ = nullptr;
  std::size_t size_ = 0;
  std::string read_;  // what was read, where the file is not mapped
};

}  // namespace tfsem::format
