/* Hidden-Markov matcher, part 2: candidate search (nearest roads from the segment index, one or two arcs each) and
 * emission (Gaussian with a Laplacian tail on the distance, plus a Gaussian on course vs. bearing). */
#include "cshims_match_internal.h"

/* The arc that draws edge e (2e, or 2e + 1 for an edge drawn backward only), or -1 when e has no arc. */
static int32_t rsc_edge_arc(const rsc_match_graph *g, int32_t e) {
    int32_t a = 2 * e;
    if ((size_t)a + 1 >= g->arc_count) return -1;
    return g->arc_tail[a] >= 0 ? a : a + 1;
}

/* The node at the end of edge e (which has an arc) where a foot point `offset` metres from its start lies (within
 * 1 cm), else -1. */
static int32_t rsc_edge_end_at(const rsc_match_graph *g, int32_t e, double offset) {
    int32_t a = rsc_edge_arc(g, e);
    int forward = a == 2 * e;
    double len = g->arc_length[a];
    if (offset <= 0.01) return forward ? g->arc_tail[a] : g->arc_head[a];
    if (offset >= len - 0.01) return forward ? g->arc_head[a] : g->arc_tail[a];
    return -1;
}

/* Whether edge e starts or ends at node n. */
static int rsc_edge_has_node(const rsc_match_graph *g, int32_t e, int32_t n) {
    int32_t a = rsc_edge_arc(g, e);
    return a >= 0 && (g->arc_tail[a] == n || g->arc_head[a] == n);
}

/* A fix reporting a larger horizontal accuracy than the model's sigma is scored with its own. */
double rsc_fix_sigma(const rsc_matcher *m, size_t f) {
    const rsc_match_params *p = m->p;
    return rsc_known(m, m->accuracy, f) && rsc_col(m, m->accuracy, f) > p->sigma ? rsc_col(m, m->accuracy, f) : p->sigma;
}

/* Builds the candidate states of fix `f` (the nearest roads_max roads within `radius`) at the end of the state pool
 * (not committed). Returns the count, or a negative RSC_E* code (RSC_ENOMEM, or the search's RSC_EGEOS). */
int rsc_build_layer(rsc_matcher *m, size_t f, double radius, int roads_max) {
    const rsc_match_params *p = m->p;
    const rsc_match_graph *g = m->g;
    /* max_candidates counts roads: a one-way edge whose twin (the same road the other way, a separate edge in
     * networks that draw each direction) is also a candidate does not count twice, nor does a foot point at a node
     * that a nearer kept road also ends at (below). The nearest `first` (twice as many) edges are taken as they
     * come; past them only roads not yet kept are added, and the query is widened again when every edge returned
     * was kept and it may have been cut short (a crowded spot). At an interchange the uncounted twins and node
     * neighbours no longer use up the query before the road driven is reached, and the layer grows by roads, not by
     * more of them (docs/matching.md, seventh round). The first query already asks for twice `first`: the widening
     * it saves was a full second query at one layer in five on 1 s tracks, and since the rule depends on `first`,
     * not on the query's size, the layer is the same (eighth round). */
    const int first = 2 * roads_max < m->cand_cap ? 2 * roads_max : m->cand_cap;
    int cap = 2 * first < m->cand_cap ? 2 * first : m->cand_cap;
    int k, kept;
    for (;;) {
        k = rsc_query_candidates(m->query, m->x[f], m->y[f], radius, 1, m->cands, cap);
        if (k < 0) return k; /* the search failed (GEOS; message in rsc_query_failure): not "no road" */
        if (k == 0) return 0;
        int roads = 0, full = 0;
        kept = 0;
        for (int i = 0; i < k; i++) {
            int32_t e = m->cands[i].edge, a = rsc_edge_arc(g, e);
            if (a < 0) continue;
            int32_t t = g->arc_tail[a] >= 0 ? g->twin[a] : -1;
            int counted = 1;
            if (t >= 0 && (t >> 1) != e)
                for (int j = 0; j < kept; j++)
                    if (m->cands[j].edge == (t >> 1)) { counted = 0; break; }
            /* A foot point at an end of its edge, on a node that a nearer kept road also ends at, is that road's
             * neighbour at the node rather than another road: it does not count either. Otherwise a road drawn as
             * many short edges (a roundabout's ring) fills every slot with its own nodes and crowds out the road
             * actually driven a few metres further (the approach, where a vehicle waits to enter). */
            if (counted) {
                int32_t node = rsc_edge_end_at(g, e, m->cands[i].offset);
                if (node >= 0)
                    for (int j = 0; j < kept; j++)
                        if (rsc_edge_has_node(g, m->cands[j].edge, node)) { counted = 0; break; }
            }
            if (counted) {
                if (roads == roads_max) { full = 1; break; }
                roads++;
            } else if (i >= first) {
                continue; /* past the first query's edges, only roads not yet kept are added */
            }
            m->cands[kept++] = m->cands[i];
        }
        if (full || k < cap || cap >= m->cand_cap) break;
        cap = 2 * cap < m->cand_cap ? 2 * cap : m->cand_cap;
    }
    k = kept;
    if (!RSC_GROW(m->states, m->state_cap, m->state_n + 2 * (size_t)k)) return RSC_ENOMEM;
    int use_heading = rsc_known(m, m->course, f) &&
                      (!rsc_known(m, m->speed, f) || rsc_col(m, m->speed, f) >= p->min_heading_speed);
    double inv2h2 = 0.5 / (p->heading_sigma * p->heading_sigma);
    double sigma = rsc_fix_sigma(m, f);
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
            s->offset = rsc_arc_offset(arc, len, c->offset);
            if (s->offset < 0) s->offset = 0;
            if (s->offset > len) s->offset = len;
            s->distance = c->distance;
            s->x = c->x;
            s->y = c->y;
            double z = c->distance / sigma, k = p->huber;
            /* Gaussian near the road, Laplacian tail beyond k sigma: a few fixes far off a poorly drawn road
             * do not force a detour. */
            s->emission = (k > 0 && z > k) ? -(k * z - 0.5 * k * k) : -0.5 * z * z;
            if (m->route_arc && m->route_arc[arc]) s->emission += m->route_bonus;
            if (use_heading) {
                double bearing = dir == 0 ? c->bearing : c->bearing + 180.0;
                double d = rsc_angle_diff(rsc_col(m, m->course, f), bearing);
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
