// Counting the elements of a large JSON array before reading it, so that the
// streaming reader (graph_stream.cpp) stores a million nodes or edges without
// moving them. The text is classified 64 bytes at a time: a bit per byte for
// the quotes, the backslashes and the structural characters, the escaped
// bytes found from the backslashes, the bytes inside strings from the quotes
// (a running parity), and only the structural characters outside strings are
// looked at one by one. A compact graph file has a stop every three bytes or
// so, which a scan that looks at each byte spends most of its time on.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace tfsem::format {

// How many elements the array whose '[' starts `text` has (1 for an empty
// one, as a count of commas plus one; the reader only reserves room by it).
// nullopt where the array does not end in the text. Exact for well-formed
// JSON; on any other text it returns some count or nullopt, reads nothing
// past the text, and the reader then finds what is wrong.
// With `commas`, it also appends there the offset in `text` of every
// `stride`-th comma between elements (the one before element stride, 2 *
// stride, ...): where the parts of an array read on threads of their own begin.
// With `end`, it stores there the offset of the array's closing ']'.
std::optional<std::size_t> count_array_elements(std::string_view text, std::vector<std::size_t>* commas = nullptr,
                                                std::size_t stride = 1, std::size_t* end = nullptr);

}  // namespace tfsem::format
