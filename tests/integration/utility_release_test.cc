// The utility analysis of a release computed two ways agrees: from the
// chosen transformation's classes (what `deid anonymize` does) and from the
// released table written and read back (what `deid utility` does), on a
// small job with inline hierarchies (ARX-style interval labels, masking up
// to '*'), suppressed records and output.escape-formulas.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/pipeline.h"
#include "deid/utility.h"

namespace deid {
namespace {

const char* kData =
    "name,age,zip,disease,note\n"
    "a,21,13053,flu,=1+2\n"
    "b,24,13068,flu,plain\n"
    "c,23,13068,cold,-x\n"
    "d,35,13053,cold,@a\n"
    "e,36,13053,flu,plain\n"
    "f,38,13068,cold,=1+2\n"
    "g,37,13068,flu,plain\n"
    "h,92,99999,cold,-x\n"
    "i,22,13053,cold,plain\n";

class UtilityRelease : public ::testing::Test {
 protected:
  std::unique_ptr<PreparedJob> prepare_job(const std::string& output) {
    const Job job = parse_job(
        "input: {path: data.csv}\n"
        "attributes:\n"
        "  name: {role: identifying}\n"
        "  age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 100, widths: [10, 50]}}\n"
        "  zip: {role: quasi-identifying, hierarchy: {type: masking, levels: 5}}\n"
        "  disease: {role: sensitive}\n"
        "  note: {role: insensitive}\n"
        "privacy:\n  - k-anonymity: {k: 2}\n"
        "suppression-limit: 0.2\n"
        "search: {algorithm: exhaustive}\n" +
            output,
        "job.yaml", ".");
    return prepare(job, read_dataset_text(kData, "data.csv", CsvOptions{',', true}));
  }
};

TEST_F(UtilityRelease, ReadBackAgreesWithTheClasses) {
  for (const char* escape : {"output: {escape-formulas: true}\n", ""}) {
    auto p = prepare_job(escape);
    const Anonymization a = run_search(*p);
    ASSERT_TRUE(a.found);
    const Transformation& t = a.search.best->transformation;
    const UtilityAnalysis direct = analyze_utility(utility_input(*p, t, *a.classes));
    // The outlier (92, 99999) is suppressed.
    EXPECT_GE(direct.suppressed_records, 1u) << escape;
    std::ostringstream out;
    write_output(*p, t, *a.classes, out);
    const Dataset released = read_dataset_text(out.str(), "released.csv", CsvOptions{',', true});
    // With escape-formulas the writer prefixes "'"; the read-back strips it.
    EXPECT_EQ(out.str().find("'=1+2") != std::string::npos, *escape != '\0') << out.str();
    const UtilityAnalysis back = analyze_utility(utility_input(*p, released));
    EXPECT_EQ(to_json(back), to_json(direct)) << escape << "\n" << out.str();
    ASSERT_EQ(back.attributes.size(), 4u);  // name is not released
    EXPECT_EQ(back.attributes[0].name, "age");
    EXPECT_EQ(back.attributes[0].level, t[0]);
    EXPECT_EQ(back.attributes[1].level, t[1]);
  }
}

TEST_F(UtilityRelease, AReleaseWithACellSuppressedAloneIsRefused) {
  auto p = prepare_job("");
  const Anonymization a = run_search(*p);
  ASSERT_TRUE(a.found);
  std::ostringstream out;
  write_output(*p, a.search.best->transformation, *a.classes, out);
  // The first record's age (second field) replaced by '*', its zip kept.
  std::string text = out.str();
  const std::size_t line2 = text.find('\n') + 1;
  // Interval labels hold a comma and are quoted: "[20, 30)".
  const std::size_t comma = text[line2] == '"' ? text.find("\",", line2 + 1) + 1 : text.find(',', line2);
  ASSERT_NE(text.substr(line2, comma - line2), "*");
  text = text.substr(0, line2) + "*" + text.substr(comma);
  const Dataset released = read_dataset_text(text, "released.csv", CsvOptions{',', true});
  try {
    utility_input(*p, released);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "released.csv");
    EXPECT_EQ(e.where().line, 2u);
    EXPECT_EQ(e.where().column_name, "age");
    EXPECT_NE(e.problem().find("suppressed cell"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace deid
