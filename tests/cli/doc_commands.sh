#!/usr/bin/env bash
# Every command README.md and docs/*.md show runs (tests/cli/doc_commands.py says how and what is skipped why).
# Usage: doc_commands.sh <dualpath-binary> <repo-root>
set -euo pipefail
exec /usr/bin/python3 "$2/tests/cli/doc_commands.py" "$1" "$2"
