/* Hidden-Markov matcher, part 7: pruning the Viterbi states of a long sub-match (issue 16, item 11: memory on big
 * tracks). A batch run keeps every layer of the current sub-match for the backtracking at its end, and each layer
 * holds up to max_candidates states of 96 bytes: on a 1,000,000-fix track driven as one sub-match that was about
 * 500 bytes per fix. Only the states some chain from the newest layer passes through can end up on the best chain
 * (every later layer's predecessors are states of the newest layer), and chains merge within a few layers, so
 * the older layers keep about one state each. Pruning keeps exactly those states (and the newest layer whole),
 * in order, with `back` renumbered: the backtracking and every result are unchanged.
 * The route entries (rsc_entry, the arcs of the routes searched) grow the same way, one search per transition: those
 * a kept state's route runs through and those of the route cache (the latest search from each arc) are kept, in
 * order, renumbered; the cache stays as it was, so every later search and result is the same. */
#include "cshims_match_internal.h"

/* Fewer states than this are never pruned (small tracks run as before). */
#define RSC_PRUNE_MIN_STATES 65536

/* Fewer route entries than this are never pruned. */
#define RSC_PRUNE_MIN_ENTRIES 262144

/* Keeps the entries some kept state's route or the route cache uses (see above); 0 when out of memory. */
static int rsc_prune_entries(rsc_matcher *m) {
    size_t n = m->entry_n;
    if (n == 0) return 1;
    int32_t *map = calloc(n, sizeof *map);
    if (!map) return 0;
    for (size_t s = 0; s < m->state_n; s++)
        for (int32_t e = m->states[s].entry; e >= 0 && !map[e]; e = m->entries[e].parent) map[e] = 1;
    const rsc_match_graph *g = m->g;
    for (size_t a = 0; a < g->arc_count; a++) {
        if (m->c_stamp[a] != m->run_stamp) continue;
        for (int32_t k = 0; k < m->c_count[a]; k++) map[m->c_start[a] + k] = 1;
    }
    /* in order: an entry's parent was settled before it, so it has its new index already */
    size_t w = 0;
    for (size_t e = 0; e < n; e++) {
        if (!map[e]) continue;
        map[e] = (int32_t)w;
        if (w != e) m->entries[w] = m->entries[e];
        if (m->entries[w].parent >= 0) m->entries[w].parent = map[m->entries[w].parent];
        w++;
    }
    for (size_t s = 0; s < m->state_n; s++)
        if (m->states[s].entry >= 0) m->states[s].entry = map[m->states[s].entry];
    for (size_t a = 0; a < g->arc_count; a++)
        if (m->c_stamp[a] == m->run_stamp) m->c_start[a] = m->c_count[a] > 0 ? map[m->c_start[a]] : 0;
    free(map);
    m->entry_n = w;
    if (2 * w > m->entry_cap && !RSC_GROW(m->entries, m->entry_cap, 2 * m->entry_cap)) return 0;
    return 1;
}

int rsc_prune_states(rsc_matcher *m) {
    /* Room a step may need beyond state_n: its layer and a wider recovery layer (rsc_step, rsc_build_layer). While
     * that much is free after every commit, the buffer grows only here. */
    size_t margin = 8 * (size_t)(m->p->max_candidates > 0 ? m->p->max_candidates : 1) + 64;
    size_t min_states = m->prune_min_states ? m->prune_min_states : RSC_PRUNE_MIN_STATES;
    size_t min_entries = m->prune_min_entries ? m->prune_min_entries : RSC_PRUNE_MIN_ENTRIES;
    int states_full = m->state_n >= min_states && m->state_n + margin > m->state_cap;
    int entries_full = m->entry_n >= min_entries && 4 * m->entry_n >= 3 * m->entry_cap;
    if (m->layer_n < 3 || (!states_full && !entries_full)) return 1;
    m->prune_count++;
    size_t n = m->state_n;
    int32_t *map = malloc(n * sizeof *map);
    if (!map) return 0;
    /* mark: the newest layer whole, then the predecessors of marked states, layer by layer back to the first */
    memset(map, 0, n * sizeof *map);
    /* ... and the layer before it whole too: the next step may score its layer from there (rsc_step's outlier test) */
    for (size_t k = m->layer_n - 2; k < m->layer_n; k++) {
        const rsc_layer *whole = &m->layers[k];
        for (int32_t j = 0; j < whole->count; j++) map[whole->start + j] = 1;
    }
    for (size_t k = m->layer_n; k-- > 1;) {
        const rsc_layer *l = &m->layers[k];
        for (int32_t j = 0; j < l->count; j++) {
            const rsc_state *s = &m->states[l->start + j];
            if (map[l->start + j] && s->back >= 0) map[s->back] = 1;
        }
    }
    /* compact in order: a state's predecessor lies in an earlier layer, so it has its new index already */
    size_t w = 0;
    for (size_t k = 0; k < m->layer_n; k++) {
        rsc_layer *l = &m->layers[k];
        size_t start = w;
        for (int32_t j = 0; j < l->count; j++) {
            size_t s = (size_t)l->start + (size_t)j;
            if (!map[s]) continue;
            map[s] = (int32_t)w;
            if (w != s) m->states[w] = m->states[s];
            if (m->states[w].back >= 0) m->states[w].back = map[m->states[w].back];
            w++;
        }
        l->start = (int32_t)start;
        l->count = (int32_t)(w - start);
    }
    free(map);
    m->state_n = w;
    /* Room for an eighth more than was kept (and at least RSC_PRUNE_MIN_STATES / 2): the next prune comes after that
     * many new states, so the work stays linear in the track (states already in place are not moved again), and the
     * buffer stays about 1.125 times the states kept (growing it by doubling left it up to 2.5 times). */
    size_t want = w + w / 8 + min_states / 2;
    if (want > m->state_cap) {
        rsc_state *g = realloc(m->states, want * sizeof *g);
        if (!g) return 0;
        m->states = g;
        m->state_cap = want;
    }
    return rsc_prune_entries(m);
}

/* Buffers larger than this (bytes) are freed at the end of a batch run rather than kept for the next track. */
#define RSC_TRIM_BYTES ((size_t)16 << 20)

void rsc_trim_states(rsc_matcher *m) {
    if (m->state_cap * sizeof *m->states > RSC_TRIM_BYTES) {
        free(m->states);
        m->states = NULL;
        m->state_cap = 0;
        m->state_n = 0;
    }
    if (m->layer_cap * sizeof *m->layers > RSC_TRIM_BYTES) {
        free(m->layers);
        m->layers = NULL;
        m->layer_cap = 0;
        m->layer_n = 0;
    }
}

void rsc_matcher_release(rsc_matcher *m) {
    if (!m) return;
    rsc_trim_states(m);
    if (m->fix_cap * sizeof *m->fixes > RSC_TRIM_BYTES) {
        free(m->fixes);
        m->fixes = NULL;
        m->fix_cap = 0;
    }
    if (m->entry_cap * sizeof *m->entries > RSC_TRIM_BYTES) {
        free(m->entries);
        m->entries = NULL;
        m->entry_cap = 0;
        m->entry_n = 0;
        /* the route cache pointed into them */
        if (++m->run_stamp == 0) {
            memset(m->c_stamp, 0, m->g->arc_count * sizeof(uint32_t));
            m->run_stamp = 1;
        }
    }
    if (m->path_cap * sizeof *m->path > RSC_TRIM_BYTES) {
        free(m->path);
        m->path = NULL;
        m->path_cap = 0;
    }
    m->path_n = 0;
    m->sub_n = 0;
}

size_t rsc_matcher_set_pruning(rsc_matcher *m, size_t min_states, size_t min_entries) {
    if (!m) return 0;
    m->prune_min_states = min_states;
    m->prune_min_entries = min_entries;
    return m->prune_count;
}
