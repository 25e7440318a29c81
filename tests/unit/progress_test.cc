// The progress line of `deid anonymize` on a terminal (cli/progress.h): what
// it shows in each phase, the bar and the ETA when the search estimates how
// far it is, checks and best loss when it does not, and that it never
// exceeds the terminal's width.
#include <gtest/gtest.h>

#include "../../cli/progress.h"

namespace deid::cli {
namespace {

TEST(ProgressLine, FormatsDurationsAndCounts) {
  EXPECT_EQ(format_duration(0), "0:00");
  EXPECT_EQ(format_duration(7.9), "0:07");
  EXPECT_EQ(format_duration(754), "12:34");
  EXPECT_EQ(format_duration(3723), "1:02:03");
  EXPECT_EQ(format_duration(-3), "0:00");
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(30058), "30,058");
  EXPECT_EQ(format_count(1234567), "1,234,567");
}

TEST(ProgressLine, NamesThePhaseAndTheTimeElapsedOutsideTheSearch) {
  for (auto [phase, name] : {std::pair{Phase::reading, "reading"}, std::pair{Phase::encoding, "encoding"},
                             std::pair{Phase::writing, "writing"}}) {
    ProgressState s;
    s.phase = phase;
    s.elapsed_seconds = 65;
    EXPECT_EQ(progress_line(s, 80), fmt::format("deid: {:<8} elapsed 1:05", name));
  }
}

TEST(ProgressLine, SearchWithAnEstimateShowsBarPercentageAndEta) {
  ProgressState s;
  s.phase = Phase::search;
  s.phase_seconds = 10;
  s.fraction_done = 0.25;
  s.checked = 1086;
  s.best_loss = 0.2419323;
  const std::string line = progress_line(s, 120);
  // 10 s for a quarter: 30 s left.
  ASSERT_TRUE(eta_seconds(s).has_value());
  EXPECT_DOUBLE_EQ(*eta_seconds(s), 30.0);
  EXPECT_NE(line.find(" 25.0 %  ETA 0:30  checked 1,086  best loss 0.241932"), std::string::npos) << line;
  const auto open = line.find('['), close = line.find(']');
  ASSERT_NE(open, std::string::npos);
  ASSERT_NE(close, std::string::npos);
  const std::string bar = line.substr(open + 1, close - open - 1);
  const auto filled = static_cast<std::size_t>(std::count(bar.begin(), bar.end(), '#'));
  EXPECT_EQ(bar.size(), 40u) << "a wide terminal gets the widest bar";
  EXPECT_EQ(filled, 10u) << bar;
  EXPECT_EQ(line.rfind("deid: search  ", 0), 0u) << line;
}

TEST(ProgressLine, NoEtaBeforeTheEstimateMeansAnything) {
  ProgressState s;
  s.phase = Phase::search;
  s.fraction_done = 0.005;
  s.phase_seconds = 3;
  EXPECT_FALSE(eta_seconds(s).has_value()) << "below 1 % done";
  s.fraction_done = 0.5;
  s.phase_seconds = 0.2;
  EXPECT_FALSE(eta_seconds(s).has_value()) << "before half a second";
  EXPECT_NE(progress_line(s, 100).find("ETA -:--"), std::string::npos);
  s.phase_seconds = 2;
  s.fraction_done = 1.0;
  EXPECT_DOUBLE_EQ(*eta_seconds(s), 0.0);
  s.phase = Phase::writing;
  EXPECT_FALSE(eta_seconds(s).has_value()) << "the ETA is the search's";
}

TEST(ProgressLine, SearchWithoutAnEstimateShowsChecksBestLossAndElapsed) {
  ProgressState s;
  s.phase = Phase::search;
  s.phase_seconds = 75;
  s.checked = 30058;
  EXPECT_EQ(progress_line(s, 100), "deid: search   checked 30,058  best loss none yet  elapsed 1:15");
  s.best_loss = 0.125;
  EXPECT_EQ(progress_line(s, 100), "deid: search   checked 30,058  best loss 0.125  elapsed 1:15");
  EXPECT_EQ(progress_line(s, 100).find('['), std::string::npos) << "no bar without an estimate";
}

TEST(ProgressLine, NeverReachesTheLastColumn) {
  ProgressState s;
  s.phase = Phase::search;
  s.phase_seconds = 100;
  s.fraction_done = 0.999;
  s.checked = 123456789;
  s.best_loss = 0.123456789;
  for (int width : {1, 2, 20, 40, 60, 80, 81, 200}) {
    const std::string line = progress_line(s, width);
    EXPECT_LE(line.size(), static_cast<std::size_t>(std::max(width - 1, 1))) << width;
  }
  // A narrow terminal shrinks the bar, down to ten cells.
  const std::string narrow = progress_line(s, 90);
  const auto open = narrow.find('['), close = narrow.find(']');
  ASSERT_NE(close, std::string::npos) << narrow;
  EXPECT_LT(close - open - 1, 40u);
  EXPECT_GE(close - open - 1, 10u);
}

}  // namespace
}  // namespace deid::cli
