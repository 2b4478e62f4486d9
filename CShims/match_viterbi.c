/* Hidden-Markov matcher, part 5: Viterbi layers and backtracking: the best chain of a sub-match, its path and the
 * per-fix results and statistics (held fixes placed by match_held.c). */
#include "cshims_match_internal.h"

static int rsc_path_push(rsc_matcher *m, int32_t arc) {
    if (!RSC_GROW(m->path, m->path_cap, m->path_n + 1)) return 0;
    rsc_path_step *st = &m->path[m->path_n++];
    st->arc = arc;
    st->from = 0;
    st->to = m->g->arc_length[arc];
    return 1;
}

/* The state the best chain ends in: the first best-scored state of the newest layer (its first state when none is
 * reachable), or -1 when the layer is empty. */
int32_t rsc_chain_end(const rsc_matcher *m) {
    const rsc_layer *last = &m->layers[m->layer_n - 1];
    if (last->count == 0) return -1;
    int best = rsc_best_state(&m->states[last->start], last->count);
    return last->start + (best < 0 ? 0 : best);
}

/* Share of the shortest route's time a quicker route must save to be taken as the path (ties and rounding keep the
 * shortest: on a map whose roads all have one speed nothing changes). */
#define RSC_QUICKER_SHARE 0.01

/* Between two states of the best chain joined by a route search without penalties: the quickest route when it saves
 * more than RSC_QUICKER_SHARE of the shortest route's time through the arcs between, its length within what the
 * vehicle could drive in the interval (rsc_route_bound's limit; without times, the transition search's bound). The
 * search is bounded by the shortest route's time, not by the transition's distance factor: on sparse mountain tracks
 * the quicker way between two fixes is often a loop several times the straight distance (Andorra set 7 at 60 s:
 * 1.97 -> 1.64 %). Its last entry, -1 when the shortest stays, -2 on out of memory. */
static int32_t rsc_quicker_route(rsc_matcher *m, const rsc_state *from, const rsc_state *to) {
    const rsc_match_graph *g = m->g;
    double shortest_time = 0;
    for (int32_t e = m->entries[to->entry].parent; e >= 0; e = m->entries[e].parent)
        shortest_time += g->arc_length[m->entries[e].arc] / g->arc_speed[m->entries[e].arc];
    double drive;
    rsc_route_bound(m->p, to->gc, rsc_fix_interval(m, (size_t)from->fix, (size_t)to->fix), &drive);
    double max_len = drive - (g->arc_length[from->arc] - from->offset) - to->offset;
    if (max_len <= 0) return -1;
    return rsc_quickest_route(m, from->arc, to->arc, max_len, shortest_time * (1.0 - RSC_QUICKER_SHARE));
}

/* Ends the current sub-match at its last layer: backtracks, writes per-fix results, the path and the statistics. */
int rsc_finalize(rsc_matcher *m, int32_t sub_index) {
    if (m->layer_n == 0) return 1;
    int32_t best = rsc_chain_end(m);
    if (!RSC_GROW(m->chain, m->chain_cap, m->layer_n)) return 0;
    size_t len = 0;
    for (int32_t s = best; s >= 0; s = m->states[s].back) m->chain[len++] = s;
    if (!RSC_GROW(m->subs, m->sub_cap, m->sub_n + 1)) return 0;
    rsc_match_sub *sub = &m->subs[m->sub_n++];
    memset(sub, 0, sizeof *sub);
    sub->path_start = (int32_t)m->path_n;
    double dist_sum = 0, sigmas_sum = 0;
    for (size_t k = len; k-- > 0;) {
        const rsc_state *s = &m->states[m->chain[k]];
        rsc_match_fix *fx = &m->fixes[s->fix];
        fx->arc = s->arc;
        fx->sub = sub_index;
        fx->offset = s->offset;
        fx->distance = s->distance;
        dist_sum += s->distance;
        sigmas_sum += s->distance / rsc_fix_sigma(m, (size_t)s->fix);
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
                rsc_candidate c;
                if (rsc_query_edge_candidate(m->query, e, m->x[f], m->y[f], m->p->radius, &c) == 1) {
                    double o = rsc_arc_offset(last->arc, len_before, c.offset);
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
            size_t mark = m->path_n, entries_before = m->entry_n;
            int32_t route = s->entry;
            if (m->g->arc_speed && !rsc_turned_back(m->p, s->pen) && m->entries[route].parent >= 0) {
                int32_t q = rsc_quicker_route(m, &m->states[s->back], s);
                if (q == -2) return 0;
                if (q >= 0) route = q;
            }
            for (int32_t e = route; e >= 0; e = m->entries[e].parent)
                if (!rsc_path_push(m, m->entries[e].arc)) return 0;
            m->entry_n = entries_before; /* a quicker route's entries were only needed for its path */
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
        size_t li = len - 1 - (size_t)m->held_layer[k];
        const rsc_state *s = &m->states[m->chain[li]];
        const rsc_state *next = li > 0 ? &m->states[m->chain[li - 1]] : NULL;
        int32_t f = m->held_fix[k];
        rsc_match_fix *fx = &m->fixes[f];
        int on_next = rsc_place_held(m, m->x[f], m->y[f], s, next, 0, fx, NULL, NULL);
        fx->sub = sub_index;
        fx->path_index = m->fixes[on_next ? next->fix : s->fix].path_index;
        dist_sum += fx->distance;
        sigmas_sum += fx->distance / rsc_fix_sigma(m, (size_t)f);
    }
    const rsc_state *end = &m->states[m->chain[0]];
    sub->last_fix = end->fix;
    if (m->held_n > 0 && m->held_fix[m->held_n - 1] > sub->last_fix) sub->last_fix = m->held_fix[m->held_n - 1];
    sub->matched_fixes = (int32_t)(len + m->held_n);
    sub->mean_distance = dist_sum / (double)(len + m->held_n);
    sub->mean_sigmas = sigmas_sum / (double)(len + m->held_n);
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

int rsc_commit(rsc_matcher *m, size_t f, int count) {
    if (!RSC_GROW(m->layers, m->layer_cap, m->layer_n + 1)) return 0;
    rsc_layer *l = &m->layers[m->layer_n++];
    l->fix = (int32_t)f;
    l->start = (int32_t)m->state_n;
    l->count = count;
    m->last_skipped = 0;
    m->last_drop = 0;
    m->state_n += (size_t)count;
    return 1;
}

void rsc_drop_off_road(rsc_matcher *m) {
    double limit = m->p->off_road;
    if (!(limit > 0)) return;
    int64_t total = 0;
    for (size_t k = 0; k < m->sub_n; k++) total += m->subs[k].matched_fixes;
    size_t kept = 0, path_w = 0;
    for (size_t k = 0; k < m->sub_n; k++) {
        rsc_match_sub sub = m->subs[k];
        int off = sub.mean_sigmas >= limit && 2 * (int64_t)sub.matched_fixes < total;
        for (int32_t f = sub.first_fix; f <= sub.last_fix; f++) {
            rsc_match_fix *fx = &m->fixes[f];
            if (fx->sub != (int32_t)k) continue;
            if (off) rsc_fix_unmatched(fx);
            else fx->sub = (int32_t)kept;
        }
        if (off) continue;
        if (path_w != (size_t)sub.path_start)
            memmove(&m->path[path_w], &m->path[sub.path_start], (size_t)sub.path_count * sizeof *m->path);
        sub.path_start = (int32_t)path_w;
        path_w += (size_t)sub.path_count;
        m->subs[kept++] = sub;
    }
    m->sub_n = kept;
    m->path_n = path_w;
}
