#!/usr/bin/env bash
# The C API's C tests under AddressSanitizer + UndefinedBehaviorSanitizer (issue 16; docs/reliability.md).
#
# The library is not rebuilt for this: the tests are linked against the objects of the fuzzer build
# (`scripts/fuzz.sh build`: CShims, Bridge, Core, Formats and CAPI compiled with ASan, CShims also with UBSan in trap
# mode, plus coverage counters, which the ASan runtime satisfies without libFuzzer). The C tests themselves are
# compiled with -fsanitize=address,undefined (UBSan traps: no runtime needed). test_host is left out: it checks that
# the library installs no signal handler, and ASan installs its own by design (valgrind covers it in capi-test).
#
# Usage: scripts/capi-asan.sh [RSMAP]   (RSMAP: issue-70 compiled; made with .build/debug/roadsnap when missing)
# Env: SWIFT, FUZZ_CONFIG (debug or release: which fuzzer build's objects, as in scripts/fuzz.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
swift=${SWIFT:-swift}
bindir=$(dirname "$(readlink -f "$(command -v "$swift")")")
swiftc=${SWIFTC:-$bindir/swiftc}
clang=${CLANG:-$bindir/clang}
config=${FUZZ_CONFIG:-release}
case $config in debug) build=.build/fuzz ;; release) build=.build/fuzz-release ;; *) exit 2 ;; esac
bin=$("$swift" build -c "$config" --build-path "$build" --show-bin-path)
list="$bin/RoadSnapCStatic.product/Objects.LinkFileList"
[ -f "$list" ] || { echo "capi-asan: $list missing (run scripts/fuzz.sh build first)"; exit 1; }
mapfile -t objs < "$list"
out=.build/capi-asan
mkdir -p "$out"
rsmap=${1:-$out/issue-70.rsmap}
if [ ! -f "$rsmap" ]; then
    "$swift" build --product roadsnap
    .build/debug/roadsnap compile --map Tests/RoadSnapCoreTests/Fixtures/osm/issue-70.osm.gz --out "$rsmap"
fi

cflags=(-std=c99 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -O1 -g -fno-omit-frame-pointer -Iinclude
    -fsanitize=address,undefined -fsanitize-trap=undefined)
# The libraries the objects need (GEOS, PROJ and cairo are loaded with dlopen on first use).
libs=(-lz -lbz2 -lexpat -lsimdjson -lstdc++ -ldl -lpthread -lm)
tests="test_api test_stream test_route_choice test_libs test_render"
for t in $tests; do
    "$clang" "${cflags[@]}" -c "Tests/c/$t.c" -o "$out/$t.o"
    "$swiftc" -sanitize=address -use-ld=lld "$out/$t.o" "${objs[@]}" -o "$out/$t" "${libs[@]}"
done
# The library's objects must be instrumented, not only the tests: CShims' spatial index and the Swift C API.
for o in "${objs[@]}"; do
    case $o in */CShims.build/index.c.o|*/RoadSnapCAPI.build/*.o) [ "$(nm "$o" | grep -c '__asan_')" -gt 0 ] ||
        { echo "capi-asan: $o is not built with ASan"; exit 1; } ;;
    esac
done
# detect_leaks: the C tests close every handle; a leak in the library is a failure here as under valgrind.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1}
# Swift weak-reference side tables of objects alive at exit are invisible to LeakSanitizer (Tests/c/lsan.supp).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/Tests/c/lsan.supp}
export SWIFT_BACKTRACE=enable=no
run() { echo "capi-asan: $*"; "$@"; }
run "$out/test_api" "$root" "$rsmap"
run "$out/test_stream" "$root"
run "$out/test_route_choice" "$root"
run "$out/test_libs" "$root" "$rsmap"
run "$out/test_render" "$root"
echo "capi-asan: $(echo $tests | wc -w) C test programs pass under ASan + UBSan"
