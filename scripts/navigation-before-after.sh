#!/bin/sh
# Alternating runs of `Benchmarks navigation` from two release binaries (e.g. a copy of .build/release/Benchmarks
# built before a change, and the current one), N times each, with the load average before each run: on a shared
# machine compare each binary's guidance row with the snap baseline of the same run.
# Usage: [RUNS=N] scripts/navigation-before-after.sh BEFORE_BINARY AFTER_BINARY   (from the repository root; N
# alternating pairs, 3 unless set)
before=${1:?before binary}; after=${2:?after binary}
for i in $(seq 1 "${RUNS:-3}"); do
  for b in before after; do
    if [ "$b" = before ]; then bin=$before; else bin=$after; fi
    echo "== $b run $i load $(cut -d' ' -f1-3 /proc/loadavg)"
    "$bin" navigation 2>&1 | grep -E "Snapper|StreamMatcher|guidance|inline|queue|listener calls"
  done
done
