// CSV input (RFC 4180, src/io/csv_parse.h) and the encoded Dataset: what is read,
// which line every record is reported on, and the errors a user sees for
// malformed files (file, line where the record starts, column).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "deid/csv.h"
#include "deid/dataset.h"
#include "deid/error.h"
#include "support/reference.h"

namespace deid {
namespace {

using Rows = std::vector<std::vector<std::string>>;

struct Parsed {
  Rows rows;
  std::vector<std::uint64_t> lines;
  char delimiter = 0;
};

Parsed parse(std::string_view text, CsvOptions options = {}) {
  Parsed p;
  p.delimiter = read_csv_text(text, "t.csv", options, [&](const CsvRecord& rec) {
    p.rows.emplace_back(rec.fields.begin(), rec.fields.end());
    p.lines.push_back(rec.line);
    EXPECT_EQ(rec.index, p.rows.size() - 1);
  });
  return p;
}

// Runs `f`, which must throw InputError (or a subclass), and returns it.
template <class F>
InputError input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError(Location{}, "none");
}

InputError csv_error(std::string_view text, CsvOptions options = {}) {
  return input_error([&] { parse(text, options); });
}

InputError dataset_error(std::string_view text, CsvOptions options = {}) {
  return input_error([&] { read_dataset_text(text, "data.csv", options); });
}

// --- What is read --------------------------------------------------------

TEST(CsvReader, ReadsRecordsWithTheirPhysicalLines) {
  const Parsed p = parse("a,b\n1,2\n3,4\n");
  EXPECT_EQ(p.rows, (Rows{{"a", "b"}, {"1", "2"}, {"3", "4"}}));
  EXPECT_EQ(p.lines, (std::vector<std::uint64_t>{1, 2, 3}));
  EXPECT_EQ(p.delimiter, ',');
}

TEST(CsvReader, QuotedFieldKeepsEmbeddedDelimiter) {
  const Parsed p = parse("a,b\n\"x,y\",z\n");
  EXPECT_EQ(p.rows[1], (std::vector<std::string>{"x,y", "z"}));
}

TEST(CsvReader, DoubledQuoteInQuotedFieldIsOneQuote) {
  const Parsed p = parse("a,b\n\"say \"\"hi\"\"\",\"\"\"\"\n");
  EXPECT_EQ(p.rows[1], (std::vector<std::string>{"say \"hi\"", "\""}));
}

TEST(CsvReader, QuotedFieldKeepsEmbeddedLineBreaksAndRecordStartsOnItsFirstLine) {
  const Parsed p = parse("h1,h2\n\"line1\nline2\",x\n\"a\r\nb\",\"c\n\nd\"\ny,z\n");
  EXPECT_EQ(p.rows, (Rows{{"h1", "h2"}, {"line1\nline2", "x"}, {"a\r\nb", "c\n\nd"}, {"y", "z"}}));
  EXPECT_EQ(p.lines, (std::vector<std::uint64_t>{1, 2, 4, 8}));
}

TEST(CsvReader, CrlfLineEndsAreNotPartOfTheLastField) {
  const Parsed p = parse("a,b\r\n1,2\r\n3,4\r\n");
  EXPECT_EQ(p.rows, (Rows{{"a", "b"}, {"1", "2"}, {"3", "4"}}));
  EXPECT_EQ(p.lines, (std::vector<std::uint64_t>{1, 2, 3}));
}

TEST(CsvReader, LoneCrLineEndsCountAsLines) {
  const Parsed p = parse("a,b\r1,2\r3,4");
  EXPECT_EQ(p.rows, (Rows{{"a", "b"}, {"1", "2"}, {"3", "4"}}));
  EXPECT_EQ(p.lines, (std::vector<std::uint64_t>{1, 2, 3}));
}

TEST(CsvReader, ByteOrderMarkIsSkipped) {
  const Parsed p = parse("\xEF\xBB\xBF" "a;b\n1;2\n");
  EXPECT_EQ(p.rows[0], (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(p.delimiter, ';');
}

TEST(CsvReader, BlankLinesAreSkippedButCounted) {
  const Parsed p = parse("\na,b\n\n\r\n1,2\n\n3,4\n\n");
  EXPECT_EQ(p.rows, (Rows{{"a", "b"}, {"1", "2"}, {"3", "4"}}));
  EXPECT_EQ(p.lines, (std::vector<std::uint64_t>{2, 5, 7}));
}

TEST(CsvReader, LastRecordNeedsNoLineEnd) {
  const Parsed p = parse("a,b\n1,\"2\"");
  EXPECT_EQ(p.rows, (Rows{{"a", "b"}, {"1", "2"}}));
}

TEST(CsvReader, SpacesArePartOfTheField) {
  const Parsed p = parse("a,b\n 1 ,\t2\t\n");
  EXPECT_EQ(p.rows[1], (std::vector<std::string>{" 1 ", "\t2\t"}));
}

TEST(CsvReader, EmptyFieldsAreKept) {
  const Parsed p = parse("a,b,c\n,,\n1,,\"\"\n");
  EXPECT_EQ(p.rows[1], (std::vector<std::string>{"", "", ""}));
  EXPECT_EQ(p.rows[2], (std::vector<std::string>{"1", "", ""}));
}

TEST(CsvReader, MultibyteUtf8IsKept) {
  const Parsed p = parse("name;city\nJosé;Zürich\n李;東京\n");
  EXPECT_EQ(p.rows[1], (std::vector<std::string>{"José", "Zürich"}));
  EXPECT_EQ(p.rows[2], (std::vector<std::string>{"李", "東京"}));
}

TEST(CsvReader, GivenDelimiterOverridesDetection) {
  const Parsed p = parse("a;b,c\n1;2,3\n", CsvOptions{','});
  EXPECT_EQ(p.rows[0], (std::vector<std::string>{"a;b", "c"}));
  EXPECT_EQ(p.delimiter, ',');
}

TEST(CsvReader, RaggedOptionAllowsRecordsOfDifferentLengths) {
  CsvOptions o;
  o.ragged = true;
  const Parsed p = parse("a;b;c\n1\n2;3\n", o);
  EXPECT_EQ(p.rows, (Rows{{"a", "b", "c"}, {"1"}, {"2", "3"}}));
}

TEST(CsvReader, ExceptionFromCallbackPropagatesAndStopsTheRead) {
  int seen = 0;
  EXPECT_THROW(read_csv_text("a\n1\n2\n3\n", "t.csv", {},
                             [&](const CsvRecord& rec) {
                               ++seen;
                               if (rec.index == 1) throw std::runtime_error("stop");
                             }),
               std::runtime_error);
  EXPECT_EQ(seen, 2);
}

TEST(CsvReader, MissingFileIsAnIoErrorNamingThePath) {
  try {
    read_csv("/nonexistent/deid/x.csv", {}, [](const CsvRecord&) {});
    FAIL() << "expected IoError";
  } catch (const IoError& e) {
    EXPECT_EQ(e.where().file, "/nonexistent/deid/x.csv");
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

TEST(CsvReader, DirectoryIsAnIoError) {
  EXPECT_THROW(read_csv(std::filesystem::temp_directory_path().string(), {}, [](const CsvRecord&) {}), IoError);
}

// --- Delimiter detection -------------------------------------------------

TEST(DetectDelimiter, PicksTheCandidateMostFrequentInTheFirstRecord) {
  EXPECT_EQ(detect_delimiter("a;b;c\n1,2,3,4,5\n"), ';');
  EXPECT_EQ(detect_delimiter("a,b,c\n"), ',');
  EXPECT_EQ(detect_delimiter("a\tb\tc\n"), '\t');
  EXPECT_EQ(detect_delimiter("a|b|c"), '|');
  EXPECT_EQ(detect_delimiter("a;b,c,d\r\n"), ',');
}

TEST(DetectDelimiter, IgnoresCandidatesInsideQuotes) {
  EXPECT_EQ(detect_delimiter("\"a,b,c\";\"d,\"\"e\"\",f\";g\n"), ';');
  EXPECT_EQ(detect_delimiter("\"x\ny,z,w\"|v\n"), '|');
}

TEST(DetectDelimiter, OneColumnDefaultsToComma) {
  EXPECT_EQ(detect_delimiter("name\nx\n"), ',');
  EXPECT_EQ(detect_delimiter(""), ',');
}

TEST(DetectDelimiter, TieGoesToTheEarlierCandidate) { EXPECT_EQ(detect_delimiter("a;b,c"), ';'); }

// --- Malformed input -----------------------------------------------------

TEST(CsvErrors, UnterminatedQuoteNamesTheLineWhereTheRecordStarts) {
  const InputError e = csv_error("a,b\n1,2\n3,\"x\n4,5\n");
  EXPECT_EQ(e.where().file, "t.csv");
  EXPECT_EQ(e.where().line, 3u);
  EXPECT_EQ(e.where().column, 2u);
  EXPECT_NE(e.problem().find("unterminated quoted field"), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).rfind("t.csv:3:2: ", 0), 0u) << e.what();
}

TEST(CsvErrors, QuoteInsideUnquotedFieldIsRejected) {
  const InputError e = csv_error("a,b\n1,x\"y\n");
  EXPECT_EQ(e.where().line, 2u);
  EXPECT_EQ(e.where().column, 2u);
  EXPECT_NE(e.problem().find("quote inside an unquoted field (line 2, character 4)"), std::string::npos)
      << e.what();
}

TEST(CsvErrors, CharacterAfterClosingQuoteIsRejected) {
  const InputError e = csv_error("a,b\n\"x\"y,1\n");
  EXPECT_EQ(e.where().line, 2u);
  EXPECT_EQ(e.where().column, 1u);
  EXPECT_NE(e.problem().find("unexpected character 'y' after the closing quote (line 2, character 4)"),
            std::string::npos)
      << e.what();
}

TEST(CsvErrors, StrayQuoteInMultiLineRecordNamesTheRecordStartAndTheExactPlace) {
  // The quoted field opened on line 2 closes on line 3 and is followed by 'z'.
  const InputError e = csv_error("a,b\n1,\"x\ny\"z\n");
  EXPECT_EQ(e.where().line, 2u);
  EXPECT_EQ(e.where().column, 2u);
  EXPECT_NE(e.problem().find("(line 3, character 3)"), std::string::npos) << e.what();
}

TEST(CsvErrors, TooFewFieldsNamesTheMissingColumn) {
  const InputError e = dataset_error("a,b,c\n1,2,3\n4,5\n");
  EXPECT_EQ(e.where().file, "data.csv");
  EXPECT_EQ(e.where().line, 3u);
  EXPECT_EQ(e.where().column, 3u);
  EXPECT_EQ(e.where().column_name, "c");
  EXPECT_EQ(e.problem(), "record has 2 fields, expected 3 as in the header (line 1); field 3 ('c') is missing");
}

TEST(CsvErrors, TooManyFieldsNamesTheFirstExtraField) {
  const InputError e = dataset_error("a;b\n1;2\n3;4;5\n");
  EXPECT_EQ(e.where().line, 3u);
  EXPECT_EQ(e.where().column, 3u);
  EXPECT_NE(e.problem().find("record has 3 fields, expected 2 as in the header (line 1); field 3 is extra"),
            std::string::npos)
      << e.what();
}

TEST(CsvErrors, FieldCountErrorAfterMultiLineRecordNamesTheRightLine) {
  const InputError e = csv_error("a,b\n\"1\n\n2\",3\n\n4\n");
  EXPECT_EQ(e.where().line, 6u);
  EXPECT_NE(e.problem().find("as in the first record (line 1)"), std::string::npos) << e.what();
}

TEST(CsvErrors, InvalidUtf8NamesTheLineAndCharacter) {
  const InputError e = csv_error("a,b\n1,Jos\xE9\n");
  EXPECT_EQ(e.where().line, 2u);
  EXPECT_NE(e.problem().find("not valid UTF-8: byte 0xE9 at character 6 of line 2"), std::string::npos) << e.what();
}

TEST(CsvErrors, Utf16IsRejectedWithAHint) {
  const InputError e = csv_error(std::string_view("\xFF\xFE" "a\0,\0", 6));
  EXPECT_NE(e.problem().find("UTF-16"), std::string::npos) << e.what();
}

TEST(CsvErrors, QuoteAsDelimiterIsRejected) { csv_error("a\"b\n", CsvOptions{'"'}); }

// --- How errors print ------------------------------------------------------

TEST(ErrorFormat, MessageStartsWithWhatIsKnownOfTheLocation) {
  EXPECT_STREQ(InputError(Location{"d.csv", 3, 2, "age"}, "bad").what(), "d.csv:3:2 (column 'age'): bad");
  EXPECT_STREQ(InputError(Location{"d.csv", 3, 0, {}}, "bad").what(), "d.csv:3: bad");
  EXPECT_STREQ(InputError(Location{"d.csv", 0, 5, {}}, "bad").what(), "d.csv: bad");
  EXPECT_STREQ(JobError(Location{}, "bad").what(), "bad");
  EXPECT_EQ(InputError(Location{"d.csv", 3, 2, "age"}, "bad").problem(), "bad");
}

// --- Dataset: header, encoding and its errors ----------------------------

TEST(Dataset, EncodesValuesInOrderOfFirstAppearanceWithTheirFirstLine) {
  const Dataset ds = read_dataset_text("sex;age\nM;30\nF;30\n\nM;40\n", "d.csv", {});
  ASSERT_EQ(ds.columns.size(), 2u);
  EXPECT_EQ(ds.rows, 3u);
  EXPECT_EQ(ds.delimiter, ';');
  EXPECT_EQ(ds.source, "d.csv");
  const Column& sex = ds.columns[0];
  EXPECT_EQ(sex.name, "sex");
  EXPECT_EQ(sex.codes.to_vector(), (std::vector<std::uint32_t>{0, 1, 0}));
  EXPECT_EQ(sex.codes.width(), 1u);
  EXPECT_EQ(sex.dictionary.value(0), "M");
  EXPECT_EQ(sex.dictionary.value(1), "F");
  EXPECT_EQ(sex.first_line, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(ds.columns[1].first_line, (std::vector<std::uint64_t>{2, 5}));
  EXPECT_EQ(ds.column_index("age"), 1);
  EXPECT_EQ(ds.column_index("zip"), -1);
  EXPECT_EQ(sex.dictionary.find("F"), 1);
  EXPECT_EQ(sex.dictionary.find("X"), -1);
}

TEST(Dataset, EmptyFileIsRejected) {
  EXPECT_NE(dataset_error("").problem().find("the file is empty"), std::string::npos);
  EXPECT_NE(dataset_error("\xEF\xBB\xBF\n\r\n\n").problem().find("the file is empty"), std::string::npos);
}

TEST(Dataset, HeaderWithoutRecordsIsRejected) {
  const InputError e = dataset_error("\na,b\n\n");
  EXPECT_EQ(e.where().line, 2u);
  EXPECT_EQ(e.problem(), "the file has a header row but no data records");
}

TEST(Dataset, DuplicateColumnNameIsRejectedNamingBothColumns) {
  const InputError e = dataset_error("a,b,a\n1,2,3\n");
  EXPECT_EQ(e.where().line, 1u);
  EXPECT_EQ(e.where().column, 3u);
  EXPECT_EQ(e.where().column_name, "a");
  EXPECT_EQ(e.problem(), "duplicate column name 'a' in the header row (columns 1 and 3)");
}

TEST(Dataset, EmptyColumnNameIsRejected) {
  const InputError e = dataset_error("a,,c\n1,2,3\n");
  EXPECT_EQ(e.where().column, 2u);
  EXPECT_NE(e.problem().find("column 2 has an empty name"), std::string::npos) << e.what();
}

TEST(Dataset, ReadsAFileFromDisk) {
  const auto path = deid::testing::write_temp_csv("deid_csv_test_dataset", "x|y\r\n1|2\r\n");
  ASSERT_FALSE(path.empty());
  const Dataset ds = read_dataset(path.string(), {});
  EXPECT_EQ(ds.delimiter, '|');
  EXPECT_EQ(ds.rows, 1u);
  EXPECT_EQ(ds.columns[1].dictionary.value(0), "2");
  std::filesystem::remove(path);
}

// --- Writing: what append_csv_field writes reads back unchanged -----------

std::string write_records(const Rows& rows, char delim) {
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) out.push_back(delim);
      append_csv_field(out, row[i], delim);
    }
    out.push_back('\n');
  }
  return out;
}

TEST(CsvWriter, QuotesOnlyWhenNeeded) {
  std::string out;
  append_csv_field(out, "plain text", ',');
  EXPECT_EQ(out, "plain text");
  out.clear();
  append_csv_field(out, "a;b", ',');
  EXPECT_EQ(out, "a;b");
  out.clear();
  append_csv_field(out, "a,b", ',');
  EXPECT_EQ(out, "\"a,b\"");
  out.clear();
  append_csv_field(out, "say \"hi\"", ';');
  EXPECT_EQ(out, "\"say \"\"hi\"\"\"");
  out.clear();
  append_csv_field(out, "two\nlines", ';');
  EXPECT_EQ(out, "\"two\nlines\"");
  out.clear();
  append_csv_field(out, "cr\r", '\t');
  EXPECT_EQ(out, "\"cr\r\"");
}

TEST(CsvWriter, TrickyFieldsRoundTrip) {
  const Rows rows = {{"h,1", "h\"2", "h 3"},
                     {"", "\"", "a,b;c\td|e"},
                     {"line\nbreak", "crlf\r\nbreak", "lone\rcr"},
                     {" lead", "trail ", "\"\"\"\""},
                     {"José", "李", ""}};
  for (char delim : {',', ';', '\t', '|'}) {
    const Parsed p = parse(write_records(rows, delim), CsvOptions{delim});
    EXPECT_EQ(p.rows, rows) << "delimiter " << delim;
  }
}

TEST(CsvWriter, RandomFieldsRoundTripWithDetectedDelimiter) {
  // Fields drawn from the characters that matter to the format.
  const std::vector<std::string> alphabet = {"a", "b", ",", ";", "\"", "\n", "\r", " ", "\t", "é", "|"};
  std::mt19937 rng(20240611);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t cols = 2 + rng() % 4;
    Rows rows;
    rows.emplace_back();
    for (std::size_t c = 0; c < cols; ++c) rows.back().push_back("col" + std::to_string(c));  // header
    for (int r = 0; r < 20; ++r) {
      rows.emplace_back();
      for (std::size_t c = 0; c < cols; ++c) {
        std::string f;
        const std::size_t len = rng() % 6;
        for (std::size_t i = 0; i < len; ++i) f += alphabet[rng() % alphabet.size()];
        rows.back().push_back(f);
      }
    }
    const char delim = ",;\t|"[trial % 4];
    const std::string text = write_records(rows, delim);
    const Parsed p = parse(text);  // the delimiter is detected from the header
    EXPECT_EQ(p.delimiter, delim);
    ASSERT_EQ(p.rows, rows) << "trial " << trial;
  }
}

}  // namespace
}  // namespace deid
