// Choice-valued scenario keys as enums, each with one table of the names the files use: the loader parses a name
// once (ObjectReader::choice), scenario_to_json writes it back, and the engines compare enums, not strings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace dualpath {

// policy.quota_scope: the compute quota bounds a whole forward's predicted attention, or each layer's.
enum class QuotaScope : uint8_t { Forward, Layer };
// policy.buffer: DRAM buffers reserved only while they hold KV, or all of them at read start.
enum class BufferLifecycle : uint8_t { Stream, Reserve };
// policy.de_hbm: a decode engine's HBM taken when the engine is chosen, or at handoff.
enum class DeHbmAt : uint8_t { Assign, Handoff };
// workload.source: trajectories from a synthetic profile, or from a trace file.
enum class WorkloadSource : uint8_t { Generate, File };
// workload.table2_reading: which reading of the paper's Table 2 a synthetic profile is calibrated to
// (core/workload/table2.hpp, docs/workload.md §1).
enum class Table2Reading : uint8_t { Rounds, Trajectories };
// workload.profile: the paper's synthetic trace profiles (Table 2 rows; core/workload/synth.cpp, table2.cpp hold
// each one's parameters under its name).
enum class Profile : uint8_t { K32, K48, K64 };
// workload.mode: every agent at t = 0, or agents arriving over time.
enum class ArrivalMode : uint8_t { Offline, Online };
// workload.stop: run until every agent is done, or the paper's SLO stop rule (online only).
// workload.stop: none; slo = the paper's rule with steady state of TTFT and of the load (core/metrics/stop_rule.hpp);
// slo-ttft = the paper's words alone (steady state of TTFT only), the reading before issue 62.
enum class StopMode : uint8_t { None, Slo, SloTtft };
// sim.engine: the network engine (dualpath's own max-min solver, or SimGrid's LMM).
enum class NetworkEngine : uint8_t { Native, Simgrid };
// sim.lmm_update: how SimGrid re-solves rates after an event (SimSpec::lmm_update).
enum class LmmUpdate : uint8_t { Auto, Lazy, Full };
// sim.kv_port: the DE-node CNIC that carries a PE GPU's KV: the one at the PE GPU's local index, or the engine's.
enum class KvPort : uint8_t { Node, Engine };
// sim.decode_chunk_end: a decode chunk ends at the first request that finishes, or runs its decode_chunk_steps
// steps past the requests that finish inside it (SimSpec::decode_chunk_end).
enum class DecodeChunkEnd : uint8_t { FirstFinish, Steps };
// Where step times come from: the roofline cost model, or a table of measured times (core/config/step_profile_file.hpp).
enum class StepTiming : uint8_t { Roofline, Profile };
// sim.departures: after flows leave, the native engine re-solves their whole components, or keeps the flows below
// the lowest departed level and re-fills the rest (SimSpec::departures).
enum class DepartureSolve : uint8_t { WholeComponent, AboveDeparted };
// sim.arrivals: after flows arrive, the native engine re-solves their whole components, or keeps the flows below
// the lowest level at which one of the new flows' links saturates and re-fills the rest (SimSpec::arrivals).
enum class ArrivalSolve : uint8_t { WholeComponent, AboveSaturation };
// sim.fidelity: the model of record, or its approximations for speed, each with its measured error (SimSpec::fidelity).
enum class Fidelity : uint8_t { Exact, Fast };
// policy.pool.eviction: the DRAM pool (policy dram-pool) evicts its least recently used blocks, or keeps what it
// holds and refuses what does not fit.
enum class PoolEviction : uint8_t { Lru, None };

template <class E>
struct ChoiceName {
  E value;
  const char* name;
};
// The tables, in the order messages list the names.
inline constexpr ChoiceName<QuotaScope> kQuotaScopes[] = {{QuotaScope::Layer, "layer"}, {QuotaScope::Forward, "forward"}};
inline constexpr ChoiceName<BufferLifecycle> kBufferLifecycles[] = {{BufferLifecycle::Stream, "stream"},
                                                                    {BufferLifecycle::Reserve, "reserve"}};
inline constexpr ChoiceName<DeHbmAt> kDeHbmAts[] = {{DeHbmAt::Assign, "assign"}, {DeHbmAt::Handoff, "handoff"}};
inline constexpr ChoiceName<KvPort> kKvPorts[] = {{KvPort::Node, "node"}, {KvPort::Engine, "engine"}};
inline constexpr ChoiceName<StepTiming> kStepTimings[] = {{StepTiming::Roofline, "roofline"}, {StepTiming::Profile, "profile"}};
inline constexpr ChoiceName<DecodeChunkEnd> kDecodeChunkEnds[] = {{DecodeChunkEnd::FirstFinish, "first-finish"},
                                                                  {DecodeChunkEnd::Steps, "steps"}};
inline constexpr ChoiceName<DepartureSolve> kDepartureSolves[] = {{DepartureSolve::WholeComponent, "whole-component"},
                                                                  {DepartureSolve::AboveDeparted, "above-departed"}};
inline constexpr ChoiceName<ArrivalSolve> kArrivalSolves[] = {{ArrivalSolve::WholeComponent, "whole-component"},
                                                              {ArrivalSolve::AboveSaturation, "above-saturation"}};
inline constexpr ChoiceName<Fidelity> kFidelities[] = {{Fidelity::Exact, "exact"}, {Fidelity::Fast, "fast"}};
inline constexpr ChoiceName<PoolEviction> kPoolEvictions[] = {{PoolEviction::Lru, "lru"}, {PoolEviction::None, "none"}};
inline constexpr ChoiceName<WorkloadSource> kWorkloadSources[] = {{WorkloadSource::Generate, "generate"},
                                                                  {WorkloadSource::File, "file"}};
inline constexpr ChoiceName<Table2Reading> kTable2Readings[] = {{Table2Reading::Rounds, "rounds"},
                                                                 {Table2Reading::Trajectories, "trajectories"}};
inline constexpr ChoiceName<Profile> kProfiles[] = {{Profile::K32, "32k"}, {Profile::K48, "48k"}, {Profile::K64, "64k"}};
inline constexpr ChoiceName<ArrivalMode> kArrivalModes[] = {{ArrivalMode::Offline, "offline"},
                                                            {ArrivalMode::Online, "online"}};
inline constexpr ChoiceName<StopMode> kStopModes[] = {{StopMode::None, "none"}, {StopMode::Slo, "slo"},
                                                      {StopMode::SloTtft, "slo-ttft"}};
inline constexpr ChoiceName<NetworkEngine> kNetworkEngines[] = {{NetworkEngine::Simgrid, "simgrid"},
                                                                {NetworkEngine::Native, "native"}};
inline constexpr ChoiceName<LmmUpdate> kLmmUpdates[] = {
    {LmmUpdate::Auto, "auto"}, {LmmUpdate::Lazy, "lazy"}, {LmmUpdate::Full, "full"}};

// The helpers take any table whose rows have a `value` and a `name` (ChoiceName, or a richer row such as a fault
// kind's, core/config/fault_kinds.hpp).
template <class Row, size_t N>
const char* choice_name(const Row (&table)[N], decltype(Row::value) value) {
  for (const auto& c : table)
    if (c.value == value) return c.name;
  return "?";
}
template <class Row, size_t N>
std::vector<std::string> choice_names(const Row (&table)[N]) {
  std::vector<std::string> out;
  for (const auto& c : table) out.emplace_back(c.name);
  return out;
}
// The value named `name`; std::invalid_argument when the table has no such name (the loader checks first).
template <class Row, size_t N>
decltype(Row::value) choice_value(const Row (&table)[N], std::string_view name) {
  for (const auto& c : table)
    if (name == c.name) return c.value;
  throw std::invalid_argument("unknown choice \"" + std::string(name) + "\"");
}

inline const char* name_of(QuotaScope v) { return choice_name(kQuotaScopes, v); }
inline const char* name_of(BufferLifecycle v) { return choice_name(kBufferLifecycles, v); }
inline const char* name_of(DeHbmAt v) { return choice_name(kDeHbmAts, v); }
inline const char* name_of(KvPort v) { return choice_name(kKvPorts, v); }
inline const char* name_of(DecodeChunkEnd v) { return choice_name(kDecodeChunkEnds, v); }
inline const char* name_of(StepTiming v) { return choice_name(kStepTimings, v); }
inline const char* name_of(DepartureSolve v) { return choice_name(kDepartureSolves, v); }
inline const char* name_of(ArrivalSolve v) { return choice_name(kArrivalSolves, v); }
inline const char* name_of(Fidelity v) { return choice_name(kFidelities, v); }
inline const char* name_of(PoolEviction v) { return choice_name(kPoolEvictions, v); }
inline const char* name_of(WorkloadSource v) { return choice_name(kWorkloadSources, v); }
inline const char* name_of(Table2Reading v) { return choice_name(kTable2Readings, v); }
inline const char* name_of(Profile v) { return choice_name(kProfiles, v); }
inline const char* name_of(ArrivalMode v) { return choice_name(kArrivalModes, v); }
inline const char* name_of(StopMode v) { return choice_name(kStopModes, v); }
inline const char* name_of(NetworkEngine v) { return choice_name(kNetworkEngines, v); }
inline const char* name_of(LmmUpdate v) { return choice_name(kLmmUpdates, v); }

}  // namespace dualpath
