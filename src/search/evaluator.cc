#include <algorithm>
#include <cmath>

#include "deid/search.h"

namespace deid {

bool same_loss(double x, double y) {
  return std::abs(x - y) <= 1e-12 * std::max({std::abs(x), std::abs(y), 1e-300});
}

bool better(const CheckResult& a, const CheckResult& b) {
  const double x = a.quality.value, y = b.quality.value;
  if (!same_loss(x, y)) return x < y;
  const int ra = rank(a.transformation), rb = rank(b.transformation);
  if (ra != rb) return ra < rb;
  return a.transformation < b.transformation;
}

Evaluator::Evaluator(const Problem& problem, SearchLimits limits, ProgressFn progress)
    : problem_(problem),
      limits_(limits),
      progress_(std::move(progress)),
      checker_(problem),
      start_(std::chrono::steady_clock::now()),
      last_report_(start_) {
  // The searches read only whether a check is a solution, its bound, and
  // a solution's figures.
  checker_.set_stop_early(true);
}

double Evaluator::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool Evaluator::exhausted() const {
  if (limits_.max_checks && checked_ >= *limits_.max_checks) return true;
  if (phase_.max_checks && checked_ >= *phase_.max_checks) return true;
  return out_of_time();
}

bool Evaluator::out_of_time() const {
  if (!limits_.time_limit_seconds && !phase_.time_limit_seconds) return false;
  const double elapsed = elapsed_seconds();
  return (limits_.time_limit_seconds && elapsed >= *limits_.time_limit_seconds) ||
         (phase_.time_limit_seconds && elapsed >= *phase_.time_limit_seconds);
}

void Evaluator::keep_best_solutions(std::size_t n) {
  keep_best_ = n;
  if (best_solutions_.size() > n) best_solutions_.resize(n);
}

void Evaluator::add_to_frontier(const CheckResult& r) {
  FrontierPoint p;
  p.information_loss = r.quality.value;
  p.suppressed_records = r.suppressed_records;
  const std::uint64_t released = problem_.rows - std::min(problem_.rows, r.suppressed_records);
  if (r.smallest_class > 0) p.highest_risk = 1.0 / static_cast<double>(r.smallest_class);
  if (released > 0) p.average_risk = static_cast<double>(r.kept_classes) / static_cast<double>(released);
  // The last point with loss <= p's has the least risk of those; if it is
  // no riskier, p is dominated.
  auto at = std::upper_bound(frontier_.begin(), frontier_.end(), p.information_loss,
                             [](double loss, const FrontierPoint& f) { return loss < f.information_loss; });
  if (at != frontier_.begin() && std::prev(at)->average_risk <= p.average_risk) return;
  // p dominates an earlier point of equal loss (it is riskier), and the
  // later points (more loss) that are no less risky.
  if (at != frontier_.begin() && std::prev(at)->information_loss == p.information_loss) at = frontier_.erase(std::prev(at));
  auto end = at;
  while (end != frontier_.end() && end->average_risk >= p.average_risk) ++end;
  at = frontier_.erase(at, end);
  p.transformation = r.transformation;
  frontier_.insert(at, std::move(p));
}

void Evaluator::prefetch(std::span<const Transformation> ts, const Transformation* around) {
  if (limits_.max_checks) {
    const std::uint64_t left = *limits_.max_checks > checked_ ? *limits_.max_checks - checked_ : 0;
    if (ts.size() > left) ts = ts.first(static_cast<std::size_t>(left));
  }
  checker_.prefetch(ts, around);
}

const CheckResult& Evaluator::check(const Transformation& t) {
  last_ = checker_.check(t);
  ++checked_;
  if (last_.solution) {
    if (!best_ || better(last_, *best_)) {
      best_ = last_;
      time_to_best_ = elapsed_seconds();
    }
    add_to_frontier(last_);
    // The best few solutions, for the report. Algorithms check in a fixed
    // order and better() is a total order, so the list is the same for any
    // thread count. A solution not better than the last kept costs one
    // comparison.
    if (keep_best_ > 0 && (best_solutions_.size() < keep_best_ || better(last_, best_solutions_.back()))) {
      const auto same = [&](const CheckResult& r) { return r.transformation == last_.transformation; };
      if (std::none_of(best_solutions_.begin(), best_solutions_.end(), same)) {
        const auto at = std::upper_bound(best_solutions_.begin(), best_solutions_.end(), last_, better);
        best_solutions_.insert(at, last_);
        if (best_solutions_.size() > keep_best_) best_solutions_.pop_back();
      }
    }
  }
  if (progress_) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_report_ > std::chrono::milliseconds(100)) {
      last_report_ = now;
      SearchProgress p;
      p.checked = checked_;
      if (best_) p.best_loss = best_->quality.value;
      p.elapsed_seconds = elapsed_seconds();
      p.fraction_done = fraction_done_;
      progress_(p);
    }
  }
  return last_;
}

}  // namespace deid
