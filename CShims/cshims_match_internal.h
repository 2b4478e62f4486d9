/* Inside CShims only: the parts of the hidden-Markov matcher (cshims_match.h) and the state they share.
 * The model is split as it is (the parts Valhalla's meili names too):
 *   match_graph.c       the directed arc graph and its turn restrictions
 *   match_candidates.c  candidate search and emission (a layer of states per fix)
 *   match_route.c       route search: the cached one-to-many search per source arc and the joint search
 *   match_transition.c  transition scoring of a layer from the previous one
 *   match_viterbi.c     layers, backtracking and the per-fix results of a sub-match
 *   match_held.c        where a held fix lies on the driven path (batch and stream alike)
 *   match.c             the matcher driving them (splits, outliers, recovery)
 * Functions here are hidden: only the rsc_ API of cshims_match.h is exported. */
#ifndef ROADSNAP_CSHIMS_MATCH_INTERNAL_H
#define ROADSNAP_CSHIMS_MATCH_INTERNAL_H

#include "cshims.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RSC_HIDDEN __attribute__((visibility("hidden")))

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
    /* Free-flow speed per arc (m/s) for the quickest route between matched fixes; NULL when not given or when every
     * arc has the same speed (the quickest route is then the shortest); max_speed the fastest of them. */
    double *arc_speed;
    double max_arc_speed;
    /* Each arc's direction (radians) where it leaves its tail and where it enters its head, and the smallest turn
     * (radians, 0..pi) onto an arc leading on from its head besides the way back (tabled by
     * rsc_match_graph_set_arc_directions), for turn costs; NULL when not given. 12 bytes per arc. */
    float *arc_leave, *arc_enter, *arc_straightest;
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

/* One layer of a sub-match: the states of fix `fix` are states[start ..< start + count]. 12 bytes: a batch run keeps
 * one per scored fix of the sub-match (issue 16, item 11); what the outlier test needs of the newest layers is
 * computed from their states (rsc_layer_top: the two newest layers' states are always kept whole) or kept for the
 * newest layer only (the matcher's last_drop, last_skipped). */
typedef struct rsc_layer {
    int32_t fix, start, count;
} rsc_layer;

/* The trail of a run of outliers: the path from the latest fix held or scored through them (to x, y, the newest of
 * them) and the sum of their nearest roads' distances. */
typedef struct rsc_outlier_trail {
    double path, x, y, near;
} rsc_outlier_trail;

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
    const double *x, *y, *t, *course, *speed, *accuracy;
    size_t n;
    /* t, course, speed and accuracy hold fix i's value at [i * stride] (rsc_col; 1 in the stream) */
    size_t stride;
    /* Stream (rsc_stream): arcs of the current route (route_arc[arc] != 0, arc_count entries) get route_bonus added to
     * their emission; NULL in batch runs. */
    uint8_t *route_arc;
    double route_bonus;
    /* The newest layer's outlier test (rsc_step): how far its best state's score fell below the previous layer's top
     * in its step (0: the first of a sub-match), and 1 when it replaced the layer before it (that fix dropped as an
     * outlier). Set by rsc_commit and rsc_step. */
    double last_drop;
    int last_skipped;
    /* The run of unreachable fixes since the newest layer (rsc_outlier_note): how many, and its trail (out);
     * near is the nearest candidate of the layer rsc_step last found unreachable. */
    int32_t out_n;
    rsc_outlier_trail out;
    double near;
    /* Of that run: how many were reachable but costly (RSC_STEP_COSTLY); the run as it stood before the first of
     * them (out_at: its place in the run, -1 when there is none; out_saved: its trail then); and whether the next
     * rsc_step is to commit a costly layer (the run was not bridged: the fix is taken after all, the run before it
     * kept). */
    int32_t out_costly, out_at;
    size_t out_at_fix; /* the first costly fix (batch run: its index) */
    rsc_outlier_trail out_saved;
    int accept_costly;
    /* the highest fall of a costly fix in the run (out_drop), set from the fall of the fix rsc_step last found costly
     * (step_drop): no chain through one of them scores above it */
    double out_drop, step_drop;
    /* Pruning of a batch run's states and route entries (match_prune.c): thresholds (0: the defaults) and how many
     * times it ran in the last run; set through rsc_matcher_set_pruning for tests. */
    size_t prune_min_states, prune_min_entries, prune_count;
};

/* ---------------------------------------------------------------------------------------------------------- */

static inline int rsc_grow(void **buf, size_t *cap, size_t need, size_t size) {
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

/* Sets a fix's result to unmatched (no arc, sub-match or path step; NaN offset and distance; not held). */
static inline void rsc_fix_unmatched(rsc_match_fix *fx) {
    fx->arc = -1;
    fx->sub = -1;
    fx->path_index = -1;
    fx->offset = NAN;
    fx->distance = NAN;
    fx->held = 0;
}

/* The offset along `arc` (metres from its tail) of a point `edge_offset` metres along its edge: arc 2e runs the way
 * edge e is drawn, arc 2e + 1 against it. */
static inline double rsc_arc_offset(int32_t arc, double arc_length, double edge_offset) {
    return (arc & 1) ? arc_length - edge_offset : edge_offset;
}

/* Whether the turn from arc `from` onto arc `to` (at from's head) is allowed (rsc_match_turn_allowed, inlined in the
 * route searches). */
static inline int rsc_turn_allowed(const rsc_match_graph *g, int32_t from, int32_t to) {
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

/* The turn (radians, 0..pi) from arc `from` onto arc `to` at from's head. */
static inline double rsc_turn_angle(const rsc_match_graph *g, int32_t from, int32_t to) {
    double turn = (double)g->arc_leave[to] - (double)g->arc_enter[from];
    if (turn > M_PI) turn -= 2 * M_PI;
    else if (turn < -M_PI) turn += 2 * M_PI;
    return fabs(turn);
}

/* Whether route searches price turns (params->turn_cost): on graphs without arc speeds (rsc_turns_apply), once they
 * have arc directions.
 * Where roads have speeds, the quickest-path rule of rsc_finalize picks between routes of about equal length (the
 * faster road), and turn costs on top of it made the peers' Andorra sets worse at 30 and 60 s (docs/matching.md,
 * fourteenth round); on a network without speeds they are the one preference between such routes. */
static inline int rsc_turns_apply(const rsc_match_graph *g) { return !g->arc_speed; }
static inline int rsc_prices_turns(const rsc_match_graph *g) { return g->arc_straightest && rsc_turns_apply(g); }

/* The turn cost of going from arc `from` onto arc `to` (not the way back): per_180 metres per 180 degrees it turns
 * more than the straightest way on from that node does. Going on where there is one way on, or along the
 * straightest way (a motorway's curve where a ramp leaves it), is free; turning off a road that goes on is not. */
static inline double rsc_turn_cost(const rsc_match_graph *g, double per_180, int32_t from, int32_t to) {
    double extra = rsc_turn_angle(g, from, to) - (double)g->arc_straightest[from];
    return extra > 1e-6 ? per_180 * extra * (1.0 / M_PI) : 0.0; /* the straightest way itself: rounding */
}

/* Whether a transition's penalties include turning back (a U-turn, or falling back along the arc beyond the
 * tolerance): those cost at least uturn_penalty, turn costs at junctions alone stay below it on any route that does
 * not wind back and forth. */
static inline int rsc_turned_back(const rsc_match_params *p, double pen) {
    return pen > 0 && pen >= p->uturn_penalty;
}

static inline double rsc_angle_diff(double a, double b) {
    double d = fmod(fabs(a - b), 360.0);
    return d > 180.0 ? 360.0 - d : d;
}

/* Fix i's value of column v (m->t, course, speed, accuracy; not NULL), and whether v is given and finite there. */
static inline double rsc_col(const rsc_matcher *m, const double *v, size_t i) { return v[i * m->stride]; }
static inline int rsc_known(const rsc_matcher *m, const double *v, size_t i) { return v && isfinite(rsc_col(m, v, i)); }

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

/* match_candidates.c: the sigma fix f is scored with (its horizontal accuracy when larger than the model's). */
RSC_HIDDEN double rsc_fix_sigma(const rsc_matcher *m, size_t f);

/* match_candidates.c: builds the candidate states of fix `f` (the nearest roads_max roads within `radius`) at the end
 * of the state pool (not committed). Returns the count, or a negative RSC_E* code: RSC_ENOMEM, or the candidate
 * search's failure (RSC_EGEOS, with rsc_query_failure saying what failed). */
RSC_HIDDEN int rsc_build_layer(rsc_matcher *m, size_t f, double radius, int roads_max);

/* What a per-arc search is for, when it may stop before its bound (sparse fixes, where the next transition seldom
 * reuses it): the layer being scored (`count` states at `cur`, its arcs marked with the layer stamp) from a source
 * state scored `score` with `rem` metres left on its arc; `ref` is max(great circle, travelled), `inv_beta` the
 * transition's. */
typedef struct rsc_search_goal {
    const rsc_state *cur;
    int count;
    double score, rem, ref, inv_beta;
} rsc_search_goal;

/* match_route.c: makes sure the cache holds the search from `src` to at least `need` metres. With a goal (else
 * NULL), the search may stop once no arc it has not settled could raise a state of the layer: every candidate arc
 * is settled or its state already scores at least what a route as long as the next label could give (the cache then
 * holds the search to the last label settled). The transition's results are the same either way. 0 on out of
 * memory. */
RSC_HIDDEN int rsc_search(rsc_matcher *m, int32_t src, double need, const rsc_search_goal *goal);
/* Seconds from fix pf to fix cf; NaN when either has no time. */
static inline double rsc_fix_interval(const rsc_matcher *m, size_t pf, size_t cf) {
    return rsc_known(m, m->t, cf) && rsc_known(m, m->t, pf) ? rsc_col(m, m->t, cf) - rsc_col(m, m->t, pf) : NAN;
}
/* How far the route searches of a transition between fixes gc metres and dt seconds (NaN: unknown) apart go:
 * max(distance_factor * gc, gc + search_floor); with times, at most what the vehicle could drive in the interval,
 * gc + max_speed * max(dt, 1 s). *drive (may be NULL) gets how far a move needing no search (along one arc, a U-turn
 * in place) may go: with times that drive limit alone, without them the same bound. */
RSC_HIDDEN double rsc_route_bound(const rsc_match_params *p, double gc, double dt, double *drive);
/* The quickest route (free-flow time on the graph's arc speeds, which must be set) from the head of arc `a` onto arc
 * `b`: turn restrictions honoured, no U-turn at a junction, the arcs between at most max_len metres long, quicker
 * than `quicker_than` seconds through them. Appended to the entry pool as a chain whose last entry is b's; returns
 * that entry's index, -1 when there is no such route, -2 on out of memory. */
RSC_HIDDEN int32_t rsc_quickest_route(rsc_matcher *m, int32_t a, int32_t b, double max_len, double quicker_than);
/* match_route.c: one search for a whole transition from every expanded previous state at once. 0, or -1 on out of
 * memory. */
RSC_HIDDEN int rsc_joint_search(rsc_matcher *m, const rsc_state *prv, int prev_count, rsc_state *cur, int count,
                                double floor_score, double best_prev, double gc, double travelled, double bound,
                                double beta, double inv_beta);

/* match_transition.c: scores the uncommitted layer (count states at state_n) from the committed layer `prev`.
 * 1 when some state is reachable, 0 when none is, -1 on out of memory. */
RSC_HIDDEN int rsc_transition(rsc_matcher *m, const rsc_layer *prev, int count);
/* match_transition.c: the index of the best reachable state of a layer, or -1 when none is reachable. */
RSC_HIDDEN int rsc_best_state(const rsc_state *layer, int count);
/* The state (index into states) the best chain ends in, in the newest layer; -1 when that layer is empty. */
RSC_HIDDEN int32_t rsc_chain_end(const rsc_matcher *m);
/* match_transition.c: whether a scored layer (count states at state_n, rsc_transition result r) should be searched
 * again wider: no state is reachable, or the best one is reached only by turning back. */
RSC_HIDDEN int rsc_needs_recovery(const rsc_matcher *m, int count, int r);

/* The best score of a committed layer's states (its top; -infinity when none is reachable). Used for the two newest
 * layers, whose states pruning and the stream's cut-backs keep whole. */
static inline double rsc_layer_top(const rsc_matcher *m, const rsc_layer *l) {
    double top = -INFINITY;
    for (int32_t j = 0; j < l->count; j++)
        if (m->states[l->start + j].score > top) top = m->states[l->start + j].score;
    return top;
}

/* match_viterbi.c: commits the layer of fix f (count states at state_n). 0 on out of memory. */
RSC_HIDDEN int rsc_commit(rsc_matcher *m, size_t f, int count);
/* match_viterbi.c: ends the current sub-match at its last layer: backtracks, writes per-fix results (held fixes
 * too), the path and the statistics. 0 on out of memory. */
RSC_HIDDEN int rsc_finalize(rsc_matcher *m, int32_t sub_index);
/* match_viterbi.c: after the whole track, takes back the sub-matches off the road (params off_road: their fixes lie
 * that many sigmas from the road on average, and they hold fewer than half the matched fixes): their fixes are
 * unmatched, the others renumbered and their paths moved up. */
RSC_HIDDEN void rsc_drop_off_road(rsc_matcher *m);
/* Batch runs: drops the states of the current sub-match no chain from its newest layer passes through, once the state
 * buffer is three quarters full (match_prune.c); results are unchanged. Returns 0 when out of memory. */
RSC_HIDDEN int rsc_prune_states(rsc_matcher *m);
/* End of a batch run: frees the state and layer buffers when they grew past 16 MB (a big track), rather than keeping
 * them for the next track while the results are read (match_prune.c). */
RSC_HIDDEN void rsc_trim_states(rsc_matcher *m);
/* match_held.c: places the held fix at (hx, hy), held by state a, on the driven stretch from a to b (the state of
 * the next layer on the same chain; NULL when a's layer is the newest): its nearest point along a's arc after a and
 * b's arc before b (along the one arc when a and b share it; after a U-turn in place, along a's arc after a), else
 * a's point. Without b and with `ahead` (the next layer is not known yet), along a's arc after a or, when the fix
 * lies beyond a's arc's head, along an arc leaving the head where nearer; without b and `ahead` 0 (the chain ends
 * at a), a's point. Writes arc, offset, distance and held = 1 to *out (sub and path_index are the caller's) and the
 * point to *x, *y (both NULL when not wanted: a batch run keeps no points); returns 1 when the point lies on b's arc
 * (or, ahead, beyond a's arc), else 0. Uses the matcher's candidate scratch. */
RSC_HIDDEN int rsc_place_held(rsc_matcher *m, double hx, double hy, const rsc_state *a, const rsc_state *b, int ahead,
                              rsc_match_fix *out, double *x, double *y);

/* match.c: the one step of the batch run and the stream: scores fix f (valid, not held) against the current
 * sub-match (`recent`: the latest fix held or scored in it, unused while it has no layer). Returns one of: */
#define RSC_STEP_NONE 0        /* no candidate: the fix stays unmatched, nothing changed */
#define RSC_STEP_COMMITTED 1   /* its layer is committed (the first of a new sub-match when there was none) */
#define RSC_STEP_UNREACHABLE 2 /* no state reachable: an outlier, or the sub-match ends before it */
#define RSC_STEP_GAP 3         /* a time gap with little progress: the sub-match ends before it */
#define RSC_STEP_COSTLY 5      /* reachable, but only by a chain falling more than outlier_penalty: held back as an
                                * outlier while a run of them may be (the chain may resume past it); when it may not,
                                * the run is rewound to it and it is taken (accept_costly) */
#define RSC_STEP_SKIPPED 4     /* its layer is committed in place of the previous one, whose fix (and the fixes held
                                * by it) is dropped as an outlier: the two-step chain through it cost more than
                                * outlier_penalty over a chain that leaves it out */
/* or a negative RSC_E* code (RSC_ENOMEM, or RSC_EGEOS when a candidate search failed). */
RSC_HIDDEN int rsc_step(rsc_matcher *m, size_t f, int32_t recent);
/* The outlier run both drivers keep (match.c): rsc_outlier_allowed says whether unreachable (or costly) fix f may be
 * one more outlier (max_outliers, then outlier_window for a run without a costly fix), rsc_outlier_note records it,
 * rsc_outliers_clear ends the run (a layer committed, the chain ended; no costly fix is to be taken),
 * rsc_outliers_rewind goes back to the run's first costly fix when the run may not go on (the drivers score again
 * from it, and rsc_step takes it). rsc_step lets the chain resume after more than max_outliers, or past a costly
 * fix, only by a plausible route (rsc_match_params.outlier_window). */
RSC_HIDDEN int rsc_outlier_allowed(const rsc_matcher *m, size_t f, int costly);
RSC_HIDDEN void rsc_outlier_note(rsc_matcher *m, size_t f, int32_t recent, int costly);
RSC_HIDDEN void rsc_outliers_clear(rsc_matcher *m);
RSC_HIDDEN int32_t rsc_outliers_rewind(rsc_matcher *m);

#endif
