// Pitman's estimate equals ARX 3.9.2's on class-size frequencies that the
// population-uniqueness searches meet (tests/testdata/reference/README.md,
// arx-pitman-estimates.json): to a relative 1e-9 where ARX has an estimate,
// and none where ARX has none. deid takes ARX's Newton-Raphson steps with
// ARX's polygamma approximations (src/risk/arx_gamma.h, newton.h), so it
// reaches ARX's root, or ARX's failure, from the same start values.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "deid/risk.h"

namespace {

const nlohmann::json& reference() {
  static const nlohmann::json j = [] {
    std::ifstream in(DEID_TESTDATA_DIR "/reference/arx-pitman-estimates.json");
    return nlohmann::json::parse(in);
  }();
  return j;
}

class ArxPitman : public ::testing::TestWithParam<std::size_t> {};

TEST_P(ArxPitman, EstimateIsArxs) {
  const nlohmann::json& c = reference()["cases"].at(GetParam());
  deid::ClassSizeFrequencies f;
  for (const auto& pair : c["sizes"]) f.sizes.emplace_back(pair[0].get<std::uint64_t>(), pair[1].get<std::uint64_t>());
  const double N = reference()["population"].get<double>();
  const deid::UniquenessEstimate e = deid::estimate_pitman(f, N);
  if (c["uniques"].is_null()) {
    EXPECT_FALSE(e.available()) << "u=" << f.classes() << " n=" << f.records() << ": ARX has no estimate, deid "
                                << *e.uniques;
  } else {
    const double arx = c["uniques"].get<double>();
    ASSERT_TRUE(e.available()) << "u=" << f.classes() << " n=" << f.records() << ": ARX " << arx << ", deid none ("
                               << deid::to_string(e.status) << ")";
    EXPECT_LE(std::abs(*e.uniques - arx), 1e-9 * arx)
        << "u=" << f.classes() << " n=" << f.records() << ": deid " << *e.uniques << ", ARX " << arx;
  }
}

INSTANTIATE_TEST_SUITE_P(Reference, ArxPitman, ::testing::Range<std::size_t>(0, 60));

TEST(ArxPitmanReference, HasTheDocumentedCases) {
  ASSERT_EQ(reference()["cases"].size(), 60u);
  std::size_t none = 0;
  for (const auto& c : reference()["cases"]) none += c["uniques"].is_null();
  EXPECT_EQ(none, 15u);
}

}  // namespace
