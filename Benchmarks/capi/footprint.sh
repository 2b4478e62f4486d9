#!/usr/bin/env bash
# What a device carries and pays to run a C program linked to libroadsnap, before (a base commit, built in a
# temporary folder outside the repository) and after (this checkout), side by side in one run (issue 10):
#  - bytes: the program's libraries (ldd, links followed to the files), split into libroadsnap itself, the Swift
#    runtime and Foundation (and what only they pull in), GEOS, PROJ with what Debian's PROJ pulls in, the other
#    libraries libroadsnap needs (zlib, bz2, expat, simdjson), and the C/C++ runtime;
#    The libraries libroadsnap loads on first use (GEOS, PROJ: dlopen, not NEEDED) are counted with what they need,
#    since a device carries them all the same;
#  - start-up wall and CPU time and peak RSS of a program printing rs_version() against an empty C program and
#    against one linked to libroadsnap's dependencies only, and of a program making the first real use (open a small
#    GeoJSON network, snap one fix: GEOS and PROJ loaded) (startup_probe: runs interleaved round by round, medians;
#    hyperfine's figures for the same programs, run one after the other, are kept beside the report);
#  - the dynamic symbols libroadsnap.so defines.
# Release builds, each of a committed tree exported with `git archive` into FOOTPRINT_DIR (default
# /tmp/roadsnap-footprint), so the repository's own .build is not touched. Usage:
# Benchmarks/capi/footprint.sh [BASE_REV [AFTER_REV]] (defaults 1c6c317 and HEAD). Needs hyperfine.
set -euo pipefail
base=${1:-1c6c317}
root=$(cd "$(dirname "$0")/../.." && pwd)
after_rev=$(git -C "$root" rev-parse --short "${2:-HEAD}")
work=${FOOTPRINT_DIR:-/tmp/roadsnap-footprint}
before_prefix="$work/before-$base/prefix"
after_prefix="$work/after-$after_rev/prefix"
out="$work/report-$base-$after_rev"
mkdir -p "$work" "$out"
command -v hyperfine > /dev/null || { echo "footprint: hyperfine missing (apt-get install hyperfine)"; exit 1; }

# ---- builds (kept between runs) ------------------------------------------------------------------------------------
build() {  # REV DIR
    [ -f "$2/prefix/lib/libroadsnap.so.1" ] && return 0
    rm -rf "$2/src" && mkdir -p "$2/src"
    git -C "$root" archive "$1" | tar -x -C "$2/src"
    make -C "$2/src" install CAPI_CONFIG=release PREFIX="$2/prefix" > "$2/build.log" 2>&1 \
        || { echo "footprint: building $1 failed, see $2/build.log"; exit 1; }
}
build "$base" "$work/before-$base"
build "$after_rev" "$work/after-$after_rev"

cc -O2 "$root/Benchmarks/capi/startup_probe.c" -o "$out/startup_probe"
cc -O2 "$root/Benchmarks/capi/empty.c" -o "$out/empty"
# The same empty program loading what libroadsnap.so (after) needs, without libroadsnap: what the libraries under
# it cost on their own.
deps=$(readelf -d "$after_prefix/lib/libroadsnap.so.1" | sed -n 's/.*Shared library: \[lib\([^.]*\)\.so.*/-l\1/p' \
    | grep -vxE -- '-l(c|ld-linux-x86-64|ld-linux-aarch64)' | paste -sd' ')
cc -O2 "$root/Benchmarks/capi/empty.c" -o "$out/empty-deps" -Wl,--no-as-needed $deps
for side in before after; do
    prefix=$before_prefix; [ $side = after ] && prefix=$after_prefix
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc -O2 "$root/Benchmarks/capi/version.c" -o "$out/version-$side" \
        $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs roadsnap)
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc -O2 "$root/Benchmarks/capi/version.c" -o "$out/version-$side-static" \
        $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --static --cflags --libs roadsnap-static) 2> /dev/null
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" cc -O2 "$root/Benchmarks/capi/first_snap.c" -o "$out/first-snap-$side" \
        -DMAP_PATH="\"$root/Tests/c/Fixtures/two-roads.geojson\"" \
        $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs roadsnap)
    "$out/first-snap-$side" > /dev/null || { echo "footprint: first-snap-$side failed"; exit 1; }
done

toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
libproj=$(ldconfig -p | awk '/libproj\.so\.[0-9]+ .*=>/ { print $NF; exit }')
proj_closure=$( { echo "$libproj"; ldd "$libproj" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'; } \
    | xargs -r -n1 readlink -f | sort -u)
direct_other='^lib(z|bz2|expat|simdjson)\.so'
runtime='^(lib(c|m|stdc\+\+|gcc_s|pthread|dl|rt)\.so|ld-linux)'

# Libraries libroadsnap.so ($1) loads on first use (sonames it names that are not NEEDED), resolved through
# ldconfig, with what each of them needs.
lazy_libs() {
    local so=$1 needed name path
    needed=$(readelf -d "$so" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p')
    for name in $(strings -a "$so" | grep -xE 'lib(proj|geos_c)\.so\.[0-9]+' | sort -u); do
        grep -qxF "$name" <<< "$needed" && continue
        path=$(ldconfig -p | awk -v n="$name" '$1 == n && $NF ~ /^\// { print $NF; exit }')
        [ -n "$path" ] || continue
        echo "$path"
        ldd "$path" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
    done
}

# Bytes of a program's libraries by group; prints "group bytes files" lines. $2: stripped copy of libroadsnap,
# $3: the installed libroadsnap.so (for the libraries it loads on first use).
footprint() {
    local prog=$1 so_stripped=$2 so=$3
    { ldd "$prog" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'; lazy_libs "$so"; } \
        | while read -r lib; do echo "$(readlink -f "$lib") $lib"; done | awk '!seen[$1]++ { print $2 }' \
        | while read -r lib; do
        local real name group size
        real=$(readlink -f "$lib"); name=$(basename "$lib")
        size=$(stat -c %s "$real")
        if [[ $name == libroadsnap* ]]; then group=roadsnap; size=$(stat -c %s "$so_stripped")
        elif [[ $name =~ $runtime ]]; then group=runtime
        elif [[ $real == "$toolchain"/* ]]; then group=swift
        elif [[ $name == libgeos* ]]; then group=geos
        elif [[ $name =~ $direct_other ]]; then group=other
        elif grep -qxF "$real" <<< "$proj_closure"; then group=proj
        else group=swiftdeps
        fi
        echo "$group $size $name"
    done | awk '{ b[$1] += $2; n[$1]++; t += $2; l[$1] = l[$1] " " $3 }
                END { for (g in b) printf "%s %d %d%s\n", g, b[g], n[g], l[g]; printf "total %d 0\n", t }'
}

mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
for side in before after; do
    prefix=$before_prefix; [ $side = after ] && prefix=$after_prefix
    so=$(readlink -f "$prefix/lib/libroadsnap.so")
    strip --strip-all -o "$out/libroadsnap-$side.stripped.so" "$so"
    footprint "$out/version-$side" "$out/libroadsnap-$side.stripped.so" "$so" > "$out/bytes-$side.txt"
    lazy_libs "$so" | xargs -r -n1 readlink -f | sort -u | wc -l > "$out/lazycount-$side.txt"
    echo "$(stat -c %s "$so") $(stat -c %s "$out/libroadsnap-$side.stripped.so")" > "$out/so-$side.txt"
    ldd "$out/version-$side" | grep -c '=>' > "$out/libcount-$side.txt"
    nm -D --defined-only "$so" > "$out/syms-$side.txt"
    ldd "$out/version-$side-static" | grep -cE 'libswift|libFoundation|libdispatch' > "$out/static-swift-$side.txt" || true
done

# ---- start-up and RSS ----------------------------------------------------------------------------------------------
load=$(cut -d' ' -f1 /proc/loadavg)
hyperfine -N --warmup 20 --runs 300 --export-csv "$out/startup.csv" \
    -n empty "$out/empty" -n deps "$out/empty-deps" -n before "$out/version-before" -n after "$out/version-after" \
    -n after-static "$out/version-after-static" -n first-snap-before "$out/first-snap-before" \
    -n first-snap-after "$out/first-snap-after" > "$out/hyperfine.txt" 2>&1
hf() { awk -F, -v n="$1" '$1 == n { printf "%.2f", $4 * 1000 }' "$out/startup.csv"; }
"$out/startup_probe" 301 "$out/empty" "$out/empty-deps" "$out/version-before" "$out/version-after" \
    "$out/version-after-static" "$out/first-snap-before" "$out/first-snap-after" > "$out/probe.txt"
probe() { awk -v p="$out/$1" -v c="$2" '$1 == p { print $c }' "$out/probe.txt"; }

get() { awk -v g="$2" '$1 == g { print $2 }' "$out/bytes-$1.txt"; }
{
echo "## libroadsnap footprint: $base (before) and $after_rev (after)"
echo
echo "Bytes a device carries to run a C program linked to libroadsnap.so (ldd, links followed; libroadsnap stripped):"
echo
echo "| | before | after |"
echo "|---|---:|---:|"
echo "| libraries loaded at start-up | $(cat "$out/libcount-before.txt") | $(cat "$out/libcount-after.txt") |"
echo "| more libraries loaded on first use (GEOS, PROJ and what they need) | $(cat "$out/lazycount-before.txt") | $(cat "$out/lazycount-after.txt") |"
for g in roadsnap swift swiftdeps geos proj other runtime total; do
    case $g in
        roadsnap) label="libroadsnap.so.1 (stripped)";;
        swift) label="Swift runtime, Foundation (toolchain .so files)";;
        swiftdeps) label="what only Foundation pulls in (libxml2, ICU, ...)";;
        geos) label="GEOS (libgeos_c, libgeos)";;
        proj) label="PROJ and what Debian's PROJ pulls in";;
        other) label="zlib, bz2, expat, simdjson";;
        runtime) label="C/C++ runtime (libc, libm, libstdc++, libgcc_s, ld.so)";;
        total) label="**total**";;
    esac
    b=$(get before $g); a=$(get after $g)
    echo "| $label | $( [ -n "$b" ] && mb "$b" || echo -) | $( [ -n "$a" ] && mb "$a" || echo -) |"
done
proj_lib=$(stat -c %s "$(readlink -f "$(ldconfig -p | awk '/libproj\.so\.[0-9]+ .*=>/ { print $NF; exit }')")")
sqlite_lib=$(stat -c %s "$(readlink -f "$(ldconfig -p | awk '/libsqlite3\.so\.0 .*=>/ { print $NF; exit }')")")
proj_all=$(get after proj)
echo
echo "Of PROJ's $(mb "$proj_all"): libproj itself $(mb "$proj_lib"), SQLite $(mb "$sqlite_lib"), and"\
     "$(mb $((proj_all - proj_lib - sqlite_lib))) of network, TLS, TIFF and image libraries (curl, GnuTLS, nettle,"\
     "Kerberos, LDAP, libtiff, libjpeg, libwebp, ...) that only PROJ's grid download and GeoTIFF grid support need."
echo
echo "libroadsnap.so.1 on disk: before $(mb "$(cut -d' ' -f1 "$out/so-before.txt")") installed, $(mb "$(cut -d' ' -f2 "$out/so-before.txt")") stripped;"\
     "after $(mb "$(cut -d' ' -f1 "$out/so-after.txt")") installed, $(mb "$(cut -d' ' -f2 "$out/so-after.txt")") stripped."
echo
echo "Start-up of a program printing rs_version() against an empty C program and against the same empty program"\
     "linked (--no-as-needed) to what libroadsnap.so (after) NEEDs at start-up (simdjson, expat, zlib, bz2, libstdc++):"\
     "startup_probe, 301 runs of each after 3 warm-up rounds, interleaved round by round; medians of wall time,"\
     "user+system CPU time and peak RSS. Last column: hyperfine -N median (300 runs, programs one after another)."\
     "first_snap: open Tests/c/Fixtures/two-roads.geojson, snap one fix, close (GEOS and PROJ in use)."
echo
echo "| program | wall ms | over empty | over deps | CPU ms | over deps | peak RSS MB | over empty | over deps | hyperfine ms |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
d() { awk -v a="$1" -v e="$2" -v f="$3" 'BEGIN { printf f, a - e }'; }
mbk() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ew=$(probe empty 2); dw=$(probe empty-deps 2); dc=$(probe empty-deps 3)
er=$(mbk "$(probe empty 4)"); dr=$(mbk "$(probe empty-deps 4)")
for n in empty deps before after after-static first-snap-before first-snap-after; do
    case $n in empty) f=empty; label="empty C program";;
               deps) f=empty-deps; label="empty C program + libroadsnap's dependencies";;
               before) f=version-before; label="rs_version, before (.so)";;
               after) f=version-after; label="rs_version, after (.so)";;
               after-static) f=version-after-static; label="rs_version, after (static archive)";;
               first-snap-before) f=first-snap-before; label="first_snap, before (.so)";;
               first-snap-after) f=first-snap-after; label="first_snap, after (.so)";; esac
    w=$(probe $f 2); c=$(probe $f 3); r=$(mbk "$(probe $f 4)")
    echo "| $label | $(printf %.2f "$w") | $(d "$w" "$ew" %+.2f) | $(d "$w" "$dw" %+.2f) | $(printf %.2f "$c") |"\
         "$(d "$c" "$dc" %+.2f) | $r | $(d "$r" "$er" %+.1f) | $(d "$r" "$dr" %+.1f) | $(hf $n) |"
done
echo
echo "Load when the timing started (1-minute average): $load on $(nproc) cores."
echo
echo "Dynamic symbols libroadsnap.so defines (nm -D --defined-only):"
echo
echo "| | before | after |"
echo "|---|---:|---:|"
for s in before after; do
    f="$out/syms-$s.txt"
    eval "${s}_all=$(wc -l < "$f") ${s}_rs=$(awk '$3 ~ /^rs_/' "$f" | wc -l)"
    eval "${s}_rsc=$(awk '$3 ~ /^rsc_/' "$f" | wc -l) ${s}_swift=$(awk '$3 ~ /^\$s/' "$f" | wc -l)"
    eval "${s}_cxx=$(awk '$3 ~ /^_Z/' "$f" | wc -l)"
done
echo "| all | $before_all | $after_all |"
echo "| rs_ | $before_rs | $after_rs |"
echo "| rsc_ | $before_rsc | $after_rsc |"
echo "| Swift-mangled (\$s...) | $before_swift | $after_swift |"
echo "| C++ (_Z...) | $before_cxx | $after_cxx |"
echo
echo "A program linked with roadsnap-static needs libswift*/Foundation .so files at run time: before $(cat "$out/static-swift-before.txt"), after $(cat "$out/static-swift-after.txt")."
echo
echo "Libraries by group (after): $(cut -d' ' -f1,4- "$out/bytes-after.txt" | grep -v '^total' | tr '\n' ';')"
} | tee "$out/report.md"
