// Internal to src/check: grouping the histogram range by range. The
// checker keeps a copy of the histogram sorted by one quasi-identifier, the
// *lead*, in the order of its hierarchy (top-level value first, then the
// next level down, ... then the value itself), so that at every level of the
// lead the entries sharing one generalized value are contiguous. A
// transformation's classes never straddle two such ranges (entries in
// different ranges differ in the lead's generalized value), so the ranges
// are independent groupings: each one gets a table sized to itself (in
// cache, like the partitions of partitioned.h, without computing and
// scattering every slot first), and a check that is certain to fail can stop
// after the ranges that prove it (Checker::set_stop_early): once the records
// of completed classes that violate the privacy models exceed the
// suppression limit, no later range can undo that.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "check/grouping.h"
#include "deid/check.h"

namespace deid::check_internal {

// Checks whose lead level has fewer ranges than this group the histogram
// the usual way (grouping.h).
constexpr std::size_t kMinRanges = 4;

// Ranged grouping keeps a sorted copy for the best-scoring lead, and for
// further ones while all copies take at most this many bytes (each is the
// histogram's keys in two or four bytes per code, and its counts).
constexpr std::size_t kExtraLeadBytes = std::size_t{8} << 20;

struct LeadOrder {
  int lead = -1;                       // the lead attribute
  std::vector<std::uint32_t> keys;     // the histogram's keys, in this order (row-major) ...
  std::vector<std::uint16_t> keys16;   // ... or in two bytes per code, when every domain fits
  std::vector<std::uint64_t> counts;   // in this order
  // With bounded memory (Problem::bounded_memory) keys, keys16 and counts
  // are empty: the copy is packed (PackedKeys) when the codes fit a word,
  // else only the order is kept, position → histogram entry.
  PackedKeys packed;
  std::vector<std::uint32_t> entry;
  // Per level L of the lead: the first position of each range of equal
  // level-L values, then the number of entries.
  std::vector<std::vector<std::uint32_t>> starts;
  std::vector<std::uint32_t> largest;  // per level: entries in its largest range
  // Per level: its ranges in the order they are grouped, smallest first
  // (rare values make small classes, so a check that fails shows it in
  // the first ranges; on the survey table, in hierarchy order the rare old
  // ages came last and failing checks grouped 63 % of the entries before
  // they stopped).
  std::vector<std::vector<std::uint32_t>> visit;

  // Builds the copy sorted by attribute q, whose level-0 codes that occur
  // in the histogram are those with seen[code] set; with `copy` false, the
  // packed copy or the permutation (`entry`) instead.
  void build(const Problem& problem, std::uint32_t q, const std::vector<std::uint8_t>& seen, bool copy);
  std::size_t ranges(int level) const { return starts[static_cast<std::size_t>(level)].size() - 1; }
  // Whether checks of `t` from the histogram may group by this lead's ranges.
  bool usable(const Transformation& t) const { return ranges(t[lead]) >= kMinRanges; }
  // Memory held by the copy.
  std::size_t bytes() const {
    return (keys.size() + entry.size() + packed.counts.size()) * sizeof(std::uint32_t) +
           keys16.size() * sizeof(std::uint16_t) + (counts.size() + packed.words.size()) * sizeof(std::uint64_t);
  }
  // Whether every level-0 domain fits two bytes.
  static bool narrow_keys(const Problem& problem);
};

// The leads of `problem` (see kExtraLeadBytes): attributes ranked by how
// finely their levels below the top split the histogram; none when no
// attribute has a level of kMinRanges ranges. With bounded memory the same
// leads, packed (LeadOrder::packed) or as permutations (LeadOrder::entry).
std::vector<LeadOrder> build_leads(const Problem& problem);

// The lead whose largest range at t's level is smallest (a check that
// stops early overshoots the limit by at most one range), or null when
// none is usable for t.
const LeadOrder* best_lead(const std::vector<LeadOrder>& leads, const Transformation& t);

// The classes of a check whose records violate the privacy models: true
// when a class of `count` records holds them all (privacy models of classes
// without distributions).
using HoldsFn = std::function<bool(std::uint64_t count)>;

// When to stop a ranged grouping early: once the records of completed
// classes that do not hold exceed `max_suppressed`.
struct EarlyStop {
  HoldsFn holds;
  std::uint64_t max_suppressed = 0;
};

// Groups the histogram by `t` range by range (REQUIRES: order.usable(t))
// into `out` (counts, range after range in the order of `visit`, within
// each in first appearance; no members; the keys left to materialize_keys,
// each class's first member in hs.partitions.rep). With `stop`, may stop after a range once the
// violating records exceed the limit: returns false and `out` holds the
// classes of the ranges grouped so far; `grouped` receives the entries
// grouped. Returns nullopt, having done nothing, when the slots of t's
// domains do not fit 63 bits (see slot_tables).
std::optional<bool> group_ranges(const Problem& problem, Checker::HashState& hs, const LeadOrder& order, const Transformation& t,
                  Classes& out, const EarlyStop* stop, std::uint64_t& grouped);

// The slots of a transformation `around` at every position of a lead's
// sorted copy (keys or keys16; not bounded memory), in around's mixed radix
// (parts words each, see SlotTables), for grouping transformations that
// generalize `around` in one attribute (group_ranges_from_base).
struct RangeBase {
  const LeadOrder* order = nullptr;
  Transformation around;
  std::uint32_t parts = 1;
  std::uint64_t slots = 0;                // parts == 1: around's slots
  std::vector<std::uint32_t> part_of;     // per attribute
  std::vector<std::uint64_t> stride;      // per attribute, within its part
  std::vector<std::uint64_t> base;        // per position, parts words
  std::vector<std::vector<std::uint32_t>> columns;  // per attribute, its codes by position (built when first used)
  const LeadOrder* columns_of = nullptr;
};

// Fills `out` for `around` and `order` (REQUIRES: the order is a sorted
// copy). Returns false when around's slots need more than kMaxParts parts.
bool build_range_base(const Problem& problem, Checker::HashState& hs, const LeadOrder& order,
                      const Transformation& around, RangeBase& out);
// Makes out.columns[q] hold attribute q's codes by position.
void build_range_column(const Problem& problem, RangeBase& out, std::uint32_t q);

// Groups the histogram by `t`, which generalizes base.around in attribute
// q alone (REQUIRES: base.order->usable(t), base.columns[q] built), range
// by range like group_ranges without an early stop: the same classes in the
// same order. A position's slot is its slot under `around` plus the change
// of q's digit (q's level is higher, so its values stay below around's
// radix): one code per position instead of one per attribute.
void group_ranges_from_base(const Problem& problem, Checker::HashState& hs, const RangeBase& base,
                            const Transformation& t, std::uint32_t q, Classes& out, std::uint64_t& grouped);

}  // namespace deid::check_internal
