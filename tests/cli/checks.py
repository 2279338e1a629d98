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


def waits_add_up(name, summary, rows, lost_at=None):
    """The wait report charges every request-second once: its TTFT and round request-seconds equal requests.csv's.
    A lost attempt (done = -1, fault node-down) is charged up to `lost_at`, the fault's start."""
    kept = [r for r in rows if float(r["done"]) >= 0]
    lost = [r for r in rows if float(r["done"]) < 0]
    ttft = sum(float(r["first_token"]) - float(r["arrival"]) for r in kept)
    ttft += sum((float(r["first_token"]) if float(r["first_token"]) >= 0 else lost_at) - float(r["arrival"])
                for r in lost)
    life = sum(float(r["done"]) - float(r["arrival"]) for r in kept) + sum(lost_at - float(r["arrival"]) for r in lost)
    for part, want in (("ttft", ttft), ("round", life)):
        got = summary["waits"][part]["request_seconds"]
        check(abs(got - want) <= 1e-6 * want,
              f"{name}: {part} wait causes add up to {got:.3f} request-s (requests.csv: {want:.3f})")
