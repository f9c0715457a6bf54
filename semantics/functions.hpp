// Functions (thesis sections 4 and 5): a library of subgraphs, called from
// call-site nodes, recursively if they like. Two transformations turn them
// into a graph of the semantics' own operations:
//
// - the static one (thesis section 5.2, after Yaghi): each function's body
//   appears once; each call site becomes a Call per argument and a Return per
//   result, numbered with the site; a Merge per argument takes the argument of
//   whichever call is running, and each Call has a control edge to each
//   Return of its site, so that a call not made (a DEAD argument) returns
//   DEAD (section 5.4.6). Execution contexts then tell the calls apart.
// - the inline one (the dynamic approach of TensorFlow r1.4, which replaces a
//   call by the function's body at run time): each call site is replaced by a
//   copy of the body, up to a depth; a call deeper than that is refused, at
//   run time: it outputs an error element that says so (or DEAD, if the call
//   is not made).
//
// Both check the library first (G-FN): unique names that are not operations,
// arguments and results, call arities, and a body that produces every result.
#pragma once

#include "semantics/program.hpp"

namespace tfsem {

// spec with its functions made static (none left); spec itself if it has none.
ProgramSpec make_static(ProgramSpec spec);
// spec with every call expanded to the given depth (none left).
ProgramSpec inline_calls(ProgramSpec spec, int depth);

}  // namespace tfsem
