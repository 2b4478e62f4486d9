/* Hidden-Markov matcher, part 4: transition scoring: |route - great circle| over beta (and U-turn, falling-back
 * penalties) from each expanded state of the previous layer, over the route searches of match_route.c. */
#include "cshims_match_internal.h"

double rsc_route_bound(const rsc_match_params *p, double gc, double dt, double *drive) {
    double bound = fmax(p->distance_factor * gc, gc + p->search_floor);
    double limit = bound;
    if (isfinite(dt) && dt >= 0 && p->max_speed > 0) {
        /* With times, a route longer than what the vehicle could drive in the interval is impossible (OSRM's rule). */
        limit = gc + p->max_speed * (dt > 1.0 ? dt : 1.0);
        if (limit < bound) bound = limit;
    }
    /* A move along one arc or a U-turn in place costs no search, so with times only that limit applies to it (a
     * winding road covers several times the straight distance). Searches keep the distance factor: letting them go
     * as far as the vehicle could drive (to reach hairpins through junctions) made the 70 Kubicka tracks worse at
     * every rate (1.49 -> 1.59 % at 1 s, 1.49 -> 1.65 % at 10 s): noisy fixes joined by detours they had been kept
     * from. */
    if (drive) *drive = limit;
    return bound;
}

/* Scores the uncommitted layer (count states at state_n) from the committed layer `prev`. Returns 1 when some state is
 * reachable, 0 when none is, -1 on out of memory. */
int rsc_transition(rsc_matcher *m, const rsc_layer *prev, int count) {
    const rsc_match_params *p = m->p;
    const rsc_match_graph *g = m->g;
    rsc_state *cur = &m->states[m->state_n];
    size_t pf = (size_t)prev->fix, cf = (size_t)cur[0].fix;
    double dx = m->x[cf] - m->x[pf], dy = m->y[cf] - m->y[pf];
    double gc = sqrt(dx * dx + dy * dy);
    double dt = rsc_fix_interval(m, pf, cf);
    double reach_limit;
    double bound = rsc_route_bound(p, gc, dt, &reach_limit);
    /* Expected travelled distance from the speeds, when both fixes report one. */
    double travelled = NAN;
    if (isfinite(dt) && rsc_known(m, m->speed, cf) && rsc_known(m, m->speed, pf))
        travelled = 0.5 * (rsc_col(m, m->speed, cf) + rsc_col(m, m->speed, pf)) * dt;
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
        double s_ = rsc_transition_score(prv[i].score, d_, (PEN), gc, travelled, inv_beta);    \
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
    int sparse = interval >= p->joint_interval;
    int joint = sparse && gc >= 10.0 * p->joint_interval;
    double ref = travelled == travelled && travelled > gc ? travelled : gc;
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
            if (d <= reach_limit) RSC_CONSIDER(j, d, pen, -1);
        }
        int32_t r = g->twin[a];
        if (r >= 0 && m->t_stamp[r] == m->layer_stamp) {
            int j = m->t_idx[r];
            double pos = len - o; /* the same point seen from the reverse arc */
            if (cur[j].offset >= pos - tol) {
                double d = fabs(cur[j].offset - pos);
                if (d <= reach_limit) RSC_CONSIDER(j, d, p->uturn_penalty, -2);
            }
        }
        if (joint) continue;
        double need = bound - rem;
        if (need < 0) continue;
        /* sparse fixes: the search stops once it can no longer change this layer (the next seldom reuses it) */
        rsc_search_goal goal = {cur, count, prv[i].score, rem, ref, inv_beta};
        if (!rsc_search(m, a, need, sparse ? &goal : NULL)) return -1;
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
     * otherwise the road actually driven is not connected to the hypotheses (missing link) and the track splits.
     * Measured in the fix's sigmas, not in emission log units, so that the rule does not move with the emission's
     * shape (in log units, a steeper tail made track 43's drift split instead of resuming). */
    double nearest = INFINITY, nearest_reached = INFINITY;
    for (int j = 0; j < count; j++) {
        if (cur[j].entry == -1 && cur[j].back >= 0 && m->states[cur[j].back].peak > cur[j].peak)
            cur[j].peak = m->states[cur[j].back].peak;
        if (cur[j].distance < nearest) nearest = cur[j].distance;
        if (cur[j].score > -INFINITY) {
            cur[j].score += cur[j].emission;
            if (cur[j].distance < nearest_reached) nearest_reached = cur[j].distance;
        }
    }
    return nearest_reached < INFINITY && nearest_reached - nearest <= p->disconnect_margin * rsc_fix_sigma(m, cf);
}

/* The index of the best reachable state of a layer, or -1 when none is reachable. */
int rsc_best_state(const rsc_state *layer, int count) {
    int best = -1;
    for (int j = 0; j < count; j++)
        if (layer[j].score > -INFINITY && (best < 0 || layer[j].score > layer[best].score)) best = j;
    return best;
}

/* Whether a scored layer (count states at state_n, rsc_transition result r) should be searched again wider: no state
 * is reachable, or the best one is reached only by turning back (a U-turn or falling back along its arc). */
int rsc_needs_recovery(const rsc_matcher *m, int count, int r) {
    if (r == 0) return 1;
    const rsc_state *cur = &m->states[m->state_n];
    int best = rsc_best_state(cur, count);
    return best >= 0 && rsc_turned_back(m->p, cur[best].pen);
}
