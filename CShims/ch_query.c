/*
 * RoadSnap C shim: queries on a contraction hierarchy's search graph (the arrays of rsc_ch_result, or the same
 * arrays read in place from a compiled map): one bidirectional upward search, with stall-on-demand when it stops at
 * the best meeting, or without stalling up to a cost bound for via paths. See cshims_ch.h.
 */
#include "cshims.h"

#include <stdlib.h>
#include <string.h>

typedef struct heap_item {
    int64_t key;
    int32_t node;
} heap_item;

/* One search direction: labels reset in O(1) by a generation stamp, and a binary min-heap with lazy deletion. */
typedef struct side {
    int64_t *cost;
    int32_t *pred;
    uint32_t *stamp;
    heap_item *heap;
    size_t heap_len, heap_cap;
} side;

struct rsc_ch_search {
    int32_t node_count;
    uint32_t generation;
    side dir[2];
    int32_t *settled;
    size_t settled_len, settled_cap;
};

static void side_free(side *s) {
    free(s->cost);
    free(s->pred);
    free(s->stamp);
    free(s->heap);
}

rsc_ch_search *rsc_ch_search_create(int32_t node_count) {
    if (node_count < 0) return NULL;
    rsc_ch_search *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->node_count = node_count;
    w->generation = 1;
    size_t n = node_count > 0 ? (size_t)node_count : 1;
    for (int d = 0; d < 2; d++) {
        side *s = &w->dir[d];
        s->cost = malloc(n * sizeof *s->cost);
        s->pred = malloc(n * sizeof *s->pred);
        s->stamp = calloc(n, sizeof *s->stamp);
        s->heap_cap = 256;
        s->heap = malloc(s->heap_cap * sizeof *s->heap);
        if (!s->cost || !s->pred || !s->stamp || !s->heap) {
            rsc_ch_search_destroy(w);
            return NULL;
        }
    }
    return w;
}

void rsc_ch_search_destroy(rsc_ch_search *w) {
    if (!w) return;
    side_free(&w->dir[0]);
    side_free(&w->dir[1]);
    free(w->settled);
    free(w);
}

static int push(side *s, int64_t key, int32_t node) {
    if (s->heap_len == s->heap_cap) {
        size_t cap = s->heap_cap * 2;
        heap_item *h = realloc(s->heap, cap * sizeof *h);
        if (!h) return RSC_ENOMEM;
        s->heap = h;
        s->heap_cap = cap;
    }
    heap_item *h = s->heap;
    size_t i = s->heap_len++;
    while (i > 0) {
        size_t p = (i - 1) >> 1;
        if (h[p].key <= key) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = (heap_item){key, node};
    return RSC_OK;
}

static heap_item pop(side *s) {
    heap_item *h = s->heap;
    heap_item top = h[0], last = h[--s->heap_len];
    size_t n = s->heap_len, i = 0;
    if (n == 0) return top;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= n) break;
        if (k + 1 < n && h[k + 1].key < h[k].key) k++;
        if (h[k].key >= last.key) break;
        h[i] = h[k];
        i = k;
    }
    h[i] = last;
    return top;
}

static inline int64_t label(const side *s, uint32_t gen, int32_t v) {
    return s->stamp[v] == gen ? s->cost[v] : INT64_MAX;
}

static inline int improve(side *s, uint32_t gen, int32_t v, int64_t c, int32_t pred) {
    if (s->stamp[v] != gen || c < s->cost[v]) {
        s->stamp[v] = gen;
        s->cost[v] = c;
        s->pred[v] = pred;
        return push(s, c, v);
    }
    return RSC_OK;
}

static int keep_settled(rsc_ch_search *w, int32_t v) {
    if (w->settled_len == w->settled_cap) {
        size_t cap = w->settled_cap ? w->settled_cap * 2 : 1024;
        int32_t *p = realloc(w->settled, cap * sizeof *p);
        if (!p) return RSC_ENOMEM;
        w->settled = p;
        w->settled_cap = cap;
    }
    w->settled[w->settled_len++] = v;
    return RSC_OK;
}

static void next_generation(rsc_ch_search *w) {
    if (++w->generation == 0) {
        for (int d = 0; d < 2; d++) memset(w->dir[d].stamp, 0, (size_t)w->node_count * sizeof(uint32_t));
        w->generation = 1;
    }
    w->dir[0].heap_len = w->dir[1].heap_len = 0;
    w->settled_len = 0;
}

int rsc_ch_search_run(rsc_ch_search *w, const rsc_ch_view *h, const rsc_ch_end *sources, size_t source_count,
                      const rsc_ch_end *targets, size_t target_count, int64_t direct, int64_t bound,
                      rsc_ch_meeting *out) {
    if (!w || !h || !out || (source_count && !sources) || (target_count && !targets)) return RSC_EINVAL;
    if (h->node_count != w->node_count) return RSC_EINVAL;
    out->best = INT64_MAX;
    out->meet = -1;
    out->settled = 0;
    int32_t settled = 0;
    next_generation(w);
    const uint32_t gen = w->generation;
    side *f = &w->dir[0], *b = &w->dir[1];
    const int32_t n = w->node_count;
    int rc = RSC_OK;
    for (size_t i = 0; i < source_count; i++) {
        if (sources[i].node < 0 || sources[i].node >= n) return RSC_EINVAL;
        if ((rc = improve(f, gen, sources[i].node, sources[i].cost, sources[i].pred)) != RSC_OK) return rc;
    }
    for (size_t i = 0; i < target_count; i++) {
        if (targets[i].node < 0 || targets[i].node >= n) return RSC_EINVAL;
        if ((rc = improve(b, gen, targets[i].node, targets[i].cost, targets[i].pred)) != RSC_OK) return rc;
    }
    const int stalls = bound < 0;
    int64_t best = direct;
    int32_t meet = -1;
    const int32_t *up_start = h->up_start, *up_target = h->up_target, *up_cost = h->up_cost, *up_link = h->up_link;
    const int32_t *down_start = h->down_start, *down_source = h->down_source, *down_cost = h->down_cost,
                  *down_link = h->down_link;
    for (;;) {
        int64_t fk = f->heap_len ? f->heap[0].key : INT64_MAX;
        int64_t bk = b->heap_len ? b->heap[0].key : INT64_MAX;
        int64_t low = fk < bk ? fk : bk;
        if (stalls ? low >= best : (low > bound || low == INT64_MAX)) break;
        if (fk <= bk) {
            heap_item it = pop(f);
            int32_t v = it.node;
            int64_t d = it.key;
            if (d > f->cost[v]) continue;
            settled++;
            int64_t other = label(b, gen, v);
            if (other < INT64_MAX && d + other < best) {
                best = d + other;
                meet = v;
            }
            if (stalls) {
                int stalled = 0;
                for (int32_t k = down_start[v]; k < down_start[v + 1]; k++) {
                    int64_t du = label(f, gen, down_source[k]);
                    if (du < INT64_MAX && du + down_cost[k] < d) {
                        stalled = 1;
                        break;
                    }
                }
                if (stalled) continue;
            } else if ((rc = keep_settled(w, v)) != RSC_OK) {
                return rc;
            }
            for (int32_t k = up_start[v]; k < up_start[v + 1]; k++)
                if ((rc = improve(f, gen, up_target[k], d + up_cost[k], up_link[k])) != RSC_OK) return rc;
        } else {
            heap_item it = pop(b);
            int32_t v = it.node;
            int64_t d = it.key;
            if (d > b->cost[v]) continue;
            settled++;
            int64_t other = label(f, gen, v);
            if (other < INT64_MAX && d + other < best) {
                best = d + other;
                meet = v;
            }
            if (stalls) {
                int stalled = 0;
                for (int32_t k = up_start[v]; k < up_start[v + 1]; k++) {
                    int64_t dw = label(b, gen, up_target[k]);
                    if (dw < INT64_MAX && dw + up_cost[k] < d) {
                        stalled = 1;
                        break;
                    }
                }
                if (stalled) continue;
            }
            for (int32_t k = down_start[v]; k < down_start[v + 1]; k++)
                if ((rc = improve(b, gen, down_source[k], d + down_cost[k], down_link[k])) != RSC_OK) return rc;
        }
    }
    out->best = best;
    out->meet = meet;
    out->settled = settled;
    return RSC_OK;
}

int64_t rsc_ch_search_label(const rsc_ch_search *w, int backward, int32_t node) {
    if (!w || node < 0 || node >= w->node_count) return INT64_MAX;
    return label(&w->dir[backward ? 1 : 0], w->generation, node);
}

int32_t rsc_ch_search_pred(const rsc_ch_search *w, int backward, int32_t node) {
    if (!w || node < 0 || node >= w->node_count) return -1;
    const side *s = &w->dir[backward ? 1 : 0];
    return s->stamp[node] == w->generation ? s->pred[node] : -1;
}

const int32_t *rsc_ch_search_settled(const rsc_ch_search *w, size_t *count) {
    if (!w) {
        if (count) *count = 0;
        return NULL;
    }
    if (count) *count = w->settled_len;
    return w->settled;
}
