// Keyed pseudonyms, masks and date shifts (include/deid/identifiers.h):
// RFC 4231's HMAC-SHA-256 test vectors, pseudonyms and date offsets worked
// out by hand from the HMAC, dates and masks.
#include "deid/identifiers.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using deid::DateFormat;
using deid::MaskSpec;

std::string hmac_hex(const std::string& key, const std::string& message) {
  const auto mac = deid::hmac_sha256(key, message);
  return deid::to_hex(mac.data(), mac.size());
}

// RFC 4231, section 4: test cases 1, 2, 3, 4, 6 and 7 (HMAC-SHA-256).
TEST(Hmac, Rfc4231TestVectors) {
  EXPECT_EQ(hmac_hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(hmac_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(hmac_hex(std::string(20, '\xaa'), std::string(50, '\xdd')),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
  std::string key4;
  for (char c = 1; c <= 25; ++c) key4.push_back(c);
  EXPECT_EQ(hmac_hex(key4, std::string(50, '\xcd')),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
  EXPECT_EQ(hmac_hex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
  EXPECT_EQ(hmac_hex(std::string(131, '\xaa'),
                     "This is a test using a larger than block-size key and a larger than block-size data. The key "
                     "needs to be hashed before being used by the HMAC algorithm."),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
  // An empty message is a message too.
  EXPECT_EQ(hmac_hex("key", "").size(), 64u);
}

// The keyed object gives the same MACs, message after message.
TEST(Hmac, KeyedObjectAgreesWithTheVectorsWhenReused) {
  deid::Hmac jefe("Jefe");
  for (int i = 0; i < 3; ++i) {
    const auto mac = jefe("what do ya want for nothing?");
    EXPECT_EQ(deid::to_hex(mac.data(), mac.size()), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    const auto empty = jefe("");
    EXPECT_EQ(deid::to_hex(empty.data(), empty.size()), hmac_hex("Jefe", ""));
  }
  deid::Hmac long_key(std::string(131, '\xaa'));
  const auto mac = long_key("Test Using Larger Than Block-Size Key - Hash Key First");
  EXPECT_EQ(deid::to_hex(mac.data(), mac.size()), "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

constexpr const char* kSecret = "correct horse battery staple";

// HMAC-SHA-256("correct horse battery staple", "P-0001") =
// 83e2c76d568f4c6dce3e556077ab797c0fdaa8bd2e845e0e868d0f85da89db2c
// (`printf P-0001 | openssl dgst -sha256 -hmac "correct horse battery staple"`).
TEST(Pseudonym, IsTheHmacsLeadingHexDigits) {
  EXPECT_EQ(deid::pseudonym(kSecret, "P-0001", 16), "83e2c76d568f4c6d");
  EXPECT_EQ(deid::pseudonym(kSecret, "P-0001", 64), "83e2c76d568f4c6dce3e556077ab797c0fdaa8bd2e845e0e868d0f85da89db2c");
  EXPECT_EQ(deid::pseudonym(kSecret, "P-0002", 16), "7e5103edde37a588");
  // Another secret: unrelated pseudonyms.
  EXPECT_NE(deid::pseudonym("another secret of 32 bytes.....", "P-0001", 16), "83e2c76d568f4c6d");
}

// The offset of P-0001 with a range of 30 days, by hand:
// HMAC-SHA-256(secret, "deid date shift" 0x00 "P-0001") begins 02236cd5c80edb7c;
// 0x02236cd5c80edb7c = 154086477700979580; mod 61 = 41; 41 - 30 = +11 days.
// For P-0002: 617f735c287fecfb = 7025460783374920955; mod 61 = 31; +1 day.
TEST(DateOffset, WorkedByHand) {
  EXPECT_EQ(deid::date_offset(kSecret, "P-0001", 30), 11);
  EXPECT_EQ(deid::date_offset(kSecret, "P-0002", 30), 1);
  // Always within the range.
  for (int i = 0; i < 2000; ++i) {
    const int d = deid::date_offset(kSecret, "person " + std::to_string(i), 7);
    EXPECT_GE(d, -7);
    EXPECT_LE(d, 7);
  }
}

TEST(DateFormatTest, ParsesAndFormatsAcrossMonthsAndLeapYears) {
  const DateFormat iso("%Y-%m-%d");
  ASSERT_EQ(iso.parse("1970-01-01"), 0);
  EXPECT_EQ(iso.parse("2024-02-25").value() + 11, iso.parse("2024-03-07").value());  // 2024 is a leap year
  EXPECT_EQ(iso.format(*iso.parse("2024-02-25") + 4), "2024-02-29");
  EXPECT_EQ(iso.format(*iso.parse("2023-02-25") + 4), "2023-03-01");
  EXPECT_EQ(iso.format(*iso.parse("2024-12-30") + 3), "2025-01-02");
  EXPECT_FALSE(iso.parse("2023-02-29"));
  EXPECT_FALSE(iso.parse("2024-13-01"));
  EXPECT_FALSE(iso.parse("24-01-01"));
  EXPECT_FALSE(iso.parse("2024/01/01"));
  EXPECT_FALSE(iso.parse("2024-01-01x"));
  // A time of day after the date is kept.
  std::string rest;
  EXPECT_EQ(iso.parse("2024-01-01 10:30", &rest), iso.parse("2024-01-01"));
  EXPECT_EQ(rest, " 10:30");
  EXPECT_TRUE(iso.parse("2024-01-01T10:30:00Z", &rest));
  EXPECT_EQ(rest, "T10:30:00Z");

  const DateFormat eu("%d.%m.%Y");
  EXPECT_EQ(eu.parse("07.03.2024"), iso.parse("2024-03-07"));
  EXPECT_EQ(eu.format(*iso.parse("2024-03-07")), "07.03.2024");
  EXPECT_THROW(eu.format(*iso.parse("0001-01-01") - 1), std::out_of_range);

  EXPECT_THROW(DateFormat("%Y-%m"), std::invalid_argument);
  EXPECT_THROW(DateFormat("%Y-%m-%d %H"), std::invalid_argument);
  EXPECT_THROW(DateFormat("%Y-%m-%d%"), std::invalid_argument);
}

TEST(MaskerTest, KeepFirstAndLastCountCodePoints) {
  MaskSpec m;
  m.keep_first = 3;
  EXPECT_EQ(deid::Masker(m)("555-123-4567"), "555*********");
  m.keep_first = 0;
  m.keep_last = 4;
  m.symbol = "x";
  EXPECT_EQ(deid::Masker(m)("555-123-4567"), "xxxxxxxx4567");
  m.keep_first = 1;
  m.keep_last = 1;
  m.symbol = "*";
  EXPECT_EQ(deid::Masker(m)("Jörg"), "J**g");  // ö is one character
  EXPECT_EQ(deid::Masker(m)("ab"), "ab");
  EXPECT_EQ(deid::Masker(m)(""), "");
}

TEST(MaskerTest, CharacterClassesAndRegex) {
  MaskSpec m;
  m.digits = "#";
  EXPECT_EQ(deid::Masker(m)("AB-1234 x9"), "AB-#### x#");
  m.letters = "X";
  EXPECT_EQ(deid::Masker(m)("AB-1234 x9"), "XX-#### X#");
  MaskSpec r;
  r.regex = "^[^@]+";
  r.replacement = "***";
  EXPECT_EQ(deid::Masker(r)("ann.smith@example.org"), "***@example.org");
  r.regex = "(\\d{3})-\\d{3}-(\\d{4})";
  r.replacement = "$1-XXX-$2";
  EXPECT_EQ(deid::Masker(r)("call 555-123-4567"), "call 555-XXX-4567");
  r.regex = "(";
  EXPECT_THROW(deid::Masker{r}, std::regex_error);
}

}  // namespace
