#!/usr/bin/env bash
# The golden corpus (tests/golden/): a few small runs whose outputs are committed, so that a change in what the
# simulator computes shows without an old binary to compare with (scripts/same_outputs.sh does the full check).
#   scripts/golden.sh check [BIN]   runs every case of tests/golden/cases.txt and compares; exit 1 naming each
#                                   case and file that differs (the new runs are kept, in GOLDEN_WORK or a
#                                   temporary folder it prints)
#   scripts/golden.sh bless [BIN]   reruns them and rewrites tests/golden/ (after a change meant to move results:
#                                   commit the new corpus with the change, and say why in the message)
# BIN defaults to build/release/cli/dualpath. Per case the corpus keeps summary.json, waits.csv, the exit code and
# the stdout/stderr of the run (wall times taken out), in full, and the SHA-256 and line count of requests.csv and
# links.csv (too large to commit for every case; a digest names the file that moved, and `diff` of the kept run
# against a run of the previous commit shows how). perf.json (wall time, version) is not compared.
# The runs are single-threaded IEEE double arithmetic, and x86-64's baseline has no fused multiply-add to contract
# into: the dev (-O2) and release (-O3) GCC builds give the same bytes (checked); another architecture, or flags
# such as -march=native or -ffast-math, may differ in the last digits.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mode="${1:?usage: $0 check|bless [BIN]}"
bin="${2:-$root/build/release/cli/dualpath}"
case "$mode" in check | bless) ;; *) echo "usage: $0 check|bless [BIN]" >&2; exit 2 ;; esac
[ -x "$bin" ] || { echo "golden: no dualpath binary at $bin (build it first)" >&2; exit 2; }
corpus="${GOLDEN_CORPUS:-$root/tests/golden}"  # another corpus folder (with its cases.txt): for tests
work="${GOLDEN_WORK:-}"
keep_work=1
[ -n "$work" ] || { work=$(mktemp -d); keep_work=0; }
mkdir -p "$work"

# Writes the compared form of a case's run into $2: the small files whole, digests of the large ones.
collect() {  # run-folder dest
  local run=$1 dest=$2 f
  mkdir -p "$dest"
  for f in summary.json waits.csv; do [ ! -f "$run/$f" ] || cp "$run/$f" "$dest/$f"; done
  : > "$dest/digests.txt"
  for f in requests.csv links.csv; do
    [ -f "$run/$f" ] || continue
    printf '%s  %s lines  %s\n' "$(sha256sum < "$run/$f" | cut -d' ' -f1)" "$(wc -l < "$run/$f")" "$f" >> "$dest/digests.txt"
  done
}

# cases.txt: one case per line, "name|arg|arg|...", arguments after `dualpath run` (paths relative to the root);
# lines starting with # are comments.
names=()
cd "$root"
while IFS= read -r line; do
  case "$line" in '' | '#'*) continue ;; esac
  IFS='|' read -r -a fields <<< "$line"
  name=${fields[0]}
  args=("${fields[@]:1}")
  names+=("$name")
  out="$work/$name"
  rm -rf "$out"
  mkdir -p "$out"
  rc=0
  "$bin" run "${args[@]}" --out "$out/run" > "$out/stdout" 2> "$out/stderr" || rc=$?
  # Wall times, and the kept run's temporary folder, are the only parts of stdout that vary between runs.
  sed -i -E -e 's/[0-9.]+ s wall//g' -e "s|$out/run|RUN|g" "$out/stdout" "$out/stderr"
  collect "$out/run" "$out/compared"
  echo "$rc" > "$out/compared/exit"
  cp "$out/stdout" "$out/stderr" "$out/compared/"
done < "$corpus/cases.txt"

if [ "$mode" = bless ]; then
  find "$corpus" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} +
  for name in "${names[@]}"; do cp -r "$work/$name/compared" "$corpus/$name"; done
  echo "golden: blessed ${#names[@]} cases into $corpus (commit them with the change that moved them)"
  [ "$keep_work" = 1 ] || rm -rf "$work"
  exit 0
fi

bad=0
for name in "${names[@]}"; do
  if [ ! -d "$corpus/$name" ]; then echo "golden: $name: not in the corpus (run scripts/golden.sh bless)"; bad=1; continue; fi
  if ! diff -r -q "$corpus/$name" "$work/$name/compared" > /dev/null; then
    bad=1
    diff -r -q "$corpus/$name" "$work/$name/compared" | sed "s|^|golden: $name: |" || true
    if ! cmp -s "$corpus/$name/summary.json" "$work/$name/compared/summary.json"; then
      diff "$corpus/$name/summary.json" "$work/$name/compared/summary.json" | head -20 | sed "s|^|golden: $name:   |" || true
    fi
  fi
done
for d in "$corpus"/*/; do
  [ -d "$d" ] || continue
  n=$(basename "$d")
  printf '%s\n' "${names[@]}" | grep -qx "$n" || { echo "golden: $n: in the corpus but not in cases.txt"; bad=1; }
done
if [ "$bad" = 0 ]; then
  echo "golden: ${#names[@]} cases match $corpus"
  [ "$keep_work" = 1 ] || rm -rf "$work"  # a failed check keeps its runs, for diffing
else
  echo "golden: outputs moved; the new runs are in $work (scripts/golden.sh bless if the change is meant to move them)"
fi
exit "$bad"
