#!/bin/sh
# Peak RSS of `roadsnap match` and `roadsnap snap` on a big track, per output format, against the same command on a
# 1-fix track (the map's share): issue 16, item 11. Prints one row per command and format:
#   command format fixes peak_kB one_fix_kB bytes_per_fix seconds
#
#   scripts/big-track-rss.sh ROADSNAP MAP BIG.csv ONE.csv [OUTDIR]
#
# BIG.csv and ONE.csv come from scripts/big-track.py (e.g. a Kubicka track replayed to 1,000,000 fixes, and its
# first fix); MAP is the track's network (kubicka.py convert writes network.geojson). Needs GNU time
# (/usr/bin/time -v). Outputs go to OUTDIR (default: a temporary folder, removed at the end).
set -eu
bin=$1 map=$2 big=$3 one=$4
out=${5:-$(mktemp -d)}
keep=${5:+yes}
mkdir -p "$out"
fixes=$(($(wc -l < "$big") - 1))

peak() {  # peak RSS in kB of the command "$@" (its wall time stays in $out/time.txt)
    /usr/bin/time -v "$@" 2> "$out/time.txt" > /dev/null
    sed -n 's/.*Maximum resident set size (kbytes): //p' "$out/time.txt"
}

row() {  # command format: both runs, one row
    cmd=$1 fmt=$2
    if [ "$cmd" = match ]; then
        base=$(peak "$bin" match --map "$map" --format "$fmt" --jobs 1 --out "$out/one" "$one")
        big_kb=$(peak "$bin" match --map "$map" --format "$fmt" --jobs 1 --out "$out/big" "$big")
    else
        base=$(peak "$bin" snap --map "$map" --format "$fmt" --out "$out/one.$fmt" "$one")
        big_kb=$(peak "$bin" snap --map "$map" --format "$fmt" --out "$out/big.$fmt" "$big")
    fi
    secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$out/time.txt")
    echo "$cmd $fmt $fixes $big_kb $base $(( (big_kb - base) * 1024 / fixes )) $secs"
}

echo "command format fixes peak_kB one_fix_kB bytes_per_fix seconds"
for f in csv geojson gpx osrm; do row match "$f"; done
for f in csv geojson; do row snap "$f"; done
[ -n "$keep" ] || rm -rf "$out"
