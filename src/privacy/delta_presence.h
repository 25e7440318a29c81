// δ-presence (Nergiz, Atzori and Clifton, "Hiding the presence of
// individuals from shared databases", SIGMOD 2007), as ARX's DPresence.
// docs/privacy-models.md, "δ-presence".
//
// The input is the population (the public table, which an adversary may
// hold) and the job's research subset the records released (the private
// table). An adversary who finds a person in a released class of c subset
// records, whose population class has p records, learns that the person is
// in the subset with probability c / p. Each class must have
// min <= c / p <= max (c / p = 0 for a class without subset records).
//
// A class with subset records that fails is suppressed. A class without
// subset records cannot be suppressed (it has no record in the release);
// when it fails, the transformation is not a solution (ARX's
// HashGroupify.analyze). As ARX, δ-presence is not asked about such a class
// when another model declares a minimal class size (it fails that first):
// Checker handles both.
//
// Monotonicity: merging two classes whose shares are in [min, max] gives a
// share in between, so without suppression a generalization of a solution
// is one (ARX: monotonic with generalization). Not with suppression: a
// suppressed class that fails merges with one that holds into one that
// fails (ARX: not monotonic with suppression). Nor, in deid, when min > 0:
// a class without subset records that no one asked about (a model with a
// minimal class size, above) has share 0 and can pull a merged class below
// min. monotonic() is therefore true only without suppression and with
// min 0.
#pragma once

#include "deid/job.h"
#include "deid/privacy.h"

namespace deid {

class DeltaPresence final : public PrivacyModel {
 public:
  // `suppression`: the problem may suppress records.
  DeltaPresence(const DeltaPresenceSpec& spec, bool suppression) : spec_(spec), suppression_(suppression) {}
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return !suppression_ && spec_.min == 0; }
  bool needs_distributions() const override { return true; }
  bool holds(const ClassView& cls) const override;
  bool delta_presence() const override { return true; }

 private:
  DeltaPresenceSpec spec_;
  bool suppression_;
};

}  // namespace deid
