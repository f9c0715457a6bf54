#include "formats/graphdef/wire_locator.hpp"

#include "formats/graphdef/utf8.hpp"

#include <cstdint>
#include <optional>

namespace tfsem::graphdef {

namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;


class Walker {
 public:
  explicit Walker(std::string_view bytes) : base_(bytes.data()) {}

  // Walks [p, end) as a message of type d (nullptr: an unknown group). Returns
  // the defect, or nullopt; `group` is the field number of an enclosing group.
  std::optional<std::string> message(const char* p, const char* end, const Descriptor* d, const std::string& path,
                                     std::uint32_t group = 0) {
    // As deep as protobuf's own parser goes, and no deeper: this walk recurses.
    if (depth_ == kMaxDepth) return fail(p, path, "messages and groups nested deeper than " + std::to_string(kMaxDepth));
    ++depth_;
    auto defect = walk(p, end, d, path, group);
    --depth_;
    return defect;
  }

 private:
  static constexpr int kMaxDepth = 100;  // protobuf's default recursion limit
  const char* base_;
  const char* group_end_ = nullptr;
  int depth_ = 0;

  std::optional<std::string> walk(const char* p, const char* end, const Descriptor* d, const std::string& path,
                                  std::uint32_t group) {
    std::vector<std::uint32_t> counts(d ? static_cast<std::size_t>(d->field_count()) : 0, 0);
    while (p < end) {
      const char* at = p;
      const auto tag = varint(p, end);
      if (!tag) return fail(at, path, "a field tag is cut off");
      const auto number = static_cast<std::uint32_t>(*tag >> 3);
      const auto wire = static_cast<int>(*tag & 7);
      if (number == 0) return fail(at, path, "field number 0 is not a field");
      const FieldDescriptor* f = d ? d->FindFieldByNumber(static_cast<int>(number)) : nullptr;
      switch (wire) {
        case 0:
          if (!varint(p, end)) return fail(at, path, "a varint is cut off");
          break;
        case 1:
        case 5: {
          const std::size_t n = wire == 1 ? 8 : 4;
          if (static_cast<std::size_t>(end - p) < n) return fail(at, path, "a fixed-width value is cut off");
          p += n;
          break;
        }
        case 2: {
          const auto len = varint(p, end);
          if (!len) return fail(at, path, "a length is cut off");
          if (*len > static_cast<std::uint64_t>(end - p)) {
            // Cut off: the bytes that are there say where, deeper down.
            if (f && f->type() == FieldDescriptor::TYPE_MESSAGE) {
              const std::string_view rest(p, static_cast<std::size_t>(end - p));
              const auto inner = path + (path.empty() ? "" : " > ") + label(*f, counts[static_cast<std::size_t>(f->index())], rest);
              if (auto e = message(rest.data(), rest.data() + rest.size(), f->message_type(), inner)) return e;
            }
            return fail(at, path, "a length runs past the end of its message");
          }
          const std::string_view body(p, static_cast<std::size_t>(*len));
          if (f && f->type() == FieldDescriptor::TYPE_MESSAGE) {
            const auto index = counts[static_cast<std::size_t>(f->index())]++;
            const auto inner = path + (path.empty() ? "" : " > ") + label(*f, index, body);
            if (auto e = message(body.data(), body.data() + body.size(), f->message_type(), inner)) return e;
          } else if (f && f->type() == FieldDescriptor::TYPE_STRING && !valid_utf8(body)) {
            return fail(at, path, "string field '" + std::string(f->name()) + "' is not valid UTF-8");
          }
          p += body.size();
          break;
        }
        case 3:
          if (auto e = message(p, end, nullptr, path, number)) return e;
          p = group_end_;
          break;
        case 4:
          if (group != number) return fail(at, path, "an end-group tag without its start");
          group_end_ = p;
          return std::nullopt;
        default: return fail(at, path, "wire type " + std::to_string(wire) + " does not exist");
      }
    }
    if (group != 0) return fail(p, path, "a group is not closed");
    return std::nullopt;
  }

  static std::optional<std::uint64_t> varint(const char*& p, const char* end) {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 70 && p < end; shift += 7) {
      const auto b = static_cast<unsigned char>(*p++);
      v |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return std::nullopt;
  }

  // "node[3] 'x'" for a repeated message with a name, "attr['value']" for a map entry.
  static std::string label(const FieldDescriptor& f, std::uint32_t index, std::string_view body) {
    std::string out(f.name());
    const auto key = first_string(body);
    if (f.is_map()) return out + "['" + printable(key.value_or("?")) + "']";
    if (f.is_repeated()) out += "[" + std::to_string(index) + "]";
    if (key && !key->empty() && f.message_type()->FindFieldByNumber(1) &&
        f.message_type()->FindFieldByNumber(1)->type() == FieldDescriptor::TYPE_STRING)
      out += " '" + printable(*key) + "'";
    return out;
  }

  static std::string printable(const std::string& s) {
    std::string out;
    for (char c : s) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u < 0x7F) {
        out += c;
      } else {
        static const char* hex = "0123456789abcdef";
        out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
      }
    }
    return out;
  }

  // The value of field 1, when it is length-delimited and comes first.
  static std::optional<std::string> first_string(std::string_view body) {
    const char* p = body.data();
    const char* end = p + body.size();
    const auto tag = varint(p, end);
    if (!tag || *tag != ((1U << 3) | 2U)) return std::nullopt;
    const auto len = varint(p, end);
    if (!len || *len > static_cast<std::uint64_t>(end - p)) return std::nullopt;
    return std::string(p, static_cast<std::size_t>(*len));
  }

  std::string fail(const char* at, const std::string& path, const std::string& what) const {
    return "byte " + std::to_string(at - base_) + (path.empty() ? "" : ", in " + path) + ": " + what;
  }
};

}  // namespace

std::string locate_wire_error(std::string_view bytes, const Descriptor& root) {
  return Walker(bytes).message(bytes.data(), bytes.data() + bytes.size(), &root, "").value_or("");
}

}  // namespace tfsem::graphdef
