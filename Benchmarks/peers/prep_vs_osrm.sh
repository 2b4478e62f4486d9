#!/usr/bin/env bash
# Routing preprocessing figures of docs/routing-preprocessing.md: RoadSnap's contraction (one thread, all cores) and
# OSRM's osrm-extract + osrm-contract (PyPI osrm-bindings, stock car.lua) on the same networks, in one run.
# Usage: Benchmarks/peers/prep_vs_osrm.sh [WORK_DIR] [extra Benchmarks args, e.g. tiles=1,4 grid=100]
# Needs Python >= 3.12 for the osrm-bindings wheel (cp312-abi3); the venv goes to WORK_DIR/.venv.
set -euo pipefail
W=${1:-/tmp/roadsnap-prep}; shift || true
PY312=${PY312:-$(ls -d "$(pyenv root 2>/dev/null)"/versions/3.1[2-9]*/bin/python3 2>/dev/null | head -1)}
mkdir -p "$W"
if [ ! -x "$W/.venv/bin/python" ]; then
  "${PY312:-python3}" -m venv "$W/.venv"
  "$W/.venv/bin/pip" install -q --only-binary=:all: osrm-bindings
fi
swift build -c release --product Benchmarks
.build/release/Benchmarks preprocess osrm="$W/.venv/bin/python" dir="$W" "$@"
