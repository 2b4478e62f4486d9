#!/usr/bin/env bash
# Checks that include/roadsnap.h and the installed libraries agree: every rs_ function the header declares is
# exported by libroadsnap.so and defined in libroadsnap.a, and every exported rs_ symbol is declared. Also compiles
# the header alone as strict C99 and as C++. Usage: check-symbols.sh PREFIX [CC]
set -euo pipefail
prefix=$1
cc=${2:-cc}
header="$prefix/include/roadsnap.h"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Declared functions: identifiers followed by "(" in the preprocessed header (macros expanded away).
"$cc" -std=c99 -E -P "$header" | tr '\n' ' ' | grep -oE '\brs_[a-z0-9_]+[[:space:]]*\(' | tr -d ' (' | sort -u \
    > "$tmp/declared"
nm -D --defined-only "$prefix/lib/libroadsnap.so" | awk '$2 == "T" && $3 ~ /^rs_/ { print $3 }' | sort -u \
    > "$tmp/shared"
nm --defined-only "$prefix/lib/libroadsnap.a" 2>/dev/null | awk '$2 == "T" && $3 ~ /^rs_/ { print $3 }' | sort -u \
    > "$tmp/static"

status=0
if [ "$(wc -l < "$tmp/declared")" -lt 10 ]; then
    echo "check-symbols: only $(wc -l < "$tmp/declared") functions parsed from $header"; status=1
fi
for lib in shared static; do
    missing=$(comm -23 "$tmp/declared" "$tmp/$lib")
    extra=$(comm -13 "$tmp/declared" "$tmp/$lib")
    if [ -n "$missing" ]; then echo "check-symbols: declared in roadsnap.h, not in the $lib library:" $missing; status=1; fi
    if [ -n "$extra" ]; then echo "check-symbols: exported by the $lib library, not in roadsnap.h:" $extra; status=1; fi
done

# The header stands alone, as strict C99 and as C++.
printf '#include <roadsnap.h>\nint main(void) { return rs_abi_version() == ROADSNAP_ABI_VERSION ? 0 : 1; }\n' > "$tmp/h.c"
"$cc" -std=c99 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" "$tmp/h.c" || status=1
if command -v c++ >/dev/null; then
    c++ -x c++ -std=c++11 -pedantic -Wall -Wextra -Werror -fsyntax-only -I"$prefix/include" "$tmp/h.c" || status=1
fi
# pkg-config resolves both variants.
pkg-config --exists roadsnap roadsnap-static || { echo "check-symbols: pkg-config cannot find roadsnap"; status=1; }

[ $status -eq 0 ] && echo "check-symbols: header and libraries agree on $(wc -l < "$tmp/declared") rs_ functions"
exit $status
