/* Hidden-Markov map matching (Newson & Krumm 2009) hot loop: candidates from the segment index, Gaussian emission,
 * exponential transition on |route - great circle|, bounded one-to-many route searches on the directed arc graph
 * (one-ways, turn restrictions) cached per source arc, Viterbi in log space with splitting and outlier dropping.
 * See cshims_match.h for the contract. */
#include "cshims.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rsc_match_graph {
    size_t node_count, arc_count, edge_count;
    int32_t *out_start, *out_arcs, *arc_tail, *arc_head;
    double *arc_length;
    /* The arc running the same road the other way (a ^ 1, or a separate one-way edge with swapped ends and about
     * the same length), -1 when none. */
    int32_t *twin;
    /* Turn restrictions grouped by from edge: r_*[r_start[e] ..< r_start[e + 1]]. NULL when there are none. */
    int32_t *r_start, *r_via, *r_to;
    int8_t *r_mandatory;
    int borrowed; /* rsc_match_graph_borrow: the arrays belong to the caller */
    /* Node positions (local metres) for the goal-directed search; NULL when not given. */
    double *node_x, *node_y;
};

/* One Viterbi state: a candidate arc position of one fix. */
typedef struct rsc_state {
    int32_t arc;
    int32_t back;   /* predecessor state in the previous layer, -1 at a sub-match start */
    int32_t entry;  /* how it was reached: -1 same arc, -2 U-turn in place, >= 0 route entry of the search pool */
    int32_t fix;
    double offset, distance, x, y, emission, score;
    double route, gc; /* route and straight distance of the best incoming transition */
    double pen;       /* penalties (U-turns, falling back) on the best incoming transition, metres */
    double peak;      /* furthest offset reached on this arc along the best chain (falling back counts from it) */
} rsc_state;

/* One arc settled by a route search: distance from the source arc's head to this arc's tail. */
typedef struct rsc_entry {
    int32_t arc;
    int32_t parent; /* entry of the previous arc on the route, -1 when it leaves the source arc directly */
    double dist;    /* metres driven */
    double pen;     /* U-turn penalties on the way (metres), kept apart from the distance */
} rsc_entry;

typedef struct rsc_heap_item {
    double key; /* dist + pen (joint search: g + the goal-directed estimate) */
    double dist;
    double g;   /* joint search: the label's source offset + dist + pen */
    int32_t arc;
    int32_t parent;
    int32_t src; /* joint search: index of the source state in the previous layer */
} rsc_heap_item;

typedef struct rsc_layer {
    int32_t fix, start, count;
} rsc_layer;

struct rsc_matcher {
    const rsc_match_graph *g;
    rsc_query *query;
    rsc_candidate *cands;
    int cand_cap;
    /* Viterbi states of the current sub-match, and its layers. */
    rsc_state *states;
    size_t state_n, state_cap;
    rsc_layer *layers;
    size_t layer_n, layer_cap;
    /* Route search cache per source arc (valid when c_stamp == run stamp). */
    uint32_t *c_stamp;
    int32_t *c_start, *c_count;
    double *c_bound;
    rsc_entry *entries;
    size_t entry_n, entry_cap;
    uint32_t run_stamp;
    /* Dijkstra scratch. */
    uint32_t *d_stamp;
    double *d_best;
    uint32_t search_stamp;
    rsc_heap_item *heap;
    size_t heap_n, heap_cap;
    /* Target lookup for the layer being built: t_idx[arc] valid when t_stamp[arc] == layer stamp. */
    uint32_t *t_stamp;
    int32_t *t_idx;
    uint32_t layer_stamp;
    /* Results. */
    rsc_match_fix *fixes;
    size_t fix_cap;
    rsc_match_sub *subs;
    size_t sub_n, sub_cap;
    rsc_path_step *path;
    size_t path_n, path_cap;
    int32_t *chain;
    size_t chain_cap;
    /* Fixes too close to the last scored fix: they take the match of layer held_layer[k]. */
    int32_t *held_fix, *held_layer;
    size_t held_n, held_cap, held_layer_cap;
    const rsc_match_params *p;
    const double *x, *y, *t, *course, *speed;
    size_t n;
};

/* ---------------------------------------------------------------------------------------------------------- */

static int rsc_grow(void **buf, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 1;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    void *g = realloc(*buf, c * size);
    if (!g) return 0;
    *buf = g;
    *cap = c;
    return 1;
}
#define RSC_GROW(ptr, cap, need) rsc_grow((void **)&(ptr), &(cap), (need), sizeof *(ptr))

static void rsc_graph_free(rsc_match_graph *g) {
    free(g->node_x); free(g->node_y);
    if (g->borrowed) { free(g); return; }
    free(g->out_start); free(g->out_arcs); free(g->arc_tail); free(g->arc_head); free(g->arc_length); free(g->twin);
    free(g->r_start); free(g->r_via); free(g->r_to); free(g->r_mandatory);
    free(g);
}

rsc_match_graph *rsc_match_graph_create(size_t node_count, size_t arc_count, const int32_t *out_start,
                                        const int32_t *out_arcs, const int32_t *arc_tail, const int32_t *arc_head,
                                        const double *arc_length, const int32_t *reverse_arc,
                                        size_t restriction_count,
                                        const int32_t *restriction_from_edge, const int32_t *restriction_via,
                                        const int32_t *restriction_to_edge, const int8_t *restriction_mandatory) {
    if (!out_start || !arc_tail || !arc_head || !arc_length || !reverse_arc || arc_count % 2 != 0 || arc_count > INT32_MAX / 2 ||
        node_count > INT32_MAX - 1)
        return NULL;
    size_t out_n = (size_t)out_start[node_count];
    if (out_n > 0 && !out_arcs) return NULL;
    if (restriction_count > 0 &&
        (!restriction_from_edge || !restriction_via || !restriction_to_edge || !restriction_mandatory))
        return NULL;
    rsc_match_graph *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->node_count = node_count;
    g->arc_count = arc_count;
    g->edge_count = arc_count / 2;
    g->out_start = malloc((node_count + 1) * sizeof(int32_t));
    g->out_arcs = malloc((out_n ? out_n : 1) * sizeof(int32_t));
    g->arc_tail = malloc((arc_count ? arc_count : 1) * sizeof(int32_t));
    g->arc_head = malloc((arc_count ? arc_count : 1) * sizeof(int32_t));
    g->arc_length = malloc((arc_count ? arc_count : 1) * sizeof(double));
    if (!g->out_start || !g->out_arcs || !g->arc_tail || !g->arc_head || !g->arc_length) { rsc_graph_free(g); return NULL; }
    memcpy(g->out_start, out_start, (node_count + 1) * sizeof(int32_t));
    if (out_n) memcpy(g->out_arcs, out_arcs, out_n * sizeof(int32_t));
    memcpy(g->arc_tail, arc_tail, arc_count * sizeof(int32_t));
    memcpy(g->arc_head, arc_head, arc_count * sizeof(int32_t));
    memcpy(g->arc_length, arc_length, arc_count * sizeof(double));
    for (size_t i = 0; i < out_n; i++) {
        if (out_arcs[i] < 0 || (size_t)out_arcs[i] >= arc_count) { rsc_graph_free(g); return NULL; }
    }
    for (size_t a = 0; a < arc_count; a++) {
        if ((arc_tail[a] >= 0 && (size_t)arc_tail[a] >= node_count) ||
            (arc_head[a] >= 0 && (size_t)arc_head[a] >= node_count) || (arc_tail[a] < 0) != (arc_head[a] < 0)) {
            rsc_graph_free(g);
            return NULL;
        }
    }
    g->twin = malloc((arc_count ? arc_count : 1) * sizeof(int32_t));
    if (!g->twin) { rsc_graph_free(g); return NULL; }
    for (size_t a = 0; a < arc_count; a++) {
        int32_t r = reverse_arc[a];
        if (r < -1 || (r >= 0 && ((size_t)r >= arc_count || arc_tail[r] < 0))) { rsc_graph_free(g); return NULL; }
        g->twin[a] = arc_tail[a] < 0 ? -1 : r;
    }
    if (restriction_count > 0) {
        size_t ec = g->edge_count;
        g->r_start = calloc(ec + 1, sizeof(int32_t));
        g->r_via = malloc(restriction_count * sizeof(int32_t));
        g->r_to = malloc(restriction_count * sizeof(int32_t));
        g->r_mandatory = malloc(restriction_count);
        if (!g->r_start || !g->r_via || !g->r_to || !g->r_mandatory) { rsc_graph_free(g); return NULL; }
        for (size_t k = 0; k < restriction_count; k++) {
            int32_t e = restriction_from_edge[k];
            if (e < 0 || (size_t)e >= ec) { rsc_graph_free(g); return NULL; }
            g->r_start[e + 1]++;
        }
        for (size_t e = 0; e < ec; e++) g->r_start[e + 1] += g->r_start[e];
        int32_t *fill = malloc((ec ? ec : 1) * sizeof(int32_t));
        if (!fill) { rsc_graph_free(g); return NULL; }
        memcpy(fill, g->r_start, ec * sizeof(int32_t));
        for (size_t k = 0; k < restriction_count; k++) {
            int32_t at = fill[restriction_from_edge[k]]++;
            g->r_via[at] = restriction_via[k];
            g->r_to[at] = restriction_to_edge[k];
            g->r_mandatory[at] = restriction_mandatory[k] ? 1 : 0;
        }
        free(fill);
    }
    return g;
}

rsc_match_graph *rsc_match_graph_borrow(size_t node_count, size_t arc_count, const int32_t *out_start,
                                        const int32_t *out_arcs, const int32_t *arc_tail, const int32_t *arc_head,
                                        const double *arc_length, const int32_t *twin, size_t restriction_count,
                                        const int32_t *r_start, const int32_t *r_via, const int32_t *r_to,
                                        const int8_t *r_mandatory) {
    if (!out_start || !arc_tail || !arc_head || !arc_length || !twin || arc_count % 2 != 0 ||
        arc_count > INT32_MAX / 2 || node_count > INT32_MAX - 1 || out_start[0] != 0 ||
        (out_start[node_count] > 0 && !out_arcs) ||
        (restriction_count > 0 && (!r_start || !r_via || !r_to || !r_mandatory)) ||
        (restriction_count > 0 && (r_start[0] != 0 || (size_t)r_start[arc_count / 2] != restriction_count)))
        return NULL;
    rsc_match_graph *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->borrowed = 1;
    g->node_count = node_count;
    g->arc_count = arc_count;
    g->edge_count = arc_count / 2;
    g->out_start = (int32_t *)(uintptr_t)out_start;
    g->out_arcs = (int32_t *)(uintptr_t)out_arcs;
    g->arc_tail = (int32_t *)(uintptr_t)arc_tail;
    g->arc_head = (int32_t *)(uintptr_t)arc_head;
    g->arc_length = (double *)(uintptr_t)arc_length;
    g->twin = (int32_t *)(uintptr_t)twin;
    if (restriction_count > 0) {
        g->r_start = (int32_t *)(uintptr_t)r_start;
        g->r_via = (int32_t *)(uintptr_t)r_via;
        g->r_to = (int32_t *)(uintptr_t)r_to;
        g->r_mandatory = (int8_t *)(uintptr_t)r_mandatory;
    }
    return g;
}

int rsc_match_graph_set_node_positions(rsc_match_graph *g, const double *x, const double *y) {
    if (!g || !x || !y) return RSC_EINVAL;
    size_t n = g->node_count ? g->node_count : 1;
    for (size_t i = 0; i < g->node_count; i++)
        if (!isfinite(x[i]) || !isfinite(y[i])) return RSC_EINVAL;
    double *nx = malloc(n * sizeof(double)), *ny = malloc(n * sizeof(double));
    if (!nx || !ny) { free(nx); free(ny); return RSC_ENOMEM; }
    if (g->node_count) {
        memcpy(nx, x, g->node_count * sizeof(double));
        memcpy(ny, y, g->node_count * sizeof(double));
    }
    free(g->node_x); free(g->node_y);
    g->node_x = nx;
    g->node_y = ny;
    return RSC_OK;
}

void rsc_match_graph_destroy(rsc_match_graph *g) {
    if (g) rsc_graph_free(g);
}

int rsc_match_turn_allowed(const rsc_match_graph *g, int32_t from, int32_t to) {
    if (!g->r_start) return 1;
    int32_t e = from >> 1, s = g->r_start[e], end = g->r_start[e + 1];
    if (s == end) return 1;
    int32_t via = g->arc_head[from], te = to >> 1;
    int has_mandatory = 0, mandatory_ok = 0;
    for (int32_t k = s; k < end; k++) {
        if (g->r_via[k] != via) continue;
        if (g->r_mandatory[k]) {
            has_mandatory = 1;
            if (g->r_to[k] == te) mandatory_ok = 1;
        } else if (g->r_to[k] == te) {
            return 0;
        }
    }
    return !has_mandatory || mandatory_ok;
}

/* ---------------------------------------------------------------------------------------------------------- */

rsc_matcher *rsc_matcher_create(const rsc_match_graph *g, rsc_query *query) {
    if (!g || !query) return NULL;
    rsc_matcher *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->g = g;
    m->query = query;
    size_t na = g->arc_count ? g->arc_count : 1;
    m->c_stamp = calloc(na, sizeof(uint32_t));
    m->c_start = malloc(na * sizeof(int32_t));
    m->c_count = malloc(na * sizeof(int32_t));
    m->c_bound = malloc(na * sizeof(double));
    m->d_stamp = calloc(na, sizeof(uint32_t));
    m->d_best = malloc(na * sizeof(double));
    m->t_stamp = calloc(na, sizeof(uint32_t));
    m->t_idx = malloc(na * sizeof(int32_t));
    m->cand_cap = 256;
    m->cands = malloc((size_t)m->cand_cap * sizeof(rsc_candidate));
    if (!m->c_stamp || !m->c_start || !m->c_count || !m->c_bound || !m->d_stamp || !m->d_best || !m->t_stamp ||
        !m->t_idx || !m->cands) {
        rsc_matcher_destroy(m);
        return NULL;
    }
    return m;
}

void rsc_matcher_destroy(rsc_matcher *m) {
    if (!m) return;
    free(m->cands); free(m->states); free(m->layers); free(m->c_stamp); free(m->c_start); free(m->c_count);
    free(m->c_bound); free(m->entries); free(m->d_stamp); free(m->d_best); free(m->heap); free(m->t_stamp);
    free(m->t_idx); free(m->fixes); free(m->subs); free(m->path); free(m->chain); free(m->held_fix); free(m->held_layer);
    free(m);
}

const rsc_match_fix *rsc_matcher_fixes(const rsc_matcher *m) { return m->fixes; }
const rsc_match_sub *rsc_matcher_subs(const rsc_matcher *m) { return m->subs; }
const rsc_path_step *rsc_matcher_path(const rsc_matcher *m) { return m->path; }
size_t rsc_matcher_path_count(const rsc_matcher *m) { return m->path_n; }

/* ---------------------------------------------------------------------------------------------------------- */
/* Bounded route search from the head of `src` (Dijkstra over arcs), results appended to the entry pool. */

static int rsc_heap_push2(rsc_matcher *m, double key, double dist, double gv, int32_t arc, int32_t parent, int32_t src) {
    if (!RSC_GROW(m->heap, m->heap_cap, m->heap_n + 1)) return 0;
    size_t i = m->heap_n++;
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (m->heap[up].key <= key) break;
        m->heap[i] = m->heap[up];
        i = up;
    }
    m->heap[i].key = key;
    m->heap[i].dist = dist;
    m->heap[i].g = gv;
    m->heap[i].arc = arc;
    m->heap[i].parent = parent;
    m->heap[i].src = src;
    return 1;
}

static inline int rsc_heap_push(rsc_matcher *m, double key, double dist, int32_t arc, int32_t parent) {
    return rsc_heap_push2(m, key, dist, key, arc, parent, -1);
}

static rsc_heap_item rsc_heap_pop(rsc_matcher *m) {
    rsc_heap_item top = m->heap[0];
    rsc_heap_item last = m->heap[--m->heap_n];
    size_t i = 0, n = m->heap_n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && m->heap[c + 1].key < m->heap[c].key) c++;
        if (m->heap[c].key >= last.key) break;
        m->heap[i] = m->heap[c];
        i = c;
    }
    if (n > 0) m->heap[i] = last;
    return top;
}

/* Relaxes every arc leaving the head of `from` (reached after `dist` metres and `pen` metres of penalty, as entry
 * `parent`); the search orders by dist + pen. */
static int rsc_relax(rsc_matcher *m, int32_t from, double dist, double pen, int32_t parent, double bound) {
    const rsc_match_graph *g = m->g;
    int32_t h = g->arc_head[from], origin = g->arc_tail[from];
    int32_t s = g->out_start[h], e = g->out_start[h + 1];
    /* A U-turn goes straight back to the node it came from (same edge reversed, or a twin one-way edge); it costs
     * the penalty even at a dead end, so that a short spur is no cheaper than turning where the track turns. */
    for (int32_t k = s; k < e; k++) {
        int32_t c = g->out_arcs[k];
        double d = dist + pen;
        if (g->arc_head[c] == origin) d += m->p->uturn_penalty;
        if (d > bound) continue;
        if (!rsc_match_turn_allowed(g, from, c)) continue;
        if (m->d_stamp[c] == m->search_stamp && m->d_best[c] <= d) continue;
        m->d_stamp[c] = m->search_stamp;
        m->d_best[c] = d;
        if (!rsc_heap_push(m, d, dist, c, parent)) return 0;
    }
    return 1;
}

/* Makes sure the cache holds the search from `src` to at least `need` metres. Returns 0 on out of memory. */
static int rsc_search(rsc_matcher *m, int32_t src, double need) {
    if (m->c_stamp[src] == m->run_stamp && m->c_bound[src] >= need) return 1;
    double bound = need + m->p->search_floor;
    if (m->c_stamp[src] == m->run_stamp && bound < 2 * m->c_bound[src]) bound = 2 * m->c_bound[src];
    const rsc_match_graph *g = m->g;
    if (++m->search_stamp == 0) {
        memset(m->d_stamp, 0, g->arc_count * sizeof(uint32_t));
        m->search_stamp = 1;
    }
    int32_t start = (int32_t)m->entry_n;
    m->heap_n = 0;
    if (!rsc_relax(m, src, 0.0, 0.0, -1, bound)) return 0;
    while (m->heap_n > 0) {
        rsc_heap_item it = rsc_heap_pop(m);
        if (it.key > m->d_best[it.arc]) continue;         /* stale */
        if (it.key > bound) break;
        /* Mark settled: a key below any reachable distance prevents re-settling. */
        m->d_best[it.arc] = -1.0;
        if (!RSC_GROW(m->entries, m->entry_cap, m->entry_n + 1)) return 0;
        int32_t idx = (int32_t)m->entry_n++;
        m->entries[idx].arc = it.arc;
        m->entries[idx].parent = it.parent;
        m->entries[idx].dist = it.dist;
        m->entries[idx].pen = it.key - it.dist;
        if (!rsc_relax(m, it.arc, it.dist + g->arc_length[it.arc], it.key - it.dist, idx, bound)) return 0;
    }
    m->c_stamp[src] = m->run_stamp;
    m->c_start[src] = start;
    m->c_count[src] = (int32_t)m->entry_n - start;
    m->c_bound[src] = bound;
    return 1;
}

/* ---------------------------------------------------------------------------------------------------------- */

static inline double rsc_angle_diff(double a, double b) {
    double d = fmod(fabs(a - b), 360.0);
    return d > 180.0 ? 360.0 - d : d;
}

static inline int rsc_known(const double *v, size_t i) { return v && isfinite(v[i]); }

/* Builds the candidate states of fix `f` (the nearest roads_max roads within `radius`) at the end of the state pool
 * (not committed). Returns the count, or -1 on out of memory. */
static int rsc_build_layer(rsc_matcher *m, size_t f, double radius, int roads_max) {
    const rsc_match_params *p = m->p;
    const rsc_match_graph *g = m->g;
    /* max_candidates counts roads: a one-way edge whose twin (the same road the other way, a separate edge in
     * networks that draw each direction) is also a candidate does not count twice. Query twice as many edges. */
    int cap = 2 * roads_max < m->cand_cap ? 2 * roads_max : m->cand_cap;
    int k = rsc_query_candidates(m->query, m->x[f], m->y[f], radius, 1, m->cands, cap);
    if (k <= 0) return 0;
    int roads = 0, kept = 0;
    for (int i = 0; i < k; i++) {
        int32_t e = m->cands[i].edge, a = 2 * e;
        if ((size_t)a + 1 >= g->arc_count) continue;
        if (g->arc_tail[a] < 0) a++;
        int32_t t = g->arc_tail[a] >= 0 ? g->twin[a] : -1;
        int twin_kept = 0;
        if (t >= 0 && (t >> 1) != e)
            for (int j = 0; j < kept; j++)
                if (m->cands[j].edge == (t >> 1)) { twin_kept = 1; break; }
        if (!twin_kept) {
            if (roads == roads_max) break;
            roads++;
        }
        m->cands[kept++] = m->cands[i];
    }
    k = kept;
    if (!RSC_GROW(m->states, m->state_cap, m->state_n + 2 * (size_t)k)) return -1;
    int use_heading = rsc_known(m->course, f) && (!rsc_known(m->speed, f) || m->speed[f] >= p->min_heading_speed);
    double inv2h2 = 0.5 / (p->heading_sigma * p->heading_sigma);
    int count = 0;
    for (int i = 0; i < k; i++) {
        const rsc_candidate *c = &m->cands[i];
        for (int dir = 0; dir < 2; dir++) {
            int32_t arc = c->edge * 2 + dir;
            if ((size_t)arc >= g->arc_count || g->arc_tail[arc] < 0) continue;
            rsc_state *s = &m->states[m->state_n + (size_t)count++];
            double len = g->arc_length[arc];
            s->arc = arc;
            s->back = -1;
            s->entry = -1;
            s->fix = (int32_t)f;
            s->offset = dir == 0 ? c->offset : len - c->offset;
            if (s->offset < 0) s->offset = 0;
            if (s->offset > len) s->offset = len;
            s->distance = c->distance;
            s->x = c->x;
            s->y = c->y;
            double z = c->distance / p->sigma, k = p->huber;
            /* Gaussian near the road, Laplacian tail beyond k sigma: a few fixes far off a poorly drawn road
             * do not force a detour. */
            s->emission = (k > 0 && z > k) ? -(k * z - 0.5 * k * k) : -0.5 * z * z;
            if (use_heading) {
                double bearing = dir == 0 ? c->bearing : c->bearing + 180.0;
                double d = rsc_angle_diff(m->course[f], bearing);
                s->emission -= d * d * inv2h2;
            }
            s->score = -INFINITY;
            s->route = 0;
            s->gc = 0;
            s->pen = 0;
            s->peak = s->offset;
        }
    }
    return count;
}

/* Transition score of reaching a state by a route of `d` metres with `pen` metres of penalties from a state scored
 * `from_score`: |route - great circle| (or - the distance the reported speeds travelled, when nearer) over beta. */
static inline double rsc_transition_score(double from_score, double d, double pen, double gc, double travelled,
                                          double inv_beta) {
    double dev = fabs(d - gc);
    if (travelled == travelled) {
        double dv = fabs(d - travelled);
        if (dv < dev) dev = dv;
    }
    return from_score - (dev + pen) * inv_beta;
}

/* One search for a whole transition (used when the fixes are seconds apart): Dijkstra over arcs from every expanded
 * candidate of the previous fix at once, each source starting at beta * (its score below the best), so the label that
 * settles an arc is the source maximising score - (route + penalties) / beta; A* toward the next fix when the graph
 * has node positions (the estimate: straight distance to the fix less the farthest candidate's distance, which never
 * overestimates). It stops when every candidate arc of the next fix is settled, or once any further state would fall
 * joint_beam below the best state found (the linear score bounds the exact one from above). The one approximation: where
 * the winning route is shorter than the straight distance, |route - gc| would rank sources differently; at these
 * distances that is within the candidates' few metres of noise. Returns 0, or -1 on out of memory. */
/* Takes the route from previous state `src` over entry `parent` (-1: straight off the source arc) onto candidate
 * arc `c` as state j's best transition so far: records the route's last arc as its own entry. -1 on out of memory. */
static int rsc_joint_consider(rsc_matcher *m, const rsc_state *prv, rsc_state *cur, int j, int src, int32_t c,
                              int32_t parent, double dist, double pen, double d, double sc, double gc) {
    if (!RSC_GROW(m->entries, m->entry_cap, m->entry_n + 1)) return -1;
    int32_t idx = (int32_t)m->entry_n++;
    m->entries[idx].arc = c;
    m->entries[idx].parent = parent;
    m->entries[idx].dist = dist;
    m->entries[idx].pen = pen;
    cur[j].score = sc;
    cur[j].back = (int32_t)(prv - m->states) + src;
    cur[j].entry = idx;
    cur[j].route = d;
    cur[j].gc = gc;
    cur[j].pen = pen;
    return 0;
}

static int rsc_joint_search(rsc_matcher *m, const rsc_state *prv, int prev_count, rsc_state *cur, int count,
                            double floor_score, double best_prev, double gc, double travelled, double bound,
                            double beta, double inv_beta) {
    const rsc_match_params *p = m->p;
    const rsc_match_graph *g = m->g;
    const double *nx = g->node_x, *ny = g->node_y;
    size_t cf = (size_t)cur[0].fix;
    double fx = m->x[cf], fy = m->y[cf];
    double reach = 0, max_em = -INFINITY;
    for (int j = 0; j < count; j++) {
        if (cur[j].distance > reach) reach = cur[j].distance;
        if (cur[j].emission > max_em) max_em = cur[j].emission;
    }
    double ref = gc;
    if (travelled == travelled && travelled > ref) ref = travelled;
    if (++m->search_stamp == 0) {
        memset(m->d_stamp, 0, g->arc_count * sizeof(uint32_t));
        m->search_stamp = 1;
    }
    m->heap_n = 0;
    int left = count; /* candidate arcs of the next fix not settled yet (each arc is one state) */
    double best_cur = -INFINITY;
    double limit = INFINITY;
    for (int i = 0; i < prev_count; i++) {
        if (!(prv[i].score >= floor_score)) continue;
        int32_t a = prv[i].arc;
        double rem = g->arc_length[a] - prv[i].offset;
        if (rem > bound) continue;
        double lam = beta * (best_prev - prv[i].score);
        int32_t h = g->arc_head[a], origin = g->arc_tail[a];
        /* every arc leaving h has its tail at h: one estimate serves them all */
        double est = 0;
        if (nx) {
            est = sqrt((nx[h] - fx) * (nx[h] - fx) + (ny[h] - fy) * (ny[h] - fy)) - reach;
            if (est < 0) est = 0;
        }
        for (int32_t k = g->out_start[h]; k < g->out_start[h + 1]; k++) {
            int32_t c = g->out_arcs[k];
            double pen = g->arc_head[c] == origin ? p->uturn_penalty : 0.0;
            if (m->t_stamp[c] == m->layer_stamp && rsc_match_turn_allowed(g, a, c)) {
                int j = m->t_idx[c];
                double d = rem + cur[j].offset;
                double sc = rsc_transition_score(prv[i].score, d, pen, gc, travelled, inv_beta);
                if (d <= bound && sc > cur[j].score &&
                    rsc_joint_consider(m, prv, cur, j, i, c, -1, rem, pen, d, sc, gc) < 0)
                    return -1;
            }
            if (rem + est > bound) continue;
            if (!rsc_match_turn_allowed(g, a, c)) continue;
            double gv = lam + rem + pen;
            if (m->d_stamp[c] == m->search_stamp && m->d_best[c] <= gv) continue;
            m->d_stamp[c] = m->search_stamp;
            m->d_best[c] = gv;
            if (!rsc_heap_push2(m, gv + est, rem, gv, c, -1, i)) return -1;
        }
    }
    while (m->heap_n > 0) {
        rsc_heap_item it = rsc_heap_pop(m);
        if (it.g > m->d_best[it.arc]) continue; /* stale (settled arcs hold -1) */
        if (it.key > limit) break;
        m->d_best[it.arc] = -1.0;
        if (!RSC_GROW(m->entries, m->entry_cap, m->entry_n + 1)) return -1;
        int32_t idx = (int32_t)m->entry_n++;
        double lam = beta * (best_prev - prv[it.src].score);
        double pen = it.g - lam - it.dist;
        m->entries[idx].arc = it.arc;
        m->entries[idx].parent = it.parent;
        m->entries[idx].dist = it.dist;
        m->entries[idx].pen = pen;
        if (m->t_stamp[it.arc] == m->layer_stamp) {
            int j = m->t_idx[it.arc];
            double d = it.dist + cur[j].offset;
            if (d <= bound) {
                double sc = rsc_transition_score(prv[it.src].score, d, pen, gc, travelled, inv_beta);
                if (sc > cur[j].score) {
                    cur[j].score = sc;
                    cur[j].back = (int32_t)(prv - m->states) + it.src;
                    cur[j].entry = idx;
                    cur[j].route = d;
                    cur[j].gc = gc;
                    cur[j].pen = pen;
                }
            }
            if (cur[j].score > -INFINITY && cur[j].score + cur[j].emission > best_cur) {
                best_cur = cur[j].score + cur[j].emission;
                /* a label keyed K yields at most best_prev - (K - ref) / beta + max_em */
                limit = ref + beta * (best_prev + max_em - best_cur + p->joint_beam);
            }
            if (--left == 0) break;
        }
        /* relax the arcs leaving this one's head */
        double dist = it.dist + g->arc_length[it.arc];
        int32_t h = g->arc_head[it.arc], origin = g->arc_tail[it.arc];
        /* every arc leaving h has its tail at h: one estimate and one bound test serve them all */
        double est = 0;
        if (nx) {
            est = sqrt((nx[h] - fx) * (nx[h] - fx) + (ny[h] - fy) * (ny[h] - fy)) - reach;
            if (est < 0) est = 0;
        }
        if (dist + est > bound) continue;
        for (int32_t k = g->out_start[h]; k < g->out_start[h + 1]; k++) {
            int32_t c = g->out_arcs[k];
            double pc = g->arc_head[c] == origin ? p->uturn_penalty : 0.0;
            double gv = it.g + g->arc_length[it.arc] + pc;
            if (m->t_stamp[c] == m->layer_stamp && !(m->d_stamp[c] == m->search_stamp && m->d_best[c] < 0)) {
                /* Every label arriving at a candidate arc is scored exactly (|route - gc|), not only the one
                 * that settles it: where routes are shorter than the straight line the ranking differs. */
                if (!rsc_match_turn_allowed(g, it.arc, c)) continue;
                int j = m->t_idx[c];
                double d = dist + cur[j].offset;
                double sc = rsc_transition_score(prv[it.src].score, d, pen + pc, gc, travelled, inv_beta);
                if (d <= bound && sc > cur[j].score &&
                    rsc_joint_consider(m, prv, cur, j, it.src, c, idx, dist, pen + pc, d, sc, gc) < 0)
                    return -1;
            }
            if (m->d_stamp[c] == m->search_stamp && m->d_best[c] <= gv) continue;
            if (!rsc_match_turn_allowed(g, it.arc, c)) continue;
            m->d_stamp[c] = m->search_stamp;
            m->d_best[c] = gv;
            if (!rsc_heap_push2(m, gv + est, dist, gv, c, idx, it.src)) return -1;
        }
    }
    return 0;
}

/* Scores the uncommitted layer (count states at state_n) from the committed layer `prev`. Returns 1 when some state is
 * reachable, 0 when none is, -1 on out of memory. */
static int rsc_transition(rsc_matcher *m, const rsc_layer *prev, int count) {
    const rsc_match_params *p = m->p;
    const rsc_match_graph *g = m->g;
    rsc_state *cur = &m->states[m->state_n];
    size_t pf = (size_t)prev->fix, cf = (size_t)cur[0].fix;
    double dx = m->x[cf] - m->x[pf], dy = m->y[cf] - m->y[pf];
    double gc = sqrt(dx * dx + dy * dy);
    double dt = (m->t && isfinite(m->t[cf]) && isfinite(m->t[pf])) ? m->t[cf] - m->t[pf] : NAN;
    double bound = fmax(p->distance_factor * gc, gc + p->search_floor);
    if (isfinite(dt) && dt >= 0 && p->max_speed > 0) {
        /* |route - great circle| cannot exceed what the vehicle could drive in the interval (OSRM's rule). */
        double limit = gc + p->max_speed * (dt > 1.0 ? dt : 1.0);
        if (limit < bound) bound = limit;
    }
    /* Expected travelled distance from the speeds, when both fixes report one. */
    double travelled = NAN;
    if (isfinite(dt) && rsc_known(m->speed, cf) && rsc_known(m->speed, pf)) travelled = 0.5 * (m->speed[cf] + m->speed[pf]) * dt;
    double interval = isfinite(dt) ? dt : gc / 10.0;
    double beta = p->beta + p->beta_per_second * (interval > 1.0 ? interval - 1.0 : 0.0);
    double inv_beta = 1.0 / beta;

    if (++m->layer_stamp == 0) {
        memset(m->t_stamp, 0, g->arc_count * sizeof(uint32_t));
        m->layer_stamp = 1;
    }
    for (int j = 0; j < count; j++) {
        m->t_stamp[cur[j].arc] = m->layer_stamp;
        m->t_idx[cur[j].arc] = j;
    }
    const rsc_state *prv = &m->states[prev->start];
    double best_prev = -INFINITY;
    for (int i = 0; i < prev->count; i++)
        if (prv[i].score > best_prev) best_prev = prv[i].score;
    double floor_score = best_prev - p->beam;
    double tol = fmax(p->backward_tolerance, 3.0 * p->sigma);

    /* Penalties add to |route - great circle|; inside the distance a penalty could cancel a noisy jump. */
#define RSC_CONSIDER(J, D, PEN, ENTRY)                                                         \
    do {                                                                                       \
        double d_ = (D);                                                                       \
        double dev_ = fabs(d_ - gc);                                                           \
        if (travelled == travelled) {                                                          \
            double dv_ = fabs(d_ - travelled);                                                 \
            if (dv_ < dev_) dev_ = dv_;                                                        \
        }                                                                                      \
        double s_ = prv[i].score - (dev_ + (PEN)) * inv_beta;                                  \
        if (s_ > cur[J].score) {                                                               \
            cur[J].score = s_;                                                                 \
            cur[J].back = (int32_t)(prev->start + i);                                          \
            cur[J].entry = (ENTRY);                                                            \
            cur[J].route = d_;                                                                 \
            cur[J].gc = gc;                                                                    \
            cur[J].pen = (PEN);                                                                \
        }                                                                                      \
    } while (0)

    /* Sparse fixes: one search from every previous candidate at once (below); dense ones: cached per arc. */
    int joint = interval >= p->joint_interval && gc >= 10.0 * p->joint_interval;
    for (int i = 0; i < prev->count; i++) {
        if (!(prv[i].score >= floor_score)) continue;
        int32_t a = prv[i].arc;
        double o = prv[i].offset, len = g->arc_length[a];
        double rem = len - o;
        if (m->t_stamp[a] == m->layer_stamp) {
            int j = m->t_idx[a];
            /* Falling back along the same arc is GPS noise, never a loop: free within the tolerance; beyond it, it
             * costs like a U-turn plus the excess (so a one-way is not driven backwards, and a real reversal turns). */
            double back = o - cur[j].offset;
            double d = back > 0 ? back : -back;
            /* ... and so does falling back more than twice the tolerance from the furthest point reached on the arc:
             * fixes creeping back a little at a time add up to a reversal */
            double fall = prv[i].peak - cur[j].offset;
            double over = back - tol;
            if (fall - 2 * tol > over) over = fall - 2 * tol;
            double pen = over > 0 ? p->uturn_penalty + over : 0.0;
            if (d <= bound) RSC_CONSIDER(j, d, pen, -1);
        }
        int32_t r = g->twin[a];
        if (r >= 0 && m->t_stamp[r] == m->layer_stamp) {
            int j = m->t_idx[r];
            double pos = len - o; /* the same point seen from the reverse arc */
            if (cur[j].offset >= pos - tol) {
                double d = fabs(cur[j].offset - pos);
                if (d <= bound) RSC_CONSIDER(j, d, p->uturn_penalty, -2);
            }
        }
        if (joint) continue;
        double need = bound - rem;
        if (need < 0) continue;
        if (!rsc_search(m, a, need)) return -1;
        const rsc_entry *en = &m->entries[m->c_start[a]];
        int32_t ne = m->c_count[a];
        for (int32_t k = 0; k < ne; k++) {
            if (en[k].dist + en[k].pen > need) break;
            int32_t b = en[k].arc;
            if (m->t_stamp[b] != m->layer_stamp) continue;
            int j = m->t_idx[b];
            double d = rem + en[k].dist + cur[j].offset;
            if (d <= bound) RSC_CONSIDER(j, d, en[k].pen, m->c_start[a] + k);
        }
    }
    if (joint && rsc_joint_search(m, prv, prev->count, cur, count, floor_score, best_prev, gc, travelled, bound, beta,
                                  inv_beta) < 0)
        return -1;
#undef RSC_CONSIDER
    /* Reachable only counts when some reachable state is about as close to the fix as the closest candidate:
     * otherwise the road actually driven is not connected to the hypotheses (missing link) and the track splits. */
    int reachable = 0;
    double best_emission = -INFINITY, best_reached = -INFINITY;
    for (int j = 0; j < count; j++) {
        if (cur[j].entry == -1 && cur[j].back >= 0 && m->states[cur[j].back].peak > cur[j].peak)
            cur[j].peak = m->states[cur[j].back].peak;
        if (cur[j].emission > best_emission) best_emission = cur[j].emission;
        if (cur[j].score > -INFINITY) {
            cur[j].score += cur[j].emission;
            if (cur[j].emission > best_reached) best_reached = cur[j].emission;
        }
    }
    reachable = best_reached > -INFINITY && best_reached >= best_emission - p->disconnect_margin;
    return reachable;
}

/* Whether a scored layer (count states at state_n, rsc_transition result r) should be searched again wider: no state
 * is reachable, or the best one is reached only by turning back (a U-turn or falling back along its arc). */
/* The index of the best reachable state of a layer, or -1 when none is reachable. */
static int rsc_best_state(const rsc_state *layer, int count) {
    int best = -1;
    for (int j = 0; j < count; j++)
        if (layer[j].score > -INFINITY && (best < 0 || layer[j].score > layer[best].score)) best = j;
    return best;
}

static int rsc_needs_recovery(const rsc_matcher *m, int count, int r) {
    if (r == 0) return 1;
    const rsc_state *cur = &m->states[m->state_n];
    int best = rsc_best_state(cur, count);
    return best >= 0 && cur[best].pen > 0;
}

static int rsc_path_push(rsc_matcher *m, int32_t arc) {
    if (!RSC_GROW(m->path, m->path_cap, m->path_n + 1)) return 0;
    rsc_path_step *st = &m->path[m->path_n++];
    st->arc = arc;
    st->from = 0;
    st->to = m->g->arc_length[arc];
    return 1;
}

/* Ends the current sub-match at its last layer: backtracks, writes per-fix results, the path and the statistics. */
static int rsc_finalize(rsc_matcher *m, int32_t sub_index) {
    if (m->layer_n == 0) return 1;
    const rsc_layer *last = &m->layers[m->layer_n - 1];
    int32_t best = -1;
    double best_score = -INFINITY;
    for (int32_t i = 0; i < last->count; i++) {
        if (m->states[last->start + i].score > best_score || best < 0) {
            best_score = m->states[last->start + i].score;
            best = last->start + i;
        }
    }
    if (!RSC_GROW(m->chain, m->chain_cap, m->layer_n)) return 0;
    size_t len = 0;
    for (int32_t s = best; s >= 0; s = m->states[s].back) m->chain[len++] = s;
    if (!RSC_GROW(m->subs, m->sub_cap, m->sub_n + 1)) return 0;
    rsc_match_sub *sub = &m->subs[m->sub_n++];
    memset(sub, 0, sizeof *sub);
    sub->path_start = (int32_t)m->path_n;
    double dist_sum = 0;
    for (size_t k = len; k-- > 0;) {
        const rsc_state *s = &m->states[m->chain[k]];
        rsc_match_fix *fx = &m->fixes[s->fix];
        fx->arc = s->arc;
        fx->sub = sub_index;
        fx->offset = s->offset;
        fx->distance = s->distance;
        fx->x = s->x;
        fx->y = s->y;
        dist_sum += s->distance;
        if (k == len - 1) {
            sub->first_fix = s->fix;
            if (!rsc_path_push(m, s->arc)) return 0;
            m->path[m->path_n - 1].from = s->offset;
            fx->path_index = 0;
            continue;
        }
        sub->great_circle += s->gc;
        sub->deviation += fabs(s->route - s->gc);
        if (s->entry == -2) {
            /* U-turn in place: the last step ends where the previous fix was, the new one starts there. */
            rsc_path_step *last = &m->path[m->path_n - 1];
            double turn = m->states[s->back].offset;
            /* The turn is at the furthest point the fixes reached: the new fix may lie beyond the previous one. */
            double len_before = m->g->arc_length[last->arc], beyond = len_before - s->offset;
            if (beyond > turn) turn = beyond;
            /* ... or a fix held (not scored) between the two, on the way out or back */
            if (m->states[s->back].peak > turn) turn = m->states[s->back].peak;
            int32_t layer = (int32_t)(len - 1 - k) - 1, e = last->arc >> 1;
            for (size_t h = 0; h < m->held_n; h++) {
                if (m->held_layer[h] != layer) continue;
                int32_t f = m->held_fix[h];
                int nc = rsc_query_candidates(m->query, m->x[f], m->y[f], m->p->radius, 1, m->cands, m->cand_cap);
                for (int c = 0; c < nc; c++) {
                    if (m->cands[c].edge != e) continue;
                    double o = (last->arc & 1) ? len_before - m->cands[c].offset : m->cands[c].offset;
                    if (o > turn) turn = o;
                }
            }
            if (turn > len_before) turn = len_before;
            if (turn < last->from) turn = last->from;
            last->to = turn;
            if (!rsc_path_push(m, s->arc)) return 0;
            double from = m->g->arc_length[s->arc] - turn;
            m->path[m->path_n - 1].from = from > 0 ? from : 0;
        } else if (s->entry >= 0) {
            size_t mark = m->path_n;
            for (int32_t e = s->entry; e >= 0; e = m->entries[e].parent)
                if (!rsc_path_push(m, m->entries[e].arc)) return 0;
            /* reverse the appended run into driving order */
            for (size_t a = mark, b = m->path_n - 1; a < b; a++, b--) {
                rsc_path_step tmp = m->path[a];
                m->path[a] = m->path[b];
                m->path[b] = tmp;
            }
        }
        fx->path_index = (int32_t)(m->path_n - 1 - (size_t)sub->path_start);
    }
    for (size_t k = 0; k < m->held_n; k++) {
        const rsc_state *s = &m->states[m->chain[len - 1 - (size_t)m->held_layer[k]]];
        int32_t f = m->held_fix[k];
        rsc_match_fix *fx = &m->fixes[f];
        fx->arc = s->arc;
        fx->sub = sub_index;
        fx->offset = s->offset;
        fx->x = s->x;
        fx->y = s->y;
        fx->distance = sqrt((m->x[f] - s->x) * (m->x[f] - s->x) + (m->y[f] - s->y) * (m->y[f] - s->y));
        fx->path_index = m->fixes[s->fix].path_index;
        fx->held = 1;
        dist_sum += fx->distance;
    }
    const rsc_state *end = &m->states[m->chain[0]];
    sub->last_fix = end->fix;
    if (m->held_n > 0 && m->held_fix[m->held_n - 1] > sub->last_fix) sub->last_fix = m->held_fix[m->held_n - 1];
    sub->matched_fixes = (int32_t)(len + m->held_n);
    sub->mean_distance = dist_sum / (double)(len + m->held_n);
    m->held_n = 0;
    sub->path_count = (int32_t)(m->path_n - (size_t)sub->path_start);
    rsc_path_step *final_step = &m->path[m->path_n - 1];
    final_step->to = end->offset > final_step->from ? end->offset : final_step->from;
    double length = 0;
    for (int32_t k = 0; k < sub->path_count; k++) {
        const rsc_path_step *st = &m->path[sub->path_start + k];
        length += st->to - st->from;
    }
    sub->length = length;
    m->state_n = 0;
    m->layer_n = 0;
    return 1;
}

static int rsc_commit(rsc_matcher *m, size_t f, int count) {
    if (!RSC_GROW(m->layers, m->layer_cap, m->layer_n + 1)) return 0;
    rsc_layer *l = &m->layers[m->layer_n++];
    l->fix = (int32_t)f;
    l->start = (int32_t)m->state_n;
    l->count = count;
    m->state_n += (size_t)count;
    return 1;
}

int rsc_matcher_run(rsc_matcher *m, const rsc_match_params *p, size_t n, const double *x, const double *y,
                    const double *time, const double *course, const double *speed) {
    if (!m || !p || (n > 0 && (!x || !y)) || n > INT32_MAX) return RSC_EINVAL;
    if (!(p->sigma > 0) || !(p->beta > 0) || !(p->radius > 0) || p->max_candidates < 1 || !(p->heading_sigma > 0) ||
        !(p->distance_factor >= 1) || !(p->search_floor >= 0) || !(p->beam > 0) || p->max_outliers < 0 ||
        !(p->uturn_penalty >= 0) || !(p->backward_tolerance >= 0) || !(p->beta_per_second >= 0) || !(p->min_fix_distance >= 0) || !(p->gap_min_speed >= 0) || !(p->disconnect_margin > 0) || !(p->joint_interval >= 0) || !(p->joint_beam > 0) || !(p->recovery_radius >= 0))
        return RSC_EINVAL;
    m->p = p;
    m->x = x; m->y = y; m->t = time; m->course = course; m->speed = speed; m->n = n;
    if (!RSC_GROW(m->fixes, m->fix_cap, n ? n : 1)) return RSC_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        m->fixes[i].arc = -1;
        m->fixes[i].sub = -1;
        m->fixes[i].path_index = -1;
        m->fixes[i].offset = NAN;
        m->fixes[i].distance = NAN;
        m->fixes[i].x = NAN;
        m->fixes[i].y = NAN;
        m->fixes[i].held = 0;
    }
    m->sub_n = 0;
    m->path_n = 0;
    m->state_n = 0;
    m->layer_n = 0;
    m->entry_n = 0;
    m->held_n = 0;
    if (++m->run_stamp == 0) {
        memset(m->c_stamp, 0, m->g->arc_count * sizeof(uint32_t));
        m->run_stamp = 1;
    }
    size_t pending_first = 0;
    int pending = 0;
    size_t f = 0;
    for (;;) {
        if (f >= n) {
            if (pending > 0) {
                if (!rsc_finalize(m, (int32_t)m->sub_n)) return RSC_ENOMEM;
                f = pending_first;
                pending = 0;
                continue;
            }
            break;
        }
        if (!isfinite(x[f]) || !isfinite(y[f])) { f++; continue; }
        if (m->layer_n > 0 && pending == 0 && p->min_fix_distance > 0) {
            int32_t lf = m->layers[m->layer_n - 1].fix;
            double hx = x[f] - x[lf], hy = y[f] - y[lf];
            if (hx * hx + hy * hy < p->min_fix_distance * p->min_fix_distance) {
                if (!RSC_GROW(m->held_fix, m->held_cap, m->held_n + 1) ||
                    !RSC_GROW(m->held_layer, m->held_layer_cap, m->held_n + 1))
                    return RSC_ENOMEM;
                m->held_fix[m->held_n] = (int32_t)f;
                m->held_layer[m->held_n] = (int32_t)(m->layer_n - 1);
                m->held_n++;
                f++;
                continue;
            }
        }
        int count = rsc_build_layer(m, f, p->radius, p->max_candidates);
        if (count < 0) return RSC_ENOMEM;
        if (count == 0) { f++; continue; }
        if (m->layer_n == 0) {
            rsc_state *cur = &m->states[m->state_n];
            for (int j = 0; j < count; j++) cur[j].score = cur[j].emission;
            if (!rsc_commit(m, f, count)) return RSC_ENOMEM;
            f++;
            continue;
        }
        const rsc_layer *prev = &m->layers[m->layer_n - 1];
        int split = 0;
        /* The gap is measured from the latest fix held or scored in this sub-match. */
        int32_t recent = m->held_n > 0 && m->held_fix[m->held_n - 1] > prev->fix ? m->held_fix[m->held_n - 1] : prev->fix;
        if (p->max_gap > 0 && time && isfinite(time[f]) && isfinite(time[recent]) &&
            time[f] - time[recent] > p->max_gap) {
            /* A long pause where the vehicle stayed put (within 2 sigma) is a stop, and one over which it made
             * steady progress is bridged by a route; a gap with little progress (it wandered or parked) splits. */
            double gx = x[f] - x[recent], gy = y[f] - y[recent];
            double moved = sqrt(gx * gx + gy * gy);
            split = moved > 2.0 * p->sigma && moved < p->gap_min_speed * (time[f] - time[recent]);
        }
        if (!split) {
            int r = rsc_transition(m, prev, count);
            if (r < 0) return RSC_ENOMEM;
            if (p->recovery_radius > 0 && rsc_needs_recovery(m, count, r)) {
                /* The road driven may lie beyond the radius, or beyond the nearest roads (an interchange crowded
                 * with ramps), while a road the other way is near: search again, as far as the recovery radius and
                 * for twice as many roads, in a layer built after this one. It is taken when its best state is a
                 * road the first search missed, reached without turning back, and beats the best state before by
                 * e^10 (when none was reachable: by a route within the recovery radius of the straight distance);
                 * otherwise the layer stays as it was (noise alone makes fixes fall back now and then, and a far road
                 * must not win on one such fix). */
                size_t keep = m->state_n;
                m->state_n += (size_t)count;
                int wide = rsc_build_layer(m, f, p->recovery_radius > p->radius ? p->recovery_radius : p->radius,
                                           2 * p->max_candidates);
                int r2 = 0, take = 0;
                if (wide > count) {
                    r2 = rsc_transition(m, prev, wide);
                    if (r2 > 0) {
                        const rsc_state *w = &m->states[m->state_n];
                        int best = rsc_best_state(w, wide);
                        int known = 0;
                        double was = -INFINITY;
                        for (int j = 0; j < count; j++) {
                            const rsc_state *o = &m->states[keep + (size_t)j];
                            if (o->score > was) was = o->score;
                            if (best >= 0 && o->arc == w[best].arc) known = 1;
                        }
                        take = best >= 0 && !known && w[best].pen <= 0 && w[best].score > was + 10.0;
                        /* a chain joined up again must not be joined by a detour (noise breaks chains too) */
                        if (take && r == 0 && fabs(w[best].route - w[best].gc) > p->recovery_radius) take = 0;
                    }
                }
                m->state_n = keep;
                if (wide < 0 || r2 < 0) return RSC_ENOMEM;
                if (take) {
                    memmove(&m->states[keep], &m->states[keep + (size_t)count], (size_t)wide * sizeof(rsc_state));
                    count = wide;
                    r = r2;
                }
            }
            if (r > 0) {
                /* renormalise to keep scores near zero */
                rsc_state *cur = &m->states[m->state_n];
                double top = -INFINITY;
                for (int j = 0; j < count; j++) if (cur[j].score > top) top = cur[j].score;
                for (int j = 0; j < count; j++) cur[j].score -= top;
                if (!rsc_commit(m, f, count)) return RSC_ENOMEM;
                pending = 0;
                f++;
                continue;
            }
            if (pending < p->max_outliers) {
                if (pending == 0) pending_first = f;
                pending++;
                f++;
                continue;
            }
        }
        /* Split: end the sub-match here and restart at the first unreachable fix. */
        if (!rsc_finalize(m, (int32_t)m->sub_n)) return RSC_ENOMEM;
        if (pending > 0) f = pending_first;
        pending = 0;
    }
    if (!rsc_finalize(m, (int32_t)m->sub_n)) return RSC_ENOMEM;
    return (int)m->sub_n;
}
