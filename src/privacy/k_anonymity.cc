#include "privacy/k_anonymity.h"

#include <fmt/format.h>

namespace deid {

std::string KAnonymity::describe() const { return fmt::format("{}-anonymity", k_); }

nlohmann::json KAnonymity::to_json() const { return {{"model", "k-anonymity"}, {"k", k_}}; }

}  // namespace deid
