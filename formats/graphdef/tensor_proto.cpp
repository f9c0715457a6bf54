#include "formats/graphdef/tensor_proto.hpp"

#include "semantics/diagnostic.hpp"

#include <bit>
#include <cstring>
#include <limits>

namespace tfsem::graphdef {

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& field, const std::string& message) {
  throw InputError("I-TENSOR", where, field, message);
}

// The f32 with the bits of an IEEE half.
float half_to_float(std::uint32_t h) {
  const std::uint32_t sign = (h & 0x8000U) << 16, exp = (h >> 10) & 0x1FU, mant = h & 0x3FFU;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000U | (mant << 13));  // infinity, NaN
  if (exp != 0) return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
  const float magnitude = static_cast<float>(mant) * 0x1p-24F;  // subnormal
  return sign ? -magnitude : magnitude;
}

// How a dtype is read: its element type in tfsem, its width in tensor_content,
// and each element's conversion from the repeated field or the raw bytes.
template <class T>
struct Reader {
  std::size_t width;
  std::string_view field;  // the repeated field
  std::vector<T> values;   // its values, converted
  T (*from_bytes)(const char*);
};

template <class Raw, class T>
T load(const char* p) {
  Raw r;
  std::memcpy(&r, p, sizeof r);
  return static_cast<T>(r);
}

template <class T, class Field>
std::vector<T> widen(const Field& field) {
  return std::vector<T>(field.begin(), field.end());
}

template <class T>
Tensor build(const TensorProto& proto, const Shape& shape, const Reader<T>& r, const std::string& where) {
  const auto n = static_cast<std::size_t>(element_count(shape));
  Buffer<T> out(static_cast<std::ptrdiff_t>(n));
  const auto& content = proto.tensor_content();
  if (!content.empty()) {
    if (content.size() != n * r.width)
      fail(where, "field tensor_content",
           "holds " + std::to_string(content.size()) + " bytes; " + DataType_Name(proto.dtype()) + " of shape " +
               shape_to_string(shape) + " needs " + std::to_string(n * r.width));
    for (std::size_t i = 0; i < n; ++i) out[static_cast<std::ptrdiff_t>(i)] = r.from_bytes(content.data() + i * r.width);
    return Tensor::dense(shape, Storage{std::move(out)});
  }
  if (r.values.size() > n)
 fail(where, "field " + std::string(r.field), "holds " + std::to_string(r.values.size()) + " values; shape " + shape_to_string(shape) +
                                        " has " + std::to_string(n) + " elements");
  // A field shorter than the shape repeats its last value (a splat); an empty one means zeros.
  for (std::size_t i = 0; i < n; ++i)
    out[static_cast<std::ptrdiff_t>(i)] = r.values.empty() ? T{} : r.values[std::min(i, r.values.size() - 1)];
  return Tensor::dense(shape, Storage{std::move(out)});
}

std::vector<float> halves(const TensorProto& proto, bool bfloat) {
  std::vector<float> out;
  for (auto bits : proto.half_val()) {
    const auto b = static_cast<std::uint32_t>(bits) & 0xFFFFU;
    out.push_back(bfloat ? std::bit_cast<float>(b << 16) : half_to_float(b));
  }
  return out;
}

float half_bytes(const char* p) { return half_to_float(load<std::uint16_t, std::uint32_t>(p)); }
float bfloat_bytes(const char* p) { return std::bit_cast<float>(load<std::uint16_t, std::uint32_t>(p) << 16); }

}  // namespace

Shape to_shape(const TensorShapeProto& proto, const std::string& where) {
  if (proto.unknown_rank()) fail(where, "field tensor_shape", "the rank is unknown; a constant has a known shape");
  Shape shape;
  std::int64_t count = 1;
  for (int i = 0; i < proto.dim_size(); ++i) {
    const auto size = proto.dim(i).size();
    if (size < 0 || size > (std::int64_t{1} << 28))
      fail(where, "field tensor_shape", "dimension " + std::to_string(i) + " is " + std::to_string(size) +
                                            "; a constant's dimensions are known and at most 2^28");
    count *= size;
    if (count > (std::int64_t{1} << 28)) fail(where, "field tensor_shape", "more than 2^28 elements");
    shape.push_back(size);
  }
  return shape;
}

std::optional<Tensor> to_tensor(const TensorProto& proto, const std::string& where) {
  const auto shape = to_shape(proto.tensor_shape(), where);
  switch (proto.dtype()) {
    case DT_FLOAT:
      return build<float>(proto, shape, {4, "float_val", widen<float>(proto.float_val()), load<float, float>}, where);
    case DT_DOUBLE:
      return build<double>(proto, shape, {8, "double_val", widen<double>(proto.double_val()), load<double, double>}, where);
    case DT_INT32:
      return build<std::int32_t>(proto, shape, {4, "int_val", widen<std::int32_t>(proto.int_val()), load<std::int32_t, std::int32_t>},
                                 where);
    case DT_INT16:
      return build<std::int32_t>(proto, shape, {2, "int_val", widen<std::int32_t>(proto.int_val()), load<std::int16_t, std::int32_t>},
                                 where);
    case DT_UINT16:
      return build<std::int32_t>(proto, shape, {2, "int_val", widen<std::int32_t>(proto.int_val()), load<std::uint16_t, std::int32_t>},
                                 where);
    case DT_INT8:
      return build<std::int32_t>(proto, shape, {1, "int_val", widen<std::int32_t>(proto.int_val()), load<std::int8_t, std::int32_t>},
                                 where);
    case DT_UINT8:
      return build<std::int32_t>(proto, shape, {1, "int_val", widen<std::int32_t>(proto.int_val()), load<std::uint8_t, std::int32_t>},
                                 where);
    case DT_INT64:
      return build<std::int64_t>(proto, shape, {8, "int64_val", widen<std::int64_t>(proto.int64_val()), load<std::int64_t, std::int64_t>},
                                 where);
    case DT_UINT32:
      return build<std::int64_t>(proto, shape,
                                 {4, "uint32_val", widen<std::int64_t>(proto.uint32_val()), load<std::uint32_t, std::int64_t>}, where);
    case DT_UINT64: {
      const auto t = build<std::int64_t>(
          proto, shape, {8, "uint64_val", widen<std::int64_t>(proto.uint64_val()), load<std::uint64_t, std::int64_t>}, where);
      const auto& b = std::get<Buffer<std::int64_t>>(t.as_dense().data);
      for (std::ptrdiff_t i = 0; i < b.size(); ++i)
        if (b[i] < 0) fail(where, "uint64 values", "a value above 2^63 - 1 does not fit tfsem's i64");
      return t;
    }
    case DT_BOOL:
      return build<bool>(proto, shape, {1, "bool_val", widen<bool>(proto.bool_val()), [](const char* p) { return *p != 0; }}, where);
    case DT_HALF: return build<float>(proto, shape, {2, "half_val", halves(proto, false), half_bytes}, where);
    case DT_BFLOAT16: return build<float>(proto, shape, {2, "half_val", halves(proto, true), bfloat_bytes}, where);
    case DT_INVALID: fail(where, "field dtype", "the tensor has no dtype");
    default: return std::nullopt;
  }
}

}  // namespace tfsem::graphdef
