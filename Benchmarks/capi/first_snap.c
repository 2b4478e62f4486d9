/* The first real use of libroadsnap: open a small GeoJSON network (its frame needs PROJ, its segment index GEOS),
 * snap one fix to it, close. The footprint script times it like version.c: with GEOS and PROJ loaded on first use
 * their loading cost moves here. MAP_PATH is given at compile time (the program takes no arguments). */
#include <math.h>
#include <stdio.h>

#include "roadsnap.h"

int main(void) {
    rs_map *map = NULL;
    rs_snapper *snapper = NULL;
    rs_snap_result result;
    rs_fix fix = {47.5701, -122.1495, NAN, NAN, NAN, NAN, NAN}; /* beside Main Street in two-roads.geojson */
    if (rs_map_open(MAP_PATH, &map) != RS_OK || rs_snapper_create(map, 0, &snapper) != RS_OK ||
        rs_snapper_snap(snapper, &fix, &result) != RS_OK || result.status != RS_SNAP_SNAPPED) {
        fprintf(stderr, "first_snap: %s\n", rs_last_error_message());
        return 1;
    }
    printf("edge %d at %.1f m\n", (int)result.edge, result.distance);
    rs_snapper_destroy(snapper);
    rs_map_close(map);
    return 0;
}
