/* Snaps a recorded GPS track to the roads of a map, then map-matches it, through libroadsnap's C API, and prints
 * a summary of both; with OUTPUT.geojson, also writes the match there as `roadsnap match --format geojson` does.
 *
 *   make install PREFIX=$HOME/.local            # from the repository root
 *   export PKG_CONFIG_PATH=$HOME/.local/lib/pkgconfig
 *   cc -std=c99 -O2 snap_and_match.c -o snap_and_match $(pkg-config --cflags --libs roadsnap)
 *   ./snap_and_match ../../Samples/bellevue-issue147.osm.gz ../../Samples/newson-krumm-bellevue.csv [OUTPUT.geojson]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: %s MAP TRACK [OUTPUT.geojson]\n", argv[0]);
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
    rs_matcher *matcher = NULL;
    rs_match *match = NULL;
    int64_t *edges = NULL;
    rs_fix *fixes = NULL;
    rs_snap_result *snapped = NULL;
    char *csv = NULL;

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

    /* Match the whole track: the road path driven, split where no drivable route joins consecutive fixes. */
    TRY(rs_matcher_create(map, NULL, &matcher));
    TRY(rs_matcher_match(matcher, fixes, n, NULL, &match));
    rs_match_info match_info;
    TRY(rs_match_get_info(match, &match_info));
    printf("matched %lld of %zu fixes in %lld sub-match(es)\n", (long long)match_info.matched_count, n,
           (long long)match_info.sub_match_count);
    for (int64_t k = 0; k < match_info.sub_match_count; k++) {
        rs_sub_match_info sm;
        TRY(rs_match_get_sub_match(match, (size_t)k, &sm));
        printf("  sub-match %lld: fixes %lld-%lld, %.0f m in %.0f s, confidence %.2f, %lld edges:", (long long)k,
               (long long)sm.first_fix, (long long)sm.last_fix, sm.length, sm.duration, sm.confidence,
               (long long)sm.edge_count);
        edges = malloc((size_t)sm.edge_count * sizeof *edges);
        if (!edges) goto done;
        TRY(rs_match_get_edges(match, (size_t)k, edges, (size_t)sm.edge_count, NULL));
        char last[32] = "";
        for (int64_t j = 0, shown = 0; j < sm.edge_count && shown < 8; j++) {
            char way[32];
            TRY(rs_map_edge_source_id(map, edges[j], way, sizeof way, NULL));
            if (strcmp(way, last) == 0) continue; /* a way split at junctions: print it once */
            printf(" %s", way);
            strcpy(last, way);
            shown++;
        }
        printf(" ...\n");
        free(edges);
        edges = NULL;
    }

    /* The match as the CLI's outputs: a CSV row per fix into our own buffer (ask for the length, then the text), and
     * GeoJSON written atomically to a file. */
    size_t csv_length = 0;
    rs_status st = rs_match_render(match, RS_OUTPUT_CSV, NULL, 0, &csv_length);
    if (st != RS_E_BUFFER_TOO_SMALL) TRY(st);
    csv = malloc(csv_length + 1);
    if (!csv) goto done;
    TRY(rs_match_render(match, RS_OUTPUT_CSV, csv, csv_length + 1, NULL));
    const char *end = csv; /* after the header and the first row */
    for (int line = 0; line < 2 && strchr(end, '\n'); line++) end = strchr(end, '\n') + 1;
    printf("CSV output, %zu bytes, begins:\n%.*s", csv_length, (int)(end - csv), csv);
    if (argc == 4) {
        TRY(rs_match_write_file(match, RS_OUTPUT_GEOJSON, argv[3]));
        printf("wrote %s\n", argv[3]);
    }
    rc = 0;

done:
    free(fixes);
    free(snapped);
    free(edges);
    free(csv);
    rs_match_close(match);
    rs_matcher_destroy(matcher);
    rs_snapper_destroy(snapper); /* NULL handles just return RS_E_INVALID_HANDLE */
    rs_track_close(track);
    rs_map_close(map);
    return rc;
}
