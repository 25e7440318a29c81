// The job file (docs/job-file.md): what parse_job accepts, what it rejects
// (unknown keys with their name and line at every level, wrong types, values
// out of range, missing keys, impossible combinations), how paths resolve,
// and the checks prepare() makes against the data.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/job.h"
#include "deid/location.h"
#include "deid/pipeline.h"

namespace deid {
namespace {

// A valid job; tests append to it or replace parts. Line numbers matter.
const std::string kHead =
    "input:\n"                                                       // 1
    "  path: data.csv\n"                                             // 2
    "attributes:\n"                                                  // 3
    "  age: {role: quasi-identifying, hierarchy: h/age.csv}\n"       // 4
    "  disease: {role: sensitive, hierarchy: h/disease.csv}\n"       // 5
    "  name: {role: identifying}\n"                                  // 6
    "privacy:\n"                                                     // 7
    "  - k-anonymity: {k: 2}\n";                                     // 8

Job parse(const std::string& text) { return parse_job(text, "job.yaml", "/base"); }

JobError job_error(const std::string& text) {
  try {
    parse(text);
  } catch (const JobError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a JobError for:\n" << text;
  return JobError(Location{}, "none");
}

// The error for `text` names `needle` on `line` of job.yaml.
void expect_rejected(const std::string& text, const std::string& needle, std::uint64_t line) {
  const JobError e = job_error(text);
  EXPECT_EQ(e.where().file, "job.yaml");
  EXPECT_NE(e.problem().find(needle), std::string::npos) << "message: " << e.what() << "\njob:\n" << text;
  EXPECT_EQ(e.where().line, line) << "message: " << e.what() << "\njob:\n" << text;
}

// --- What is accepted ------------------------------------------------------

TEST(JobParse, MinimalJobGetsArxDefaults) {
  const Job job = parse(kHead);
  EXPECT_EQ(job.path, "job.yaml");
  EXPECT_EQ(job.input.path, "/base/data.csv");
  EXPECT_FALSE(job.input.delimiter.has_value());
  ASSERT_EQ(job.attributes.size(), 3u);
  EXPECT_EQ(job.attributes[0].name, "age");
  EXPECT_EQ(job.attributes[0].role, Role::quasi_identifying);
  EXPECT_EQ(job.attributes[0].hierarchy, "/base/h/age.csv");
  EXPECT_EQ(job.attributes[0].line, 4u);
  EXPECT_EQ(job.attributes[2].role, Role::identifying);
  EXPECT_FALSE(job.default_role.has_value());
  ASSERT_EQ(job.privacy.size(), 1u);
  EXPECT_EQ(std::get<KAnonymitySpec>(job.privacy[0]).k, 2u);
  EXPECT_EQ(job.suppression_limit, 0.0);
  EXPECT_EQ(job.quality.model, "loss");
  EXPECT_FALSE(job.quality.aggregate.has_value());
  EXPECT_EQ(job.quality.gs_factor, 0.5);
  EXPECT_EQ(job.search.algorithm, SearchSpec::Algorithm::automatic);
  EXPECT_FALSE(job.search.time_limit_seconds.has_value());
  EXPECT_FALSE(job.search.max_checks.has_value());
  EXPECT_EQ(job.search.memory, SearchSpec::Memory::automatic);
  EXPECT_TRUE(job.output.path.empty());
  EXPECT_TRUE(job.output.result.empty());
}

TEST(JobParse, EveryKeyIsRead) {
  const Job job = parse(
      "input: {path: in/data.csv, delimiter: ';'}\n"
      "attributes:\n"
      "  age: {role: quasi-identifying, hierarchy: h/age.csv}\n"
      "  disease: {role: sensitive, hierarchy: /abs/disease.csv}\n"
      "  income: {role: sensitive, order: [low, mid, high]}\n"
      "  job: {role: sensitive}\n"
      "default-role: insensitive\n"
      "privacy:\n"
      "  - k-anonymity: {k: 5}\n"
      "  - l-diversity: {attribute: disease, variant: recursive, l: 3, c: 2.5}\n"
      "  - l-diversity: {attribute: job, variant: entropy, l: 1.5}\n"
      "  - t-closeness: {attribute: income, distance: ordered, t: 0.2}\n"
      "  - t-closeness: {attribute: disease, distance: hierarchical, t: 0.3}\n"
      "  - population-uniqueness: {threshold: 0.01, population-size: 318.9e6, estimator: pitman}\n"
      "suppression-limit: 0.05\n"
      "quality: {model: loss, aggregate: arithmetic-mean, gs-factor: 0.25}\n"
      "search: {algorithm: best-first, time-limit: 2m, max-checks: 1000, memory: bounded}\n"
      "output: {path: out/d.csv, result: out/d.json, delimiter: '\\t'}\n");
  EXPECT_EQ(job.input.path, "/base/in/data.csv");
  EXPECT_EQ(job.input.delimiter, ';');
  EXPECT_EQ(job.attributes[1].hierarchy, "/abs/disease.csv");
  EXPECT_EQ(job.attributes[2].order, (std::vector<std::string>{"low", "mid", "high"}));
  EXPECT_EQ(job.default_role, Role::insensitive);
  ASSERT_EQ(job.privacy.size(), 6u);
  EXPECT_EQ(std::get<KAnonymitySpec>(job.privacy[0]).k, 5u);
  const auto& rl = std::get<LDiversitySpec>(job.privacy[1]);
  EXPECT_EQ(rl.attribute, "disease");
  EXPECT_EQ(rl.variant, LDiversitySpec::Variant::recursive);
  EXPECT_EQ(rl.l, 3);
  EXPECT_EQ(rl.c, 2.5);
  EXPECT_EQ(std::get<LDiversitySpec>(job.privacy[2]).l, 1.5);
  const auto& tc = std::get<TClosenessSpec>(job.privacy[3]);
  EXPECT_EQ(tc.attribute, "income");
  EXPECT_EQ(tc.distance, TClosenessSpec::Distance::ordered);
  EXPECT_EQ(tc.t, 0.2);
  EXPECT_EQ(std::get<TClosenessSpec>(job.privacy[4]).distance, TClosenessSpec::Distance::hierarchical);
  const auto& pu = std::get<PopulationUniquenessSpec>(job.privacy[5]);
  EXPECT_EQ(pu.threshold, 0.01);
  EXPECT_EQ(pu.population_size, 318.9e6);
  EXPECT_EQ(pu.estimator, PopulationUniquenessSpec::Estimator::pitman);
  EXPECT_EQ(job.suppression_limit, 0.05);
  EXPECT_EQ(job.quality.aggregate, Aggregate::arithmetic_mean);
  EXPECT_EQ(job.quality.gs_factor, 0.25);
  EXPECT_EQ(job.search.algorithm, SearchSpec::Algorithm::best_first);
  EXPECT_EQ(job.search.time_limit_seconds, 120.0);
  EXPECT_EQ(job.search.max_checks, 1000u);
  EXPECT_EQ(job.search.memory, SearchSpec::Memory::bounded);
  EXPECT_EQ(job.output.path, "/base/out/d.csv");
  EXPECT_EQ(job.output.result, "/base/out/d.json");
  EXPECT_EQ(job.output.delimiter, '\t');
}

TEST(JobParse, ExampleJobParses) {
  const Job job = read_job(std::string(DEID_EXAMPLES_DIR) + "/adult.yaml");
  EXPECT_EQ(job.attributes.size(), 9u);
  EXPECT_EQ(job.input.delimiter, ';');
  EXPECT_EQ(std::filesystem::path(job.input.path), std::filesystem::path(DEID_EXAMPLES_DIR) / "adult/adult.csv");
}

TEST(JobParse, PathsResolveRelativeToTheJobFile) {
  const auto dir = std::filesystem::temp_directory_path() / ("deid_job_test_paths-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "sub");
  const auto file = dir / "sub" / "job.yaml";
  {
    std::FILE* f = std::fopen(file.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs(
        "input: {path: ../data.csv}\n"
        "attributes:\n"
        "  age: {role: quasi-identifying, hierarchy: h/age.csv}\n"
        "privacy: [{k-anonymity: {k: 2}}]\n"
        "output: {path: out.csv, result: /tmp/abs.json}\n",
        f);
    std::fclose(f);
  }
  const Job job = read_job(file.string());
  EXPECT_EQ(job.input.path, (dir / "data.csv").string());
  EXPECT_EQ(job.attributes[0].hierarchy, (dir / "sub" / "h" / "age.csv").string());
  EXPECT_EQ(job.output.path, (dir / "sub" / "out.csv").string());
  EXPECT_EQ(job.output.result, "/tmp/abs.json");
  std::filesystem::remove_all(dir);
}

TEST(JobParse, WithoutABaseDirectoryPathsStayAsWritten) {
  EXPECT_EQ(parse_job(kHead, "job.yaml", "").input.path, "data.csv");
}

TEST(JobParse, ParquetTablesAreFilesOfTheirFormat) {
  const std::string rest = kHead.substr(kHead.find("attributes:"));
  const Job job = parse("input:\n  parquet: in/data.parquet\n" + rest +
                        "output:\n  parquet: out.parquet\n  result: r.json\n");
  EXPECT_EQ(job.input.path, "/base/in/data.parquet");
  EXPECT_EQ(job.input.format, TableFormat::parquet);
  EXPECT_EQ(job.output.path, "/base/out.parquet");
  EXPECT_EQ(job.output.format, TableFormat::parquet);
  const Job csv = parse(kHead + "output:\n  path: out.csv\n");
  EXPECT_EQ(csv.input.format, TableFormat::csv);
  EXPECT_EQ(csv.output.format, TableFormat::csv);
  // A file on the command line: by its name.
  EXPECT_EQ(table_format_of("x.parquet"), TableFormat::parquet);
  EXPECT_EQ(table_format_of("dir/X.PARQUET"), TableFormat::parquet);
  EXPECT_EQ(table_format_of("x.parquet.csv"), TableFormat::csv);
  EXPECT_EQ(table_format_of(".parquet"), TableFormat::csv);
  EXPECT_EQ(table_format_of("x.csv"), TableFormat::csv);
}

TEST(JobParse, AFileReplacesTheJobsTables) {
  const std::string rest = kHead.substr(kHead.find("attributes:"));
  Job db = parse("input:\n  postgres: {table: a, connection: \"dbname=x\"}\n" + rest +
                 "output:\n  postgres: {table: b, mode: replace}\n");
  db.input.use_file("in.parquet");
  db.output.use_file("dir/OUT.PARQUET");
  EXPECT_EQ(db.input.path, "in.parquet");
  EXPECT_EQ(db.input.format, TableFormat::parquet);
  EXPECT_FALSE(db.input.postgres);
  EXPECT_EQ(db.output.path, "dir/OUT.PARQUET");
  EXPECT_EQ(db.output.format, TableFormat::parquet);
  EXPECT_FALSE(db.output.postgres);
  // A Spark table, and a Parquet file replaced by a CSV file.
  Job spark = parse("input:\n  table: a\n" + rest + "output:\n  table: b\n  mode: append\n");
  spark.input.use_file("in.csv");
  spark.output.use_file("out.csv");
  EXPECT_EQ(spark.input.path, "in.csv");
  EXPECT_EQ(spark.input.format, TableFormat::csv);
  EXPECT_TRUE(spark.input.table.empty());
  EXPECT_EQ(spark.output.path, "out.csv");
  EXPECT_TRUE(spark.output.table.empty());
  EXPECT_EQ(spark.output.table_mode, "create");
  Job parquet = parse("input:\n  parquet: in.parquet\n" + rest + "output:\n  parquet: out.parquet\n");
  parquet.input.use_file("in.csv");
  parquet.output.use_file("out.csv");
  EXPECT_EQ(parquet.input.format, TableFormat::csv);
  EXPECT_EQ(parquet.output.format, TableFormat::csv);
}

TEST(JobParse, UrlsAreKeptAsWrittenAndOnlyDeidSparkTakesThem) {
  EXPECT_TRUE(is_url("hdfs://namenode:8020/data/survey.parquet"));
  EXPECT_TRUE(is_url("s3a://bucket/x"));
  EXPECT_TRUE(is_url("viewfs+x.y-z://c/x"));
  EXPECT_FALSE(is_url("data/survey.parquet"));
  EXPECT_FALSE(is_url("://x"));
  EXPECT_FALSE(is_url("1hdfs://x"));
  EXPECT_FALSE(is_url("dir with space://x"));
  EXPECT_FALSE(is_url("C:\\data"));
  const std::string rest = kHead.substr(kHead.find("attributes:"));
  Job job = parse("input:\n  parquet: hdfs://nn:8020/in.parquet\n" + rest +
                  "output:\n  parquet: viewfs://c/out.parquet\n  result: r.json\n");
  EXPECT_EQ(job.input.path, "hdfs://nn:8020/in.parquet");
  EXPECT_EQ(job.output.path, "viewfs://c/out.parquet");
  EXPECT_EQ(job.output.result, "/base/r.json");
  EXPECT_EQ(parse("input:\n  path: s3a://b/in.csv\n" + rest).input.path, "s3a://b/in.csv");
  // The deid command (every caller that lists a job's files) refuses them.
  try {
    job_reads(job);
    FAIL() << "a URL input was accepted";
  } catch (const JobError& e) {
    EXPECT_NE(std::string(e.what()).find("the input is a URL (hdfs://nn:8020/in.parquet), which only deid.spark"),
              std::string::npos) << e.what();
  }
  job.input.use_file("in.csv");
  EXPECT_THROW(job_writes(job), JobError);
  job.output.use_file("out.csv");
  EXPECT_NO_THROW(job_writes(job));
}

TEST(JobErrors, ParquetTablesAreOneSourceOrTargetWithoutADelimiter) {
  const std::string rest = kHead.substr(kHead.find("attributes:"));
  expect_rejected("input:\n  path: a.csv\n  parquet: a.parquet\n" + rest, "input has one of 'path'", 2);
  expect_rejected("input:\n  parquet: a.parquet\n  delimiter: ';'\n" + rest, "not of a Parquet file", 3);
  expect_rejected(kHead + "output:\n  path: a.csv\n  parquet: a.parquet\n", "output has one of 'path'", 10);
  expect_rejected(kHead + "output:\n  parquet: a.parquet\n  delimiter: ';'\n", "not of a Parquet file", 11);
  expect_rejected("input:\n  parquet: a.parquet\n" + rest + "output:\n  parquet: a.parquet\n",
                  "output.parquet is the input file", 10);
  expect_rejected(kHead + "output:\n  parquet: a.parquet\n  result: a.parquet\n",
                  "output.result is the same file as output.parquet", 11);
}

TEST(JobParse, DelimiterSpellings) {
  auto delim = [](const std::string& d) { return *parse("input: {path: d.csv, delimiter: " + d + "}\n" + kHead.substr(kHead.find("attributes"))).input.delimiter; };
  EXPECT_EQ(delim("';'"), ';');
  EXPECT_EQ(delim("\"\\t\""), '\t');  // YAML escape: a real tab
  EXPECT_EQ(delim("'\\t'"), '\t');    // backslash-t as written
  EXPECT_EQ(delim("tab"), '\t');
  EXPECT_EQ(delim("'|'"), '|');
}

TEST(JobParse, TimeLimitFormats) {
  auto limit = [](const std::string& v) {
    return *parse(kHead + "search: {time-limit: " + v + "}\n").search.time_limit_seconds;
  };
  EXPECT_EQ(limit("60s"), 60.0);
  EXPECT_EQ(limit("2m"), 120.0);
  EXPECT_EQ(limit("1.5m"), 90.0);
  EXPECT_EQ(limit("1h"), 3600.0);
  EXPECT_EQ(limit("500ms"), 0.5);
  EXPECT_EQ(limit("90"), 90.0);
  EXPECT_EQ(limit("2.5"), 2.5);
  for (const char* bad : {"0s", "-1s", "fast", "10 parsecs", "s", "ms", "1m30s", "1e999s", "0x10"})
    expect_rejected(kHead + "search: {time-limit: " + bad + "}\n", "time-limit must be a positive duration", 9);
}

// --- Unknown and duplicate keys, at every level -----------------------------

TEST(JobErrors, UnknownKeysAreRejectedWithNameAndLineAtEveryLevel) {
  struct Case {
    std::string job;
    std::string key;
    std::uint64_t line;
  };
  const std::string attrs =
      "attributes:\n"
      "  age: {role: quasi-identifying, hierarchy: h.csv}\n"
      "  disease: {role: sensitive, hierarchy: d.csv}\n";
  const std::string k = "privacy:\n  - k-anonymity: {k: 2}\n";
  const std::vector<Case> cases = {
      {kHead + "colour: red\n", "colour", 9},
      {"input:\n  path: d.csv\n  delimeter: ';'\n" + attrs + k, "delimeter", 3},
      {"input: {path: d.csv}\nattributes:\n  age: {role: quasi-identifying, hierarchy: h.csv, levels: 3}\n" + k,
       "levels", 3},
      {"input: {path: d.csv}\n" + attrs + "privacy:\n  - k-anonymity: {k: 2, kk: 3}\n", "kk", 6},
      {"input: {path: d.csv}\n" + attrs + "privacy:\n  - l-diversity: {attribute: disease, l: 2, ll: 3}\n", "ll", 6},
      {"input: {path: d.csv}\n" + attrs + "privacy:\n  - t-closeness: {attribute: disease, t: 0.2, tt: 3}\n", "tt",
       6},
      {"input: {path: d.csv}\n" + attrs +
           "privacy:\n  - population-uniqueness:\n      threshold: 0.1\n      population-size: 1000\n"
           "      estimater: pitman\n",
       "estimater", 9},
      {kHead + "quality:\n  model: loss\n  gs_factor: 0.5\n", "gs_factor", 11},
      {kHead + "search: {algorithm: auto, timelimit: 5s}\n", "timelimit", 9},
      {kHead + "output:\n  path: o.csv\n  results: o.json\n", "results", 11},
  };
  for (const auto& c : cases) expect_rejected(c.job, "unknown key '" + c.key + "'", c.line);
}

TEST(JobErrors, UnknownKeyMessageListsTheAllowedKeys) {
  const JobError e = job_error(kHead + "search: {algoritm: auto}\n");
  EXPECT_EQ(e.problem(),
            "unknown key 'algoritm' in search (allowed: algorithm, time-limit, max-checks, transformation, memory, "
            "heuristic-threshold, warm-start, max-queue, subpopulation-size, elite-fraction, crossover-fraction, mutation-probability, "
            "immigration-fraction, immigration-interval, production-fraction, iterations, seed)");
  EXPECT_EQ(e.where().column, 10u);
}

TEST(JobErrors, KeyGivenTwiceIsRejected) {
  expect_rejected(kHead + "suppression-limit: 0.1\nsuppression-limit: 0.2\n", "key 'suppression-limit' is given twice",
                  10);
  expect_rejected(kHead + "search: {algorithm: auto, algorithm: exhaustive}\n", "key 'algorithm' is given twice", 9);
}

TEST(JobErrors, AttributeListedTwiceIsRejected) {
  expect_rejected(kHead.substr(0, kHead.find("privacy")) + "  age: {role: insensitive}\nprivacy: [{k-anonymity: {k: 2}}]\n",
                  "attribute 'age' is listed twice", 7);
}

// --- Types ------------------------------------------------------------------

TEST(JobErrors, WrongTypesAreRejected) {
  expect_rejected(kHead + "suppression-limit: lots\n", "suppression-limit must be a number, got 'lots'", 9);
  expect_rejected(kHead + "suppression-limit: [0.1]\n", "suppression-limit must be a number", 9);
  expect_rejected("input: {path: d.csv}\nattributes: {age: {role: [quasi-identifying]}}\nprivacy: [{k-anonymity: {k: 2}}]\n",
                  "role must be a string", 2);
  expect_rejected("input: {path: d.csv}\nattributes: [age]\nprivacy: [{k-anonymity: {k: 2}}]\n",
                  "attributes must be a mapping", 2);
  expect_rejected("input: {path: d.csv}\nattributes: {age: insensitive}\nprivacy: [{k-anonymity: {k: 2}}]\n",
                  "attribute 'age' must be a mapping", 2);
  expect_rejected("input: {path: d.csv}\nprivacy:\n  k-anonymity: {k: 2}\n", "privacy must be a list", 3);
  expect_rejected("input: {path: d.csv}\nprivacy:\n  - k-anonymity: 5\n", "k-anonymity must be a mapping", 3);
  expect_rejected("input: {path: d.csv}\nprivacy:\n  - {k-anonymity: {k: 2}, l-diversity: {l: 2}}\n",
                  "each entry of 'privacy' must be a mapping with one model", 3);
  expect_rejected(kHead + "search: {max-checks: many}\n", "max-checks must be a number", 9);
  expect_rejected("input: d.csv\nprivacy: [{k-anonymity: {k: 2}}]\n", "input must be a mapping", 1);
  expect_rejected("input: {path: [a, b]}\nprivacy: [{k-anonymity: {k: 2}}]\n", "input.path must be a string", 1);
  expect_rejected(kHead + "quality: loss\n", "quality must be a mapping", 9);
  expect_rejected("- just\n- a list\n", "the job must be a mapping", 1);
}

// The utility analysis (docs/utility.md) is on unless output.utility is false.
TEST(JobParse, OutputUtilityIsOnByDefaultAndOffWhenFalse) {
  EXPECT_TRUE(parse(kHead).output.utility);
  EXPECT_TRUE(parse(kHead + "output: {result: r.json}\n").output.utility);
  EXPECT_FALSE(parse(kHead + "output: {result: r.json, utility: false}\n").output.utility);
  EXPECT_TRUE(parse(kHead + "output: {utility: true}\n").output.utility);
  expect_rejected(kHead + "output: {utility: sometimes}\n", "output.utility", 9);
}

TEST(JobErrors, BadDelimitersAreRejected) {
  for (const char* d : {"',,'", "'\"'", "''"})
    expect_rejected("input: {path: d.csv, delimiter: " + std::string(d) + "}\nprivacy: [{k-anonymity: {k: 2}}]\n",
                    "delimiter must be a single character", 1);
}

// --- Ranges -------------------------------------------------------------------

TEST(JobErrors, ValuesOutOfRangeAreRejected) {
  const std::string pre =
      "input: {path: d.csv}\n"
      "attributes: {d: {role: sensitive, hierarchy: d.csv2}}\n"
      "privacy:\n";  // the model is on line 4
  expect_rejected(pre + "  - k-anonymity: {k: 0}\n", "k must be an integer >= 1, got 0", 4);
  expect_rejected(pre + "  - k-anonymity: {k: 2.5}\n", "k must be an integer >= 1, got 2.5", 4);
  expect_rejected(pre + "  - k-anonymity: {k: -3}\n", "k must be an integer >= 1", 4);
  expect_rejected(pre + "  - l-diversity: {attribute: d, l: 0.5}\n", "l must be >= 1, got 0.5", 4);
  expect_rejected(pre + "  - l-diversity: {attribute: d, l: 2.5}\n", "l must be an integer for variant distinct", 4);
  expect_rejected(pre + "  - l-diversity: {attribute: d, variant: recursive, l: 2.5, c: 1}\n",
                  "l must be an integer for variant recursive", 4);
  expect_rejected(pre + "  - l-diversity: {attribute: d, variant: recursive, l: 2, c: 0}\n", "c must be > 0", 4);
  expect_rejected(pre + "  - t-closeness: {attribute: d, t: 1.5}\n", "t must be in [0, 1], got 1.5", 4);
  expect_rejected(pre + "  - t-closeness: {attribute: d, t: -0.1}\n", "t must be in [0, 1]", 4);
  expect_rejected(pre + "  - population-uniqueness: {threshold: 2, population-size: 100}\n",
                  "threshold must be in [0, 1], got 2", 4);
  expect_rejected(pre + "  - population-uniqueness: {threshold: 0.1, population-size: 0}\n",
                  "population-size must be >= 1", 4);
  expect_rejected(pre + "  - population-uniqueness: {threshold: 0.1, population-size: .nan}\n",
                  "population-size must be a number", 4);
  expect_rejected(kHead + "suppression-limit: 1.5\n", "suppression-limit must be in [0, 1], got 1.5", 9);
  expect_rejected(kHead + "suppression-limit: -0.01\n", "suppression-limit must be in [0, 1]", 9);
  expect_rejected(kHead + "quality: {gs-factor: 2}\n", "gs-factor must be in [0, 1], got 2", 9);
  expect_rejected(kHead + "search: {max-checks: 0}\n", "max-checks must be an integer >= 1, got 0", 9);
}

// --- Missing keys ---------------------------------------------------------------

TEST(JobErrors, MissingRequiredKeysAreNamed) {
  const std::string attrs = "attributes: {d: {role: sensitive}}\n";
  expect_rejected("privacy: [{k-anonymity: {k: 2}}]\n", "the job needs 'input' with a 'path'", 1);
  expect_rejected("input: {delimiter: ';'}\nprivacy: [{k-anonymity: {k: 2}}]\n", "input needs 'path'", 1);
  expect_rejected("input: {path: d.csv}\n", "the job needs at least one privacy model under 'privacy'", 1);
  expect_rejected("input: {path: d.csv}\nprivacy: []\n", "the job needs at least one privacy model", 1);
  expect_rejected("input: {path: d.csv}\nprivacy:\n  - k-anonymity: {}\n", "k-anonymity needs 'k'", 3);
  expect_rejected("input: {path: d.csv}\n" + attrs + "privacy:\n  - l-diversity: {l: 2}\n",
                  "l-diversity needs 'attribute'", 4);
  expect_rejected("input: {path: d.csv}\n" + attrs + "privacy:\n  - l-diversity: {attribute: d}\n",
                  "l-diversity needs 'l'", 4);
  expect_rejected("input: {path: d.csv}\n" + attrs + "privacy:\n  - l-diversity: {attribute: d, variant: recursive, l: 2}\n",
                  "recursive (c,l)-diversity needs 'c'", 4);
  expect_rejected("input: {path: d.csv}\n" + attrs + "privacy:\n  - t-closeness: {attribute: d}\n",
                  "t-closeness needs 't'", 4);
  expect_rejected("input: {path: d.csv}\n" + attrs + "privacy:\n  - population-uniqueness: {threshold: 0.1}\n",
                  "population-uniqueness needs 'population-size'", 4);
  expect_rejected("input: {path: d.csv}\nattributes:\n  age: {hierarchy: h.csv}\nprivacy: [{k-anonymity: {k: 2}}]\n",
                  "attribute 'age' needs a 'role'", 3);
}

TEST(JobErrors, EmptyJobAndYamlSyntaxErrorsAreRejected) {
  EXPECT_NE(job_error("").problem().find("the job file is empty"), std::string::npos);
  EXPECT_NE(job_error("# only a comment\n").problem().find("the job file is empty"), std::string::npos);
  const JobError e = job_error("input:\n  path: d.csv\n privacy: [\n");
  EXPECT_NE(e.problem().find("invalid YAML"), std::string::npos) << e.what();
  EXPECT_GE(e.where().line, 3u);
}

TEST(JobErrors, MissingJobFileIsAnIoError) {
  EXPECT_THROW(read_job("/nonexistent/deid/job.yaml"), IoError);
}

// --- Names ------------------------------------------------------------------------

TEST(JobErrors, UnknownNamesAreRejectedListingTheKnownOnes) {
  expect_rejected("input: {path: d.csv}\nprivacy:\n  - k-anonimity: {k: 2}\n",
                  "unknown privacy model 'k-anonimity' (known: k-anonymity, l-diversity, t-closeness, "
                  "population-uniqueness, average-risk, sample-uniqueness, delta-disclosure, beta-likeness, k-map, profitability, "
                  "delta-presence, differential-privacy)",
                  3);
  expect_rejected(kHead + "quality: {model: utility}\n", "quality.model must be one of loss, entropy", 9);
  expect_rejected("input: {path: d.csv}\nattributes: {a: {role: secret}}\nprivacy: [{k-anonymity: {k: 2}}]\n",
                  "role must be one of identifying, quasi-identifying, sensitive, insensitive, got 'secret'", 2);
  expect_rejected(kHead + "default-role: public\n", "role must be one of", 9);
  expect_rejected(kHead + "quality: {aggregate: median}\n", "aggregate must be one of geometric-mean", 9);
  expect_rejected(kHead + "search: {algorithm: annealing}\n", "search.algorithm must be one of auto, exhaustive", 9);
  const std::string attrs = "input: {path: d.csv}\nattributes: {d: {role: sensitive}}\nprivacy:\n";
  expect_rejected(attrs + "  - l-diversity: {attribute: d, variant: simple, l: 2}\n", "variant must be one of", 4);
  expect_rejected(attrs + "  - t-closeness: {attribute: d, distance: emd, t: 0.2}\n", "distance must be one of", 4);
  expect_rejected(attrs + "  - population-uniqueness: {threshold: 0.1, population-size: 9, estimator: x}\n",
                  "estimator must be one of dankar, pitman, zayatz, snb", 4);
}

// --- Combinations -----------------------------------------------------------------

TEST(JobErrors, QuasiIdentifierNeedsAHierarchy) {
  expect_rejected("input: {path: d.csv}\nattributes:\n  age: {role: quasi-identifying}\nprivacy: [{k-anonymity: {k: 2}}]\n",
                  "quasi-identifying attribute 'age' needs a 'hierarchy'", 3);
}

TEST(JobErrors, DefaultRoleCannotBeQuasiIdentifying) {
  expect_rejected(kHead + "default-role: quasi-identifying\n", "default-role cannot be quasi-identifying", 9);
}

TEST(JobErrors, HierarchyOnAnInsensitiveAttributeIsRejected) {
  expect_rejected("input: {path: d.csv}\nattributes:\n  zip: {role: insensitive, hierarchy: z.csv}\n"
                  "privacy: [{k-anonymity: {k: 2}}]\n",
                  "attribute 'zip': a hierarchy is only used for quasi-identifying and sensitive attributes", 3);
}

TEST(JobErrors, LDiversityAndTClosenessNeedASensitiveAttribute) {
  // kHead: age is quasi-identifying (line 4); 'salary' is not listed.
  expect_rejected(kHead + "  - l-diversity: {attribute: age, l: 2}\n",
                  "l-diversity on 'age': the attribute has role quasi-identifying (line 4); it must have role: sensitive",
                  9);
  expect_rejected(kHead + "  - t-closeness: {attribute: name, t: 0.2}\n",
                  "t-closeness on 'name': the attribute has role identifying (line 6)", 9);
  expect_rejected(kHead + "  - l-diversity: {attribute: salary, l: 2}\n",
                  "l-diversity on 'salary': the attribute must be listed under 'attributes' with role: sensitive", 9);
  // Even when default-role is sensitive, the attribute must be listed.
  expect_rejected(kHead + "  - t-closeness: {attribute: salary, t: 0.2}\ndefault-role: sensitive\n",
                  "t-closeness on 'salary'", 9);
}

TEST(JobErrors, HierarchicalDistanceNeedsAHierarchy) {
  expect_rejected("input: {path: d.csv}\nattributes: {d: {role: sensitive}}\nprivacy:\n"
                  "  - t-closeness: {attribute: d, distance: hierarchical, t: 0.2}\n",
                  "t-closeness with distance: hierarchical needs a 'hierarchy' for attribute 'd' (line 2)", 4);
}

TEST(JobErrors, CIsOnlyForRecursiveLDiversity) {
  expect_rejected(kHead + "  - l-diversity: {attribute: disease, l: 2, c: 3}\n",
                  "'c' applies only to variant: recursive", 9);
}

TEST(JobErrors, GsFactorIsOnlyForModelsThatHaveOne) {
  expect_rejected(kHead + "quality: {model: height, gs-factor: 0.5}\n", "gs-factor applies only to model: loss", 9);
  expect_rejected(kHead + "quality: {model: normalized-entropy, gs-factor: 0.5}\n",
                  "(model is 'normalized-entropy')", 9);
  for (const char* model : {"loss", "entropy", "precision", "aecs"})
    EXPECT_EQ(parse(kHead + "quality: {model: " + model + ", gs-factor: 0.3}\n").quality.gs_factor, 0.3) << model;
}

TEST(JobErrors, AggregateIsOnlyForPerAttributeModels) {
  expect_rejected(kHead + "quality: {model: aecs, aggregate: sum}\n", "aggregate does not apply to model: aecs", 9);
  expect_rejected(kHead + "quality: {model: discernability, aggregate: max}\n",
                  "aggregate does not apply to model: discernability", 9);
  EXPECT_EQ(parse(kHead + "quality: {model: entropy, aggregate: max}\n").quality.aggregate, Aggregate::max);
}

TEST(JobErrors, SamePrivacyModelTwiceIsRejected) {
  expect_rejected(kHead + "  - k-anonymity: {k: 5}\n", "privacy model k-anonymity is listed twice", 9);
  expect_rejected(kHead + "  - l-diversity: {attribute: disease, l: 2}\n  - l-diversity: {attribute: disease, l: 3}\n",
                  "privacy model l-diversity on 'disease' is listed twice", 10);
}

TEST(JobErrors, OrderValuesMustBeDistinct) {
  expect_rejected("input: {path: d.csv}\nattributes:\n  i: {role: sensitive, order: [low, high, low]}\n"
                  "privacy: [{k-anonymity: {k: 2}}]\n",
                  "attribute 'i': value 'low' is listed twice in 'order'", 3);
  expect_rejected("input: {path: d.csv}\nattributes:\n  i: {role: sensitive, order: low}\n"
                  "privacy: [{k-anonymity: {k: 2}}]\n",
                  "order must be a list of values", 3);
}

TEST(JobErrors, OutputMustNotOverwriteTheInputOrAnotherOutput) {
  expect_rejected(kHead + "output: {path: ./data.csv}\n", "output.path is the input file /base/data.csv", 9);
  expect_rejected(kHead + "output: {path: o.csv, result: o.csv}\n", "output.result is the same file as output.path",
                  9);
}

// --- prepare(): the job against the data --------------------------------------

// A job with `attributes` (lines from 3 on) and k-anonymity.
Job job_over(const std::string& attributes, const std::string& extra = "") {
  return parse("input: {path: data.csv}\nattributes:\n" + attributes + "privacy: [{k-anonymity: {k: 1}}]\n" + extra);
}

TEST(JobPrepare, AttributeThatIsNotAColumnIsNamedWithItsJobLine) {
  // (A job needs a quasi-identifier: sex, with a hierarchy that needs no file.)
  const Job job = job_over("  age: {role: insensitive}\n  agee: {role: insensitive}\n"
                           "  sex: {role: quasi-identifying, hierarchy: {type: masking}}\n");
  try {
    prepare(job, read_dataset_text("age,sex\n30,M\n", "data.csv", {}));
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    EXPECT_EQ(e.where().file, "job.yaml");
    EXPECT_EQ(e.where().line, 4u);
    EXPECT_NE(e.problem().find("attribute 'agee' is not a column of data.csv"), std::string::npos) << e.what();
  }
}

TEST(JobPrepare, ColumnsWithoutRoleAreAllNamed) {
  const Job job = job_over("  age: {role: quasi-identifying, hierarchy: {type: masking}}\n");
  try {
    prepare(job, read_dataset_text("age,sex,zip\n30,M,123\n", "data.csv", {}));
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    EXPECT_EQ(e.where().file, "job.yaml");
    EXPECT_NE(e.problem().find("columns 'sex', 'zip' of data.csv have no role"), std::string::npos) << e.what();
    EXPECT_NE(e.problem().find("default-role"), std::string::npos) << e.what();
  }
}

class JobPrepareFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("deid_job_test_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
    write("sex.csv", "M;*\nF;*\n");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void write(const std::string& name, const std::string& text) {
    std::FILE* f = std::fopen((dir_ / name).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  Job job(const std::string& text) { return parse_job(text, (dir_ / "job.yaml").string(), dir_.string()); }
  std::filesystem::path dir_;
};

TEST_F(JobPrepareFiles, DefaultRoleCoversUnlistedColumns) {
  const Job j = job("input: {path: data.csv}\nattributes:\n  sex: {role: quasi-identifying, hierarchy: sex.csv}\n"
                    "  name: {role: identifying}\ndefault-role: insensitive\nprivacy: [{k-anonymity: {k: 1}}]\n");
  const auto p = prepare(j, read_dataset_text("name,sex,zip\nAnn,F,1\nBob,M,2\n", "data.csv", {}));
  EXPECT_EQ(p->roles, (std::vector<Role>{Role::identifying, Role::quasi_identifying, Role::insensitive}));
  EXPECT_EQ(p->problem.qi_names, (std::vector<std::string>{"sex"}));
  EXPECT_EQ(p->problem.rows, 2u);
}

TEST_F(JobPrepareFiles, MissingHierarchyValueNamesTheDataFileAndLine) {
  const Job j = job("input: {path: data.csv}\nattributes:\n  sex: {role: quasi-identifying, hierarchy: sex.csv}\n"
                    "privacy: [{k-anonymity: {k: 1}}]\n");
  try {
    prepare(j, read_dataset_text("sex\nM\nX\nF\n", "data.csv", {}));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.problem(), "attribute 'sex': value 'X' (data line 3) is not in hierarchy " + (dir_ / "sex.csv").string() +
                               "; 1 value missing");
  }
}

TEST_F(JobPrepareFiles, MissingHierarchyFileIsAnIoErrorNamingIt) {
  const Job j = job("input: {path: data.csv}\nattributes:\n  sex: {role: quasi-identifying, hierarchy: nope.csv}\n"
                    "privacy: [{k-anonymity: {k: 1}}]\n");
  try {
    prepare(j, read_dataset_text("sex\nM\n", "data.csv", {}));
    FAIL() << "expected IoError";
  } catch (const IoError& e) {
    EXPECT_EQ(e.where().file, (dir_ / "nope.csv").string());
  }
}

// Errors of the privacy models, which see the data but not the job file,
// name the model's entry in the job (or, for a value, the data line).
TEST_F(JobPrepareFiles, PrivacyModelErrorsNameTheirJobLineOrTheDataLine) {
  const Job j = job(
      "input: {path: data.csv}\nattributes:\n  sex: {role: quasi-identifying, hierarchy: sex.csv}\n"
      "  level: {role: sensitive}\n"
      "privacy:\n"
      "  - k-anonymity: {k: 1}\n"
      "  - population-uniqueness: {threshold: 0.01, population-size: 2, estimator: dankar}\n");
  try {
    prepare(j, read_dataset_text("sex,level\nM,1\nF,2\nF,3\n", "data.csv", {}));
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    EXPECT_EQ(e.where().file, (dir_ / "job.yaml").string());
    EXPECT_EQ(e.where().line, 7u) << e.what();
    EXPECT_NE(e.problem().find("population-size 2 is smaller than the 3 records"), std::string::npos) << e.what();
  }
  const Job ordered = job(
      "input: {path: data.csv}\nattributes:\n  sex: {role: quasi-identifying, hierarchy: sex.csv}\n"
      "  level: {role: sensitive}\n"
      "privacy:\n"
      "  - t-closeness: {attribute: level, distance: ordered, t: 0.5}\n");
  try {
    prepare(ordered, read_dataset_text("sex,level\nM,1\nF,high\nF,3\n", "data.csv", {}));
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    EXPECT_EQ(e.where().file, "data.csv");
    EXPECT_EQ(e.where().line, 3u) << e.what();
    EXPECT_NE(e.problem().find("value 'high' (data line 3) is not a number"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace deid
