#include <gtest/gtest.h>

#include "core/config/units.hpp"

// Suite names are lower case so that `ctest -R config` selects them.
namespace u = dualpath::units;

TEST(config_units, DecimalBytePrefixes) {
  EXPECT_DOUBLE_EQ(u::parse_bytes("656 B"), 656.0);
  EXPECT_DOUBLE_EQ(u::parse_bytes("40 KB"), 40e3);
  EXPECT_DOUBLE_EQ(u::parse_bytes("40 kB"), 40e3);
  EXPECT_DOUBLE_EQ(u::parse_bytes("3 MB"), 3e6);
  EXPECT_DOUBLE_EQ(u::parse_bytes("80 GB"), 80e9);
  EXPECT_DOUBLE_EQ(u::parse_bytes("2 TB"), 2e12);
  EXPECT_DOUBLE_EQ(u::parse_bytes("1.5 PB"), 1.5e15);
  EXPECT_DOUBLE_EQ(u::parse_bytes("1 EB"), 1e18);
}

TEST(config_units, BinaryBytePrefixes) {
  EXPECT_DOUBLE_EQ(u::parse_bytes("1 KiB"), 1024.0);
  EXPECT_DOUBLE_EQ(u::parse_bytes("256 KiB"), 262144.0);
  EXPECT_DOUBLE_EQ(u::parse_bytes("1 MiB"), 1048576.0);
  EXPECT_DOUBLE_EQ(u::parse_bytes("80 GiB"), 80.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(u::parse_bytes("1 TiB"), 1099511627776.0);
  EXPECT_DOUBLE_EQ(u::parse_bytes("1 PiB"), 1125899906842624.0);
}

TEST(config_units, BitsAreEighthOfBytes) {
  EXPECT_DOUBLE_EQ(u::parse_bytes("8 b"), 1.0);
  EXPECT_DOUBLE_EQ(u::parse_bytes("8 Gb"), 1e9);
  EXPECT_DOUBLE_EQ(u::parse_bandwidth("400 Gbps"), 50e9);
  EXPECT_DOUBLE_EQ(u::parse_bandwidth("400 Gb/s"), 50e9);
  EXPECT_DOUBLE_EQ(u::parse_bandwidth("3.2 Tbps"), 400e9);
  EXPECT_DOUBLE_EQ(u::parse_bandwidth("100 Mbps"), 12.5e6);
  EXPECT_DOUBLE_EQ(u::parse_bandwidth("8 kbps"), 1e3);
}

TEST(config_units, ByteBandwidths) {
  EXPECT_DOUBLE_EQ(u::parse_bandwidth("50 GB/s"), 50e9);
  EXPECT_DOUBLE_EQ(u::parse_bandwidth("50 GiB/s"), 50.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(u::parse_bandwidth("3.35 TB/s"), 3.35e12);
  EXPECT_DOUBLE_EQ(u::parse_bandwidth("500 GB/s"), 500e9);
  EXPECT_DOUBLE_EQ(u::parse_bandwidth("1 B/s"), 1.0);
}

TEST(config_units, Durations) {
  EXPECT_DOUBLE_EQ(u::parse_duration("5 s"), 5.0);
  EXPECT_DOUBLE_EQ(u::parse_duration("300 ms"), 0.3);
  EXPECT_DOUBLE_EQ(u::parse_duration("2 us"), 2e-6);
  EXPECT_DOUBLE_EQ(u::parse_duration("2 \u00b5s"), 2e-6);
  EXPECT_DOUBLE_EQ(u::parse_duration("2 \u03bcs"), 2e-6);
  EXPECT_DOUBLE_EQ(u::parse_duration("7 ns"), 7e-9);
  EXPECT_DOUBLE_EQ(u::parse_duration("30 min"), 1800.0);
  EXPECT_DOUBLE_EQ(u::parse_duration("1 h"), 3600.0);
  EXPECT_DOUBLE_EQ(u::parse_duration("0 s"), 0.0);
}

TEST(config_units, FlopRates) {
  EXPECT_DOUBLE_EQ(u::parse_flops("989 TFLOPS"), 989e12);
  EXPECT_DOUBLE_EQ(u::parse_flops("1.2 PFLOP/s"), 1.2e15);
  EXPECT_DOUBLE_EQ(u::parse_flops("312 TFLOP/s"), 312e12);
  EXPECT_DOUBLE_EQ(u::parse_flops("5 GFLOPS"), 5e9);
}

TEST(config_units, NumberFormsAndSpacing) {
  EXPECT_DOUBLE_EQ(u::parse_bytes("656B"), 656.0);
  EXPECT_DOUBLE_EQ(u::parse_bytes("  1e3 B "), 1000.0);
  EXPECT_DOUBLE_EQ(u::parse_bytes("0.5 KiB"), 512.0);
  EXPECT_DOUBLE_EQ(u::parse_duration("5e-3 s"), 5e-3);
  EXPECT_DOUBLE_EQ(u::parse_bytes("5 EB"), 5e18);  // "E" here is a prefix, not an exponent
}

TEST(config_units, ParseQuantityReportsDimension) {
  EXPECT_EQ(u::parse_quantity("80 GiB").dimension, u::Dimension::Bytes);
  EXPECT_EQ(u::parse_quantity("400 Gbps").dimension, u::Dimension::Bandwidth);
  EXPECT_EQ(u::parse_quantity("300 ms").dimension, u::Dimension::Duration);
  EXPECT_EQ(u::parse_quantity("989 TFLOPS").dimension, u::Dimension::FlopRate);
}

// The message of the UnitError thrown by `f`, or "" when nothing was thrown.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const u::UnitError& e) {
    return e.what();
  }
  return "";
}

TEST(config_units, WrongDimensionNamesExpectedAndFound) {
  const std::string m = error_of([] { u::parse_bandwidth("80 GiB"); });
  EXPECT_NE(m.find("expected a bandwidth"), std::string::npos) << m;
  EXPECT_NE(m.find("byte size"), std::string::npos) << m;
  EXPECT_NE(m.find("80 GiB"), std::string::npos) << m;
  EXPECT_NE(error_of([] { u::parse_bytes("400 Gbps"); }).find("expected a byte size"), std::string::npos);
  EXPECT_NE(error_of([] { u::parse_duration("5 GB"); }).find("expected a duration"), std::string::npos);
  EXPECT_NE(error_of([] { u::parse_flops("5 s"); }).find("expected a FLOP rate"), std::string::npos);
  EXPECT_NE(error_of([] { u::parse_bandwidth("5 s"); }).find("which is a duration"), std::string::npos);
}

TEST(config_units, RejectsGarbage) {
  for (const char* bad : {"", "   ", "GB", "abc", "12", "12 parsecs", "12 gb", "12 Gbit", "1..2 GB", "12 G B/s",
                          "12 mB", "12 ms/s", "12 TiFLOPS", "nan GB", "inf GB", "1e999 B", "12 KIB", "+5 GB"}) {
    EXPECT_THROW(u::parse_quantity(bad), u::UnitError) << "accepted \"" << bad << "\"";
  }
}

TEST(config_units, RejectsNegative) {
  const std::string m = error_of([] { u::parse_bandwidth("-400 Gbps"); });
  EXPECT_NE(m.find("negative"), std::string::npos) << m;
  EXPECT_THROW(u::parse_duration("-1 s"), u::UnitError);
}

TEST(config_units, MissingUnitSaysSo) {
  EXPECT_NE(error_of([] { u::parse_bytes("656"); }).find("missing unit"), std::string::npos);
  EXPECT_NE(error_of([] { u::parse_bytes("656 XB"); }).find("unknown unit \"XB\""), std::string::npos);
}

// A bare number gets a hint in the unit of the kind expected (a duration is not told to write "4 GB").
TEST(config_units, MissingUnitHintMatchesTheExpectedKind) {
  EXPECT_NE(error_of([] { u::parse_duration("4"); }).find("write e.g. \"4 s\""), std::string::npos);
  EXPECT_NE(error_of([] { u::parse_bandwidth("200"); }).find("write e.g. \"200 Gbps\""), std::string::npos);
  EXPECT_NE(error_of([] { u::parse_bytes("656"); }).find("write e.g. \"656 GB\""), std::string::npos);
  const std::string m = error_of([] { u::parse_duration("4"); });
  EXPECT_NE(m.find("expected a duration such as"), std::string::npos) << m;
}
