#!/usr/bin/env bash
# Every value docs/configuration.md documents as valid for a scenario key is accepted by `dualpath check`, and the
# first value past each bound is refused (tests/cli/documented_values.py). Usage: documented_values.sh BIN ROOT
set -euo pipefail
exec python3 "$2/tests/cli/documented_values.py" "$1" "$2"
