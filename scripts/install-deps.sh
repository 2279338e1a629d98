#!/usr/bin/env bash
# Installs every build, test and analysis dependency from Debian 12 packages.
# Idempotent: packages already present are skipped by apt-get. Run as root (or through sudo).
set -euo pipefail

PKGS=(
  build-essential cmake ninja-build pkg-config git
  libsimgrid-dev nlohmann-json3-dev libcli11-dev libgtest-dev libgmock-dev libbenchmark-dev
  libucx-dev liburing-dev libopenmpi-dev openmpi-bin clang-14 libfuzzer-14-dev
  python3 python3-matplotlib python3-pandas python3-numpy python3-jsonschema python3-yaml python3-lxml
  pybind11-dev python3-dev python3-pytest python3-hypothesis  # the Python module (python/, docs/python.md) and its tests
  time  # /usr/bin/time: tests/cli/bad_input_classes.sh measures a refusal's memory
  slurm-wlm munge  # tests/cli/slurm.sh starts a single-node Slurm of its own (docs/slurm.md)
  chromium  # tests/cli/plan_report_browser.sh renders a plan's report page headless: console errors, DOM, screenshot
)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PKGS[@]} packages already installed"
  exit 0
fi

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
