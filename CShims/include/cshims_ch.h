/*
 * RoadSnap C shim: contraction-hierarchy preprocessing (node ordering and contraction), in C for throughput.
 * Included from cshims.h; same conventions (rsc_ prefix, RSC_E* codes, caller-owned results freed by *_free).
 *
 * The graph is any directed graph with non-negative integer link costs; RoadSnap passes its turn graph (nodes are
 * arcs, links are allowed turns). Contraction runs in rounds: every round contracts an independent set of nodes (each
 * is the unique priority minimum within two links of it), whose shortcuts are found in parallel by witness searches
 * that avoid the whole set (so contracting the set at once is exact) and are bounded in settled nodes and links
 * followed (a missed witness only adds a shortcut, never loses a path); then the priorities of their neighbours are
 * recomputed in parallel (small neighbourhoods at once, big ones marked stale and simulated again when selected).
 * The dense top of the hierarchy (hybrid order, the default: once a round selects fewer than 1/32 of the nodes left)
 * is ordered by nested dissection (max-flow separators, CShims/ch_order.c) and contracted in that order without
 * witness searches (every in-neighbour linked to every out-neighbour, cheapest kept), then links undercut by a path
 * through higher nodes are dropped; no node is left uncontracted. With the greedy order, the top is contracted one
 * node at a time in order of lazily updated priority instead. Results do not depend on the number of threads.
 *
 * Diagnostics and tuning through the environment (read by rsc_ch_build): RSC_CH_TRACE=1 prints per-phase times to
 * stderr (process CPU time; with the dissection's big splits and flows); RSC_CH_PAIRS=1 orders nodes 2k and 2k + 1
 * of the top (RoadSnap's two arcs of one road edge) as one node; RSC_CH_LIMITS="sim_settle,sim_hops,con_settle,con_hops" overrides the witness bounds; RSC_CH_TAIL=k
 * switches to the serial tail once a round selects fewer than 1/k of the nodes left; RSC_CH_ORDER=greedy|hybrid|nd
 * overrides options.order; RSC_CH_SWITCH=k makes the hybrid order leave the rounds once a round selects fewer than
 * 1/k of the nodes left (default 32); RSC_CH_BAND=f sets the nested dissection's source and sink fraction (default
 * 0.25); RSC_CH_CORE_DEGREE=d overrides
 * core_degree (0: contract every node); RSC_CH_DUMP=path writes the input graph to path (little-endian int32: node
 * count, link count, starts, targets, costs) and returns RSC_ECANCELED without building, for offline tuning with
 * scripts/ch_offline.c.
 */
#ifndef ROADSNAP_CSHIMS_CH_H
#define ROADSNAP_CSHIMS_CH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RSC_ECANCELED (-7) /* the build was canceled through rsc_ch_options.is_canceled */

typedef struct rsc_ch_options {
    /* Nodes with more in + out links than this are left uncontracted (the core, searched by plain bidirectional
     * Dijkstra); <= 0 means no limit (contract every node). */
    int32_t core_degree;
    /* Worker threads; <= 0 means the cores available to the process. 1 runs everything on the calling thread. */
    int32_t threads;
    /* Witness search bounds while computing priorities and while contracting: settled nodes and links followed
     * (<= 0: the defaults, 10/2 and 100/16 for the hybrid and nested-dissection orders, 20/3 and 200/32 for the
     * greedy order). */
    int32_t simulation_settle_limit, simulation_hop_limit;
    int32_t contraction_settle_limit, contraction_hop_limit;
    /* Called on the calling thread after each phase step: a static phase name ("priorities", "contracting",
     * "search graph") and the fraction of that phase done, in [0, 1]. May be NULL. */
    void (*progress)(void *user, const char *phase, double fraction);
    /* Polled on any thread, workers included (so it must be thread-safe), about every few hundred nodes: nonzero
     * stops the build, which then returns RSC_ECANCELED. May be NULL. */
    int (*is_canceled)(void *user);
    void *user;
    /* Contraction order (RSC_CH_ORDER_*; 0 = hybrid). Greedy: rounds of independent sets by witness-search priority,
     * then one node at a time; nodes above core_degree stay a core. Hybrid: the rounds while they contract at least
     * 1/32 of the nodes left, then a nested-dissection order (max-flow separators) for the rest, contracted without
     * witness searches and pruned (no core). ND: the nested-dissection order for every node. */
    int32_t order;
} rsc_ch_options;

#define RSC_CH_ORDER_HYBRID 0
#define RSC_CH_ORDER_GREEDY 1
#define RSC_CH_ORDER_ND 2

/* A contraction hierarchy as flat arrays (all malloc'd, owned by the caller, freed by rsc_ch_result_free).
 *
 * Links are the graph's links in input order (link k = the k-th entry of `targets`), then the shortcuts in the
 * order they were added; `link_first`/`link_second` are the two links a shortcut stands for (-1 for original links).
 * A link replaced by a cheaper shortcut between the same nodes stays in these arrays (a shortcut may stand for it)
 * but not in the search graph.
 *
 * The search graph: every link still in the hierarchy, stored at its endpoint contracted first, numbered by slot:
 * slot_of[v] is node v's slot and node_of[s] the node in slot s, highest rank first (core nodes, in node order, then
 * the contracted ones from the last contracted down), so that the nodes near the top, which every query settles, lie
 * together. Upward links of slot s (rank of head >= rank of its node): `up_target/up_cost/up_link[up_start[s] ..<
 * up_start[s + 1]]`, the targets slots too. Downward links entering slot s from a higher node:
 * `down_source/down_cost/down_link[down_start[s] ..< down_start[s + 1]]`, the sources slots. Links between two core
 * nodes appear in both. Links (`up_link`, `down_link`, the link arrays) keep node ids. `rank` is the contraction
 * order, INT32_MAX for core nodes. */
typedef struct rsc_ch_result {
    int32_t node_count;
    int32_t link_count;
    int32_t *link_tail, *link_head, *link_cost, *link_first, *link_second; /* link_count each */
    int32_t *up_start, *down_start;                                        /* node_count + 1 each */
    int32_t up_count, down_count;
    int32_t *up_target, *up_cost, *up_link;       /* up_count each */
    int32_t *down_source, *down_cost, *down_link; /* down_count each */
    int32_t *rank;                                /* node_count */
    int32_t *slot_of, *node_of;                   /* node_count each: node -> slot, slot -> node */
    int64_t shortcut_count;                       /* shortcuts added (link_count - original links) */
    int32_t core_size;                            /* nodes left uncontracted */
    int32_t rounds;                               /* contraction rounds run */
} rsc_ch_result;

/* Builds a contraction hierarchy of the graph with `node_count` nodes whose links leaving node v are
 * `targets/costs[starts[v] ..< starts[v + 1]]` (starts has node_count + 1 entries, starts[0] = 0; costs >= 0).
 * The input is only read (and not kept). `options` may be NULL (defaults).
 * Returns RSC_OK with *out filled, RSC_EINVAL on bad input (NULL pointers, a target out of range, a negative
 * cost, a graph too large for 32-bit link ids), RSC_ENOMEM when memory runs out, RSC_ECANCELED when
 * is_canceled returned nonzero; on failure *out is zeroed and owns nothing. */
int rsc_ch_build(int32_t node_count, const int32_t *starts, const int32_t *targets, const int32_t *costs,
                 const rsc_ch_options *options, rsc_ch_result *out);

/* Frees the arrays of a result and zeroes it; NULL or a zeroed result is a no-op. */
void rsc_ch_result_free(rsc_ch_result *result);

/* The arrays a query reads (those of rsc_ch_result, or the same read in place from a compiled map), borrowed: they
 * must outlive every search run on them and not change. Contents are trusted (a compiled map checksums them). */
typedef struct rsc_ch_view {
    int32_t node_count;
    const int32_t *up_start, *up_target, *up_cost, *up_link;         /* up_start: node_count + 1 entries */
    const int32_t *down_start, *down_source, *down_cost, *down_link; /* down_start: node_count + 1 entries */
    /* node -> slot and slot -> node (node_count each; both NULL: the search graph is numbered by node). A search
     * takes and answers node ids (ends, meeting node, labels, predecessors, settled nodes) and runs on slots. */
    const int32_t *slot_of, *node_of;
    /* Slots [0, core_size) are the core (uncontracted nodes, their links stored both ways); 0: every node was
     * contracted, so every upward link points to a smaller slot. */
    int32_t core_size;
} rsc_ch_view;

/* Where a search starts (forward) or ends (backward): a node, the cost already spent and the predecessor
 * recorded for it (the caller's marker: e.g. -1 for a source, -2 - target for a target-entering node). */
typedef struct rsc_ch_end {
    int32_t node;
    int32_t pred;
    int64_t cost;
} rsc_ch_end;

/* Result of one search: the best meeting cost (INT64_MAX: none; `direct` counted), its node (-1: none found by the
 * search, so `direct` if best < INT64_MAX), and the nodes taken from the two heaps (stalled ones included: the
 * search space, a statistic). */
typedef struct rsc_ch_meeting {
    int64_t best;
    int32_t meet;
    int32_t settled;
} rsc_ch_meeting;

/* Scratch space of one search at a time on hierarchies of `node_count` nodes (labels reset in O(1) per search).
 * Returns an owned workspace (free with rsc_ch_search_destroy) or NULL on a negative count or out of memory. */
typedef struct rsc_ch_search rsc_ch_search;
rsc_ch_search *rsc_ch_search_create(int32_t node_count);
/* Frees a workspace; NULL is a no-op. */
void rsc_ch_search_destroy(rsc_ch_search *search);

/* One bidirectional search: forward upward from `sources`, backward (down links followed in reverse) from
 * `targets`. `direct` is a path cost known without the search (INT64_MAX: none). On a search graph numbered by slot
 * with no core, each side relaxes its upward-reachable nodes once, in slot order from the lowest rank up (no
 * distance queue: every label is final when its node is taken); otherwise it runs Dijkstra. With bound < 0 it finds
 * the cheapest path (the sweep does not expand nodes whose label cannot beat the best meeting; the Dijkstra stops
 * once neither frontier can improve it, stalling on demand). With bound >= 0 every node whose upward distance is
 * within `bound` is reached with its exact label (the sweep expands those, the Dijkstra runs without stalling until
 * both frontiers pass `bound`), and those reached forward are kept (rsc_ch_search_settled; in the order taken):
 * every node both searches reach within the bound keeps its exact labels (via paths).
 * Labels and predecessors stay readable until the next run. Link costs must be >= 0; the ends' costs may be any
 * (they only offset labels). Returns RSC_OK with *out set, RSC_EINVAL on NULL, a view of another node count or an
 * end out of range, RSC_ENOMEM when a queue cannot grow (the labels are then incomplete). */
int rsc_ch_search_run(rsc_ch_search *search, const rsc_ch_view *hierarchy, const rsc_ch_end *sources,
                      size_t source_count, const rsc_ch_end *targets, size_t target_count, int64_t direct,
                      int64_t bound, rsc_ch_meeting *out);
/* The last run's label of `node` (forward when backward == 0), INT64_MAX when the run did not reach it or it is out
 * of range. */
int64_t rsc_ch_search_label(const rsc_ch_search *search, int backward, int32_t node);
/* The last run's predecessor of `node` (the link it was reached by, or the end's `pred`); -1 when not reached. */
int32_t rsc_ch_search_pred(const rsc_ch_search *search, int backward, int32_t node);
/* The nodes the last bounded run settled forward, in order (*count of them; borrowed until the next run). */
const int32_t *rsc_ch_search_settled(const rsc_ch_search *search, size_t *count);

#ifdef __cplusplus
}
#endif

#endif
