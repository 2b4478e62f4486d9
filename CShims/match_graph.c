/* Hidden-Markov matcher, part 1: the directed arc graph (one-ways, twins, node positions) and its turn
 * restrictions. See cshims_match.h for the contract and cshims_match_internal.h for the parts. */
#include "cshims_match_internal.h"

static void rsc_graph_free(rsc_match_graph *g) {
    free(g->node_x); free(g->node_y); free(g->arc_speed); free(g->arc_leave); free(g->arc_enter); free(g->arc_straightest);
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

int rsc_match_graph_set_arc_speeds(rsc_match_graph *g, const double *speed) {
    if (!g || !speed) return RSC_EINVAL;
    double fastest = 0;
    int uniform = 1;
    for (size_t i = 0; i < g->arc_count; i++) {
        if (!isfinite(speed[i]) || !(speed[i] > 0)) return RSC_EINVAL;
        if (speed[i] > fastest) fastest = speed[i];
        if (speed[i] != speed[0]) uniform = 0;
    }
    if (uniform) { /* one speed everywhere: the shortest route is the quickest, nothing to search */
        free(g->arc_speed);
        g->arc_speed = NULL;
        return RSC_OK;
    }
    g->max_arc_speed = fastest;
    double *v = malloc((g->arc_count ? g->arc_count : 1) * sizeof(double));
    if (!v) return RSC_ENOMEM;
    if (g->arc_count) memcpy(v, speed, g->arc_count * sizeof(double));
    free(g->arc_speed);
    g->arc_speed = v;
    return RSC_OK;
}

int rsc_match_graph_set_arc_directions(rsc_match_graph *g, const double *leave, const double *enter) {
    if (!g || !leave || !enter) return RSC_EINVAL;
    for (size_t i = 0; i < g->arc_count; i++)
        if (!isfinite(leave[i]) || !isfinite(enter[i])) return RSC_EINVAL;
    size_t n = g->arc_count ? g->arc_count : 1;
    float *l = malloc(n * sizeof(float)), *e = malloc(n * sizeof(float)), *st = malloc(n * sizeof(float));
    if (!l || !e || !st) {
        free(l);
        free(e);
        free(st);
        return RSC_ENOMEM;
    }
    for (size_t i = 0; i < g->arc_count; i++) {
        l[i] = (float)remainder(leave[i], 2 * M_PI);
        e[i] = (float)remainder(enter[i], 2 * M_PI);
    }
    free(g->arc_leave);
    free(g->arc_enter);
    free(g->arc_straightest);
    g->arc_leave = l;
    g->arc_enter = e;
    /* the smallest turn onto an arc leading on from each arc's head, the way back left out (pi when there is none) */
    for (size_t i = 0; i < g->arc_count; i++) {
        int32_t h = g->arc_head[i], origin = g->arc_tail[i];
        double least = M_PI;
        if (h >= 0)
            for (int32_t k = g->out_start[h]; k < g->out_start[h + 1]; k++) {
                int32_t c = g->out_arcs[k];
                if (g->arc_head[c] == origin) continue;
                double t = rsc_turn_angle(g, (int32_t)i, c);
                if (t < least) least = t;
            }
        st[i] = (float)least;
    }
    g->arc_straightest = st;
    return RSC_OK;
}

int rsc_match_graph_prices_turns(const rsc_match_graph *g) { return g && rsc_turns_apply(g); }

void rsc_match_graph_destroy(rsc_match_graph *g) {
    if (g) rsc_graph_free(g);
}

int rsc_match_turn_allowed(const rsc_match_graph *g, int32_t from, int32_t to) {
    return rsc_turn_allowed(g, from, to);
}
