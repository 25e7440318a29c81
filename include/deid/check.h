// The check of one transformation: roll the histogram up to the
// transformation's levels (its equivalence classes), ask the privacy models
// which classes hold, suppress the others within the limit, and measure the
// quality. This is the engine's hot path.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "deid/lattice.h"
#include "deid/problem.h"
#include "deid/quality.h"

namespace deid {

// A std::allocator that leaves elements of trivial types uninitialized
// when a vector grows by resize(): the check writes every code of its
// output itself, and zero-filling (or copying from a scratch buffer) first
// cost about a tenth of a best-first search's time.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  UninitializedAllocator(const UninitializedAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    std::construct_at(p, std::forward<Args>(args)...);
  }
};

using CodeVector = std::vector<std::uint32_t, UninitializedAllocator<std::uint32_t>>;
// Counts likewise: a grouping sizes them to its possible classes, of which
// only those it makes are written and become resident.
using CountVector = std::vector<std::uint64_t, UninitializedAllocator<std::uint64_t>>;

// Reads the keys of classes whose grouping left them unwritten (bounded
// memory): each class's key is its first member's, generalized.
class KeyReader {
 public:
  virtual ~KeyReader() = default;
  // Class c's generalized codes (Classes::width of them) into `out`.
  virtual void read(std::size_t c, std::uint32_t* out) const = 0;
};

// The equivalence classes of one transformation.
struct Classes {
  std::uint32_t width = 0;
  CodeVector keys;                         // class-major generalized codes
  CountVector counts;                      // records per class
  std::vector<std::uint8_t> suppressed;    // 1 when the class is suppressed
  // Histogram entry → class. Filled only when the classes were grouped from
  // the histogram (Checker::group, or Checker::check with `classes` given);
  // empty when they were rolled up from another transformation's classes.
  std::vector<std::uint32_t> entry_class;
  std::uint64_t suppressed_records = 0;
  // Per histogram distribution (Histogram::sensitive), each class's
  // distribution (offsets per class), while a Checker evaluates a quality
  // model that needs_distributions(); null otherwise (never owned).
  const std::vector<Histogram::Sensitive>* distributions = nullptr;
  // While a Checker evaluates a quality model that reads keys through key()
  // (QualityModel::reads_keys_lazily), the reader of keys a grouping left
  // unwritten: `keys` is then stale. Null otherwise (never owned).
  const KeyReader* pending_keys = nullptr;

  std::size_t size() const { return counts.size(); }
  // Class c's key (width codes): in `keys`, or read into `scratch` (room
  // for width codes) when the keys are pending.
  const std::uint32_t* key(std::size_t c, std::uint32_t* scratch) const {
    if (!pending_keys) return keys.data() + c * width;
    pending_keys->read(c, scratch);
    return scratch;
  }
};

// With a research subset (Problem::population_distribution), class c's
// records in the whole input, read from the classes' rolled-up
// distributions (per histogram distribution, as Classes::distributions).
inline std::uint64_t class_population(const Problem& problem, const std::vector<Histogram::Sensitive>& distributions,
                                      std::size_t c) {
  const Histogram::Sensitive& d = distributions[static_cast<std::size_t>(problem.population_distribution)];
  return d.offsets[c + 1] > d.offsets[c] ? d.counts[d.offsets[c]] : 0;
}

struct CheckResult {
  Transformation transformation;
  bool solution = false;            // all models hold after suppression within the limit
  std::uint64_t suppressed_records = 0;  // records in violating classes (may exceed the limit)
  std::uint64_t classes = 0;        // classes of the generalized data, before suppression
  QualityValue quality;             // of the output; meaningful when solution (or Checker::set_measure_all)
  double lower_bound = 0;           // loss from generalization alone
  bool complete = true;             // false: stopped early (Checker::set_stop_early), not a solution
  // A solution's released classes (not suppressed) and the size of the
  // smallest: its prosecutor risk is at most 1 / smallest_class, on
  // average kept_classes / (records - suppressed_records). 0 otherwise.
  std::uint64_t kept_classes = 0;
  std::uint64_t smallest_class = 0;
};

// How the classes of the checks so far were computed.
struct CheckStatistics {
  std::uint64_t checks = 0;
  std::uint64_t rolled_up = 0;      // from the cached classes of a specialization
  std::uint64_t from_histogram = 0; // from the histogram entries ("from rows")
  std::uint64_t grouped = 0;        // source classes or entries grouped, over all checks
  std::uint64_t ranged = 0;         // checks grouped range by range from the histogram (of from_histogram)
  std::uint64_t stopped_early = 0;  // of those, stopped once they could not be a solution
  std::uint64_t refined = 0;        // of from_histogram: grouped from the classes of a generalization (prefetch's `around`)
  std::uint64_t cached_snapshots = 0;      // snapshots held now
  std::uint64_t largest_cache_words = 0;   // peak size of the cache, in 32-bit key words
  std::uint64_t speculative = 0;       // checks computed ahead of time (Checker::prefetch)
  std::uint64_t speculative_used = 0;  // of those, taken by check() (counted in `checks`)
};

namespace check_internal {
struct Snapshot;
}

// Checks transformations of one Problem.
//
// Roll-up: full-domain generalization only merges classes, so the classes
// of t can be computed from the classes of any specialization s ≤ t
// (componentwise) by generalizing their keys from s's levels to t's and
// adding their counts (and their sensitive distributions). The checker keeps
// a bounded cache of the classes of recent checks that have at most a tenth
// of the histogram's entries (least recently used go first; the cache holds
// about 8 times the histogram's keys, between 16 and 64 MiB) and rolls
// every check up from the smallest cached specialization, or from the
// histogram when none is smaller. The result does not depend on the source
// (the classes may come out in another order; tests assert that rolled-up
// and from-histogram checks agree).
//
// Checks computed ahead of time: prefetch() computes the checks of several
// transformations at once, concurrently on the threads oneTBB allows (a
// lane, with its own grouping buffers, per check running at that moment),
// while the cache stays as it is; a later check() of one of them takes its
// result. Statistics count a check and its snapshot enters the cache only
// when check() takes it, in the order of the check() calls, and the source
// of every check is chosen at a fixed point of the call sequence (the
// check() call, or the prefetch() that computed it); the result of a check
// does not depend on the lane that ran it. So results and statistics depend
// only on the sequence of prefetch() and check() calls, never on the number
// of threads.
//
// Not thread-safe: one thread calls a Checker (it uses several internally
// in prefetch(); each Checker is used by one thread, and they share the
// Problem). Checks from the histogram under k-anonymity group it range by
// range of a lead attribute (src/check/ranges.h); other small sources are
// grouped sequentially; sources of 2^15 members
// or more are grouped radix-partitioned, the partitions in parallel, with
// chunks, partitions and class numbering fixed by the source alone, so
// results never depend on the number of threads. (A former parallel path
// that grouped chunks and merged their tables cost 3 times the CPU of the
// sequential loop on the 1.2 M-row survey table.) Keys whose mixed-radix
// slot does not fit 63 bits (no job seen so far) are grouped by a hash map
// on their codes.
class Checker {
 public:
  explicit Checker(const Problem& problem);
  ~Checker();
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;

  // Checks `t`: takes its prefetched result when there is one (and
  // `classes` is null), else computes it. When `classes` is given, it
  // receives the classes with the suppressed ones flagged, grouped from the
  // histogram (entry_class filled).
  CheckResult check(const Transformation& t, Classes* classes = nullptr);

  // Computes the checks of `ts` ahead of time, concurrently (see above), and
  // keeps their results for check(); results prefetched before and not in
  // `ts` are dropped, those in `ts` kept. Sources are chosen in the order
  // of `ts`. Nothing is counted.
  //
  // `around`: a transformation most of `ts` differ from in one attribute
  // (the neighbours of a Lightning expansion). With privacy models that
  // judge classes by size alone, where at least kMinRefined of `ts` are
  // specializations of it in one attribute (top-down's predecessors), the
  // histogram is grouped by `around` once (members kept) and each of them
  // is grouped from that: a class of t is a class of `around` and t's
  // value of the one attribute, so a member costs one code instead of one
  // per attribute. Where at least kMinRefined are generalizations of it in
  // one attribute (bottom-up's successors) whose checks group by the
  // ranges of around's lead, around's slots are computed once by position
  // of that lead's copy and each of them adds the change of its
  // attribute's digit. The results are the same.
  void prefetch(std::span<const Transformation> ts, const Transformation* around = nullptr);
  static constexpr std::size_t kMinRefined = 3;
  // Whether check(t) would take a prefetched result.
  bool prefetched(const Transformation& t) const;

  // Lets a check that cannot be a solution stop as soon as that is certain
  // (off by default): a check grouped range by range from the histogram
  // (docs/architecture.md) stops after the range at which the records of
  // classes that violate the privacy models exceed the suppression limit.
  // Its result then has solution false, suppressed_records above the limit
  // and `classes` and `suppressed_records` counting only the classes grouped
  // (complete false); the lower bound is exact. Only with privacy models
  // that judge each class by its size alone and quality models whose
  // bound does not read the classes (QualityModel::bound_reads_classes);
  // otherwise checks run to the end. For searches, which need no more of a
  // check that fails.
  void set_stop_early(bool on) { stop_early_ = on; }
  // Measures the quality of every check, not only of solutions (off by
  // default): a non-solution's CheckResult::quality is then the loss of its
  // output with every violating class suppressed, beyond the limit (ARX's
  // check with forceMeasureInfoLoss and suppression always enabled, which
  // its heuristic searches use). Checks that stop early have no quality:
  // turn set_stop_early off with it.
  void set_measure_all(bool on) { measure_all_ = on; }

  // Groups the histogram by `t` into `out` (nothing suppressed yet).
  void group(const Transformation& t, Classes& out);

  const CheckStatistics& statistics() const { return stats_; }

  struct HashState;
  struct Pending;
  struct Shared;

 private:
  // Computes the check of `t` from `from` (nullptr: the histogram) in
  // `lane` into `out` (counts nothing, changes no cache). Safe to run for
  // several transformations at once in different lanes.
  // With refine_q, grouped around prefetch's `around`, which t specializes
  // (generalizes, with `raise`) in attribute refine_q alone.
  void compute(HashState& lane, const Transformation& t, const check_internal::Snapshot* from, Classes* classes_out,
               Pending& out, int refine_q = -1, bool raise = false) const;
  // Counts `p` and caches its snapshot.
  void commit(Pending& p);

  CheckStatistics stats_;
  bool stop_early_ = false;
  bool measure_all_ = false;
  const Problem& problem_;
  std::unique_ptr<Shared> shared_;
  std::unique_ptr<Pending> current_;  // the check computed on the spot
};

}  // namespace deid
