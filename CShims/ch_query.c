/*
 * RoadSnap C shim: queries on a contraction hierarchy's search graph (the arrays of rsc_ch_result, or the same
 * arrays read in place from a compiled map): one bidirectional upward search, which sweeps each side's
 * upward-reachable nodes in rank order (no core) or runs Dijkstra (a core): to the best meeting (the cheapest path,
 * Dijkstra stalling on demand) or up to a cost bound (via paths). See cshims_ch.h.
 */
#include "cshims.h"
#include "cshims_ch_internal.h"

#include <stdlib.h>
#include <string.h>

/* One search direction: labels reset in O(1) by a generation stamp, and a binary min-heap with lazy deletion. */
typedef struct side {
    int64_t *cost;
    int32_t *pred;
    uint32_t *stamp;
    rsc_ch_heap heap;
    int32_t *queue; /* the sweep's queue: a binary max-heap of slots */
    size_t queue_len, queue_cap;
} side;

struct rsc_ch_search {
    int32_t node_count;
    uint32_t generation;
    const int32_t *slot_of, *node_of; /* the last run's view's (NULL: slots are nodes) */
    side dir[2];
    int32_t *settled;
    size_t settled_len, settled_cap;
};

static void side_free(side *s) {
    free(s->cost);
    free(s->pred);
    free(s->stamp);
    free(s->heap.items);
    free(s->queue);
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
        if (!s->cost || !s->pred || !s->stamp) {
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

static inline int64_t label(const side *s, uint32_t gen, int32_t v) {
    return s->stamp[v] == gen ? s->cost[v] : INT64_MAX;
}

static inline int improve(side *s, uint32_t gen, int32_t v, int64_t c, int32_t pred) {
    if (s->stamp[v] != gen || c < s->cost[v]) {
        s->stamp[v] = gen;
        s->cost[v] = c;
        s->pred[v] = pred;
        return rsc_ch_heap_push(&s->heap, c, v) ? RSC_ENOMEM : RSC_OK;
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
    w->dir[0].heap.len = w->dir[1].heap.len = 0;
    w->dir[0].queue_len = w->dir[1].queue_len = 0;
    w->settled_len = 0;
}

/* Adds slot v to a side's sweep queue. Returns 0, or -1 when it cannot grow. (Not rsc_ch_heap keyed by -slot: its
 * 16-byte items made the sweep about a third slower at 10x10, measured with scripts/ch_offline.c.) */
static inline int queue_push(side *s, int32_t v) {
    if (s->queue_len == s->queue_cap) {
        size_t cap = s->queue_cap ? s->queue_cap * 2 : 256;
        int32_t *q = realloc(s->queue, cap * sizeof *q);
        if (!q) return -1;
        s->queue = q;
        s->queue_cap = cap;
    }
    int32_t *a = s->queue;
    size_t i = s->queue_len++;
    while (i > 0) {
        size_t p = (i - 1) >> 1;
        if (a[p] >= v) break;
        a[i] = a[p];
        i = p;
    }
    a[i] = v;
    return 0;
}

/* Removes and returns the largest slot of a non-empty sweep queue. */
static inline int32_t queue_pop(side *s) {
    int32_t *a = s->queue;
    const int32_t top = a[0], last = a[--s->queue_len];
    const size_t n = s->queue_len;
    size_t i = 0;
    if (n == 0) return top;
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= n) break;
        if (k + 1 < n && a[k + 1] > a[k]) k++;
        if (a[k] <= last) break;
        a[i] = a[k];
        i = k;
    }
    a[i] = last;
    return top;
}

/* The links a direction follows from a node: forward the up links, backward the down links (in reverse). */
typedef struct link_lists {
    const int32_t *start, *node, *cost, *link;
} link_lists;

static void directions(const rsc_ch_view *h, link_lists go[2]) {
    go[0] = (link_lists){h->up_start, h->up_target, h->up_cost, h->up_link};
    go[1] = (link_lists){h->down_start, h->down_source, h->down_cost, h->down_link};
}

/* Puts a label into a sweep: the first label of a node queues it, a cheaper one only lowers it. Returns RSC_OK or
 * RSC_ENOMEM. */
static inline int sweep_label(side *s, uint32_t gen, int32_t v, int64_t c, int32_t pred) {
    if (s->stamp[v] != gen) {
        s->stamp[v] = gen;
        s->cost[v] = c;
        s->pred[v] = pred;
        return queue_push(s, v) ? RSC_ENOMEM : RSC_OK;
    }
    if (c < s->cost[v]) {
        s->cost[v] = c;
        s->pred[v] = pred;
    }
    return RSC_OK;
}

/* The cheapest-path search on a search graph with no core, whose upward links all point to smaller slots: both
 * sides take the nodes they reached largest slot first (lowest rank first; each side's queue is a max-heap of slots),
 * interleaved so the two go up together, the side with the larger next slot first. A node's label is final when its
 * side takes it, so each node is expanded once, with no distance order and nothing to stall, and keeps its exact
 * upward label and predecessor. Each node taken is checked against the other side's label (final if the other side
 * took it already, else a real path's cost: an upper bound, made exact when that side takes it); a node whose label
 * is at least the best meeting so far is not expanded (every path through its upward links costs at least that),
 * which the interleaving makes bite near the top, where the nodes hold the most links. With bound >= 0 (via paths)
 * a node is expanded when its label is at most `bound` instead, and those taken forward are kept: the nodes whose
 * upward distance is within the bound, each with its exact label, as the bounded Dijkstra leaves them. Returns
 * RSC_OK or RSC_ENOMEM. */
static int sweep(rsc_ch_search *w, const rsc_ch_view *h, int64_t bound, int64_t *best, int32_t *meet, int32_t *taken) {
    const uint32_t gen = w->generation;
    link_lists go[2];
    directions(h, go);
    for (;;) {
        side *f = &w->dir[0], *b = &w->dir[1];
        const int32_t fv = f->queue_len ? f->queue[0] : -1, bv = b->queue_len ? b->queue[0] : -1;
        if (fv < 0 && bv < 0) return RSC_OK;
        const int d = fv >= bv ? 0 : 1;
        side *me = &w->dir[d];
        const side *other = &w->dir[1 - d];
        const int32_t v = queue_pop(me);
        const int64_t dv = me->cost[v];
        (*taken)++;
        const int64_t o = label(other, gen, v);
        if (o < INT64_MAX && dv + o < *best) {
            *best = dv + o;
            *meet = v;
        }
        if (bound < 0 ? dv >= *best : dv > bound) continue;
        if (bound >= 0 && d == 0) {
            const int rc = keep_settled(w, h->node_of[v]);
            if (rc != RSC_OK) return rc;
        }
        const link_lists *l = &go[d];
        for (int32_t k = l->start[v]; k < l->start[v + 1]; k++) {
            const int rc = sweep_label(me, gen, l->node[k], dv + l->cost[k], l->link[k]);
            if (rc != RSC_OK) return rc;
        }
    }
}

/* Dijkstra on both sides, for a search graph with a core (or numbered by node): with bound < 0 to the best meeting,
 * stalling on demand; with bound >= 0 without stalling until both frontiers pass it, keeping the nodes settled
 * forward. Same results as sweep. Returns RSC_OK or RSC_ENOMEM. */
static int dijkstra(rsc_ch_search *w, const rsc_ch_view *h, int64_t bound, int64_t *best, int32_t *meet,
                    int32_t *taken) {
    const uint32_t gen = w->generation;
    side *f = &w->dir[0], *b = &w->dir[1];
    const int stalls = bound < 0;
    /* Per direction (0 forward, 1 backward): the links it follows from a settled node, and the links that show a
     * higher node reaching that node cheaper (stall on demand): the other direction's. */
    link_lists go[2];
    directions(h, go);
    for (;;) {
        int64_t fk = f->heap.len ? f->heap.items[0].key : INT64_MAX;
        int64_t bk = b->heap.len ? b->heap.items[0].key : INT64_MAX;
        int64_t low = fk < bk ? fk : bk;
        if (stalls ? low >= *best : (low > bound || low == INT64_MAX)) return RSC_OK;
        const int d = fk <= bk ? 0 : 1;
        side *me = d ? b : f;
        const rsc_ch_heap_item it = rsc_ch_heap_pop(&me->heap);
        const int32_t v = it.node;
        const int64_t dv = it.key;
        if (dv > me->cost[v]) continue;
        (*taken)++;
        int64_t other = label(d ? f : b, gen, v);
        if (other < INT64_MAX && dv + other < *best) {
            *best = dv + other;
            *meet = v;
        }
        int rc;
        if (stalls) {
            const link_lists *s = &go[1 - d];
            int stalled = 0;
            for (int32_t k = s->start[v]; k < s->start[v + 1]; k++) {
                int64_t du = label(me, gen, s->node[k]);
                if (du < INT64_MAX && du + s->cost[k] < dv) {
                    stalled = 1;
                    break;
                }
            }
            if (stalled) continue;
        } else if (d == 0 && (rc = keep_settled(w, h->node_of ? h->node_of[v] : v)) != RSC_OK) {
            return rc;
        }
        for (int32_t k = go[d].start[v]; k < go[d].start[v + 1]; k++)
            if ((rc = improve(me, gen, go[d].node[k], dv + go[d].cost[k], go[d].link[k])) != RSC_OK) return rc;
    }
}

int rsc_ch_search_run(rsc_ch_search *w, const rsc_ch_view *h, const rsc_ch_end *sources, size_t source_count,
                      const rsc_ch_end *targets, size_t target_count, int64_t direct, int64_t bound,
                      rsc_ch_meeting *out) {
    if (!w || !h || !out || (source_count && !sources) || (target_count && !targets)) return RSC_EINVAL;
    if (h->node_count != w->node_count) return RSC_EINVAL;
    out->best = INT64_MAX;
    out->meet = -1;
    out->settled = 0;
    if ((h->slot_of == NULL) != (h->node_of == NULL)) return RSC_EINVAL;
    int32_t settled = 0;
    next_generation(w);
    w->slot_of = h->slot_of;
    w->node_of = h->node_of;
    const int32_t *slot_of = h->slot_of;
    const uint32_t gen = w->generation;
    const int32_t n = w->node_count;
    /* A core's links run both ways and a graph numbered by node has no rank order: both need Dijkstra. */
    const int sweeping = slot_of && h->core_size == 0;
    int rc = RSC_OK;
    for (int d = 0; d < 2; d++) {
        const rsc_ch_end *ends = d ? targets : sources;
        const size_t count = d ? target_count : source_count;
        side *s = &w->dir[d];
        for (size_t i = 0; i < count; i++) {
            const int32_t v = ends[i].node;
            if (v < 0 || v >= n) return RSC_EINVAL;
            const int32_t at = slot_of ? slot_of[v] : v;
            rc = sweeping ? sweep_label(s, gen, at, ends[i].cost, ends[i].pred)
                          : improve(s, gen, at, ends[i].cost, ends[i].pred);
            if (rc != RSC_OK) return rc;
        }
    }
    int64_t best = direct;
    int32_t meet = -1;
    rc = sweeping ? sweep(w, h, bound, &best, &meet, &settled) : dijkstra(w, h, bound, &best, &meet, &settled);
    if (rc != RSC_OK) return rc;
    out->best = best;
    out->meet = meet >= 0 && h->node_of ? h->node_of[meet] : meet;
    out->settled = settled;
    return RSC_OK;
}

int64_t rsc_ch_search_label(const rsc_ch_search *w, int backward, int32_t node) {
    if (!w || node < 0 || node >= w->node_count) return INT64_MAX;
    return label(&w->dir[backward ? 1 : 0], w->generation, w->slot_of ? w->slot_of[node] : node);
}

int32_t rsc_ch_search_pred(const rsc_ch_search *w, int backward, int32_t node) {
    if (!w || node < 0 || node >= w->node_count) return -1;
    const side *s = &w->dir[backward ? 1 : 0];
    const int32_t v = w->slot_of ? w->slot_of[node] : node;
    return s->stamp[v] == w->generation ? s->pred[v] : -1;
}

const int32_t *rsc_ch_search_settled(const rsc_ch_search *w, size_t *count) {
    if (!w) {
        if (count) *count = 0;
        return NULL;
    }
    if (count) *count = w->settled_len;
    return w->settled;
}
