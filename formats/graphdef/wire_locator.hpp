// Where a binary protobuf message stops being well-formed. Protobuf's parser
// only says that it failed; this walk over the wire format, guided by the
// message's descriptor, names the byte offset and the field path, such as
// "byte 1234, in node[3] 'x' > attr['value'] > tensor: a length runs past the end".
#pragma once

#include <google/protobuf/descriptor.h>

#include <string>
#include <string_view>

namespace tfsem::graphdef {

// The first defect of `bytes` as a `root` message, or "" when the walk finds none.
std::string locate_wire_error(std::string_view bytes, const google::protobuf::Descriptor& root);

}  // namespace tfsem::graphdef
