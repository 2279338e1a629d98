// Where a study writes its tables and answers (study_out) and its progress (study_log): the standard output and
// error on the command line; a stream that drops them from Python, whose verbs return data (QuietStudy). Set for
// the process: one study at a time sets them.
#pragma once

#include <iostream>
#include <ostream>
#include <streambuf>

namespace dualpath::study {

struct StudyStreams {
  std::ostream* out = &std::cout;
  std::ostream* log = &std::cerr;
};

inline StudyStreams& study_streams() {
  static StudyStreams s;
  return s;
}
inline std::ostream& study_out() { return *study_streams().out; }
inline std::ostream& study_log() { return *study_streams().log; }

// While it lives, the study's output and progress go nowhere.
class QuietStudy {
 public:
  QuietStudy() : saved_(study_streams()) { study_streams() = {&null_, &null_}; }
  ~QuietStudy() { study_streams() = saved_; }
  QuietStudy(const QuietStudy&) = delete;
  QuietStudy& operator=(const QuietStudy&) = delete;

 private:
  struct NullBuf : std::streambuf {
    int overflow(int c) override { return c == traits_type::eof() ? traits_type::not_eof(c) : c; }
  };
  StudyStreams saved_;
  NullBuf buf_;
  std::ostream null_{&buf_};
};

}  // namespace dualpath::study
