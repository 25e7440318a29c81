// Class requirements on a sensitive attribute for the independent verifier
// (verify.h): entropy l-diversity, recursive (c,l)-diversity, t-closeness
// with equal, hierarchical and ordered ground distance, delta-disclosure and
// beta-likeness. Like the rest of the
// verifier this shares no code with the engine: it works on the values as
// strings, with std only, and computes each quantity from its textbook
// definition, which is not how the engine computes it:
//
//  - entropy l-diversity (Machanavajjhala et al., TKDD 2007, Def. 4.1):
//    at least ceil(l) distinct values and -sum p ln p >= ln l;
//  - recursive (c,l)-diversity (ibid., Def. 4.3): with the counts sorted
//    descending, at least l values and r_1 < c (r_l + ... + r_m);
//  - t-closeness (Li, Li, Venkatasubramanian, ICDE 2007), D[P,Q] <= t, Q the
//    distribution over all records of the output (suppressed ones too:
//    their sensitive values are kept; with a research subset, the subset's
//    records, every other value of the input kept with count 0, as ARX):
//      equal         1/2 sum |p_i - q_i|;
//      ordered       1/(m-1) sum_i |sum_{j<=i} (p_j - q_j)|, values in
//                    numeric order when all are numbers, else in `order`;
//      hierarchical  the earth mover's distance on the tree of the hierarchy
//                    with ground distance level(lowest common ancestor)/H,
//                    computed as flow over edges: every edge is 1/(2H) long
//                    and carries the net surplus of the subtree below it, so
//                    D = 1/(2H) sum over non-root nodes N of |sum_{v under N}
//                    (p_v - q_v)| (the engine instead sums, per inner node,
//                    level/H times the mass matched there).
//
// Distances and entropies are computed in long double and compared with a
// tolerance of kTolerance in the model's favour: the verifier rejects only
// classes that violate the model by more than rounding. (The engine follows
// ARX's floating-point expressions exactly and may reject a class at the
// bound that the verifier accepts; never the other way round.)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace verify {

inline constexpr long double kTolerance = 1e-9L;

// Entropy l-diversity (natural logarithm). With `grassberger`, the entropy
// is Grassberger's estimate as ARX defines it, G(N) - (1/N) sum n_i G(n_i)
// with G(n) = psi(n) + (-1)^n (psi((n+1)/2) - psi(n/2)) / 2 (Grassberger,
// arXiv:physics/0307138, 2003; psi the digamma function, computed here by
// recurrence and its asymptotic series, not from a table).
struct EntropyLDiversity {
  std::string attribute;
  double l = 2;
  bool grassberger = false;
};

// delta-disclosure privacy (Brickell and Shmatikov, KDD 2008): every value
// v in a class has |ln(q(v) / p(v))| / ln 2 < delta, q its share in the
// class and p its share over all records.
struct DeltaDisclosure {
  std::string attribute;
  double delta = 1;
};

// beta-likeness (Cao and Karras, PVLDB 2012): every value v in a class has
// (q(v) - p(v)) / p(v) <= beta; enhanced: <= min(beta, -ln p(v)).
struct BetaLikeness {
  std::string attribute;
  double beta = 1;
  bool enhanced = true;
};

// Recursive (c,l)-diversity.
struct RecursiveCLDiversity {
  std::string attribute;
  double c = 1;
  std::uint64_t l = 2;
};

struct TCloseness {
  enum class Distance { equal, hierarchical, ordered };
  std::string attribute;
  Distance distance = Distance::equal;
  double t = 0.2;
  // hierarchical: the rows of the attribute's hierarchy (value;level1;...;top,
  // as read by read_csv_file without header). Every value must be a leaf.
  std::vector<std::vector<std::string>> hierarchy;
  // ordered: the order of the values when they are not all numbers.
  std::vector<std::string> order;
};

// Value → number of records.
using ValueCounts = std::map<std::string, std::uint64_t>;

// The quantities, from their definitions. nullopt (and `*why` set) when the
// distance is undefined: a value missing from the hierarchy or the order.
long double shannon_entropy(const ValueCounts& cls);
long double grassberger_entropy(const ValueCounts& cls);
long double digamma(long double x);  // REQUIRES: x > 0
long double equal_distance(const ValueCounts& cls, const ValueCounts& all);
std::optional<long double> ordered_distance(const ValueCounts& cls, const ValueCounts& all,
                                            const std::vector<std::string>& order, std::string* why);
std::optional<long double> hierarchical_distance(const ValueCounts& cls, const ValueCounts& all,
                                                 const std::vector<std::vector<std::string>>& hierarchy,
                                                 std::string* why);

// Whether a class with distribution `cls` satisfies the requirement; `all`
// is the distribution over all records. On failure `*why` says what the
// class lacks, as the end of a sentence ("... has <why>").
bool requirement_holds(const EntropyLDiversity& r, const ValueCounts& cls, const ValueCounts& all, std::string* why);
bool requirement_holds(const RecursiveCLDiversity& r, const ValueCounts& cls, const ValueCounts& all,
                       std::string* why);
bool requirement_holds(const TCloseness& r, const ValueCounts& cls, const ValueCounts& all, std::string* why);
bool requirement_holds(const DeltaDisclosure& r, const ValueCounts& cls, const ValueCounts& all, std::string* why);
bool requirement_holds(const BetaLikeness& r, const ValueCounts& cls, const ValueCounts& all, std::string* why);

}  // namespace verify
