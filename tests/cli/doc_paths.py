"""Every repository path the docs name in backticks exists (README.md, docs/*.md and each folder's README.md).

A path is a backticked word whose first part is a top-level folder of the repository and that ends in a file
extension, `.*` (any of a stem's files) or `.{hpp,cpp}` (each of those). Paths under build/ and results/ (what a
build or a run writes) are not checked. A file moved or renamed without its docs fails here, naming the doc, the line and the path.
Usage: doc_paths.py <repo-root>
"""
import glob
import os
import re
import subprocess
import sys

root = sys.argv[1]
docs = ["README.md"] + sorted(glob.glob("docs/*.md", root_dir=root)) + sorted(glob.glob("*/README.md", root_dir=root))
# The repository's own top-level folders: those git tracks (not build/ or the results/ a run writes); outside a git
# checkout, every folder but those two.
try:
    tracked = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True, check=True).stdout
    tops = {f.split("/")[0] for f in tracked.splitlines() if "/" in f}
except (OSError, subprocess.CalledProcessError):
    tops = {d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)) and not d.startswith(".")}
tops -= {"build", "results"}
PATH = re.compile(r"^[A-Za-z0-9_.\-/{},*]+$")
ENDS = re.compile(r"\.(cpp|hpp|py|sh|json|jsonl|md|txt|csv|yaml|yml)$|\.\*$|\.\{[a-z,]+\}$")
missing, checked = [], 0
for doc in docs:
    for n, line in enumerate(open(os.path.join(root, doc)), 1):
        for word in re.findall(r"`([^`\s]+)`", line):
            word = word.rstrip(".,;:)")
            if not PATH.match(word) or "/" not in word or word.split("/")[0] not in tops or not ENDS.search(word):
                continue
            braces = re.match(r"^(.*)\.\{([a-z,]+)\}$", word)
            for path in [braces.group(1) + "." + e for e in braces.group(2).split(",")] if braces else [word]:
                checked += 1
                found = glob.glob(path, root_dir=root) if "*" in path else os.path.exists(os.path.join(root, path))
                if not found:
                    missing.append(f"{doc}:{n}: `{path}` does not exist")
for m in missing:
    print("FAIL", m)
print(f"{checked} paths named in {len(docs)} docs, {len(missing)} missing")
sys.exit(1 if missing or checked < 100 else 0)
