// Shared by the libFuzzer targets of tests/fuzz (docs/fuzzing.md).
//
// A target feeds bytes to the library and treats deid::Error (and its
// subclasses) as the expected outcome of bad input. Anything else is a
// defect: a crash or sanitizer report, another exception escaping (libFuzzer
// reports it as a deadly signal), a hang, too much memory, or a broken
// invariant, which the target reports with fuzz_fail() (abort).
#pragma once

#include <tbb/global_control.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace deid_fuzz {

// Prints what went wrong and aborts, so that libFuzzer saves the input.
[[noreturn]] inline void fuzz_fail(const std::string& what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

#define FUZZ_CHECK(cond, what)                                                          \
  do {                                                                                  \
    if (!(cond)) ::deid_fuzz::fuzz_fail(std::string(#cond) + ": " + std::string(what)); \
  } while (0)

// One thread: the readers' results do not depend on the thread count (their
// pieces are cut by bytes), and a single thread keeps runs reproducible and
// leaves the machine's other cores alone.
inline void single_thread() {
  static tbb::global_control one(tbb::global_control::max_allowed_parallelism, 1);
}

}  // namespace deid_fuzz
