/* C API tests: version and ABI, errors and messages, NULL/stale/wrong-kind handles, maps, snapping one fix and
 * batches on the real sample drive, matching and its result writers, routing, navigation, and several threads. Usage: test_api REPO_ROOT. Exit status = failed checks. */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "roadsnap.h"
#include "track.h"

static char map_path[4096], track_path[4096], geojson_path[4096], bad_map_path[4096];
static char small_map_path[4096], small_track_path[4096], compiled_map_path[4096];
/* First and last fix of the small map's track, for routing from several threads. */
static rs_waypoint small_ends[2];

#define MAX_FIXES 4096
static rs_fix fixes[MAX_FIXES];
static long fix_count;

static void test_version(void) {
    char expected[64];
    snprintf(expected, sizeof expected, "%d.%d.%d", ROADSNAP_VERSION_MAJOR, ROADSNAP_VERSION_MINOR,
             ROADSNAP_VERSION_PATCH);
    CHECK(strcmp(rs_version(), expected) == 0);
    CHECK(rs_abi_version() == ROADSNAP_ABI_VERSION);
    CHECK(strcmp(rs_status_name(RS_OK), "RS_OK") == 0);
    CHECK(strcmp(rs_status_name(RS_E_INVALID_HANDLE), "RS_E_INVALID_HANDLE") == 0);
    CHECK(strcmp(rs_status_name((rs_status)12345), "RS_E_UNKNOWN") == 0);
    CHECK(rs_last_error_message() != NULL);
    rs_fix f = rs_fix_make(47.5, -122.1);
    CHECK(f.latitude == 47.5 && f.longitude == -122.1);
    CHECK(isnan(f.time) && isnan(f.course) && isnan(f.speed) && isnan(f.altitude) && isnan(f.accuracy));
}

static void test_map_errors(void) {
    rs_map *map = (rs_map *)(uintptr_t)1; /* must be reset to NULL on failure */
    CHECK_STATUS(rs_map_open("/nonexistent/roads.osm.pbf", &map), RS_E_IO);
    CHECK(map == NULL);
    CHECK_MESSAGE("/nonexistent/roads.osm.pbf");
    CHECK_STATUS(rs_map_open(NULL, &map), RS_E_NULL_ARGUMENT);
    CHECK_MESSAGE("path");
    CHECK_STATUS(rs_map_open(map_path, NULL), RS_E_NULL_ARGUMENT);
    CHECK_MESSAGE("out_map");
    /* A text file named .osm is not an OSM extract. */
    CHECK_STATUS(rs_map_open(bad_map_path, &map), RS_E_INVALID_MAP);
    CHECK(map == NULL);
    CHECK_MESSAGE("not-a-map.osm");
    /* A file name with no map extension. */
    CHECK_STATUS(rs_map_open(track_path, &map), RS_E_INVALID_MAP);
    CHECK_MESSAGE("unknown map format");
}

static void test_invalid_handles(rs_map *live_map, rs_snapper *live_snapper) {
    rs_map_info info;
    rs_snap_result r;
    rs_fix f = rs_fix_make(47.57, -122.15);
    size_t n = 0;

    CHECK_STATUS(rs_map_get_info(NULL, &info), RS_E_INVALID_HANDLE);
    CHECK_MESSAGE("NULL");
    CHECK_STATUS(rs_map_close(NULL), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_snapper_destroy(NULL), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_snapper_snap(NULL, &f, &r), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_snapper_snap_batch(NULL, &f, 1, &r, &n), RS_E_INVALID_HANDLE);
    rs_snapper *none = (rs_snapper *)(uintptr_t)1;
    CHECK_STATUS(rs_snapper_create(NULL, 0, &none), RS_E_INVALID_HANDLE);
    CHECK(none == NULL);

    /* Garbage values that were never handles: refused without being dereferenced. */
    uintptr_t garbage[] = {1, 0x10, 0xdeadbeef, (uintptr_t)&info, UINTPTR_MAX, (uintptr_t)1 << 40 | 0x11};
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        CHECK_STATUS(rs_map_get_info((rs_map *)garbage[i], &info), RS_E_INVALID_HANDLE);
        CHECK_STATUS(rs_snapper_snap((rs_snapper *)garbage[i], &f, &r), RS_E_INVALID_HANDLE);
        CHECK_STATUS(rs_map_close((rs_map *)garbage[i]), RS_E_INVALID_HANDLE);
    }
    /* A handle of another kind. */
    CHECK_STATUS(rs_map_get_info((rs_map *)live_snapper, &info), RS_E_INVALID_HANDLE);
    CHECK_MESSAGE("snapper handle, not a map handle");
    CHECK_STATUS(rs_snapper_snap((rs_snapper *)live_map, &f, &r), RS_E_INVALID_HANDLE);
    CHECK_MESSAGE("map handle, not a snapper handle");
    CHECK_STATUS(rs_map_close((rs_map *)live_snapper), RS_E_INVALID_HANDLE);
    /* The live handles still work after all that. */
    CHECK_STATUS(rs_map_get_info(live_map, &info), RS_OK);
    CHECK_STATUS(rs_snapper_snap(live_snapper, &f, &r), RS_OK);
    CHECK(strcmp(rs_last_error_message(), "") == 0);
}

static void test_stale_handles(void) {
    rs_map *map = NULL;
    rs_snapper *snapper = NULL;
    rs_fix on_main_street = rs_fix_make(47.57003, -122.1495);
    CHECK_STATUS(rs_map_open(geojson_path, &map), RS_OK);
    CHECK_STATUS(rs_snapper_create(map, 0, &snapper), RS_OK);
    /* Closing the map leaves the snapper working: it keeps the network alive. */
    CHECK_STATUS(rs_map_close(map), RS_OK);
    rs_map_info info;
    CHECK_STATUS(rs_map_get_info(map, &info), RS_E_INVALID_HANDLE);
    CHECK_MESSAGE("stale");
    CHECK_STATUS(rs_map_close(map), RS_E_INVALID_HANDLE);
    rs_snap_result r;
    CHECK_STATUS(rs_snapper_snap(snapper, &on_main_street, &r), RS_OK);
    CHECK(r.status == RS_SNAP_SNAPPED);
    CHECK_NEAR(r.distance, 3.34, 0.05); /* 0.00003 degree of latitude */
    CHECK_NEAR(r.latitude, 47.57, 1e-7);
    CHECK_STATUS(rs_snapper_destroy(snapper), RS_OK);
    CHECK_STATUS(rs_snapper_snap(snapper, &on_main_street, &r), RS_E_INVALID_HANDLE);
    CHECK_MESSAGE("stale");
    CHECK_STATUS(rs_snapper_destroy(snapper), RS_E_INVALID_HANDLE);
    /* A new snapper may reuse the table slot; the old handle must still be refused. */
    rs_map *map2 = NULL;
    rs_snapper *snapper2 = NULL;
    CHECK_STATUS(rs_map_open(geojson_path, &map2), RS_OK);
    CHECK_STATUS(rs_snapper_create(map2, 0, &snapper2), RS_OK);
    CHECK(snapper2 != snapper);
    CHECK_STATUS(rs_snapper_snap(snapper, &on_main_street, &r), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_snapper_snap(snapper2, &on_main_street, &r), RS_OK);
    CHECK_STATUS(rs_snapper_destroy(snapper2), RS_OK);
    CHECK_STATUS(rs_map_close(map2), RS_OK);
}

static void test_map(rs_map *map) {
    rs_map_info info;
    CHECK_STATUS(rs_map_get_info(map, NULL), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_map_get_info(map, &info), RS_OK);
    CHECK(info.edge_count > 1000);
    CHECK(info.node_count > 1000);
    CHECK(info.total_length > 100000.0);
    /* Inside the extract's declared bounds (Samples/SOURCE.md: 47.5621,-122.1831 .. 47.5820,-122.0938), with the
     * nodes of ways that cross the border a little outside. */
    CHECK(info.min_latitude < 47.5621 + 0.01 && info.max_latitude > 47.5820 - 0.01);
    CHECK(info.min_longitude < -122.1831 + 0.01 && info.max_longitude > -122.0938 - 0.01);
    CHECK(info.min_latitude > 47.4 && info.max_latitude < 47.7);

    rs_edge_info e;
    CHECK_STATUS(rs_map_get_edge(map, -1, &e), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_map_get_edge(map, info.edge_count, &e), RS_E_INVALID_ARGUMENT);
    CHECK_MESSAGE("out of range");
    CHECK_STATUS(rs_map_get_edge(map, 0, NULL), RS_E_NULL_ARGUMENT);
    double total = 0;
    int64_t oneway = 0, motorway = 0;
    for (int64_t i = 0; i < info.edge_count; i++) {
        CHECK_STATUS(rs_map_get_edge(map, i, &e), RS_OK);
        total += e.length;
        CHECK(e.length > 0);
        CHECK(e.source_id > 0); /* OSM way ids */
        CHECK(e.from_node >= 0 && e.from_node < info.node_count && e.to_node >= 0 && e.to_node < info.node_count);
        CHECK(e.direction >= -1 && e.direction <= 1);
        CHECK(e.road_class != NULL && strlen(e.road_class) > 0);
        CHECK(e.default_speed > 0);
        if (e.direction != RS_DIRECTION_BOTH) oneway++;
        if (strcmp(e.road_class, "motorway") == 0) motorway++;
    }
    CHECK_NEAR(total, info.total_length, 1e-6 * info.total_length);
    CHECK(oneway > 0);   /* I-90 and I-405 carriageways */
    CHECK(motorway > 0);

    /* Source id text matches the numeric id; the size query and truncation behave like snprintf. */
    CHECK_STATUS(rs_map_get_edge(map, 0, &e), RS_OK);
    char buf[64], expected[64];
    size_t len = 0;
    snprintf(expected, sizeof expected, "%lld", (long long)e.source_id);
    CHECK_STATUS(rs_map_edge_source_id(map, 0, buf, sizeof buf, &len), RS_OK);
    CHECK(strcmp(buf, expected) == 0);
    CHECK(len == strlen(expected));
    CHECK_STATUS(rs_map_edge_source_id(map, 0, NULL, 0, &len), RS_E_BUFFER_TOO_SMALL);
    CHECK(len == strlen(expected));
    char small[3] = {'x', 'x', 'x'};
    CHECK_STATUS(rs_map_edge_source_id(map, 0, small, sizeof small, &len), RS_E_BUFFER_TOO_SMALL);
    CHECK(small[0] == expected[0] && small[1] == expected[1] && small[2] == '\0');
    CHECK_STATUS(rs_map_edge_source_id(map, 0, NULL, 10, &len), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_map_edge_source_id(map, info.edge_count + 5, buf, sizeof buf, NULL), RS_E_INVALID_ARGUMENT);

    /* Some edge of the extract is named (I-90 carries ref "I 90"). */
    int named = 0;
    for (int64_t i = 0; i < info.edge_count && !named; i++) {
        CHECK_STATUS(rs_map_edge_name(map, i, buf, sizeof buf, &len), RS_OK);
        if (len > 0) named = strlen(buf) == len;
    }
    CHECK(named);
}

static void test_snap(rs_map *map) {
    rs_snapper *s = NULL;
    CHECK_STATUS(rs_snapper_create(map, -1, &s), RS_E_INVALID_ARGUMENT);
    CHECK(s == NULL);
    CHECK_STATUS(rs_snapper_create(map, NAN, &s), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_snapper_create(map, 1e9, &s), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_snapper_create(map, 0, NULL), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_snapper_create(map, 0, &s), RS_OK);
    CHECK(s != NULL);

    rs_snap_result r;
    CHECK_STATUS(rs_snapper_snap(s, NULL, &r), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_snapper_snap(s, &fixes[0], NULL), RS_E_NULL_ARGUMENT);
    rs_fix bad = rs_fix_make(NAN, -122.1);
    CHECK_STATUS(rs_snapper_snap(s, &bad, &r), RS_E_INVALID_FIX);
    CHECK(r.status == RS_SNAP_INVALID_FIX && r.edge == -1);
    bad = rs_fix_make(91, -122.1);
    CHECK_STATUS(rs_snapper_snap(s, &bad, &r), RS_E_INVALID_FIX);
    /* Far from every road: no road, not an error. */
    rs_fix far = rs_fix_make(0, 0);
    CHECK_STATUS(rs_snapper_snap(s, &far, &r), RS_OK);
    CHECK(r.status == RS_SNAP_NO_ROAD && r.edge == -1 && isnan(r.distance));

    /* The whole drive, one fix at a time and as one batch: identical results. */
    static rs_snap_result one[MAX_FIXES], batch[MAX_FIXES];
    size_t snapped_single = 0;
    for (long i = 0; i < fix_count; i++) {
        CHECK_STATUS(rs_snapper_snap(s, &fixes[i], &one[i]), RS_OK);
        if (one[i].status == RS_SNAP_SNAPPED) snapped_single++;
    }
    size_t snapped = 0;
    CHECK_STATUS(rs_snapper_snap_batch(s, fixes, (size_t)fix_count, batch, &snapped), RS_OK);
    CHECK(snapped == snapped_single);
    CHECK(snapped >= (size_t)(0.95 * fix_count)); /* a real drive on mapped roads */
    double sum = 0;
    rs_map_info info;
    CHECK_STATUS(rs_map_get_info(map, &info), RS_OK);
    for (long i = 0; i < fix_count; i++) {
        CHECK(one[i].status == batch[i].status);
        CHECK(one[i].edge == batch[i].edge);
        if (batch[i].status != RS_SNAP_SNAPPED) continue;
        CHECK_NEAR(one[i].distance, batch[i].distance, 1e-9);
        CHECK_NEAR(one[i].latitude, batch[i].latitude, 1e-12);
        CHECK_NEAR(one[i].longitude, batch[i].longitude, 1e-12);
        CHECK(batch[i].edge >= 0 && batch[i].edge < info.edge_count);
        CHECK(batch[i].distance >= 0 && batch[i].distance <= RS_DEFAULT_SNAP_RADIUS);
        CHECK(batch[i].bearing >= 0 && batch[i].bearing < 360);
        rs_edge_info e;
        CHECK_STATUS(rs_map_get_edge(map, batch[i].edge, &e), RS_OK);
        CHECK(batch[i].offset >= -1e-6 && batch[i].offset <= e.length + 1e-6);
        /* The snapped point is `distance` metres from the fix (equirectangular, good to ~0.1% at 50 m). */
        double dlat = (batch[i].latitude - fixes[i].latitude) * 111132.95;
        double dlon = (batch[i].longitude - fixes[i].longitude) * 111319.49 * cos(fixes[i].latitude * M_PI / 180);
        CHECK_NEAR(sqrt(dlat * dlat + dlon * dlon), batch[i].distance, 0.05 + 0.005 * batch[i].distance);
        sum += batch[i].distance;
    }
    CHECK(sum / (double)snapped < 15.0); /* mean GPS error of a car drive, metres */

    /* Invalid fixes in a batch are marked; the others are snapped as before. */
    rs_fix mixed[5] = {fixes[0], rs_fix_make(NAN, 0), fixes[1], rs_fix_make(0, 200), fixes[2]};
    rs_snap_result mixed_out[5];
    CHECK_STATUS(rs_snapper_snap_batch(s, mixed, 5, mixed_out, &snapped), RS_OK);
    CHECK(mixed_out[1].status == RS_SNAP_INVALID_FIX && mixed_out[3].status == RS_SNAP_INVALID_FIX);
    CHECK(mixed_out[0].edge == batch[0].edge && mixed_out[2].edge == batch[1].edge && mixed_out[4].edge == batch[2].edge);
    CHECK(snapped == (size_t)((batch[0].status == 1) + (batch[1].status == 1) + (batch[2].status == 1)));

    /* Empty batch; NULL arrays with a count; count too large (a negative size). */
    CHECK_STATUS(rs_snapper_snap_batch(s, NULL, 0, NULL, &snapped), RS_OK);
    CHECK(snapped == 0);
    CHECK_STATUS(rs_snapper_snap_batch(s, NULL, 3, batch, NULL), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_snapper_snap_batch(s, fixes, 3, NULL, NULL), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_snapper_snap_batch(s, fixes, (size_t)-1, batch, NULL), RS_E_INVALID_ARGUMENT);

    /* A course along the road agrees with the road's bearing in the travel direction. */
    rs_fix with_course = fixes[100];
    with_course.course = batch[100].bearing;
    CHECK_STATUS(rs_snapper_snap(s, &with_course, &r), RS_OK);
    CHECK(r.status == RS_SNAP_SNAPPED);
    double diff = fabs(fmod(r.bearing - with_course.course + 540.0, 360.0) - 180.0);
    CHECK(diff < 1.0);

    CHECK_STATUS(rs_snapper_destroy(s), RS_OK);
}

static void test_geojson_map(void) {
    rs_map *map = NULL;
    CHECK_STATUS(rs_map_open(geojson_path, &map), RS_OK);
    rs_map_info info;
    CHECK_STATUS(rs_map_get_info(map, &info), RS_OK);
    /* Main Street is split where Side Street joins it: three edges, four nodes. */
    CHECK(info.edge_count == 3);
    CHECK(info.node_count == 4);
    int main_edges = 0, side_edges = 0;
    for (int64_t i = 0; i < info.edge_count; i++) {
        rs_edge_info e;
        char id[32], name[32];
        CHECK_STATUS(rs_map_get_edge(map, i, &e), RS_OK);
        CHECK_STATUS(rs_map_edge_source_id(map, i, id, sizeof id, NULL), RS_OK);
        CHECK_STATUS(rs_map_edge_name(map, i, name, sizeof name, NULL), RS_OK);
        if (strcmp(id, "101") == 0) {
            main_edges++;
            CHECK(e.source_id == 101 && e.direction == RS_DIRECTION_BOTH && strcmp(name, "Main Street") == 0);
        } else if (strcmp(id, "side-2") == 0) {
            side_edges++;
            CHECK(e.source_id == INT64_MIN && e.direction == RS_DIRECTION_FORWARD);
            CHECK(strcmp(name, "Side Street") == 0 && strcmp(e.road_class, "residential") == 0);
            CHECK_NEAR(e.length, 111.2, 0.5); /* 0.001 degree of latitude */
        }
    }
    CHECK(main_edges == 2 && side_edges == 1);
    CHECK_STATUS(rs_map_close(map), RS_OK);
}

static void test_match(rs_map *map) {
    rs_matcher *m = NULL;
    rs_match_options bad = {0};
    bad.sigma = -1;
    CHECK_STATUS(rs_matcher_create(map, &bad, &m), RS_E_INVALID_ARGUMENT);
    CHECK(m == NULL);
    CHECK_MESSAGE("sigma");
    bad.sigma = 0;
    bad.max_candidates = 1000;
    CHECK_STATUS(rs_matcher_create(map, &bad, &m), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_matcher_create(NULL, NULL, &m), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_matcher_create(map, NULL, NULL), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_matcher_create(map, NULL, &m), RS_OK);
    CHECK_STATUS(rs_matcher_match((rs_matcher *)map, fixes, 10, NULL, NULL), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_matcher_match(m, NULL, 10, NULL, NULL), RS_E_NULL_ARGUMENT);

    static rs_matched_fix mf[MAX_FIXES];
    rs_match *match = NULL;
    CHECK_STATUS(rs_matcher_match(m, fixes, (size_t)fix_count, mf, &match), RS_OK);
    rs_match_info info;
    CHECK_STATUS(rs_match_get_info(match, &info), RS_OK);
    CHECK(info.fix_count == fix_count);
    CHECK(info.matched_count >= (int64_t)(0.95 * (double)fix_count));
    CHECK(info.sub_match_count >= 1 && info.sub_match_count <= 5);
    CHECK(info.sigma >= 4.07); /* default: 4.07 raised to the track's own estimate */
    int64_t matched = 0;
    rs_map_info mi;
    CHECK_STATUS(rs_map_get_info(map, &mi), RS_OK);
    for (long i = 0; i < fix_count; i++) {
        if (mf[i].status != RS_MATCH_MATCHED) {
            CHECK(mf[i].status == RS_MATCH_UNMATCHED && mf[i].edge == -1);
            continue;
        }
        matched++;
        CHECK(mf[i].edge >= 0 && mf[i].edge < mi.edge_count);
        CHECK(mf[i].sub_match >= 0 && mf[i].sub_match < info.sub_match_count);
        CHECK(mf[i].distance >= 0 && mf[i].distance <= 50);
        CHECK(mf[i].forward == 0 || mf[i].forward == 1);
    }
    CHECK(matched == info.matched_count);

    /* Each sub-match: a connected path of edges through which its fixes' edges pass, a polyline as long as its
     * reported length, fixes in order. */
    int64_t previous_last = -1;
    for (int64_t k = 0; k < info.sub_match_count; k++) {
        rs_sub_match_info sm;
        CHECK_STATUS(rs_match_get_sub_match(match, (size_t)k, &sm), RS_OK);
        CHECK(sm.first_fix > previous_last && sm.last_fix >= sm.first_fix && sm.last_fix < fix_count);
        previous_last = sm.last_fix;
        CHECK(sm.confidence >= 0 && sm.confidence <= 1);
        CHECK(sm.duration >= 0 && sm.duration <= fixes[fix_count - 1].time - fixes[0].time);
        CHECK(sm.edge_count >= 1 && sm.point_count >= 2);
        int64_t *edges = malloc((size_t)sm.edge_count * sizeof *edges);
        double *points = malloc((size_t)sm.point_count * 2 * sizeof *points);
        size_t n = 0;
        CHECK_STATUS(rs_match_get_edges(match, (size_t)k, edges, (size_t)sm.edge_count, &n), RS_OK);
        CHECK(n == (size_t)sm.edge_count);
        for (size_t j = 1; j < n; j++) {
            rs_edge_info a, b;
            CHECK_STATUS(rs_map_get_edge(map, edges[j - 1], &a), RS_OK);
            CHECK_STATUS(rs_map_get_edge(map, edges[j], &b), RS_OK);
            CHECK(a.from_node == b.from_node || a.from_node == b.to_node || a.to_node == b.from_node ||
                  a.to_node == b.to_node);
        }
        for (int64_t i = sm.first_fix; i <= sm.last_fix; i++) {
            if (mf[i].status != RS_MATCH_MATCHED) continue;
            CHECK(mf[i].sub_match == k);
            int on_path = 0;
            for (size_t j = 0; j < n && !on_path; j++) on_path = edges[j] == mf[i].edge;
            CHECK(on_path);
        }
        CHECK_STATUS(rs_match_get_geometry(match, (size_t)k, points, (size_t)sm.point_count, &n), RS_OK);
        double length = 0;
        for (size_t j = 1; j < n; j++) {
            double dlat = (points[2 * j] - points[2 * j - 2]) * 111132.95;
            double dlon = (points[2 * j + 1] - points[2 * j - 1]) * 111319.49 * cos(points[2 * j] * M_PI / 180);
            length += sqrt(dlat * dlat + dlon * dlon);
        }
        CHECK_NEAR(length, sm.length, 0.01 * sm.length + 1);
        /* Too small a buffer: the count, what fits, and RS_E_BUFFER_TOO_SMALL. */
        int64_t first = -1;
        if (sm.edge_count > 1) {
            CHECK_STATUS(rs_match_get_edges(match, (size_t)k, &first, 1, &n), RS_E_BUFFER_TOO_SMALL);
            CHECK(n == (size_t)sm.edge_count && first == edges[0]);
        }
        CHECK_STATUS(rs_match_get_edges(match, (size_t)k, NULL, 0, &n), RS_E_BUFFER_TOO_SMALL);
        CHECK(n == (size_t)sm.edge_count);
        free(edges);
        free(points);
    }
    rs_sub_match_info sm;
    CHECK_STATUS(rs_match_get_sub_match(match, (size_t)info.sub_match_count, &sm), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_match_get_sub_match(match, 0, NULL), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_match_close(match), RS_OK);
    CHECK_STATUS(rs_match_close(match), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_match_get_info(match, &info), RS_E_INVALID_HANDLE);

    /* Invalid fixes are reported and left out; the others match as before, with indices as given. */
    static rs_fix with_bad[MAX_FIXES + 2];
    static rs_matched_fix mf2[MAX_FIXES + 2];
    memcpy(with_bad, fixes, 200 * sizeof *fixes);
    with_bad[200] = rs_fix_make(NAN, NAN);
    memcpy(with_bad + 201, fixes + 200, 200 * sizeof *fixes);
    CHECK_STATUS(rs_matcher_match(m, with_bad, 401, mf2, NULL), RS_OK);
    CHECK(mf2[200].status == RS_MATCH_INVALID_FIX);
    static rs_matched_fix mf3[MAX_FIXES];
    CHECK_STATUS(rs_matcher_match(m, fixes, 400, mf3, NULL), RS_OK);
    int same = 1;
    for (int i = 0; i < 400; i++) same = same && mf3[i].edge == mf2[i < 200 ? i : i + 1].edge;
    CHECK(same);

    /* Only the whole result; an empty track. */
    CHECK_STATUS(rs_matcher_match(m, fixes, 100, NULL, &match), RS_OK);
    CHECK_STATUS(rs_match_close(match), RS_OK);
    CHECK_STATUS(rs_matcher_match(m, NULL, 0, NULL, &match), RS_OK);
    CHECK_STATUS(rs_match_get_info(match, &info), RS_OK);
    CHECK(info.fix_count == 0 && info.matched_count == 0 && info.sub_match_count == 0);
    CHECK_STATUS(rs_match_close(match), RS_OK);
    CHECK_STATUS(rs_matcher_destroy(m), RS_OK);

    /* Sigma estimated from the track. */
    rs_match_options est = {0};
    est.estimate_sigma = 1;
    CHECK_STATUS(rs_matcher_create(map, &est, &m), RS_OK);
    CHECK_STATUS(rs_matcher_match(m, fixes, (size_t)fix_count, NULL, &match), RS_OK);
    CHECK_STATUS(rs_match_get_info(match, &info), RS_OK);
    CHECK(info.sigma >= 1 && info.sigma < 20 && info.sigma != 4.07);
    CHECK_STATUS(rs_match_close(match), RS_OK);
    CHECK_STATUS(rs_matcher_destroy(m), RS_OK);
    CHECK_STATUS(rs_matcher_destroy(m), RS_E_INVALID_HANDLE);

    /* A sigma given is used as given. */
    rs_match_options given = {0};
    given.sigma = 4.07;
    CHECK_STATUS(rs_matcher_create(map, &given, &m), RS_OK);
    CHECK_STATUS(rs_matcher_match(m, fixes, (size_t)fix_count, NULL, &match), RS_OK);
    CHECK_STATUS(rs_match_get_info(match, &info), RS_OK);
    CHECK_NEAR(info.sigma, 4.07, 1e-12);
    CHECK_STATUS(rs_match_close(match), RS_OK);
    CHECK_STATUS(rs_matcher_destroy(m), RS_OK);
}

/* Whether `text` begins with `prefix`. */
static int starts_with(const char *text, const char *prefix) { return strncmp(text, prefix, strlen(prefix)) == 0; }

/* Occurrences of `needle` in `text`. */
static long count_of(const char *text, const char *needle) {
    long n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + strlen(needle), needle)) n++;
    return n;
}

/* The whole file into a malloc'ed buffer of *size bytes (plus a NUL); NULL when it cannot be read. */
static char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t capacity = 1 << 16, n = 0, got;
    char *data = malloc(capacity + 1);
    while (data && (got = fread(data + n, 1, capacity - n, f)) > 0) {
        n += got;
        if (n == capacity) {
            char *bigger = realloc(data, 2 * capacity + 1);
            if (!bigger) { free(data); data = NULL; break; }
            data = bigger;
            capacity *= 2;
        }
    }
    fclose(f);
    if (data) data[n] = '\0';
    *size = n;
    return data;
}

/* A match rendered in `format` into a new malloc'ed text (length asked first, as the header describes). */
static char *render_text(rs_match *match, rs_output_format format, size_t *out_length) {
    size_t length = 0;
    if (rs_match_render(match, format, NULL, 0, &length) != RS_E_BUFFER_TOO_SMALL) return NULL;
    char *text = malloc(length + 1);
    if (text && rs_match_render(match, format, text, length + 1, out_length) != RS_OK) {
        free(text);
        return NULL;
    }
    return text;
}

/* Files in a directory (besides . and ..); -1 when it cannot be opened. */
static int directory_entries(const char *path) {
    DIR *d = opendir(path);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

/* Result writers: every format rendered with the buffer rules (length, truncation, NUL), written atomically to a
 * file read back equal, the content sane for its format; bad paths, formats and handles; invalid fixes left out. */
static void test_match_output(rs_map *map) {
    static const rs_output_format formats[] = {RS_OUTPUT_GEOJSON, RS_OUTPUT_CSV, RS_OUTPUT_GPX, RS_OUTPUT_OSRM};
    static const char *const extensions[] = {"geojson", "csv", "gpx", "json"};
    rs_matcher *m = NULL;
    rs_match *match = NULL;
    CHECK_STATUS(rs_matcher_create(map, NULL, &m), RS_OK);
    CHECK_STATUS(rs_matcher_match(m, fixes, (size_t)fix_count, NULL, &match), RS_OK);
    rs_match_info info;
    CHECK_STATUS(rs_match_get_info(match, &info), RS_OK);
    int64_t points = 0;
    for (int64_t k = 0; k < info.sub_match_count; k++) {
        rs_sub_match_info sm;
        CHECK_STATUS(rs_match_get_sub_match(match, (size_t)k, &sm), RS_OK);
        points += sm.point_count;
    }

    char dir[] = "/tmp/roadsnap-test-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp failed");
        return;
    }
    char out_dir[64], path[256], first_path[128];
    snprintf(out_dir, sizeof out_dir, "%s/out", dir);
    for (int k = 0; k < 4; k++) {
        size_t length = 0, got = 0;
        CHECK_STATUS(rs_match_render(match, formats[k], NULL, 0, &length), RS_E_BUFFER_TOO_SMALL);
        char needed[64];
        snprintf(needed, sizeof needed, "needs a buffer of %zu", length + 1);
        CHECK_MESSAGE(needed);
        CHECK(length > 10000);
        char *text = malloc(length + 1), *short_text = malloc(length);
        if (!text || !short_text) { CHECK(!"malloc failed"); free(text); free(short_text); break; }
        memset(text, 'x', length + 1);
        CHECK_STATUS(rs_match_render(match, formats[k], text, length + 1, &got), RS_OK);
        CHECK(got == length && text[length] == '\0' && strlen(text) == length);
        /* One byte short: the text truncated and NUL-terminated, the full length reported. */
        CHECK_STATUS(rs_match_render(match, formats[k], short_text, length, &got), RS_E_BUFFER_TOO_SMALL);
        CHECK(got == length && short_text[length - 1] == '\0' && memcmp(short_text, text, length - 1) == 0);
        char one = 'x';
        CHECK_STATUS(rs_match_render(match, formats[k], &one, 1, NULL), RS_E_BUFFER_TOO_SMALL);
        CHECK(one == '\0');
        CHECK_STATUS(rs_match_render(match, formats[k], NULL, 1, &got), RS_E_NULL_ARGUMENT);
        CHECK_MESSAGE("out");

        switch (formats[k]) {
        case RS_OUTPUT_GEOJSON:
            CHECK(starts_with(text, "{\"features\":["));
            CHECK(strstr(text, "\"type\":\"FeatureCollection\"") != NULL);
            CHECK(count_of(text, "\"fix_index\":") == fix_count);
            CHECK(count_of(text, "\"matched\":true") == info.matched_count);
            CHECK(count_of(text, "\"type\":\"LineString\"") == info.sub_match_count);
            break;
        case RS_OUTPUT_CSV:
            CHECK(starts_with(text, "fix_index,time,lat,lon,matched,sub_match,edge_id,"));
            CHECK(count_of(text, "\n") == fix_count + 1);
            CHECK(starts_with(strchr(text, '\n') + 1, "0,2009-01-17T"));
            CHECK(count_of(text, ",false,,,,,,,\n") == fix_count - info.matched_count);
            break;
        case RS_OUTPUT_GPX:
            CHECK(starts_with(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\""));
            CHECK(strstr(text, "<name>rs_matcher_match (matched)</name>") != NULL);
            CHECK(count_of(text, "<trkseg>") == info.sub_match_count);
            CHECK(count_of(text, "<trkpt ") == points);
            CHECK(strcmp(text + length - 7, "</gpx>\n") == 0);
            break;
        case RS_OUTPUT_OSRM:
            CHECK(starts_with(text, "{\"code\":\"Ok\","));
            CHECK(count_of(text, "\"matchings_index\":") == info.matched_count);
            CHECK(count_of(text, "\"weight_name\":\"duration\"") == info.sub_match_count);
            break;
        }

        /* Written atomically to a file (its directory made on the way), read back equal to the text. */
        snprintf(path, sizeof path, "%s/drive.matched.%s", out_dir, extensions[k]);
        if (k == 0) strcpy(first_path, path);
        CHECK_STATUS(rs_match_write_file(match, formats[k], path), RS_OK);
        size_t size = 0;
        char *file = read_file(path, &size);
        CHECK(file != NULL && size == length && memcmp(file, text, length) == 0);
        free(file);
        if (formats[k] == RS_OUTPUT_CSV) {
            /* An existing file is replaced. */
            CHECK_STATUS(rs_match_write_file(match, RS_OUTPUT_CSV, first_path), RS_OK);
            file = read_file(first_path, &size);
            CHECK(file != NULL && size == length && memcmp(file, text, length) == 0);
            free(file);
        }
        free(short_text);
        free(text);
    }
    CHECK(directory_entries(out_dir) == 4); /* the four outputs, no temporary file left */

    /* Bad paths: a directory, a path through a regular file, NULL, empty, ending in '/'. */
    CHECK_STATUS(rs_match_write_file(match, RS_OUTPUT_GEOJSON, out_dir), RS_E_IO);
    CHECK_MESSAGE(out_dir);
    snprintf(path, sizeof path, "%s/out.geojson", first_path);
    CHECK_STATUS(rs_match_write_file(match, RS_OUTPUT_GEOJSON, path), RS_E_IO);
    CHECK_MESSAGE(path);
    CHECK_STATUS(rs_match_write_file(match, RS_OUTPUT_GEOJSON, NULL), RS_E_NULL_ARGUMENT);
    CHECK_MESSAGE("path");
    CHECK_STATUS(rs_match_write_file(match, RS_OUTPUT_GEOJSON, ""), RS_E_INVALID_ARGUMENT);
    snprintf(path, sizeof path, "%s/", out_dir);
    CHECK_STATUS(rs_match_write_file(match, RS_OUTPUT_GEOJSON, path), RS_E_INVALID_ARGUMENT);
    CHECK(directory_entries(out_dir) == 4);
    /* Unknown formats, bad handles. */
    size_t length = 0;
    CHECK_STATUS(rs_match_render(match, (rs_output_format)4, NULL, 0, &length), RS_E_INVALID_ARGUMENT);
    CHECK_MESSAGE("format");
    CHECK_STATUS(rs_match_write_file(match, (rs_output_format)-1, first_path), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_match_render(NULL, RS_OUTPUT_CSV, NULL, 0, &length), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_match_render((rs_match *)map, RS_OUTPUT_CSV, NULL, 0, &length), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_match_write_file(NULL, RS_OUTPUT_CSV, first_path), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_match_close(match), RS_OK);
    CHECK_STATUS(rs_match_render(match, RS_OUTPUT_CSV, NULL, 0, &length), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_match_write_file(match, RS_OUTPUT_CSV, first_path), RS_E_INVALID_HANDLE);

    /* Invalid fixes are left out of the outputs: 401 fixes with a NaN one give the text of the 400 valid ones. */
    static rs_fix with_bad[401];
    memcpy(with_bad, fixes, 200 * sizeof *fixes);
    with_bad[200] = rs_fix_make(NAN, NAN);
    memcpy(with_bad + 201, fixes + 200, 200 * sizeof *fixes);
    rs_match *valid_only = NULL;
    CHECK_STATUS(rs_matcher_match(m, with_bad, 401, NULL, &match), RS_OK);
    CHECK_STATUS(rs_matcher_match(m, fixes, 400, NULL, &valid_only), RS_OK);
    for (int k = 0; k < 4; k++) {
        size_t a_length = 0, b_length = 0;
        char *a = render_text(match, formats[k], &a_length), *b = render_text(valid_only, formats[k], &b_length);
        CHECK(a != NULL && b != NULL && a_length == b_length && strcmp(a, b) == 0);
        if (a && formats[k] == RS_OUTPUT_GEOJSON) CHECK(count_of(a, "\"fix_index\":") == 400);
        free(a);
        free(b);
    }
    CHECK_STATUS(rs_match_close(valid_only), RS_OK);
    CHECK_STATUS(rs_match_close(match), RS_OK);

    /* An empty track. */
    CHECK_STATUS(rs_matcher_match(m, NULL, 0, NULL, &match), RS_OK);
    char empty[128];
    CHECK_STATUS(rs_match_render(match, RS_OUTPUT_GEOJSON, empty, sizeof empty, &length), RS_OK);
    CHECK(strcmp(empty, "{\"features\":[],\"type\":\"FeatureCollection\"}\n") == 0);
    CHECK_STATUS(rs_match_render(match, RS_OUTPUT_OSRM, empty, sizeof empty, &length), RS_OK);
    CHECK(strstr(empty, "\"code\":\"NoMatch\"") != NULL);
    CHECK_STATUS(rs_match_close(match), RS_OK);
    CHECK_STATUS(rs_matcher_destroy(m), RS_OK);

    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/drive.matched.%s", out_dir, extensions[k]);
        CHECK(unlink(path) == 0);
    }
    CHECK(rmdir(out_dir) == 0);
    CHECK(rmdir(dir) == 0);
}

static double ground_metres(double lat1, double lon1, double lat2, double lon2) {
    double dlat = (lat2 - lat1) * 111132.95, dlon = (lon2 - lon1) * 111319.49 * cos(lat1 * M_PI / 180);
    return sqrt(dlat * dlat + dlon * dlon);
}

static rs_waypoint waypoint_at(const rs_fix *f) {
    rs_waypoint w = {f->latitude, f->longitude, NAN, 0, 0};
    return w;
}

/* Routing on `map` between fixes f[0], f[n/2] and f[n-1] of a track on it. */
static void test_route(rs_map *map, const rs_fix *f, long n_fixes, rs_router **out_router) {
    rs_router *r = NULL;
    CHECK_STATUS(rs_router_create(NULL, &r), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_router_create(map, NULL), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_router_create(map, &r), RS_OK);
    *out_router = r;

    const rs_fix *mid = &f[n_fixes / 2], *last = &f[n_fixes - 1];
    rs_waypoint w[3] = {waypoint_at(&f[0]), waypoint_at(mid), waypoint_at(last)};
    rs_route *route = (rs_route *)(uintptr_t)1;
    rs_route_status rst = RS_ROUTE_INTERNAL_ERROR;
    CHECK_STATUS(rs_router_route(r, w, 2, NULL, &rst, NULL), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_router_route((rs_router *)map, w, 2, NULL, &rst, &route), RS_E_INVALID_HANDLE);
    CHECK(route == NULL);
    CHECK_STATUS(rs_router_route(r, NULL, 2, NULL, &rst, &route), RS_E_NULL_ARGUMENT);

    /* Every way a request can fail has its route status. */
    CHECK_STATUS(rs_router_route(r, NULL, 0, NULL, &rst, &route), RS_E_NO_ROUTE);
    CHECK(rst == RS_ROUTE_LOCATION_UNAVAILABLE && route == NULL);
    CHECK_STATUS(rs_router_route(r, w, 1, NULL, &rst, &route), RS_E_NO_ROUTE);
    CHECK(rst == RS_ROUTE_NO_WAYPOINTS);
    rs_waypoint dup[2] = {w[0], w[0]};
    CHECK_STATUS(rs_router_route(r, dup, 2, NULL, &rst, &route), RS_E_NO_ROUTE);
    CHECK(rst == RS_ROUTE_DUPLICATE_WAYPOINTS);
    CHECK_MESSAGE("waypoint 1");
    rs_waypoint far[2] = {w[0], {0, 0, NAN, 0, 0}};
    CHECK_STATUS(rs_router_route(r, far, 2, NULL, &rst, &route), RS_E_NO_ROUTE);
    CHECK(rst == RS_ROUTE_WAYPOINT_ERROR);
    CHECK_MESSAGE("waypoint 1");
    rs_waypoint bad[2] = {{NAN, 0, NAN, 0, 0}, w[1]};
    CHECK_STATUS(rs_router_route(r, bad, 2, NULL, NULL, &route), RS_E_NO_ROUTE);
    CHECK_MESSAGE("waypoint 0");

    /* The drive's start to its end through its middle: two legs, steps that add up, geometry as long as the leg. */
    CHECK_STATUS(rs_router_route(r, w, 3, NULL, &rst, &route), RS_OK);
    CHECK(rst == RS_ROUTE_OK && route != NULL);
    rs_route_info info;
    CHECK_STATUS(rs_route_get_info(route, &info), RS_OK);
    CHECK(info.leg_count == 2);
    CHECK(info.driving_side == RS_DRIVING_SIDE_RIGHT); /* Serbia, USA */
    double legs = 0, legs_time = 0;
    for (size_t leg = 0; leg < 2; leg++) {
        rs_route_leg_info li;
        CHECK_STATUS(rs_route_get_leg(route, leg, &li), RS_OK);
        legs += li.distance;
        legs_time += li.duration;
        const rs_fix *a = leg == 0 ? &f[0] : mid, *b = leg == 0 ? mid : last;
        CHECK(ground_metres(li.origin_latitude, li.origin_longitude, a->latitude, a->longitude) < 30);
        CHECK(ground_metres(li.destination_latitude, li.destination_longitude, b->latitude, b->longitude) < 30);
        CHECK(li.distance >= ground_metres(a->latitude, a->longitude, b->latitude, b->longitude));
        CHECK(li.distance < 3 * ground_metres(a->latitude, a->longitude, b->latitude, b->longitude) + 500);
        CHECK(li.duration > li.distance / 40.0 && li.duration < li.distance / 2.0); /* 7 to 144 km/h on average */
        CHECK(li.step_count >= 2);
        double steps = 0, steps_time = 0;
        for (size_t k = 0; k < (size_t)li.step_count; k++) {
            rs_route_step st;
            CHECK_STATUS(rs_route_get_step(route, leg, k, &st), RS_OK);
            steps += st.distance_from_previous;
            steps_time += st.time_from_previous;
            CHECK_NEAR(st.distance_from_leg_start, steps, 0.01);
            CHECK(st.maneuver != NULL && strlen(st.maneuver) > 0);
            if (k == 0) CHECK(strcmp(st.maneuver, "depart") == 0);
            if (k + 1 == (size_t)li.step_count) CHECK(strncmp(st.maneuver, "destination", 11) == 0);
            char text[256];
            size_t len = 0;
            CHECK_STATUS(rs_route_step_text(route, leg, k, RS_STEP_INSTRUCTION, text, sizeof text, &len), RS_OK);
            CHECK(len > 5 && strlen(text) == len);
            CHECK_STATUS(rs_route_step_text(route, leg, k, (rs_step_text)99, text, sizeof text, &len),
                         RS_E_INVALID_ARGUMENT);
            if (st.lane_count > 0) {
                rs_lane lanes[32];
                size_t n = 0;
                CHECK_STATUS(rs_route_step_lanes(route, leg, k, lanes, 32, &n), RS_OK);
                CHECK(n == (size_t)st.lane_count);
                for (size_t j = 0; j < n; j++) CHECK((lanes[j].recommended & ~lanes[j].shapes) == 0 && lanes[j].shapes);
            }
        }
        CHECK_NEAR(steps, li.distance, 0.5);
        CHECK_NEAR(steps_time, li.duration, 0.5);
        rs_route_step st;
        CHECK_STATUS(rs_route_get_step(route, leg, (size_t)li.step_count, &st), RS_E_INVALID_ARGUMENT);
        double *pts = malloc((size_t)li.point_count * 2 * sizeof *pts);
        size_t n = 0;
        CHECK_STATUS(rs_route_get_leg_geometry(route, leg, pts, (size_t)li.point_count, &n), RS_OK);
        CHECK(n == (size_t)li.point_count);
        double length = 0;
        for (size_t j = 1; j < n; j++) length += ground_metres(pts[2 * j - 2], pts[2 * j - 1], pts[2 * j], pts[2 * j + 1]);
        CHECK_NEAR(length, li.distance, 0.01 * li.distance + 1);
        CHECK(ground_metres(pts[0], pts[1], li.origin_latitude, li.origin_longitude) < 1);
        free(pts);
    }
    CHECK_NEAR(legs, info.distance, 1e-6);
    CHECK_NEAR(legs_time, info.duration, 1e-6);
    rs_route_leg_info li;
    CHECK_STATUS(rs_route_get_leg(route, 2, &li), RS_E_INVALID_ARGUMENT);

    /* Avoiding highways can only make the trip take longer. */
    rs_route_options avoid = {1, 0, 1, 0};
    rs_route *slow = NULL;
    CHECK_STATUS(rs_router_route(r, w, 3, &avoid, &rst, &slow), RS_OK);
    rs_route_info slow_info;
    CHECK_STATUS(rs_route_get_info(slow, &slow_info), RS_OK);
    CHECK(slow_info.duration >= info.duration - 1e-6);
    CHECK_STATUS(rs_route_close(slow), RS_OK);
    CHECK_STATUS(rs_route_close(route), RS_OK);
    CHECK_STATUS(rs_route_close(route), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_route_get_info(route, &info), RS_E_INVALID_HANDLE);
}

/* Navigator: a simulated drive on the small map on a virtual clock, every callback counted through user data. */
typedef struct {
    int arrivals, route_changes, times, distances, delays, lighting, speeding, severities, nav_infos, locations;
    int64_t arrived_index;
    double last_distance, first_distance;
    int enroute_with_instruction, distance_increases, located_on_road;
    int last_nav_state;
} nav_counts;

static void on_arrive(void *u, int64_t index, const rs_waypoint *w) {
    nav_counts *c = u;
    c->arrivals++;
    c->arrived_index = index;
    if (w == NULL || !(w->latitude > -90 && w->latitude < 90)) c->arrived_index = -99;
}
static void on_route(void *u) { ((nav_counts *)u)->route_changes++; }
static void on_time(void *u, double s) { (void)s; ((nav_counts *)u)->times++; }
static void on_distance(void *u, double m) {
    nav_counts *c = u;
    if (c->distances == 0) c->first_distance = m;
    else if (m > c->last_distance + 1e-9) c->distance_increases++;
    c->distances++;
    c->last_distance = m;
}
static void on_delay(void *u, int32_t d) { (void)d; ((nav_counts *)u)->delays++; }
static void on_lighting(void *u, int32_t m) { (void)m; ((nav_counts *)u)->lighting++; }
static void on_speeding(void *u, double p) { (void)p; ((nav_counts *)u)->speeding++; }
static void on_severity(void *u, int32_t s, double p) { (void)s; (void)p; ((nav_counts *)u)->severities++; }
static void on_nav_info(void *u, const rs_nav_info *info) {
    nav_counts *c = u;
    c->nav_infos++;
    c->last_nav_state = info->nav_state;
    if (info->nav_state == RS_NAV_STATE_ENROUTE && info->has_current_step && strlen(info->current_instruction) > 0 &&
        info->current_step.maneuver != NULL)
        c->enroute_with_instruction++;
}
static void on_location(void *u, const rs_road_snapped_location *l) {
    nav_counts *c = u;
    c->locations++;
    if (l->edge >= 0 && l->distance_from_fix < 50) c->located_on_road++;
}

/* Voice prompts: counted per kind; each has a sentence and a distance within its trigger distance. */
typedef struct {
    int count, kinds[3], bad;
} prompt_counts;

static void on_prompt(void *u, const rs_announcement *a) {
    prompt_counts *p = u;
    p->count++;
    if (a->kind < 0 || a->kind > 2 || a->text == NULL || strlen(a->text) < 4 || a->short_text == NULL ||
        a->secondary_text == NULL || !(a->distance > 0 && a->distance <= a->trigger_distance + 1e-9) || a->step_index < 1)
        p->bad++;
    else
        p->kinds[a->kind]++;
}

static void test_navigator(rs_router *router, const rs_waypoint *ends) {
    nav_counts counts;
    memset(&counts, 0, sizeof counts);
    rs_navigator_listener listener = {&counts, on_arrive, on_route, on_time, on_distance, on_delay, on_lighting,
                                      on_speeding, on_severity, on_nav_info, on_location};
    rs_navigator_options options;
    memset(&options, 0, sizeof options);
    options.use_virtual_clock = 1;
    options.virtual_clock_start = 1400000000; /* 2014-05-13 16:53 UTC: daylight in Novi Sad */
    rs_navigator *nav = NULL;
    CHECK_STATUS(rs_navigator_create(NULL, &options, &listener, &nav), RS_E_INVALID_HANDLE);
    CHECK(nav == NULL);
    CHECK_STATUS(rs_navigator_create(router, &options, &listener, NULL), RS_E_NULL_ARGUMENT);
    rs_navigator_options bad = options;
    bad.arrival_radius = -5;
    CHECK_STATUS(rs_navigator_create(router, &bad, &listener, &nav), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_navigator_create(router, &options, &listener, &nav), RS_OK);
    prompt_counts prompts;
    memset(&prompts, 0, sizeof prompts);
    CHECK_STATUS(rs_navigator_set_announcement_callback(NULL, on_prompt, &prompts), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_navigator_set_announcement_callback(nav, on_prompt, &prompts), RS_OK);
    CHECK_STATUS(rs_navigator_set_announcement_units(nav, 7), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_navigator_set_announcement_units(nav, RS_UNITS_METRIC), RS_OK);

    /* No location yet: no origin to route from. */
    rs_route_status rst = RS_ROUTE_OK;
    CHECK_STATUS(rs_navigator_set_destinations(nav, &ends[1], 1, NULL, &rst), RS_E_NO_ROUTE);
    CHECK(rst == RS_ROUTE_LOCATION_UNAVAILABLE);
    CHECK_STATUS(rs_navigator_set_guidance(nav, 1), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_navigator_simulate_along_route(nav, 1), RS_E_NO_ROUTE);
    rs_route *route = NULL;
    CHECK_STATUS(rs_navigator_get_route(nav, &route), RS_E_NO_ROUTE);
    CHECK(route == NULL);
    CHECK_STATUS(rs_navigator_set_speed_alert_options(nav, 20, 10, 5), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_navigator_set_speed_alert_options(nav, 5, 10, 2), RS_OK);
    rs_fix bad_fix = rs_fix_make(123, 0);
    CHECK_STATUS(rs_navigator_update_location(nav, &bad_fix), RS_E_INVALID_FIX);
    CHECK_STATUS(rs_navigator_update_location(nav, NULL), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_navigator_advance_clock(nav, -1), RS_E_INVALID_ARGUMENT);

    /* Stand at the start, route to the end, drive there on the virtual clock. */
    CHECK_STATUS(rs_navigator_simulate_at(nav, ends[0].latitude, ends[0].longitude), RS_OK);
    CHECK_STATUS(rs_navigator_simulate_at(nav, 95, 0), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_navigator_advance_clock(nav, 1), RS_OK);
    CHECK(counts.locations >= 1);
    CHECK_STATUS(rs_navigator_set_destinations(nav, &ends[1], 1, NULL, &rst), RS_OK);
    CHECK(rst == RS_ROUTE_OK);
    CHECK(counts.route_changes >= 1);
    CHECK_STATUS(rs_navigator_get_route(nav, &route), RS_OK);
    rs_route_info ri;
    CHECK_STATUS(rs_route_get_info(route, &ri), RS_OK);
    CHECK(ri.leg_count == 1 && ri.distance > 100);
    CHECK_STATUS(rs_route_close(route), RS_OK);
    CHECK_STATUS(rs_navigator_set_guidance(nav, 1), RS_OK);
    rs_navigator_state st;
    CHECK_STATUS(rs_navigator_get_state(nav, &st), RS_OK);
    CHECK(st.guidance_active == 1 && st.remaining_leg_count == 1);
    CHECK(st.distance_to_next_destination > 100 && st.distance_to_next_destination < 2 * ri.distance);
    CHECK_STATUS(rs_navigator_simulate_along_route(nav, -2), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_navigator_simulate_along_route(nav, 2), RS_OK);
    int seconds = 0;
    while (counts.arrivals == 0 && seconds < 1200) {
        CHECK_STATUS(rs_navigator_advance_clock(nav, 1), RS_OK);
        seconds++;
    }
    CHECK(counts.arrivals == 1 && counts.arrived_index == 0);
    /* At twice the road speeds the drive takes about half the route's duration. */
    CHECK(seconds > 0.25 * ri.duration && seconds < 1.5 * ri.duration + 10);
    CHECK(counts.locations >= seconds);
    CHECK(counts.located_on_road >= seconds * 9 / 10);
    CHECK(counts.distances >= 3 && counts.distance_increases == 0);
    CHECK(counts.first_distance > 100 && counts.last_distance < 30);
    CHECK(counts.times >= 3);
    CHECK(counts.nav_infos >= 3 && counts.enroute_with_instruction >= 1);
    CHECK(counts.speeding >= 1); /* -1: no speed limit is tagged on this extract */
    CHECK(counts.lighting == 1); /* the initial lighting mode, reported once at start */
    CHECK(prompts.count >= 1 && prompts.bad == 0 && prompts.kinds[RS_ANNOUNCEMENT_NOW] >= 1);
    CHECK_STATUS(rs_navigator_get_state(nav, &st), RS_OK);
    CHECK(st.nav_state == RS_NAV_STATE_STOPPED && st.guidance_active == 0); /* stops at arrival by default */
    int32_t has_next = 1;
    CHECK_STATUS(rs_navigator_continue_to_next_destination(nav, &has_next), RS_OK);
    CHECK(has_next == 0);
    CHECK_STATUS(rs_navigator_stop_simulation(nav), RS_OK);
    CHECK_STATUS(rs_navigator_clear_destinations(nav), RS_OK);

    /* A raw fix fed by hand is snapped and reported. */
    int before = counts.locations;
    rs_fix raw = rs_fix_make(ends[0].latitude, ends[0].longitude);
    raw.time = 1400000000 + seconds + 5;
    for (int k = 0; k < 5; k++) {
        CHECK_STATUS(rs_navigator_update_location(nav, &raw), RS_OK);
        raw.time += 1;
    }
    CHECK(counts.locations > before);
    /* A fix PROJ cannot put into the map's frame (90 degrees of longitude away): RS_E_PROJECTION with PROJ's
     * reason, no location for it, and the next fix is used as before. */
    before = counts.locations;
    rs_fix far = rs_fix_make(0, ends[0].longitude + 90);
    far.time = raw.time;
    CHECK_STATUS(rs_navigator_update_location(nav, &far), RS_E_PROJECTION);
    CHECK_MESSAGE("outside");
    CHECK(counts.locations == before);
    raw.time += 1;
    CHECK_STATUS(rs_navigator_update_location(nav, &raw), RS_OK);
    CHECK(counts.locations > before);

    CHECK_STATUS(rs_navigator_destroy(nav), RS_OK);
    CHECK_STATUS(rs_navigator_destroy(nav), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_navigator_get_state(nav, &st), RS_E_INVALID_HANDLE);

    /* The system clock cannot be advanced by hand; no listener is fine. */
    CHECK_STATUS(rs_navigator_create(router, NULL, NULL, &nav), RS_OK);
    CHECK_STATUS(rs_navigator_advance_clock(nav, 1), RS_E_INVALID_ARGUMENT);
    CHECK_MESSAGE("system clock");
    CHECK_STATUS(rs_navigator_update_location(nav, &raw), RS_OK);
    CHECK_STATUS(rs_navigator_destroy(nav), RS_OK);
}

/* Speed alerts in free drive: fixes at 90 km/h on Main Street (tagged 50 km/h) of the hand-drawn network. */
typedef struct {
    double last_percentage;
    int32_t worst_severity;
} speed_counts;

static void on_speeding_value(void *u, double p) { ((speed_counts *)u)->last_percentage = p; }
static void on_severity_value(void *u, int32_t s, double p) {
    (void)p;
    speed_counts *c = u;
    if (s > c->worst_severity) c->worst_severity = s;
}

static void test_speed_alerts(void) {
    rs_map *map = NULL;
    rs_router *router = NULL;
    rs_navigator *nav = NULL;
    CHECK_STATUS(rs_map_open(geojson_path, &map), RS_OK);
    CHECK_STATUS(rs_router_create(map, &router), RS_OK);
    speed_counts counts = {NAN, RS_SPEED_ALERT_UNKNOWN};
    rs_navigator_listener listener;
    memset(&listener, 0, sizeof listener);
    listener.user_data = &counts;
    listener.did_update_speeding_percentage = on_speeding_value;
    listener.did_update_speed_alert_severity = on_severity_value;
    rs_navigator_options options;
    memset(&options, 0, sizeof options);
    options.use_virtual_clock = 1;
    options.virtual_clock_start = 1400000000;
    CHECK_STATUS(rs_navigator_create(router, &options, &listener, &nav), RS_OK);
    /* The navigator keeps the router alive. */
    CHECK_STATUS(rs_router_destroy(router), RS_OK);
    CHECK_STATUS(rs_navigator_set_speed_alert_options(nav, 5, 10, 2), RS_OK);
    for (int k = 0; k < 10; k++) {
        rs_fix f = rs_fix_make(47.57, -122.1499 + 0.0002 * k); /* 15 m apart, eastbound */
        f.time = 1400000000 + k;
        f.speed = 25; /* 90 km/h */
        f.course = 90;
        CHECK_STATUS(rs_navigator_update_location(nav, &f), RS_OK);
    }
    CHECK_NEAR(counts.last_percentage, 80, 1);
    CHECK(counts.worst_severity == RS_SPEED_ALERT_MAJOR);
    CHECK_STATUS(rs_navigator_destroy(nav), RS_OK);
    CHECK_STATUS(rs_map_close(map), RS_OK);
}

/* Calls back into the navigator from its own listener: set_destinations is refused with RS_E_BUSY (no deadlock),
 * destroy is allowed and the call that delivered the event still returns. */
typedef struct {
    rs_navigator *nav;
    rs_status set_status, destroy_status;
    int calls;
} reentry;

static void on_location_reenter(void *u, const rs_road_snapped_location *l) {
    (void)l;
    reentry *r = u;
    if (r->calls++ > 0) return;
    rs_waypoint w = {47.5709, -122.1490, NAN, 0, 0};
    r->set_status = rs_navigator_set_destinations(r->nav, &w, 1, NULL, NULL);
    r->destroy_status = rs_navigator_destroy(r->nav);
}

static void test_navigator_reentry(void) {
    rs_map *map = NULL;
    rs_router *router = NULL;
    CHECK_STATUS(rs_map_open(geojson_path, &map), RS_OK);
    CHECK_STATUS(rs_router_create(map, &router), RS_OK);
    reentry r = {NULL, RS_OK, RS_E_INTERNAL, 0};
    rs_navigator_listener listener;
    memset(&listener, 0, sizeof listener);
    listener.user_data = &r;
    listener.did_update_road_snapped_location = on_location_reenter;
    rs_navigator_options options;
    memset(&options, 0, sizeof options);
    options.use_virtual_clock = 1;
    options.virtual_clock_start = 1400000000;
    CHECK_STATUS(rs_navigator_create(router, &options, &listener, &r.nav), RS_OK);
    /* The simulator reports its first fix at once, inside this call. */
    CHECK_STATUS(rs_navigator_simulate_at(r.nav, 47.57, -122.1495), RS_OK);
    CHECK(r.calls == 1);
    CHECK(r.set_status == RS_E_BUSY);
    CHECK(r.destroy_status == RS_OK);
    CHECK_STATUS(rs_navigator_advance_clock(r.nav, 1), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_router_destroy(router), RS_OK);
    CHECK_STATUS(rs_map_close(map), RS_OK);
}

/* Garbage in, status codes out: deterministic random values (NaN, infinities, huge, negative, zero, in range) and
 * handles (live, closed, forged, of another kind, NULL) through every call taking them; none may crash or hang,
 * every status must be a listed one, and the live handles must still work afterwards. */
static uint64_t garbage_state = 7;
static uint64_t garbage_next(void) {
    uint64_t z = (garbage_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
static double garbage_special(void) {
    static const double special[] = {NAN, INFINITY, -INFINITY, 1e300, -1e300, 0, -1, 1e11, 47.57, -122.149, 91, 181};
    return special[garbage_next() % (sizeof special / sizeof special[0])];
}
static double garbage_double(void) {
    uint64_t r = garbage_next();
    if (r % 3 == 0) return garbage_special();
    return ((double)(r >> 11) / (double)(1ull << 53) - 0.5) * 400;
}

static void test_garbage(void) {
    rs_map *map = NULL, *closed_map = NULL;
    rs_router *router = NULL;
    rs_snapper *snapper = NULL;
    rs_matcher *matcher = NULL;
    rs_navigator *nav = NULL;
    CHECK_STATUS(rs_map_open(geojson_path, &map), RS_OK);
    CHECK_STATUS(rs_map_open(geojson_path, &closed_map), RS_OK);
    CHECK_STATUS(rs_map_close(closed_map), RS_OK);
    CHECK_STATUS(rs_router_create(map, &router), RS_OK);
    CHECK_STATUS(rs_snapper_create(map, 0, &snapper), RS_OK);
    CHECK_STATUS(rs_matcher_create(map, NULL, &matcher), RS_OK);
    rs_navigator_options no = {1, 0, 1400000000, 0, 0, 0};
    CHECK_STATUS(rs_navigator_create(router, &no, NULL, &nav), RS_OK);
    void *handles[] = {map, closed_map, router, snapper, matcher, nav, NULL, (void *)(uintptr_t)0x12345,
                       (void *)&handles};
    size_t nh = sizeof handles / sizeof handles[0];
    int bad_status = 0;
#define G_HANDLE(type) ((type *)handles[garbage_next() % nh])
#define G_CALL(call)                                                                                   \
    do {                                                                                               \
        rs_status g_s_ = (call);                                                                       \
        if ((int)g_s_ < 0 || (int)g_s_ > RS_E_NO_ROUTE || strcmp(rs_status_name(g_s_), "RS_E_UNKNOWN") == 0) \
            bad_status++;                                                                              \
    } while (0)
    for (int k = 0; k < 300; k++) {
        rs_fix fixes_in[4];
        for (int j = 0; j < 4; j++) {
            fixes_in[j] = rs_fix_make(garbage_double(), garbage_double());
            fixes_in[j].time = garbage_double();
            fixes_in[j].course = garbage_double();
            fixes_in[j].speed = garbage_double();
        }
        rs_snap_result sr[4];
        rs_matched_fix mf4[4];
        rs_waypoint w[2] = {{garbage_double(), garbage_double(), garbage_double(), (int32_t)garbage_next(), 0},
                            {garbage_double(), garbage_double(), garbage_double(), 0, 0}};
        rs_route_options ro = {(int32_t)garbage_next(), (int32_t)garbage_next(), (int32_t)garbage_next(), 0};
        rs_match_options mo = {garbage_double(), (int32_t)garbage_next(), (int32_t)garbage_next(), garbage_double(),
                               garbage_double(), garbage_double()};
        size_t n = 0;
        char buf[8];
        rs_map_info mi;
        rs_edge_info ei;
        rs_snapper *s2 = NULL;
        rs_matcher *m2 = NULL;
        rs_match *match = NULL;
        rs_route *route = NULL;
        rs_navigator_state st;
        G_CALL(rs_map_get_info(G_HANDLE(rs_map), &mi));
        G_CALL(rs_map_get_edge(G_HANDLE(rs_map), (int64_t)garbage_next(), &ei));
        G_CALL(rs_map_edge_name(G_HANDLE(rs_map), (int64_t)(garbage_next() % 5) - 1, buf, garbage_next() % 9, &n));
        G_CALL(rs_snapper_create(G_HANDLE(rs_map), garbage_double(), &s2));
        if (s2) G_CALL(rs_snapper_destroy(s2));
        G_CALL(rs_snapper_snap(G_HANDLE(rs_snapper), &fixes_in[0], &sr[0]));
        G_CALL(rs_snapper_snap_batch(G_HANDLE(rs_snapper), fixes_in, garbage_next() % 5, sr, &n));
        G_CALL(rs_matcher_create(G_HANDLE(rs_map), &mo, &m2));
        if (m2) G_CALL(rs_matcher_destroy(m2));
        G_CALL(rs_matcher_match(G_HANDLE(rs_matcher), fixes_in, garbage_next() % 5, mf4, &match));
        if (match) {
            G_CALL(rs_match_get_edges(match, garbage_next() % 3, NULL, 0, &n));
            G_CALL(rs_match_render(match, (rs_output_format)(garbage_next() % 6), buf, garbage_next() % 9, &n));
            G_CALL(rs_match_close(match));
        }
        G_CALL(rs_router_route(G_HANDLE(rs_router), w, garbage_next() % 3, &ro, NULL, &route));
        if (route) {
            rs_route_step step;
            G_CALL(rs_route_get_step(route, garbage_next() % 3, garbage_next() % 9, &step));
            G_CALL(rs_route_step_text(route, 0, garbage_next() % 9, (rs_step_text)(garbage_next() % 6), buf,
                                      sizeof buf, &n));
            G_CALL(rs_route_close(route));
        }
        G_CALL(rs_navigator_update_location(G_HANDLE(rs_navigator), &fixes_in[1]));
        G_CALL(rs_navigator_simulate_at(G_HANDLE(rs_navigator), garbage_double(), garbage_double()));
        /* Valid steps are processed second by second: 1 s, or a special value (mostly refused). */
        G_CALL(rs_navigator_advance_clock(G_HANDLE(rs_navigator), garbage_next() % 2 ? 1 : garbage_special()));
        G_CALL(rs_navigator_set_speed_alert_options(G_HANDLE(rs_navigator), garbage_double(), garbage_double(),
                                                    garbage_double()));
        G_CALL(rs_navigator_get_state(G_HANDLE(rs_navigator), &st));
        if (k % 50 == 0) G_CALL(rs_navigator_set_destinations(G_HANDLE(rs_navigator), w, 1, &ro, NULL));
        rs_navigator_options go = {(int32_t)(garbage_next() % 2), 0, garbage_double(), garbage_double(),
                                   garbage_double(), garbage_double()};
        rs_navigator *n2 = NULL;
        if (k % 20 == 0) {
            G_CALL(rs_navigator_create(G_HANDLE(rs_router), &go, NULL, &n2));
            if (n2) G_CALL(rs_navigator_destroy(n2));
        }
    }
#undef G_CALL
#undef G_HANDLE
    CHECK(bad_status == 0);
    /* The live handles still work. */
    rs_fix f = rs_fix_make(47.57003, -122.1495);
    rs_snap_result r;
    CHECK_STATUS(rs_snapper_snap(snapper, &f, &r), RS_OK);
    CHECK(r.status == RS_SNAP_SNAPPED);
    CHECK_STATUS(rs_navigator_destroy(nav), RS_OK);
    CHECK_STATUS(rs_matcher_destroy(matcher), RS_OK);
    CHECK_STATUS(rs_snapper_destroy(snapper), RS_OK);
    CHECK_STATUS(rs_router_destroy(router), RS_OK);
    CHECK_STATUS(rs_map_close(map), RS_OK);
}

/* Threads: each with its own snapper gets the same results as the main thread; one snapper shared by two
 * threads either works or says RS_E_BUSY, never both at once; each thread has its own error message. */
typedef struct {
    rs_map *map;
    rs_router *router;
    double route_distance;
    rs_snapper *shared;
    const rs_snap_result *expected;
    int failures, busy, ok;
} thread_arg;

static void *thread_main(void *p) {
    thread_arg *a = p;
    rs_snapper *own = NULL;
    static __thread rs_snap_result out[MAX_FIXES];
    if (rs_snapper_create(a->map, 0, &own) != RS_OK) { a->failures++; return NULL; }
    for (int round = 0; round < 2; round++) {
        if (rs_snapper_snap_batch(own, fixes, (size_t)fix_count, out, NULL) != RS_OK) a->failures++;
        for (long i = 0; i < fix_count; i++)
            if (out[i].edge != a->expected[i].edge) a->failures++;
    }
    for (int k = 0; k < 100; k++) {
        rs_status st = rs_snapper_snap_batch(a->shared, fixes, 32, out, NULL);
        if (st == RS_OK) a->ok++;
        else if (st == RS_E_BUSY) a->busy++;
        else a->failures++;
        /* This thread's own error message, whatever the other thread does meanwhile. */
        if (rs_map_get_edge(a->map, -7, NULL) != RS_E_NULL_ARGUMENT) a->failures++;
        if (rs_map_get_info(NULL, NULL) != RS_E_INVALID_HANDLE || !strstr(rs_last_error_message(), "NULL"))
            a->failures++;
    }
    if (rs_snapper_destroy(own) != RS_OK) a->failures++;
    /* One router, routes from both threads at once. */
    for (int k = 0; k < 5; k++) {
        rs_route *route = NULL;
        rs_route_info info;
        if (rs_router_route(a->router, small_ends, 2, NULL, NULL, &route) != RS_OK) { a->failures++; continue; }
        if (rs_route_get_info(route, &info) != RS_OK || info.distance != a->route_distance) a->failures++;
        if (rs_route_close(route) != RS_OK) a->failures++;
    }
    return NULL;
}

/* A small real extract (Novi Sad) with GraphHopper's issue-70 GPX track: the track read through rs_track_open,
 * matched onto the streets GraphHopper's test expects, and routing (cheap enough here to run under valgrind). */
static void test_small_map(rs_router **out_router, rs_map **out_map) {
    rs_map *map = NULL;
    rs_track *track = NULL;
    CHECK_STATUS(rs_map_open(small_map_path, &map), RS_OK);
    CHECK_STATUS(rs_track_open(small_track_path, &track), RS_OK);
    rs_track_info ti;
    CHECK_STATUS(rs_track_get_info(track, &ti), RS_OK);
    CHECK(ti.fix_count == 17 && ti.skipped_count == 0 && ti.segment_count == 1);
    rs_fix f[17];
    size_t n = 0;
    CHECK_STATUS(rs_track_get_fixes(track, 0, f, 17, &n), RS_OK);
    CHECK(n == 17);
    CHECK_STATUS(rs_track_get_fixes(track, 10, f + 10, 17, &n), RS_OK); /* fewer than asked at the end */
    CHECK(n == 7);
    CHECK_STATUS(rs_track_get_fixes(track, 18, f, 1, &n), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_track_close(track), RS_OK);

    rs_matcher *m = NULL;
    rs_match *match = NULL;
    CHECK_STATUS(rs_matcher_create(map, NULL, &m), RS_OK);
    CHECK_STATUS(rs_matcher_match(m, f, 17, NULL, &match), RS_OK);
    rs_match_info info;
    CHECK_STATUS(rs_match_get_info(match, &info), RS_OK);
    CHECK(info.sub_match_count == 1);
    int64_t edges[256];
    size_t ne = 0;
    CHECK_STATUS(rs_match_get_edges(match, 0, edges, 256, &ne), RS_OK);
    /* Street names along the match, consecutive repeats collapsed (GraphHopper EXPECTATIONS.md, issue-70). */
    const char *expected[] = {"Милана Видака", "Бранка Радичевића", "Здравка Челара"};
    char names[8][128];
    int count = 0;
    for (size_t j = 0; j < ne; j++) {
        char name[128];
        CHECK_STATUS(rs_map_edge_name(map, edges[j], name, sizeof name, NULL), RS_OK);
        if (name[0] == '\0' || (count > 0 && strcmp(names[count - 1], name) == 0)) continue;
        if (count < 8) strcpy(names[count], name);
        count++;
    }
    CHECK(count == 3);
    for (int k = 0; k < 3 && k < count; k++) CHECK(strcmp(names[k], expected[k]) == 0);
    CHECK_STATUS(rs_match_close(match), RS_OK);
    CHECK_STATUS(rs_matcher_destroy(m), RS_OK);

    test_route(map, f, 17, out_router);
    small_ends[0] = waypoint_at(&f[0]);
    small_ends[1] = waypoint_at(&f[16]);
    *out_map = map;
}

/* Router preprocessing with progress, cancel flag and threads (rs_router_create_ex). */
typedef struct build_watch {
    int calls, contracting, out_of_order;
    char last_phase[32];
    double last_fraction;
    volatile int32_t *cancel; /* set to 1 once contracting passes cancel_after (when not NULL) */
    double cancel_after;
    int calls_after_cancel;
} build_watch;

static void on_build_progress(void *user_data, const char *phase, double fraction) {
    build_watch *w = user_data;
    if (w->cancel && *w->cancel) w->calls_after_cancel++;
    w->calls++;
    if (fraction < 0 || fraction > 1) w->out_of_order++;
    if (strcmp(phase, w->last_phase) == 0 && fraction < w->last_fraction) w->out_of_order++;
    if (strcmp(phase, "contracting") == 0) {
        w->contracting++;
        if (w->cancel && fraction > w->cancel_after) *w->cancel = 1;
    }
    snprintf(w->last_phase, sizeof w->last_phase, "%s", phase);
    w->last_fraction = fraction;
}

static void test_router_build_options(rs_map *map) {
    int64_t handles = rs_open_handle_count();
    rs_router *r = NULL;
    CHECK(strcmp(rs_status_name(RS_E_CANCELED), "RS_E_CANCELED") == 0);
    CHECK_STATUS(rs_router_create_ex(map, NULL, NULL), RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_router_create_ex(map, NULL, &r), RS_OK); /* NULL options: as rs_router_create */
    CHECK_STATUS(rs_router_destroy(r), RS_OK);

    rs_build_options o;
    memset(&o, 0, sizeof o);
    o.threads = -1;
    r = (rs_router *)(uintptr_t)1;
    CHECK_STATUS(rs_router_create_ex(map, &o, &r), RS_E_INVALID_ARGUMENT);
    CHECK(r == NULL);

    /* Progress: phases in order, fractions rising within each, the last report "search graph" at 1. */
    build_watch w;
    memset(&w, 0, sizeof w);
    o.threads = 2;
    o.progress = on_build_progress;
    o.user_data = &w;
    CHECK_STATUS(rs_router_create_ex(map, &o, &r), RS_OK);
    CHECK(r != NULL);
    CHECK(w.calls > 4 && w.contracting > 2 && w.out_of_order == 0);
    CHECK(strcmp(w.last_phase, "search graph") == 0 && w.last_fraction == 1);
    rs_route *route = NULL;
    rs_waypoint ends[2] = {waypoint_at(&fixes[0]), waypoint_at(&fixes[fix_count - 1])};
    CHECK_STATUS(rs_router_route(r, ends, 2, NULL, NULL, &route), RS_OK);
    CHECK_STATUS(rs_route_close(route), RS_OK);
    CHECK_STATUS(rs_router_destroy(r), RS_OK);

    /* Canceled mid-contraction from the progress callback: RS_E_CANCELED, no handle, nothing left open. */
    volatile int32_t cancel = 0;
    memset(&w, 0, sizeof w);
    w.cancel = &cancel;
    w.cancel_after = 0.2;
    o.cancel = &cancel;
    r = (rs_router *)(uintptr_t)1;
    CHECK_STATUS(rs_router_create_ex(map, &o, &r), RS_E_CANCELED);
    CHECK(r == NULL);
    CHECK(cancel == 1 && w.calls_after_cancel == 0);
    CHECK_MESSAGE("canceled");
    /* Already set before the call: canceled at once. */
    memset(&w, 0, sizeof w);
    CHECK_STATUS(rs_router_create_ex(map, &o, &r), RS_E_CANCELED);
    CHECK(r == NULL && w.contracting == 0);
    CHECK(rs_open_handle_count() == handles);
}

static void test_threads(rs_map *map, rs_router *router) {
    rs_snapper *s = NULL;
    rs_route *route = NULL;
    rs_route_info route_info = {0};
    CHECK_STATUS(rs_router_route(router, small_ends, 2, NULL, NULL, &route), RS_OK);
    CHECK_STATUS(rs_route_get_info(route, &route_info), RS_OK);
    CHECK_STATUS(rs_route_close(route), RS_OK);
    CHECK_STATUS(rs_snapper_create(map, 0, &s), RS_OK);
    static rs_snap_result expected[MAX_FIXES];
    CHECK_STATUS(rs_snapper_snap_batch(s, fixes, (size_t)fix_count, expected, NULL), RS_OK);
    thread_arg args[2] = {{map, router, route_info.distance, s, expected, 0, 0, 0},
                          {map, router, route_info.distance, s, expected, 0, 0, 0}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&t[i], NULL, thread_main, &args[i]) == 0);
    /* Meanwhile this thread's message is its own. */
    rs_map *none = NULL;
    CHECK_STATUS(rs_map_open("/nonexistent/main-thread.osm", &none), RS_E_IO);
    for (int i = 0; i < 2; i++) CHECK(pthread_join(t[i], NULL) == 0);
    CHECK_MESSAGE("main-thread.osm");
    for (int i = 0; i < 2; i++) {
        CHECK(args[i].failures == 0);
        CHECK(args[i].ok + args[i].busy == 100);
    }
    CHECK(args[0].ok + args[1].ok > 0);
    CHECK_STATUS(rs_snapper_destroy(s), RS_OK);
}

/* Same counts, bounds, edges, names and snaps on two maps (the source and its compiled form). */
static void check_same_map(rs_map *a, rs_map *b) {
    rs_map_info ia, ib;
    CHECK_STATUS(rs_map_get_info(a, &ia), RS_OK);
    CHECK_STATUS(rs_map_get_info(b, &ib), RS_OK);
    CHECK(ia.node_count == ib.node_count && ia.edge_count == ib.edge_count && ia.total_length == ib.total_length);
    CHECK(ia.min_latitude == ib.min_latitude && ia.max_longitude == ib.max_longitude);
    for (int64_t e = 0; e < ia.edge_count; e++) {
        rs_edge_info ea, eb;
        CHECK_STATUS(rs_map_get_edge(a, e, &ea), RS_OK);
        CHECK_STATUS(rs_map_get_edge(b, e, &eb), RS_OK);
        CHECK(ea.source_id == eb.source_id && ea.from_node == eb.from_node && ea.to_node == eb.to_node);
        CHECK(ea.length == eb.length && ea.direction == eb.direction && ea.is_roundabout == eb.is_roundabout);
        CHECK(strcmp(ea.road_class, eb.road_class) == 0);
        char na[256], nb[256];
        CHECK_STATUS(rs_map_edge_name(a, e, na, sizeof na, NULL), RS_OK);
        CHECK_STATUS(rs_map_edge_name(b, e, nb, sizeof nb, NULL), RS_OK);
        CHECK(strcmp(na, nb) == 0);
    }
    rs_snapper *sa = NULL, *sb = NULL;
    CHECK_STATUS(rs_snapper_create(a, 0, &sa), RS_OK);
    CHECK_STATUS(rs_snapper_create(b, 0, &sb), RS_OK);
    int snapped = 0;
    for (int i = 0; i < 200; i++) {
        double lat = ia.min_latitude + (ia.max_latitude - ia.min_latitude) * ((i * 37) % 200) / 200.0;
        double lon = ia.min_longitude + (ia.max_longitude - ia.min_longitude) * ((i * 91) % 200) / 200.0;
        rs_fix f = rs_fix_make(lat, lon);
        rs_snap_result ra, rb;
        CHECK_STATUS(rs_snapper_snap(sa, &f, &ra), RS_OK);
        CHECK_STATUS(rs_snapper_snap(sb, &f, &rb), RS_OK);
        CHECK(ra.status == rb.status);
        if (ra.status == RS_SNAP_SNAPPED) { /* (no-road results carry NaN distances) */
            CHECK(ra.edge == rb.edge && ra.distance == rb.distance && ra.offset == rb.offset);
            CHECK(ra.latitude == rb.latitude && ra.longitude == rb.longitude && ra.bearing == rb.bearing);
            snapped++;
        }
    }
    CHECK(snapped > 20);
    CHECK_STATUS(rs_snapper_destroy(sa), RS_OK);
    CHECK_STATUS(rs_snapper_destroy(sb), RS_OK);
}

/* A compiled map (made by `roadsnap compile` from the small map) through rs_map_open and rs_map_open_memory. */
static void test_compiled_map(void) {
    rs_map *source = NULL, *compiled = NULL, *in_memory = NULL, *bad = NULL;
    CHECK_STATUS(rs_map_open(small_map_path, &source), RS_OK);
    CHECK_STATUS(rs_map_open(compiled_map_path, &compiled), RS_OK);
    if (source && compiled) check_same_map(source, compiled);

    FILE *file = fopen(compiled_map_path, "rb");
    CHECK(file != NULL);
    if (!file) return;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    fseek(file, 0, SEEK_SET);
    void *bytes = NULL;
    CHECK(size > 128 && posix_memalign(&bytes, 64, (size_t)size + 64) == 0);
    if (!bytes) { fclose(file); return; }
    CHECK(fread(bytes, 1, (size_t)size, file) == (size_t)size);
    fclose(file);
    CHECK_STATUS(rs_map_open_memory(bytes, (size_t)size, "flash", &in_memory), RS_OK);
    if (source && in_memory) check_same_map(source, in_memory);
    /* Errors: NULL bytes, misaligned bytes, a truncated map, a flipped byte, bytes that are not a compiled map. */
    CHECK_STATUS(rs_map_open_memory(NULL, (size_t)size, "flash", &bad), RS_E_NULL_ARGUMENT);
    CHECK(bad == NULL);
    memmove((char *)bytes + 8, bytes, (size_t)size);
    CHECK_STATUS(rs_map_open_memory((char *)bytes + 8, (size_t)size, "flash", &bad), RS_E_INVALID_ARGUMENT);
    memmove(bytes, (char *)bytes + 8, (size_t)size);
    CHECK_STATUS(rs_map_open_memory(bytes, (size_t)size - 1, "flash", &bad), RS_E_INVALID_MAP);
    CHECK(strstr(rs_last_error_message(), "flash") != NULL && strstr(rs_last_error_message(), "truncated") != NULL);
    ((unsigned char *)bytes)[size / 2] ^= 0x10;
    CHECK_STATUS(rs_map_open_memory(bytes, (size_t)size, "flash", &bad), RS_E_INVALID_MAP);
    CHECK(strstr(rs_last_error_message(), "corrupt") != NULL);
    ((unsigned char *)bytes)[size / 2] ^= 0x10;
    memset(bytes, 'x', 8);
    CHECK_STATUS(rs_map_open_memory(bytes, (size_t)size, NULL, &bad), RS_E_INVALID_MAP);
    CHECK(strstr(rs_last_error_message(), "<memory>") != NULL && strstr(rs_last_error_message(), "not a compiled") != NULL);
    CHECK(bad == NULL);
    /* The in-memory map reads the caller's bytes: close it before they are freed. */
    CHECK_STATUS(rs_map_close(in_memory), RS_OK);
    free(bytes);
    CHECK_STATUS(rs_map_close(compiled), RS_OK);
    CHECK_STATUS(rs_map_close(source), RS_OK);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s REPO_ROOT COMPILED_SMALL_MAP.rsmap\n", argv[0]);
        return 2;
    }
    snprintf(compiled_map_path, sizeof compiled_map_path, "%s", argv[2]);
    snprintf(map_path, sizeof map_path, "%s/Samples/bellevue-issue147.osm.gz", argv[1]);
    snprintf(track_path, sizeof track_path, "%s/Samples/newson-krumm-bellevue.csv", argv[1]);
    snprintf(geojson_path, sizeof geojson_path, "%s/Tests/c/Fixtures/two-roads.geojson", argv[1]);
    snprintf(small_map_path, sizeof small_map_path, "%s/Tests/RoadSnapCoreTests/Fixtures/osm/issue-70.osm.gz", argv[1]);
    snprintf(small_track_path, sizeof small_track_path, "%s/Tests/RoadSnapCoreTests/Fixtures/graphhopper/issue-70.gpx",
             argv[1]);
    snprintf(bad_map_path, sizeof bad_map_path, "%s/Tests/c/Fixtures/not-a-map.osm", argv[1]);
    fix_count = read_sample_track(track_path, fixes, MAX_FIXES);
    if (fix_count != 1410) {
        fprintf(stderr, "expected 1410 fixes in %s, read %ld\n", track_path, fix_count);
        return 2;
    }

    CHECK(rs_open_handle_count() == 0);
    test_version();
    test_map_errors();
    rs_map *map = NULL;
    CHECK_STATUS(rs_map_open(map_path, &map), RS_OK);
    CHECK(map != NULL);
    CHECK(strcmp(rs_last_error_message(), "") == 0);
    rs_snapper *s = NULL;
    CHECK_STATUS(rs_snapper_create(map, 25, &s), RS_OK);
    test_invalid_handles(map, s);
    CHECK_STATUS(rs_snapper_destroy(s), RS_OK);
    test_map(map);
    test_snap(map);
    test_stale_handles();
    test_geojson_map();
    test_match(map);
    test_match_output(map);
    rs_router *router = NULL;
    rs_map *small_map = NULL;
    test_small_map(&router, &small_map);
    test_navigator(router, small_ends);
    test_speed_alerts();
    test_navigator_reentry();
    test_garbage();
    test_compiled_map();
    test_threads(map, router);
    test_router_build_options(map);
    CHECK_STATUS(rs_router_destroy(router), RS_OK);
    CHECK_STATUS(rs_map_close(small_map), RS_OK);
    CHECK_STATUS(rs_map_close(map), RS_OK);
    CHECK(rs_open_handle_count() == 0); /* every handle made above was closed */

    if (check_failures) fprintf(stderr, "%s: %d check(s) failed\n", argv[0], check_failures);
    else printf("%s: all checks passed\n", argv[0]);
    return check_failures > 0;
}
