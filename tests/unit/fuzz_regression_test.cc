// Regression tests for the defects the libFuzzer targets of tests/fuzz found
// (docs/fuzzing.md): one test per defect, the input inline.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "data/dataset_read.h"
#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/hierarchy.h"
#include "deid/hierarchy_builder.h"
#include "deid/job.h"

namespace deid {
namespace {

// fuzz_hierarchy: masking cut multi-byte UTF-8 characters in half ("Zoë" →
// "Zo\xC3*"), so `deid hierarchy masking` wrote a file deid could not read
// back, and an inline masking hierarchy put invalid UTF-8 in the output.
TEST(FuzzRegression, MaskingReplacesWholeUtf8Characters) {
  const Dataset data = read_dataset_text("name\nZoë\nAb\n", "data.csv", {});
  const HierarchyTable table = build_masking_hierarchy({"Zoë", "Ab"}, MaskingSpec{});
  ASSERT_EQ(table.rows.size(), 2u);
  EXPECT_EQ(table.rows[0], (std::vector<std::string>{"Zoë", "Zo*", "Z**", "***", "*"}));
  EXPECT_EQ(table.rows[1], (std::vector<std::string>{"Ab", "A*", "**", "**", "*"}));
  const HierarchyTable back = read_hierarchy_text(hierarchy_to_csv(table), "masking.csv", CsvOptions{';'});
  EXPECT_EQ(back.rows, table.rows);
  EXPECT_NO_THROW(Generalization::build(back, data.columns[0], "data.csv"));
}

// fuzz_hierarchy: a mask character of 0x80 or above (half of a UTF-8
// character) made every mask invalid UTF-8.
TEST(FuzzRegression, MaskingRejectsANonAsciiMaskCharacter) {
  EXPECT_THROW(build_masking_hierarchy({"81675"}, MaskingSpec{'\xC3', false, 0}), HierarchyParameterError);
}

// fuzz_csv: with pieces of a byte, a piece can hold only blank lines; the
// merge then offset the null pointer of its empty code array. Undefined
// behaviour that only the sanitizer build (scripts/test.sh sanitize) sees.
TEST(FuzzRegression, ParallelReaderSkipsPiecesOfBlankLines) {
  const std::string text = "a;b\n1;2\n\n\n\n3;4\n";
  const Dataset ds = detail::read_dataset_text(text, "data.csv", {}, detail::ReadTuning{4, 1});
  ASSERT_EQ(ds.rows, 2u);
  ASSERT_EQ(ds.columns.size(), 2u);
  EXPECT_EQ(ds.columns[1].dictionary.value(ds.columns[1].codes[0]), "2");
  EXPECT_EQ(ds.columns[1].dictionary.value(ds.columns[1].codes[1]), "4");
  EXPECT_EQ(ds.columns[1].first_line, (std::vector<std::uint64_t>{2, 6}));
}

// fuzz_csv: the start of a record longer than the reader's block is checked
// for what is not text (a NUL byte) before the buffer grows; with tiny blocks
// that check came before the UTF-16 check of the first block, so a UTF-16
// file was "not valid UTF-8" in tiny blocks and "UTF-16 encoded" in large
// ones. Every block size gives the message of the whole file, a UTF-8
// character cut by a block's end is no error, and a record of endless NUL
// bytes (/dev/zero) is refused once it passes 1 MiB.
TEST(FuzzRegression, MessagesOfARecordLongerThanTheBlockDoNotDependOnTheBlockSize) {
  const std::string utf16("\xFF\xFE" "a\0,\0b\0\n\0", 10);
  const std::string cut = "name;city\nAnn;Z\xC3\xBCrich\n";  // "Zürich": a cut inside \xC3\xBC is no error
  const std::string nul("name;city\nAnn;Zu\0rich\n", 22);
  auto message = [](const std::string& text, const detail::ReadTuning& tuning) -> std::string {
    try {
      detail::read_dataset_text(text, "data.csv", {}, tuning);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  for (const detail::ReadTuning& tuning : {detail::ReadTuning{1, 1}, detail::ReadTuning{2, 3}, detail::ReadTuning{7, 3},
                                           detail::ReadTuning{}}) {
    EXPECT_NE(message(utf16, tuning).find("UTF-16"), std::string::npos) << tuning.block_bytes;
    EXPECT_EQ(message(cut, tuning), "") << tuning.block_bytes;
    EXPECT_NE(message(nul, tuning).find("NUL byte"), std::string::npos) << tuning.block_bytes;
    EXPECT_EQ(message(nul, tuning), message(nul, detail::ReadTuning{})) << tuning.block_bytes;
  }
  const std::string zeros(std::size_t{3} << 20, '\0');
  const std::string long_nul = message(zeros, detail::ReadTuning{4096, 1024});
  EXPECT_NE(long_nul.find("NUL byte"), std::string::npos) << long_nul;
}

// fuzz_hierarchy: a value that starts with U+FEFF, first in a hierarchy,
// was written unquoted, and reading the file back dropped it as the BOM.
TEST(FuzzRegression, CsvFieldStartingWithAByteOrderMarkReadsBackUnchanged) {
  const std::string value = "\xEF\xBB\xBFx";
  const HierarchyTable table = build_masking_hierarchy({value, "y"}, MaskingSpec{});
  const HierarchyTable back = read_hierarchy_text(hierarchy_to_csv(table), "masking.csv", CsvOptions{';'});
  EXPECT_EQ(back.rows, table.rows);
}

// fuzz_job: for a job without quasi-identifiers, the search for the line of
// 'attributes' assigned a YAML::Node (which writes into the node it refers
// to) and so rewrote the root while iterating over it: a heap-use-after-free
// that the sanitizer build (scripts/test.sh sanitize) reports.
TEST(FuzzRegression, JobWithoutQuasiIdentifiersNamesTheAttributesLine) {
  const std::string job =
      "input: {path: data.csv}\n"
      "attributes:\n"
      "  name: {role: identifying}\n"
      "privacy: [{k-anonymity: {k: 2}}]\n";
  try {
    parse_job(job, "job.yaml", "");
    FAIL() << "a job without quasi-identifiers was accepted";
  } catch (const JobError& e) {
    EXPECT_EQ(e.where().line, 2u);
    EXPECT_NE(e.problem().find("no quasi-identifying attribute"), std::string::npos) << e.problem();
  }
}

}  // namespace
}  // namespace deid
