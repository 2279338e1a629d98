#!/usr/bin/env python3
"""Whether two output folders differ by rounding only: the proof a re-blessed exact change needs (issue 63).

    scripts/rounding_diff.py OLD_DIR NEW_DIR [--max-rel 1e-9] [--max-abs 1e-8] [--skip NAME ...]

Every file under OLD_DIR must exist under NEW_DIR with the same relative path and vice versa. Each pair is
compared token by token (numbers, and the text between them): the text must be identical and each pair of
numbers equal, within --max-rel of each other relative to the larger magnitude, or within --max-abs of each
other (our outputs' seconds and utilisation fractions: 1e-8 is 10 ns, or 1e-8 of a link for one sample interval,
the size of a completion moved by the clock's resolution, kTimeEps = 1 ns) (numbers within 1e-12 of zero
in both count as equal). Values a file prints with few digits (links.csv: 6 significant) may flip their last
digit on a far smaller change: two numbers at most one unit of the coarser last printed digit apart count as print
rounding, listed apart and not as a difference. Prints, per file that differs, the number of differing values and the largest relative
difference with both values; then the largest over all files. Exit 0 when every difference is within --max-rel,
1 otherwise (a structural difference, a missing file, or a number further apart), 2 on bad arguments.
perf.json (wall time) is skipped, as are lines that print wall time ("wall"), as scripts/same_outputs.sh does.
"""
import argparse
import os
import re
import sys

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)")


def tokens(line):
    """Alternating text and numbers of a line: [text, number, text, ..., text]."""
    out, at = [], 0
    for m in NUMBER.finditer(line):
        out.append(line[at:m.start()])
        out.append(m.group(0))
        at = m.end()
    out.append(line[at:])
    return out


def last_place(text):
    """The value of one unit in the last printed digit of a number as written (0.0131989 -> 1e-7)."""
    mantissa, _, exp = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 10.0 ** (int(exp or 0) - decimals)


def print_rounding(a, b):
    try:
        return abs(float(a) - float(b)) <= max(last_place(a), last_place(b)) * (1 + 1e-9)
    except ValueError:
        return False


def relative(a, b):
    x, y = float(a), float(b)
    if x == y or (abs(x) < 1e-12 and abs(y) < 1e-12):
        return 0.0
    if x != x or y != y:  # a NaN against anything else
        return float("inf")
    return abs(x - y) / max(abs(x), abs(y))


def compare(old, new, max_rel):
    """(values that differ, values one printed digit apart, worst (relative difference, old, new)) or a string
    naming a structural difference, and the largest absolute difference of the values further apart than max_rel."""
    with open(old, errors="replace") as f:
        a = [l for l in f.read().splitlines() if "wall" not in l]
    with open(new, errors="replace") as f:
        b = [l for l in f.read().splitlines() if "wall" not in l]
    if len(a) != len(b):
        return f"{len(a)} lines against {len(b)}"
    count, printed, worst, worst_abs = 0, 0, (0.0, "", ""), 0.0
    for n, (la, lb) in enumerate(zip(a, b), 1):
        if la == lb:
            continue
        ta, tb = tokens(la), tokens(lb)
        if len(ta) != len(tb) or any(ta[i] != tb[i] for i in range(0, len(ta), 2)):
            return f"line {n} differs in more than numbers:\n  old: {la[:200]}\n  new: {lb[:200]}"
        for i in range(1, len(ta), 2):
            if ta[i] == tb[i]:
                continue
            if len(ta[i].replace("-", "").lstrip("0.")) <= 8 and print_rounding(ta[i], tb[i]):
                printed += 1
                continue
            count += 1
            r = relative(ta[i], tb[i])
            d = abs(float(ta[i]) - float(tb[i])) if r != float("inf") else r
            if r > worst[0]:
                worst = (r, ta[i], tb[i])
            worst_abs = max(worst_abs, d if r > max_rel else 0.0)
    return count, printed, worst, worst_abs


def files(root, skip):
    out = set()
    for d, _, names in os.walk(root):
        for name in names:
            if name in skip:
                continue
            out.add(os.path.relpath(os.path.join(d, name), root))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--max-rel", type=float, default=1e-9)
    p.add_argument("--max-abs", type=float, default=1e-8)
    p.add_argument("--skip", nargs="*", default=["perf.json"])
    args = p.parse_args()
    for d in (args.old, args.new):
        if not os.path.isdir(d):
            print(f"rounding_diff: {d} is not a folder", file=sys.stderr)
            return 2
    fa, fb = files(args.old, set(args.skip)), files(args.new, set(args.skip))
    bad = False
    for rel in sorted(fa ^ fb):
        print(f"{rel}: only in {'OLD' if rel in fa else 'NEW'}")
        bad = True
    overall, compared, moved = (0.0, "", "", ""), 0, 0
    for rel in sorted(fa & fb):
        compared += 1
        r = compare(os.path.join(args.old, rel), os.path.join(args.new, rel), args.max_rel)
        if isinstance(r, str):
            print(f"{rel}: {r}")
            bad = True
            continue
        count, printed, (worst, x, y), worst_abs = r
        if printed:
            print(f"{rel}: {printed} values one unit apart in their last printed digit (print rounding)")
        if count == 0:
            continue
        moved += 1
        print(f"{rel}: {count} values differ, largest relative difference {worst:.3e} ({x} -> {y})" +
              (f"; past --max-rel, largest absolute difference {worst_abs:.3e}" if worst_abs else ""))
        if worst > overall[0]:
            overall = (worst, x, y, rel)
        if worst_abs > args.max_abs:
            bad = True
    worst, x, y, rel = overall
    print(f"rounding_diff: {compared} files compared, {moved} with numbers that moved; largest relative difference "
          f"{worst:.3e}" + (f" ({x} -> {y} in {rel})" if rel else "") +
          f"; limits {args.max_rel:g} relative or {args.max_abs:g} absolute")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
