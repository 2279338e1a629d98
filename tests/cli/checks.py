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
