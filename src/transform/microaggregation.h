// Microaggregation (docs/job-file.md, "Microaggregation"; ARX 3.9.2's
// MicroAggregationFunction and DistributionAggregateFunction): the value of
// every released record of an equivalence class is replaced by the class's
// aggregate of the attribute; suppressed records show "*" like every
// quasi-identifier.
//
// Values: an empty value is missing and left out of every aggregate (ARX's
// default, "ignore missing data"). mean, geometric-mean, median and
// interval need numbers; a column whose every value is an integer is an
// integer column, whose aggregates are rounded half up (Java's Math.round,
// as ARX's INTEGER type does), any other numeric column is decimal, printed
// as Java's Double.toString prints (ARX's DECIMAL type).
//   mean            the arithmetic mean (commons-math's two-pass mean)
//   geometric-mean  exp(mean of ln(x + 1)) - 1, as ARX shifts by one
//   median          the middle value; of an even count the mean of the two
//                   middle ones
//   mode            the most frequent value as written; a tie goes to the
//                   value that occurs first in the input (ARX: its hash
//                   table's order)
//   interval        "[min, max]"
// A class without a value releases the empty value.
//
// Quality (ARX's MetricMDNMLoss and MetricMDNMPrecision, for an attribute
// that is not generalized before): a class of c records whose attribute
// shows d distinct values (the empty value counts) of the column's D
// contributes c * d / D, weighted with the gs-factor like a generalized
// value (a suppressed class: c when s = 1); the dimension's value is the
// sum over classes divided by the records. Lower bounds take 0 for it (ARX
// computes none), which keeps them below the value.
//
// With a research subset (Problem::subset) c, d and the aggregates count
// the class's subset records only; D stays the column's distinct values in
// the whole input (ARX's dictionary).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "deid/check.h"
#include "deid/dataset.h"
#include "deid/problem.h"

namespace deid::microaggregation {

// Fills `attribute.offsets` and `.codes` from the histogram's rows; with a
// research subset (`subset`: one flag per row, empty for none) from the
// subset's rows only, as ARX's HashGroupify.addFromBuffer adds a record's
// value to its class's distribution only when the record is in the subset.
void index_entries(MicroaggregatedAttribute& attribute, const Histogram& histogram,
                   const std::vector<std::uint8_t>& subset);

// Throws InputError at the first value of the column (its line) that the
// function cannot aggregate: one that is not a number, for every function
// but mode.
void check_values(const MicroaggregatedAttribute& attribute, const Dataset& data);

// Per aggregated dimension (Problem::aggregated_dimensions(), in order):
// the sum over the classes of `t` of the contribution above, with the
// gs-factor's weights g (kept classes) and s (suppressed ones), not yet
// divided by the records.
std::vector<double> dimension_sums(const Problem& problem, const Transformation& t, const Classes& classes, double g,
                                   double s);

// The released label of each class of `classes` (entry_class filled) for
// `attribute`; suppressed classes get "" (the writer prints "*"). With a
// research subset (`subset`: one flag per row, empty for none) the
// aggregate is the subset's records' (ARX's HashGroupify distributions hold
// only them, and performMicroaggregation aggregates those); the records
// outside it are suppressed in the release.
std::vector<std::string> class_labels(const MicroaggregatedAttribute& attribute, const Histogram& histogram,
                                      const Classes& classes, const std::vector<std::uint8_t>& subset);

}  // namespace deid::microaggregation
