// gen_discharge: a synthetic discharge-abstract table modelled on the
// Canadian DAD of papers/003 (Table 2), with its hierarchies and a census
// of the population by province, age group and sex.
//
//   gen_discharge --rows 2400000 --seed 2011 --out DIR
//
// writes DIR/discharge.csv, DIR/census.csv and DIR/hierarchies/*.csv.
// Columns: abstract_id (identifying), province (12: Quebec excluded, as in
// the paper, territories kept), age_group (20 groups: <1, 1-4, 5-9, ...,
// 85-89, 90+), sex (M, F and rare U, O: the DAD has more than two gender
// codes), diagnosis (an ICD-10-like code with a 4-level hierarchy: code ->
// case-mix group -> block -> chapter -> *), intervention (a CCI-like code
// -> short code -> *, or "none"), los (days, 1-365 -> weeks -> *), and
// discharge (disposition, a sensitive attribute that suppression keeps).
//
// The skew is what makes suppression hard and is modelled on the paper:
// provinces by population (Ontario half the records, the territories a few
// hundred per 100k), hospitalization rates peaking at birth and in old age,
// diagnosis chapters that depend on age and sex (pregnancy for women 15-49,
// perinatal conditions under 1), Zipf-distributed codes within a chapter,
// and a long-tailed length of stay that grows with age. Deterministic: a
// seed gives the same files on every platform (std::mt19937_64 with its own
// uniform and categorical draws, no std distributions).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <numbers>
#include <random>
#include <string>
#include <vector>

namespace {

struct Rng {
  std::mt19937_64 g;
  explicit Rng(std::uint64_t seed) : g(seed) {}
  double uniform() { return static_cast<double>(g() >> 11) * 0x1.0p-53; }
};

// A categorical distribution by its cumulative weights.
struct Categorical {
  std::vector<double> cdf;
  explicit Categorical(const std::vector<double>& w = {}) {
    double s = 0;
    for (double x : w) cdf.push_back(s += x);
    for (double& x : cdf) x /= s;
  }
  std::size_t draw(Rng& r) const {
    const double u = r.uniform();
    const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
    return std::min(static_cast<std::size_t>(it - cdf.begin()), cdf.size() - 1);
  }
};

std::vector<double> zipf(std::size_t n, double s) {
  std::vector<double> w(n);
  for (std::size_t i = 0; i < n; ++i) w[i] = 1.0 / std::pow(static_cast<double>(i + 1), s);
  return w;
}

struct Province {
  const char* code;
  const char* region;  // PROV_REGION of papers/003: three regions and the territories
  double population;   // thousands, 2008
};
const std::vector<Province> kProvinces = {
    {"NL", "Atlantic", 508},  {"PE", "Atlantic", 140},  {"NS", "Atlantic", 938},   {"NB", "Atlantic", 749},
    {"ON", "Central", 12930}, {"MB", "West", 1208},     {"SK", "West", 1016},      {"AB", "West", 3596},
    {"BC", "West", 4381},     {"YT", "Territories", 33}, {"NT", "Territories", 43}, {"NU", "Territories", 32}};

const std::vector<std::string> kAges = {"<1",    "1-4",   "5-9",   "10-14", "15-19", "20-24", "25-29",
                                        "30-34", "35-39", "40-44", "45-49", "50-54", "55-59", "60-64",
                                        "65-69", "70-74", "75-79", "80-84", "85-89", "90+"};
// Share of the population per age group (%), and discharges per 1000 people.
const std::vector<double> kAgeShare = {1.1, 4.2, 5.5, 6.0, 6.6, 6.8, 6.7, 6.6, 6.9, 7.8,
                                       8.1, 7.3, 6.3, 5.2, 3.9, 3.1, 2.6, 1.9, 1.0, 0.5};
const std::vector<double> kAgeRate = {900, 25, 12, 14, 40, 60, 75, 78, 62, 55,
                                      60, 72, 90, 115, 145, 180, 230, 290, 340, 380};

struct Chapter {
  char letter;
  const char* name;
  double weight;
};
const std::vector<Chapter> kChapters = {
    {'A', "Infectious", 2},  {'C', "Neoplasms", 8},      {'D', "Blood", 1.5},     {'E', "Endocrine", 3},
    {'F', "Mental", 5},      {'G', "Nervous", 2.5},     {'H', "Eye and ear", 0.7}, {'I', "Circulatory", 12},
    {'J', "Respiratory", 9}, {'K', "Digestive", 11},    {'L', "Skin", 1.5},      {'M', "Musculoskeletal", 6},
    {'N', "Genitourinary", 5}, {'O', "Pregnancy", 0},   {'P', "Perinatal", 0},   {'Q', "Congenital", 0.5},
    {'R', "Symptoms", 6},    {'S', "Injury", 8},        {'T', "Poisoning", 2},   {'Z', "Health services", 4}};

struct Hierarchy {
  std::vector<std::vector<std::string>> rows;
};

void write_hierarchy(const std::filesystem::path& p, const Hierarchy& h) {
  std::ofstream out(p, std::ios::binary);
  for (const auto& row : h.rows) {
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? ";" : "") << row[i];
    out << '\n';
  }
  if (!out) throw std::runtime_error("cannot write " + p.string());
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t rows = 5000, seed = 2011;
  std::string dir = ".";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--rows")
      rows = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--seed")
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--out")
      dir = argv[i + 1];
    else {
      std::cerr << "usage: gen_discharge [--rows N] [--seed S] [--out DIR]\n";
      return 2;
    }
  }
  if (argc % 2 == 0) {
    std::cerr << "usage: gen_discharge [--rows N] [--seed S] [--out DIR]\n";
    return 2;
  }
  const std::filesystem::path out_dir(dir);
  std::filesystem::create_directories(out_dir / "hierarchies");
  Rng rng(seed);

  // --- Diagnosis codes: chapter -> blocks -> case-mix groups -> codes.
  struct Code {
    std::string code, group, block;
    std::size_t chapter;
  };
  std::vector<Code> codes;
  std::vector<std::vector<std::size_t>> codes_of_chapter(kChapters.size());
  std::size_t group_no = 0;
  for (std::size_t c = 0; c < kChapters.size(); ++c) {
    const int blocks = 4 + static_cast<int>(rng.g() % 9);
    int number = 0;
    for (int b = 0; b < blocks; ++b) {
      const int groups = 2 + static_cast<int>(rng.g() % 5);
      const int first = number;
      std::vector<Code> in_block;
      for (int g = 0; g < groups; ++g) {
        const std::string group = fmt::format("CMG{:03}", ++group_no);
        const int n = 2 + static_cast<int>(rng.g() % 9);
        for (int k = 0; k < n; ++k) {
          if (k % 10 == 0 && k > 0) ++number;
          in_block.push_back({fmt::format("{}{:02}.{}", kChapters[c].letter, number % 100, k % 10), group, "", c});
        }
        ++number;
      }
      const std::string block = fmt::format("{}{:02}-{}{:02}", kChapters[c].letter, first % 100, kChapters[c].letter,
                                            (number - 1) % 100);
      for (auto& code : in_block) {
        code.block = block;
        codes_of_chapter[c].push_back(codes.size());
        codes.push_back(code);
      }
    }
  }
  // Zipf within a chapter, over a seeded random order of its codes.
  std::vector<Categorical> code_dist(kChapters.size());
  for (std::size_t c = 0; c < kChapters.size(); ++c) {
    auto& list = codes_of_chapter[c];
    for (std::size_t i = list.size(); i > 1; --i) std::swap(list[i - 1], list[rng.g() % i]);
    code_dist[c] = Categorical(zipf(list.size(), 1.1));
  }
  Hierarchy diag;
  for (const auto& c : codes)
    diag.rows.push_back({c.code, c.group, c.block, fmt::format("{} {}", kChapters[c.chapter].letter,
                                                               kChapters[c.chapter].name), "*"});

  // --- Interventions: short CCI codes with detailed codes below them.
  std::vector<std::string> cci = {"none"}, short_cci = {"none"};
  Hierarchy interv;
  interv.rows.push_back({"none", "none", "*"});
  for (int s = 0; s < 320; ++s) {
    const std::string sc = fmt::format("{}.{}{}.{:02}", 1 + s % 7, static_cast<char>('A' + (s / 7) % 26),
                                       static_cast<char>('A' + (s * 7) % 26), s % 90);
    const int n = 1 + static_cast<int>(rng.g() % 8);
    for (int k = 0; k < n; ++k) {
      const std::string code = fmt::format("{}.{}{}", sc, static_cast<char>('A' + k), static_cast<char>('K' + k));
      cci.push_back(code);
      short_cci.push_back(sc);
      interv.rows.push_back({code, sc, "*"});
    }
  }
  std::vector<std::size_t> interv_order(cci.size() - 1);
  for (std::size_t i = 0; i < interv_order.size(); ++i) interv_order[i] = i + 1;
  for (std::size_t i = interv_order.size(); i > 1; --i) std::swap(interv_order[i - 1], interv_order[rng.g() % i]);
  const Categorical interv_dist(zipf(interv_order.size(), 1.05));

  // --- Length of stay: days 1..365, weeks.
  Hierarchy los;
  for (int d = 1; d <= 365; ++d)
    los.rows.push_back({std::to_string(d), d <= 7 ? "1-7" : fmt::format("{}-{}", (d - 1) / 7 * 7 + 1, (d - 1) / 7 * 7 + 7),
                        "*"});

  // --- Province, age, sex hierarchies.
  Hierarchy prov, age, sexh;
  for (const auto& p : kProvinces) prov.rows.push_back({p.code, p.region, "*"});
  for (std::size_t a = 0; a < kAges.size(); ++a)
    age.rows.push_back({kAges[a], a < 5 ? "<20" : a < 13 ? "20-59" : a < 17 ? "60-79" : "80+", "*"});
  for (const char* s : {"M", "F", "U", "O"}) sexh.rows.push_back({s, "*"});

  write_hierarchy(out_dir / "hierarchies" / "diagnosis.csv", diag);
  write_hierarchy(out_dir / "hierarchies" / "intervention.csv", interv);
  write_hierarchy(out_dir / "hierarchies" / "los.csv", los);
  write_hierarchy(out_dir / "hierarchies" / "province.csv", prov);
  write_hierarchy(out_dir / "hierarchies" / "age_group.csv", age);
  write_hierarchy(out_dir / "hierarchies" / "sex.csv", sexh);

  // --- Census: population by province, age group and sex (M, F).
  {
    std::ofstream out(out_dir / "census.csv", std::ios::binary);
    out << "province,region,age_group,sex,count\n";
    for (const auto& p : kProvinces)
      for (std::size_t a = 0; a < kAges.size(); ++a)
        for (const char* s : {"M", "F"}) {
          const double share = kAgeShare[a] / 100.0 * (s[0] == 'F' ? (a >= 16 ? 0.58 : 0.5) : (a >= 16 ? 0.42 : 0.5));
          out << p.code << ',' << p.region << ',' << kAges[a] << ',' << s << ','
              << static_cast<std::uint64_t>(std::llround(p.population * 1000 * share)) << '\n';
        }
  }

  // --- Records.
  std::vector<double> prov_w;
  for (const auto& p : kProvinces) prov_w.push_back(p.population);
  const Categorical prov_dist(prov_w);
  std::vector<double> age_w;
  for (std::size_t a = 0; a < kAges.size(); ++a) age_w.push_back(kAgeShare[a] * kAgeRate[a]);
  const Categorical age_dist(age_w);
  const Categorical dispo({70, 12, 10, 4, 4});
  const std::vector<std::string> dispo_names = {"home", "home care", "transfer", "died", "other"};

  std::ofstream out(out_dir / "discharge.csv", std::ios::binary);
  out << "abstract_id,province,age_group,sex,diagnosis,intervention,los,discharge\n";
  std::string line;
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::size_t p = prov_dist.draw(rng);
    const std::size_t a = age_dist.draw(rng);
    const double su = rng.uniform();
    const char* sex = su < 0.0002 ? "U" : su < 0.00025 ? "O" : (su < (a >= 4 && a <= 9 ? 0.62 : 0.49) ? "F" : "M");
    // Chapter weights depend on age and sex.
    std::vector<double> cw;
    for (const auto& ch : kChapters) {
      double w = ch.weight;
      if (ch.letter == 'O') w = (sex[0] == 'F' && a >= 4 && a <= 10) ? 60 : 0;
      if (ch.letter == 'P') w = a == 0 ? 120 : 0;
      if (a == 0 && ch.letter != 'P') w *= 0.1;
      if (ch.letter == 'C' || ch.letter == 'I') w *= a >= 11 ? 2.5 : 0.3;
      if (ch.letter == 'S' || ch.letter == 'F') w *= (a >= 3 && a <= 8) ? 2.0 : 1.0;
      if (ch.letter == 'J') w *= (a <= 2 || a >= 15) ? 2.0 : 1.0;
      cw.push_back(w);
    }
    const std::size_t ch = Categorical(cw).draw(rng);
    const Code& code = codes[codes_of_chapter[ch][code_dist[ch].draw(rng)]];
    const std::string& intervention = rng.uniform() < 0.35 ? cci[0] : cci[interv_order[interv_dist.draw(rng)]];
    // Length of stay: log-normal, longer with age and for some chapters.
    const double mu = 1.0 + 0.03 * static_cast<double>(a) + (code.code[0] == 'F' ? 0.9 : 0.0) +
                      (code.code[0] == 'O' || code.code[0] == 'P' ? -0.4 : 0.0);
    const double z = std::sqrt(-2.0 * std::log(1.0 - rng.uniform())) * std::cos(2 * std::numbers::pi * rng.uniform());
    const int days = std::clamp(static_cast<int>(std::exp(mu + 0.85 * z)) + 1, 1, 365);
    std::size_t d = dispo.draw(rng);
    if (a >= 17 && rng.uniform() < 0.08) d = 3;
    line = fmt::format("{},{},{},{},{},{},{},{}\n", 1000000 + r, kProvinces[p].code, kAges[a], sex, code.code,
                       intervention, days, dispo_names[d]);
    out << line;
  }
  if (!out) {
    std::cerr << "cannot write " << (out_dir / "discharge.csv") << '\n';
    return 1;
  }
  std::cerr << fmt::format("{} rows, {} diagnosis codes, {} interventions -> {}\n", rows, codes.size(), cci.size(),
                           out_dir.string());
  return 0;
}
