/* C API test of the streaming matcher (rs_stream_matcher_*): the sample drive pushed one fix at a time against the
 * batch matcher (rs_matcher_match) on the same map, lags, an invalid fix, reset, bad options, and no handle left open.
 * Usage: test_stream REPO_ROOT. Exit status = failed checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "roadsnap.h"
#include "track.h"

#define MAX_FIXES 4096
static rs_fix fixes[MAX_FIXES];
static rs_matched_fix batch[MAX_FIXES];

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s REPO_ROOT\n", argv[0]);
        return 2;
    }
    char map_path[4096], track_path[4096];
    snprintf(map_path, sizeof map_path, "%s/Samples/bellevue-issue147.osm.gz", argv[1]);
    snprintf(track_path, sizeof track_path, "%s/Samples/newson-krumm-bellevue.csv", argv[1]);
    long n = read_sample_track(track_path, fixes, MAX_FIXES);
    if (n != 1410) {
        fprintf(stderr, "expected 1410 fixes in %s, read %ld\n", track_path, n);
        return 2;
    }
    rs_map *map = NULL;
    CHECK_STATUS(rs_map_open(map_path, &map), RS_OK);

    /* Options go through the matcher's one validation. */
    rs_stream_matcher *sm = NULL;
    rs_match_options bad;
    memset(&bad, 0, sizeof bad);
    bad.radius = 1e9;
    CHECK_STATUS(rs_stream_matcher_create(map, &bad, 5, &sm), RS_E_INVALID_ARGUMENT);
    CHECK(sm == NULL);
    CHECK(strstr(rs_last_error_message(), "radius must be in (0, 10000] metres") != NULL);
    CHECK_STATUS(rs_stream_matcher_create(map, NULL, 2000, &sm), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_stream_matcher_create(map, NULL, 5, NULL), RS_E_NULL_ARGUMENT);

    /* A sigma given, as for the batch matcher below, so both apply the same one. */
    rs_match_options options;
    memset(&options, 0, sizeof options);
    options.sigma = 4.07;
    rs_matcher *matcher = NULL;
    CHECK_STATUS(rs_matcher_create(map, &options, &matcher), RS_OK);
    CHECK_STATUS(rs_matcher_match(matcher, fixes, (size_t)n, batch, NULL), RS_OK);
    CHECK_STATUS(rs_stream_matcher_create(map, &options, 5, &sm), RS_OK);
    rs_matched_fix r;
    CHECK_STATUS(rs_stream_matcher_result(sm, 0, &r), RS_E_INVALID_ARGUMENT); /* nothing pushed yet */
    long matched0 = 0, same5 = 0, compared5 = 0;
    for (long i = 0; i < n; i++) {
        CHECK_STATUS(rs_stream_matcher_push_fix(sm, &fixes[i]), RS_OK);
        CHECK_STATUS(rs_stream_matcher_result(sm, 0, &r), RS_OK);
        if (r.status == RS_MATCH_MATCHED) {
            matched0++;
            CHECK(r.edge >= 0 && r.sub_match == -1 && isfinite(r.latitude) && isfinite(r.offset) && r.distance >= 0);
            CHECK(fabs(r.latitude - fixes[i].latitude) < 0.01 && fabs(r.longitude - fixes[i].longitude) < 0.01);
        }
        if (i >= 5) {
            CHECK_STATUS(rs_stream_matcher_result(sm, 5, &r), RS_OK);
            if (batch[i - 5].status == RS_MATCH_MATCHED) {
                compared5++;
                if (r.status == RS_MATCH_MATCHED && r.edge == batch[i - 5].edge) same5++;
            }
        }
    }
    printf("stream: %ld of %ld fixes matched at lag 0; at lag 5 %ld of %ld on the batch matcher's edge\n", matched0,
           n, same5, compared5);
    CHECK(matched0 > n * 95 / 100);
    CHECK(compared5 > n * 9 / 10 && same5 > compared5 * 95 / 100);
    CHECK_STATUS(rs_stream_matcher_result(sm, 6, &r), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_stream_matcher_result(sm, -1, &r), RS_E_INVALID_ARGUMENT);

    /* An invalid fix is reported as such, and shifts the lags like any other. */
    rs_fix invalid = rs_fix_make(NAN, 0);
    CHECK_STATUS(rs_stream_matcher_push_fix(sm, &invalid), RS_OK);
    CHECK_STATUS(rs_stream_matcher_result(sm, 0, &r), RS_OK);
    CHECK(r.status == RS_MATCH_INVALID_FIX && r.edge == -1 && isnan(r.latitude));
    CHECK_STATUS(rs_stream_matcher_result(sm, 1, &r), RS_OK);
    CHECK(r.status == RS_MATCH_MATCHED);
    CHECK_STATUS(rs_stream_matcher_push_fix(sm, NULL), RS_E_NULL_ARGUMENT);

    /* Reset forgets every fix. */
    CHECK_STATUS(rs_stream_matcher_reset(sm), RS_OK);
    CHECK_STATUS(rs_stream_matcher_result(sm, 0, &r), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_stream_matcher_push_fix(sm, &fixes[0]), RS_OK);
    CHECK_STATUS(rs_stream_matcher_result(sm, 0, &r), RS_OK);
    CHECK(r.status == RS_MATCH_MATCHED);

    /* Wrong kinds and stale handles are refused. */
    CHECK_STATUS(rs_stream_matcher_push_fix((rs_stream_matcher *)matcher, &fixes[0]), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_stream_matcher_free(sm), RS_OK);
    CHECK_STATUS(rs_stream_matcher_push_fix(sm, &fixes[0]), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_matcher_destroy(matcher), RS_OK);
    CHECK_STATUS(rs_map_close(map), RS_OK);
    CHECK(rs_open_handle_count() == 0);
    if (check_failures) fprintf(stderr, "test_stream: %d checks failed\n", check_failures);
    else printf("test_stream: all checks passed\n");
    return check_failures;
}
