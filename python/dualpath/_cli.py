"""Runs the dualpath command line as a child process, for the verbs that are processes by design (plan and the band
run one simulation per probe) or that print their data as JSON (trace stats, analyze). Its one-line errors come
back as the package's exceptions: exit 2 is InputError, any other failure RunError."""
import os
import subprocess

from . import _paths
from ._dualpath import InputError


class RunError(RuntimeError):
    """A dualpath command failed for a reason other than bad input (exit 1: a run failed, a check missed)."""


def cli_path():
    """The dualpath binary the verbs run: $DUALPATH_CLI, else the one this package was built or installed with."""
    path = os.environ.get("DUALPATH_CLI", _paths.CLI)
    if not os.access(path, os.X_OK):
        raise RunError(f"no dualpath command line at {path} (build it, or set DUALPATH_CLI)")
    return path


def run_cli(args, quiet_stderr=True):
    """Runs `dualpath ARGS...`; returns its stdout. Raises InputError (exit 2, the CLI's one line) or RunError."""
    p = subprocess.run([cli_path(), *args], capture_output=True, text=True)
    if p.returncode == 0:
        return p.stdout
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    if p.returncode == 2:
        errors = [l for l in lines if l.startswith("dualpath: error: ")]
        text = errors[-1][len("dualpath: error: "):] if errors else (lines[-1] if lines else "bad input")
        raise InputError(text)
    tail = " | ".join(lines[-3:]) if lines else "no message"
    raise RunError(f"dualpath {args[0]} failed with exit code {p.returncode}: {tail}")
