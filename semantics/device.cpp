#include "semantics/device.hpp"

#include <algorithm>
#include <cctype>

namespace tfsem {

namespace {

bool all_of(std::string_view s, int (*is)(int), std::string_view also = "") {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) {
    return is(static_cast<unsigned char>(c)) != 0 || also.find(c) != std::string_view::npos;
  });
}
bool name(std::string_view s) { return all_of(s, std::isalnum, "_") && std::isalpha(static_cast<unsigned char>(s[0])) != 0; }
bool number(std::string_view s) { return all_of(s, std::isdigit) || s == "*"; }

// One "/key:value" component of a TensorFlow device name, without its "/".
bool component(std::string_view c) {
  const auto colon = c.find(':');
  if (colon == std::string_view::npos) return false;
  const auto key = c.substr(0, colon), value = c.substr(colon + 1);
  if (key == "job") return name(value);
  if (key == "replica" || key == "task") return number(value);
  if (key == "device") {  // device:TYPE:N, or device:TYPE
    const auto type = value.substr(0, value.find(':'));
    return name(type) && (type.size() == value.size() || number(value.substr(type.size() + 1)));
  }
  return name(key) && number(value);  // the legacy "/cpu:0", "/gpu:1"
}

}  // namespace

std::string device_problem(std::string_view device) {
  if (device.empty()) return "";
  if (device[0] != '/') {
    if (all_of(device, std::isalnum, "_.-") && std::isalpha(static_cast<unsigned char>(device[0])) != 0) return "";
    return "a device is a short name (a letter, then letters, digits, '_', '.' or '-') or a TensorFlow device name "
           "starting with '/'";
  }
  for (std::size_t at = 1;;) {
    const auto next = device.find('/', at);
    if (!component(device.substr(at, next - at)))
      return "'" + std::string(device.substr(at - 1, next == std::string_view::npos ? next : next - at + 1)) +
             "' is not a part of a TensorFlow device name (/job:NAME, /replica:N, /task:N, /device:TYPE:N, /TYPE:N)";
    if (next == std::string_view::npos) return "";
    at = next + 1;
  }
}

}  // namespace tfsem
