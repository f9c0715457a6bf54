// Which sanitizer a test binary is built with (.ci/sanitize and CI's TSan stage,
// several times slower), for the sweeps that check a share of their inputs there.
#pragma once

namespace tfsem::test {

#ifdef __SANITIZE_ADDRESS__
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#ifdef __SANITIZE_THREAD__
inline constexpr bool kThreadSanitizer = true;
#else
inline constexpr bool kThreadSanitizer = false;
#endif
inline constexpr bool kSanitized = kAddressSanitizer || kThreadSanitizer;

}  // namespace tfsem::test
