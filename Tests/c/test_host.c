/* The library as a guest in a host process (issue 10): loading it and a full session (open a map and a track,
 * snap, match, route, navigate on the system clock with the simulator, close everything) leave every signal
 * disposition as the host set it; PROJ, libosmium and RoadSnap messages reach rs_set_log_handler's function and
 * nothing is written to stderr; the threads the library started are gone once the last handle is closed; the
 * version macros agree with each other and with rs_version(). Usage: test_host REPO_ROOT. Exit status = failed
 * checks. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "roadsnap.h"

#ifndef NSIG
#define NSIG 65
#endif

/* ---- threads ---------------------------------------------------------------------------------------------------- */
static int thread_count(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {}
}

/* ---- signals ------------------------------------------------------------------------------------------------------ */
static struct sigaction host_actions[NSIG];
static int host_known[NSIG];

static void host_handler(int sig) { (void)sig; }
static void host_siginfo_handler(int sig, siginfo_t *info, void *context) { (void)sig; (void)info; (void)context; }

static void snapshot(struct sigaction *out, int *known) {
    for (int s = 1; s < NSIG; s++) known[s] = sigaction(s, NULL, &out[s]) == 0;
}

/* Same handler, flags and mask. */
static int same_action(const struct sigaction *a, const struct sigaction *b) {
    if ((a->sa_flags & SA_SIGINFO) != (b->sa_flags & SA_SIGINFO) || a->sa_flags != b->sa_flags) return 0;
    if (a->sa_flags & SA_SIGINFO) {
        if (a->sa_sigaction != b->sa_sigaction) return 0;
    } else if (a->sa_handler != b->sa_handler) {
        return 0;
    }
    for (int s = 1; s < NSIG; s++)
        if (sigismember(&a->sa_mask, s) != sigismember(&b->sa_mask, s)) return 0;
    return 1;
}

static void check_signals_unchanged(const char *when) {
    struct sigaction now[NSIG];
    int known[NSIG];
    snapshot(now, known);
    for (int s = 1; s < NSIG; s++) {
        if (known[s] != host_known[s] || (known[s] && !same_action(&now[s], &host_actions[s]))) {
            fprintf(stderr, "test_host: signal %d (%s) disposition changed %s\n", s, strsignal(s), when);
            check_failures++;
        }
    }
}

/* ---- log ---------------------------------------------------------------------------------------------------------- */
typedef struct {
    int proj, geos, osmium, roadsnap, other, bad_level;
    char osmium_text[256], roadsnap_text[512];
} log_counts;

static void on_log(void *user_data, int32_t level, const char *source, const char *message) {
    log_counts *c = user_data;
    if (level < RS_LOG_ERROR || level > RS_LOG_DEBUG || !message) c->bad_level++;
    if (strcmp(source, "PROJ") == 0) c->proj++;
    else if (strcmp(source, "GEOS") == 0) c->geos++;
    else if (strcmp(source, "libosmium") == 0) {
        c->osmium++;
        snprintf(c->osmium_text, sizeof c->osmium_text, "%s", message);
    } else if (strcmp(source, "RoadSnap") == 0) {
        c->roadsnap++;
        if (level != RS_LOG_WARNING) c->bad_level++;
        snprintf(c->roadsnap_text, sizeof c->roadsnap_text, "%s", message);
    } else c->other++;
}

/* ---- navigation callbacks ----------------------------------------------------------------------------------------- */
static volatile int locations_seen = 0;
static void on_location(void *u, const rs_road_snapped_location *l) {
    (void)u;
    (void)l;
    locations_seen++;
}

static void test_version_macros(void) {
    char text[64];
    snprintf(text, sizeof text, "%d.%d.%d", ROADSNAP_VERSION_MAJOR, ROADSNAP_VERSION_MINOR, ROADSNAP_VERSION_PATCH);
    CHECK(strcmp(ROADSNAP_VERSION_STRING, text) == 0);
    CHECK(strcmp(rs_version(), ROADSNAP_VERSION_STRING) == 0);
    CHECK(ROADSNAP_VERSION_MINOR < 100 && ROADSNAP_VERSION_PATCH < 100);
    CHECK(ROADSNAP_VERSION_NUMBER ==
          ROADSNAP_VERSION_MAJOR * 10000 + ROADSNAP_VERSION_MINOR * 100 + ROADSNAP_VERSION_PATCH);
    CHECK(ROADSNAP_VERSION_AT_LEAST(ROADSNAP_VERSION_MAJOR, ROADSNAP_VERSION_MINOR, ROADSNAP_VERSION_PATCH));
    CHECK(ROADSNAP_VERSION_AT_LEAST(0, 0, 0));
    CHECK(!ROADSNAP_VERSION_AT_LEAST(ROADSNAP_VERSION_MAJOR, ROADSNAP_VERSION_MINOR, ROADSNAP_VERSION_PATCH + 1));
    CHECK(!ROADSNAP_VERSION_AT_LEAST(ROADSNAP_VERSION_MAJOR, ROADSNAP_VERSION_MINOR + 1, 0));
    CHECK(!ROADSNAP_VERSION_AT_LEAST(ROADSNAP_VERSION_MAJOR + 1, 0, 0));
#if ROADSNAP_VERSION_AT_LEAST(0, 1, 0) && ROADSNAP_ABI_VERSION >= 1
    CHECK(rs_abi_version() == ROADSNAP_ABI_VERSION);
#else
    CHECK(!"the version macros do not work in #if");
#endif
}

/* Open, snap, match, route, navigate on the system clock, close. Returns the most threads seen meanwhile. */
static int session(const char *root, log_counts *log) {
    char map_path[4096], track_path[4096], bad_map_path[4096];
    snprintf(map_path, sizeof map_path, "%s/Tests/RoadSnapCoreTests/Fixtures/osm/issue-70.osm.gz", root);
    snprintf(track_path, sizeof track_path, "%s/Tests/RoadSnapCoreTests/Fixtures/graphhopper/issue-70.gpx", root);
    snprintf(bad_map_path, sizeof bad_map_path, "%s/Tests/c/Fixtures/not-a-map.osm", root);
    int most = thread_count();

    rs_map *map = NULL, *bad = NULL;
    CHECK_STATUS(rs_map_open(map_path, &map), RS_OK);
    CHECK_STATUS(rs_map_open(bad_map_path, &bad), RS_E_INVALID_MAP);
    /* A map with a feature left out (a footway): one RoadSnap warning naming the file and what was left out. */
    char footway_path[4096];
    snprintf(footway_path, sizeof footway_path, "%s/Tests/c/Fixtures/with-footway.geojson", root);
    rs_map *footway = NULL;
    CHECK(log->roadsnap == 0);
    CHECK_STATUS(rs_map_open(footway_path, &footway), RS_OK);
    CHECK(log->roadsnap == 1);
    CHECK(strstr(log->roadsnap_text, "with-footway.geojson") && strstr(log->roadsnap_text, "footway"));
    CHECK_STATUS(rs_map_close(footway), RS_OK);
    rs_track *track = NULL;
    CHECK_STATUS(rs_track_open(track_path, &track), RS_OK);
    rs_fix fixes[17];
    size_t n = 0;
    CHECK_STATUS(rs_track_get_fixes(track, 0, fixes, 17, &n), RS_OK);
    CHECK(n == 17);
    CHECK_STATUS(rs_track_close(track), RS_OK);

    rs_snapper *snapper = NULL;
    rs_snap_result snapped[17];
    size_t snapped_count = 0;
    CHECK_STATUS(rs_snapper_create(map, 0, &snapper), RS_OK);
    CHECK_STATUS(rs_snapper_snap_batch(snapper, fixes, n, snapped, &snapped_count), RS_OK);
    CHECK(snapped_count > 0);

    rs_matcher *matcher = NULL;
    rs_match *match = NULL;
    CHECK_STATUS(rs_matcher_create(map, NULL, &matcher), RS_OK);
    CHECK_STATUS(rs_matcher_match(matcher, fixes, n, NULL, &match), RS_OK);

    rs_router *router = NULL;
    rs_route *route = NULL;
    rs_waypoint ends[2] = {{fixes[0].latitude, fixes[0].longitude, NAN, 0, 0},
                           {fixes[16].latitude, fixes[16].longitude, NAN, 0, 0}};
    CHECK_STATUS(rs_router_create(map, &router), RS_OK);
    CHECK_STATUS(rs_router_route(router, ends, 2, NULL, NULL, &route), RS_OK);

    /* Navigation on the system clock: routing worker and timer thread; the simulator drives for a second. */
    rs_navigator_listener listener;
    memset(&listener, 0, sizeof listener);
    listener.did_update_road_snapped_location = on_location;
    rs_navigator_options options;
    memset(&options, 0, sizeof options);
    rs_navigator *nav = NULL;
    rs_route_status route_status = RS_ROUTE_INTERNAL_ERROR;
    CHECK_STATUS(rs_navigator_create(router, &options, &listener, &nav), RS_OK);
    CHECK_STATUS(rs_navigator_update_location(nav, &fixes[0]), RS_OK);
    CHECK_STATUS(rs_navigator_set_destinations(nav, &ends[1], 1, NULL, &route_status), RS_OK);
    CHECK(route_status == RS_ROUTE_OK);
    CHECK_STATUS(rs_navigator_simulate_along_route(nav, 4), RS_OK);
    int seen_before = locations_seen;
    for (int k = 0; k < 40 && locations_seen < seen_before + 2; k++) {
        int t = thread_count();
        if (t > most) most = t;
        sleep_ms(100);
    }
    CHECK(locations_seen >= seen_before + 2); /* the system-clock timer fired */
    int t = thread_count();
    if (t > most) most = t;

    CHECK_STATUS(rs_navigator_destroy(nav), RS_OK);
    CHECK_STATUS(rs_route_close(route), RS_OK);
    CHECK_STATUS(rs_router_destroy(router), RS_OK);
    CHECK_STATUS(rs_match_close(match), RS_OK);
    CHECK_STATUS(rs_matcher_destroy(matcher), RS_OK);
    CHECK_STATUS(rs_snapper_destroy(snapper), RS_OK);
    CHECK_STATUS(rs_map_close(map), RS_OK);
    CHECK(rs_open_handle_count() == 0);
    return most;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s REPO_ROOT\n", argv[0]);
        return 2;
    }
    /* 1. Loading the library installed no handler: every signal is as exec left it (default or ignored). */
    snapshot(host_actions, host_known);
    /* Valgrind keeps SIGRTMAX for itself and shows it handled to the program it runs. */
    const char *preload = getenv("LD_PRELOAD");
    int under_valgrind = preload && strstr(preload, "vgpreload");
    for (int s = 1; s < NSIG; s++) {
        if (!host_known[s] || (under_valgrind && s == SIGRTMAX)) continue;
        int installed = (host_actions[s].sa_flags & SA_SIGINFO) ||
                        (host_actions[s].sa_handler != SIG_DFL && host_actions[s].sa_handler != SIG_IGN);
        if (installed) {
            fprintf(stderr, "test_host: signal %d (%s) has a handler before main\n", s, strsignal(s));
            check_failures++;
        }
    }
    /* 2. The host's own dispositions: handlers (plain and SA_SIGINFO, with masks and flags) and an ignored signal. */
    int handled[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGQUIT, SIGPIPE, SIGUSR1, SIGCHLD};
    for (size_t i = 0; i < sizeof handled / sizeof handled[0]; i++) {
        struct sigaction a;
        memset(&a, 0, sizeof a);
        sigemptyset(&a.sa_mask);
        sigaddset(&a.sa_mask, SIGTERM);
        if (i % 2 == 0) {
            a.sa_sigaction = host_siginfo_handler;
            a.sa_flags = SA_SIGINFO | SA_RESTART;
        } else {
            a.sa_handler = host_handler;
            a.sa_flags = SA_NODEFER;
        }
        CHECK(sigaction(handled[i], &a, NULL) == 0);
    }
    signal(SIGUSR2, SIG_IGN);
    snapshot(host_actions, host_known);
    int threads_before = thread_count();
    CHECK(threads_before >= 1);

    test_version_macros();

    /* 3. The log handler; stderr goes to a file during the session, which must stay empty. */
    log_counts log;
    memset(&log, 0, sizeof log);
    CHECK_STATUS(rs_set_log_level(0), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_set_log_level(RS_LOG_DEBUG + 1), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_set_log_handler(on_log, &log), RS_OK);
    CHECK_STATUS(rs_set_log_level(RS_LOG_DEBUG), RS_OK);
    char err_path[] = "/tmp/roadsnap-test-host-stderr-XXXXXX";
    int err_fd = mkstemp(err_path);
    CHECK(err_fd >= 0);
    fflush(stderr);
    int saved_stderr = dup(2);
    dup2(err_fd, 2);

    int most_threads = session(argv[1], &log);

    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    off_t err_size = lseek(err_fd, 0, SEEK_END);
    close(err_fd);
    unlink(err_path);
    CHECK(err_size == 0); /* nothing on stderr: neither our libraries nor the failed map open */

    CHECK(log.proj > 0);   /* PROJ's debug messages while making the map's frame */
    CHECK(log.osmium > 0); /* libosmium's own words on the bad map */
    CHECK(strlen(log.osmium_text) > 0);
    CHECK(log.other == 0 && log.bad_level == 0);
    CHECK_STATUS(rs_set_log_handler(NULL, NULL), RS_OK);
    int proj_after = log.proj;
    rs_map *map = NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/Tests/c/Fixtures/two-roads.geojson", argv[1]);
    CHECK_STATUS(rs_map_open(path, &map), RS_OK);
    CHECK_STATUS(rs_map_close(map), RS_OK);
    CHECK(log.proj == proj_after); /* handler removed: nothing more delivered */

    /* 4. Threads: the session started some (map reading, routing worker, timer) and none is left. */
    CHECK(most_threads > threads_before);
    int threads_after = thread_count();
    for (int k = 0; k < 20 && threads_after != threads_before; k++) {
        sleep_ms(50); /* a worker released from its own last job ends right after it */
        threads_after = thread_count();
    }
    if (threads_after != threads_before)
        fprintf(stderr, "test_host: %d threads before the session, %d after\n", threads_before, threads_after);
    CHECK(threads_after == threads_before);

    /* 5. Signals as the host set them. */
    check_signals_unchanged("by a session");

    if (check_failures) fprintf(stderr, "%s: %d check(s) failed\n", argv[0], check_failures);
    else printf("%s: all checks passed (threads: %d before, up to %d during, %d after; %d PROJ and %d libosmium "
                "messages to the log handler)\n", argv[0], threads_before, most_threads, threads_after, log.proj,
                log.osmium);
    return check_failures > 0;
}
