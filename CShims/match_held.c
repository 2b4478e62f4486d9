/* Hidden-Markov matcher, held fixes: where a fix too close to the last scored fix to be scored (it holds that fix's
 * layer) lies on the road. The one placement, used by the batch run's backtracking (match_viterbi.c) and by the
 * stream's answers (match_stream.c). */
#include "cshims_match_internal.h"

/* Position of `offset` metres along `arc`, when it is a known point: an end of the arc (node positions) or the
 * matched point of state a or b. 0 when unknown. */
static int rsc_known_point(const rsc_matcher *m, int32_t arc, double offset, const rsc_state *a, const rsc_state *b,
                           double *x, double *y) {
    const rsc_match_graph *g = m->g;
    if (arc == a->arc && offset == a->offset) { *x = a->x; *y = a->y; return 1; }
    if (b && arc == b->arc && offset == b->offset) { *x = b->x; *y = b->y; return 1; }
    if (!g->node_x) return 0;
    if (offset <= 0) { *x = g->node_x[g->arc_tail[arc]]; *y = g->node_y[g->arc_tail[arc]]; return 1; }
    if (offset >= g->arc_length[arc]) { *x = g->node_x[g->arc_head[arc]]; *y = g->node_y[g->arc_head[arc]]; return 1; }
    return 0;
}

/* rsc_place_held without a next layer yet (the stream's newest layer): the fix's nearest point along a's arc after a
 * or, when that is a's arc's head (the fix lies beyond its end), along an arc leaving the head (no U-turn, no
 * restricted turn) where it is nearer: where the batch run places it once the next layer lies on that arc. Writes
 * *out and *x, *y as rsc_place_on_stretch does; returns 1 when the point lies beyond a's arc, else 0. */
static int rsc_place_ahead(rsc_matcher *m, double hx, double hy, const rsc_state *a, rsc_match_fix *out, double *x,
                           double *y) {
    const rsc_match_graph *g = m->g;
    double len = g->arc_length[a->arc];
    int at_head = 0;
    rsc_candidate c;
    if (rsc_query_edge_candidate(m->query, a->arc >> 1, hx, hy, m->p->radius, &c) == 1) {
        double o = rsc_arc_offset(a->arc, len, c.offset);
        if (o > a->offset) {
            if (o >= len) {
                /* the nearest point is the head itself: the fix lies beyond the arc's end */
                at_head = 1;
                o = len;
            }
            if (c.distance < out->distance) {
                out->offset = o;
                *x = c.x;
                *y = c.y;
                out->distance = c.distance;
            }
        }
    }
    if (!at_head) return 0;
    int32_t head = g->arc_head[a->arc], twin = g->twin[a->arc];
    int on = 0;
    for (int32_t i = g->out_start[head]; i < g->out_start[head + 1]; i++) {
        int32_t arc = g->out_arcs[i];
        if (arc == twin || arc == a->arc || !rsc_turn_allowed(g, a->arc, arc)) continue;
        if (rsc_query_edge_candidate(m->query, arc >> 1, hx, hy, m->p->radius, &c) != 1) continue;
        double o = rsc_arc_offset(arc, g->arc_length[arc], c.offset);
        if (!(o > 0) || !(c.distance < out->distance)) continue;
        out->arc = arc;
        out->offset = o;
        *x = c.x;
        *y = c.y;
        out->distance = c.distance;
        on = 1;
    }
    return on;
}

/* The held fix's point on the stretch from a to b (see rsc_place_held), written to *out (arc, offset, distance: a's
 * point already there) and *x, *y; returns the step the point lies on (1: b's arc). */
static int rsc_place_on_stretch(rsc_matcher *m, double hx, double hy, const rsc_state *a, const rsc_state *b,
                                int ahead, rsc_match_fix *out, double *x, double *y) {
    const rsc_match_graph *g = m->g;
    int step = 0;
    if (!b) return ahead ? rsc_place_ahead(m, hx, hy, a, out, x, y) : step;
    /* The driven stretch from a to b as (arc, from, to): along one arc, a's point to b's; else a's arc from a's point
     * and b's arc up to b's point (the arcs of the route between are short where a fix is held, near a's fix, and
     * are not known to the stream once its window is cut back); after a U-turn in place, a's arc from a's point. No
     * progress along one arc leaves a's point. */
    int32_t arcs[2];
    double from[2], to[2];
    int n;
    if (b->arc == a->arc) {
        if (!(b->offset > a->offset)) return step;
        arcs[0] = a->arc; from[0] = a->offset; to[0] = b->offset; n = 1;
    } else if (b->arc == g->twin[a->arc]) {
        /* turned round in place: the fixes held reach as far along a's arc as they went (the turn is there) */
        arcs[0] = a->arc; from[0] = a->offset; to[0] = g->arc_length[a->arc]; n = 1;
    } else {
        arcs[0] = a->arc; from[0] = a->offset; to[0] = g->arc_length[a->arc];
        arcs[1] = b->arc; from[1] = 0; to[1] = b->offset; n = 2;
    }
    /* The nearest point of each step's edge, kept where it lies on the step, else the nearest known end of the step
     * (the point of a or b, or a node); within the candidate radius (a held fix lies within the hold distance of a
     * scored one, whose matched point is nearer than the radius). A failed look-up leaves a's point: the placement
     * refines an answer the chain already gives. */
    double radius = m->p->radius;
    for (int s = 0; s < n; s++) {
        int32_t arc = arcs[s];
        rsc_candidate c;
        if (rsc_query_edge_candidate(m->query, arc >> 1, hx, hy, radius, &c) != 1) continue;
        double len = g->arc_length[arc];
        double o = rsc_arc_offset(arc, len, c.offset);
        double px = c.x, py = c.y, d = c.distance;
        if (o < from[s] || o > to[s]) {
            o = o < from[s] ? from[s] : to[s];
            if (!rsc_known_point(m, arc, o, a, b, &px, &py)) continue;
            d = sqrt((hx - px) * (hx - px) + (hy - py) * (hy - py));
        }
        if (d < out->distance) {
            out->arc = arc;
            out->offset = o;
            *x = px;
            *y = py;
            out->distance = d;
            step = s;
        }
    }
    return step;
}

int rsc_place_held(rsc_matcher *m, double hx, double hy, const rsc_state *a, const rsc_state *b, int ahead,
                   rsc_match_fix *out, double *x, double *y) {
    /* Fallback and first choice: the held layer's own matched point. */
    double px = a->x, py = a->y;
    out->arc = a->arc;
    out->offset = a->offset;
    out->distance = sqrt((hx - a->x) * (hx - a->x) + (hy - a->y) * (hy - a->y));
    out->held = 1;
    int step = rsc_place_on_stretch(m, hx, hy, a, b, ahead, out, &px, &py);
    if (x && y) {
        *x = px;
        *y = py;
    }
    return step;
}
