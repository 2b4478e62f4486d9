/* Hidden-Markov matcher, part 3: route search on the directed arc graph (one-ways, turn restrictions, U-turn
 * penalties): the bounded one-to-many Dijkstra from one source arc, cached per arc for a run, and the joint search
 * from every candidate of the previous fix at once (A* toward the next fix when the graph has node positions). */
#include "cshims_match_internal.h"

/* Bounded route search from the head of `src` (Dijkstra over arcs), results appended to the entry pool. */

/* Pushes a label onto a heap already grown to hold it. */
static inline void rsc_heap_put(rsc_matcher *m, double key, double dist, double gv, int32_t arc, int32_t parent,
                                int32_t src) {
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
}

static int rsc_heap_push2(rsc_matcher *m, double key, double dist, double gv, int32_t arc, int32_t parent, int32_t src) {
    if (!RSC_GROW(m->heap, m->heap_cap, m->heap_n + 1)) return 0;
    rsc_heap_put(m, key, dist, gv, arc, parent, src);
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
    const double turn_cost = rsc_prices_turns(g) ? m->p->turn_cost : 0.0;
    /* A U-turn goes straight back to the node it came from (same edge reversed, or a twin one-way edge); it costs
     * the penalty even at a dead end, so that a short spur is no cheaper than turning where the track turns. */
    for (int32_t k = s; k < e; k++) {
        int32_t c = g->out_arcs[k];
        double d = dist + pen;
        if (g->arc_head[c] == origin) d += m->p->uturn_penalty;
        else if (turn_cost > 0) d += rsc_turn_cost(g, turn_cost, from, c);
        if (d > bound) continue;
        if (!rsc_turn_allowed(g, from, c)) continue;
        if (m->d_stamp[c] == m->search_stamp && m->d_best[c] <= d) continue;
        m->d_stamp[c] = m->search_stamp;
        m->d_best[c] = d;
        if (!rsc_heap_push(m, d, dist, c, parent)) return 0;
    }
    return 1;
}

/* The key (metres driven plus penalties from the source arc's head) from which no further label of a per-arc search
 * can raise a state of the goal's layer: a label keyed k reaching candidate arc j gives a route of at least
 * rem + k + offset_j, so a score of at most score - (rem + k + offset_j - ref) / beta (|route - great circle|, or
 * - travelled, is at least route - ref); once that is no better than state j's score, j is done. The largest such
 * key over the candidate arcs not settled yet (+infinity while one is unreached), with a micrometre to spare for
 * rounding; -infinity when every one is settled. */
static double rsc_goal_stop(const rsc_matcher *m, const rsc_search_goal *goal) {
    double stop = -INFINITY;
    for (int j = 0; j < goal->count; j++) {
        const rsc_state *c = &goal->cur[j];
        int32_t a = c->arc;
        if (m->d_stamp[a] == m->search_stamp && m->d_best[a] < 0) continue; /* settled */
        if (!(c->score > -INFINITY)) return INFINITY;
        double k = (goal->score - c->score) / goal->inv_beta - goal->rem - c->offset + goal->ref + 1e-6;
        if (k > stop) stop = k;
    }
    return stop;
}

/* Makes sure the cache holds the search from `src` to at least `need` metres (with a goal, see cshims_match_internal.h:
 * to where it could stop). Returns 0 on out of memory. */
int rsc_search(rsc_matcher *m, int32_t src, double need, const rsc_search_goal *goal) {
    if (m->c_stamp[src] == m->run_stamp && m->c_bound[src] >= need) return 1;
    /* Searched further than needed (the floor, at least twice the last bound) for the next fixes to reuse; with a
     * goal, only as far as needed. */
    double bound = need;
    if (!goal) {
        bound += m->p->search_floor;
        if (m->c_stamp[src] == m->run_stamp && bound < 2 * m->c_bound[src]) bound = 2 * m->c_bound[src];
    }
    const rsc_match_graph *g = m->g;
    if (++m->search_stamp == 0) {
        memset(m->d_stamp, 0, g->arc_count * sizeof(uint32_t));
        m->search_stamp = 1;
    }
    int32_t start = (int32_t)m->entry_n;
    m->heap_n = 0;
    double stop = goal ? rsc_goal_stop(m, goal) : INFINITY;
    double reached = bound; /* every arc keyed up to this is settled */
    if (!rsc_relax(m, src, 0.0, 0.0, -1, bound)) return 0;
    while (m->heap_n > 0) {
        rsc_heap_item it = rsc_heap_pop(m);
        if (it.key > m->d_best[it.arc]) continue;         /* stale */
        if (it.key > bound) break;
        if (it.key > stop) {
            /* no label from here on raises a state of the goal's layer: keep what was settled (every arc keyed
             * below this label's key) */
            reached = nextafter(it.key, -INFINITY);
            break;
        }
        /* Mark settled: a key below any reachable distance prevents re-settling. */
        m->d_best[it.arc] = -1.0;
        if (goal && m->t_stamp[it.arc] == m->layer_stamp) stop = rsc_goal_stop(m, goal);
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
    m->c_bound[src] = reached;
    return 1;
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

int rsc_joint_search(rsc_matcher *m, const rsc_state *prv, int prev_count, rsc_state *cur, int count,
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
        const double turn_cost = rsc_prices_turns(g) ? p->turn_cost : 0.0;
        /* every arc leaving h has its tail at h: one estimate serves them all */
        double est = 0;
        if (nx) {
            est = sqrt((nx[h] - fx) * (nx[h] - fx) + (ny[h] - fy) * (ny[h] - fy)) - reach;
            if (est < 0) est = 0;
        }
        for (int32_t k = g->out_start[h]; k < g->out_start[h + 1]; k++) {
            int32_t c = g->out_arcs[k];
            double pen = g->arc_head[c] == origin ? p->uturn_penalty
                         : turn_cost > 0                ? rsc_turn_cost(g, turn_cost, a, c)
                                                        : 0.0;
            if (m->t_stamp[c] == m->layer_stamp && rsc_turn_allowed(g, a, c)) {
                int j = m->t_idx[c];
                double d = rem + cur[j].offset;
                double sc = rsc_transition_score(prv[i].score, d, pen, gc, travelled, inv_beta);
                if (d <= bound && sc > cur[j].score &&
                    rsc_joint_consider(m, prv, cur, j, i, c, -1, rem, pen, d, sc, gc) < 0)
                    return -1;
            }
            if (rem + est > bound) continue;
            if (!rsc_turn_allowed(g, a, c)) continue;
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
        /* loop invariants in locals (the stores below could alias the matcher's fields), the heap grown once */
        int32_t k0 = g->out_start[h], k1 = g->out_start[h + 1];
        if (!RSC_GROW(m->heap, m->heap_cap, m->heap_n + (size_t)(k1 - k0))) return -1;
        const int32_t *out_arcs = g->out_arcs, *arc_head = g->arc_head;
        const uint32_t *t_stamp = m->t_stamp;
        uint32_t *d_stamp = m->d_stamp;
        double *d_best = m->d_best;
        const uint32_t layer_stamp = m->layer_stamp, search_stamp = m->search_stamp;
        const double uturn = p->uturn_penalty, src_score = prv[it.src].score;
        const double g_next = it.g + g->arc_length[it.arc];
        const int32_t from = it.arc, src = it.src;
        const int restricted = g->r_start && g->r_start[from >> 1] != g->r_start[(from >> 1) + 1];
        const double turn_cost = rsc_prices_turns(g) ? p->turn_cost : 0.0;
        for (int32_t k = k0; k < k1; k++) {
            int32_t c = out_arcs[k];
            double pc = arc_head[c] == origin ? uturn : turn_cost > 0 ? rsc_turn_cost(g, turn_cost, from, c) : 0.0;
            double gv = g_next + pc;
            int settled_or_better = d_stamp[c] == search_stamp;
            int allowed = -1; /* the turn restriction, looked up once when needed */
            if (t_stamp[c] == layer_stamp && !(settled_or_better && d_best[c] < 0)) {
                /* Every label arriving at a candidate arc is scored exactly (|route - gc|), not only the one
                 * that settles it: where routes are shorter than the straight line the ranking differs. */
                allowed = !restricted || rsc_turn_allowed(g, from, c);
                if (!allowed) continue;
                int j = m->t_idx[c];
                double d = dist + cur[j].offset;
                double sc = rsc_transition_score(src_score, d, pen + pc, gc, travelled, inv_beta);
                if (d <= bound && sc > cur[j].score &&
                    rsc_joint_consider(m, prv, cur, j, src, c, idx, dist, pen + pc, d, sc, gc) < 0)
                    return -1;
            }
            if (settled_or_better && d_best[c] <= gv) continue;
            if (allowed < 0) allowed = !restricted || rsc_turn_allowed(g, from, c);
            if (!allowed) continue;
            d_stamp[c] = search_stamp;
            d_best[c] = gv;
            rsc_heap_put(m, gv + est, dist, gv, c, idx, src); /* grown above */
        }
    }
    return 0;
}

int32_t rsc_quickest_route(rsc_matcher *m, int32_t a, int32_t b, double max_len, double quicker_than) {
    const rsc_match_graph *g = m->g;
    const double *speed = g->arc_speed;
    if (++m->search_stamp == 0) {
        memset(m->d_stamp, 0, g->arc_count * sizeof(uint32_t));
        m->search_stamp = 1;
    }
    m->heap_n = 0;
    /* labels: g = seconds to the arc's tail, dist = metres to it, parent = the previous arc's entry; with node
     * positions, key = g + the straight distance to b's tail at the fastest arc's speed (A*, never an overestimate) */
    const double *nx = g->node_x, *ny = g->node_y;
    int32_t goal = g->arc_tail[b];
    double inv_fastest = 1.0 / g->max_arc_speed;
#define RSC_TIME_TO_GOAL(node) \
    (nx ? sqrt((nx[node] - nx[goal]) * (nx[node] - nx[goal]) + (ny[node] - ny[goal]) * (ny[node] - ny[goal])) * inv_fastest : 0.0)
    int32_t h = g->arc_head[a], origin = g->arc_tail[a];
    double est0 = RSC_TIME_TO_GOAL(h);
    for (int32_t k = g->out_start[h]; k < g->out_start[h + 1]; k++) {
        int32_t c = g->out_arcs[k];
        if (g->arc_head[c] == origin || !rsc_turn_allowed(g, a, c)) continue;
        if (m->d_stamp[c] == m->search_stamp && m->d_best[c] <= 0) continue;
        m->d_stamp[c] = m->search_stamp;
        m->d_best[c] = 0;
        if (!rsc_heap_push2(m, est0, 0, 0, c, -1, -1)) return -2;
    }
    while (m->heap_n > 0) {
        rsc_heap_item it = rsc_heap_pop(m);
        if (it.g > m->d_best[it.arc]) continue; /* stale (settled arcs hold -1) */
        if (it.key >= quicker_than) break;
        m->d_best[it.arc] = -1.0;
        if (!RSC_GROW(m->entries, m->entry_cap, m->entry_n + 1)) return -2;
        int32_t idx = (int32_t)m->entry_n++;
        m->entries[idx].arc = it.arc;
        m->entries[idx].parent = it.parent;
        m->entries[idx].dist = it.dist;
        m->entries[idx].pen = 0;
        if (it.arc == b) return idx;
        double len = g->arc_length[it.arc];
        int32_t hh = g->arc_head[it.arc], back = g->arc_tail[it.arc];
        double dist = it.dist + len, t = it.g + len / speed[it.arc], key = t + RSC_TIME_TO_GOAL(hh);
        if (dist > max_len || key >= quicker_than) continue;
        for (int32_t k = g->out_start[hh]; k < g->out_start[hh + 1]; k++) {
            int32_t c = g->out_arcs[k];
            if (g->arc_head[c] == back) continue; /* no U-turn at a junction */
            if (m->d_stamp[c] == m->search_stamp && m->d_best[c] <= t) continue;
            if (!rsc_turn_allowed(g, it.arc, c)) continue;
            m->d_stamp[c] = m->search_stamp;
            m->d_best[c] = t;
            if (!rsc_heap_push2(m, key, dist, t, c, idx, -1)) return -2;
        }
    }
    return -1;
#undef RSC_TIME_TO_GOAL
}
