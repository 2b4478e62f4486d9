/*
 * Contraction-hierarchy preprocessing: independent node sets contracted in rounds, in parallel.
 * See cshims_ch.h for the contract. Memory: per node ~60 bytes plus ~17 bytes per worker thread; per link 28 bytes
 * plus two adjacency entries of 12 bytes while it is in the remaining graph.
 */
#define _GNU_SOURCE
#include "cshims.h"
#include "cshims_ch_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One adjacency entry of the remaining graph: the other endpoint, the link's cost and id. */
typedef struct {
    int32_t node, cost, link;
} entry;

/* Adjacency lists that change during contraction, in one pool: node v owns pool[start[v] ..< start[v] + count[v]]
 * and moves to the pool's end (doubling its capacity) when it outgrows its slot. */
typedef struct {
    size_t *start;
    int32_t *count, *cap;
    entry *pool;
    size_t len, size;
} adjacency;

/* A shortcut found for a contracted node: from, to, cost, and the in-link and out-link it stands for. */
typedef struct {
    int32_t from, to, cost, in, out;
} shortcut;

/* A witness search's label of one node, in one 16-byte record so a relaxation touches one cache line: the distance,
 * the generation that set it (high 24 bits) with the links followed to reach it (low 8 bits), and the generation in
 * which the node is a target. */
typedef struct {
    int64_t dist;
    uint32_t stamp_hops, target;
} label;

/* Per-thread witness search state, reset in O(1) by generation stamps, and the thread's found shortcuts. */
typedef struct {
    label *label;
    uint32_t gen; /* < 2^24 */
    rsc_ch_heap heap;
    shortcut *found;
    size_t found_len, found_size;
} workspace;

typedef struct ch ch;
typedef void (*task)(ch *c, workspace *w, int32_t index);

struct ch {
    int32_t n;
    rsc_ch_options opt;
    int threads;
    /* Links: original links, then shortcuts. */
    int32_t *tail, *head, *cost, *first, *second, *hops;
    uint8_t *alive;
    size_t links, links_size;
    adjacency out, in;
    /* Per node. */
    int64_t *prio;
    int32_t *level, *rank, *argmin, *touched_round;
    uint8_t *state; /* 0 remaining, 1 selected this round, 2 contracted */
    uint8_t *stale; /* priority not recomputed since the neighbourhood changed (an estimate: old + 1) */
    /* Per-round lists. */
    int32_t *remaining, remaining_len;
    int32_t *selected, selected_len;
    int32_t *touched, touched_len;
    int64_t *estimate; /* priorities of the stale selected nodes before they were simulated again */
    /* Where each selected node's shortcuts are: thread, offset, count. */
    int32_t *found_tid;
    size_t *found_off;
    int32_t *found_cnt;
    workspace *work;
    int32_t *items; /* the list the running parallel task indexes */
    atomic_int stop; /* 0, or the RSC_E* code that stops the build */
    int64_t shortcuts;
};

enum { STATE_REMAINING = 0, STATE_SELECTED = 1, STATE_CONTRACTED = 2 };
/* Touched nodes with at most this many in x out links get their priority recomputed right away. */
enum { EAGER_LIMIT = 16 };
/* Rounds stop (and the serial tail takes over) once a round selects fewer than 1/TAIL_FACTOR of the nodes left. */
enum { TAIL_FACTOR = 256 };
/* The hybrid order leaves the rounds once a round selects fewer than 1/SWITCH_FACTOR of the nodes left. 16 was
 * ~10 % faster at 1 M edges while the top's arcs were ordered in pairs (RSC_CH_PAIRS=1), not with arcs one by one
 * (38.8 vs 36.4 s), and it leaves RoutingAlternativesTests' via-node alternatives on the Bellevue sample at 29 of
 * 60 pairs (the test asks for half): 32 stays (docs/routing-preprocessing.md, "Fifth pass"). */
enum { SWITCH_FACTOR = 32 };
/* Witness search bounds of the hybrid and nested-dissection orders when the options leave them at 0 (the greedy
 * order's defaults are 20/3 and 200/32, in settle_sim ... hop_con): simulation 10 settled nodes / 2 links,
 * contraction 100 / 16. */
enum { HYBRID_SIM_SETTLE = 10, HYBRID_SIM_HOPS = 2, HYBRID_CON_SETTLE = 100, HYBRID_CON_HOPS = 16 };

/* ---- small helpers ---- */

static int grow(void **p, size_t *size, size_t need, size_t elem) {
    if (need <= *size) return 0;
    size_t s = *size ? *size : 16;
    while (s < need) s = s * 2;
    void *q = realloc(*p, s * elem);
    if (!q) return -1;
    *p = q;
    *size = s;
    return 0;
}

static uint32_t mix(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* Total order of contraction keys: priority, then a hash of the id (ties spread in space), then the id. */
static int less(const ch *c, int32_t a, int64_t pa, int32_t b, int64_t pb) {
    if (pa != pb) return pa < pb;
    uint32_t ha = mix((uint32_t)a), hb = mix((uint32_t)b);
    if (ha != hb) return ha < hb;
    (void)c;
    return a < b;
}

static int contractible(const ch *c, int32_t v) {
    return c->opt.core_degree <= 0 || c->out.count[v] + c->in.count[v] <= c->opt.core_degree;
}

static int64_t effective(const ch *c, int32_t v) { return contractible(c, v) ? c->prio[v] : INT64_MAX; }

/* ---- adjacency ---- */

static int adj_init(adjacency *a, int32_t n, const int32_t *degree) {
    a->start = malloc(sizeof(size_t) * (size_t)(n > 0 ? n : 1));
    a->count = calloc((size_t)(n > 0 ? n : 1), sizeof(int32_t));
    a->cap = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
    if (!a->start || !a->count || !a->cap) return -1;
    size_t total = 0;
    for (int32_t v = 0; v < n; v++) {
        a->start[v] = total;
        a->cap[v] = degree[v] + 1;
        total += (size_t)a->cap[v];
    }
    a->size = total + total / 2 + 16;
    a->pool = malloc(sizeof(entry) * a->size);
    if (!a->pool) return -1;
    a->len = total;
    return 0;
}

static void adj_free(adjacency *a) {
    free(a->start);
    free(a->count);
    free(a->cap);
    free(a->pool);
}

static int adj_append(adjacency *a, int32_t v, entry e) {
    if (a->count[v] == a->cap[v]) {
        int32_t grown = a->cap[v] < 2 ? 4 : a->cap[v] * 2;
        if (grow((void **)&a->pool, &a->size, a->len + (size_t)grown, sizeof(entry))) return -1;
        memcpy(a->pool + a->len, a->pool + a->start[v], sizeof(entry) * (size_t)a->count[v]);
        a->start[v] = a->len;
        a->len += (size_t)grown;
        a->cap[v] = grown;
    }
    a->pool[a->start[v] + (size_t)a->count[v]] = e;
    a->count[v]++;
    return 0;
}

static void adj_remove(adjacency *a, int32_t v, int32_t link) {
    entry *p = a->pool + a->start[v];
    for (int32_t k = 0; k < a->count[v]; k++) {
        if (p[k].link == link) {
            p[k] = p[--a->count[v]];
            return;
        }
    }
}

/* Compacts a pool whose abandoned slots outweigh the live ones (keeps memory bounded on long runs). */
static void adj_compact(adjacency *a, int32_t n) {
    size_t live = 0;
    for (int32_t v = 0; v < n; v++) live += (size_t)a->cap[v];
    if (a->len < 2 * live + 1024) return;
    entry *pool = malloc(sizeof(entry) * (live + live / 2 + 16));
    if (!pool) return; /* keep the old pool: only memory is lost */
    size_t at = 0;
    for (int32_t v = 0; v < n; v++) {
        memcpy(pool + at, a->pool + a->start[v], sizeof(entry) * (size_t)a->count[v]);
        a->start[v] = at;
        at += (size_t)a->cap[v];
    }
    free(a->pool);
    a->pool = pool;
    a->len = at;
    a->size = live + live / 2 + 16;
}

/* ---- links ---- */

/* Appends a link to the link arrays (not to the adjacency lists). Returns its id, or -1 when memory runs out. */
static int32_t new_link(ch *c, int32_t u, int32_t w, int32_t cost, int32_t a, int32_t b) {
    if (c->links >= (size_t)INT32_MAX) return -1;
    if (c->links == c->links_size) {
        size_t s = c->links_size * 2 + 16;
        int32_t **arrays[] = {&c->tail, &c->head, &c->cost, &c->first, &c->second, &c->hops};
        for (int k = 0; k < 6; k++) {
            int32_t *q = realloc(*arrays[k], sizeof(int32_t) * s);
            if (!q) return -1;
            *arrays[k] = q;
        }
        uint8_t *q = realloc(c->alive, s);
        if (!q) return -1;
        c->alive = q;
        c->links_size = s;
    }
    int32_t id = (int32_t)c->links++;
    c->tail[id] = u;
    c->head[id] = w;
    c->cost[id] = cost;
    c->first[id] = a;
    c->second[id] = b;
    int64_t h = a < 0 ? 1 : (int64_t)c->hops[a] + c->hops[b];
    c->hops[id] = h > INT32_MAX ? INT32_MAX : (int32_t)h;
    c->alive[id] = 1;
    return id;
}

/* A new link u -> w (the shortcut for links a then b; -1, -1 for an original link) in the remaining graph. */
static int add_link(ch *c, int32_t u, int32_t w, int32_t cost, int32_t a, int32_t b) {
    const int32_t id = new_link(c, u, w, cost, a, b);
    if (id < 0) return -1;
    if (adj_append(&c->out, u, (entry){w, cost, id})) return -1;
    if (adj_append(&c->in, w, (entry){u, cost, id})) return -1;
    return 0;
}

/* ---- witness search ---- */

static void next_generation(workspace *w, int32_t n) {
    if (++w->gen == (1u << 24)) {
        memset(w->label, 0, sizeof(label) * (size_t)n);
        w->gen = 1;
    }
}

/* Shortcuts needed to contract v: for each link u -> v, a witness search from u (not through v, nor through any
 * node selected this round when `exclude_selected`) bounded by `settle_limit` settled nodes and `hop_limit` links.
 * Counts them in *added and the original links they stand for in *added_hops; appends them to w->found when
 * `collect`. Returns 0, or -1 when memory runs out. */
static int witness(ch *c, workspace *w, int32_t v, int settle_limit, int hop_limit, int exclude_selected, int collect,
                   int64_t *added, int64_t *added_hops) {
    *added = 0;
    *added_hops = 0;
    const int32_t nout = c->out.count[v], nin = c->in.count[v];
    if (nout == 0 || nin == 0) return 0;
    const entry *outs = c->out.pool + c->out.start[v];
    const entry *ins = c->in.pool + c->in.start[v];
    int64_t max_out = 0;
    for (int32_t k = 0; k < nout; k++)
        if (outs[k].cost > max_out) max_out = outs[k].cost;
    for (int32_t ki = 0; ki < nin; ki++) {
        const int32_t u = ins[ki].node;
        if (u == v) continue;
        const int64_t cin = ins[ki].cost;
        next_generation(w, c->n);
        const uint32_t gen = w->gen;
        int32_t targets = 0;
        for (int32_t k = 0; k < nout; k++) {
            int32_t t = outs[k].node;
            if (t != u && t != v && w->label[t].target != gen) {
                w->label[t].target = gen;
                targets++;
            }
        }
        if (targets == 0) continue;
        const int64_t bound = cin + max_out;
        w->heap.len = 0;
        label *lab = w->label;
        const uint32_t fresh = gen << 8;
        lab[u].stamp_hops = fresh;
        lab[u].dist = 0;
        if (rsc_ch_heap_push(&w->heap, 0, u)) return -1;
        int settled = 0;
        while (w->heap.len > 0) {
            rsc_ch_heap_item top = rsc_ch_heap_pop(&w->heap);
            const int32_t x = top.node;
            const int64_t d = top.key;
            if (d > lab[x].dist) continue;
            if (d > bound || settled >= settle_limit) break;
            settled++;
            if (lab[x].target == gen && --targets == 0) break;
            const int h = (int)(lab[x].stamp_hops & 255) + 1;
            if (h > hop_limit) continue;
            const entry *e = c->out.pool + c->out.start[x];
            const int32_t ne = c->out.count[x];
            for (int32_t k = 0; k < ne; k++) {
                const int32_t y = e[k].node;
                if (y == v || (exclude_selected && c->state[y] == STATE_SELECTED)) continue;
                const int64_t dy = d + e[k].cost;
                if (dy > bound) continue;
                if ((lab[y].stamp_hops >> 8) != gen || dy < lab[y].dist) {
                    lab[y].stamp_hops = fresh | (uint32_t)h;
                    lab[y].dist = dy;
                    if (rsc_ch_heap_push(&w->heap, dy, y)) return -1;
                }
            }
        }
        for (int32_t k = 0; k < nout; k++) {
            const int32_t t = outs[k].node;
            if (t == u || t == v) continue;
            const int64_t sc = cin + outs[k].cost;
            if ((w->label[t].stamp_hops >> 8) == gen && w->label[t].dist <= sc) continue;
            (*added)++;
            *added_hops += (int64_t)c->hops[ins[ki].link] + c->hops[outs[k].link];
            if (collect) {
                if (grow((void **)&w->found, &w->found_size, w->found_len + 1, sizeof(shortcut))) return -1;
                w->found[w->found_len++] =
                    (shortcut){u, t, sc > INT32_MAX ? INT32_MAX : (int32_t)sc, ins[ki].link, outs[k].link};
            }
        }
    }
    return 0;
}

/* ---- parallel tasks ---- */

static int settle_sim(const ch *c) { return c->opt.simulation_settle_limit > 0 ? c->opt.simulation_settle_limit : 20; }
static int hop_sim(const ch *c) {
    int h = c->opt.simulation_hop_limit > 0 ? c->opt.simulation_hop_limit : 3;
    return h > 255 ? 255 : h;
}
static int settle_con(const ch *c) {
    return c->opt.contraction_settle_limit > 0 ? c->opt.contraction_settle_limit : 200;
}
static int hop_con(const ch *c) {
    int h = c->opt.contraction_hop_limit > 0 ? c->opt.contraction_hop_limit : 32;
    return h > 255 ? 255 : h;
}

/* Priority (RoutingKit's terms): shortcuts added per link removed, the original links they stand for per original
 * link removed, and level (the longest chain of contracted neighbours below), each weighted 1000. */
static void task_priority(ch *c, workspace *w, int32_t index) {
    const int32_t v = c->items[index];
    int64_t added, added_hops;
    if (witness(c, w, v, settle_sim(c), hop_sim(c), 0, 0, &added, &added_hops)) {
        int expected = 0;
        atomic_compare_exchange_strong(&c->stop, &expected, RSC_ENOMEM);
        return;
    }
    int64_t removed = 0, removed_hops = 0;
    const entry *o = c->out.pool + c->out.start[v];
    for (int32_t k = 0; k < c->out.count[v]; k++) {
        removed++;
        removed_hops += c->hops[o[k].link];
    }
    const entry *i = c->in.pool + c->in.start[v];
    for (int32_t k = 0; k < c->in.count[v]; k++) {
        removed++;
        removed_hops += c->hops[i[k].link];
    }
    c->prio[v] = 1000 * added / (removed > 0 ? removed : 1) + 1000 * added_hops / (removed_hops > 0 ? removed_hops : 1) +
                 1000 * (int64_t)c->level[v];
}

/* argmin[x]: the node of least key among x and its neighbours. */
static void task_argmin(ch *c, workspace *w, int32_t index) {
    (void)w;
    const int32_t x = c->items[index];
    int32_t best = x;
    int64_t bp = effective(c, x);
    adjacency *lists[2] = {&c->out, &c->in};
    for (int s = 0; s < 2; s++) {
        const entry *e = lists[s]->pool + lists[s]->start[x];
        for (int32_t k = 0; k < lists[s]->count[x]; k++) {
            const int32_t y = e[k].node;
            if (y == best) continue;
            const int64_t py = effective(c, y);
            if (less(c, y, py, best, bp)) {
                best = y;
                bp = py;
            }
        }
    }
    c->argmin[x] = best;
}

/* v is selected when it is contractible and the least key within two links of it. */
static void task_select(ch *c, workspace *w, int32_t index) {
    (void)w;
    const int32_t v = c->items[index];
    if (c->argmin[v] != v || !contractible(c, v)) return;
    adjacency *lists[2] = {&c->out, &c->in};
    for (int s = 0; s < 2; s++) {
        const entry *e = lists[s]->pool + lists[s]->start[v];
        for (int32_t k = 0; k < lists[s]->count[v]; k++)
            if (c->argmin[e[k].node] != v) return;
    }
    c->state[v] = STATE_SELECTED;
}

static void task_contract(ch *c, workspace *w, int32_t index) {
    const int32_t v = c->items[index];
    const size_t before = w->found_len;
    int64_t added, added_hops;
    if (witness(c, w, v, settle_con(c), hop_con(c), 1, 1, &added, &added_hops)) {
        int expected = 0;
        atomic_compare_exchange_strong(&c->stop, &expected, RSC_ENOMEM);
        return;
    }
    c->found_tid[index] = (int32_t)(w - c->work);
    c->found_off[index] = before;
    c->found_cnt[index] = (int32_t)(w->found_len - before);
}

typedef struct {
    ch *c;
    task fn;
    int32_t count;
    atomic_int next;
} job;

typedef struct {
    job *j;
    int tid;
} job_arg;

enum { CHUNK = 64 };

static void *run_job(void *p) {
    job_arg *a = p;
    job *j = a->j;
    ch *c = j->c;
    workspace *w = &c->work[a->tid];
    for (;;) {
        if (atomic_load_explicit(&c->stop, memory_order_relaxed)) break;
        int32_t s = atomic_fetch_add(&j->next, CHUNK);
        if (s >= j->count) break;
        if (c->opt.is_canceled && c->opt.is_canceled(c->opt.user)) {
            int expected = 0;
            atomic_compare_exchange_strong(&c->stop, &expected, RSC_ECANCELED);
            break;
        }
        int32_t e = s + CHUNK < j->count ? s + CHUNK : j->count;
        for (int32_t i = s; i < e; i++) j->fn(c, w, i);
    }
    return NULL;
}

/* Runs fn over items[0 ..< count] on the worker threads (the calling thread is worker 0). Returns c->stop. */
static int parallel(ch *c, task fn, int32_t *items, int32_t count) {
    c->items = items;
    job j = {c, fn, count, 0};
    int t = c->threads;
    if (t > count / CHUNK) t = count / CHUNK;
    if (t < 1) t = 1;
    pthread_t th[64];
    job_arg args[64];
    int started = 1;
    for (int k = 1; k < t && k < 64; k++) {
        args[k] = (job_arg){&j, k};
        if (pthread_create(&th[k], NULL, run_job, &args[k]) != 0) break; /* fewer threads: slower, still right */
        started++;
    }
    args[0] = (job_arg){&j, 0};
    run_job(&args[0]);
    for (int k = 1; k < started; k++) pthread_join(th[k], NULL);
    return atomic_load(&c->stop);
}

/* ---- the build ---- */

static void report(ch *c, const char *phase, double fraction) {
    if (c->opt.progress) c->opt.progress(c->opt.user, phase, fraction < 0 ? 0 : fraction > 1 ? 1 : fraction);
}

static int canceled(ch *c) {
    if (atomic_load(&c->stop)) return atomic_load(&c->stop);
    if (c->opt.is_canceled && c->opt.is_canceled(c->opt.user)) atomic_store(&c->stop, RSC_ECANCELED);
    return atomic_load(&c->stop);
}

/* Contracts the selected nodes (serially, in list order): removes their links from the remaining graph, adds
 * their shortcuts (keeping the cheaper of a shortcut and an existing link between the same nodes) and collects the
 * touched neighbours. */
static int apply_round(ch *c, int32_t round, int32_t *next_rank) {
    c->touched_len = 0;
    for (int32_t i = 0; i < c->selected_len; i++) {
        const int32_t v = c->selected[i];
        entry *ins = c->in.pool + c->in.start[v];
        for (int32_t k = 0; k < c->in.count[v]; k++) {
            const int32_t u = ins[k].node;
            if (u == v) continue;
            adj_remove(&c->out, u, ins[k].link);
            if (c->touched_round[u] != round) {
                c->touched_round[u] = round;
                c->touched[c->touched_len++] = u;
            }
            if (c->level[u] < c->level[v] + 1) c->level[u] = c->level[v] + 1;
        }
        entry *outs = c->out.pool + c->out.start[v];
        for (int32_t k = 0; k < c->out.count[v]; k++) {
            const int32_t x = outs[k].node;
            if (x == v) continue;
            adj_remove(&c->in, x, outs[k].link);
            if (c->touched_round[x] != round) {
                c->touched_round[x] = round;
                c->touched[c->touched_len++] = x;
            }
            if (c->level[x] < c->level[v] + 1) c->level[x] = c->level[v] + 1;
        }
        c->out.count[v] = 0;
        c->in.count[v] = 0;
        c->state[v] = STATE_CONTRACTED;
        c->rank[v] = (*next_rank)++;
    }
    for (int32_t i = 0; i < c->selected_len; i++) {
        const shortcut *s = c->work[c->found_tid[i]].found + c->found_off[i];
        for (int32_t k = 0; k < c->found_cnt[i]; k++) {
            const shortcut sc = s[k];
            entry *o = c->out.pool + c->out.start[sc.from];
            int kept = 0, replaced = -1;
            for (int32_t m = 0; m < c->out.count[sc.from]; m++) {
                if (o[m].node != sc.to) continue;
                if (o[m].cost <= sc.cost) kept = 1;
                else replaced = o[m].link;
                break;
            }
            if (kept) continue;
            if (replaced >= 0) {
                adj_remove(&c->out, sc.from, replaced);
                adj_remove(&c->in, sc.to, replaced);
                c->alive[replaced] = 0;
            }
            if (add_link(c, sc.from, sc.to, sc.cost, sc.in, sc.out)) return RSC_ENOMEM;
            c->shortcuts++;
        }
    }
    for (int t = 0; t < c->threads; t++) c->work[t].found_len = 0;
    return 0;
}

/* Contracts the remaining nodes one at a time in order of lazily updated priority (a node whose priority is an
 * estimate is simulated again when it comes first, and goes back if no longer cheapest), until the cheapest node
 * left is above the core degree. Each contraction counts as a round. */
static int serial_tail(ch *c, int32_t *round, int32_t *next_rank) {
    workspace q; /* only its heap: the queue of remaining nodes by priority */
    memset(&q, 0, sizeof(q));
    workspace *w = &c->work[0];
    int e = 0;
    int32_t node = 0;
    const int32_t start_rank = *next_rank;
    for (int32_t i = 0; i < c->remaining_len; i++)
        if (rsc_ch_heap_push(&q.heap, c->prio[c->remaining[i]], c->remaining[i])) { e = RSC_ENOMEM; goto done; }
    while (q.heap.len > 0) {
        const rsc_ch_heap_item top = rsc_ch_heap_pop(&q.heap);
        const int32_t v = top.node;
        if (c->state[v] == STATE_CONTRACTED || top.key != c->prio[v]) continue;
        if (c->stale[v]) {
            c->stale[v] = 0;
            node = v;
            c->items = &node;
            task_priority(c, w, 0);
            if ((e = atomic_load(&c->stop))) goto done;
            if (q.heap.len > 0 && c->prio[v] > q.heap.items[0].key) {
                if (rsc_ch_heap_push(&q.heap, c->prio[v], v)) { e = RSC_ENOMEM; goto done; }
                continue;
            }
        }
        if (!contractible(c, v)) break;
        c->state[v] = STATE_SELECTED;
        c->selected[0] = v;
        c->selected_len = 1;
        c->items = c->selected;
        task_contract(c, w, 0);
        if ((e = atomic_load(&c->stop))) goto done;
        if ((e = apply_round(c, *round, next_rank))) goto done;
        (*round)++;
        for (int32_t i = 0; i < c->touched_len; i++) {
            const int32_t x = c->touched[i];
            if ((int64_t)c->in.count[x] * c->out.count[x] <= EAGER_LIMIT) {
                node = x;
                c->items = &node;
                task_priority(c, w, 0);
                if ((e = atomic_load(&c->stop))) goto done;
            } else {
                c->stale[x] = 1;
                c->prio[x] += 1;
            }
            if (rsc_ch_heap_push(&q.heap, c->prio[x], x)) { e = RSC_ENOMEM; goto done; }
        }
        if (((*next_rank - start_rank) & 255) == 0) {
            if ((e = canceled(c))) goto done;
            report(c, "contracting", c->n > 0 ? (double)*next_rank / c->n : 1);
            if (((*next_rank - start_rank) & 4095) == 0) {
                adj_compact(&c->out, c->n);
                adj_compact(&c->in, c->n);
            }
        }
    }

done:
    free(q.heap.items);
    return e;
}

static int nd_canceled(void *user) { return canceled((ch *)user) != 0; }

/* Contracts every remaining node in a nested-dissection order of the remaining graph (rsc_ch_nd_order), without
 * witness searches: contracting v links each in-neighbour u to each out-neighbour w (u -> v -> w), keeping the
 * cheaper of that and an existing u -> w link. No shortest path is lost whatever the order (every path through v
 * gets its shortcut); the order keeps the added links few. Then prune_top drops the links among these nodes that a
 * path through higher-ranked nodes undercuts. */
static int nd_top(ch *c, int32_t *next_rank, double band) {
    const int32_t R = c->remaining_len;
    if (R <= 0) return 0;
    int e = 0;
    int32_t *local = c->argmin; /* scratch: argmin is only used by the rounds */
    for (int32_t i = 0; i < R; i++) local[c->remaining[i]] = i;
    /* With RSC_CH_PAIRS=1, nodes 2k and 2k + 1 (RoadSnap's two arcs of one road edge) are ordered as one node when
     * both remain: the ordered graph has about half the nodes, and its separators are road edges (both arcs). For
     * any other graph this only changes the order's quality, never its exactness. Not the default: since the
     * dissection's flows got cheaper, ordering arcs one by one costs about as much in all and gives 6 % fewer links
     * and ~10 % faster queries at 1 M edges (docs/routing-preprocessing.md, "Fifth pass"). */
    const char *pairs_env = getenv("RSC_CH_PAIRS");
    const int pairs = pairs_env ? atoi(pairs_env) != 0 : 0;
    int32_t *group = malloc(sizeof(int32_t) * (size_t)R);       /* node's group */
    int32_t *member = malloc(sizeof(int32_t) * 2 * (size_t)R);  /* a group's one or two nodes (-1: none) */
    if (!group || !member) { free(group); free(member); return RSC_ENOMEM; }
    int32_t G = 0;
    for (int32_t i = 0; i < R; i++) {
        const int32_t v = c->remaining[i], p = v ^ 1;
        if (pairs && p < v && p < c->n && c->state[p] != STATE_CONTRACTED) {
            const int32_t g = group[local[p]];
            group[i] = g;
            member[2 * g + 1] = v;
        } else {
            group[i] = G;
            member[2 * G] = v;
            member[2 * G + 1] = -1;
            G++;
        }
    }
    size_t *start = calloc((size_t)G + 1, sizeof(size_t));
    int32_t *order = malloc(sizeof(int32_t) * (size_t)G);
    if (!start || !order) { free(start); free(order); free(group); free(member); return RSC_ENOMEM; }
    for (int32_t i = 0; i < R; i++) {
        const int32_t v = c->remaining[i];
        start[group[i] + 1] += (size_t)c->out.count[v] + (size_t)c->in.count[v];
    }
    for (int32_t g = 0; g < G; g++) start[g + 1] += start[g];
    int32_t *adj = malloc(sizeof(int32_t) * (start[G] + 1));
    if (!adj) { free(start); free(order); free(group); free(member); return RSC_ENOMEM; }
    {
        /* Each neighbouring group once (links both ways and the two arcs of a pair repeat most of them): the flow
         * networks of the dissection get one arc per neighbour instead of several. */
        int32_t *seen = malloc(sizeof(int32_t) * (size_t)G);
        if (!seen) { free(adj); free(start); free(order); free(group); free(member); return RSC_ENOMEM; }
        for (int32_t g = 0; g < G; g++) seen[g] = -1;
        size_t at = 0;
        for (int32_t g = 0; g < G; g++) {
            start[g] = at; /* <= the old start[g]: the lists only shrink */
            seen[g] = g;   /* no self loop */
            for (int s = 0; s < 2; s++) {
                const int32_t v = member[2 * g + s];
                if (v < 0) continue;
                adjacency *lists[2] = {&c->out, &c->in};
                for (int d = 0; d < 2; d++) {
                    const entry *o = lists[d]->pool + lists[d]->start[v];
                    for (int32_t k = 0; k < lists[d]->count[v]; k++) {
                        const int32_t h = group[local[o[k].node]];
                        if (seen[h] == g) continue;
                        seen[h] = g;
                        adj[at++] = h;
                    }
                }
            }
        }
        start[G] = at;
        free(seen);
    }
    free(group);
    const double t_order = rsc_ch_cpu_seconds();
    const int rc = rsc_ch_nd_order(G, start, adj, band, order, nd_canceled, c);
    free(start);
    free(adj);
    if (rc) { free(order); free(member); return rc > 0 ? (canceled(c) ? canceled(c) : RSC_ECANCELED) : RSC_ENOMEM; }
    if (getenv("RSC_CH_TRACE")) fprintf(stderr, "nested-dissection order of %d nodes (%d parts): %.3f s\n", R, G, rsc_ch_cpu_seconds() - t_order);
    {
        int32_t *full = realloc(order, sizeof(int32_t) * (size_t)R);
        if (!full) { free(order); free(member); return RSC_ENOMEM; }
        order = full;
        /* Expand from the top down (in place: position k of the groups' order moves to a position >= k). */
        int32_t at = R;
        for (int32_t k = G - 1; k >= 0; k--) {
            const int32_t g = order[k];
            if (member[2 * g + 1] >= 0) order[--at] = member[2 * g + 1];
            order[--at] = member[2 * g];
        }
    }
    free(member);
    /* The remaining graph, renumbered by position in the order: lists indexed and marks looked up by position,
     * so the nodes a contraction touches (close in the dissection) are close in memory, and the marks fit a
     * cache the global arrays do not. The global lists of these nodes are not used again (emptied below). */
    int32_t *pos = c->argmin; /* scratch, as `local` above */
    for (int32_t i = 0; i < R; i++) pos[order[i]] = i;
    adjacency lo, li;
    memset(&lo, 0, sizeof lo);
    memset(&li, 0, sizeof li);
    typedef struct {
        int32_t stamp, slot;
    } mark;
    mark *mk = NULL;
    {
        int32_t *deg = malloc(sizeof(int32_t) * ((size_t)R + 1));
        if (!deg) { e = RSC_ENOMEM; goto done; }
        for (int32_t i = 0; i < R; i++) deg[i] = c->out.count[order[i]];
        int bad = adj_init(&lo, R, deg);
        for (int32_t i = 0; i < R; i++) deg[i] = c->in.count[order[i]];
        bad = bad || adj_init(&li, R, deg);
        free(deg);
        if (bad) { e = RSC_ENOMEM; goto done; }
    }
    for (int32_t i = 0; i < R; i++) {
        const int32_t v = order[i];
        const entry *o = c->out.pool + c->out.start[v];
        entry *lo_i = lo.pool + lo.start[i];
        for (int32_t k = 0; k < c->out.count[v]; k++) lo_i[k] = (entry){pos[o[k].node], o[k].cost, o[k].link};
        lo.count[i] = c->out.count[v];
        const entry *q = c->in.pool + c->in.start[v];
        entry *li_i = li.pool + li.start[i];
        for (int32_t k = 0; k < c->in.count[v]; k++) li_i[k] = (entry){pos[q[k].node], q[k].cost, q[k].link};
        li.count[i] = c->in.count[v];
        c->out.count[v] = 0;
        c->in.count[v] = 0;
    }
    /* Marks of u's out-neighbours: stamp and position in u's out list (one record: one cache miss per lookup). */
    mk = malloc(sizeof(mark) * ((size_t)R + 1));
    if (!mk) { e = RSC_ENOMEM; goto done; }
    for (int32_t x = 0; x < R; x++) mk[x].stamp = -1;
    {
        int32_t counter = 0;
        for (int32_t v = 0; v < R; v++) {
            for (int32_t ki = 0; ki < li.count[v]; ki++) {
                const entry in = li.pool[li.start[v] + (size_t)ki];
                const int32_t u = in.node;
                if (u == v) continue;
                if (++counter == INT32_MAX) {
                    for (int32_t x = 0; x < R; x++) mk[x].stamp = -1;
                    counter = 1;
                }
                {
                    entry *o = lo.pool + lo.start[u];
                    int32_t cnt = lo.count[u];
                    for (int32_t m = 0; m < cnt; m++) {
                        if (o[m].link == in.link) { /* u -> v leaves the remaining graph with v: drop it here */
                            o[m] = o[--cnt];
                            m--;
                            continue;
                        }
                        mk[o[m].node] = (mark){counter, m};
                    }
                    lo.count[u] = cnt;
                }
                const int64_t cin = c->cost[in.link]; /* in-list entry costs may be stale (see below) */
                for (int32_t ko = 0; ko < lo.count[v]; ko++) {
                    const entry out = lo.pool[lo.start[v] + (size_t)ko];
                    const int32_t w = out.node;
                    if (w == v || w == u) continue;
                    const int64_t sum = cin + out.cost;
                    const int32_t cost = sum > INT32_MAX ? INT32_MAX : (int32_t)sum;
                    const mark mw = mk[w];
                    if (mw.stamp == counter) {
                        entry *o = lo.pool + lo.start[u];
                        const int32_t m = mw.slot;
                        const int32_t old = o[m].link;
                        if (o[m].cost <= cost) continue;
                        if (c->first[old] >= 0) {
                            /* A shortcut between two remaining nodes: no link stands for it yet (only contracting u
                             * or w makes links through it), so it is updated in place, in c->cost and in u's
                             * out-list entry (which this loop reads instead of c->cost: sequential, not a random
                             * access per pair); the copy in w's in-list goes stale and is not read from here on. */
                            o[m].cost = cost;
                            c->cost[old] = cost;
                            c->first[old] = in.link;
                            c->second[old] = out.link;
                            const int64_t h = (int64_t)c->hops[in.link] + c->hops[out.link];
                            c->hops[old] = h > INT32_MAX ? INT32_MAX : (int32_t)h;
                            continue;
                        }
                        adj_remove(&li, w, old);
                        c->alive[old] = 0;
                        o[m] = o[--lo.count[u]];
                        if (m < lo.count[u]) mk[o[m].node].slot = m;
                    }
                    const int32_t id = new_link(c, order[u], order[w], cost, in.link, out.link);
                    if (id < 0 || adj_append(&lo, u, (entry){w, cost, id}) || adj_append(&li, w, (entry){u, cost, id})) {
                        e = RSC_ENOMEM;
                        goto done;
                    }
                    c->shortcuts++;
                    mk[w] = (mark){counter, lo.count[u] - 1};
                }
            }
            /* Take v out of the remaining graph (its in-links left their tails' out-lists above). */
            const entry *outs = lo.pool + lo.start[v];
            for (int32_t k = 0; k < lo.count[v]; k++)
                if (outs[k].node != v) adj_remove(&li, outs[k].node, outs[k].link);
            lo.count[v] = 0;
            li.count[v] = 0;
            c->state[order[v]] = STATE_CONTRACTED;
            c->rank[order[v]] = (*next_rank)++;
            if ((v & 255) == 0) {
                if ((e = canceled(c))) goto done;
                report(c, "contracting", c->n > 0 ? (double)*next_rank / c->n : 1);
                if ((v & 4095) == 0) {
                    adj_compact(&lo, R);
                    adj_compact(&li, R);
                }
            }
        }
    }
    c->remaining_len = 0;
done:
    free(order);
    free(mk);
    adj_free(&lo);
    adj_free(&li);
    return e;
}

/* Drops links among the nodes ranked >= top_start that no shortest path needs: processing nodes from the top down,
 * the cost of each link x -> y (x below y) is lowered to any cheaper path x -> z -> y through a node z above x
 * (whose links to y are final by then), and so for links y -> x; a link whose cost is then undercut is never part of
 * a shortest path, so no up-down shortest path uses it (the upward queries stay exact). Returns the links dropped,
 * or -1 when memory runs out. */
static int64_t prune_top(ch *c, int32_t top_start) {
    const int32_t T = c->n - top_start;
    if (T <= 1) return 0;
    const size_t L = c->links;
    size_t count = 0;
    for (size_t l = 0; l < L; l++)
        if (c->alive[l] && c->rank[c->tail[l]] >= top_start && c->rank[c->head[l]] >= top_start && c->tail[l] != c->head[l])
            count++;
    int64_t dropped = -1;
    /* Per link a (of `count`): its id, and its positions in the out-lists and in-lists. Per list position: the
     * other end (rank - top_start), the link, and the link's current cost (a copy in each list, kept equal: a link
     * is lowered only while its lower end is processed, then its value is copied to the other list, so the
     * triangle loops read costs sequentially instead of at random). */
    int32_t *links = malloc(sizeof(int32_t) * (count + 1));
    size_t *ostart = calloc((size_t)T + 1, sizeof(size_t)), *istart = calloc((size_t)T + 1, sizeof(size_t));
    int32_t *onode = malloc(sizeof(int32_t) * (count + 1)), *oarc = malloc(sizeof(int32_t) * (count + 1));
    int32_t *inode = malloc(sizeof(int32_t) * (count + 1)), *iarc = malloc(sizeof(int32_t) * (count + 1));
    int32_t *ocost = malloc(sizeof(int32_t) * (count + 1)), *icost = malloc(sizeof(int32_t) * (count + 1));
    size_t *opos = malloc(sizeof(size_t) * (count + 1)), *ipos = malloc(sizeof(size_t) * (count + 1));
    int32_t *mk = malloc(sizeof(int32_t) * (size_t)T);
    size_t *sl = malloc(sizeof(size_t) * (size_t)T);
    if (!links || !ostart || !istart || !onode || !oarc || !inode || !iarc || !ocost || !icost || !opos || !ipos || !mk ||
        !sl)
        goto done;
    size_t k = 0;
    for (size_t l = 0; l < L; l++) {
        if (!(c->alive[l] && c->rank[c->tail[l]] >= top_start && c->rank[c->head[l]] >= top_start && c->tail[l] != c->head[l]))
            continue;
        links[k] = (int32_t)l;
        ostart[c->rank[c->tail[l]] - top_start + 1]++;
        istart[c->rank[c->head[l]] - top_start + 1]++;
        k++;
    }
    for (int32_t x = 0; x < T; x++) {
        ostart[x + 1] += ostart[x];
        istart[x + 1] += istart[x];
        mk[x] = -1;
    }
    /* Lists sorted by the other end's rank, highest first (so the triangle loops stop at x): the in-lists in link
     * order first, the out-lists from them by head descending, then the in-lists again by tail descending. */
    for (size_t a = 0; a < count; a++) {
        const int32_t l = links[a];
        const int32_t h = c->rank[c->head[l]] - top_start;
        const size_t pi = istart[h]++;
        inode[pi] = c->rank[c->tail[l]] - top_start;
        iarc[pi] = (int32_t)a;
    }
    for (int32_t x = T; x > 0; x--) istart[x] = istart[x - 1];
    istart[0] = 0;
    for (int32_t h = T - 1; h >= 0; h--)
        for (size_t p = istart[h]; p < istart[h + 1]; p++) {
            const size_t po = ostart[inode[p]]++;
            onode[po] = h;
            oarc[po] = iarc[p];
        }
    for (int32_t x = T; x > 0; x--) ostart[x] = ostart[x - 1];
    ostart[0] = 0;
    {
        size_t *fill = malloc(sizeof(size_t) * ((size_t)T + 1));
        if (!fill) goto done;
        memcpy(fill, istart, sizeof(size_t) * ((size_t)T + 1));
        for (int32_t t = T - 1; t >= 0; t--)
            for (size_t p = ostart[t]; p < ostart[t + 1]; p++) {
                const size_t pi = fill[onode[p]]++;
                inode[pi] = t;
                iarc[pi] = oarc[p];
            }
        free(fill);
    }
    for (size_t p = 0; p < count; p++) {
        opos[oarc[p]] = p;
        ocost[p] = c->cost[links[oarc[p]]];
    }
    for (size_t p = 0; p < count; p++) {
        ipos[iarc[p]] = p;
        icost[p] = c->cost[links[iarc[p]]];
    }
    int32_t stamp = 0;
    for (int32_t x = T - 1; x >= 0; x--) {
        stamp++;
        const size_t ob = ostart[x], oe = ostart[x + 1], ib = istart[x], ie = istart[x + 1];
        for (size_t p = ob; p < oe && onode[p] > x; p++) { mk[onode[p]] = stamp; sl[onode[p]] = p; }
        for (size_t p = ob; p < oe; p++) {
            const int32_t z = onode[p];
            if (z <= x) break;
            const int64_t mz = ocost[p];
            for (size_t q = ostart[z]; q < ostart[z + 1]; q++) {
                const int32_t y = onode[q];
                if (y <= x) break;
                if (mk[y] != stamp || y == z) continue;
                const int64_t via = mz + ocost[q];
                if (via < ocost[sl[y]]) ocost[sl[y]] = (int32_t)via;
            }
        }
        stamp++;
        for (size_t p = ib; p < ie && inode[p] > x; p++) { mk[inode[p]] = stamp; sl[inode[p]] = p; }
        for (size_t p = ib; p < ie; p++) {
            const int32_t z = inode[p];
            if (z <= x) break;
            const int64_t mz = icost[p];
            for (size_t q = istart[z]; q < istart[z + 1]; q++) {
                const int32_t y = inode[q];
                if (y <= x) break;
                if (mk[y] != stamp || y == z) continue;
                const int64_t via = mz + icost[q];
                if (via < icost[sl[y]]) icost[sl[y]] = (int32_t)via;
            }
        }
        /* x's links to higher nodes are final: copy them to the other lists. */
        for (size_t p = ob; p < oe && onode[p] > x; p++) icost[ipos[oarc[p]]] = ocost[p];
        for (size_t p = ib; p < ie && inode[p] > x; p++) ocost[opos[iarc[p]]] = icost[p];
        if ((x & 1023) == 0 && canceled(c)) goto done;
    }
    dropped = 0;
    for (size_t a = 0; a < count; a++)
        if (ocost[opos[a]] < c->cost[links[a]]) {
            c->alive[links[a]] = 0;
            dropped++;
        }
done:
    free(links);
    free(ostart);
    free(istart);
    free(onode);
    free(oarc);
    free(inode);
    free(iarc);
    free(ocost);
    free(icost);
    free(opos);
    free(ipos);
    free(mk);
    free(sl);
    return dropped;
}

/* Slots: the search graph's own numbering, highest rank first (core nodes, in node order, before every contracted
 * one), so that the nodes near the top, which every query settles, have their labels and links side by side. */
static int number_slots(ch *c, rsc_ch_result *r) {
    const int32_t n = c->n;
    const size_t sn = (size_t)(n > 0 ? n : 1);
    r->slot_of = malloc(sizeof(int32_t) * sn);
    r->node_of = malloc(sizeof(int32_t) * sn);
    if (!r->slot_of || !r->node_of) return RSC_ENOMEM;
    int32_t core = 0, contracted = 0;
    for (int32_t v = 0; v < n; v++) {
        if (c->rank[v] == INT32_MAX) core++;
        else contracted++;
    }
    for (int32_t v = 0; v < n; v++) r->node_of[v] = -1;
    int32_t next_core = 0;
    for (int32_t v = 0; v < n; v++) {
        const int32_t k = c->rank[v];
        /* contracted nodes have the ranks 0 ..< contracted, each once (checked below) */
        const int32_t slot = k == INT32_MAX ? next_core++ : (k >= 0 && k < contracted ? core + (contracted - 1 - k) : -1);
        if (slot < 0 || r->node_of[slot] >= 0) return RSC_EINVAL;
        r->slot_of[v] = slot;
        r->node_of[slot] = v;
    }
    return 0;
}

static int build_search_graph(ch *c, rsc_ch_result *r) {
    const int32_t n = c->n;
    const size_t L = c->links;
    int e = number_slots(c, r);
    if (e) return e;
    const int32_t *slot = r->slot_of;
    r->up_start = calloc((size_t)n + 1, sizeof(int32_t));
    r->down_start = calloc((size_t)n + 1, sizeof(int32_t));
    if (!r->up_start || !r->down_start) return RSC_ENOMEM;
    const int32_t *rank = c->rank;
    size_t ups = 0, downs = 0;
    for (size_t l = 0; l < L; l++) {
        if (!c->alive[l]) continue;
        const int32_t t = c->tail[l], h = c->head[l];
        if (rank[t] <= rank[h]) { r->up_start[slot[t] + 1]++; ups++; }
        if (rank[h] <= rank[t]) { r->down_start[slot[h] + 1]++; downs++; }
    }
    if (ups > INT32_MAX || downs > INT32_MAX) return RSC_EINVAL;
    for (int32_t v = 0; v < n; v++) {
        r->up_start[v + 1] += r->up_start[v];
        r->down_start[v + 1] += r->down_start[v];
    }
    r->up_count = (int32_t)ups;
    r->down_count = (int32_t)downs;
    r->up_target = malloc(sizeof(int32_t) * (ups + 1));
    r->up_cost = malloc(sizeof(int32_t) * (ups + 1));
    r->up_link = malloc(sizeof(int32_t) * (ups + 1));
    r->down_source = malloc(sizeof(int32_t) * (downs + 1));
    r->down_cost = malloc(sizeof(int32_t) * (downs + 1));
    r->down_link = malloc(sizeof(int32_t) * (downs + 1));
    int32_t *ufill = malloc(sizeof(int32_t) * ((size_t)n + 1)), *dfill = malloc(sizeof(int32_t) * ((size_t)n + 1));
    if (!r->up_target || !r->up_cost || !r->up_link || !r->down_source || !r->down_cost || !r->down_link || !ufill ||
        !dfill) {
        free(ufill);
        free(dfill);
        return RSC_ENOMEM;
    }
    memcpy(ufill, r->up_start, sizeof(int32_t) * ((size_t)n + 1));
    memcpy(dfill, r->down_start, sizeof(int32_t) * ((size_t)n + 1));
    for (size_t l = 0; l < L; l++) {
        if (!c->alive[l]) continue;
        const int32_t t = c->tail[l], h = c->head[l];
        if (rank[t] <= rank[h]) {
            int32_t k = ufill[slot[t]]++;
            r->up_target[k] = slot[h];
            r->up_cost[k] = c->cost[l];
            r->up_link[k] = (int32_t)l;
        }
        if (rank[h] <= rank[t]) {
            int32_t k = dfill[slot[h]]++;
            r->down_source[k] = slot[t];
            r->down_cost[k] = c->cost[l];
            r->down_link[k] = (int32_t)l;
        }
    }
    free(ufill);
    free(dfill);
    return 0;
}

static int available_cores(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) {
        int k = CPU_COUNT(&set);
        if (k > 0) return k;
    }
    long k = sysconf(_SC_NPROCESSORS_ONLN);
    return k > 0 ? (int)k : 1;
}

static void ch_free(ch *c) {
    free(c->tail);
    free(c->head);
    free(c->cost);
    free(c->first);
    free(c->second);
    free(c->hops);
    free(c->alive);
    adj_free(&c->out);
    adj_free(&c->in);
    free(c->prio);
    free(c->level);
    free(c->rank);
    free(c->argmin);
    free(c->touched_round);
    free(c->state);
    free(c->stale);
    free(c->remaining);
    free(c->selected);
    free(c->touched);
    free(c->estimate);
    free(c->found_tid);
    free(c->found_off);
    free(c->found_cnt);
    if (c->work) {
        for (int t = 0; t < c->threads; t++) {
            workspace *w = &c->work[t];
            free(w->label);
            free(w->heap.items);
            free(w->found);
        }
        free(c->work);
    }
}

void rsc_ch_result_free(rsc_ch_result *r) {
    if (!r) return;
    free(r->link_tail);
    free(r->link_head);
    free(r->link_cost);
    free(r->link_first);
    free(r->link_second);
    free(r->up_start);
    free(r->down_start);
    free(r->up_target);
    free(r->up_cost);
    free(r->up_link);
    free(r->down_source);
    free(r->down_cost);
    free(r->down_link);
    free(r->rank);
    free(r->slot_of);
    free(r->node_of);
    memset(r, 0, sizeof(*r));
}

static int build(ch *c, const int32_t *starts, const int32_t *targets, const int32_t *costs, rsc_ch_result *r) {
    const int32_t n = c->n;
    const size_t sn = (size_t)(n > 0 ? n : 1);
    const int64_t m = starts[n];
    /* Degrees, for exact initial adjacency slots. */
    int32_t *outdeg = calloc(sn, sizeof(int32_t)), *indeg = calloc(sn, sizeof(int32_t));
    if (!outdeg || !indeg) {
        free(outdeg);
        free(indeg);
        return RSC_ENOMEM;
    }
    for (int32_t v = 0; v < n; v++) {
        outdeg[v] = starts[v + 1] - starts[v];
        for (int32_t k = starts[v]; k < starts[v + 1]; k++) indeg[targets[k]]++;
    }
    int bad = adj_init(&c->out, n, outdeg) || adj_init(&c->in, n, indeg);
    free(outdeg);
    free(indeg);
    if (bad) return RSC_ENOMEM;
    c->links_size = (size_t)m * 2 + 16;
    c->tail = malloc(sizeof(int32_t) * c->links_size);
    c->head = malloc(sizeof(int32_t) * c->links_size);
    c->cost = malloc(sizeof(int32_t) * c->links_size);
    c->first = malloc(sizeof(int32_t) * c->links_size);
    c->second = malloc(sizeof(int32_t) * c->links_size);
    c->hops = malloc(sizeof(int32_t) * c->links_size);
    c->alive = malloc(c->links_size);
    c->prio = calloc(sn, sizeof(int64_t));
    c->level = calloc(sn, sizeof(int32_t));
    c->rank = malloc(sizeof(int32_t) * sn);
    c->argmin = malloc(sizeof(int32_t) * sn);
    c->touched_round = malloc(sizeof(int32_t) * sn);
    c->state = calloc(sn, 1);
    c->stale = calloc(sn, 1);
    c->remaining = malloc(sizeof(int32_t) * sn);
    c->selected = malloc(sizeof(int32_t) * sn);
    c->touched = malloc(sizeof(int32_t) * sn);
    c->estimate = malloc(sizeof(int64_t) * sn);
    c->found_tid = malloc(sizeof(int32_t) * sn);
    c->found_off = malloc(sizeof(size_t) * sn);
    c->found_cnt = malloc(sizeof(int32_t) * sn);
    c->work = calloc((size_t)c->threads, sizeof(workspace));
    if (!c->tail || !c->head || !c->cost || !c->first || !c->second || !c->hops || !c->alive || !c->prio ||
        !c->level || !c->rank || !c->argmin || !c->touched_round || !c->state || !c->stale || !c->remaining || !c->selected ||
        !c->touched || !c->estimate || !c->found_tid || !c->found_off || !c->found_cnt || !c->work)
        return RSC_ENOMEM;
    for (int t = 0; t < c->threads; t++) {
        workspace *w = &c->work[t];
        w->label = calloc(sn, sizeof(label));
        if (!w->label) return RSC_ENOMEM;
    }
    for (int32_t v = 0; v < n; v++) {
        c->rank[v] = INT32_MAX;
        c->touched_round[v] = -1;
        c->remaining[v] = v;
        for (int32_t k = starts[v]; k < starts[v + 1]; k++)
            if (add_link(c, v, targets[k], costs[k], -1, -1)) return RSC_ENOMEM;
    }
    c->remaining_len = n;

    /* Order: "greedy" (rounds, then the serial tail; nodes above core_degree stay a core), "hybrid" (rounds while
     * they contract many nodes at once, then a nested-dissection order for the rest, contracted without witness
     * searches: no core), or "nd" (the nested-dissection order for every node). */
    const char *order_env = getenv("RSC_CH_ORDER");
    int mode = c->opt.order;
    if (order_env) mode = !strcmp(order_env, "greedy") ? RSC_CH_ORDER_GREEDY : !strcmp(order_env, "nd") ? RSC_CH_ORDER_ND : RSC_CH_ORDER_HYBRID;
    if (mode != RSC_CH_ORDER_GREEDY) {
        /* The rounds of the hybrid order stop at a dense top that is contracted without witness searches, so their
         * witness searches run only where the graph is sparse: smaller bounds there cost fewer searches and add
         * about 2 % more shortcuts (measured in docs/routing-preprocessing.md, "Fourth pass"). */
        if (c->opt.simulation_settle_limit <= 0) c->opt.simulation_settle_limit = HYBRID_SIM_SETTLE;
        if (c->opt.simulation_hop_limit <= 0) c->opt.simulation_hop_limit = HYBRID_SIM_HOPS;
        if (c->opt.contraction_settle_limit <= 0) c->opt.contraction_settle_limit = HYBRID_CON_SETTLE;
        if (c->opt.contraction_hop_limit <= 0) c->opt.contraction_hop_limit = HYBRID_CON_HOPS;
    }
    const char *band_env = getenv("RSC_CH_BAND");
    const double band = band_env ? atof(band_env) : 0.25;
    const char *switch_env = getenv("RSC_CH_SWITCH");
    const int64_t switch_factor = switch_env && atoi(switch_env) > 0 ? atoi(switch_env) : SWITCH_FACTOR;
    int e = 0;
    report(c, "priorities", 0); /* reported in every order, so callers see the same phases */
    if (mode != RSC_CH_ORDER_ND) {
        e = parallel(c, task_priority, c->remaining, c->remaining_len);
        if (e) return e;
    }
    report(c, "priorities", 1);

    int32_t next_rank = 0, round = 0;
    const double tstart = rsc_ch_cpu_seconds();
    const char *trace_env = getenv("RSC_CH_TRACE");
    const int trace = trace_env ? atoi(trace_env) : 0;
    double tsel = 0, tcon = 0, tapp = 0, tpri = 0;
    const char *tail_env = getenv("RSC_CH_TAIL");
    const int64_t tail_factor = tail_env && atoi(tail_env) > 0 ? atoi(tail_env) : TAIL_FACTOR;
    report(c, "contracting", 0);
    int32_t top_start = -1;
    while (c->remaining_len > 0 && mode != RSC_CH_ORDER_ND) {
        if ((e = canceled(c))) return e;
        /* Select the local minima. A selected node whose priority was an estimate is simulated again and stays
         * selected only if its priority did not rise (dropping nodes keeps the set independent). */
        double t0 = rsc_ch_cpu_seconds();
        if ((e = parallel(c, task_argmin, c->remaining, c->remaining_len))) return e;
        if ((e = parallel(c, task_select, c->remaining, c->remaining_len))) return e;
        c->selected_len = 0;
        int32_t stale = 0;
        for (int32_t i = 0; i < c->remaining_len; i++) {
            const int32_t v = c->remaining[i];
            if (c->state[v] != STATE_SELECTED) continue;
            c->selected[c->selected_len++] = v;
            if (c->stale[v]) {
                c->touched[stale] = v;
                c->estimate[stale++] = c->prio[v];
            }
        }
        if (stale > 0) {
            if ((e = parallel(c, task_priority, c->touched, stale))) return e;
            for (int32_t i = 0; i < stale; i++) {
                const int32_t v = c->touched[i];
                c->stale[v] = 0;
                if (c->prio[v] > c->estimate[i]) c->state[v] = STATE_REMAINING;
            }
            int32_t kept = 0;
            for (int32_t i = 0; i < c->selected_len; i++)
                if (c->state[c->selected[i]] == STATE_SELECTED) c->selected[kept++] = c->selected[i];
            c->selected_len = kept;
            if (kept == 0) continue; /* every candidate's priority rose: select again with the fresh ones */
        }
        if (c->selected_len == 0) break; /* every node left is above the core degree */
        if (mode == RSC_CH_ORDER_HYBRID && (int64_t)c->selected_len * switch_factor < c->remaining_len) {
            for (int32_t i = 0; i < c->selected_len; i++) c->state[c->selected[i]] = STATE_REMAINING;
            break;
        }
        if ((int64_t)c->selected_len * tail_factor < c->remaining_len) {
            /* The dense top: rounds now contract too few nodes to pay for their passes over the graph. */
            for (int32_t i = 0; i < c->selected_len; i++) c->state[c->selected[i]] = STATE_REMAINING;
            if ((e = serial_tail(c, &round, &next_rank))) return e;
            int32_t kept = 0;
            for (int32_t i = 0; i < c->remaining_len; i++)
                if (c->state[c->remaining[i]] != STATE_CONTRACTED) c->remaining[kept++] = c->remaining[i];
            c->remaining_len = kept;
            if (trace) fprintf(stderr, "serial tail done: round %d core %d, %.3f s\n", round, kept, rsc_ch_cpu_seconds() - t0);
            break;
        }
        double t1 = rsc_ch_cpu_seconds();
        if ((e = parallel(c, task_contract, c->selected, c->selected_len))) return e;
        double t2 = rsc_ch_cpu_seconds();
        if ((e = apply_round(c, round, &next_rank))) return e;
        double t3 = rsc_ch_cpu_seconds();
        /* Small neighbourhoods are simulated again now, big ones when they are next selected. */
        int32_t eager = 0;
        for (int32_t i = 0; i < c->touched_len; i++) {
            const int32_t x = c->touched[i];
            if ((int64_t)c->in.count[x] * c->out.count[x] <= EAGER_LIMIT) {
                c->touched[eager++] = x;
            } else {
                c->stale[x] = 1;
                c->prio[x] += 1;
            }
        }
        if ((e = parallel(c, task_priority, c->touched, eager))) return e;
        double t4 = rsc_ch_cpu_seconds();
        if (trace) {
            tsel += t1 - t0; tcon += t2 - t1; tapp += t3 - t2; tpri += t4 - t3;
            if (trace > 1 || (round % 50) == 0)
                fprintf(stderr, "round %d remaining %d selected %d touched %d eager %d | select %.3f contract %.3f apply %.3f prio %.3f\n",
                        round, c->remaining_len, c->selected_len, c->touched_len, eager, tsel, tcon, tapp, tpri);
        }
        int32_t kept = 0;
        for (int32_t i = 0; i < c->remaining_len; i++)
            if (c->state[c->remaining[i]] != STATE_CONTRACTED) c->remaining[kept++] = c->remaining[i];
        c->remaining_len = kept;
        round++;
        if ((round & 15) == 0) {
            adj_compact(&c->out, n);
            adj_compact(&c->in, n);
        }
        report(c, "contracting", n > 0 ? (double)next_rank / n : 1);
    }
    if (mode != RSC_CH_ORDER_GREEDY && c->remaining_len > 0) {
        const double t0 = rsc_ch_cpu_seconds();
        const int32_t rounds_left = c->remaining_len;
        top_start = next_rank;
        if ((e = nd_top(c, &next_rank, band))) return e;
        const double t1 = rsc_ch_cpu_seconds();
        const int64_t before = c->shortcuts;
        const int64_t dropped = prune_top(c, top_start);
        if (dropped < 0) return canceled(c) ? canceled(c) : RSC_ENOMEM;
        if (trace)
            fprintf(stderr, "nested dissection: %d nodes after %d rounds, %.3f s order + contract, %.3f s prune (%lld of the links among them dropped), %lld shortcuts\n",
                    rounds_left, round, t1 - t0, rsc_ch_cpu_seconds() - t1, (long long)dropped, (long long)before);
    }
    report(c, "contracting", 1);
    if ((e = canceled(c))) return e;
    r->rounds = round;
    if (trace) fprintf(stderr, "contraction: %d rounds, %.3f s since the first round\n", round, rsc_ch_cpu_seconds() - tstart);
    r->core_size = c->remaining_len;
    r->shortcut_count = c->shortcuts;

    report(c, "search graph", 0);
    if ((e = build_search_graph(c, r))) return e;
    /* Hand the link arrays over (trimmed). */
    r->node_count = n;
    r->link_count = (int32_t)c->links;
    r->link_tail = c->tail;
    r->link_head = c->head;
    r->link_cost = c->cost;
    r->link_first = c->first;
    r->link_second = c->second;
    r->rank = c->rank;
    c->tail = c->head = c->cost = c->first = c->second = c->rank = NULL;
    report(c, "search graph", 1);
    return RSC_OK;
}

int rsc_ch_build(int32_t node_count, const int32_t *starts, const int32_t *targets, const int32_t *costs,
                 const rsc_ch_options *options, rsc_ch_result *out) {
    if (!out) return RSC_EINVAL;
    memset(out, 0, sizeof(*out));
    if (node_count < 0 || !starts || (node_count > 0 && (!targets || !costs)) || starts[0] != 0) return RSC_EINVAL;
    for (int32_t v = 0; v < node_count; v++)
        if (starts[v + 1] < starts[v]) return RSC_EINVAL;
    for (int32_t k = 0; k < starts[node_count]; k++)
        if (targets[k] < 0 || targets[k] >= node_count || costs[k] < 0) return RSC_EINVAL;
    const char *dump = getenv("RSC_CH_DUMP"); /* diagnostics: write the input graph (see cshims_ch.h) */
    if (dump) {
        FILE *f = fopen(dump, "wb");
        if (f) {
            const int32_t m = starts[node_count];
            fwrite(&node_count, 4, 1, f);
            fwrite(&m, 4, 1, f);
            fwrite(starts, 4, (size_t)node_count + 1, f);
            fwrite(targets, 4, (size_t)m, f);
            fwrite(costs, 4, (size_t)m, f);
            fclose(f);
        }
        return RSC_ECANCELED;
    }
    ch c;
    memset(&c, 0, sizeof(c));
    c.n = node_count;
    if (options) c.opt = *options;
    c.threads = c.opt.threads > 0 ? c.opt.threads : available_cores();
    const char *limits = getenv("RSC_CH_LIMITS"); /* tuning (see cshims_ch.h) */
    if (limits) {
        int a = 0, b = 0, d = 0, f = 0;
        if (sscanf(limits, "%d,%d,%d,%d", &a, &b, &d, &f) == 4) {
            c.opt.simulation_settle_limit = a;
            c.opt.simulation_hop_limit = b;
            c.opt.contraction_settle_limit = d;
            c.opt.contraction_hop_limit = f;
        }
    }
    const char *core = getenv("RSC_CH_CORE_DEGREE"); /* tuning (see cshims_ch.h) */
    if (core) c.opt.core_degree = atoi(core);
    if (c.threads > 64) c.threads = 64;
    atomic_init(&c.stop, 0);
    int e = build(&c, starts, targets, costs, out);
    ch_free(&c);
    if (e) rsc_ch_result_free(out);
    return e;
}
