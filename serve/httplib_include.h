// httplib.h, included once the same way by every file of serve/ and its
// tests: it is a system header (no warnings of its own), but its templates
// (std::regex among them) are instantiated in the including file, where GCC
// 12 reports -Wmaybe-uninitialized false positives inside them.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <httplib.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
