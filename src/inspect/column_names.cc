// Detection by column name: the words of a name (English, with common
// abbreviations) against the HIPAA Safe Harbor identifier types of 45 CFR
// 164.514(b)(2)(i) (A) to (R), and the hints that make a column a
// quasi-identifier (demographics an attacker may know) or sensitive.
//
// A rule is a sequence of words that must occur in the name in that order,
// next to each other; the name's words are also joined, so "firstname",
// "first_name" and "FirstName" all match "first name".
#include <algorithm>
#include <cctype>
#include <string>

#include "inspect/detectors.h"

namespace deid::inspect_detail {
namespace {

struct Rule {
  const char* words;  // space-separated
  const char* type;
  const char* hipaa;
  double confidence;
};

// The names of the types, as findings carry them.
constexpr const char* kName = "names";
constexpr const char* kGeo = "geographic subdivision smaller than a state";
constexpr const char* kDate = "dates (more precise than year)";
constexpr const char* kPhone = "telephone number";
constexpr const char* kFax = "fax number";
constexpr const char* kEmail = "e-mail address";
constexpr const char* kSsn = "social security number";
constexpr const char* kMrn = "medical record number";
constexpr const char* kPlan = "health plan beneficiary number";
constexpr const char* kAccount = "account number";
constexpr const char* kLicence = "certificate or licence number";
constexpr const char* kVehicle = "vehicle identifier";
constexpr const char* kDevice = "device identifier";
constexpr const char* kUrl = "web URL";
constexpr const char* kIp = "IP address";
constexpr const char* kBiometric = "biometric identifier";
constexpr const char* kPhoto = "full-face photograph";
constexpr const char* kOther = "other unique identifying number";

// Longer rules first within a type: the first rule of a type that matches
// is the one reported.
constexpr Rule kRules[] = {
    {"first name", kName, "A", 0.95}, {"last name", kName, "A", 0.95}, {"family name", kName, "A", 0.95},
    {"given name", kName, "A", 0.95}, {"full name", kName, "A", 0.95}, {"middle name", kName, "A", 0.95},
    {"maiden name", kName, "A", 0.95}, {"patient name", kName, "A", 0.95}, {"surname", kName, "A", 0.95},
    {"forename", kName, "A", 0.95}, {"fname", kName, "A", 0.9}, {"lname", kName, "A", 0.9},
    {"user name", kName, "A", 0.8}, {"name", kName, "A", 0.7},
    {"street", kGeo, "B", 0.95}, {"address", kGeo, "B", 0.9}, {"zip", kGeo, "B", 0.95},
    {"zipcode", kGeo, "B", 0.95}, {"postcode", kGeo, "B", 0.95}, {"postal", kGeo, "B", 0.9},
    {"plz", kGeo, "B", 0.9}, {"city", kGeo, "B", 0.9}, {"town", kGeo, "B", 0.8}, {"county", kGeo, "B", 0.9},
    {"municipality", kGeo, "B", 0.9}, {"district", kGeo, "B", 0.7}, {"precinct", kGeo, "B", 0.8},
    {"latitude", kGeo, "B", 0.9}, {"longitude", kGeo, "B", 0.9}, {"lat", kGeo, "B", 0.6},
    {"lon", kGeo, "B", 0.6}, {"lng", kGeo, "B", 0.6}, {"geocode", kGeo, "B", 0.9},
    {"date of birth", kDate, "C", 0.95}, {"birth date", kDate, "C", 0.95}, {"birthdate", kDate, "C", 0.95},
    {"birthday", kDate, "C", 0.95}, {"dob", kDate, "C", 0.95}, {"date of death", kDate, "C", 0.95},
    {"dod", kDate, "C", 0.8}, {"date", kDate, "C", 0.8}, {"admitted", kDate, "C", 0.7},
    {"admission", kDate, "C", 0.6}, {"discharged", kDate, "C", 0.7}, {"discharge", kDate, "C", 0.6},
    {"dt", kDate, "C", 0.6}, {"timestamp", kDate, "C", 0.8}, {"datetime", kDate, "C", 0.8},
    {"fax", kFax, "E", 0.95},
    {"telephone", kPhone, "D", 0.95}, {"phone", kPhone, "D", 0.95}, {"tel", kPhone, "D", 0.8},
    {"mobile", kPhone, "D", 0.8}, {"cell", kPhone, "D", 0.6}, {"msisdn", kPhone, "D", 0.9},
    {"email", kEmail, "F", 0.95}, {"e mail", kEmail, "F", 0.95}, {"mail", kEmail, "F", 0.7},
    {"social security", kSsn, "G", 0.95}, {"ssn", kSsn, "G", 0.95}, {"socsec", kSsn, "G", 0.9},
    {"medical record", kMrn, "H", 0.95}, {"mrn", kMrn, "H", 0.95}, {"chart number", kMrn, "H", 0.9},
    {"patient id", kMrn, "H", 0.9}, {"patient number", kMrn, "H", 0.9}, {"case number", kMrn, "H", 0.7},
    {"health plan", kPlan, "I", 0.95}, {"member id", kPlan, "I", 0.9}, {"insurance id", kPlan, "I", 0.9},
    {"insurance number", kPlan, "I", 0.9}, {"policy number", kPlan, "I", 0.9}, {"beneficiary", kPlan, "I", 0.8},
    {"medicare", kPlan, "I", 0.8}, {"medicaid", kPlan, "I", 0.8}, {"subscriber id", kPlan, "I", 0.9},
    {"account", kAccount, "J", 0.9}, {"acct", kAccount, "J", 0.9}, {"iban", kAccount, "J", 0.95},
    {"card number", kAccount, "J", 0.9},
    {"licence", kLicence, "K", 0.9}, {"license", kLicence, "K", 0.9}, {"certificate", kLicence, "K", 0.9},
    {"permit", kLicence, "K", 0.7}, {"passport", kLicence, "K", 0.95},
    {"vin", kVehicle, "L", 0.9}, {"licence plate", kVehicle, "L", 0.95}, {"license plate", kVehicle, "L", 0.95},
    {"plate", kVehicle, "L", 0.7}, {"vehicle", kVehicle, "L", 0.8},
    {"device id", kDevice, "M", 0.95}, {"serial number", kDevice, "M", 0.9}, {"serial", kDevice, "M", 0.8},
    {"imei", kDevice, "M", 0.95}, {"udi", kDevice, "M", 0.8}, {"mac address", kDevice, "M", 0.9},
    {"url", kUrl, "N", 0.95}, {"website", kUrl, "N", 0.9}, {"homepage", kUrl, "N", 0.9},
    {"web", kUrl, "N", 0.6},
    {"ip address", kIp, "O", 0.95}, {"ip", kIp, "O", 0.9}, {"ipv4", kIp, "O", 0.95}, {"ipv6", kIp, "O", 0.95},
    {"fingerprint", kBiometric, "P", 0.9}, {"voiceprint", kBiometric, "P", 0.9}, {"retina", kBiometric, "P", 0.8},
    {"iris", kBiometric, "P", 0.7}, {"biometric", kBiometric, "P", 0.9},
    {"photo", kPhoto, "Q", 0.9}, {"photograph", kPhoto, "Q", 0.9}, {"face image", kPhoto, "Q", 0.9},
    {"uuid", kOther, "R", 0.9}, {"guid", kOther, "R", 0.9}, {"identifier", kOther, "R", 0.7},
    {"id", kOther, "R", 0.7}, {"number", kOther, "R", 0.5}, {"nr", kOther, "R", 0.5}, {"no", kOther, "R", 0.4},
    {"key", kOther, "R", 0.5},
};

std::vector<std::string> split_words(const char* words) {
  std::vector<std::string> out;
  std::string w;
  for (const char* p = words;; ++p) {
    if (*p == ' ' || *p == 0) {
      if (!w.empty()) out.push_back(w);
      w.clear();
      if (*p == 0) break;
    } else {
      w.push_back(*p);
    }
  }
  return out;
}

// Whether `rule` occurs in `words` as consecutive words, or as one word
// that is the rule's words joined ("firstname").
bool contains(const std::vector<std::string>& words, const std::vector<std::string>& rule) {
  if (rule.empty()) return false;
  for (std::size_t i = 0; i + rule.size() <= words.size(); ++i)
    if (std::equal(rule.begin(), rule.end(), words.begin() + static_cast<std::ptrdiff_t>(i))) return true;
  if (rule.size() == 1) return false;
  std::string joined;
  for (const auto& r : rule) joined += r;
  return std::find(words.begin(), words.end(), joined) != words.end();
}

bool any_word(std::string_view name, std::initializer_list<const char*> rules) {
  const std::vector<std::string> words = name_words(name);
  for (const char* r : rules)
    if (contains(words, split_words(r))) return true;
  return false;
}

}  // namespace

std::vector<std::string> name_words(std::string_view name) {
  std::vector<std::string> out;
  std::string w;
  auto flush = [&] {
    if (!w.empty()) out.push_back(w);
    w.clear();
  };
  for (std::size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (!std::isalnum(c)) {
      flush();
      continue;
    }
    // A new word at a lower-to-upper change ("patientDOB") and at the last
    // capital of a run followed by a lower-case letter ("DOBDate").
    if (std::isupper(c) && !w.empty()) {
      const unsigned char prev = static_cast<unsigned char>(name[i - 1]);
      const bool next_lower = i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
      if (std::islower(prev) || std::isdigit(prev) || (std::isupper(prev) && next_lower)) flush();
    }
    w.push_back(static_cast<char>(std::tolower(c)));
  }
  flush();
  return out;
}

std::vector<NameMatch> match_column_name(std::string_view name) {
  const std::vector<std::string> words = name_words(name);
  std::vector<NameMatch> out;
  for (const Rule& rule : kRules) {
    if (std::any_of(out.begin(), out.end(), [&](const NameMatch& m) { return m.type == rule.type; })) continue;
    if (contains(words, split_words(rule.words))) out.push_back({rule.type, rule.hipaa, rule.confidence, rule.words});
  }
  // "fax number", "phone number", "account number": the number belongs to
  // the more specific type, not to "other unique identifying number"; a
  // name ("drug name") next to a type is that type's.
  if (out.size() > 1) {
    std::erase_if(out, [](const NameMatch& m) { return m.type == std::string(kOther) && m.confidence < 0.9; });
    if (std::any_of(out.begin(), out.end(), [](const NameMatch& m) { return m.type == std::string(kFax); }))
      std::erase_if(out, [](const NameMatch& m) { return m.type == std::string(kPhone); });
  }
  return out;
}

bool is_age_name(std::string_view name) { return any_word(name, {"age", "ages", "alter", "age years"}); }

bool is_year_name(std::string_view name) { return any_word(name, {"year", "yr", "yob", "jahr"}); }

bool is_demographic_name(std::string_view name) {
  return any_word(name, {"sex", "gender", "age", "birth", "born", "yob", "race", "ethnicity", "ethnic", "marital",
                         "married", "education", "degree", "occupation", "job", "profession", "employment",
                         "workclass", "work class", "country", "nationality", "citizenship", "language", "religion",
                         "state", "region", "zip", "postcode", "plz", "height", "weight", "children", "household"});
}

bool is_sensitive_name(std::string_view name) {
  return any_word(name, {"diagnosis", "diagnoses", "dx", "icd", "disease", "condition", "medication", "drug", "procedure",
                         "treatment", "therapy", "result", "outcome", "lab", "test", "income", "salary", "hiv",
                         "cancer", "pregnancy", "disability", "score", "severity"});
}

}  // namespace deid::inspect_detail
