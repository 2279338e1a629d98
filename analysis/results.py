"""Loading dualpath results folders (simulator or hardware backend: same file formats).

A run folder holds summary.json, requests.csv, links.csv (and perf.json); a multi-policy folder holds one run
folder per policy; a sweep folder holds sweep.csv (and usually run folders per point). summary.json's "backend"
("sim" or "hw") tells the backends apart; a missing key means "sim".
"""
import csv
import io
import json
import os
import sys

import pandas as pd

TTFT_PHASES = ("queue", "allocate", "read", "prefill")


# A results file that is missing, damaged or truncated: the message names the file and what is wrong.
from json_shapes import ResultsError, check, read_json  # noqa: E402

# What the report reads from a run's summary.json (core/run/run_folder.cpp writes it): the rest is not read.
STAT = {k + "?": "number|null" for k in ("mean", "p50", "p90", "p99", "max")}
RUN_SUMMARY = {"policy?": "string", "scenario?": "string", "backend?": "string",
               "results": {"jct_s": "number", "rounds?": "number", "prompt_tokens_per_s?": "number|null",
                           "ttft_s?": STAT, "tpot_s?": STAT},
               "links?": {"pe_snic_read_utilisation?": "number|null", "de_snic_read_utilisation?": "number|null"},
               "config?": {"deployment?": {"prefill_nodes?": "count", "decode_nodes?": "count"},
                           "topology?": {"gpus_per_node?": "count"}},
               "waits?": {"ttft?": {"binds?": "string"}},
               "faults?": [{"kind": "string", "started?": "number|null", "ended?": "number|null", "node?": "int",
                            "gpu?": "int", "factor?": "number"}]}


def _check_complete(path):
    """Every row has the header's number of fields and the file ends with a newline: the simulator writes whole
    rows, so a short or unterminated last row is a file cut short (pandas would fill it with NaN)."""
    try:
        with open(path, newline="") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: unreadable CSV ({e})") from None
    if "\0" in text:
        raise ResultsError(f"{path}: a NUL byte in a CSV file (a damaged file)")
    if text and not text.endswith("\n"):
        raise ResultsError(f"{path}: the last row does not end with a newline (a truncated file)")
    rows = csv.reader(io.StringIO(text))
    header = next(rows, None)
    for n, row in enumerate(rows, start=2):
        if header is not None and len(row) != len(header):
            raise ResultsError(f"{path}: row {n} has {len(row)} fields, the header {len(header)} "
                               "(a truncated or damaged file)")


def _read_csv(path, required):
    """A CSV the simulator wrote: complete (_check_complete), every `required` column present and filled in every
    row."""
    _check_complete(path)
    try:
        df = pd.read_csv(path)
    except Exception as e:  # noqa: BLE001 (pandas raises several kinds)
        raise ResultsError(f"{path}: unreadable CSV ({str(e).splitlines()[0]})") from None
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ResultsError(f"{path}: expected columns {', '.join(missing)}, found {', '.join(df.columns)}")
    bad = df[list(required)].isna().any(axis=1)
    if bad.any():
        raise ResultsError(f"{path}: row {int(bad.idxmax()) + 2} is incomplete (a truncated or damaged file)")
    return df


class Run:
    def __init__(self, path, source):
        self.path = path
        self.source = source  # the results folder given on the command line that holds this run
        p = os.path.join(path, "summary.json")
        self.summary = read_json(p, "a run's summary.json")
        if not isinstance(self.summary, dict) or not isinstance(self.summary.get("results"), dict) or \
                "jct_s" not in self.summary["results"]:
            raise ResultsError(f"{p}: expected a run summary with results.jct_s (a dualpath run folder)")
        check(self.summary, RUN_SUMMARY, "", p, "summary.json `dualpath run`")
        if self.summary.get("backend", "sim") not in ("sim", "hw"):
            raise ResultsError(f"{p}: /backend: expected \"sim\" or \"hw\", found {json.dumps(self.summary['backend'])}")
        self.policy = self.summary.get("policy", os.path.basename(path))
        self.scenario = self.summary.get("scenario", "?")
        self.backend = self.summary.get("backend", "sim")
        self.label = self.policy
        self._requests = None
        self._links = None
        self._waits = None

    @property
    def results(self):
        return self.summary.get("results", {})

    def requests(self):
        if self._requests is None:
            p = os.path.join(self.path, "requests.csv")
            self._requests = _read_csv(p, ("id", "arrival", "first_token", "done")) if os.path.exists(p) \
                else pd.DataFrame()
        return self._requests

    def links(self):
        if self._links is None:
            p = os.path.join(self.path, "links.csv")
            self._links = _read_csv(p, ("time", "link", "utilisation")) if os.path.exists(p) else pd.DataFrame()
        return self._links

    def waits(self):
        """waits.csv: per time bin, the mean number of requests in each wait cause (empty if absent)."""
        if self._waits is None:
            p = os.path.join(self.path, "waits.csv")
            self._waits = _read_csv(p, ()) if os.path.exists(p) else pd.DataFrame()
        return self._waits

    def ttft(self):
        r = self.requests()
        if r.empty:
            return pd.Series(dtype=float)
        ok = r[(r.first_token >= 0) & (r.arrival >= 0)]
        return ok.first_token - ok.arrival

    def ttft_breakdown(self):
        """Mean seconds per TTFT phase: summary.json's values, else computed from requests.csv (docs/metrics.md)."""
        b = self.results.get("ttft_breakdown_s")
        if b and all(k in b for k in TTFT_PHASES):
            return {k: float(b[k]) for k in TTFT_PHASES}
        r = self.requests()
        if r.empty:
            return {k: 0.0 for k in TTFT_PHASES}
        r = r[r.first_token >= 0]
        sched = r[["pe_assigned", "de_assigned"]].max(axis=1)
        return {"queue": float((sched - r.arrival).mean()), "allocate": float((r.read_start - sched).mean()),
                "read": float((r.read_end - r.read_start).mean()),
                "prefill": float((r.first_token - r.read_end).mean())}


def find_runs(folder):
    """Run folders in `folder`: itself if it holds summary.json, and its subfolders that do (sorted). A folder that
    holds both (a single run written on top of per-policy runs, or the other way round) is reported per part, with
    a note on stderr: reporting only one of them would hide the other."""
    runs = []
    if os.path.exists(os.path.join(folder, "summary.json")):
        runs.append(Run(folder, folder))
    for name in sorted(os.listdir(folder)):
        sub = os.path.join(folder, name)
        if os.path.isdir(sub) and os.path.exists(os.path.join(sub, "summary.json")):
            runs.append(Run(sub, folder))
    if len(runs) > 1 and runs[0].path == folder:
        print(f"dualpath report: {folder} holds a run (summary.json) and per-policy runs in its subfolders; "
              "reporting each (write each run to its own --out folder to keep them apart)", file=sys.stderr)
    return runs


def label_runs(runs):
    """Gives each run a short unique label: the policy, plus the backend and/or source folder when needed."""
    backends = {r.backend for r in runs}
    scenarios = {r.scenario for r in runs}
    for r in runs:
        parts = [r.policy]
        if len(backends) > 1:
            parts.append(r.backend)
        if len(scenarios) > 1:
            parts.append(r.scenario)
        r.label = " · ".join(parts)
    seen = {}
    for r in runs:
        seen.setdefault(r.label, []).append(r)
    for label, same in seen.items():
        if len(same) > 1:
            for r in same:
                r.label = f"{label} [{os.path.relpath(r.path, os.path.dirname(os.path.normpath(r.source)))}]"
    return runs


def find_sweeps(folder):
    p = os.path.join(folder, "sweep.csv")
    return [p] if os.path.exists(p) else []
