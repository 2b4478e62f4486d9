/*
 * Offline tuning of the routing contraction (CShims/contract.c) without rebuilding the Swift package: builds a
 * hierarchy from a graph written by RSC_CH_DUMP, checks it against Dijkstra and times pure-C queries.
 *
 *   RSC_CH_DUMP=/tmp/t4.bin .build/release/Benchmarks preprocess tiles=4 grid=   # writes the turn graph, stops
 *   cc -O2 -ICShims/include -ICShims scripts/ch_offline.c CShims/contract.c CShims/ch_order.c CShims/ch_query.c -o /tmp/ch_offline -lpthread
 *   [RSC_CH_DIJKSTRA=1 (the stall-on-demand Dijkstra query instead of the sweep)]
 *   [RSC_CH_VIA=f (time the via paths' bounded search, to f times the cost, instead of the cheapest path)]
 *   [RSC_CH_SAVE=file | RSC_CH_LOAD=file (the query arrays, written after a build or read instead of one)]
 *   [RSC_CH_TRACE=1 RSC_CH_ORDER=hybrid|greedy|nd RSC_CH_SWITCH=k RSC_CH_BAND=f RSC_CH_LIMITS=... RSC_CH_CORE_DEGREE=...]
 *       /tmp/ch_offline /tmp/t4.bin [threads] [core] [sources]
 *
 * Prints build time, shortcuts, core size, then `sources` random sources x 20 random targets: hierarchy cost (node to
 * node, the engine's bidirectional upward search with stall-on-demand, rsc_ch_search_run) against a full Dijkstra per source, and query p50/p99.
 * Dump format (little endian int32): node count n, link count m, starts[n + 1], targets[m], costs[m].
 */
#include "cshims.h"
#include "cshims_ch_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of the calling thread (the machine is shared: wall time is inflated by the load, CPU time much less). */
static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The reference Dijkstra's queue: the routing code's own heap. */
static rsc_ch_heap heap;

static uint64_t state = 88172645463325252ULL;
static uint64_t next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int read_all(FILE *f, void *p, size_t size, size_t count) { return fread(p, size, count, f) == count; }

/* Entries of the i-th query array of RSC_CH_SAVE's order (up start, target, cost, link; down start, source, cost,
 * link; slot_of, node_of). */
static size_t query_array_size(const rsc_ch_result *r, int i) {
    const size_t n = (size_t)r->node_count;
    switch (i) {
    case 0: case 4: return n + 1;
    case 1: case 2: case 3: return (size_t)r->up_count;
    case 5: case 6: case 7: return (size_t)r->down_count;
    default: return n;
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DUMP [threads] [core_degree] [sources]\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open\n", argv[1]);
        return 1;
    }
    int32_t n = 0, m = 0;
    if (!read_all(f, &n, 4, 1) || !read_all(f, &m, 4, 1) || n <= 0 || m < 0) {
        fprintf(stderr, "%s: bad header\n", argv[1]);
        return 1;
    }
    int32_t *starts = malloc(4 * ((size_t)n + 1)), *targets = malloc(4 * (size_t)m + 4), *costs = malloc(4 * (size_t)m + 4);
    if (!starts || !targets || !costs || !read_all(f, starts, 4, (size_t)n + 1) || !read_all(f, targets, 4, (size_t)m) ||
        !read_all(f, costs, 4, (size_t)m)) {
        fprintf(stderr, "%s: truncated\n", argv[1]);
        return 1;
    }
    fclose(f);
    rsc_ch_options o;
    memset(&o, 0, sizeof o);
    o.threads = argc > 2 ? atoi(argv[2]) : 1;
    o.core_degree = argc > 3 ? atoi(argv[3]) : 0;
    const int sources = argc > 4 ? atoi(argv[4]) : 50;
    rsc_ch_result r;
    const double t0 = now(), c0 = cpu_now();
    /* RSC_CH_SAVE / RSC_CH_LOAD: the query arrays, as n, up_count, down_count and then these, in this order. */
    int32_t **arrays[] = {&r.up_start, &r.up_target, &r.up_cost, &r.up_link, &r.down_start, &r.down_source,
                          &r.down_cost, &r.down_link, &r.slot_of, &r.node_of};
    const char *load = getenv("RSC_CH_LOAD"), *save = getenv("RSC_CH_SAVE");
    int e = 0;
    if (load) { /* instead of building */
        FILE *g = fopen(load, "rb");
        int32_t head[3];
        memset(&r, 0, sizeof r);
        if (!g || fread(head, 4, 3, g) != 3 || head[0] != n) return 1;
        r.node_count = n;
        r.up_count = head[1];
        r.down_count = head[2];
        for (int i = 0; i < 10; i++) {
            const size_t size = query_array_size(&r, i);
            *arrays[i] = malloc(4 * size + 4);
            if (!*arrays[i] || fread(*arrays[i], 4, size, g) != size) return 1;
        }
        fclose(g);
    } else {
        e = rsc_ch_build(n, starts, targets, costs, &o, &r);
    }
    if (!e && save && !load) {
        FILE *g = fopen(save, "wb");
        const int32_t head[3] = {n, r.up_count, r.down_count};
        if (!g || fwrite(head, 4, 3, g) != 3) return 1;
        for (int i = 0; i < 10; i++)
            if (fwrite(*arrays[i], 4, query_array_size(&r, i), g) != query_array_size(&r, i)) return 1;
        if (fclose(g)) return 1;
    }
    const double t1 = now(), c1 = cpu_now();
    if (e) {
        fprintf(stderr, "build failed: %d\n", e);
        return 1;
    }
    printf("nodes %d links %d build %.3f s wall, %.3f s cpu (%.0f nodes/s by cpu; one thread: %.0f road edges/s) "
           "shortcuts %lld core %d rounds %d up %d down %d\n", n, m, t1 - t0, c1 - c0, n / (c1 - c0), n / 2 / (c1 - c0),
           (long long)r.shortcut_count, r.core_size, r.rounds, r.up_count, r.down_count);
    int64_t *dist = malloc(8 * (size_t)n);
    rsc_ch_search *search = rsc_ch_search_create(n);
    long settled = 0;
    /* RSC_CH_DIJKSTRA=1 runs the Dijkstra query where the sweep would run (slot 0 counted as a core of one) */
    const rsc_ch_view view = {n, r.up_start, r.up_target, r.up_cost, r.up_link,
                              r.down_start, r.down_source, r.down_cost, r.down_link, r.slot_of, r.node_of,
                              getenv("RSC_CH_DIJKSTRA") && !r.core_size ? 1 : r.core_size}; /* 1: Dijkstra */
    double *times = malloc(sizeof(double) * (size_t)sources * 20 + 8);
    double *cpu_times = malloc(sizeof(double) * (size_t)sources * 20 + 8);
    int mismatches = 0, queries = 0;
    for (int p = 0; p < sources; p++) {
        const int32_t s = (int32_t)(next_random() % (uint64_t)n);
        for (int32_t i = 0; i < n; i++) dist[i] = INT64_MAX;
        heap.len = 0;
        dist[s] = 0;
        if (rsc_ch_heap_push(&heap, 0, s)) return 1;
        while (heap.len) {
            rsc_ch_heap_item x = rsc_ch_heap_pop(&heap);
            if (x.key > dist[x.node]) continue;
            for (int32_t k = starts[x.node]; k < starts[x.node + 1]; k++) {
                const int64_t y = x.key + costs[k];
                if (y < dist[targets[k]]) {
                    dist[targets[k]] = y;
                    if (rsc_ch_heap_push(&heap, y, targets[k])) return 1;
                }
            }
        }
        for (int q = 0; q < 20; q++) {
            const int32_t t = (int32_t)(next_random() % (uint64_t)n);
            const double a = now(), ca = cpu_now();
            /* The engine's own query (CShims/ch_query.c): node to node, swept (or Dijkstra, see above). */
            const rsc_ch_end from = {s, -1, 0}, to = {t, -2, 0};
            rsc_ch_meeting met;
            /* RSC_CH_VIA=f: the bounded search of via paths instead, to f times the Dijkstra cost */
            const char *via = getenv("RSC_CH_VIA");
            const int64_t bound = via && dist[t] < INT64_MAX ? (int64_t)(atof(via) * (double)dist[t]) : -1;
            if (rsc_ch_search_run(search, &view, &from, 1, &to, 1, INT64_MAX, bound, &met) != RSC_OK) {
                fprintf(stderr, "query failed\n");
                return 1;
            }
            const int64_t best = met.best;
            settled += met.settled;
            cpu_times[queries] = cpu_now() - ca;
            times[queries++] = now() - a;
            if (best != dist[t] && ++mismatches <= 5)
                printf("mismatch %d -> %d: hierarchy %lld, Dijkstra %lld\n", s, t, (long long)best, (long long)dist[t]);
        }
    }
    qsort(times, (size_t)queries, sizeof(double), by_value);
    qsort(cpu_times, (size_t)queries, sizeof(double), by_value);
    if (queries > 0)
        printf("queries %d mismatches %d p50 %.3f ms p99 %.3f ms wall, p50 %.3f ms p99 %.3f ms cpu, settled %.0f per query\n",
               queries, mismatches, times[queries / 2] * 1e3, times[queries * 99 / 100] * 1e3, cpu_times[queries / 2] * 1e3,
               cpu_times[queries * 99 / 100] * 1e3, (double)settled / queries);
    rsc_ch_search_destroy(search);
    rsc_ch_result_free(&r);
    return mismatches ? 1 : 0;
}
