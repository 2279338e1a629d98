"""The working-set law of a DRAM KV pool (docs/dram-pool.md), used by sim_pool.sh.

    pool_law.py working-set RUN APS          prints W (bytes) measured from an online run with an unbounded pool
    pool_law.py check RUN F [RUN F ...]      checks each run (capacity F x W) against the law; exit 1 if any fails

The law: online agents arrive at rate lambda and live T seconds, so lambda*T are alive (Little's law); an agent's
context grows from 0 to its final length L over its life, so it holds L/2 on average, and the live agents' KV,
the working set, is W = lambda * T * L / 2 (digest §7.7) tokens, times the KV bytes per token. A pool of C bytes
that evicts the least recently used blocks keeps live agents' blocks and drops those of finished agents first
(they are never used again), so it serves at most min(1, C / W) of the hit KV: all of it once C clears W with
room for the working set's swings, and about C / W below (less when agents' rounds come round in a fixed order,
since LRU then evicts just what is read next; at most a quarter less, docs/dram-pool.md).
"""
import csv
import json
import sys

from checks import check, done


def working_set(run, aps):
    with open(f"{run}/summary.json") as f:
        s = json.load(f)
    kv = s["config"]["derived"]["kv_bytes_per_token"]
    first, last, length = {}, {}, {}
    with open(f"{run}/requests.csv") as f:
        for r in csv.DictReader(f):
            a = int(r["agent"])
            first[a] = min(first.get(a, 1e300), float(r["arrival"]))
            last[a] = max(last.get(a, -1.0), float(r["done"]))
            length[a] = max(length.get(a, 0), int(r["prompt"]) + int(r["gen"]))
    agents = [a for a in first if last[a] >= 0]
    T = sum(last[a] - first[a] for a in agents) / len(agents)
    L = sum(length[a] for a in agents) / len(agents)
    return aps * T * L / 2 * kv, T, L


def law(run, f):
    with open(f"{run}/summary.json") as fh:
        s = json.load(fh)
    h = s["pool"]["pool_hit_share"]
    name = f"{s['pool']['eviction']} pool at {f:g} W"
    if f >= 2:
        return check(h >= 0.97, f"{name}: serves {h:.3f} of the hit KV >= 0.97 (law: 1)")
    return check(0.75 * f <= h <= f + 0.05, f"{name}: serves {h:.3f} of the hit KV, within [0.75, 1] x C/W = {f:g} (+0.05)")


if __name__ == "__main__":
    if sys.argv[1] == "working-set":
        W, T, L = working_set(sys.argv[2], float(sys.argv[3]))
        print(f"{W:.6e}")
        print(f"working set: T = {T:.1f} s, L = {L:.0f} tokens, W = {W / 1e9:.2f} GB", file=sys.stderr)
        # The run's own summary.json computes the same law from its measured arrival rate (same rate here: the
        # Poisson arrivals of the run) and T and L: it must agree with this independent computation.
        with open(f"{sys.argv[2]}/summary.json") as fh:
            ws = json.load(fh)["working_set"]
        W_run = ws["law_bytes"] * float(sys.argv[3]) / ws["agents_per_s"]
        if abs(W_run - W) > 1e-9 * W:
            sys.exit(f"FAIL summary.json working_set.law_bytes {ws['law_bytes']:.6e} disagrees with requests.csv")
    else:
        args = sys.argv[2:]
        for run, f in zip(args[::2], args[1::2]):
            law(run, float(f))
        done()
