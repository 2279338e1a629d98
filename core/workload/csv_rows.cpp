#include "core/workload/csv_rows.hpp"

#include <charconv>
#include <cmath>

#include "core/config/input_error.hpp"
#include "core/config/input_file.hpp"
#include "core/workload/trace_io.hpp"

namespace dualpath {

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

std::string shown(const std::string& text) { return text.size() > 40 ? text.substr(0, 37) + "..." : text; }

}  // namespace

CsvRows::CsvRows(const std::string& path, const std::string& what, const std::vector<std::string>& columns)
    : in_(open_input_file(path, what)), path_(path), columns_(columns) {
  std::vector<std::string> header;
  if (!next(header)) throw InputError(path, "expected a header line '" + joined(columns) + "', found an empty file");
  if (!header.empty() && header[0].rfind("\xEF\xBB\xBF", 0) == 0) header[0].erase(0, 3);  // a UTF-8 byte-order mark
  if (header != columns)
    throw InputError(where(), "expected the header '" + joined(columns) + "' (a " + what + "), found '" +
                                  shown(joined(header)) + "'");
}

bool CsvRows::split(const std::string& line, std::vector<std::string>& out, bool quoted) const {
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (static_cast<unsigned char>(c) < 0x20 && c != '\t')
      throw InputError(path_ + ":" + std::to_string(line_) + ":" + std::to_string(i + 1),
                       "expected text, found the control byte " + std::to_string(static_cast<unsigned char>(c)));
    if (quoted) {
      if (c != '"') out.back() += c;
      else if (i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
      else quoted = false;
    } else if (c == '"' && out.back().empty()) {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return quoted;
}

bool CsvRows::read_line(std::string& line) {
  if (!read_bounded_line(in_, line, path_, line_ + 1)) return false;
  ++line_;
  progress_.line();
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

bool CsvRows::next(std::vector<std::string>& fields) {
  std::string line;
  while (read_line(line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    row_line_ = line_;
    fields.assign(1, std::string());
    // RFC 4180: a quoted field may hold line breaks; the record goes on over the next lines until its quote closes
    // (a line break inside a field is kept as LF). A quote left open is bounded, so one stray quote cannot make the
    // rest of a multi-gigabyte file one record.
    for (bool quoted = split(line, fields, false); quoted; quoted = split(line, fields, true)) {
      if (!read_line(line)) throw InputError(where(), "expected a closing quote, found the end of the file");
      if (line_ - row_line_ >= kMaxRecordLines)
        throw InputError(where(), "expected a closing quote within " + std::to_string(kMaxRecordLines) +
                                      " lines, found a quoted field still open at line " + std::to_string(line_));
      fields.back() += '\n';
      size_t bytes = 0;
      for (const auto& f : fields) bytes += f.size();
      if (bytes + line.size() > kMaxLineBytes)
        throw InputError(where(), "a record longer than " + std::to_string(kMaxLineBytes >> 20) +
                                      " MiB: expected a closing quote (is a quote left open?)");
    }
    if (!columns_.empty() && row_line_ > 1 && fields.size() != columns_.size())
      throw InputError(where(), "expected " + std::to_string(columns_.size()) + " fields (" + joined(columns_) +
                                    "), found " + std::to_string(fields.size()));
    return true;
  }
  if (in_.bad()) throw InputError(path_, "read error (the file could not be read to its end)");
  return false;
}

int64_t CsvRows::integer(const std::string& text, const std::string& column, int64_t lo, int64_t hi) const {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < lo || v > hi)
    throw InputError(where(), column + ": expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                  "], found '" + shown(text) + "'");
  return v;
}

double CsvRows::number(const std::string& text, const std::string& column, double lo, double hi) const {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < lo || v > hi)
    throw InputError(where(), column + ": expected a number in [" + format_decimal(lo) + ", " + format_decimal(hi) +
                                  "], found '" + shown(text) + "'");
  return v;
}

}  // namespace dualpath
