"""Agent traces from Python: read a native trace (traces/FORMAT.md) as a DataFrame, one row per round; generate
one calibrated to Table 2, convert a public trace, and their statistics, as `dualpath trace gen | convert | stats`
give them."""
import json
import os
import tempfile

import pandas as pd

from . import _dualpath
from ._cli import run_cli


def read(path):
    """A native trace as a DataFrame: id, arrival (-1: unset), round, append, gen, think, parent, shared."""
    return pd.DataFrame(_dualpath.trace_columns(os.fspath(path)))


def _written(out, args):
    """Runs a trace-writing command into `out` (kept) or a temporary file (removed) and reads what it wrote."""
    if out is not None:
        run_cli(args + ["-o", os.fspath(out)])
        return read(out)
    with tempfile.TemporaryDirectory(prefix="dualpath-trace-") as tmp:
        path = os.path.join(tmp, "trace.jsonl")
        run_cli(args + ["-o", path])
        return read(path)


def gen(profile="64k", trajectories=500, seed=1, reading="trajectories", out=None):
    """A synthetic trace calibrated to the paper's Table 2 row `profile` (32k | 48k | 64k), as a DataFrame; with
    out=FILE also written there (the same bytes as `dualpath trace gen`)."""
    return _written(out, ["trace", "gen", "--profile", profile, "--trajectories", str(trajectories), "--seed",
                          str(seed), "--reading", reading])


def convert(path, source, reuse="hashes", out=None):
    """A public trace (source: mooncake | bailian | azure | burstgpt) converted to the native format, as a
    DataFrame; with out=FILE also written there."""
    return _written(out, ["trace", "convert", "--from", source, "--reuse", reuse, os.fspath(path)])


def stats(path, source="native", block_tokens=64, reuse="hashes"):
    """`dualpath trace stats --json`: the Table 2 columns, the replay hit rates and, for a public trace, what its
    conversion found (the per-model counts of a BurstGPT log, ...), as a dict."""
    args = ["trace", "stats", os.fspath(path), "--from", source, "--block-tokens", str(block_tokens), "--json"]
    if source != "native":
        args += ["--reuse", reuse]
    return json.loads(run_cli(args))
