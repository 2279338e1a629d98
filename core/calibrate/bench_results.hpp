// The result files serving benchmarks write, read as measured points of a cluster (docs/calibration.md, "Your own
// cluster"): SGLang's `python -m sglang.bench_serving ... --output-file F` (JSON Lines, one object per run) and
// vLLM's `vllm bench serve ... --save-result` (one JSON object per file). Both name the same families of fields;
// a point takes the mean input and output lengths (total tokens over completed requests), the load (the measured
// mean concurrency where the file has it, else max_concurrency, else request rate x mean end-to-end latency), and
// the median TTFT and TPOT (falling back to the means).
#pragma once

#include <string>
#include <vector>

namespace dualpath {

enum class BenchFormat { Auto, Sglang, Vllm };

struct BenchPoint {
  std::string where;        // "file.jsonl:3" (the line) or "file.json" (a vLLM file)
  double concurrency = 0;   // requests in flight on the whole deployment
  double input_len = 0, output_len = 0;  // mean tokens per request
  double ttft = 0, tpot = 0;             // seconds
};

// Reads one file; Auto takes a ".jsonl" file (or one whose first line is a whole object followed by more lines)
// as SGLang and any other as vLLM. Throws InputError naming the file, the line and the field, with what was
// expected, for an unreadable file, a line that is not a JSON object, a missing or non-positive field.
std::vector<BenchPoint> read_bench_results(const std::string& path, BenchFormat format);

}  // namespace dualpath
