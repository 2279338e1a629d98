// CsvNumbers writes requests.csv and links.csv without iostreams; the files must stay byte-identical to what an
// ostream with setprecision(p) wrote, i.e. printf's "%.{p}g", for every kind of value those files hold.
#include "core/metrics/csv_numbers.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <vector>

namespace dualpath {
namespace {

std::string via_ostream(double v, int precision) {
  std::ostringstream o;
  o << std::setprecision(precision) << v;
  return o.str();
}

std::string via_csv(double v, int precision) {
  std::ostringstream o;
  {
    CsvNumbers csv(o);
    csv.general(v, precision);
  }
  return o.str();
}

TEST(CsvNumbers, DoublesMatchTheOstreamAtPrecisions6And9) {
  std::vector<double> values = {0.0, -0.0, -1.0, 1.0, 0.05, 3.11027059, 1e-300, 1e300, 123456789.0, 1234567890123.0,
                                0.000123456789, 2.5, 0.5, 1e-5, 1e-4, 99999.95, 999999.5, 1e9,
                                std::numeric_limits<double>::infinity(), std::numeric_limits<double>::denorm_min()};
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> exponent(-12, 12), mantissa(-1, 1);
  for (int i = 0; i < 20000; ++i) values.push_back(mantissa(rng) * std::pow(10.0, exponent(rng)));
  for (double v : values)
    for (int precision : {6, 9}) ASSERT_EQ(via_csv(v, precision), via_ostream(v, precision)) << v;
}

TEST(CsvNumbers, LinesKeepTheirOrderAcrossFlushes) {
  std::ostringstream got, want;
  {
    CsvNumbers csv(got);
    for (int64_t i = -5; i < 20000; ++i) {  // more than one flush's worth
      csv.integer(i * 1000003).ch(',').text("pe").ch(',').general(static_cast<double>(i) / 7, 9);
      csv.end_line();
      want << i * 1000003 << ",pe," << std::setprecision(9) << static_cast<double>(i) / 7 << '\n';
    }
  }
  EXPECT_EQ(got.str(), want.str());
}

}  // namespace
}  // namespace dualpath
