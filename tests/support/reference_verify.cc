// The verifier's side of the reference runs (reference.h), apart from
// reference.cc, which tests without the verifier link too.
#include "support/reference.h"
#include "verify.h"

namespace deid::testing {

verify::Options arx_adult_verify_options(const nlohmann::json& run, const Job& job) {
  verify::Options o;
  o.input_path = job.input.path;
  o.output_path = job.output.path;
  o.input_delimiter = ';';
  for (const auto& q : run["quasi_identifiers"]) {
    const std::string name = q.get<std::string>();
    o.quasi_identifiers.push_back({name, example_path("adult/hierarchies/" + name + ".csv")});
  }
  o.suppression_limit = run["suppression_limit"].get<double>();
  return o;
}

}  // namespace deid::testing
