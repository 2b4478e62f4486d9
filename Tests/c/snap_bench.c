/* Snap throughput through libroadsnap's C API, from a C program: rs_snapper_snap_batch over the sample drive
 * (replayed 20 times per iteration) and over 100,000 uniformly random fixes in the map's box (the same SplitMix
 * sequence as Benchmarks/CAPIBenchmark.swift), and rs_snapper_snap called once per fix. Prints fixes/s and the
 * median and p99 ns per fix over timed iterations after a warm-up. `make capi-bench` runs it beside the Swift path.
 * Usage: snap_bench MAP TRACK */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <roadsnap.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct { double median, p99; } stats;

static stats summarize(double *samples, size_t n) {
    qsort(samples, n, sizeof *samples, cmp_double);
    size_t k = (size_t)(0.99 * (double)n + 0.999999);
    stats s = {samples[n / 2], samples[(k > 0 ? k : 1) - 1]};
    return s;
}

/* SplitMix64, as in the Swift benchmarks. */
static uint64_t splitmix_state;
static double splitmix_unit(void) {
    uint64_t z = (splitmix_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / (double)(1ull << 53);
}

#define MAX_SAMPLES 100000

/* Times batches of all `n` fixes: 3 warm-up calls, then at least 10 calls and 1 s. */
static stats time_batch(rs_snapper *s, const rs_fix *fixes, size_t n, rs_snap_result *out) {
    static double samples[MAX_SAMPLES];
    size_t count = 0;
    for (int i = 0; i < 3; i++) rs_snapper_snap_batch(s, fixes, n, out, NULL);
    uint64_t start = now_ns();
    while ((count < 10 || now_ns() - start < 1000000000u) && count < MAX_SAMPLES) {
        uint64_t t0 = now_ns();
        if (rs_snapper_snap_batch(s, fixes, n, out, NULL) != RS_OK) {
            fprintf(stderr, "rs_snapper_snap_batch: %s\n", rs_last_error_message());
            exit(1);
        }
        samples[count++] = (double)(now_ns() - t0) / (double)n;
    }
    return summarize(samples, count);
}

/* Times rs_snapper_snap over the first 1000 fixes, one call per fix. */
static stats time_single(rs_snapper *s, const rs_fix *fixes, rs_snap_result *out) {
    static double samples[MAX_SAMPLES];
    size_t count = 0;
    for (int i = 0; i < 1000; i++) rs_snapper_snap(s, &fixes[i], &out[i]);
    uint64_t start = now_ns();
    while ((count < 10 || now_ns() - start < 1000000000u) && count < MAX_SAMPLES) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < 1000; i++) rs_snapper_snap(s, &fixes[i], &out[i]);
        samples[count++] = (double)(now_ns() - t0) / 1000.0;
    }
    return summarize(samples, count);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s MAP TRACK\n", argv[0]);
        return 2;
    }
    rs_map *map = NULL;
    rs_track *track = NULL;
    rs_snapper *snapper = NULL;
    rs_map_info mi;
    rs_track_info ti;
    if (rs_map_open(argv[1], &map) != RS_OK || rs_map_get_info(map, &mi) != RS_OK ||
        rs_track_open(argv[2], &track) != RS_OK || rs_track_get_info(track, &ti) != RS_OK ||
        rs_snapper_create(map, 0, &snapper) != RS_OK) {
        fprintf(stderr, "%s\n", rs_last_error_message());
        return 1;
    }
    size_t nd = (size_t)ti.fix_count, replays = 20, nr = 100000;
    rs_fix *drive = malloc(nd * replays * sizeof *drive);
    rs_fix *random = malloc(nr * sizeof *random);
    rs_snap_result *out = malloc((nd * replays > nr ? nd * replays : nr) * sizeof *out);
    if (!drive || !random || !out) return 1;
    rs_track_get_fixes(track, 0, drive, nd, NULL);
    for (size_t r = 1; r < replays; r++) memcpy(drive + r * nd, drive, nd * sizeof *drive);
    splitmix_state = 42;
    for (size_t i = 0; i < nr; i++) {
        double lat = mi.min_latitude + (mi.max_latitude - mi.min_latitude) * splitmix_unit();
        double lon = mi.min_longitude + (mi.max_longitude - mi.min_longitude) * splitmix_unit();
        random[i] = rs_fix_make(lat, lon);
    }

    printf("C program -> libroadsnap %s; radius %.0f m, one thread; ns/fix: median and p99 over timed iterations\n",
           rs_version(), RS_DEFAULT_SNAP_RADIUS);
    printf("workload        path                               fixes/s   median ns   p99 ns\n");
    struct { const char *name, *key; const rs_fix *fixes; size_t n; } workloads[] = {
        {"real drive", "real_drive", drive, nd * replays}, {"random in box", "random_in_box", random, nr}};
    for (int w = 0; w < 2; w++) {
        stats b = time_batch(snapper, workloads[w].fixes, workloads[w].n, out);
        stats one = time_single(snapper, workloads[w].fixes, out);
        printf("%-15s %-33s %10.0f %11.1f %8.1f\n", workloads[w].name, "rs_snapper_snap_batch (C program)",
               1e9 / b.median, b.median, b.p99);
        printf("%-15s %-33s %10.0f %11.1f %8.1f\n", workloads[w].name, "rs_snapper_snap per fix (C)",
               1e9 / one.median, one.median, one.p99);
        printf("CAPI_C_FIXES_PER_SEC %s %.0f\n", workloads[w].key, 1e9 / b.median);
    }
    free(drive);
    free(random);
    free(out);
    rs_snapper_destroy(snapper);
    rs_track_close(track);
    rs_map_close(map);
    return 0;
}
