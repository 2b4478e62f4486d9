/* Snaps a recorded GPS track to the roads of a map through libroadsnap's C API and prints a summary.
 *
 *   make install PREFIX=$HOME/.local            # from the repository root
 *   export PKG_CONFIG_PATH=$HOME/.local/lib/pkgconfig
 *   cc -std=c99 -O2 snap_and_match.c -o snap_and_match $(pkg-config --cflags --libs roadsnap)
 *   ./snap_and_match ../../Samples/bellevue-issue147.osm.gz ../../Samples/newson-krumm-bellevue.csv
 */
#include <stdio.h>
#include <stdlib.h>

#include <roadsnap.h>

/* Prints the failed call's status and the library's message, and jumps to cleanup. */
#define TRY(call)                                                                                              \
    do {                                                                                                       \
        rs_status try_status_ = (call);                                                                        \
        if (try_status_ != RS_OK) {                                                                            \
            fprintf(stderr, "%s: %s\n", rs_status_name(try_status_), rs_last_error_message());                 \
            goto done;                                                                                         \
        }                                                                                                      \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s MAP TRACK\n", argv[0]);
        return 2;
    }
    if (rs_abi_version() != ROADSNAP_ABI_VERSION) {
        fprintf(stderr, "libroadsnap ABI %d, header ABI %d\n", rs_abi_version(), ROADSNAP_ABI_VERSION);
        return 2;
    }
    int rc = 1;
    rs_map *map = NULL;
    rs_track *track = NULL;
    rs_snapper *snapper = NULL;
    rs_fix *fixes = NULL;
    rs_snap_result *snapped = NULL;

    TRY(rs_map_open(argv[1], &map));
    rs_map_info map_info;
    TRY(rs_map_get_info(map, &map_info));
    printf("map %s: %lld edges, %.1f km of road (libroadsnap %s)\n", argv[1], (long long)map_info.edge_count,
           map_info.total_length / 1000, rs_version());

    TRY(rs_track_open(argv[2], &track));
    rs_track_info track_info;
    TRY(rs_track_get_info(track, &track_info));
    size_t n = (size_t)track_info.fix_count;
    fixes = malloc(n * sizeof *fixes);
    snapped = malloc(n * sizeof *snapped);
    if (!fixes || !snapped) goto done;
    TRY(rs_track_get_fixes(track, 0, fixes, n, NULL));

    /* Snap every fix in one call into our own array. */
    TRY(rs_snapper_create(map, RS_DEFAULT_SNAP_RADIUS, &snapper));
    size_t on_road = 0;
    TRY(rs_snapper_snap_batch(snapper, fixes, n, snapped, &on_road));
    double sum = 0, max = 0;
    for (size_t i = 0; i < n; i++) {
        if (snapped[i].status != RS_SNAP_SNAPPED) continue;
        sum += snapped[i].distance;
        if (snapped[i].distance > max) max = snapped[i].distance;
    }
    printf("snapped %zu of %zu fixes (%lld rows skipped), mean distance to road %.2f m, max %.2f m\n", on_road, n,
           (long long)track_info.skipped_count, on_road ? sum / (double)on_road : 0.0, max);
    for (size_t i = 0; i < n && i < 3; i++) {
        char way[32], name[64];
        if (snapped[i].status != RS_SNAP_SNAPPED) continue;
        TRY(rs_map_edge_source_id(map, snapped[i].edge, way, sizeof way, NULL));
        rs_status st = rs_map_edge_name(map, snapped[i].edge, name, sizeof name, NULL);
        if (st != RS_OK && st != RS_E_BUFFER_TOO_SMALL) TRY(st);
        printf("  fix %zu -> way %s \"%s\" at %.7f,%.7f (%.1f m, bearing %.0f)\n", i, way, name,
               snapped[i].latitude, snapped[i].longitude, snapped[i].distance, snapped[i].bearing);
    }
    rc = 0;

done:
    free(fixes);
    free(snapped);
    rs_snapper_destroy(snapper); /* NULL handles just return RS_E_INVALID_HANDLE */
    rs_track_close(track);
    rs_map_close(map);
    return rc;
}
