#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iostream>
#include <memory>

#include "commands.h"
#include "deid/dataset.h"
#include "deid/error.h"
#include "deid/hierarchy_builder.h"
#include "deid/output.h"

namespace deid::cli {
namespace {

struct ValueSource {
  std::string input;
  std::string column;
  std::string delimiter;
  std::vector<std::string> values;
  std::string output;
};

// Option checks (CLI11 validators: a failure names the option and its value
// and exits with 2). Each returns an empty string when the value is valid.

// A decimal number, as in a job file: no hex, no nan or inf, no overflow.
std::string decimal(const std::string& s) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    return fmt::format("expected a decimal number such as 5 or 2.5, got '{}'", s);
  return {};
}

const CLI::Validator kDecimal([](std::string& s) { return decimal(s); }, "NUMBER");
const CLI::Validator kPositive(
    [](std::string& s) {
      std::string e = decimal(s);
      if (e.empty() && !(std::stod(s) > 0)) e = fmt::format("expected a number > 0, got '{}'", s);
      return e;
    },
    "NUMBER > 0");
const CLI::Validator kNotEmpty([](std::string& s) { return s.empty() ? std::string("must not be empty") : ""; },
                               "TEXT");
// One character, or \t / tab for a tab; not a quote or a line break.
const CLI::Validator kDelimiter(
    [](std::string& s) {
      if (s == "\\t" || s == "tab") return std::string();
      if (s.size() != 1 || s == "\"" || s == "\n" || s == "\r")
        return fmt::format("the delimiter must be one character (or \\t), not a quote or a line break; got '{}'", s);
      return std::string();
    },
    "CHAR");

void add_source_options(CLI::App* sub, ValueSource& s) {
  CLI::Option* input = sub->add_option("--input", s.input, "CSV file whose column supplies the values")
                           ->check(kNotEmpty);
  CLI::Option* column = sub->add_option("--column", s.column, "Column of --input")->check(kNotEmpty);
  CLI::Option* delimiter =
      sub->add_option("--delimiter", s.delimiter, "Delimiter of --input (detected when absent)")->check(kDelimiter);
  sub->add_option("--values", s.values, "Values, instead of --input/--column")
      ->delimiter(',')
      ->excludes(input)
      ->excludes(column)
      ->excludes(delimiter);
  input->needs(column);
  column->needs(input);
  delimiter->needs(input);
  sub->add_option("-o,--output", s.output, "Hierarchy CSV to write (default: standard output)")->check(kNotEmpty);
}

// Runs a builder; a parameter it rejects is named as its option.
template <class Build>
HierarchyTable with_option_names(Build build) {
  try {
    return build();
  } catch (const HierarchyParameterError& e) {
    throw JobError(Location{}, fmt::format("--{}: {}", e.parameter(), e.problem()));
  }
}

std::vector<std::string> values_of(const ValueSource& s) {
  if (!s.values.empty()) return s.values;
  if (s.input.empty() || s.column.empty())
    throw JobError(Location{}, "give the values with --values, or a file and column with --input and --column");
  CsvOptions opt;
  if (!s.delimiter.empty()) opt.delimiter = s.delimiter == "\\t" || s.delimiter == "tab" ? '\t' : s.delimiter[0];
  const Dataset ds = read_dataset(s.input, opt);
  const int c = ds.column_index(s.column);
  if (c < 0) throw JobError(Location{s.input, 1, 0, {}}, fmt::format("no column '{}' in the header", s.column));
  std::vector<std::string> out;
  const Dictionary& d = ds.columns[static_cast<std::size_t>(c)].dictionary;
  for (std::uint32_t i = 0; i < d.size(); ++i) out.push_back(d.value(i));
  return out;
}

int emit(const ValueSource& s, const OutputTarget& target, const HierarchyTable& t) {
  const std::string csv = hierarchy_to_csv(t);
  if (s.output.empty()) {
    std::cout << csv;
    std::cout.flush();
    if (!std::cout) throw IoError(Location{"<standard output>", 0, 0, {}}, "cannot write the hierarchy");
    return 0;
  }
  write_file_atomically(target, csv, "hierarchy");
  return 0;
}

}  // namespace

Command add_hierarchy_command(CLI::App& app) {
  auto* h = app.add_subcommand("hierarchy", "Build a generalization hierarchy (ARX CSV format)");
  h->require_subcommand(1);

  // State shared by the sub-subcommands; lives as long as the app.
  struct State {
    ValueSource src;
    IntervalSpec interval;
    std::vector<double> widths;
    MaskingSpec masking;
    std::string mask_char = "*";
    DateSpec date;
    bool no_month = false, no_year = false, no_decade = false;
    GroupingSpec grouping;
  };
  auto st = std::make_shared<State>();

  auto* iv = h->add_subcommand("intervals", "Intervals for numbers: bins of growing width, optional top/bottom coding");
  add_source_options(iv, st->src);
  iv->add_option("--min", st->interval.min, "Lower bound of the first bin (inclusive)")->required()->check(kDecimal);
  iv->add_option("--max", st->interval.max, "Upper bound of the last bin (exclusive)")->required()->check(kDecimal);
  iv->add_option("--widths", st->widths, "Bin width per level, e.g. 5,10,20")
      ->delimiter(',')
      ->required()
      ->check(kPositive);
  iv->add_flag("--bottom-coding", st->interval.bottom_coding, "Values below --min become '<min'");
  iv->add_flag("--top-coding", st->interval.top_coding, "Values at or above --max become '>=max'");

  auto* mk = h->add_subcommand("masking", "Masking of codes: 81675 → 8167* → 816** → ... → *");
  add_source_options(mk, st->src);
  mk->add_option("--levels", st->masking.levels, "Number of masked levels (default: the longest value's length)")
      ->check(CLI::Range(1, 1000));
  mk->add_flag("--from-left", st->masking.from_left, "Mask from the left instead of the right");
  mk->add_option("--mask-char", st->mask_char, "Mask character (default '*')");

  auto* dt = h->add_subcommand("dates", "Dates YYYY-MM-DD: day → month → year → decade → *");
  add_source_options(dt, st->src);
  dt->add_flag("--no-month", st->no_month, "Skip the month level");
  dt->add_flag("--no-year", st->no_year, "Skip the year level");
  dt->add_flag("--no-decade", st->no_decade, "Skip the decade level");

  auto* gr = h->add_subcommand("grouping", "Grouping of an ordered list of categories");
  add_source_options(gr, st->src);
  gr->add_option("--order", st->grouping.order, "All categories in order, comma-separated")->delimiter(',')->required();
  gr->add_option("--sizes", st->grouping.sizes, "Group size per level, e.g. 2,4")
      ->delimiter(',')
      ->required()
      ->check(CLI::Range(std::size_t{2}, std::size_t{1000000000}));

  Command cmd;
  cmd.app = h;
  cmd.run = [st, iv, mk, dt]() -> int {
    // Before reading: the hierarchy must not overwrite the table it is
    // built from, and its directory must take it.
    const CheckedFiles checked = check_files({{"input data", st->src.input}}, {{"hierarchy", st->src.output}});
    const OutputTarget& target = checked.output("hierarchy");
    const auto values = values_of(st->src);
    if (*iv) {
      st->interval.widths = st->widths;
      return emit(st->src, target, with_option_names([&] { return build_interval_hierarchy(values, st->interval); }));
    }
    if (*mk) {
      if (st->mask_char.size() != 1) throw JobError(Location{}, "--mask-char must be a single character");
      st->masking.mask_char = st->mask_char[0];
      return emit(st->src, target, with_option_names([&] { return build_masking_hierarchy(values, st->masking); }));
    }
    if (*dt) {
      st->date = DateSpec{!st->no_month, !st->no_year, !st->no_decade};
      return emit(st->src, target, build_date_hierarchy(values, st->date));
    }
    return emit(st->src, target, with_option_names([&] { return build_grouping_hierarchy(values, st->grouping); }));
  };
  return cmd;
}

}  // namespace deid::cli
