#!/usr/bin/env python3
"""Writes a Mooncake-format trace (FAST'25 schema) with heavy cross-session sharing, for tests/cli/trace_replay.sh.

Sessions open with one of a few long shared documents (system prompt + tool definitions + a file), then add their
own blocks; some continue for more turns, each turn's input holding the previous input and output. hash_ids are
prefix-chained as in the Mooncake release: one id per 512-token block, the same id exactly when the whole prefix up
to and including that block is the same. Inputs are whole blocks and outputs shorter than one block, so Mooncake's
share of reused blocks and the simulator's block-aligned hit count the same tokens (a partial block or an output
that fills one would count in the simulator only). Usage: mooncake_gen.py SEED OUT [SESSIONS]
(150 sessions, about 330 requests, by default; bench/trace_speed.sh asks for ~11,000, spread over a longer time so
that the arrival rate stays the same).
"""
import json
import random
import sys

seed, out = int(sys.argv[1]), sys.argv[2]
sessions = int(sys.argv[3]) if len(sys.argv) > 3 else 150
rng = random.Random(seed)
ids = {}


def chain_ids(labels):
    """Prefix-chained ids of a list of block labels."""
    res = []
    for k in range(len(labels)):
        res.append(ids.setdefault(tuple(labels[: k + 1]), len(ids)))
    return res


docs = [[("doc", d, j) for j in range(rng.randint(8, 24))] for d in range(5)]
requests = []  # (timestamp ms, labels, output tokens)
for s in range(sessions):
    t = 3000 * rng.randint(0, 120 * sessions // 150)
    labels = list(docs[rng.randrange(len(docs))]) + [("own", s, j) for j in range(rng.randint(1, 6))]
    for turn in range(rng.choice([1, 1, 2, 3, 4])):
        out_tokens = rng.randint(20, 400)
        requests.append((t, list(labels), out_tokens))
        # The next turn: this input, then a block holding the output and the new user input, then more new blocks.
        labels += [("own", s, 100 * (turn + 1) + j) for j in range(rng.randint(1, 4))]
        t += 3000 * rng.randint(1, 20)
requests.sort(key=lambda r: r[0])
with open(out, "w") as f:
    for ts, labels, out_tokens in requests:
        f.write(json.dumps({"timestamp": ts, "input_length": 512 * len(labels), "output_length": out_tokens,
                            "hash_ids": chain_ids(labels)}) + "\n")
