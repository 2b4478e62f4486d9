#!/usr/bin/env bash
# Checks that the installed C libraries carry the Swift runtime inside and show only the rs_ API:
#  - libroadsnap.so exports only rs_ symbols (nm -D --defined-only), has no RUNPATH/RPATH, and needs only simdjson,
#    expat, zlib, bz2 and the C/C++ runtime: GEOS and PROJ are not NEEDED (loaded on first use, CShims/libs.c), and
#    the sonames it loads them by are those of the GEOS and PROJ installed here;
#  - libroadsnap.a has no global symbol but rs_ (one prelinked object: internal symbols cannot clash with a host's)
#    and no undefined GEOS/PROJ symbol, and roadsnap-static.pc does not link GEOS or PROJ;
#  - the installed .pc files name no path but PREFIX (no toolchain or build folder);
#  - each given C program linked against them needs no libswift* and runs with LD_LIBRARY_PATH empty.
# Usage: check-self-contained.sh PREFIX PROGRAM ARGS... [-- PROGRAM ARGS...]
set -euo pipefail
prefix=$1; shift
lib="$prefix/lib"
so=$(readlink -f "$lib/libroadsnap.so")
status=0
fail() { echo "check-self-contained: $*"; status=1; }

extra=$(nm -D --defined-only "$so" | awk '$3 !~ /^rs_/' || true)
[ -z "$extra" ] || fail "$so exports more than rs_:"$'\n'"$(echo "$extra" | head -20)"
[ "$(nm -D --defined-only "$so" | awk '$3 ~ /^rs_/' | wc -l)" -ge 10 ] || fail "$so exports too few rs_ symbols"
if readelf -d "$so" | grep -E 'RUNPATH|RPATH'; then fail "$so has a RUNPATH/RPATH"; fi
allowed='^(lib(simdjson|expat|z|bz2|stdc\+\+|m|gcc_s|c|pthread|dl)\.so|ld-linux)'
needed=$(readelf -d "$so" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
for n in $needed; do
    grep -qE "$allowed" <<< "$n" || fail "$so needs $n (only simdjson, expat, zlib, bz2, C/C++ runtime; GEOS and PROJ are loaded on first use)"
done
# The soname each of GEOS and PROJ is loaded by (a string in the library) is the installed library's SONAME.
for l in proj geos_c; do
    dev=$(${CC:-cc} -print-file-name="lib$l.so")
    want=$(readelf -d "$(readlink -f "$dev")" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
    have=$(strings -a "$so" | grep -xE "lib$l\.so\.[0-9]+" | sort -u | paste -sd' ')
    [ -n "$want" ] && [ "$have" = "$want" ] || fail "$so loads lib$l by '$have', the installed library's soname is '$want'"
done
undefined=$(nm -u "$lib/libroadsnap.a" | awk '$2 ~ /^(proj_|geod_|GEOS)/' || true)
[ -z "$undefined" ] || fail "libroadsnap.a calls GEOS/PROJ directly:"$'\n'"$(echo "$undefined" | head -20)"
if grep -E -- '-l(proj|geos_c)( |$)' "$lib/pkgconfig/roadsnap-static.pc"; then fail "roadsnap-static.pc links GEOS or PROJ"; fi

globals=$(nm --defined-only "$lib/libroadsnap.a" | awk 'NF == 3 && $2 ~ /^[A-TV-Z]$/ && $3 !~ /^rs_/' || true)
[ -z "$globals" ] || fail "libroadsnap.a has non-rs_ global symbols:"$'\n'"$(echo "$globals" | head -20)"

toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc || command -v swift)")")")
for pc in "$lib"/pkgconfig/roadsnap*.pc; do
    if grep -F -e "$toolchain" -e "swift" "$pc"; then fail "$pc names the Swift toolchain"; fi
    paths=$(grep -oE '(^|[ =,])/[^ ]*' "$pc" | sed 's/^[ =,]//' | grep -vF "$prefix" || true)
    [ -z "$paths" ] || fail "$pc names paths outside PREFIX: $paths"
done

# Programs: none may need a Swift library, and each runs without any library path set.
while [ $# -gt 0 ]; do
    args=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    prog=${args[0]}
    if ldd "$prog" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime|not found'; then
        fail "$prog needs a Swift runtime library"
    fi
    if ldd "$prog" | grep -F "$toolchain"; then fail "$prog loads from the toolchain"; fi
    if ldd "$prog" | grep -E 'lib(proj|geos_c)\.so'; then fail "$prog maps GEOS or PROJ at start-up"; fi
    if readelf -d "$prog" | grep -E 'RUNPATH|RPATH' | grep -F "$toolchain"; then fail "$prog has the toolchain in RUNPATH"; fi
    env -u LD_LIBRARY_PATH -u LD_PRELOAD LD_LIBRARY_PATH= "${args[@]}" > /dev/null || fail "${args[*]} failed with LD_LIBRARY_PATH empty"
done
[ $status -eq 0 ] && echo "check-self-contained: libroadsnap.so exports $(nm -D --defined-only "$so" | wc -l) rs_ symbols, needs only: $(echo $needed); no Swift library needed"
exit $status
