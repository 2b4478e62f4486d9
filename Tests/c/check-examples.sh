#!/usr/bin/env bash
# Checks the C examples' whole output, not only their exit status, against the roadsnap CLI on the same inputs:
#   check-examples.sh OUTDIR ROADSNAP MAP TRACK
# OUTDIR holds the built examples (snap_and_match, navigate) and receives their outputs. RUN_SNAP_AND_MATCH may name
# a command to run snap_and_match under (valgrind).
set -euo pipefail
out=$1 roadsnap=$2 map=$3 track=$4
fail() { echo "check-examples: $*" >&2; exit 1; }

# --- snap_and_match: counts and the written GeoJSON equal what the CLI reports for the same map and track ---------
${RUN_SNAP_AND_MATCH:-} "$out/snap_and_match" "$map" "$track" "$out/sample.matched.geojson" >"$out/snap_and_match.txt"
text=$(cat "$out/snap_and_match.txt")
edges=$("$roadsnap" info --map "$map" | sed -n 's/^edges: //p')
rows=$(($(wc -l <"$track") - 1))
grep -q "^map $map: $edges edges" <<<"$text" || fail "snap_and_match: no 'map $map: $edges edges' line in: $text"
grep -q "^snapped [0-9]* of $rows fixes" <<<"$text" || fail "snap_and_match: no 'snapped N of $rows fixes' in: $text"
"$roadsnap" match --map "$map" --format csv --jobs 1 "$track" >"$out/cli.csv" 2>/dev/null
matched=$(awk -F, 'NR > 1 && $5 == "true"' "$out/cli.csv" | wc -l)
subs=$(awk -F, 'NR > 1 && $5 == "true" { print $6 }' "$out/cli.csv" | sort -u | wc -l)
grep -q "^matched $matched of $rows fixes in $subs sub-match(es)" <<<"$text" \
  || fail "snap_and_match: expected 'matched $matched of $rows fixes in $subs sub-match(es)' in: $text"
# The CSV excerpt it prints is the start of the CLI's CSV.
excerpt=$(sed -n '/^CSV output/,$p' "$out/snap_and_match.txt" | sed '1d' | grep -v '^wrote ' | head -n 3)
[ -n "$excerpt" ] && [ "$(head -n "$(wc -l <<<"$excerpt")" "$out/cli.csv")" = "$excerpt" ] || fail "snap_and_match: CSV excerpt differs from the CLI's"
"$roadsnap" match --map "$map" --format geojson --jobs 1 "$track" >"$out/cli.geojson" 2>/dev/null
cmp -s "$out/cli.geojson" "$out/sample.matched.geojson" || fail "snap_and_match: its GeoJSON differs from roadsnap match's"

# --- navigate: the simulated drive reaches the destination, with instructions on the way -------------------------
"$out/navigate" "$map" 47.5819,-122.1123 47.5779,-122.1712 >"$out/navigate.txt"
nav=$(cat "$out/navigate.txt")
grep -q "route changed" <<<"$nav" || fail "navigate: no route"
[ "$(grep -c ' in .* m: ' <<<"$nav")" -ge 3 ] || fail "navigate: fewer than 3 instruction updates: $nav"
tail -n 1 <<<"$nav" | grep -q "arrived at destination 0 (47.57" || fail "navigate: last line is not the arrival: $(tail -n 3 <<<"$nav")"
echo "check-examples: snap_and_match ($matched of $rows fixes matched, $subs sub-matches, GeoJSON equal to the CLI's) and navigate (arrived) OK"
