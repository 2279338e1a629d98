#include "core/workload/table2.hpp"

#include "core/config/input_error.hpp"

namespace dualpath {

Table2Reading table2_reading(const std::string& name, const std::string& where) {
  for (const auto& c : kTable2Readings)
    if (name == c.name) return c.value;
  throw InputError(where, "expected a Table 2 reading (rounds, trajectories), found '" + name + "'");
}

const std::array<const char*, kTable2Columns>& table2_column_names() {
  static const std::array<const char*, kTable2Columns> names = {"turns", "append/turn", "gen/turn", "total",
                                                                "context"};
  return names;
}

const std::vector<Table2Row>& table2_rows() {
  // Table 2 of the paper: MaxLen, Turns, Append/turn, Gen/turn, Total tokens, Context.
  static const std::vector<Table2Row> rows = {
      {"32k", 32768, {60, 608, 148, 28639, 17183}},
      {"48k", 49152, {106, 474, 172, 42607, 25120}},
      {"64k", 65536, {157, 429, 176, 55958, 32721}},
  };
  return rows;
}

const Table2Row& table2_row(const std::string& profile, const std::string& where) {
  for (const auto& r : table2_rows())
    if (r.profile == profile) return r;
  throw InputError(where, "expected a workload profile (32k, 48k, 64k), found '" + profile + "'");
}

Table2Values table2_columns(const TraceStats& s, Table2Reading reading) {
  if (reading == Table2Reading::Rounds) return {s.turns, s.append_per_turn, s.gen_per_turn, s.total, s.context};
  return {s.turns_per_trajectory, s.append_traj_mean, s.gen_traj_mean, s.total, s.context_traj_mean};
}

}  // namespace dualpath
