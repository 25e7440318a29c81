// k-anonymity (Samarati and Sweeney): every equivalence class of the output
// has at least k records.
//
// Monotonic with record suppression (papers/000, "Insufficient protection"):
// generalizing merges classes, and merged classes are never smaller, so a
// class that holds keeps holding and the records to suppress can only
// decrease.
#pragma once

#include "deid/privacy.h"

namespace deid {

class KAnonymity final : public PrivacyModel {
 public:
  explicit KAnonymity(std::uint64_t k) : k_(k) {}
  std::string describe() const override;
  nlohmann::json to_json() const override;
  bool monotonic() const override { return true; }
  bool holds(const ClassView& cls) const override { return cls.count >= k_; }
  std::uint64_t minimal_class_size() const override { return k_; }
  bool declares_minimal_class_size() const override { return true; }
  std::uint64_t k() const { return k_; }

 private:
  std::uint64_t k_;
};

}  // namespace deid
