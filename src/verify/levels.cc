// The level of each quasi-identifier, the research subset and suppression
// (release_check.h): which records are starred, which copied columns changed,
// at which single level each quasi-identifier is generalized, and whether
// the suppressed records stay within the limit.
#include <algorithm>
#include <cmath>
#include <map>

#include "release_check.h"

namespace verify {

void ReleaseCheck::mark_starred() {
  starred.assign(rows, 0);
  for (std::size_t r = 0; r < rows; ++r) {
    bool all = true;
    for (std::size_t q = 0; q < qis.size() && all; ++q)
      if (qi_out[q] >= 0 && output.rows[r][qi_out[q]] != "*") all = false;
    starred[r] = all && !qis.empty();
  }
}

void ReleaseCheck::check_copied_columns() {
  // Columns copied from the input must be identical, row by row.
  for (std::size_t c = 0; c < input.header.size(); ++c) {
    const std::string& name = input.header[c];
    const int oc = out_index(name);
    if (oc < 0 || qi_names.count(name) || identifying.count(name) || released.count(name)) continue;
    std::uint64_t differ = 0, first = 0;
    for (std::size_t r = 0; r < rows; ++r)
      if (input.rows[r][c] != output.rows[r][oc]) {
        if (differ == 0) first = r + 1;
        differ += weight(r);
      }
    if (differ)
      add(Kind::value_changed, name, first, differ,
          "column " + quote(name) + ": " + std::to_string(differ) + " row(s) differ from the input; first at data row " +
              std::to_string(first) + ": input " + quote(input.rows[first - 1][c]) + ", output " +
              quote(output.rows[first - 1][oc]) + " (rows must keep the input's order)");
  }
}

// Input values of quasi-identifier `q` that its hierarchy lacks: `missing`
// records, the first at data row `first` (1-based).
void ReleaseCheck::add_missing_values(std::size_t q, std::uint64_t missing, std::uint64_t first) {
  add(Kind::value_not_in_hierarchy, qis[q].name, first, missing,
      "column " + quote(qis[q].name) + ": " + std::to_string(missing) + " input value(s) are not in hierarchy " +
          qis[q].hierarchy_path + "; first " + quote(input.rows[first - 1][qi_in[q]]) + " at data row " +
          std::to_string(first));
}

void ReleaseCheck::detect_recoded_levels() {
  // Local recoding: every value of a record that is not starred is its
  // input value at some level within the bounds; with the pass column, the
  // records of one pass share one level per quasi-identifier, and exactly
  // the starred records have '*' there.
  const int pass_col = options.pass_column.empty() ? -1 : out_index(options.pass_column);
  if (pass_col >= 0) {
    std::uint64_t wrong = 0, first = 0;
    for (std::size_t r = 0; r < rows; ++r)
      if (output.rows[r][pass_col] == "*" && !starred[r] && wrong++ == 0) first = r + 1;
    if (wrong)
      add(Kind::not_single_level, options.pass_column, first, wrong,
          "column " + quote(options.pass_column) + ": " + std::to_string(wrong) + " record(s) whose pass is '*' " +
              "(suppressed) are not suppressed; first at data row " + std::to_string(first));
  }
  for (std::size_t q = 0; q < qis.size(); ++q) {
    if (qi_out[q] < 0) continue;
    const int h = heights[q];
    const int lo = qis[q].min_level, hi = qis[q].max_level.value_or(h - 1);
    // Per pass ("" without the column): the records whose value differs
    // from the level-l value, per level.
    std::map<std::string, std::vector<std::uint64_t>> misfits;
    std::map<std::string, std::size_t> first_of_pass;
    std::uint64_t missing = 0, first_missing = 0, nowhere = 0, first_nowhere = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      if (starred[r]) continue;
      auto it = hier[q].find(input.rows[r][qi_in[q]]);
      if (it == hier[q].end()) {
        if (missing++ == 0) first_missing = r + 1;
        continue;
      }
      const std::vector<std::string>& gen = *it->second;
      const std::string& out = output.rows[r][qi_out[q]];
      bool fits = false;
      for (int l = lo; l <= hi && l < h; ++l) fits = fits || gen[l] == out;
      if (!fits && nowhere++ == 0) first_nowhere = r + 1;
      const std::string pass = pass_col >= 0 ? output.rows[r][pass_col] : std::string();
      auto [m, inserted] = misfits.try_emplace(pass, std::vector<std::uint64_t>(h, 0));
      if (inserted) first_of_pass[pass] = r;
      for (int l = 0; l < h; ++l) m->second[l] += gen[l] != out ? weight(r) : 0;
    }
    if (missing) {
      add_missing_values(q, missing, first_missing);
      continue;
    }
    if (nowhere) {
      const std::size_t r = first_nowhere - 1;
      add(Kind::not_single_level, qis[q].name, first_nowhere, nowhere,
          "column " + quote(qis[q].name) + ": " + std::to_string(nowhere) + " record(s) show a value that is not " +
              "their input value at any level in [" + std::to_string(lo) + ", " + std::to_string(hi) +
              "]; first at data row " + std::to_string(first_nowhere) + ": input " + quote(input.rows[r][qi_in[q]]) +
              ", output " + quote(output.rows[r][qi_out[q]]));
      continue;
    }
    if (pass_col < 0) continue;
    for (const auto& [pass, per_level] : misfits) {
      bool one = false;
      for (int l = lo; l <= hi && l < h && !one; ++l) one = per_level[l] == 0;
      if (one) continue;
      const std::size_t r = first_of_pass.at(pass);
      add(Kind::not_single_level, qis[q].name, r + 1, 0,
          "column " + quote(qis[q].name) + ": the records of pass " + quote(pass) + " are not generalized at one " +
              "single level (first at data row " + std::to_string(r + 1) + ")");
    }
  }
}

void ReleaseCheck::detect_levels() {
  if (options.local_recoding) {
    detect_recoded_levels();
    return;
  }
  // One level per quasi-identifier: the lowest level whose value of the
  // input equals the output in every record that is not starred.
  for (std::size_t q = 0; q < qis.size(); ++q) {
    if (qi_out[q] < 0) continue;
    const int h = heights[q];
    std::vector<const std::vector<std::string>*> gen(rows, nullptr);
    std::uint64_t missing = 0, first_missing = 0;
    for (std::size_t r = 0; r < rows; ++r) {
      auto it = hier[q].find(input.rows[r][qi_in[q]]);
      if (it == hier[q].end()) {
        if (missing++ == 0) first_missing = r + 1;
      } else {
        gen[r] = it->second;
      }
    }
    if (missing) {
      add_missing_values(q, missing, first_missing);
      continue;
    }
    // misfits[l]: records that are not starred whose output differs from
    // the level-l value; stars[l]: starred records whose level-l value is
    // '*' (they may be generalized, not suppressed).
    std::vector<std::uint64_t> misfits(h, 0), first_misfit(h, 0), stars(h, 0);
    for (std::size_t r = 0; r < rows; ++r) {
      if (starred[r]) {
        for (int l = 0; l < h; ++l) stars[l] += (*gen[r])[l] == "*" ? weight(r) : 0;
        continue;
      }
      const std::string& out = output.rows[r][qi_out[q]];
      for (int l = 0; l < h; ++l)
        if ((*gen[r])[l] != out) {
          if (misfits[l] == 0) first_misfit[l] = r + 1;
          misfits[l] += weight(r);
        }
    }
    // Among the levels that fit within the bounds, the one that explains
    // the most starred records as generalized (ties: the lowest).
    const int lo = qis[q].min_level, hi = qis[q].max_level.value_or(h - 1);
    int fitting = -1;
    for (int l = 0; l < h; ++l)
      if (misfits[l] == 0) {
        report.fitting_levels[q].push_back(l);
        if (l >= lo && l <= hi && (fitting < 0 || stars[l] > stars[fitting])) fitting = l;
      }
    if (fitting >= 0) {
      report.levels[q] = fitting;
      continue;
    }
    if (!report.fitting_levels[q].empty()) {
      std::string fits;
      for (int l : report.fitting_levels[q]) fits += (fits.empty() ? "" : ", ") + std::to_string(l);
      add(Kind::level_outside_bounds, qis[q].name, 0, records,
          "column " + quote(qis[q].name) + " is generalized at level " + fits + ", outside its min-level and " +
              "max-level [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      continue;
    }
    int best = 0;
    for (int l = 1; l < h; ++l)
      if (misfits[l] < misfits[best]) best = l;
    const std::size_t r = first_misfit[best] - 1;
    std::string fits;
    for (int l = 0; l < h; ++l)
      if ((*gen[r])[l] == output.rows[r][qi_out[q]]) fits += (fits.empty() ? "" : ", ") + std::to_string(l);
    add(Kind::not_single_level, qis[q].name, r + 1, misfits[best],
        "column " + quote(qis[q].name) + " is not generalized at one single level: level " + std::to_string(best) +
            " fits all but " + std::to_string(misfits[best]) + " record(s); first at data row " + std::to_string(r + 1) +
            ": input " + quote(input.rows[r][qi_in[q]]) + ", output " + quote(output.rows[r][qi_out[q]]) + ", level-" +
            std::to_string(best) + " value " + quote((*gen[r])[best]) +
            (fits.empty() ? std::string(" (the output value is at no level of the hierarchy")
                          : " (the output value is at level(s) " + fits) +
            (output.rows[r][qi_out[q]] == "*" ? "; a suppressed record has '*' in every quasi-identifier)" : ")"));
  }
}

void ReleaseCheck::check_subset() {
  // The research subset: records outside it are starred and count nowhere
  // else.
  if (with_subset && options.subset.size() != input.rows.size())
    add(Kind::bad_options, {}, 0, 0,
        "the research subset has " + std::to_string(options.subset.size()) + " flags for " +
            std::to_string(input.rows.size()) + " input rows");
  if (with_subset) {
    std::uint64_t released = 0;
    std::size_t first = 0;
    for (std::size_t r = 0; r < input.rows.size(); ++r) subset_records += !outside(r);
    for (std::size_t r = 0; r < rows; ++r)
      if (outside(r) && !starred[r] && released++ == 0) first = r;
    if (released)
      add(Kind::outside_subset_released, {}, first + 1, released,
          std::to_string(released) + " record(s) outside the research subset are not suppressed; the first at data "
                                     "row " + std::to_string(first + 1));
    report.subset_records = subset_records;
  }
}

void ReleaseCheck::count_suppressed() {
  // Suppressed records: starred, unless the detected levels make every
  // quasi-identifier of the record '*' anyway (see verify.h).
  suppressed.assign(rows, 0);
  all_levels = std::all_of(report.levels.begin(), report.levels.end(), [](const auto& l) { return l.has_value(); });
  for (std::size_t r = 0; r < rows; ++r) {
    if (!starred[r] || outside(r)) continue;
    bool generalized_to_star = aligned && all_levels;
    for (std::size_t q = 0; q < qis.size() && generalized_to_star; ++q)
      generalized_to_star = (*hier[q].at(input.rows[r][qi_in[q]]))[*report.levels[q]] == "*";
    suppressed[r] = !generalized_to_star;
    if (suppressed[r]) report.suppressed_records += weight(r);
  }
  // ARX: at most floor(limit * rows) records; the small epsilon keeps a
  // product like 0.29 * 100 = 28.999999999999996 from losing a record.
  const std::uint64_t judged = with_subset ? subset_records : records;
  report.max_suppressed =
      static_cast<std::uint64_t>(std::floor(options.suppression_limit * static_cast<double>(judged) + 1e-9));
  if (report.suppressed_records > report.max_suppressed)
    add(Kind::too_many_suppressed, {}, 0, report.suppressed_records,
        std::to_string(report.suppressed_records) + " records are suppressed, the limit allows floor(" +
            std::to_string(options.suppression_limit) + " * " + std::to_string(judged) + ") = " +
            std::to_string(report.max_suppressed));
}

}  // namespace verify
