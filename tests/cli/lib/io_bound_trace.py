"""The I/O-bound workload of the closed-form tests (tests/cli/capacity_closed_form.sh, plan_target_closed_form.sh;
docs/capacity.md "Against a closed form"): 64 short trajectories (7-13 rounds of 256-token appends over a 2-6K-token
first prompt) whose hit KV per agent is known exactly, so that reading it is the only heavy work.

    io_bound_trace.py TRACE.jsonl        writes the trace
    per_agent_bytes(trace, model_file)   the hit-KV bytes an agent reads, averaged over the trajectories
"""
import json
import sys

SHAPES = [(4096, 8), (3072, 10), (6144, 6), (2048, 12)]  # (first append, rounds after it)


def write(path):
    with open(path, "w") as f:
        for i in range(64):
            a0, k = SHAPES[i % 4]
            f.write(json.dumps({"id": f"t{i}", "rounds": [[a0, 16]] + [[256, 16]] * k}) + "\n")


def per_agent_bytes(trace, model_file, block_tokens=64):
    """Each round after the first reuses the stored, block-aligned context: sum of floor(context / 64) * 64 tokens,
    times the KV bytes per token of every layer (MLA KV, plus the DSA indexer keys a hit also loads)."""
    m = json.load(open(model_file))
    per_layer = float(m["kv_bytes_per_token_layer"].split()[0])
    if m.get("count_indexer_cache"):
        per_layer += float(m["indexer_bytes_per_token_layer"].split()[0])
    hits = []
    for line in open(trace):
        ctx, hit = 0, 0
        for k, (append, gen) in enumerate(json.loads(line)["rounds"]):
            if k > 0:
                hit += ctx // block_tokens * block_tokens
            ctx += append + gen
        hits.append(hit)
    return sum(hits) / len(hits) * m["n_layers"] * per_layer  # agents replay trajectories sampled uniformly


if __name__ == "__main__":
    write(sys.argv[1])
