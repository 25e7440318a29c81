// Cells a spreadsheet would run as formulas (docs/reliability.md,
// "Formulas"): how every writer of a released table recognizes them and,
// with output.escape-formulas, escapes them. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace deid {

// Whether a spreadsheet would run `cell` as a formula: it starts with '=',
// '+', '-' or '@' and is not a plain number ("-5", "+1.5e3" are numbers and
// never escaped). docs/reliability.md, "Formulas".
bool looks_like_formula(std::string_view cell);

// Appends a cell of an output table as append_csv_field (csv.h) does; with
// `escape_formulas` (output.escape-formulas), a cell that looks_like_formula
// gets a leading "'" first.
void append_output_field(std::string& out, std::string_view cell, char delimiter, bool escape_formulas);

// What was counted of a column's written values where they live (deid.spark
// counts a released identifier's values on Spark's executors): how many of
// them look like a formula (looks_like_formula), and the first of those.
struct FormulaCount {
  std::uint64_t count = 0;
  std::string example;
};

}  // namespace deid
