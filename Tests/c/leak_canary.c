/* Leaks on purpose: `make capi-test` runs it under the same valgrind command and suppressions as the real tests
 * and expects a failure, proving the suppressions do not hide real leaks. Usage: leak_canary MAP */
#include <stdlib.h>

#include "roadsnap.h"

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    rs_map *map = NULL;
    rs_snapper *snapper = NULL;
    if (rs_map_open(argv[1], &map) != RS_OK || rs_snapper_create(map, 0, &snapper) != RS_OK) return 2;
    rs_fix fix = rs_fix_make(47.57, -122.1495);
    rs_snap_result *results = malloc(16 * sizeof *results); /* never freed */
    int rc = rs_snapper_snap(snapper, &fix, results) == RS_OK ? 0 : 2;
    results = NULL;
    rs_snapper_destroy(snapper);
    rs_map_close(map);
    return rc;
}
