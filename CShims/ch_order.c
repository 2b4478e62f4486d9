/*
 * Nested-dissection order for the top of the routing contraction hierarchy (see cshims_ch_internal.h).
 *
 * Separators come from unit-capacity max flows between the two ends of each part (the ends chosen by a double-sweep
 * BFS, so no coordinates are needed): the same idea as inertial flow, with graph distance in place of a direction.
 * Each side holds at least `band` of the part, so the recursion is O(log n) deep.
 */
#include "cshims_ch_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CLS_MID = 0, CLS_SOURCE = 1, CLS_SINK = 2 };
#define FLOW_INF (1 << 30)

typedef struct {
    int32_t n;
    const size_t *start;
    const int32_t *adj;
    int32_t *perm;     /* the parts, in place; the order at the end */
    uint32_t *mark;    /* == stamp: a member of the part being split */
    uint32_t stamp;
    int32_t *loc;      /* a member's index in its part */
    int32_t *da, *db, *queue, *tmp, *fid, *count;
    uint8_t *cls;
    /* Flow network of one part: middle node i is in = 2 fid[i], out = 2 fid[i] + 1; then source and sink. */
    int32_t *fstart, *level, *iter, *stack; /* 2 n + 4 each: enough for any part */
    int32_t *to, *cap, *rev;
    size_t arcs_size;
    /* Parts still to split: offset and length in perm. */
    int32_t *part_off, *part_len;
    size_t parts, parts_size;
    int trace; /* RSC_CH_TRACE: the big splits on stderr */
    double flow_time[21], flow_arcs[21]; /* by log2 of the part size */
    int64_t phases, paths, visits;       /* of the last flow */
} nd;

static int grow_to(void **p, size_t *size, size_t need, size_t elem) {
    if (need <= *size) return 0;
    size_t s = *size ? *size : 64;
    while (s < need) s *= 2;
    void *q = realloc(*p, s * elem);
    if (!q) return -1;
    *p = q;
    *size = s;
    return 0;
}

static int push_part(nd *d, int32_t off, int32_t len) {
    if (len <= 2) return 0; /* nothing to separate: any order of two nodes is a valid dissection */
    if (d->parts == d->parts_size) {
        size_t s = d->parts_size ? d->parts_size * 2 : 64;
        int32_t *a = realloc(d->part_off, s * sizeof(int32_t));
        if (!a) return -1;
        d->part_off = a;
        int32_t *b = realloc(d->part_len, s * sizeof(int32_t));
        if (!b) return -1;
        d->part_len = b;
        d->parts_size = s;
    }
    d->part_off[d->parts] = off;
    d->part_len[d->parts] = len;
    d->parts++;
    return 0;
}

/* BFS from local node src over the part's members, appending to queue[at ..]; dist must be -1 for unvisited.
 * Returns the new end of the queue. */
static int32_t bfs(nd *d, int32_t off, int32_t src, int32_t *dist, int32_t at) {
    int32_t head = at, tail = at;
    dist[src] = 0;
    d->queue[tail++] = src;
    while (head < tail) {
        const int32_t x = d->queue[head++];
        const int32_t v = d->perm[off + x];
        for (size_t k = d->start[v]; k < d->start[v + 1]; k++) {
            const int32_t w = d->adj[k];
            if (d->mark[w] != d->stamp) continue;
            const int32_t j = d->loc[w];
            if (dist[j] < 0) {
                dist[j] = dist[x] + 1;
                d->queue[tail++] = j;
            }
        }
    }
    return tail;
}

/* Enumerates the flow network's arcs (pass 0: counts per node; pass 1: fills). Returns -1 when a source node is
 * adjacent to a sink node (no finite cut). */
static int flow_arcs(nd *d, int32_t off, int32_t len, int32_t s, int32_t t, int pass) {
#define ARC(u, v, c)                                                                    \
    do {                                                                                \
        if (pass == 0) {                                                                \
            d->count[u]++;                                                              \
            d->count[v]++;                                                              \
        } else {                                                                        \
            const int32_t a_ = d->iter[u]++, b_ = d->iter[v]++;                          \
            d->to[a_] = (v);                                                            \
            d->cap[a_] = (c);                                                           \
            d->rev[a_] = b_;                                                            \
            d->to[b_] = (u);                                                            \
            d->cap[b_] = 0;                                                             \
            d->rev[b_] = a_;                                                            \
        }                                                                               \
    } while (0)
    for (int32_t i = 0; i < len; i++) {
        const uint8_t ci = d->cls[i];
        if (ci == CLS_SINK) continue;
        const int32_t v = d->perm[off + i];
        if (ci == CLS_MID) ARC(2 * d->fid[i], 2 * d->fid[i] + 1, 1);
        for (size_t k = d->start[v]; k < d->start[v + 1]; k++) {
            const int32_t w = d->adj[k];
            if (d->mark[w] != d->stamp || w == v) continue;
            const int32_t j = d->loc[w];
            const uint8_t cj = d->cls[j];
            if (ci == CLS_MID) {
                if (cj == CLS_MID) ARC(2 * d->fid[i] + 1, 2 * d->fid[j], FLOW_INF);
                else if (cj == CLS_SINK) ARC(2 * d->fid[i] + 1, t, FLOW_INF);
            } else { /* source */
                if (cj == CLS_MID) ARC(s, 2 * d->fid[j], FLOW_INF);
                else if (cj == CLS_SINK) return -1;
            }
        }
    }
#undef ARC
    return 0;
}

/* Dinic's max flow from s to t over nodes [0, nodes). */
static void max_flow(nd *d, int32_t nodes, int32_t s, int32_t t) {
    for (;;) {
        d->phases++;
        for (int32_t u = 0; u < nodes; u++) d->level[u] = -1;
        int32_t head = 0, tail = 0;
        d->level[s] = 0;
        d->queue[tail++] = s;
        while (head < tail) { /* the whole residual graph: paths of every length are found in one phase */
            const int32_t u = d->queue[head++];
            d->visits++;
            for (int32_t a = d->fstart[u]; a < d->fstart[u + 1]; a++) {
                const int32_t v = d->to[a];
                if (d->cap[a] > 0 && d->level[v] < 0) {
                    d->level[v] = d->level[u] + 1;
                    d->queue[tail++] = v;
                }
            }
        }
        if (d->level[t] < 0) return;
        for (int32_t u = 0; u < nodes; u++) d->iter[u] = d->fstart[u];
        /* Blocking flow: depth-first paths along strictly increasing levels (not only +1: with the whole residual
         * graph labelled, paths of every length are found in one phase; the long, parallel augmenting paths across
         * the dense top took one phase each before), dead ends dropped. The levels still make the admissible graph
         * acyclic, and the phases end when t is unreachable, so the flow is maximum. */
        for (;;) {
            int32_t u = s, sp = 0;
            while (u != t) {
                int32_t a = d->iter[u];
                const int32_t end = d->fstart[u + 1];
                while (a < end && !(d->cap[a] > 0 && (d->to[a] == t || d->level[d->to[a]] > d->level[u]))) a++;
                d->iter[u] = a;
                if (a == end) {
                    d->level[u] = -1;
                    if (sp == 0) break;
                    const int32_t back = d->stack[--sp];
                    u = d->to[d->rev[back]];
                    d->iter[u]++;
                    continue;
                }
                d->stack[sp++] = a;
                u = d->to[a];
            }
            if (u != t) break;
            d->paths++;
            int32_t f = FLOW_INF;
            for (int32_t k = 0; k < sp; k++)
                if (d->cap[d->stack[k]] < f) f = d->cap[d->stack[k]];
            for (int32_t k = 0; k < sp; k++) {
                d->cap[d->stack[k]] -= f;
                d->cap[d->rev[d->stack[k]]] += f;
            }
        }
    }
}

/* Splits the part perm[off ..< off + len] into components, or into two sides and a separator (written last).
 * Pushes the new parts. Returns 0 or -1 when memory runs out. */
static int split(nd *d, int32_t off, int32_t len, double band) {
    if (++d->stamp == 0) {
        memset(d->mark, 0, sizeof(uint32_t) * (size_t)d->n);
        d->stamp = 1;
    }
    for (int32_t i = 0; i < len; i++) {
        d->mark[d->perm[off + i]] = d->stamp;
        d->loc[d->perm[off + i]] = i;
    }
    for (int32_t i = 0; i < len; i++) d->da[i] = -1;
    int32_t reached = bfs(d, off, 0, d->da, 0);
    if (reached < len) { /* components, each a part of its own */
        int32_t at = reached;
        for (int32_t i = 0; i < len; i++)
            if (d->da[i] < 0) at = bfs(d, off, i, d->da, at);
        for (int32_t k = 0; k < len; k++) d->tmp[k] = d->perm[off + d->queue[k]];
        memcpy(d->perm + off, d->tmp, sizeof(int32_t) * (size_t)len);
        /* Component boundaries: BFS distance 0 starts one. */
        int32_t first = 0;
        for (int32_t k = 1; k <= len; k++) {
            if (k == len || d->da[d->loc[d->perm[off + k]]] == 0) {
                if (push_part(d, off + first, k - first)) return -1;
                first = k;
            }
        }
        return 0;
    }
    const int32_t a = d->queue[len - 1];
    for (int32_t i = 0; i < len; i++) d->da[i] = -1;
    bfs(d, off, a, d->da, 0);
    const int32_t b = d->queue[len - 1];
    for (int32_t i = 0; i < len; i++) d->db[i] = -1;
    bfs(d, off, b, d->db, 0);
    /* Order by key = da - db (in [-D, D], D = da[b]) with a counting sort into tmp. */
    const int32_t D = d->da[b];
    for (int32_t k = 0; k <= 2 * D; k++) d->count[k] = 0;
    for (int32_t i = 0; i < len; i++) d->count[d->da[i] - d->db[i] + D]++;
    for (int32_t k = 0, sum = 0; k <= 2 * D; k++) {
        const int32_t c = d->count[k];
        d->count[k] = sum;
        sum += c;
    }
    for (int32_t i = 0; i < len; i++) d->tmp[d->count[d->da[i] - d->db[i] + D]++] = i;
    int32_t k = (int32_t)(band * len);
    if (k < 1) k = 1;
    if (k > len / 2) k = len / 2;
    int32_t s = 0, t = 0, nodes = 0;
    for (int attempt = 0;; attempt++) {
        int32_t mid = 0;
        for (int32_t q = 0; q < len; q++) {
            const int32_t i = d->tmp[q];
            d->cls[i] = q < k ? CLS_SOURCE : q >= len - k ? CLS_SINK : CLS_MID;
            if (d->cls[i] == CLS_MID) d->fid[i] = mid++;
        }
        s = 2 * mid;
        t = s + 1;
        nodes = s + 2;
        memset(d->count, 0, sizeof(int32_t) * (size_t)nodes);
        if (flow_arcs(d, off, len, s, t, 0) == 0) break;
        if (k > 1 && attempt == 0) { /* the ends touch: try the two extreme nodes alone */
            k = 1;
            continue;
        }
        return 0; /* no separator (a clique-like part): any order is valid */
    }
    size_t arcs = 0;
    for (int32_t u = 0; u < nodes; u++) arcs += (size_t)d->count[u];
    if (arcs >= (size_t)INT32_MAX) return -1;
    size_t sz = d->arcs_size;
    if (grow_to((void **)&d->to, &sz, arcs + 1, sizeof(int32_t))) return -1;
    sz = d->arcs_size;
    if (grow_to((void **)&d->cap, &sz, arcs + 1, sizeof(int32_t))) return -1;
    sz = d->arcs_size;
    if (grow_to((void **)&d->rev, &sz, arcs + 1, sizeof(int32_t))) return -1;
    d->arcs_size = sz;
    d->fstart[0] = 0;
    for (int32_t u = 0; u < nodes; u++) d->fstart[u + 1] = d->fstart[u] + d->count[u];
    for (int32_t u = 0; u < nodes; u++) d->iter[u] = d->fstart[u];
    flow_arcs(d, off, len, s, t, 1);
    const double tf = d->trace ? rsc_ch_cpu_seconds() : 0;
    max_flow(d, nodes, s, t);
    if (d->trace) {
        const double dt = rsc_ch_cpu_seconds() - tf;
        int b = 0;
        while (b < 20 && (1 << (b + 1)) <= len) b++;
        d->flow_time[b] += dt;
        d->flow_arcs[b] += (double)arcs;
    }
    /* Residual reachability from the source: level >= 0. */
    for (int32_t u = 0; u < nodes; u++) d->level[u] = -1;
    int32_t head = 0, tail = 0;
    d->level[s] = 0;
    d->queue[tail++] = s;
    while (head < tail) {
        const int32_t u = d->queue[head++];
        for (int32_t e = d->fstart[u]; e < d->fstart[u + 1]; e++)
            if (d->cap[e] > 0 && d->level[d->to[e]] < 0) {
                d->level[d->to[e]] = 0;
                d->queue[tail++] = d->to[e];
            }
    }
    /* Sides: A = source nodes and middle nodes whose out copy is reachable; separator: in reachable, out not. */
    int32_t na = 0, nb = 0, nc = 0;
    for (int32_t i = 0; i < len; i++) {
        int side; /* 0 A, 1 B, 2 separator */
        if (d->cls[i] == CLS_SOURCE) side = 0;
        else if (d->cls[i] == CLS_SINK) side = 1;
        else if (d->level[2 * d->fid[i]] < 0) side = 1;
        else side = d->level[2 * d->fid[i] + 1] >= 0 ? 0 : 2;
        d->da[i] = side;
        if (side == 0) na++;
        else if (side == 1) nb++;
        else nc++;
    }
    int32_t pa = 0, pb = na, pc = na + nb;
    for (int32_t i = 0; i < len; i++) {
        const int32_t v = d->perm[off + i];
        if (d->da[i] == 0) d->tmp[pa++] = v;
        else if (d->da[i] == 1) d->tmp[pb++] = v;
        else d->tmp[pc++] = v;
    }
    memcpy(d->perm + off, d->tmp, sizeof(int32_t) * (size_t)len);
    if (d->trace && len >= 20000)
        fprintf(stderr, "nd split %d: sides %d / %d, separator %d; %lld phases %lld paths %lld bfs visits, %d flow nodes\n", len, na, nb, nc, (long long)d->phases, (long long)d->paths, (long long)d->visits, nodes);
    d->phases = d->paths = d->visits = 0;
    if (push_part(d, off, na)) return -1;
    if (push_part(d, off + na, nb)) return -1;
    return 0;
}

int rsc_ch_nd_order(int32_t n, const size_t *adj_start, const int32_t *adj, double band, int32_t *order,
                    int (*is_canceled)(void *user), void *user) {
    nd d;
    memset(&d, 0, sizeof d);
    d.n = n;
    d.start = adj_start;
    d.adj = adj;
    d.perm = order;
    d.trace = getenv("RSC_CH_TRACE") != NULL;
    for (int32_t v = 0; v < n; v++) order[v] = v;
    if (n <= 2) return 0;
    if (band <= 0 || band > 0.5) band = 0.25;
    const size_t sn = (size_t)n;
    int rc = -1;
    d.mark = calloc(sn, sizeof(uint32_t));
    d.loc = malloc(sn * sizeof(int32_t));
    d.da = malloc(sn * sizeof(int32_t));
    d.db = malloc(sn * sizeof(int32_t));
    d.tmp = malloc(sn * sizeof(int32_t));
    d.fid = malloc(sn * sizeof(int32_t));
    d.cls = malloc(sn);
    /* Flow nodes: at most 2 n + 2; count doubles as the counting sort's buckets (2 n + 1). */
    const size_t fn = 2 * sn + 4;
    d.queue = malloc(fn * sizeof(int32_t));
    d.count = malloc(fn * sizeof(int32_t));
    d.fstart = malloc((fn + 1) * sizeof(int32_t));
    d.level = malloc(fn * sizeof(int32_t));
    d.iter = malloc(fn * sizeof(int32_t));
    d.stack = malloc(fn * sizeof(int32_t));
    if (!d.mark || !d.loc || !d.da || !d.db || !d.tmp || !d.fid || !d.cls || !d.queue || !d.count || !d.fstart ||
        !d.level || !d.iter || !d.stack)
        goto done;
    if (push_part(&d, 0, n)) goto done;
    while (d.parts > 0) {
        d.parts--;
        const int32_t off = d.part_off[d.parts], len = d.part_len[d.parts];
        if (len > 4096 && is_canceled && is_canceled(user)) {
            rc = 1;
            goto done;
        }
        if (split(&d, off, len, band)) goto done;
    }
    rc = 0;
    if (d.trace)
        for (int b = 0; b < 21; b++)
            if (d.flow_time[b] > 0.05)
                fprintf(stderr, "nd flows, parts of 2^%d nodes: %.2f s, %.0f arcs\n", b, d.flow_time[b], d.flow_arcs[b]);
done:
    free(d.mark);
    free(d.loc);
    free(d.da);
    free(d.db);
    free(d.tmp);
    free(d.fid);
    free(d.cls);
    free(d.queue);
    free(d.count);
    free(d.fstart);
    free(d.level);
    free(d.iter);
    free(d.stack);
    free(d.to);
    free(d.cap);
    free(d.rev);
    free(d.part_off);
    free(d.part_len);
    return rc;
}
