// The converters' promise, checked by the fuzz targets of every converter (issue 68): a trace a converter
// produced is a valid native trace. Written out, it reads back with the native reader (traces/FORMAT.md) with as
// many trajectories, and its Table 2 statistics compute. A refusal here is a bug, not bad input: the converter
// accepted the file, so it must not write what `run` or `trace stats` then refuses.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>

#include "core/workload/trace.hpp"
#include "core/workload/trace_io.hpp"
#include "core/workload/trace_stats.hpp"

namespace dualpath::fuzz {

inline void expect_reads_back(const Trace& converted) {
  try {
    std::ostringstream out;
    write_trace(out, converted);
    std::istringstream in(out.str());
    const Trace back = parse_trace(in, "converted");
    if (back.trajectories.size() != converted.trajectories.size()) {
      std::fprintf(stderr, "fuzz: a converted trace reads back with %zu trajectories, not %zu\n",
                   back.trajectories.size(), converted.trajectories.size());
      std::abort();
    }
    (void)compute_stats(back, "converted");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz: a converted trace does not read back: %s\n", e.what());
    std::abort();
  }
}

}  // namespace dualpath::fuzz
