#!/usr/bin/env bash
# libFuzzer over every input parser and the C API (issue 16; docs/reliability.md). The package's objects are built
# with ASan and coverage; CShims' C/C++ also with UBSan in trap mode (undefined behaviour in C is a crash here).
#   scripts/fuzz.sh build              build .build/fuzz-release/roadsnap-fuzz (package objects with coverage + ASan)
#   scripts/fuzz.sh run SECONDS [T..]  fuzz each target (all by default) for SECONDS, one process at a time (one core),
#                                      corpus in .build/fuzz-release/corpus/T (seeded from Fuzz/corpus/T), crashers into
#                                      .build/fuzz-release/crashes; prints and appends a table row per target (execs, execs/s)
#                                      to .build/fuzz-release/summary.txt; exits 1 when a target found a crash.
# Env: SWIFT (swift), FUZZ_FLAGS (extra libFuzzer flags), FUZZ_CONFIG (release, the default: -O, about 13x the
#      executions per second of debug for a similar build time, into .build/fuzz-release; debug: -Onone, into
#      .build/fuzz, for stepping through a crasher in a debugger).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
swift=${SWIFT:-swift}
swiftc=${SWIFTC:-$(dirname "$(readlink -f "$(command -v "$swift")")")/swiftc}
config=${FUZZ_CONFIG:-release}
case $config in
debug) build=.build/fuzz; opt=-Onone ;;
release) build=.build/fuzz-release; opt=-O ;;
*) echo "FUZZ_CONFIG must be debug or release"; exit 2 ;;
esac
targets_all="gpx nmea csv geojson-track geojson-network osm-xml osm-pbf traffic rsmap rsmap-repaired capi"

build_fuzzer() {
    "$swift" build -c "$config" --build-path "$build" --product RoadSnapCStatic \
        -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address -Xcxx -fsanitize=fuzzer-no-link,address \
        -Xcc -fsanitize=undefined -Xcc -fsanitize-trap=undefined -Xcxx -fsanitize=undefined -Xcxx -fsanitize-trap=undefined
    local bin; bin=$("$swift" build -c "$config" --build-path "$build" --show-bin-path)
    mapfile -t objs < "$bin/RoadSnapCStatic.product/Objects.LinkFileList"
    "$swiftc" -sanitize=fuzzer,address -parse-as-library -g "$opt" Fuzz/*.swift -o "$build/roadsnap-fuzz" \
        -I "$bin/Modules" -Xcc -fmodule-map-file="$bin/CShims.build/module.modulemap" -Xcc -I"$root/CShims/include" \
        -Xcc -fmodule-map-file="$bin/RoadSnapCHeader.build/module.modulemap" -Xcc -I"$root/include" \
        "${objs[@]}" -lz -lbz2 -lexpat -lsimdjson -lstdc++ -ldl -lpthread
    echo "built $build/roadsnap-fuzz"
}

run_fuzzer() {
    local seconds=$1; shift
    local targets=${*:-$targets_all} failed=0
    [ -x "$build/roadsnap-fuzz" ] || build_fuzzer
    mkdir -p "$build/crashes"
    for t in $targets; do
        mkdir -p "$build/corpus/$t"
        cp -n Fuzz/corpus/"$t"/* "$build/corpus/$t/" 2>/dev/null || true
        local log="$build/$t.log"
        # -rss_limit_mb: a parser may use memory, not without bound; -timeout: no input may hang (60 s: on a loaded
        # machine under ASan a 2,700 km road takes ~26 s to index, linear in its length, see docs/reliability.md).
        # SWIFT_BACKTRACE=enable=no: on a Swift trap the runtime's backtracer would run first and ASan report its
        # memory reads instead of libFuzzer printing the trap's stack.
        # A run stopped by hand (SIGINT/SIGTERM to the fuzzer) exits with libFuzzer's interrupt code 72 after
        # "run interrupted": reported as stopped, not as a crash.
        local rc=0
        ROADSNAP_FUZZ_TARGET=$t SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
            "$build/roadsnap-fuzz" "$build/corpus/$t" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 \
            -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/crashes/$t-" -interrupt_exitcode=72 \
            ${FUZZ_FLAGS:-} > "$log" 2>&1 || rc=$?
        if [ "$rc" = 72 ] && grep -q "run interrupted" "$log"; then
            echo "$t: stopped by hand (not a crash; see $log)"
        elif [ "$rc" != 0 ]; then
            failed=1
            echo "$t: CRASH, exit status $rc (see $log, $build/crashes/$t-*)"
        fi
        local runs secs
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
        [ -n "$secs" ] || secs=$seconds
        local row; row=$(printf '%-16s %10s execs %6s s %8s execs/s  corpus %s files' "$t" "${runs:-0}" "$secs" \
            "$(( ${runs:-0} / (secs > 0 ? secs : 1) ))" "$(ls "$build/corpus/$t" | wc -l)")
        echo "$row"
        echo "$(date -u +%FT%TZ) $row" >> "$build/summary.txt"
    done
    return $failed
}

case ${1:-} in
build) build_fuzzer ;;
run) shift; run_fuzzer "$@" ;;
*) echo "usage: scripts/fuzz.sh build | run SECONDS [TARGET...]   (targets: $targets_all)"; exit 2 ;;
esac
