#!/usr/bin/env python3
"""Every command README.md and docs/*.md show is run (issue 45: docs that are tested), in document order in one
scratch folder per file (so a command can use what an earlier one wrote: `trace gen -o t.jsonl`, then
`trace stats t.jsonl`), at a small size, and must exit 0.

- A command is a code line that starts with `dualpath` or `build/release/cli/dualpath` (continuations with `\\`
  joined). The binary under test replaces the program name.
- Small size: `run`, `sweep`, `plan` and `capacity` get `--set` overrides appended that shorten the workload
  (SHRINK below; a later --set wins), and `capacity` / `plan --objective capacity` a coarse --resolution and a
  strict TTFT limit (unless the doc gives one), so that the search ends after a few cheap probes; `claims`
  checks claim 1 only (`--only 1`, unless the doc gives --only: tests/cli/claims_<n>.sh check each claim); nothing
  else of the command changes, so a renamed flag, a bad value or a missing file in the doc still fails.
- The docs' shorthands S6, S6o and S27 (docs/fidelity.md) are expanded.
- Quoted output: a command whose comment says `(prints the lines below)` runs at its full size, and every line
  that follows it in the block must be in what it prints (spaces normalised), so a figure the doc quotes from a
  bundled run fails this test once the model moves it.
- Not run, each for a reason the doc gives on the line: a synopsis (`[...]`, a word in capitals such as SCENARIO,
  a `...`), or a comment that says `(needs ...)`: hardware, a Slurm cluster, a file the repository does not ship.
  The test prints every skipped line with its reason, and fails on a skip without one.
Usage: doc_commands.py DUALPATH REPO [DOC...]
"""
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

dualpath, repo = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
docs = sys.argv[3:] or ["README.md"] + sorted(os.path.relpath(p, repo) for p in glob.glob(f"{repo}/docs/*.md"))
ALIASES = {"S6o": "scenarios/ds660b-2p4d-online.json", "S6": "scenarios/ds660b-2p4d.json",
           "S27": "scenarios/ds27b-1p1d.json"}
SHRINK = ["--set", "workload.agents=16", "--set", "workload.duration=60 s", "--set", "workload.trajectories=4"]
COMMAND = re.compile(r"^\s*(?:\$ )?((?:build/release/cli/)?dualpath\s.*)$")
# Scripts and benchmarks the docs show: each needs a "(needs ...)" reason on its line (they take minutes to hours
# on a quiet machine), except the README's two set-up commands, which .ci/run runs itself.
SCRIPT = re.compile(r"^\s*((?:[A-Z_]+=\S+\s+)*(?:\./)?(?:bench|scripts)/\S+.*|build/release/bench/\S+.*)$")
SETUP = {"./scripts/run-default.sh": ".ci/run runs it after the release build",
         "./scripts/test.sh": ".ci/run runs it: it is the test command"}


VERBS = {"run", "check", "sweep", "plan", "capacity", "claims", "validate", "report", "trace", "analyze", "hw",
         "--version", "--help"}


def is_command(line):
    """A line that runs the program (`dualpath VERB ...`), not one of its printed lines (`dualpath   JCT ...`)."""
    m = COMMAND.match(line)
    return bool(m) and len(m.group(1).split()) > 1 and m.group(1).split()[1] in VERBS


def commands(path):
    lines = open(os.path.join(repo, path)).read().split("\n")
    fence, i = False, 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fence = not fence
        indented = line.startswith("    ")
        m = (COMMAND.match(line) if is_command(line) else None) or SCRIPT.match(line)
        if m and (fence or indented):
            cmd, start = m.group(1), i + 1
            while cmd.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                cmd = cmd.rstrip()[:-1] + " " + lines[i].strip()
            output = []  # the lines after it in the same block (its printed output, where the doc quotes it)
            k = i + 1
            while k < len(lines) and lines[k].strip() and not lines[k].lstrip().startswith("```") \
                    and not is_command(lines[k]) and not SCRIPT.match(lines[k]) \
                    and (fence or lines[k].startswith("    ")):
                output.append(lines[k].strip())
                k += 1
            yield start, cmd, output
        i += 1


def split(cmd):
    """(words, comment): the shell words before an unquoted '#', and the comment."""
    lex = shlex.shlex(cmd, posix=True, punctuation_chars=False)
    lex.whitespace_split = True
    lex.commenters = "#"
    words = list(lex)
    hash_at = None
    quote = None
    for k, ch in enumerate(cmd):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "#" and (k == 0 or cmd[k - 1] == " "):
            hash_at = k
            break
    return words, (cmd[hash_at + 1:].strip() if hash_at is not None else "")




def skip_reason(words, comment):
    m = re.search(r"\(needs ([^)]*)\)", comment)
    if m:
        return "needs " + m.group(1)
    if len(words) < 2 or words[1] not in VERBS:
        return "printed output, not a command"
    for w in words[1:]:
        if w in ALIASES:
            continue
        if w.startswith("[") or w == "..." or "|" in w and w.startswith("(") or re.fullmatch(r"[A-Z][A-Z0-9_]*", w) \
                or re.search(r"=[A-Z]$", w):
            return f"a synopsis ({w!r} is a placeholder)"
    return None


def shrunk(words):
    verb = words[1] if len(words) > 1 else ""
    out = list(words)
    if verb in ("run", "sweep", "plan", "capacity"):
        out += SHRINK
    # The claims suite's six claims are checked one by one in tests/cli/claims_<n>.sh (and the doc's figures there):
    # here a documented `claims` command only has to run, so claim 1 alone (what --verbose details) is enough.
    if verb == "claims" and "--only" not in out:
        out += ["--only", "1"]
    if verb == "capacity" or (verb == "plan" and "capacity" in words):
        if "--resolution" in out:
            out[out.index("--resolution") + 1] = "0.5"
        elif "--target-aps" not in out:  # the inverse question probes at one rate: it has no resolution
            out += ["--resolution", "0.5"]
        if "--slo-ttft" not in out:  # a strict SLO fails at a low rate: a short search of cheap probes
            out += ["--slo-ttft", "0.2 s"]
        # 60-s probes cannot reach the default stop rule's steady state (it compares windows 30 min apart): the
        # TTFT-only reading lets the shrunk search run (the rule itself: tests/cli/capacity_transient.sh).
        out += ["--set", "workload.stop=slo-ttft"]
    return out


def main():
    failures, ran, skipped = [], 0, 0
    for doc in docs:
        work = tempfile.mkdtemp(prefix="doc_commands_")
        for entry in ("scenarios", "models", "topologies", "traces", "profiles", "tests", "examples", "ci"):
            if os.path.exists(f"{repo}/{entry}"):
                os.symlink(f"{repo}/{entry}", f"{work}/{entry}")
        try:
            for line, cmd, output in commands(doc):
                words, comment = split(cmd)
                words = [ALIASES.get(w, w) for w in words]
                if not COMMAND.match(cmd):  # a script or a benchmark
                    m = re.search(r"\(needs ([^)]*)\)", comment)
                    reason = SETUP.get(cmd.split("#")[0].strip()) or (m and "needs " + m.group(1))
                    if not reason:
                        failures.append(f"{doc}:{line}: {cmd}\n      a script the docs show but this test does not "
                                        "run: say on its line why, as (needs ...)")
                        continue
                    skipped += 1
                    print(f"skip {doc}:{line}: {reason}")
                    continue
                reason = skip_reason(words, comment)
                if reason:
                    skipped += 1
                    print(f"skip {doc}:{line}: {reason}")
                    continue
                quoted = "(prints the lines below)" in comment
                argv = [dualpath] + (words[1:] if quoted else shrunk(words)[1:])
                t0 = time.time()
                p = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=600)
                ran += 1
                status = "ok" if p.returncode == 0 else f"FAILED (exit {p.returncode})"
                if quoted and p.returncode == 0:
                    printed = {" ".join(l.split()) for l in (p.stdout + p.stderr).splitlines()}
                    missing = [l for l in output if " ".join(l.split()) not in printed]
                    if missing or not output:
                        status = "FAILED (quoted output drifted)"
                        failures.append(f"{doc}:{line}: the doc quotes lines this command no longer prints:\n      " +
                                        "\n      ".join(missing or ["(no lines quoted below the command)"]) +
                                        "\n    it printed:\n      " + "\n      ".join((p.stdout + p.stderr).splitlines()[-8:]))
                elif p.returncode != 0:
                    failures.append(f"{doc}:{line}: {cmd}\n      {(p.stderr or p.stdout).strip()[-400:]}")
                print(f"{status:>4} {doc}:{line} ({time.time() - t0:.1f} s): {' '.join(words)[:110]}")
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{ran} documented commands ran, {skipped} skipped with a reason")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures or ran == 0 else 0


sys.exit(main())
