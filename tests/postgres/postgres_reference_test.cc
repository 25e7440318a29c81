// ARX's reference runs on a PostgreSQL table, streamed and pushed down: the
// same result and rows as the CSV file; what needs the rows streams them.
#include "pg_fixture.h"

namespace {

using namespace pg_test;

class ReferenceFromTable : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

// Every ARX reference run of adult, read from a table (in the file's order)
// and written to a table, gives the result and the released rows of the
// run on adult.csv: grouped and written by the database (pushdown), and
// streamed through deid.
TEST_P(ReferenceFromTable, SameResultAndRowsAsTheCsvFile) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("released");
  load_adult(db, in);
  const bool pushdown = std::get<1>(GetParam());

  const nlohmann::json& run = deid::testing::arx_adult_run(std::get<0>(GetParam()));
  deid::Job csv_job = deid::testing::arx_adult_job(run);
  const fs::path csv_out = temp("released.csv");
  csv_job.output.path = csv_out.string();
  const deid::Anonymization from_csv = deid::anonymize(csv_job);

  deid::Job pg_job = on_tables(deid::testing::arx_adult_job(run), adult_query(in), out);
  pg_job.input.postgres->pushdown = pushdown;
  ASSERT_EQ(deid::uses_pushdown(pg_job), pushdown);
  const deid::Anonymization from_pg = deid::anonymize(pg_job);

  EXPECT_EQ(comparable(from_pg.result).dump(2), comparable(from_csv.result).dump(2));
  ASSERT_EQ(from_pg.found, from_csv.found);
  if (from_csv.found && pushdown) {
    EXPECT_TRUE(from_pg.result["utility"].contains("skipped")) << from_pg.result["utility"].dump();
  } else if (from_csv.found) {
    EXPECT_EQ(from_pg.result["utility"].dump(), from_csv.result["utility"].dump());
  }
  // Same CSV bytes sent to the server as written to the file (delimiters aside).
  ASSERT_EQ(from_pg.result["files"].size(), from_csv.result["files"].size());
  if (from_csv.found) {
    EXPECT_EQ(table_rows(db, q(out)), rows_of(deid::testing::slurp(csv_out.string()), ';'));
    EXPECT_EQ(from_pg.result["files"][1]["path"], deid::describe(*pg_job.output.postgres));
    if (pushdown) {
      EXPECT_EQ(from_pg.result["files"][1]["pushdown"], "database");
      EXPECT_EQ(from_pg.result["files"][1]["rows"], 30162);
      EXPECT_EQ(from_pg.result["files"][0]["pushdown"], "histogram");
    } else {
      EXPECT_FALSE(from_pg.result["files"][1].contains("pushdown"));
    }
  } else {
    EXPECT_EQ(db.value("SELECT to_regclass('" + q(out) + "') IS NULL"), "t");
  }
  EXPECT_EQ(from_pg.result["files"][0]["path"], deid::describe(*pg_job.input.postgres));
  fs::remove(csv_out);
}

// `job` reading the adult table `in` of the test cluster (in its file's
// line order) and writing the table `out` there, with pushdown.
deid::Job adult_table_job(deid::Job job, const std::string& in, const std::string& out) {
  return on_tables(std::move(job), adult_query(in), out);
}

// KL divergence sums over the records in input order (ARX's bits): with
// pushdown the job is refused before any table is written, naming the way
// out; streamed, it gives the CSV path's result.
TEST(Postgres, KlDivergenceNeedsTheRows) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("released");
  load_adult(db, in);
  deid::Job csv_job = deid::testing::arx_adult_job(deid::testing::arx_adult_run("adult_k5_loss"));
  csv_job.quality.model = "kl-divergence";
  csv_job.quality.aggregate.reset();
  csv_job.search.max_checks = 40;
  const deid::Anonymization from_csv = deid::anonymize(csv_job);

  deid::Job pg_job = adult_table_job(csv_job, in, out);
  try {
    deid::anonymize(pg_job);
    ADD_FAILURE() << "kl-divergence with pushdown was accepted";
  } catch (const deid::JobError& e) {
    EXPECT_NE(std::string(e.what()).find("kl-divergence"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("pushdown: false"), std::string::npos) << e.what();
  }
  EXPECT_EQ(db.value("SELECT to_regclass('" + q(out) + "') IS NULL"), "t");

  pg_job.input.postgres->pushdown = false;
  const deid::Anonymization from_pg = deid::anonymize(pg_job);
  EXPECT_EQ(from_pg.result["information_loss"], from_csv.result["information_loss"]);
  EXPECT_EQ(from_pg.result["transformation"], from_csv.result["transformation"]);
}

// A research subset (docs/privacy-models.md) needs the rows: read from a
// table and streamed, the release (to a table) is the CSV path's; with
// pushdown the job is refused at its `subset` line, naming the way out.
TEST(Postgres, ResearchSubsetStreamsTheRows) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("released");
  load_adult(db, in);
  const nlohmann::json& run = deid::testing::arx_adult_run("adult_k5_loss");
  deid::Job csv_job = deid::testing::arx_adult_job(run);
  csv_job.subset = deid::Job::Subset{};
  csv_job.subset->column = "marital-status";
  csv_job.subset->value = "Never-married";
  csv_job.subset->line = 1;
  const fs::path csv_out = temp("subset.csv");
  csv_job.output.path = csv_out.string();
  const deid::Anonymization from_csv = deid::anonymize(csv_job);
  ASSERT_TRUE(from_csv.found);
  ASSERT_TRUE(from_csv.result.contains("subset"));

  deid::Job pg_job = adult_table_job(csv_job, in, out);
  try {
    deid::anonymize(pg_job);
    ADD_FAILURE() << "a subset with pushdown was accepted";
  } catch (const deid::JobError& e) {
    EXPECT_NE(std::string(e.what()).find("pushdown: false"), std::string::npos) << e.what();
  }
  EXPECT_EQ(db.value("SELECT to_regclass('" + q(out) + "') IS NULL"), "t");

  pg_job.input.postgres->pushdown = false;
  const deid::Anonymization from_pg = deid::anonymize(pg_job);
  EXPECT_EQ(comparable(from_pg.result).dump(2), comparable(from_csv.result).dump(2));
  EXPECT_EQ(table_rows(db, q(out)), rows_of(deid::testing::slurp(csv_out.string()), ';'));
  fs::remove(csv_out);
}

std::vector<std::string> reference_runs() {
  std::vector<std::string> names;
  for (const auto& run : deid::testing::arx_adult_runs()) names.push_back(run["name"].get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Postgres, ReferenceFromTable,
                         ::testing::Combine(::testing::ValuesIn(reference_runs()), ::testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + (std::get<1>(info.param) ? "_pushdown" : "_streamed");
                         });

// A table read as a table (no ORDER BY: the server's order) gives the
// Dataset, the result and the rows of the CSV that COPY ... TO exports
// from it.

}  // namespace
