// doctest's implementation and main, compiled once and linked into every test
// executable (tests/CMakeLists.txt, tfsem_test) instead of once per test file.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
