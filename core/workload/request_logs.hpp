// Request-level logs without reuse information, converted into one single-round trajectory per request at its own
// arrival time (formats in traces/FORMAT.md):
// - Azure LLM inference traces (Azure/AzurePublicDataset, 2023 and 2024): TIMESTAMP,ContextTokens,GeneratedTokens.
// - BurstGPT (HPMLL/BurstGPT, release v1.1): Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type.
//   v1.1 carries no session ids, so no request is a later turn of another.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "core/workload/trace.hpp"

namespace dualpath {

struct RequestLogConversion {
  Trace trace;
  int64_t requests = 0;          // rows read
  int64_t dropped = 0;           // rows not replayed: BurstGPT's failed requests (Response tokens 0)
  int64_t clamped = 0;           // rows with 0 input (or Azure's 0 output) tokens, replayed with 1
  std::map<std::string, int64_t> models;  // BurstGPT: rows replayed per Model
};

// Azure: TIMESTAMP is "YYYY-MM-DD HH:MM:SS[.fraction]" (UTC, non-decreasing); arrivals count from the first row.
RequestLogConversion convert_azure(const std::string& path);

// BurstGPT: Timestamp in seconds (non-decreasing); Total tokens and Log Type are read but not used.
RequestLogConversion convert_burstgpt(const std::string& path);

// Seconds since 1970-01-01 of "YYYY-MM-DD HH:MM:SS[.fraction]", or a negative value when `text` is not one.
double parse_utc_timestamp(const std::string& text);

}  // namespace dualpath
