// Test helper: two histograms are the same, entry for entry (keys, counts,
// and every sensitive distribution).
#pragma once

#include <gtest/gtest.h>

#include "deid/histogram.h"

namespace deid::testing {

inline void expect_same_histogram(const Histogram& a, const Histogram& b) {
  EXPECT_EQ(a.width, b.width);
  EXPECT_EQ(a.keys, b.keys);
  EXPECT_EQ(a.counts, b.counts);
  ASSERT_EQ(a.sensitive.size(), b.sensitive.size());
  for (std::size_t s = 0; s < a.sensitive.size(); ++s) {
    EXPECT_EQ(a.sensitive[s].offsets, b.sensitive[s].offsets);
    EXPECT_EQ(a.sensitive[s].codes, b.sensitive[s].codes);
    EXPECT_EQ(a.sensitive[s].counts, b.sensitive[s].counts);
  }
}

}  // namespace deid::testing
