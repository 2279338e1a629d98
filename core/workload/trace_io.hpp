// Reading and writing the native trace format (JSON Lines, one trajectory per line; traces/FORMAT.md):
//   {"id":"t17","arrival":0.5,"rounds":[[412,160],[380,201,1.5]]}
// Readers are strict: any deviation is an InputError naming "file:line" and what was expected and found.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "core/workload/trace.hpp"

namespace dualpath {

// Reads a native trace file ("-" = standard input). Blank lines are skipped; a file without trajectories is an error.
Trace read_trace(const std::string& path);

// Same, from a stream; `name` is used in messages ("name:line").
Trace parse_trace(std::istream& in, const std::string& name);

// Parses one line (the body of parse_trace; exposed for tests). `where` is "name:line".
Trajectory parse_trajectory_line(const std::string& line, const std::string& where);

// Resolves every trajectory's `parent` to `parent_index` and checks the sharing: the parent exists, holds at
// least `shared` tokens, and no chain of parents is a cycle. `where[i]` names trajectory i in messages
// ("file:line"). parse_trace calls it; a converter that fills `parent` calls it too.
void link_parents(Trace& trace, const std::vector<std::string>& where);

// Writes the native format: keys in a fixed order (id, arrival, parent, shared, hashes, rounds), floats in fixed notation
// with trailing zeros trimmed, "arrival" only when set (>= 0), "parent"/"shared" only when set, and a round's think
// time only when non-zero. Deterministic byte for byte.
void write_trace(std::ostream& out, const Trace& trace);

// Writes to a file ("-" = stdout). Throws InputError when the file cannot be created.
void write_trace_file(const std::string& path, const Trace& trace);

// Fixed-notation decimal with trailing zeros trimmed ("1.5", "2", "0.000125"); 6 decimals, deterministic.
std::string format_decimal(double x);

}  // namespace dualpath
