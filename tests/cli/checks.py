"""Shared by the tests/cli scripts' Python checks: print one ok/FAIL line per check, exit 1 if any failed.

Use: PYTHONPATH="$root/tests/cli" "$py" - ... <<'PY'
    from checks import check, done
    check(cond, "what was checked")
    done()
"""
import sys

failed = []


def check(ok, msg):
    print(("ok   " if ok else "FAIL ") + msg)
    if not ok:
        failed.append(msg)
    return ok


def done():
    sys.exit(1 if failed else 0)


def load_run(folder):
    """A run folder's summary.json and requests.csv rows."""
    import csv
    import json
    with open(f"{folder}/summary.json") as f:
        summary = json.load(f)
    with open(f"{folder}/requests.csv") as f:
        return summary, list(csv.DictReader(f))
