/* Inside CShims only: the nested-dissection order used by the routing contraction (CShims/contract.c) for the top
 * of the hierarchy, implemented in CShims/ch_order.c; the (key, node) heap of the contraction and the query. */
#ifndef ROADSNAP_CSHIMS_CH_INTERNAL_H
#define ROADSNAP_CSHIMS_CH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

/* The routing build's trace clock (RSC_CH_TRACE): the process's CPU time in seconds (the machine is often shared;
 * wall time would measure the load). */
static inline double rsc_ch_cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* A binary min-heap of (key, node) with lazy deletion (stale entries are skipped by the caller): the contraction's
 * witness searches and priority queue (contract.c) and the hierarchy query (ch_query.c). Zero-initialised it is
 * empty; the owner frees `items`. */
typedef struct rsc_ch_heap_item {
    int64_t key;
    int32_t node;
} rsc_ch_heap_item;

typedef struct rsc_ch_heap {
    rsc_ch_heap_item *items;
    size_t len, cap;
} rsc_ch_heap;

/* Adds (key, node). Returns 0, or -1 when the heap cannot grow (it is then unchanged). */
static inline int rsc_ch_heap_push(rsc_ch_heap *h, int64_t key, int32_t node) {
    if (h->len == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 16;
        rsc_ch_heap_item *items = realloc(h->items, cap * sizeof *items);
        if (!items) return -1;
        h->items = items;
        h->cap = cap;
    }
    rsc_ch_heap_item *a = h->items;
    size_t i = h->len++;
    while (i > 0) {
        size_t p = (i - 1) >> 1;
        if (a[p].key <= key) break;
        a[i] = a[p];
        i = p;
    }
    a[i] = (rsc_ch_heap_item){key, node};
    return 0;
}

/* Removes and returns the entry with the smallest key; the heap must not be empty. */
static inline rsc_ch_heap_item rsc_ch_heap_pop(rsc_ch_heap *h) {
    rsc_ch_heap_item *a = h->items;
    rsc_ch_heap_item top = a[0], last = a[--h->len];
    size_t n = h->len, i = 0;
    if (n == 0) return top;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= n) break;
        if (k + 1 < n && a[k + 1].key < a[k].key) k++;
        if (a[k].key >= last.key) break;
        a[i] = a[k];
        i = k;
    }
    a[i] = last;
    return top;
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
