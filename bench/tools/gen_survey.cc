// Generates a survey-like table shaped like the IHIS extract used in ARX's
// benchmarks (papers/000: 1,193,504 records, 9 quasi-identifiers): year,
// quarter, region, household person number, age, marital status, sex, race,
// education. Values follow skewed, correlated distributions (age pyramid;
// marital status and education depend on age; household person numbers fall
// off geometrically), so class sizes resemble real survey data.
//
//   gen_survey OUT_DIR [ROWS] [SEED]
//
// writes OUT_DIR/survey.csv, OUT_DIR/hierarchies/*.csv and OUT_DIR/survey.yaml
// (k=5, 5 % suppression, Loss). Deterministic: its own generator, no
// implementation-defined std distributions.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

// splitmix64: small, fast, and identical on every platform.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Index drawn with the given (unnormalized) weights.
  std::size_t pick(const std::vector<double>& w) {
    double total = 0;
    for (double x : w) total += x;
    double u = uniform() * total;
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (u < w[i]) return i;
      u -= w[i];
    }
    return w.size() - 1;
  }
};

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

std::string range_label(int lo, int width) { return std::to_string(lo) + "-" + std::to_string(lo + width - 1); }

const std::vector<std::string> kRegions = {"Northeast", "Midwest", "South", "West"};
const std::vector<std::string> kMarital = {"Married", "Widowed", "Divorced", "Separated", "Never married",
                                           "Living with partner", "Unknown"};
const std::vector<std::string> kRace = {"White", "Black", "American Indian", "Asian", "Pacific Islander",
                                        "Multiple", "Other"};
const std::vector<std::string> kEducation = {
    "Never attended", "Grade 1-4", "Grade 5-8", "Grade 9", "Grade 10", "Grade 11", "Grade 12 no diploma",
    "High school graduate", "GED", "Some college", "Associate vocational", "Associate academic", "Bachelor",
    "Master", "Professional", "Doctorate", "Unknown"};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gen_survey OUT_DIR [ROWS] [SEED]\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const std::uint64_t rows = argc > 2 ? std::stoull(argv[2]) : 1193504;
  Rng rng{argc > 3 ? std::stoull(argv[3]) : 20161122};
  std::filesystem::create_directories(dir / "hierarchies");

  // Hierarchies.
  std::string h;
  for (int y = 1997; y <= 2014; ++y)
    h += std::to_string(y) + ";" + range_label(1997 + (y - 1997) / 2 * 2, 2) + ";" +
         range_label(1997 + (y - 1997) / 6 * 6, 6) + ";*\n";
  write_file(dir / "hierarchies/YEAR.csv", h);
  h.clear();
  for (int q = 1; q <= 4; ++q) h += std::to_string(q) + ";" + (q <= 2 ? "H1" : "H2") + ";*\n";
  write_file(dir / "hierarchies/QUARTER.csv", h);
  h.clear();
  for (std::size_t r = 0; r < kRegions.size(); ++r)
    h += kRegions[r] + ";" + (r < 2 ? "North" : "South/West") + ";*\n";
  write_file(dir / "hierarchies/REGION.csv", h);
  h.clear();
  for (int p = 1; p <= 20; ++p)
    h += std::to_string(p) + ";" + (p <= 2 ? "1-2" : p <= 5 ? "3-5" : "6+") + ";" + (p <= 5 ? "1-5" : "6+") + ";*\n";
  write_file(dir / "hierarchies/PERNUM.csv", h);
  h.clear();
  for (int a = 0; a <= 99; ++a)
    h += std::to_string(a) + ";" + range_label(a / 5 * 5, 5) + ";" + range_label(a / 10 * 10, 10) + ";" +
         range_label(a / 20 * 20, 20) + ";*\n";
  write_file(dir / "hierarchies/AGE.csv", h);
  h.clear();
  for (std::size_t m = 0; m < kMarital.size(); ++m)
    h += kMarital[m] + ";" + (m == 0 || m == 5 ? "Partnered" : m == 6 ? "Unknown" : "Single") + ";*\n";
  write_file(dir / "hierarchies/MARSTAT.csv", h);
  write_file(dir / "hierarchies/SEX.csv", "Male;*\nFemale;*\n");
  h.clear();
  for (std::size_t r = 0; r < kRace.size(); ++r) h += kRace[r] + ";" + (r == 0 ? "White" : "Non-white") + ";*\n";
  write_file(dir / "hierarchies/RACEA.csv", h);
  h.clear();
  for (std::size_t e = 0; e < kEducation.size(); ++e) {
    const char* g1 = e <= 2 ? "Primary" : e <= 6 ? "Secondary, no diploma" : e <= 8 ? "High school" : e <= 11 ? "Some college" : e <= 15 ? "Degree" : "Unknown";
    const char* g2 = e <= 8 ? "School" : e <= 15 ? "College" : "Unknown";
    h += kEducation[e] + ";" + g1 + ";" + g2 + ";*\n";
  }
  write_file(dir / "hierarchies/EDUC.csv", h);

  // Distributions.
  std::vector<double> age_w(100);
  for (int a = 0; a < 100; ++a) age_w[a] = a < 60 ? 1.0 : std::exp(-(a - 60) / 12.0);
  const std::vector<double> region_w = {0.18, 0.22, 0.37, 0.23};
  const std::vector<double> race_w = {0.76, 0.13, 0.012, 0.058, 0.003, 0.025, 0.012};
  std::vector<double> pernum_w(20);
  for (int p = 0; p < 20; ++p) pernum_w[p] = std::pow(0.55, p);

  std::string out = "YEAR,QUARTER,REGION,PERNUM,AGE,MARSTAT,SEX,RACEA,EDUC\n";
  out.reserve(static_cast<std::size_t>(rows) * 64);
  for (std::uint64_t r = 0; r < rows; ++r) {
    const int year = 1997 + static_cast<int>(rng.next() % 18);
    const int quarter = 1 + static_cast<int>(rng.next() % 4);
    const std::size_t region = rng.pick(region_w);
    const int age = static_cast<int>(rng.pick(age_w));
    // Children are later household members; adults mostly the first two.
    const int pernum = 1 + static_cast<int>(rng.pick(pernum_w)) + (age < 18 ? 2 : 0);
    std::vector<double> mw;
    if (age < 16) mw = {0, 0, 0, 0, 1, 0, 0.001};
    else if (age < 30) mw = {0.3, 0.002, 0.03, 0.02, 0.55, 0.1, 0.005};
    else if (age < 65) mw = {0.6, 0.03, 0.14, 0.03, 0.13, 0.06, 0.005};
    else mw = {0.52, 0.3, 0.1, 0.01, 0.05, 0.015, 0.005};
    const std::size_t marital = rng.pick(mw);
    const bool male = rng.uniform() < (age < 70 ? 0.49 : 0.42);
    const std::size_t race = rng.pick(race_w);
    std::vector<double> ew(kEducation.size(), 0.0);
    if (age < 6) ew[0] = 1;
    else if (age < 11) ew[1] = 1;
    else if (age < 15) ew[2] = 1;
    else if (age < 19) ew = {0.01, 0, 0.05, 0.2, 0.25, 0.25, 0.1, 0.12, 0.01, 0.01, 0, 0, 0, 0, 0, 0, 0.002};
    else ew = {0.01, 0.01, 0.04, 0.02, 0.02, 0.03, 0.03, 0.28, 0.04, 0.18, 0.04, 0.05, 0.16, 0.06, 0.015, 0.012, 0.01};
    const std::size_t educ = rng.pick(ew);
    out += std::to_string(year);
    out += ',';
    out += std::to_string(quarter);
    out += ',';
    out += kRegions[region];
    out += ',';
    out += std::to_string(std::min(pernum, 20));
    out += ',';
    out += std::to_string(age);
    out += ',';
    out += kMarital[marital];
    out += ',';
    out += male ? "Male" : "Female";
    out += ',';
    out += kRace[race];
    out += ',';
    out += kEducation[educ];
    out += '\n';
  }
  write_file(dir / "survey.csv", out);

  std::string job = "# Survey-like benchmark table (bench/tools/gen_survey.cc): k=5, 5 % suppression, Loss.\n"
                    "input:\n  path: survey.csv\n  delimiter: \",\"\nattributes:\n";
  for (const char* q : {"YEAR", "QUARTER", "REGION", "PERNUM", "AGE", "MARSTAT", "SEX", "RACEA", "EDUC"})
    job += std::string("  ") + q + ": {role: quasi-identifying, hierarchy: hierarchies/" + q + ".csv}\n";
  job += "privacy:\n  - k-anonymity: {k: 5}\nsuppression-limit: 0.05\nquality:\n  model: loss\n"
         "search:\n  algorithm: optimal\noutput:\n  path: survey-deid.csv\n  result: survey-deid.json\n";
  write_file(dir / "survey.yaml", job);
  std::printf("wrote %llu rows to %s\n", static_cast<unsigned long long>(rows), (dir / "survey.csv").c_str());
  return 0;
}
