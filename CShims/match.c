/* Hidden-Markov map matching (Newson & Krumm 2009), the driver: the matcher's buffers and the run over a track
 * (held fixes, gaps, outliers, splits, the wider recovery search) over the parts in match_*.c.
 * See cshims_match.h for the contract and cshims_match_internal.h for the parts. */
#include "cshims_match_internal.h"

rsc_matcher *rsc_matcher_create(const rsc_match_graph *g, rsc_query *query) {
    if (!g || !query) return NULL;
    rsc_matcher *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->g = g;
    m->query = query;
    m->stride = 1;
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
    free(m->route_arc);
    free(m);
}

const rsc_match_fix *rsc_matcher_fixes(const rsc_matcher *m) { return m->fixes; }
const rsc_match_sub *rsc_matcher_subs(const rsc_matcher *m) { return m->subs; }
const rsc_path_step *rsc_matcher_path(const rsc_matcher *m) { return m->path; }
size_t rsc_matcher_path_count(const rsc_matcher *m) { return m->path_n; }

/* The outlier test of rsc_step: the layer scored (count states at state_n) is scored again from the layer before the
 * previous one, as if the previous fix were not there; `through` is how far the best chain through the previous fix
 * fell below that layer's top. When leaving the fix out costs less than that by more than outlier_penalty, the
 * previous layer (and the fixes held by it) is dropped and the new scores take its place at its start: returns 1
 * (state_n and layer_n reduced, the scored layer at the new state_n). 0 when the fix stays, RSC_ENOMEM. */
static int rsc_skip(rsc_matcher *m, int count, double through) {
    const rsc_match_params *p = m->p;
    size_t keep = m->state_n;
    if (!RSC_GROW(m->states, m->state_cap, keep + 2 * (size_t)count)) return RSC_ENOMEM;
    rsc_state *alt = &m->states[keep + (size_t)count];
    memcpy(alt, &m->states[keep], (size_t)count * sizeof *alt);
    for (int j = 0; j < count; j++) {
        alt[j].score = -INFINITY;
        alt[j].back = -1;
        alt[j].entry = -1;
        alt[j].route = 0;
        alt[j].gc = 0;
        alt[j].pen = 0;
        alt[j].peak = alt[j].offset;
    }
    const rsc_layer *before = &m->layers[m->layer_n - 2];
    m->state_n = keep + (size_t)count;
    int r = rsc_transition(m, before, count);
    m->state_n = keep;
    if (r < 0) return RSC_ENOMEM;
    if (r == 0) return 0;
    alt = &m->states[keep + (size_t)count];
    double top = -INFINITY;
    for (int j = 0; j < count; j++) if (alt[j].score > top) top = alt[j].score;
    if (!(top - rsc_layer_top(m, before) - p->outlier_penalty > through)) return 0;
    int32_t dropped = (int32_t)(m->layer_n - 1);
    while (m->held_n > 0 && m->held_layer[m->held_n - 1] == dropped) m->held_n--;
    size_t at = (size_t)m->layers[dropped].start;
    memmove(&m->states[at], alt, (size_t)count * sizeof *alt);
    m->state_n = at;
    m->layer_n--;
    return 1;
}

/* Records fix f (just found unreachable by rsc_step) as one more outlier after the latest fix `recent` held or
 * scored in the sub-match. */
void rsc_outlier_note(rsc_matcher *m, size_t f, int32_t recent, int costly) {
    if (costly && m->out_at < 0) {
        m->out_at = m->out_n;
        m->out_at_fix = f;
        m->out_saved = m->out;
    }
    m->out_costly += costly;
    if (costly && m->step_drop > m->out_drop) m->out_drop = m->step_drop;
    if (m->out_n == 0 && recent >= 0) {
        m->out.path = 0;
        m->out.near = 0;
        m->out.x = m->x[recent];
        m->out.y = m->y[recent];
    }
    m->out.path += hypot(m->x[f] - m->out.x, m->y[f] - m->out.y);
    m->out.x = m->x[f];
    m->out.y = m->y[f];
    if (!costly) m->out.near += m->near;
    m->out_n++;
}

void rsc_outliers_clear(rsc_matcher *m) {
    m->out_n = 0;
    m->out_costly = 0;
    m->out_at = -1;
    m->out_drop = -INFINITY;
    m->accept_costly = 0;
}

/* Rewinds the run to just before its first costly fix, which the next rsc_step takes (accept_costly). Returns that
 * fix's place in the run (the drivers replay from it), -1 when the run has no costly fix. */
int32_t rsc_outliers_rewind(rsc_matcher *m) {
    int32_t at = m->out_at;
    if (at < 0) return -1;
    m->out_n = at;
    m->out = m->out_saved;
    m->out_costly = 0;
    m->out_at = -1;
    m->out_drop = -INFINITY;
    m->accept_costly = 1;
    return at;
}

/* Whether unreachable fix f may be dropped as one more outlier instead of splitting the track: within max_outliers,
 * or within outlier_window seconds of the newest layer's fix when the chain has more layers than max_outliers (a
 * chain no longer than a run of outliers is no better evidence of the road driven than they are). */
int rsc_outlier_allowed(const rsc_matcher *m, size_t f, int costly) {
    const rsc_match_params *p = m->p;
    if (m->out_n < p->max_outliers) return 1;
    if (costly || m->out_costly > 0) return 0;
    if (!(p->outlier_window > 0) || m->layer_n <= (size_t)p->max_outliers || !rsc_known(m, m->t, f)) return 0;
    size_t lf = (size_t)m->layers[m->layer_n - 1].fix;
    return rsc_known(m, m->t, lf) && rsc_col(m, m->t, f) - rsc_col(m, m->t, lf) <= p->outlier_window;
}

/* After more than max_outliers unreachable fixes (the outlier window), whether the chain may resume at fix f by the
 * best state of its scored layer (count states at state_n): the outliers lay on average at least sigma from their
 * nearest road (a drift away from the road driven; fixes on a road of their own that the chain cannot reach mean an
 * earlier choice or the map is wrong, and the track splits), and the route is no longer than 1.25 x the path
 * through them + 4 sigma (GPS drifting off a road keeps pace with it; a detour is an explanation forced on them). */
static int rsc_resume_plausible(const rsc_matcher *m, size_t f, int count) {
    const rsc_match_params *p = m->p;
    if (m->out_n <= p->max_outliers && m->out_costly == 0) return 1;
    int32_t unreachable = m->out_n - m->out_costly;
    if (unreachable > p->max_outliers && m->out.near < p->sigma * unreachable) return 0;
    int b = rsc_best_state(&m->states[m->state_n], count);
    if (b < 0) return 0;
    if (m->out_costly > 0 &&
        !(m->states[m->state_n + (size_t)b].score - rsc_layer_top(m, &m->layers[m->layer_n - 1]) >
          m->out_drop + p->outlier_penalty))
        return 0;
    double path = m->out.path + hypot(m->x[f] - m->out.x, m->y[f] - m->out.y);
    return m->states[m->state_n + (size_t)b].route <= 1.25 * path + 4.0 * p->sigma;
}

/* Scores fix f (valid, not held) against the current sub-match: builds its layer and, when the sub-match has a layer
 * already, checks the time gap from fix `recent` (the latest fix held or scored in the sub-match), scores the
 * transition (searching again wider when needed) and commits the layer when some state is reachable. The one step
 * of the batch run (rsc_matcher_run) and the stream (rsc_stream_push). */
int rsc_step(rsc_matcher *m, size_t f, int32_t recent) {
    const rsc_match_params *p = m->p;
    const double *x = m->x, *y = m->y;
    int count = rsc_build_layer(m, f, p->radius, p->max_candidates);
    if (count < 0) return count;
    if (count == 0) return RSC_STEP_NONE;
    if (m->layer_n == 0) {
        rsc_state *cur = &m->states[m->state_n];
        for (int j = 0; j < count; j++) cur[j].score = cur[j].emission;
        if (!rsc_commit(m, f, count)) return RSC_ENOMEM;
        return RSC_STEP_COMMITTED;
    }
    const rsc_layer *prev = &m->layers[m->layer_n - 1];
    int split = 0;
    double t_f = rsc_known(m, m->t, f) ? rsc_col(m, m->t, f) : NAN;
    double t_recent = rsc_known(m, m->t, (size_t)recent) ? rsc_col(m, m->t, (size_t)recent) : NAN;
    if (p->max_gap > 0 && isfinite(t_f) && isfinite(t_recent) && t_f - t_recent > p->max_gap) {
        /* A long pause where the vehicle stayed put (within 2 sigma) is a stop, and one over which it made
         * steady progress is bridged by a route; a gap with little progress (it wandered or parked) splits. */
        double gx = x[f] - x[recent], gy = y[f] - y[recent];
        double moved = sqrt(gx * gx + gy * gy);
        split = moved > 2.0 * p->sigma && moved < p->gap_min_speed * (t_f - t_recent);
    }
    if (!split) {
        int r = rsc_transition(m, prev, count);
        if (r < 0) return RSC_ENOMEM;
        if (p->recovery_radius > 0 && m->out_n <= p->max_outliers && rsc_needs_recovery(m, count, r)) {
            /* The road driven may lie beyond the radius, or beyond the nearest roads (an interchange crowded
             * with ramps), while a road the other way is near: search again, as far as the recovery radius and
             * for twice as many roads, in a layer built after this one. It is taken when its best state is a
             * road the first search missed, reached without turning back, and beats the best state before by
             * e^10 (when none was reachable: by a route within the recovery radius of the straight distance);
             * otherwise the layer stays as it was (noise alone makes fixes fall back now and then, and a far road
             * must not win on one such fix). Not for the fixes of an outlier window (beyond max_outliers): the
             * search would be repeated at every fix of the run for the same reason, and on the 70 Kubicka tracks
             * leaving it out changed no result and saved a third of the window's cost at 1 s. */
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
                    take = best >= 0 && !known && !rsc_turned_back(p, w[best].pen) && w[best].score > was + 10.0;
                    /* a chain joined up again must not be joined by a detour (noise breaks chains too) */
                    if (take && r == 0 && fabs(w[best].route - w[best].gc) > p->recovery_radius) take = 0;
                }
            }
            m->state_n = keep;
            if (wide < 0) return wide;
            if (r2 < 0) return RSC_ENOMEM;
            if (take) {
                memmove(&m->states[keep], &m->states[keep + (size_t)count], (size_t)wide * sizeof(rsc_state));
                count = wide;
                r = r2;
            }
        }
        if (r > 0 && !rsc_resume_plausible(m, f, count)) r = 0;
        if (r > 0) {
            rsc_state *cur = &m->states[m->state_n];
            double top = -INFINITY;
            for (int j = 0; j < count; j++) if (cur[j].score > top) top = cur[j].score;
            double drop = top - rsc_layer_top(m, prev);
            if (p->outlier_window > 0 && p->outlier_penalty > 0 && !m->accept_costly &&
                drop < -p->outlier_penalty) {
                m->step_drop = drop;
                return RSC_STEP_COSTLY;
            }
            m->accept_costly = 0;
            int skipped = 0;
            if (p->outlier_penalty > 0 && m->layer_n >= 2 && !m->last_skipped &&
                m->last_drop + drop < -p->outlier_penalty) {
                int s = rsc_skip(m, count, m->last_drop + drop);
                if (s < 0) return s;
                cur = &m->states[m->state_n]; /* the state buffer may have moved */
                if (s > 0) {
                    skipped = 1;
                    prev = &m->layers[m->layer_n - 1];
                    top = -INFINITY;
                    for (int j = 0; j < count; j++) if (cur[j].score > top) top = cur[j].score;
                    drop = top - rsc_layer_top(m, prev);
                }
            }
            /* renormalise to keep scores near zero */
            for (int j = 0; j < count; j++) cur[j].score -= top;
            if (!rsc_commit(m, f, count)) return RSC_ENOMEM;
            m->last_skipped = skipped;
            m->last_drop = drop;
            return skipped ? RSC_STEP_SKIPPED : RSC_STEP_COMMITTED;
        }
        /* the layer's nearest road, for the outlier run (rsc_outlier_note); a recovery layer taken has it too */
        m->near = INFINITY;
        for (int j = 0; j < count; j++)
            if (m->states[m->state_n + (size_t)j].distance < m->near) m->near = m->states[m->state_n + (size_t)j].distance;
        return RSC_STEP_UNREACHABLE;
    }
    return RSC_STEP_GAP;
}

int rsc_matcher_run(rsc_matcher *m, const rsc_match_params *p, size_t n, const double *x, const double *y,
                    const double *time, const double *course, const double *speed, const double *accuracy,
                    size_t stride) {
    if (!m || !p || (n > 0 && (!x || !y)) || n > INT32_MAX || stride == 0) return RSC_EINVAL;
    if (rsc_match_params_check(p, NULL, 0) != RSC_OK) return RSC_EINVAL;
    m->p = p;
    m->x = x; m->y = y; m->t = time; m->course = course; m->speed = speed; m->accuracy = accuracy; m->n = n;
    m->stride = stride;
    if (!RSC_GROW(m->fixes, m->fix_cap, n ? n : 1)) return RSC_ENOMEM;
    for (size_t i = 0; i < n; i++) rsc_fix_unmatched(&m->fixes[i]);
    m->sub_n = 0;
    m->path_n = 0;
    m->prune_count = 0;
    m->state_n = 0;
    m->layer_n = 0;
    m->entry_n = 0;
    m->held_n = 0;
    if (++m->run_stamp == 0) {
        memset(m->c_stamp, 0, m->g->arc_count * sizeof(uint32_t));
        m->run_stamp = 1;
    }
    size_t pending_first = 0; /* the first fix of the run of outliers (m->out_n of them) */
    rsc_outliers_clear(m);
    size_t f = 0;
    for (;;) {
        if (f >= n) {
            if (m->out_n > 0 && m->out_at >= 0) {
                /* the track ends in a run with a costly fix: no fix resumed the chain past it, so it is taken */
                f = m->out_at_fix;
                rsc_outliers_rewind(m);
                continue;
            }
            if (m->out_n > 0) {
                if (!rsc_finalize(m, (int32_t)m->sub_n)) return RSC_ENOMEM;
                f = pending_first;
                rsc_outliers_clear(m);
                continue;
            }
            break;
        }
        if (!isfinite(x[f]) || !isfinite(y[f])) { f++; continue; }
        if (m->layer_n > 0 && m->out_n == 0 && p->min_fix_distance > 0) {
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
        /* The gap is measured from the latest fix held or scored in this sub-match. */
        int32_t recent = -1;
        if (m->layer_n > 0) {
            int32_t lf = m->layers[m->layer_n - 1].fix;
            recent = m->held_n > 0 && m->held_fix[m->held_n - 1] > lf ? m->held_fix[m->held_n - 1] : lf;
        }
        int st = rsc_step(m, f, recent);
        if (st < 0) return st;
        if (st == RSC_STEP_NONE) { f++; continue; }
        if (st == RSC_STEP_COMMITTED || st == RSC_STEP_SKIPPED) {
            rsc_outliers_clear(m);
            f++;
            if (!rsc_prune_states(m)) return RSC_ENOMEM;
            continue;
        }
        if ((st == RSC_STEP_UNREACHABLE || st == RSC_STEP_COSTLY) && rsc_outlier_allowed(m, f, st == RSC_STEP_COSTLY)) {
            if (m->out_n == 0) pending_first = f;
            rsc_outlier_note(m, f, recent, st == RSC_STEP_COSTLY);
            f++;
            continue;
        }
        if (st == RSC_STEP_COSTLY && m->out_at < 0) {
            m->accept_costly = 1; /* no run it may join with a costly fix in it to rewind to: taken at once */
            continue;
        }
        if (m->out_n > 0 && m->out_at >= 0) {
            /* The run was not bridged and has a costly fix: that fix is taken after all (the outliers before it stay
             * outliers), and the fixes after it are scored again. */
            f = m->out_at_fix;
            rsc_outliers_rewind(m);
            continue;
        }
        /* Split: end the sub-match here and restart at the first unreachable fix. */
        if (!rsc_finalize(m, (int32_t)m->sub_n)) return RSC_ENOMEM;
        if (m->out_n > 0) f = pending_first;
        rsc_outliers_clear(m);
    }
    if (!rsc_finalize(m, (int32_t)m->sub_n)) return RSC_ENOMEM;
    rsc_drop_off_road(m);
    rsc_trim_states(m);
    return (int)m->sub_n;
}
