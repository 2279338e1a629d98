"""Reading the JSON files dualpath writes, for the report scripts: bounded as the C++ readers are (64 MiB,
core/config/input_file.hpp), strict (NaN and Infinity are not JSON), and checked against the shape the command
writes, so that a damaged or hostile file is one line naming the file and the JSON path (ResultsError, exit 2 from
report.py), never a traceback.

A shape: "string", "boolean", "number" (finite), "int", "count" (a whole number >= 1), "null", "prices", or "a|b";
[shape] an array of that shape; {key: shape} an object with those keys (a key ending in ? may be absent).
"""
import json
import math
import os

MAX_JSON_BYTES = 64 << 20


class ResultsError(Exception):
    """A results file that is missing, damaged or not what dualpath writes: one line, exit 2."""


WANT = {"object": "an object", "array": "an array", "string": "a string", "boolean": "true or false",
        "number": "a number", "int": "a whole number", "count": "a whole number >= 1", "null": "null",
        "prices": "a price or an object of prices per topology"}


def _not_json(token):
    raise ValueError(f"{token} is not a JSON number")


def read_json(path, what):
    """The JSON document at `path`, read whole within MAX_JSON_BYTES; ResultsError naming the file otherwise."""
    too_large = f"{path}: larger than {MAX_JSON_BYTES >> 20} MiB, expected {what} of at most that (is it the right file?)"
    try:
        if os.stat(path).st_size > MAX_JSON_BYTES:
            raise ResultsError(too_large)
        with open(path, "rb") as f:
            data = f.read(MAX_JSON_BYTES + 1)  # a file that grows, or a device that reports no size
    except OSError as e:
        raise ResultsError(f"{path}: unreadable ({e.strerror or e})") from None
    if len(data) > MAX_JSON_BYTES:
        raise ResultsError(too_large)
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_not_json)
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: not valid JSON (line {e.lineno} column {e.colno}: {e.msg}); written by an "
                           "interrupted command? rerun it") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ResultsError(f"{path}: not valid JSON ({str(e).splitlines()[0][:80]})") from None


def _ok(v, kind):
    if kind == "prices":
        return _ok(v, "number") or (isinstance(v, dict) and bool(v) and all(_ok(x, "number") for x in v.values()))
    if kind in ("number", "int", "count"):
        return (not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v)
                and (kind == "number" or (v == int(v) and (kind == "int" or v >= 1))))
    return v is None if kind == "null" else type(v) is {"string": str, "boolean": bool, "object": dict,
                                                         "array": list}[kind]


def check(v, spec, where, path, writer):
    """Raises ResultsError naming `path` and the JSON path of the first value that does not match `spec`."""
    kinds = ("object" if isinstance(spec, dict) else "array" if isinstance(spec, list) else spec).split("|")
    if not any(_ok(v, k) for k in kinds):
        shown = json.dumps(v)
        raise ResultsError(f"{path}: {where or '/'}: expected {' or '.join(WANT[k] for k in kinds)}, found "
                           f"{shown if len(shown) <= 60 else shown[:57] + '...'} (not a {writer} writes)")
    for key, sub in (spec.items() if isinstance(spec, dict) else ()):
        if key.rstrip("?") in v:
            check(v[key.rstrip("?")], sub, f"{where}/{key.rstrip('?')}", path, writer)
        elif not key.endswith("?"):
            raise ResultsError(f"{path}: {where}/{key}: missing (not a {writer} writes)")
    for i, x in enumerate(v if isinstance(spec, list) else ()):
        check(x, spec[0], f"{where}/{i}", path, writer)
