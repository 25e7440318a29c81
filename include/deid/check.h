// The check of one transformation: roll the histogram up to the
// transformation's levels (its equivalence classes), ask the privacy models
// which classes hold, suppress the others within the limit, and measure the
// quality. This is the engine's hot path.
#pragma once

#include <cstdint>
#include <vector>

#include "deid/lattice.h"
#include "deid/problem.h"
#include "deid/quality.h"

namespace deid {

// The equivalence classes of one transformation.
struct Classes {
  std::uint32_t width = 0;
  std::vector<std::uint32_t> keys;         // class-major generalized codes
  std::vector<std::uint64_t> counts;       // records per class
  std::vector<std::uint8_t> suppressed;    // 1 when the class is suppressed
  std::vector<std::uint32_t> entry_class;  // histogram entry → class
  std::uint64_t suppressed_records = 0;

  std::size_t size() const { return counts.size(); }
};

struct CheckResult {
  Transformation transformation;
  bool solution = false;            // all models hold after suppression within the limit
  std::uint64_t suppressed_records = 0;  // records in violating classes (may exceed the limit)
  std::uint64_t classes = 0;        // classes of the generalized data, before suppression
  QualityValue quality;             // of the output; meaningful when solution
  double lower_bound = 0;           // loss from generalization alone
};

// Not thread-safe: each thread uses its own Checker (they share the Problem).
class Checker {
 public:
  explicit Checker(const Problem& problem);
  ~Checker();

  // Checks `t`. When `classes` is given, it receives the classes with the
  // suppressed ones flagged.
  CheckResult check(const Transformation& t, Classes* classes = nullptr);

  // Groups the histogram by `t` into `out` (nothing suppressed yet).
  void group(const Transformation& t, Classes& out);

 private:
  struct Impl;
  const Problem& problem_;
  Classes scratch_;
  std::vector<ClassView::Distribution> dist_scratch_;
  struct HashState;
  HashState* hash_;
};

}  // namespace deid
