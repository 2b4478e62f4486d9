/*
 * RoadSnap C shim: the hidden-Markov map-matching hot loop (Newson & Krumm 2009), in C for throughput.
 * Included from cshims.h; same conventions (rsc_ prefix, owned handles freed by *_destroy, RSC_E* codes).
 *
 * States are directed arcs as in RoadGraph: arc 2e runs edge e along its geometry, arc 2e+1 against it.
 * Offsets along an arc are metres from the arc's tail in its travel direction.
 */
#ifndef ROADSNAP_CSHIMS_MATCH_H
#define ROADSNAP_CSHIMS_MATCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rsc_query;

/* Immutable directed graph for matching; shareable between threads once created. */
typedef struct rsc_match_graph rsc_match_graph;

/* Copies the graph: `arc_count` = 2 * edges; arc_tail/arc_head are -1 for arcs the edge does not allow;
 * out_start has node_count + 1 entries indexing out_arcs; reverse_arc gives each arc's reverse (the same road the
 * other way: a ^ 1, or a separate one-way edge's arc; -1 when none). Turn restrictions (restriction_count entries)
 * are given per edge: from edge, via node, to edge, and mandatory (1 = only_*, 0 = no_*).
 * Returns an owned graph or NULL on bad input or out of memory. */
rsc_match_graph *rsc_match_graph_create(size_t node_count, size_t arc_count, const int32_t *out_start,
                                        const int32_t *out_arcs, const int32_t *arc_tail, const int32_t *arc_head,
                                        const double *arc_length, const int32_t *reverse_arc,
                                        size_t restriction_count,
                                        const int32_t *restriction_from_edge, const int32_t *restriction_via,
                                        const int32_t *restriction_to_edge, const int8_t *restriction_mandatory);
/* The same graph reading the caller's arrays in place (no copy; they must outlive it and not change): `twin` is
 * reverse_arc with -1 for arcs the edge does not allow; turn restrictions grouped by from edge as
 * r_*[r_start[e] ..< r_start[e + 1]] (r_start has arc_count / 2 + 1 entries; all NULL when restriction_count is 0).
 * Only the ends of the offset tables are checked; the contents are trusted (checksummed by the caller).
 * Returns an owned graph (rsc_match_graph_destroy leaves the arrays alone) or NULL on inconsistent sizes. */
rsc_match_graph *rsc_match_graph_borrow(size_t node_count, size_t arc_count, const int32_t *out_start,
                                        const int32_t *out_arcs, const int32_t *arc_tail, const int32_t *arc_head,
                                        const double *arc_length, const int32_t *twin, size_t restriction_count,
                                        const int32_t *r_start, const int32_t *r_via, const int32_t *r_to,
                                        const int8_t *r_mandatory);
/* Gives the graph its node positions (local metres, the frame of the fixes and of arc_length: each arc must be at
 * least as long as the straight line between its end nodes). With them, the route search of a transition is goal
 * directed (A*) toward the next fix; without them it is a plain Dijkstra with the same results. Call before the
 * graph is shared between threads. Returns RSC_OK, RSC_EINVAL on NULL or a non-finite position, RSC_ENOMEM. */
int rsc_match_graph_set_node_positions(rsc_match_graph *graph, const double *x, const double *y);
/* Gives the graph each arc's free-flow speed (m/s, arc_count values, every one finite and > 0; arcs not allowed take
 * any such value). With them, the path between two matched fixes joined by a route search is the quickest route
 * between them when it is clearly quicker than the shortest (sparse fixes on a map with road speeds: the driver takes
 * the main road); the states and scores are unchanged. Call before the graph is shared between threads. Returns
 * RSC_OK, RSC_EINVAL on NULL or a bad speed, RSC_ENOMEM. */
int rsc_match_graph_set_arc_speeds(rsc_match_graph *graph, const double *speed);
/* Gives the graph each arc's direction where it leaves its tail (`leave`) and where it enters its head (`enter`):
 * radians, atan2(dy, dx) in the local frame, arc_count values each, every one finite (arcs not allowed take any).
 * With them, params->turn_cost prices the turns of the route searches beyond the straightest way on, on a graph
 * without arc speeds (rsc_match_graph_prices_turns); without them turns are free. Call before the graph is shared
 * between threads. Returns RSC_OK, RSC_EINVAL on NULL or a non-finite value, RSC_ENOMEM. */
int rsc_match_graph_set_arc_directions(rsc_match_graph *graph, const double *leave, const double *enter);
/* Whether the graph's route searches would price turns given arc directions: 1 on a graph without arc speeds, 0 once
 * rsc_match_graph_set_arc_speeds gave it speeds that differ (the quickest-path rule then picks between routes of
 * about equal length) or on NULL. Callers can skip computing arc directions when it is 0. */
int rsc_match_graph_prices_turns(const rsc_match_graph *graph);
/* Frees a graph; NULL is a no-op. Every matcher using it must be destroyed first. */
void rsc_match_graph_destroy(rsc_match_graph *graph);
/* Whether the turn from arc `from` onto arc `to` (at from's head) is allowed by the turn restrictions. */
int rsc_match_turn_allowed(const rsc_match_graph *graph, int32_t from, int32_t to);

/* Matching parameters (metres, seconds, degrees). */
typedef struct rsc_match_params {
    double sigma;            /* GPS error standard deviation (Gaussian emission), > 0 */
    double huber;            /* beyond huber * sigma the emission's log falls linearly, not quadratically (0: never) */
    double beta;             /* scale of the exponential transition on |route - great circle|, > 0 */
    double radius;           /* candidate search radius */
    int32_t max_candidates;  /* nearest roads considered per fix, 1..256: each edge gives one or two arcs, and an
                              * edge whose reverse twin (a separate one-way edge) is also kept counts once */
    double distance_factor;  /* route search bound: max(factor * great circle, great circle + search_floor) */
    double search_floor;
    double max_speed;        /* m/s; with timestamps, a route longer than great circle + max_speed * dt is impossible */
    double max_gap;          /* seconds; a longer time gap between fixes splits the track (<= 0: never) when the */
    double gap_min_speed;    /* vehicle moved more than 2 sigma but slower than this (m/s) across it */
    double uturn_penalty;    /* metres added to a route for a U-turn (in place or at a junction; not at a dead end) */
    double backward_tolerance; /* metres a fix may fall back along the same arc without leaving it */
    double heading_sigma;    /* degrees; with a course, emission adds a Gaussian on course vs. arc bearing */
    double min_heading_speed; /* m/s; the course is used only at or above this speed (when a speed is given) */
    double beam;             /* log-probability window: previous states below best - beam are not expanded */
    double beta_per_second;  /* extra beta per second of sampling interval beyond 1 s (sparse tracks) */
    int32_t max_outliers;    /* consecutive unreachable fixes dropped as outliers before the track splits */
    double disconnect_margin; /* sigmas (the fix's own, as in the emission): when every reachable state lies this
                               * much further from the fix than its nearest candidate, the fix counts as
                               * unreachable (missing link) */
    double min_fix_distance; /* a fix closer than this to the last scored fix takes its match (0: score every fix) */
    double joint_interval;   /* scored fixes at least this many seconds and 10 m/s times as many metres apart are
                              * joined by one search from all the previous fix's candidates at once; denser ones by
                              * one cached search per candidate arc */
    double joint_beam;       /* log-probability: that search stops once every further state would be this much below
                              * the best state found so far (> 0; at most beam to change nothing but the work) */
    double recovery_radius;  /* a fix whose layer is unreachable, or whose best state is reached only by turning back
                              * (a U-turn or falling back along its arc), is searched again for twice max_candidates
                              * roads within max(this, radius) before it is dropped or kept (0: never): the road
                              * driven may lie beyond the nearest roads while a road the other way is near */
    double outlier_penalty;  /* log-probability: a scored fix is dropped as an outlier (its layer replaced by the
                              * next fix's, scored from the layer before it) when the best chain through it is worse
                              * than the best chain leaving it out by more than this (0: never); with an outlier
                              * window, a fix whose best chain falls by more than this is held back as an outlier
                              * (within max_outliers) and taken only when no later fix resumes the chain past it
                              * by a chain scoring more than this above its fall */
    double outlier_window;   /* seconds: beyond max_outliers, unreachable fixes stay outliers (the track does not
                              * split) while they lie within this of the last scored fix (once the chain has more
                              * layers than max_outliers); the chain resumes at a later fix only by a route no longer
                              * than 1.25 x the path through those fixes + 4 sigma, and only when they lay on average
                              * at least sigma from their nearest road (a drift off the road driven, not a road of
                              * their own): 0 = max_outliers alone */
    double turn_cost;        /* metres added to a route per 180 degrees it turns beyond the straightest way on
                              * from each node it passes (the way back left out): going on where there is one way
                              * on, or along the straightest, is free; turning off a road that goes on is not. Of
                              * two routes about as long, the one going straight on wins (0: turns are free; needs
                              * the graph's arc directions, and applies only on a graph without arc speeds) */
    double off_road;         /* sigmas: a sub-match whose fixes lie on average at least this far from the road
                              * matched, each in its own sigma (rsc_fix_sigma), and that holds fewer than half the
                              * track's matched fixes, is left unmatched (rsc_matcher_run): fixes off the map (a car
                              * park, a walk) that strayed within the radius of a road, not a road driven; a track
                              * matched mostly that far keeps its match (a poor receiver or a shifted map) (0: never) */
} rsc_match_params;

/* The one validation of the parameters (CLI, Swift and C API all go through it, and rsc_matcher_run): every value
 * finite (joint_interval may be +infinity: never join) and within its range, lower and upper bound (sigma (0, 1000] m,
 * beta (0, 10000] m, radius (0, 10000] m, candidates 1..256, ...). Returns RSC_OK, or RSC_EINVAL with a message naming
 * the first bad value, its range and the value given written to message[0 ..< size] (NUL-terminated, truncated to
 * fit; message may be NULL). */
int rsc_match_params_check(const rsc_match_params *params, char *message, size_t size);

/* Result for one fix. arc = -1 when the fix is unmatched (no candidate, invalid, or dropped as an outlier).
 * 32 bytes: a batch run holds one per fix of the track (issue 16, item 11), so the matched point's local x/y are not
 * kept here (a batch caller places the fix from arc and offset); the stream's answer carries them
 * (rsc_stream_answer). */
typedef struct rsc_match_fix {
    int32_t arc;
    int32_t sub;        /* sub-match index, -1 when unmatched */
    int32_t path_index; /* the step of its sub-match's path the fix lies on (0-based), -1 when unmatched */
    int32_t held;       /* 1 when the fix was within min_fix_distance of the last scored fix and took its match */
    double offset;      /* metres along the arc from its tail */
    double distance;    /* fix to matched point, metres */
} rsc_match_fix;

/* One sub-match: a run of fixes joined by possible transitions. */
typedef struct rsc_match_sub {
    int32_t first_fix, last_fix;   /* first and last matched fix (inclusive) */
    int32_t path_start, path_count; /* steps driven, in order: rsc_matcher_path()[path_start ..< +path_count] */
    int32_t matched_fixes;          /* matched fixes in [first_fix, last_fix] */
    double length;                  /* route length in metres from the first to the last matched point */
    double great_circle;            /* sum of straight distances between consecutive matched fixes */
    double deviation;               /* sum over transitions of |route - great circle| */
    double mean_distance;           /* mean fix-to-road distance */
    double mean_sigmas;             /* mean fix-to-road distance, each in its fix's own sigma (rsc_fix_sigma) */
} rsc_match_sub;

/* One step of a matched path: metres `from` .. `to` along `arc` (from its tail). */
typedef struct rsc_path_step {
    int32_t arc;
    double from, to;
} rsc_path_step;

/* Per-thread matcher; not thread-safe. `graph` and `query` must outlive it. Returns NULL on failure. */
typedef struct rsc_matcher rsc_matcher;
rsc_matcher *rsc_matcher_create(const rsc_match_graph *graph, struct rsc_query *query);
/* Frees a matcher; NULL is a no-op. */
void rsc_matcher_destroy(rsc_matcher *matcher);

/* Matches n fixes at (x[i], y[i]) (local metres; non-finite = invalid fix). `time`, `course`, `speed`, `accuracy`
 * (the fix's horizontal accuracy, 1 sigma, metres: a larger one than params->sigma widens that fix's emission) may be
 * NULL; NaN entries mean unknown. Fix i's value of each is at [i * stride] (stride >= 1: 1 for arrays of their own;
 * a caller holding its fixes as records of doubles points each into the first record, with the record's size in
 * doubles, instead of copying a column per fix). They are read during the run only. Results stay in the matcher
 * until the next run. Returns the number of sub-matches (>= 0) or a negative RSC_E* code (RSC_EINVAL for bad
 * parameters or stride 0, RSC_ENOMEM, RSC_EGEOS when a candidate search failed: rsc_query_failure of the matcher's
 * query says what failed). No allocation per fix once the matcher's buffers have grown to the track size. */
int rsc_matcher_run(rsc_matcher *matcher, const rsc_match_params *params, size_t n, const double *x, const double *y,
                    const double *time, const double *course, const double *speed, const double *accuracy,
                    size_t stride);
/* Results of the last run: n per-fix entries, the sub-matches, and the concatenated path steps. */
const rsc_match_fix *rsc_matcher_fixes(const rsc_matcher *matcher);
const rsc_match_sub *rsc_matcher_subs(const rsc_matcher *matcher);
const rsc_path_step *rsc_matcher_path(const rsc_matcher *matcher);
size_t rsc_matcher_path_count(const rsc_matcher *matcher);
/* Forgets the results of the last run and frees every per-fix buffer larger than 16 MB (a big track's), so they are
 * not kept while the caller writes its own copy out; the next run allocates again. NULL is a no-op. */
void rsc_matcher_release(rsc_matcher *matcher);
/* Tests: prune a batch run's states from `min_states` states and its route entries from `min_entries` entries (0: the
 * defaults, 65,536 and 262,144), so pruning can be checked on a short track. Returns how many times the last run
 * pruned. NULL is a no-op returning 0. */
size_t rsc_matcher_set_pruning(rsc_matcher *matcher, size_t min_states, size_t min_entries);

/* Incremental, lag-bounded matching on the same engine (the same candidates, emission, transition, route search and
 * step as rsc_matcher_run) for a live feed: push one fix at a time; the answer for the newest fix is the best state of
 * its layer (lag 0), the answer for the fix `lag` pushes back is read off the best chain through it (it settles as
 * more fixes arrive). Held fixes (within min_fix_distance of the last scored one) take their layer's state; a fix
 * without a candidate, or unreachable (an outlier, up to max_outliers in a row), is unmatched; a longer unreachable
 * run or a time gap with little progress ends the chain and starts a new one at the fix, with the outliers just before
 * it replayed into it first, as rsc_matcher_run replays them into the next sub-match (the answers of the fixes before
 * are kept as they were). Memory is bounded: states, layers and route searches older than the lag window are
 * released as the drive goes on. Not thread-safe; graph and query must outlive it. */
typedef struct rsc_stream rsc_stream;
/* A stream answering up to `max_lag` (0..1024) fixes back, with a copy of `params` (checked with
 * rsc_match_params_check) and `route_bonus` (log units >= 0, finite) added to the emission of the current route's arcs
 * (rsc_stream_set_route). Returns NULL on bad arguments or out of memory. */
rsc_stream *rsc_stream_create(const rsc_match_graph *graph, struct rsc_query *query, const rsc_match_params *params,
                              int32_t max_lag, double route_bonus);
/* Frees a stream; NULL is a no-op. */
void rsc_stream_destroy(rsc_stream *stream);
/* Pushes one fix (local metres; time, course, speed, accuracy NaN when unknown, as in rsc_matcher_run; a non-finite
 * position is an unmatched fix).
 * RSC_OK, RSC_EINVAL on NULL, RSC_ENOMEM or RSC_EGEOS (a candidate search failed: rsc_query_failure of the stream's
 * query says what) (the stream is then reset). No allocation per fix once its buffers have grown
 * to the lag window. */
int rsc_stream_push(rsc_stream *stream, double x, double y, double time, double course, double speed,
                    double accuracy);
/* The stream's answer for one fix: the result (sub and path_index are -1; held as in rsc_match_fix) and the matched
 * point in the local frame (NaN when unmatched). */
typedef struct rsc_stream_answer {
    rsc_match_fix fix;
    double x, y;
} rsc_stream_answer;
/* The answer for the fix pushed `lag` fixes before the newest (0: the newest), in *out (the caller's). A fix of
 * the open run of outliers (rsc_stream_pending) is unmatched at lag 0 and, at lag >= 1, answered on a shadow chain
 * of the run's own fixes (what the run becomes should the chain end; unmatched again when a fix bridges it).
 * RSC_OK (out->fix.arc -1: unmatched), RSC_EINVAL when lag > max_lag or fewer fixes were pushed since the last
 * reset. */
int rsc_stream_result(const rsc_stream *stream, int32_t lag, rsc_stream_answer *out);
/* Arcs of the current route (favoured by route_bonus); n = 0 clears it. Applies from the next push. RSC_OK or
 * RSC_EINVAL (NULL, or an arc out of range). */
int rsc_stream_set_route(rsc_stream *stream, const int32_t *arcs, size_t n);
/* Forgets every fix and state (after a reroute or a long gap); the route stays, and so does the noise estimate. */
void rsc_stream_reset(rsc_stream *stream);
/* Raises sigma to the feed's own estimate as fixes arrive (`on` != 0), as the batch run raises it to a track's:
 * 1.4826 x the median distance of a fix to its nearest road within the radius given (over the fixes scored, each
 * layer's nearest candidate, the older ones fading after ~16,000; from the 64th on, taken again every 16), when that
 * is larger than the sigma given, and the radius to 5 of those sigmas; the minimum fix distance stays as given. Kept
 * across rsc_stream_reset (it is the receiver's). 0: the values given, as made. No search of its own. RSC_OK,
 * RSC_EINVAL (NULL, a shadow) or RSC_ENOMEM. */
int rsc_stream_raise_sigma(rsc_stream *stream, int on);
/* The sigma the stream matches with now (the one given, or raised by rsc_stream_raise_sigma); NaN for NULL. */
double rsc_stream_sigma(const rsc_stream *stream);
/* Bytes the stream holds in its growable buffers (for soak tests: stays flat on an endless drive). */
size_t rsc_stream_memory(const rsc_stream *stream);
/* Fixes at the end of the stream held as possible outliers: unreachable from the chain (up to max_outliers or the
 * outlier window), unanswered until a later fix bridges them (outliers) or ends the chain (replayed into the next
 * one). 0 once a fix is scored, and for NULL. */
size_t rsc_stream_pending(const rsc_stream *stream);

#ifdef __cplusplus
}
#endif
#endif
