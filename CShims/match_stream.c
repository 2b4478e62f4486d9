/* Hidden-Markov matcher, incremental and lag-bounded (cshims_match.h, rsc_stream_*): the driver of a live feed over
 * the same parts and the same step (rsc_step) as the batch run. The current chain's fixes are kept as the batch run
 * would index them (the fix of each layer, then at most one held fix after the last layer), and the chain is cut back
 * to the lag window as it grows, so memory stays bounded on an endless drive. */
#include "cshims_match_internal.h"

enum { RSC_SLOT_UNMATCHED = 0, RSC_SLOT_SCORED = 1, RSC_SLOT_HELD = 2, RSC_SLOT_FROZEN = 3, RSC_SLOT_PENDING = 4 };

/* One of the last max_lag + 1 pushed fixes: unmatched, on a layer of the chain (scored there or held by it), frozen
 * (its answer fixed when its chain ended), or pending (in the open run of outliers, answered from the shadow chain). */
typedef struct rsc_stream_slot {
    int32_t kind;
    int64_t layer; /* global layer id (scored, held); the fix's place in the run (pending) */
    double x, y;   /* the fix */
    rsc_stream_answer answer; /* unmatched, frozen */
} rsc_stream_slot;

struct rsc_stream {
    rsc_matcher *m;
    rsc_match_params p;
    int32_t max_lag;
    /* Fixes of the current chain in the batch run's indexing (see above). */
    double *x, *y, *t, *course, *speed, *accuracy;
    size_t fix_n, fix_cap;
    int32_t held_pos;   /* index of a held fix after the last layer, -1 when none */
    int64_t layer_base; /* global id of m->layers[0] */
    struct rsc_stream_pend *pend; /* the run of outliers (m->out_n fixes), to be replayed should the chain end before
                                   * a fix is scored, or from its first costly fix should that be taken */
    size_t pend_n, pend_cap;
    struct rsc_stream_pend *replay; /* the fixes being replayed (a stack: a replay can end a chain and replay) */
    size_t replay_n, replay_cap;
    rsc_stream_slot *ring; /* max_lag + 1 slots; slot of push k: k % (max_lag + 1) */
    uint64_t pushed;    /* since the last reset */
    /* The open run of outliers matched as a chain of its own (its push k is pend[k]): what the run becomes should the
     * chain end, so a fix in the run has an answer once later fixes came (lag >= 1). Made at the first outlier; a
     * shadow has none itself. */
    struct rsc_stream *shadow;
    int is_shadow;
    /* The feed's noise estimate (rsc_stream_raise_sigma), NULL when off; `given` holds the parameters the stream was
     * made with, `p` the ones in use (sigma and radius raised by the estimate). */
    struct rsc_stream_noise *noise;
    rsc_match_params given;
};

/* The feed's noise estimate (rsc_stream_raise_sigma): each scored fix's distance to its nearest road within the radius
 * given (its layer's nearest candidate: no search of its own), counted in bins of RSC_NEAR_BIN metres (the last bin
 * holds everything beyond), halved once they hold RSC_NEAR_HALF, so an endless drive's estimate follows its recent
 * hours. */
enum { RSC_NEAR_BINS = 512, RSC_NEAR_HALF = 1 << 14, RSC_NEAR_MIN = 64, RSC_NEAR_EVERY = 16 };
#define RSC_NEAR_BIN 0.125
struct rsc_stream_noise {
    uint32_t bin[RSC_NEAR_BINS];
    uint32_t n, since; /* samples held; samples since sigma was last taken */
};

/* Sigma and radius from the estimate, by the batch run's rule (MapMatcher.match): sigma raised to 1.4826 x the median
 * nearest-road distance (linear within its bin; at least 1 m) when larger, the radius to 5 of those sigmas; the values
 * given below RSC_NEAR_MIN samples. Copied to the shadow chain. */
static void rsc_stream_take_sigma(rsc_stream *s) {
    const struct rsc_stream_noise *z = s->noise;
    double sigma = s->given.sigma, radius = s->given.radius;
    if (z && z->n >= RSC_NEAR_MIN) {
        double half = 0.5 * z->n, below = 0, median = RSC_NEAR_BIN * RSC_NEAR_BINS;
        for (size_t i = 0; i < RSC_NEAR_BINS; i++) {
            if (below + z->bin[i] >= half) {
                median = RSC_NEAR_BIN * ((double)i + (z->bin[i] ? (half - below) / z->bin[i] : 0));
                break;
            }
            below += z->bin[i];
        }
        double estimate = fmax(1.0, 1.4826 * median);
        if (estimate > sigma) {
            sigma = estimate;
            radius = fmax(radius, 5 * estimate);
        }
    }
    s->p.sigma = sigma;
    s->p.radius = radius;
    if (s->shadow) {
        s->shadow->p.sigma = sigma;
        s->shadow->p.radius = radius;
    }
}

/* Adds the newest layer's nearest candidate (the fix just scored) to the estimate when it lies within the radius
 * given; takes sigma again every RSC_NEAR_EVERY samples. */
static void rsc_stream_observe(rsc_stream *s) {
    struct rsc_stream_noise *z = s->noise;
    const rsc_matcher *m = s->m;
    if (m->layer_n == 0) return;
    const rsc_layer *layer = &m->layers[m->layer_n - 1];
    double near = INFINITY;
    for (int32_t j = 0; j < layer->count; j++)
        if (m->states[layer->start + j].distance < near) near = m->states[layer->start + j].distance;
    if (!(near <= s->given.radius)) return;
    double b = near / RSC_NEAR_BIN;
    z->bin[b < RSC_NEAR_BINS - 1 ? (size_t)b : RSC_NEAR_BINS - 1]++;
    if (++z->n >= RSC_NEAR_HALF) {
        z->n = 0;
        for (size_t i = 0; i < RSC_NEAR_BINS; i++) z->n += (z->bin[i] >>= 1);
    }
    if (++z->since >= RSC_NEAR_EVERY) {
        z->since = 0;
        rsc_stream_take_sigma(s);
    }
}

static void rsc_stream_unmatched(rsc_stream_answer *a) {
    rsc_fix_unmatched(&a->fix);
    a->x = NAN;
    a->y = NAN;
}

/* Route searches the stream keeps across cut-backs (rsc_stream_compact) until its pool holds more entries than this
 * (24 bytes each): the next fixes reuse them, and the pool stays bounded on an endless drive. */
#ifndef RSC_STREAM_KEEP_ENTRIES
#define RSC_STREAM_KEEP_ENTRIES 16384
#endif

static void rsc_stream_forget_searches(rsc_matcher *m) {
    m->entry_n = 0;
    if (++m->run_stamp == 0) {
        memset(m->c_stamp, 0, m->g->arc_count * sizeof(uint32_t));
        m->run_stamp = 1;
    }
}

rsc_stream *rsc_stream_create(const rsc_match_graph *g, rsc_query *query, const rsc_match_params *params,
                              int32_t max_lag, double route_bonus) {
    if (!g || !query || !params || max_lag < 0 || max_lag > 1024 || !(route_bonus >= 0) || !isfinite(route_bonus) ||
        rsc_match_params_check(params, NULL, 0) != RSC_OK)
        return NULL;
    rsc_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->m = rsc_matcher_create(g, query);
    s->ring = calloc((size_t)max_lag + 1, sizeof *s->ring);
    if (!s->m || !s->ring) {
        rsc_stream_destroy(s);
        return NULL;
    }
    s->p = *params;
    s->given = *params;
    s->max_lag = max_lag;
    s->m->p = &s->p;
    s->m->route_bonus = route_bonus;
    rsc_stream_reset(s);
    return s;
}

void rsc_stream_destroy(rsc_stream *s) {
    if (!s) return;
    rsc_matcher_destroy(s->m);
    free(s->x); free(s->y); free(s->t); free(s->course); free(s->speed); free(s->accuracy); free(s->ring); free(s->pend); free(s->replay);
    rsc_stream_destroy(s->shadow);
    free(s->noise);
    free(s);
}

void rsc_stream_reset(rsc_stream *s) {
    if (!s) return;
    s->m->state_n = 0;
    s->m->layer_n = 0;
    rsc_stream_forget_searches(s->m);
    s->fix_n = 0;
    s->held_pos = -1;
    s->layer_base = 0;
    rsc_outliers_clear(s->m);
    s->pend_n = 0;
    s->replay_n = 0;
    s->pushed = 0;
    rsc_stream_reset(s->shadow);
}

int rsc_stream_raise_sigma(rsc_stream *s, int on) {
    if (!s || s->is_shadow) return RSC_EINVAL;
    if (on && !s->noise) {
        s->noise = calloc(1, sizeof *s->noise);
        if (!s->noise) return RSC_ENOMEM;
    } else if (!on) {
        free(s->noise);
        s->noise = NULL;
    }
    rsc_stream_take_sigma(s);
    return RSC_OK;
}

double rsc_stream_sigma(const rsc_stream *s) { return s ? s->p.sigma : NAN; }

int rsc_stream_set_route(rsc_stream *s, const int32_t *arcs, size_t n) {
    if (!s || (n > 0 && !arcs)) return RSC_EINVAL;
    size_t na = s->m->g->arc_count;
    for (size_t i = 0; i < n; i++)
        if (arcs[i] < 0 || (size_t)arcs[i] >= na) return RSC_EINVAL;
    if (n == 0) {
        free(s->m->route_arc);
        s->m->route_arc = NULL;
        return RSC_OK;
    }
    if (!s->m->route_arc) {
        s->m->route_arc = calloc(na ? na : 1, 1);
        if (!s->m->route_arc) return RSC_ENOMEM;
    } else {
        memset(s->m->route_arc, 0, na);
    }
    for (size_t i = 0; i < n; i++) s->m->route_arc[arcs[i]] = 1;
    return s->shadow ? rsc_stream_set_route(s->shadow, arcs, n) : RSC_OK;
}

/* The state of global layer `layer` on the best chain ending in the newest layer (the first best, as the batch
 * run's backtracking picks it). */
static const rsc_state *rsc_stream_chain_state(const rsc_stream *s, int64_t layer) {
    const rsc_matcher *m = s->m;
    int32_t best = rsc_chain_end(m);
    int64_t steps = s->layer_base + (int64_t)m->layer_n - 1 - layer;
    for (; steps > 0 && best >= 0; steps--) best = m->states[best].back;
    return best >= 0 ? &m->states[best] : NULL;
}

static void rsc_stream_answer_of(const rsc_stream *s, const rsc_stream_slot *slot, int32_t lag, int ahead,
                                 rsc_stream_answer *out) {
    if (slot->kind == RSC_SLOT_PENDING) {
        /* at lag 0 a possible outlier (no answer); later, its answer on the shadow chain, the run's best explanation
         * with the fixes after it */
        const rsc_stream *h = s->shadow;
        if (lag > 0 && h && slot->layer >= 0 && (uint64_t)slot->layer < h->pushed &&
            h->pushed - 1 - (uint64_t)slot->layer <= (uint64_t)h->max_lag &&
            rsc_stream_result(h, (int32_t)(h->pushed - 1 - (uint64_t)slot->layer), out) == RSC_OK)
            return;
        rsc_stream_unmatched(out);
        return;
    }
    if (slot->kind != RSC_SLOT_SCORED && slot->kind != RSC_SLOT_HELD) {
        *out = slot->answer;
        return;
    }
    const rsc_state *st = rsc_stream_chain_state(s, slot->layer);
    if (!st) { rsc_stream_unmatched(out); return; }
    if (slot->kind == RSC_SLOT_HELD) {
        /* placed on the way to the next layer's state on the same chain, once there is one (as the batch run) */
        const rsc_state *next = NULL;
        if (slot->layer < s->layer_base + (int64_t)s->m->layer_n - 1) {
            next = rsc_stream_chain_state(s, slot->layer + 1);
            if (next && next->back >= 0) st = &s->m->states[next->back];
            else next = NULL;
        }
        rsc_place_held(s->m, slot->x, slot->y, st, next, ahead && !next, &out->fix, &out->x, &out->y);
        out->fix.sub = -1;
        out->fix.path_index = -1;
        return;
    }
    out->fix.arc = st->arc;
    out->fix.sub = -1;
    out->fix.path_index = -1;
    out->fix.held = 0;
    out->fix.offset = st->offset;
    out->fix.distance = st->distance;
    out->x = st->x;
    out->y = st->y;
}

/* Ends the current chain: the fixes on it keep the answers they have now; every state is released. */
static void rsc_stream_end_chain(rsc_stream *s) {
    uint64_t kept = s->pushed < (uint64_t)s->max_lag + 1 ? s->pushed : (uint64_t)s->max_lag + 1;
    if (s->m->layer_n > 0) {
        for (uint64_t k = 0; k < kept; k++) {
            rsc_stream_slot *slot = &s->ring[(s->pushed - 1 - k) % ((uint64_t)s->max_lag + 1)];
            if (slot->kind != RSC_SLOT_SCORED && slot->kind != RSC_SLOT_HELD) continue;
            rsc_stream_answer_of(s, slot, 0, 0, &slot->answer);
            slot->kind = RSC_SLOT_FROZEN;
        }
    }
    s->layer_base += (int64_t)s->m->layer_n;
    s->m->state_n = 0;
    s->m->layer_n = 0;
    rsc_stream_forget_searches(s->m);
    s->held_pos = -1;
    rsc_outliers_clear(s->m);
}

/* Cuts the chain back to its newest `keep` layers (the fixes and states before them are released; the route searches
 * too once the pool holds more than RSC_STREAM_KEEP_ENTRIES entries). */
static void rsc_stream_compact(rsc_stream *s, size_t keep) {
    rsc_matcher *m = s->m;
    if (m->layer_n <= keep) return;
    size_t k0 = m->layer_n - keep;
    int32_t shift = m->layers[k0].start, fshift = m->layers[k0].fix;
    size_t n = m->state_n - (size_t)shift;
    int forget = m->entry_n > RSC_STREAM_KEEP_ENTRIES;
    memmove(m->states, m->states + shift, n * sizeof *m->states);
    for (size_t i = 0; i < n; i++) {
        rsc_state *st = &m->states[i];
        st->back = st->back >= shift ? st->back - shift : -1;
        st->fix -= fshift;
        if (forget) st->entry = -1;
    }
    m->state_n = n;
    memmove(m->layers, m->layers + k0, keep * sizeof *m->layers);
    for (size_t i = 0; i < keep; i++) {
        m->layers[i].start -= shift;
        m->layers[i].fix -= fshift;
    }
    m->layer_n = keep;
    s->layer_base += (int64_t)k0;
    size_t fn = s->fix_n - (size_t)fshift;
    memmove(s->x, s->x + fshift, fn * sizeof(double));
    memmove(s->y, s->y + fshift, fn * sizeof(double));
    memmove(s->t, s->t + fshift, fn * sizeof(double));
    memmove(s->course, s->course + fshift, fn * sizeof(double));
    memmove(s->speed, s->speed + fshift, fn * sizeof(double));
    memmove(s->accuracy, s->accuracy + fshift, fn * sizeof(double));
    s->fix_n = fn;
    if (s->held_pos >= 0) s->held_pos -= fshift;
    if (forget) rsc_stream_forget_searches(m);
}

/* Room for `need` fixes in all six arrays. 0 on out of memory. */
static int rsc_stream_reserve(rsc_stream *s, size_t need) {
    if (need <= s->fix_cap) return 1;
    size_t c = s->fix_cap ? s->fix_cap : 64;
    while (c < need) c *= 2;
    double **arrays[6] = {&s->x, &s->y, &s->t, &s->course, &s->speed, &s->accuracy};
    for (int i = 0; i < 6; i++) {
        double *g = realloc(*arrays[i], c * sizeof(double));
        if (!g) return 0; /* the arrays grown so far are larger than fix_cap: harmless */
        *arrays[i] = g;
    }
    s->fix_cap = c;
    return 1;
}

/* One of the fixes a chain ended after (the outliers before the end), replayed into the next chain as the batch
 * run replays them: the fix and its push number. */
typedef struct rsc_stream_pend {
    double x, y, t, course, speed, accuracy;
    uint64_t push;
} rsc_stream_pend;

/* The ring slot of push `push`, or NULL when it has left the lag window. */
static rsc_stream_slot *rsc_stream_slot_of(rsc_stream *s, uint64_t push) {
    if (s->pushed - 1 - push > (uint64_t)s->max_lag) return NULL;
    return &s->ring[push % ((uint64_t)s->max_lag + 1)];
}

static int rsc_stream_take(rsc_stream *s, uint64_t push, double x, double y, double time, double course,
                           double speed, double accuracy);

/* Feeds the run's fix k (s->pend[k]) to the shadow chain (made on first use) and marks its slot pending. */
static int rsc_stream_shadow_push(rsc_stream *s, size_t k) {
    if (s->is_shadow) return RSC_OK;
    if (!s->shadow) {
        s->shadow = rsc_stream_create(s->m->g, s->m->query, &s->p, s->max_lag, s->m->route_bonus);
        if (!s->shadow) return RSC_ENOMEM;
        s->shadow->is_shadow = 1;
        if (s->m->route_arc) {
            size_t na = s->m->g->arc_count;
            s->shadow->m->route_arc = malloc(na ? na : 1);
            if (!s->shadow->m->route_arc) return RSC_ENOMEM;
            memcpy(s->shadow->m->route_arc, s->m->route_arc, na);
        }
    }
    const rsc_stream_pend *a = &s->pend[k];
    int r = rsc_stream_push(s->shadow, a->x, a->y, a->t, a->course, a->speed, a->accuracy);
    if (r != RSC_OK) return r;
    rsc_stream_slot *slot = rsc_stream_slot_of(s, a->push);
    if (slot) {
        slot->kind = RSC_SLOT_PENDING;
        slot->layer = (int64_t)k;
    }
    return RSC_OK;
}

/* The run changed other than by one more fix: the shadow chain is made again from the run's fixes (none: forgotten),
 * and the slots of fixes no longer in the run are unmatched until taken again. */
static int rsc_stream_shadow_rebuild(rsc_stream *s) {
    if (!s->shadow) return RSC_OK;
    rsc_stream_reset(s->shadow);
    for (int32_t i = 0; i <= s->max_lag; i++) {
        rsc_stream_slot *slot = &s->ring[i];
        if (slot->kind != RSC_SLOT_PENDING) continue;
        slot->kind = RSC_SLOT_UNMATCHED;
        slot->layer = -1;
        rsc_stream_unmatched(&slot->answer);
    }
    for (size_t k = 0; k < s->pend_n; k++) {
        int r = rsc_stream_shadow_push(s, k);
        if (r != RSC_OK) return r;
    }
    return RSC_OK;
}

/* Moves the run's fixes from place `from` on off the run and onto the replay stack (a stack: replaying them may end
 * a chain and replay again); *base is where they start on it. RSC_OK, or the failure of the shadow's rebuild or
 * RSC_ENOMEM. */
static int rsc_stream_unpend(rsc_stream *s, size_t from, size_t *base) {
    size_t count = s->pend_n - from;
    *base = s->replay_n;
    if (count > 0) {
        if (!RSC_GROW(s->replay, s->replay_cap, *base + count)) return RSC_ENOMEM;
        memcpy(&s->replay[*base], &s->pend[from], count * sizeof *s->replay);
        s->replay_n = *base + count;
    }
    s->pend_n = from;
    return rsc_stream_shadow_rebuild(s);
}

/* Takes the fixes on the replay stack from `base` on again, in order, then pops them. */
static int rsc_stream_replay(rsc_stream *s, size_t base) {
    for (size_t k = base; k < s->replay_n; k++) {
        rsc_stream_pend a = s->replay[k];
        int r = rsc_stream_take(s, a.push, a.x, a.y, a.t, a.course, a.speed, a.accuracy);
        if (r != RSC_OK) return r;
    }
    s->replay_n = base;
    return RSC_OK;
}

/* Scores or holds one fix (push number `push`, its slot already marked unmatched) on the current chain. */
static int rsc_stream_take(rsc_stream *s, uint64_t push, double x, double y, double time, double course,
                           double speed, double accuracy) {
    rsc_matcher *m = s->m;
    rsc_stream_slot *slot = rsc_stream_slot_of(s, push);
    if (!isfinite(x) || !isfinite(y)) return RSC_OK;
    if (m->layer_n > 0 && m->out_n == 0 && s->p.min_fix_distance > 0) {
        int32_t lf = m->layers[m->layer_n - 1].fix;
        double hx = x - s->x[lf], hy = y - s->y[lf];
        if (hx * hx + hy * hy < s->p.min_fix_distance * s->p.min_fix_distance) {
            /* held: it takes its layer's state; only the latest held fix is kept (the gap is measured from it) */
            if (slot) {
                slot->kind = RSC_SLOT_HELD;
                slot->layer = s->layer_base + (int64_t)m->layer_n - 1;
            }
            if (s->held_pos < 0) {
                if (!rsc_stream_reserve(s, s->fix_n + 1)) return RSC_ENOMEM;
                s->held_pos = (int32_t)s->fix_n++;
            }
            size_t h = (size_t)s->held_pos;
            s->x[h] = x; s->y[h] = y; s->t[h] = time;
            s->course[h] = course; s->speed[h] = speed; s->accuracy[h] = accuracy;
            return RSC_OK;
        }
    }
    if (!rsc_stream_reserve(s, s->fix_n + 1)) return RSC_ENOMEM;
    size_t f = s->fix_n++;
    s->x[f] = x; s->y[f] = y; s->t[f] = time;
    s->course[f] = course; s->speed[f] = speed; s->accuracy[f] = accuracy;
    m->x = s->x; m->y = s->y; m->t = s->t; m->n = s->fix_n; m->stride = 1;
    m->course = s->course; m->speed = s->speed; m->accuracy = s->accuracy;
    for (int attempt = 0; attempt < 2; attempt++) {
        int32_t recent = -1;
        if (m->layer_n > 0) recent = s->held_pos >= 0 ? s->held_pos : m->layers[m->layer_n - 1].fix;
        int st = rsc_step(m, f, recent);
        if (st < 0) return st;
        if (st == RSC_STEP_NONE) {
            s->fix_n--;
            return RSC_OK;
        }
        if (st == RSC_STEP_SKIPPED) {
            /* the previous layer was dropped (its fix an outlier): its fix and the fixes it held are unmatched, and
             * this fix's layer has its global id */
            int64_t gone = s->layer_base + (int64_t)m->layer_n - 1;
            uint64_t kept = s->pushed < (uint64_t)s->max_lag + 1 ? s->pushed : (uint64_t)s->max_lag + 1;
            for (uint64_t k = 0; k < kept; k++) {
                rsc_stream_slot *old = &s->ring[(s->pushed - 1 - k) % ((uint64_t)s->max_lag + 1)];
                if (old == slot) continue;
                if ((old->kind == RSC_SLOT_SCORED || old->kind == RSC_SLOT_HELD) && old->layer == gone) {
                    old->kind = RSC_SLOT_UNMATCHED;
                    old->layer = -1;
                    rsc_stream_unmatched(&old->answer);
                }
            }
            st = RSC_STEP_COMMITTED;
        }
        if (st == RSC_STEP_COMMITTED) {
            rsc_outliers_clear(m);
            if (s->pend_n > 0) {
                /* the run was bridged: its fixes stay outliers */
                s->pend_n = 0;
                int r = rsc_stream_shadow_rebuild(s);
                if (r != RSC_OK) return r;
            }
            if (s->held_pos >= 0) {
                /* the held fix before it is no longer the latest: the layer's fix takes its place */
                size_t h = (size_t)s->held_pos;
                s->x[h] = x; s->y[h] = y; s->t[h] = time;
                s->course[h] = course; s->speed[h] = speed; s->accuracy[h] = accuracy;
                m->layers[m->layer_n - 1].fix = (int32_t)h;
                for (int32_t j = 0; j < m->layers[m->layer_n - 1].count; j++)
                    m->states[m->layers[m->layer_n - 1].start + j].fix = (int32_t)h;
                s->fix_n--;
                s->held_pos = -1;
            }
            if (slot) {
                slot->kind = RSC_SLOT_SCORED;
                slot->layer = s->layer_base + (int64_t)m->layer_n - 1;
            }
            size_t window = (size_t)s->max_lag + 2;
            if (m->layer_n >= 2 * window + 16) rsc_stream_compact(s, window);
            return RSC_OK;
        }
        if ((st == RSC_STEP_UNREACHABLE || st == RSC_STEP_COSTLY) && rsc_outlier_allowed(m, f, st == RSC_STEP_COSTLY)) {
            rsc_outlier_note(m, f, recent, st == RSC_STEP_COSTLY);
            s->fix_n--;
            /* kept to be replayed into the next chain should this one end before a fix is scored */
            if (!RSC_GROW(s->pend, s->pend_cap, s->pend_n + 1)) return RSC_ENOMEM;
            s->pend[s->pend_n++] = (rsc_stream_pend){x, y, time, course, speed, accuracy, push};
            return rsc_stream_shadow_push(s, s->pend_n - 1);
        }
        if (st == RSC_STEP_COSTLY && m->out_at < 0) {
            /* no run it may join with a costly fix in it to rewind to: taken at once, as the batch run does */
            m->accept_costly = 1;
            continue;
        }
        if (s->pend_n > 0 && m->out_at >= 0) {
            /* the run was not bridged and has a costly fix: it is taken after all (the outliers before it stay
             * outliers), and the fixes after it and this fix are scored again (as the batch run rewinds) */
            size_t base;
            int r = rsc_stream_unpend(s, (size_t)rsc_outliers_rewind(m), &base);
            if (r != RSC_OK) return r;
            s->fix_n--;
            r = rsc_stream_replay(s, base);
            if (r != RSC_OK) return r;
            return rsc_stream_take(s, push, x, y, time, course, speed, accuracy);
        }
        /* the chain ends before this fix; the outliers before it (as the batch run does) and then the fix start the
         * next one */
        size_t replay = s->pend_n, base;
        int r = rsc_stream_unpend(s, 0, &base);
        if (r != RSC_OK) return r;
        rsc_stream_end_chain(s);
        s->fix_n = 0;
        r = rsc_stream_replay(s, base);
        if (r != RSC_OK) return r;
        if (replay > 0) return rsc_stream_take(s, push, x, y, time, course, speed, accuracy);
        s->x[0] = x; s->y[0] = y; s->t[0] = time;
        s->course[0] = course; s->speed[0] = speed; s->accuracy[0] = accuracy;
        s->fix_n = 1;
        f = 0;
    }
    return RSC_OK; /* unreachable: a fix with candidates always starts a chain */
}

int rsc_stream_push(rsc_stream *s, double x, double y, double time, double course, double speed, double accuracy) {
    if (!s) return RSC_EINVAL;
    rsc_stream_slot *slot = &s->ring[s->pushed % ((uint64_t)s->max_lag + 1)];
    s->pushed++;
    slot->kind = RSC_SLOT_UNMATCHED;
    slot->layer = -1;
    slot->x = x;
    slot->y = y;
    rsc_stream_unmatched(&slot->answer);
    int r = rsc_stream_take(s, s->pushed - 1, x, y, time, course, speed, accuracy);
    if (r != RSC_OK) rsc_stream_reset(s);
    else if (s->noise && slot->kind == RSC_SLOT_SCORED) rsc_stream_observe(s);
    return r;
}

int rsc_stream_result(const rsc_stream *s, int32_t lag, rsc_stream_answer *out) {
    if (!s || !out || lag < 0 || lag > s->max_lag || (uint64_t)lag >= s->pushed) return RSC_EINVAL;
    const rsc_stream_slot *slot = &s->ring[(s->pushed - 1 - (uint64_t)lag) % ((uint64_t)s->max_lag + 1)];
    rsc_stream_answer_of(s, slot, lag, 1, out);
    return RSC_OK;
}

size_t rsc_stream_memory(const rsc_stream *s) {
    if (!s) return 0;
    const rsc_matcher *m = s->m;
    return m->state_cap * sizeof(rsc_state) + m->layer_cap * sizeof(rsc_layer) + m->entry_cap * sizeof(rsc_entry) +
           m->heap_cap * sizeof(rsc_heap_item) + s->fix_cap * 6 * sizeof(double) +
           ((size_t)s->max_lag + 1) * sizeof(rsc_stream_slot) +
           (s->pend_cap + s->replay_cap) * sizeof(rsc_stream_pend) + (s->noise ? sizeof *s->noise : 0) +
           rsc_stream_memory(s->shadow);
}

size_t rsc_stream_pending(const rsc_stream *s) { return s ? s->pend_n : 0; }
