// Doubles printed as the Java platform prints them, for the names ARX gives
// its models and the values of its DECIMAL type, which deid reproduces.
#pragma once

#include <string>

namespace deid {

// A double as Java's Double.toString prints it (ARX's model names, its
// DECIMAL type): the shortest digits that read back, in plain notation from
// 10^-3 to below 10^7 with at least one decimal ("1.0", "0.5"), else as
// d.dddE<n> ("1.0E7", "1.0E-4").
std::string java_double(double value);

}  // namespace deid
