# Writes OUT, a C++ source defining the array NAME with the bytes of IN and a
# final NUL: the page's template (page.html) built into the binary, so that
# tfsem writes a page without reading any file beside it.
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
file(WRITE "${OUT}" "// Generated from ${IN} by report/embed.cmake.\n#include \"report/page_template.hpp\"\n\n"
     "namespace tfsem::report {\nextern const char ${NAME}[] = {${bytes}'\\0'};\n}  // namespace tfsem::report\n")
