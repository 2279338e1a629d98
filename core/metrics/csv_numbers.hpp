// Numbers for the large CSV outputs (requests.csv, links.csv), written without iostreams: a 48P96D run writes
// ~85 M floating-point fields, and an ostream's formatting cost ~4% of the whole run. std::to_chars with a
// precision writes exactly what printf's "%.{precision}g" writes (the C++ standard defines it so), which is what an
// ostream with setprecision(precision) and the default float format writes, so the files are byte-identical.
#pragma once

#include <charconv>
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace dualpath {

// Lines are built in a buffer that is handed to the stream in large pieces.
class CsvNumbers {
 public:
  explicit CsvNumbers(std::ostream& out) : out_(out) { buf_.reserve(kFlush + 512); }
  ~CsvNumbers() { flush(); }
  CsvNumbers(const CsvNumbers&) = delete;
  CsvNumbers& operator=(const CsvNumbers&) = delete;

  // A double as "%.{precision}g".
  CsvNumbers& general(double v, int precision) {
    char tmp[64];
    const auto r = std::to_chars(tmp, tmp + sizeof tmp, v, std::chars_format::general, precision);
    if (r.ec != std::errc()) throw std::logic_error("csv: a number did not fit its buffer");
    buf_.append(tmp, r.ptr);
    return *this;
  }
  CsvNumbers& integer(int64_t v) {
    char tmp[24];
    const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf_.append(tmp, r.ptr);
    return *this;
  }
  CsvNumbers& text(const std::string& s) {
    buf_ += s;
    return *this;
  }
  CsvNumbers& text(const char* s) {
    buf_ += s;
    return *this;
  }
  CsvNumbers& ch(char c) {
    buf_ += c;
    return *this;
  }
  // Ends a line; hands the buffer to the stream once it is large.
  void end_line() {
    buf_ += '\n';
    if (buf_.size() >= kFlush) flush();
  }
  void flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  static constexpr size_t kFlush = 1 << 16;
  std::ostream& out_;
  std::string buf_;
};

}  // namespace dualpath
