#include "explorer/checkpoint_file.hpp"

#include "support/hash.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace tfsem::explorer {

namespace {

// The file's first bytes: the magic, the format, the file's length, the checksum.
constexpr char kMagic[8] = {'T', 'F', 'S', 'E', 'M', 'C', 'K', 'P'};
constexpr std::size_t kLengthAt = sizeof kMagic + sizeof(std::uint32_t), kPrefix = kLengthAt + 2 * sizeof(std::uint64_t);
// The checksum runs over the rest in blocks of this many bytes (the last one shorter).
constexpr std::size_t kBlock = std::size_t{1} << 20;

// The checksum of n bytes at p after those summed to h: each 8-byte word
// mixed in, the last one padded with zeros.
std::uint64_t checksum(std::uint64_t h, const char* p, std::size_t n) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) h = mix64(h ^ load64(p + i));
  if (i < n) {
    std::uint64_t w = 0;
    std::memcpy(&w, p + i, n - i);
    h = mix64(h ^ w);
  }
  return h;
}

std::string errno_text() { return std::strerror(errno); }

}  // namespace

CheckpointOut::CheckpointOut(std::string path) : path_(std::move(path)), temporary_(path_ + ".tmp") {
  fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot create");
  buffer_.reserve(kBlock);
  char prefix[kPrefix] = {};
  std::memcpy(prefix, kMagic, sizeof kMagic);
  std::memcpy(prefix + sizeof kMagic, &kCheckpointFormat, sizeof kCheckpointFormat);
  if (::write(fd_, prefix, kPrefix) != static_cast<ssize_t>(kPrefix)) fail("cannot write");
  length_ = kPrefix;
}

CheckpointOut::~CheckpointOut() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(temporary_.c_str());
}

void CheckpointOut::fail(const char* what) const {
  throw CheckpointError("checkpoint " + temporary_ + ": " + what + ": " + errno_text());
}

void CheckpointOut::raw(const void* p, std::size_t n) {
  const auto* bytes = static_cast<const char*>(p);
  while (n > 0) {
    const auto take = std::min(n, kBlock - buffer_.size());
    buffer_.insert(buffer_.end(), bytes, bytes + take);
    bytes += take, n -= take;
    if (buffer_.size() == kBlock) flush();
  }
}

void CheckpointOut::flush() {
  sum_ = checksum(sum_, buffer_.data(), buffer_.size());
  for (std::size_t done = 0; done < buffer_.size();) {
    const auto n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("cannot write");
    done += static_cast<std::size_t>(n);
  }
  length_ += buffer_.size();
  buffer_.clear();
}

void CheckpointOut::commit() {
  flush();
  const std::uint64_t tail[2] = {length_, sum_};
  if (::pwrite(fd_, tail, sizeof tail, kLengthAt) != static_cast<ssize_t>(sizeof tail)) fail("cannot write");
  if (::fsync(fd_) != 0) fail("cannot sync");
  if (::close(fd_) != 0) {
    fd_ = -1;
    fail("cannot close");
  }
  fd_ = -1;
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0) {
    ::unlink(temporary_.c_str());
    throw CheckpointError("checkpoint " + path_ + ": cannot rename " + temporary_ + " to it: " + errno_text());
  }
  // The rename itself lasts once the directory is synced.
  const auto dir = std::filesystem::path(path_).parent_path();
  const int d = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
}

CheckpointIn::CheckpointIn(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw CheckpointError(path + ": cannot open: " + errno_text());
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw CheckpointError(path + ": cannot read: " + errno_text());
  const auto size = static_cast<std::uint64_t>(st.st_size);
  char prefix[kPrefix];
  if (size < sizeof kMagic || ::pread(fd_, prefix, sizeof kMagic, 0) != static_cast<ssize_t>(sizeof kMagic) ||
      std::memcmp(prefix, kMagic, sizeof kMagic) != 0)
    throw CheckpointError(path + ": not a tfsem checkpoint");
  if (size < kPrefix || ::pread(fd_, prefix, kPrefix, 0) != static_cast<ssize_t>(kPrefix))
    throw CheckpointError(path + ": truncated: " + std::to_string(size) + " bytes, less than its header");
  std::uint32_t format;
  std::uint64_t sum;
  std::memcpy(&format, prefix + sizeof kMagic, sizeof format);
  std::memcpy(&length_, prefix + kLengthAt, sizeof length_);
  std::memcpy(&sum, prefix + kLengthAt + sizeof length_, sizeof sum);
  if (format != kCheckpointFormat)
    throw CheckpointError(path + ": checkpoint format " + std::to_string(format) + ", this tfsem reads format " +
                            std::to_string(kCheckpointFormat));
  if (length_ == 0) throw CheckpointError(path + ": truncated: its writing did not finish");
  if (size < length_)
    throw CheckpointError(path + ": truncated: " + std::to_string(size) + " bytes of " + std::to_string(length_));
  if (size > length_)
    throw CheckpointError(path + ": corrupted: " + std::to_string(size) + " bytes, its header says " + std::to_string(length_));
  buffer_.resize(kBlock);
  std::uint64_t h = 0;
  for (std::uint64_t at = kPrefix; at < length_;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, length_ - at));
    if (::pread(fd_, buffer_.data(), n, static_cast<off_t>(at)) != static_cast<ssize_t>(n))
      throw CheckpointError(path + ": cannot read: " + errno_text());
    h = checksum(h, buffer_.data(), n);
    at += n;
  }
  if (h != sum) throw CheckpointError(path + ": corrupted: its checksum does not match its contents");
  at_ = kPrefix;
}

CheckpointIn::~CheckpointIn() {
  if (fd_ >= 0) ::close(fd_);
}

void CheckpointIn::fill() {
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, length_ - at_));
  if (::pread(fd_, buffer_.data(), n, static_cast<off_t>(at_)) != static_cast<ssize_t>(n))
    throw CheckpointError(path_ + ": cannot read: " + errno_text());
  in_buffer_ = n;
  taken_ = 0;
}

void CheckpointIn::raw(void* p, std::size_t n) {
  auto* out = static_cast<char*>(p);
  if (n > length_ - at_ + (in_buffer_ - taken_)) throw CheckpointError(path_ + ": corrupted: it ends before its contents");
  while (n > 0) {
    if (taken_ == in_buffer_) {
      fill();
      at_ += in_buffer_;
    }
    const auto take = std::min(n, in_buffer_ - taken_);
    std::memcpy(out, buffer_.data() + taken_, take);
    out += take, n -= take, taken_ += take;
  }
}

std::uint64_t CheckpointIn::size(std::uint64_t max, std::size_t element) {
  const auto n = pod<std::uint64_t>();
  if (n > max || n * element > length_ - at_ + (in_buffer_ - taken_))
    throw CheckpointError(path_ + ": corrupted: a list of " + std::to_string(n) + " elements");
  return n;
}

}  // namespace tfsem::explorer
