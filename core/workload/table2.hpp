// Table 2 of the paper (§7.4) and the two self-consistent readings of its columns.
//
// The columns cannot all be plain per-trajectory means (157 x (429 + 176) > 55,958), so a reading has to be
// chosen (docs/workload.md §1):
//   rounds:       Turns = sum(n^2)/sum(n) and the per-turn columns are means over all rounds (request-weighted),
//                 Total a mean over trajectories. ~92 rounds per 64K trajectory of ~605 tokens each.
//   trajectories: every column is a plain mean over trajectories of per-trajectory values (Turns = mean n,
//                 Append/Gen/Context = means of per-trajectory means). ~157 rounds of ~356 tokens each.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/config/choices.hpp"
#include "core/workload/trace_stats.hpp"

namespace dualpath {

// Table2Reading and its names: core/config/choices.hpp (workload.table2_reading).
// "rounds" | "trajectories" (e.g. trace's --reading); throws InputError(where, ...) for other names.
Table2Reading table2_reading(const std::string& name, const std::string& where);

// The five calibrated columns, in this order everywhere.
enum Table2Column { kColTurns, kColAppend, kColGen, kColTotal, kColContext, kTable2Columns };
using Table2Values = std::array<double, kTable2Columns>;
const std::array<const char*, kTable2Columns>& table2_column_names();

struct Table2Row {
  std::string profile;  // "32k" | "48k" | "64k"
  int64_t max_len = 0;
  Table2Values values{};  // turns, append/turn, gen/turn, total, context (tokens), as printed in the paper
};

// The paper's rows, in profile order.
const std::vector<Table2Row>& table2_rows();
// The row of a profile; throws InputError(where, ...) for an unknown one.
const Table2Row& table2_row(const std::string& profile, const std::string& where);

// The five columns of a trace's statistics as the reading defines them.
Table2Values table2_columns(const TraceStats& s, Table2Reading reading);

}  // namespace dualpath
