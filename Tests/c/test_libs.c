/* GEOS and PROJ are loaded on first use, not at start-up (issue 10), and a missing one is an error naming it:
 *   test_libs REPO_ROOT COMPILED_MAP            nothing of PROJ or GEOS is mapped after rs_version(), the log
 *                                               set-up, reading a track and opening a compiled map; a snapper on it
 *                                               maps PROJ, and snapping within the map's cache needs no GEOS; a
 *                                               GeoJSON map (its index built with GEOS) maps GEOS; snaps work on both.
 *   test_libs REPO_ROOT COMPILED_MAP no-proj    ROADSNAP_PROJ_LIBRARY names a missing file: a snapper on the
 *                                               compiled map gives RS_E_PROJECTION naming that file (twice), so does
 *                                               opening a GeoJSON map, and nothing crashes.
 *   test_libs REPO_ROOT COMPILED_MAP no-geos    ROADSNAP_GEOS_LIBRARY names a missing file: a GeoJSON map gives
 *                                               RS_E_GEOMETRY naming it; the compiled map still opens and snaps.
 * The program sets the environment itself, before its first rs_ call that could load a library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* 1 if a file whose name starts with `prefix` (e.g. "libproj.so") is mapped into this process. */
static int mapped(const char *prefix) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *slash = strrchr(line, '/');
        if (slash && strncmp(slash + 1, prefix, strlen(prefix)) == 0) found = 1;
    }
    fclose(f);
    return found;
}

/* 1 if a fix at (lat, lon) snaps to a road of the map. */
static int snaps(rs_map *map, double lat, double lon) {
    rs_fix fix = {lat, lon, NAN, NAN, NAN, NAN, NAN};
    rs_snapper *snapper = NULL;
    rs_snap_result r;
    memset(&r, 0, sizeof r);
    int ok = rs_snapper_create(map, 0, &snapper) == RS_OK && rs_snapper_snap(snapper, &fix, &r) == RS_OK &&
             r.status == RS_SNAP_SNAPPED;
    if (snapper) rs_snapper_destroy(snapper);
    return ok;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s REPO_ROOT COMPILED_MAP [no-proj|no-geos]\n", argv[0]);
        return 2;
    }
    const char *mode = argc > 3 ? argv[3] : "";
    char geojson[4096], track_path[4096];
    snprintf(geojson, sizeof geojson, "%s/Tests/c/Fixtures/two-roads.geojson", argv[1]);
    /* The drive the compiled map (issue-70) was made for; its first fix lies on a road. */
    snprintf(track_path, sizeof track_path, "%s/Tests/RoadSnapCoreTests/Fixtures/graphhopper/issue-70.gpx", argv[1]);
    const char *missing = "/nonexistent/roadsnap-test/libmissing.so.1";
    if (strcmp(mode, "no-proj") == 0) setenv("ROADSNAP_PROJ_LIBRARY", missing, 1);
    if (strcmp(mode, "no-geos") == 0) setenv("ROADSNAP_GEOS_LIBRARY", missing, 1);

    CHECK(strlen(rs_version()) > 0);
    CHECK_STATUS(rs_set_log_level(RS_LOG_DEBUG), RS_OK);
    CHECK(mapped("libproj.so") == 0);
    CHECK(mapped("libgeos_c.so") == 0);
    CHECK(mapped("libgeos.so") == 0);

    rs_track *track = NULL;
    rs_fix first;
    size_t got = 0;
    CHECK_STATUS(rs_track_open(track_path, &track), RS_OK);
    CHECK_STATUS(rs_track_get_fixes(track, 0, &first, 1, &got), RS_OK);
    CHECK(got == 1);
    CHECK_STATUS(rs_track_close(track), RS_OK);
    CHECK(mapped("libproj.so") == 0); /* reading a track needs neither */

    /* A compiled map opens with neither (its arrays are read in place); a snapper on it needs PROJ for its frame,
     * and snapping within the map's cache radius needs no GEOS. */
    rs_map *map = NULL;
    CHECK_STATUS(rs_map_open(argv[2], &map), RS_OK);
    CHECK(mapped("libproj.so") == 0);
    if (strcmp(mode, "no-proj") == 0) {
        for (int round = 0; round < 2; round++) {
            rs_snapper *snapper = NULL;
            CHECK_STATUS(rs_snapper_create(map, 0, &snapper), RS_E_PROJECTION);
            CHECK(snapper == NULL);
            CHECK(strstr(rs_last_error_message(), missing) != NULL);
            CHECK(strstr(rs_last_error_message(), "ROADSNAP_PROJ_LIBRARY") != NULL);
        }
        CHECK_STATUS(rs_map_close(map), RS_OK);
        map = NULL;
        CHECK_STATUS(rs_map_open(geojson, &map), RS_E_PROJECTION);
        CHECK(map == NULL);
        CHECK(strstr(rs_last_error_message(), missing) != NULL);
        CHECK(mapped("libproj.so") == 0);
    } else {
        CHECK(snaps(map, first.latitude, first.longitude));
        CHECK(mapped("libproj.so") == 1);
        CHECK(mapped("libgeos_c.so") == 0);
        CHECK_STATUS(rs_map_close(map), RS_OK);
        map = NULL;
        /* A GeoJSON map: its segment index is built with GEOS. */
        if (strcmp(mode, "no-geos") == 0) {
            CHECK_STATUS(rs_map_open(geojson, &map), RS_E_GEOMETRY);
            CHECK(map == NULL);
            CHECK(strstr(rs_last_error_message(), missing) != NULL);
            CHECK(strstr(rs_last_error_message(), "ROADSNAP_GEOS_LIBRARY") != NULL);
            CHECK(mapped("libgeos_c.so") == 0);
        } else {
            CHECK_STATUS(rs_map_open(geojson, &map), RS_OK);
            CHECK(mapped("libgeos_c.so") == 1);
            CHECK(snaps(map, 47.5701, -122.1495));
            CHECK_STATUS(rs_map_close(map), RS_OK);
        }
    }
    CHECK(rs_open_handle_count() == 0);
    if (check_failures) fprintf(stderr, "%s %s: %d check(s) failed\n", argv[0], mode, check_failures);
    else printf("%s %s: all checks passed\n", argv[0], mode);
    return check_failures ? 1 : 0;
}
