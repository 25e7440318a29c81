// A search abandoned by its progress hook (search.h, ProgressFn): the hook's
// exception leaves run_search() as it is, and the same prepared problem can
// be searched again with the same answer. This is how the Python package
// stops a search on Ctrl-C (docs/python.md).
#include <gtest/gtest.h>

#include <stdexcept>

#include "deid/pipeline.h"
#include "support/reference.h"

namespace {

struct Abandoned : std::runtime_error {
  using std::runtime_error::runtime_error;
};

TEST(SearchAbandon, ProgressHookThrowingStopsTheSearchAndLeavesTheProblemUsable) {
  using deid::testing::arx_adult_job;
  using deid::testing::arx_adult_run;
  // Exhaustive: long enough (about 1 s) for several progress calls.
  const deid::Job job = arx_adult_job(arx_adult_run("adult_k5_loss"), deid::SearchSpec::Algorithm::exhaustive);
  auto prepared = deid::prepare(job);
  const deid::Anonymization expected = deid::run_search(*prepared);
  ASSERT_TRUE(expected.found);

  std::uint64_t checked_when_abandoned = 0;
  deid::RunOptions options;
  options.progress = [&](const deid::SearchProgress& p) {
    checked_when_abandoned = p.checked;
    throw Abandoned("stop");
  };
  EXPECT_THROW(deid::run_search(*prepared, options), Abandoned);
  EXPECT_GT(checked_when_abandoned, 0u);
  EXPECT_LT(checked_when_abandoned, expected.search.checked);

  const deid::Anonymization again = deid::run_search(*prepared);
  ASSERT_TRUE(again.found);
  EXPECT_EQ(again.search.best->transformation, expected.search.best->transformation);
  EXPECT_EQ(again.search.checked, expected.search.checked);
  EXPECT_EQ(again.result["information_loss"], expected.result["information_loss"]);
}

}  // namespace
