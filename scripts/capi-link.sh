#!/usr/bin/env bash
# Links the C API's two installable libraries from the objects SwiftPM put into the static product RoadSnapCStatic
# (CShims, RoadSnapBridge, RoadSnapCore, RoadSnapFormats, RoadSnapCAPI), with the Swift runtime linked in statically
# so that neither needs the Swift toolchain at run time:
#
#   OUT/libroadsnap.so.ABI  shared library: swiftc -static-stdlib, lld, a version script exporting only rs_*; its
#                           NEEDED entries are the C/C++ system libraries only (no RUNPATH).
#   OUT/libroadsnap.a       static archive holding ONE prelinked object: `ld -r` of the same objects, swiftrt.o and
#                           the Swift runtime archives they need, then every global symbol but rs_* made local
#                           (objcopy), so the runtime, libdispatch, libosmium and our rsc_ symbols cannot clash
#                           with a host's own.
#   OUT/static-libs.txt     the system libraries a program linking libroadsnap.a needs (for roadsnap-static.pc).
#
# Why not SwiftPM: `-static-stdlib` through `unsafeFlags` in Package.swift would apply to every product linking
# RoadSnapCAPI (the test bundle and Benchmarks, which load Foundation and XCTest dynamically, so a second, static
# copy of the runtime would sit beside the dynamic one), and SwiftPM has no per-product linker flags or version
# scripts. Usage: capi-link.sh CONFIG OUT ABI   (SWIFT, SWIFTC may name the tools)
set -euo pipefail
config=$1 out=$2 abi=$3
swift=${SWIFT:-swift}
swiftc=${SWIFTC:-$(dirname "$(readlink -f "$(command -v "$swift")")")/swiftc}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(cd "$root" && "$swift" build -c "$config" --show-bin-path)
objects="$bin/RoadSnapCStatic.product/Objects.LinkFileList"
[ -f "$objects" ] || { echo "capi-link: $objects missing (swift build --product RoadSnapCStatic first)"; exit 1; }
toolchain_lib=$(cd "$(dirname "$swiftc")/../lib" && pwd)
swift_static="$toolchain_lib/swift_static/linux"
arch=$(uname -m)
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mapfile -t objs < "$objects"

# Libraries the Swift objects ask for (their autolink entries), closed over the runtime archives' own entries.
libs=$(swift-autolink-extract "${objs[@]}" -o - | sort -u)
while :; do
    more=$( { echo "$libs"; for l in $libs; do a="$swift_static/lib${l#-l}.a"; if [ -f "$a" ]; then swift-autolink-extract "$a" -o -; fi; done; } | sort -u)
    [ "$more" = "$libs" ] && break
    libs=$more
done
swift_archives=() system_libs=()
for l in $libs; do
    a="$swift_static/lib${l#-l}.a"
    if [ -f "$a" ]; then swift_archives+=("$a"); else system_libs+=("$l"); fi
done
# The C/C++ libraries CShims links (Package.swift's linkedLibrary settings).
c_libs=$(grep -o 'linkedLibrary("[^"]*")' "$root/Package.swift" | sed 's/linkedLibrary("\(.*\)")/-l\1/' | awk '!seen[$0]++')

# ---- shared library ----------------------------------------------------------------------------------------------
printf '{\n  global: rs_*;\n  local: *;\n};\n' > "$tmp/exports.map"
so="libroadsnap.so.$abi"
"$swiftc" -emit-library -static-stdlib -use-ld=lld -o "$tmp/$so" "${objs[@]}" \
    -Xlinker --version-script="$tmp/exports.map" -Xlinker -soname="$so" -Xlinker --no-undefined \
    -Xlinker --start-group "${swift_archives[@]}" -Xlinker --end-group $c_libs "${system_libs[@]}"
if readelf -d "$tmp/$so" | grep -qE 'RPATH|RUNPATH'; then echo "capi-link: $so has a RUNPATH"; exit 1; fi
mv -f "$tmp/$so" "$out/$so"

# ---- static archive: one prelinked object with only rs_* global ----------------------------------------------------
ld -r --force-group-allocation -o "$tmp/roadsnap.o" "$swift_static/$arch/swiftrt.o" "${objs[@]}" \
    --start-group "${swift_archives[@]}" --end-group
objcopy --wildcard --keep-global-symbol='rs_*' "$tmp/roadsnap.o"
rm -f "$tmp/libroadsnap.a"
ar rcs "$tmp/libroadsnap.a" "$tmp/roadsnap.o"
mv -f "$tmp/libroadsnap.a" "$out/libroadsnap.a"
echo $c_libs "${system_libs[@]}" | tr ' ' '\n' | awk 'NF && !seen[$0]++' | paste -sd' ' > "$out/static-libs.txt"
echo "capi-link: $out/$so ($(stat -c %s "$out/$so") bytes), $out/libroadsnap.a; static links: $(cat "$out/static-libs.txt")"
