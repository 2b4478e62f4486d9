/* Inside CShims only: the nested-dissection order used by the routing contraction (CShims/contract.c) for the top
 * of the hierarchy, implemented in CShims/ch_order.c. */
#ifndef ROADSNAP_CSHIMS_CH_INTERNAL_H
#define ROADSNAP_CSHIMS_CH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The routing build's trace clock (RSC_CH_TRACE): the process's CPU time in seconds (the machine is often shared;
 * wall time would measure the load). */
static inline double rsc_ch_cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Nested-dissection order of the undirected graph whose neighbours of node v are adj[adj_start[v] ..<
 * adj_start[v + 1]] (each link listed at both ends; repeats and self loops are ignored). Recursively: split into
 * connected components; in a component, the two ends of a double-sweep BFS give each node a key (distance from one
 * end minus distance from the other); the `band` fraction of lowest keys and of highest keys are the two sides of a
 * unit-capacity max flow (Dinic), whose minimum vertex cut separates the rest; the cut is ordered after both
 * sides, which are ordered recursively. Writes order[k] = the node of rank k (separators last).
 * `is_canceled(user)` (may be NULL) is polled between parts. Returns 0, -1 when memory runs out, or 1 when
 * canceled. */
int rsc_ch_nd_order(int32_t n, const size_t *adj_start, const int32_t *adj, double band, int32_t *order,
                    int (*is_canceled)(void *user), void *user);

#endif
