// Reading CSV request logs (the Azure LLM inference traces, BurstGPT): a header that must name the expected columns,
// then one record per line, RFC 4180 quoting ("a,b", "" and line breaks inside quotes, a record then spanning
// lines), CRLF tolerated. Every error names file:line (a record's first line) and what was expected.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "core/workload/read_progress.hpp"

namespace dualpath {

class CsvRows {
 public:
  // Opens `path` and checks that its first line holds exactly `columns` (in order).
  CsvRows(const std::string& path, const std::string& what, const std::vector<std::string>& columns);

  // The next non-blank row's fields (as many as the header has), or false at the end of the file.
  bool next(std::vector<std::string>& fields);
  // "file:line" of the row next() returned last (its first line, when a quoted field spans lines).
  std::string where() const { return path_ + ":" + std::to_string(row_line_); }
  // The most lines one record may span (a quoted field with line breaks).
  static constexpr int64_t kMaxRecordLines = 1000;
  const std::string& path() const { return path_; }

  // Field readers: the value, or InputError(where(), "<column>: expected ..., found '<text>'").
  int64_t integer(const std::string& text, const std::string& column, int64_t lo, int64_t hi) const;
  double number(const std::string& text, const std::string& column, double lo, double hi) const;

 private:
  // Appends one physical line's fields to `out` (whose last field goes on when `quoted`); true if a quoted field
  // is still open at the line's end.
  bool split(const std::string& line, std::vector<std::string>& out, bool quoted) const;
  bool read_line(std::string& line);
  std::ifstream in_;
  std::string path_;
  workload::ReadProgress progress_{in_, path_};
  std::vector<std::string> columns_;
  int64_t line_ = 0;      // the physical line last read
  int64_t row_line_ = 0;  // the first line of the record next() returned last
};

}  // namespace dualpath
