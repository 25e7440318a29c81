// Reading PostgreSQL tables (docs/databases.md): a table as its CSV export,
// types and nulls as text, pushdown grouping, writing and escaping as the
// stream does.
#include "pg_fixture.h"

namespace {

using namespace pg_test;

TEST(Postgres, TableGivesWhatItsCsvExportGives) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult");
  load_adult(db, in);
  db.exec("ALTER TABLE " + q(in) + " DROP COLUMN line");
  const fs::path exported = temp("export.csv");
  {
    std::ofstream f(exported, std::ios::binary);
    f << db.copy_out("COPY " + q(in) + " TO STDOUT (FORMAT csv, HEADER true)");
  }
  PostgresTable src;
  src.connection = conninfo();
  src.table = in;
  const deid::Dataset a = deid::read_postgres(src);
  const deid::Dataset b = deid::read_dataset(exported.string(), deid::CsvOptions{','});
  ASSERT_EQ(a.rows, 30162u);
  ASSERT_EQ(a.rows, b.rows);
  ASSERT_EQ(a.columns.size(), b.columns.size());
  for (std::size_t c = 0; c < a.columns.size(); ++c) {
    EXPECT_EQ(a.columns[c].name, b.columns[c].name);
    ASSERT_EQ(a.columns[c].dictionary.size(), b.columns[c].dictionary.size());
    for (std::uint32_t v = 0; v < a.columns[c].dictionary.size(); ++v)
      EXPECT_EQ(a.columns[c].dictionary.value(v), b.columns[c].dictionary.value(v));
    EXPECT_EQ(a.columns[c].codes.to_vector(), b.columns[c].codes.to_vector());
  }
  EXPECT_EQ(a.sha256, b.sha256);  // the very bytes of the export
  EXPECT_EQ(a.bytes, b.bytes);

  deid::Job job = deid::read_job(deid::testing::example_path("adult.yaml"));
  job.input.path = exported.string();
  job.input.delimiter = ',';
  job.output.result.clear();
  const fs::path csv_out = temp("out.csv");
  job.output.path = csv_out.string();
  const deid::Anonymization from_csv = deid::anonymize(job);
  job.input.path.clear();
  job.input.postgres = src;
  const deid::Anonymization from_pg = deid::anonymize(job);  // still a CSV output
  ASSERT_TRUE(from_pg.found);
  EXPECT_EQ(comparable(from_pg.result).dump(2), comparable(from_csv.result).dump(2));
  EXPECT_EQ(from_pg.result["files"][1]["sha256"], from_csv.result["files"][1]["sha256"]);  // the same bytes
  fs::remove(exported);
  fs::remove(csv_out);
}

// Types: what the server's text output makes of them, the CSV path's value.
TEST(Postgres, TypesAndNullsReadAsTheirText) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string t = unique("types");
  db.exec("CREATE TABLE " + q(t) +
          " (i integer, b bigint, n numeric(8,2), r double precision, d date, ts timestamptz, f boolean, s text)");
  db.exec("INSERT INTO " + q(t) +
          " VALUES (-7, 9007199254740993, 1.5, 0.1, '2024-02-29', '2024-02-29 12:00:00+01', true, "
          "'a \"quoted\"; text\nwith a line break'), (NULL, NULL, NULL, NULL, NULL, NULL, NULL, ''), "
          "(0, 0, 0, 1e300, '0001-01-01', '2000-01-01 00:00:00+00', false, NULL)");
  PostgresTable src;
  src.connection = conninfo();
  src.query = "SELECT * FROM " + q(t) + " ORDER BY i NULLS LAST";
  const deid::Dataset ds = deid::read_postgres(src);
  ASSERT_EQ(ds.rows, 3u);
  auto cell = [&](std::size_t c, std::size_t r) { return ds.columns[c].dictionary.value(ds.columns[c].codes[r]); };
  const std::vector<std::vector<std::string>> expected = {
      {"-7", "9007199254740993", "1.50", "0.1", "2024-02-29", "2024-02-29 11:00:00+00", "t",
       "a \"quoted\"; text\nwith a line break"},
      {"0", "0", "0.00", "1e+300", "0001-01-01", "2000-01-01 00:00:00+00", "f", ""},
      {"", "", "", "", "", "", "", ""}};
  for (std::size_t r = 0; r < 3; ++r)
    for (std::size_t c = 0; c < 8; ++c) EXPECT_EQ(cell(c, r), expected[r][c]) << "row " << r << ", column " << c;
}

// --- Pushdown ------------------------------------------------------------------

// The histogram grouped by the server is the one deid builds from the rows
// it streams: the same dictionaries (values in the same order), entries,
// counts and sensitive distributions, for values of every type, NULLs, the
// empty string and padded char(n), with far fewer rows.
TEST(Postgres, PushdownGroupsAsTheRowsDo) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string t = unique("types");
  db.exec("CREATE TABLE " + q(t) +
          " (i integer, n numeric(8,2), d date, f boolean, c char(3), s text, v varchar(9), r double precision)");
  db.exec("INSERT INTO " + q(t) +
          " SELECT CASE WHEN g % 7 = 0 THEN NULL ELSE g % 5 END, (g % 3) / 2.0, DATE '2024-02-29' + g % 4, g % 2 = 0, "
          "CASE WHEN g % 6 = 0 THEN 'a' ELSE 'a b' END, CASE g % 5 WHEN 0 THEN NULL WHEN 1 THEN '' ELSE 'x\"' || g % 3 "
          "END, 'v' || g % 2, g % 3 * 0.1 FROM generate_series(1, 3000) AS g");
  PostgresTable src;
  src.connection = conninfo();
  src.query = "SELECT * FROM " + q(t) + " ORDER BY md5(i::text || n::text || d::text || r::text), f, c, s, v";
  const deid::Dataset rows = deid::read_postgres(src);
  deid::PostgresPushdown pd(src);
  ASSERT_EQ(pd.columns().size(), 8u);
  // Every column grouped except r, which is copied.
  std::vector<bool> grouped(8, true), copied(8, false);
  grouped[7] = false;
  copied[7] = true;
  const deid::Dataset g = pd.read(grouped, copied);
  ASSERT_TRUE(g.grouped());
  EXPECT_EQ(g.records(), 3000u);
  EXPECT_LT(g.rows, 400u);
  for (std::size_t c = 0; c < 7; ++c) {
    ASSERT_EQ(g.columns[c].name, rows.columns[c].name);
    ASSERT_EQ(g.columns[c].dictionary.size(), rows.columns[c].dictionary.size()) << g.columns[c].name;
    for (std::uint32_t v = 0; v < g.columns[c].dictionary.size(); ++v)
      EXPECT_EQ(g.columns[c].dictionary.value(v), rows.columns[c].dictionary.value(v)) << g.columns[c].name;
  }
  EXPECT_EQ(g.columns[7].dictionary.size(), 0u);  // no formula-like value
  EXPECT_TRUE(g.columns[7].codes.empty());
  const std::vector<int> qis = {0, 1, 2, 3, 4}, sensitive = {5, 6};
  deid::testing::expect_same_histogram(deid::build_histogram(rows, qis, sensitive),
                                       deid::build_histogram(g, qis, sensitive));
}

// A table (not a query) is grouped by its rows' positions (in parallel on
// large tables): the same dictionaries and histogram as COPY of the table
// gives, after updates moved rows around, and without the rows of a table
// that inherits from it (COPY reads the table ONLY).
TEST(Postgres, PushdownOfATableReadsWhatCopyReads) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string t = unique("heap"), child = unique("child");
  db.exec("CREATE TABLE " + q(t) + " (a integer, b text, c text)");
  db.exec("INSERT INTO " + q(t) + " SELECT g % 13, 'b' || g % 7, 'c' || g % 5 FROM generate_series(1, 20000) AS g");
  db.exec("UPDATE " + q(t) + " SET b = 'moved' WHERE a = 3");  // new row versions at the end of the table
  db.exec("DELETE FROM " + q(t) + " WHERE a = 5 AND b = 'b1'");
  db.exec("CREATE TABLE " + q(child) + " () INHERITS (" + q(t) + ")");
  db.exec("INSERT INTO " + q(child) + " VALUES (99, 'only in the child', 'x')");
  PostgresTable src;
  src.connection = conninfo();
  src.table = t;
  const deid::Dataset rows = deid::read_postgres(src);
  deid::PostgresPushdown pd(src);
  deid::Dataset g = pd.read({true, true, true}, {false, false, false});
  ASSERT_TRUE(g.grouped());
  EXPECT_EQ(g.records(), rows.rows);
  for (std::size_t c = 0; c < 3; ++c) {
    ASSERT_EQ(g.columns[c].dictionary.size(), rows.columns[c].dictionary.size()) << c;
    for (std::uint32_t v = 0; v < g.columns[c].dictionary.size(); ++v)
      EXPECT_EQ(g.columns[c].dictionary.value(v), rows.columns[c].dictionary.value(v)) << c;
  }
  EXPECT_EQ(rows.columns[0].dictionary.find("99"), -1);
  const deid::Histogram want = deid::build_histogram(rows, {0, 1, 2});
  deid::testing::expect_same_histogram(want, deid::build_histogram(g, {0, 1, 2}));
  // As prepare takes it: the grouped rows, row for entry.
  const std::optional<deid::Histogram> taken = deid::take_grouped_histogram(g, {0, 1, 2});
  ASSERT_TRUE(taken.has_value());
  deid::testing::expect_same_histogram(want, *taken);
}


// Rows added to and deleted from the input while deid searches are not
// in the release: the histogram and the release see one snapshot, so the
// released table has exactly the records the search protected.
TEST(Postgres, PushdownWritesTheRowsItGrouped) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("adult"), out = unique("out");
  load_adult(db, in);
  deid::Job job = adult_job(in, out, PostgresTable::Mode::create);
  ASSERT_TRUE(deid::uses_pushdown(job));
  deid::RunOptions options;
  bool changed = false;
  options.phase = [&](deid::Phase p) {
    if (p != deid::Phase::search || changed) return;
    Db other;
    // A unique record, which k = 5 would have to suppress, and 100 fewer records.
    other.exec("INSERT INTO " + q(in) + " SELECT 0, 'Female', 17, 'Other', 'Widowed', 'Doctorate', 'Vietnam', "
               "'Without-pay', 'Armed-Forces', '>50K' FROM generate_series(1, 3)");
    other.exec("DELETE FROM " + q(in) + " WHERE line <= 100");
    changed = true;
  };
  const deid::Anonymization a = deid::anonymize(job, options);
  ASSERT_TRUE(changed);
  ASSERT_TRUE(a.found);
  EXPECT_EQ(a.result["records"], 30162);
  EXPECT_EQ(db.value("SELECT count(*) FROM " + q(out)), "30162");
  EXPECT_EQ(db.value("SELECT count(*) FROM " + q(out) + " WHERE education = 'Doctorate' AND sex = 'Female' AND "
                     "\"native-country\" = 'Vietnam'"),
            "0");
}

// Formula-like values of copied columns are found by the server and
// decided by deid: the warnings and, with escape-formulas, the escaped
// cells are those of the streamed run.
TEST(Postgres, PushdownEscapesFormulasAsTheStreamDoes) {
  REQUIRE_CLUSTER();
  Db db;
  const std::string in = unique("formulas");
  db.exec("CREATE TABLE " + q(in) + " (line integer, zip text, note text, amount text)");
  std::string data;
  const std::vector<std::string> notes = {"=cmd()", "-5", "+1e999", "@x", "-", "", "plain", "+1.5e3", "-.5", "=1+2"};
  for (int i = 0; i < 200; ++i) {
    data += fmt::format("{},{},\"{}\",", i, 1000 + i % 2, notes[static_cast<std::size_t>(i) % notes.size()]);
    data += i % 3 ? fmt::format("-{}\n", i) : std::string("=SUM(A1)\n");
  }
  db.copy_in("COPY " + q(in) + " FROM STDIN (FORMAT csv)", data);
  const fs::path dir = temp("formula");
  fs::create_directories(dir);
  std::ofstream(dir / "zip.csv") << "1000;100*;*\n1001;100*;*\n";
  for (const bool escape : {false, true}) {
    std::vector<std::vector<std::string>> tables;
    std::vector<nlohmann::json> results;
    for (const bool pushdown : {false, true}) {
      const std::string out = unique(escape ? (pushdown ? "out_ep" : "out_e") : (pushdown ? "out_p" : "out"));
      const std::string text = "input:\n  postgres:\n    connection: \"" + conninfo() + "\"\n    query: 'SELECT zip, "
                               "note, amount FROM " + q(in) + " ORDER BY line'\n    pushdown: " +
                               (pushdown ? "true" : "false") +
                               "\nattributes:\n  zip: {role: quasi-identifying, hierarchy: zip.csv}\n"
                               "default-role: insensitive\nprivacy:\n  - k-anonymity: {k: 5}\noutput:\n  postgres: "
                               "{table: " + out + "}\n  escape-formulas: " + (escape ? "true" : "false") + "\n";
      const deid::Job job = deid::parse_job(text, "formula.yaml", dir.string());
      ASSERT_EQ(deid::uses_pushdown(job), pushdown);
      const deid::Anonymization a = deid::anonymize(job);
      ASSERT_TRUE(a.found);
      tables.push_back(table_rows(db, q(out)));
      results.push_back(comparable(a.result));
    }
    EXPECT_EQ(tables[0], tables[1]) << "escape " << escape;
    EXPECT_EQ(results[0].dump(2), results[1].dump(2)) << "escape " << escape;
    EXPECT_EQ(results[1]["warnings"].size(), escape ? 0u : 2u) << results[1]["warnings"].dump();
    if (escape) {
      EXPECT_NE(std::find(tables[1].begin(), tables[1].end(), "1000\x1f'=cmd()\x1f'=SUM(A1)"), tables[1].end());
    }
  }
  fs::remove_all(dir);
}

// deid suppress reads a table and writes its release (computed row by row)
// to a table: the rows of the run from the CSV file to a file, and the same
// result.

}  // namespace
