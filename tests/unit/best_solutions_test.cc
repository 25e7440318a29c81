// The Evaluator keeps the best solutions it checked (search.h,
// Evaluator::best_solutions): after exhaustive search they are exactly the
// first ten of every solution of the lattice sorted by better(); re-checks do
// not duplicate entries; the pipeline writes them to
// result.search.best_solutions, the chosen transformation first.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "deid/pipeline.h"
#include "deid/search.h"

namespace deid {
namespace {

namespace fs = std::filesystem;

class BestSolutions : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / fmt::format("deid-best-solutions-{}", ::getpid());
    fs::create_directories(dir_);
    std::mt19937_64 rng(11);
    std::string csv = "age,zip,sex\n";
    for (int i = 0; i < 3000; ++i)
      csv += fmt::format("{},{},{}\n", 20 + rng() % 60, 10000 + rng() % 50 * 7, rng() % 3 ? "F" : "M");
    std::ofstream(dir_ / "data.csv") << csv;
    job_.input.path = (dir_ / "data.csv").string();
    AttributeSpec age;
    age.name = "age";
    age.role = Role::quasi_identifying;
    age.hierarchy_builder = IntervalSpec{20, 80, {5, 10, 20, 60}, false, false};
    AttributeSpec zip;
    zip.name = "zip";
    zip.role = Role::quasi_identifying;
    zip.hierarchy_builder = MaskingSpec{'*', false, 3};
    AttributeSpec sex;
    sex.name = "sex";
    sex.role = Role::quasi_identifying;
    sex.hierarchy_builder = GroupingSpec{{"F", "M"}, {2}};
    job_.attributes = {age, zip, sex};
    job_.privacy.push_back(KAnonymitySpec{8});
    job_.suppression_limit = 0.03;
    job_.search.algorithm = SearchSpec::Algorithm::exhaustive;
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  Job job_;
};

TEST_F(BestSolutions, ExhaustiveSearchKeepsTheTenBestOfAllSolutionsInOrder) {
  const auto p = prepare(job_);
  const Problem& pr = p->problem;
  const Lattice lattice = pr.lattice();
  Checker checker(pr);
  std::vector<CheckResult> all;
  for (LatticeIndex i = 0; i < lattice.size(); ++i) {
    CheckResult r = checker.check(lattice.at(i));
    if (r.solution) all.push_back(std::move(r));
  }
  ASSERT_GT(all.size(), 12u) << "the test needs more solutions than are kept";
  std::sort(all.begin(), all.end(), better);

  Evaluator ev(pr, SearchLimits{});
  make_exhaustive_search()->run(ev);
  const auto& kept = ev.best_solutions();
  ASSERT_EQ(kept.size(), Evaluator::kDefaultBestSolutions);
  for (std::size_t i = 0; i < kept.size(); ++i) {
    EXPECT_EQ(kept[i].transformation, all[i].transformation) << i;
    EXPECT_EQ(kept[i].quality.value, all[i].quality.value) << i;
    EXPECT_EQ(kept[i].suppressed_records, all[i].suppressed_records) << i;
  }
  ASSERT_TRUE(ev.best());
  EXPECT_EQ(kept.front().transformation, ev.best()->transformation);

  // Checking the best again adds nothing.
  ev.check(all[0].transformation);
  EXPECT_EQ(ev.best_solutions().size(), Evaluator::kDefaultBestSolutions);
  EXPECT_NE(ev.best_solutions()[1].transformation, all[0].transformation);

  // Fewer kept on request; none at all turns the list off.
  ev.keep_best_solutions(3);
  ASSERT_EQ(ev.best_solutions().size(), 3u);
  EXPECT_EQ(ev.best_solutions()[2].transformation, all[2].transformation);
  Evaluator none(pr, SearchLimits{});
  none.keep_best_solutions(0);
  make_exhaustive_search()->run(none);
  EXPECT_TRUE(none.best_solutions().empty());
  EXPECT_TRUE(none.best().has_value());
}

TEST_F(BestSolutions, OnlySolutionsAreKept) {
  const auto p = prepare(job_);
  Evaluator ev(p->problem, SearchLimits{});
  const Lattice lattice = p->problem.lattice();
  ev.check(lattice.bottom());  // 3,000 records in 3 x 50 x 60 cells: not 8-anonymous within 3 %
  ASSERT_FALSE(ev.check(lattice.bottom()).solution);
  EXPECT_TRUE(ev.best_solutions().empty());
  ev.check(lattice.top());
  ASSERT_EQ(ev.best_solutions().size(), 1u);
  EXPECT_EQ(ev.best_solutions()[0].transformation, lattice.top());
}

TEST_F(BestSolutions, TheResultListsThemWithTheChosenFirst) {
  const Anonymization a = anonymize(job_);
  ASSERT_TRUE(a.found);
  const auto& sols = a.result["search"]["best_solutions"];
  ASSERT_EQ(sols.size(), 10u);
  EXPECT_EQ(sols[0]["transformation"], a.result["transformation"]);
  EXPECT_EQ(sols[0]["information_loss"], a.result["information_loss"]);
  EXPECT_EQ(sols[0]["suppressed_records"], a.result["suppressed_records"]);
  for (std::size_t i = 1; i < sols.size(); ++i) {
    EXPECT_GE(sols[i]["information_loss"].get<double>(), sols[i - 1]["information_loss"].get<double>()) << i;
    EXPECT_LE(sols[i]["suppressed_records"].get<std::uint64_t>(), a.result["suppression_limit_records"].get<std::uint64_t>());
    EXPECT_EQ(sols[i]["transformation"].size(), 3u);
  }
}

}  // namespace
}  // namespace deid
