#!/usr/bin/env bash
# Every repository path the docs name exists (tests/cli/doc_paths.py says which words count as paths).
# Usage: doc_paths.sh <dualpath-binary> <repo-root>
set -euo pipefail
exec /usr/bin/python3 "$2/tests/cli/doc_paths.py" "$2"
