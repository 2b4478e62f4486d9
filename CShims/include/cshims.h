/*
 * RoadSnap C shim: thin, prefixed (rsc_) C functions over GEOS, PROJ and libosmium.
 *
 * Conventions for every function below:
 *  - Handles returned by *_create / *_open are owned by the caller and freed with the matching *_destroy
 *    (passing NULL to *_destroy is a no-op).
 *  - Functions returning int return 0 (RSC_OK) on success and a negative RSC_E* code on failure; functions
 *    returning a pointer return NULL on failure. Where an `err` buffer is taken, a NUL-terminated message is
 *    written into it on failure (truncated to errlen).
 *  - No C++ exception, GEOS error or PROJ error escapes: all are caught and turned into the failure value.
 *  - GEOS and PROJ are loaded on first use (CShims/libs.c); if one cannot be loaded, the functions needing it fail
 *    with a message naming the library (rsc_frame_create, rsc_index_create) or their failure value.
 */
#ifndef ROADSNAP_CSHIMS_H
#define ROADSNAP_CSHIMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RSC_OK 0
#define RSC_EINVAL (-1)   /* bad argument */
#define RSC_EIO (-2)      /* file missing or unreadable */
#define RSC_EFORMAT (-3)  /* file is not a readable OSM file (bad, truncated or unknown format) */
#define RSC_ENOMEM (-4)   /* allocation failed */
#define RSC_EPROJ (-5)    /* PROJ failed */
#define RSC_EGEOS (-6)    /* GEOS failed */

/* ------------------------------------------------------------------------------------------------------------
 * Local metric frame (PROJ): transverse Mercator centred on a map, WGS84 lon/lat <-> metres.
 * A frame is NOT thread-safe (it owns one PJ_CONTEXT); use rsc_frame_clone to get one per thread.
 * ------------------------------------------------------------------------------------------------------------ */
typedef struct rsc_frame rsc_frame;

/* Creates a frame centred on (lat0, lon0). Returns an owned frame, or NULL (message in err) on failure. May hand
 * out a spare frame made earlier for the same centre (see rsc_frame_destroy): the same results, bit for bit, and no
 * PROJ messages logged (a new one logs PROJ's debug messages about the files it opens). Thread-safe. */
rsc_frame *rsc_frame_create(double lat0, double lon0, char *err, size_t errlen);
/* Reference for tests: the same frame as PROJ's pipeline "unitconvert deg -> rad, then tmerc" (the definition
 * rsc_frame_create had before it converted the degrees itself, as that step does); same contract. */
rsc_frame *rsc_frame_create_reference(double lat0, double lon0, char *err, size_t errlen);
/* Returns an independent, owned copy with its own PROJ context (a spare of the same centre when there is one), or
 * NULL on failure. Thread-safe with respect to other frames; `frame` itself must not be in use meanwhile. */
rsc_frame *rsc_frame_clone(const rsc_frame *frame);
/* Gives a frame up; NULL is a no-op. The frame, its PROJ context and pipeline, are kept as a spare for the next
 * rsc_frame_create or rsc_frame_clone of the same centre; the process keeps at most 8 spares (about 12 KB each),
 * freeing the oldest, and frees them at exit (atexit). Thread-safe. */
void rsc_frame_destroy(rsc_frame *frame);
/* Projects n points in place-free arrays: lat/lon (degrees) -> x/y (metres east/north).
 * Returns RSC_OK, or RSC_EPROJ if any point failed (its outputs are set to HUGE_VAL; rsc_frame_failure says which
 * point and PROJ's reason, e.g. a point outside the projection's domain), RSC_EINVAL on NULL. */
int rsc_frame_forward(rsc_frame *frame, const double *lat, const double *lon, double *x, double *y, size_t n);
/* Inverse of rsc_frame_forward: x/y (metres) -> lat/lon (degrees). Same return values. */
int rsc_frame_inverse(rsc_frame *frame, const double *x, const double *y, double *lat, double *lon, size_t n);
/* What the frame's last failed rsc_frame_forward / rsc_frame_inverse failed on (the first failed point, PROJ's
 * error string and PROJ's logged message, collected through the log handler of the frame's own PROJ context);
 * "" after a success. Owned by the frame, valid until its next call; "" for NULL. */
const char *rsc_frame_failure(const rsc_frame *frame);

/* ------------------------------------------------------------------------------------------------------------
 * Geodesics on WGS84 (PROJ's geodesic.h). Thread-safe, no handle.
 * ------------------------------------------------------------------------------------------------------------ */
/* Distance (m) and forward azimuths (degrees clockwise from north, in [0, 360)) from point 1 to point 2.
 * Any of the out pointers may be NULL. Always succeeds for finite input; NaN in gives NaN out (and NaN out when
 * PROJ cannot be loaded: a map, whose frame needs PROJ, could not have been opened then). */
void rsc_geod_inverse(double lat1, double lon1, double lat2, double lon2, double *distance, double *azimuth1,
                      double *azimuth2);
/* Destination point from (lat1, lon1) after `distance` metres along `azimuth` degrees. */
void rsc_geod_direct(double lat1, double lon1, double azimuth, double distance, double *lat2, double *lon2);

/* ------------------------------------------------------------------------------------------------------------
 * Segment index (GEOS STRtree) and snapping. Coordinates are in a local metric frame (metres).
 * The index is immutable after rsc_index_create and may be shared by threads; each thread queries through its
 * own rsc_query (which owns that thread's GEOS context and scratch space).
 * ------------------------------------------------------------------------------------------------------------ */
typedef struct rsc_index rsc_index;
typedef struct rsc_query rsc_query;

/* One candidate road position for a fix: the nearest point of one edge. */
typedef struct rsc_candidate {
    int32_t edge;      /* edge index (as given at index creation) */
    int32_t segment;   /* segment index within the whole index, as given at creation */
    double x, y;       /* foot point, metres in the local frame */
    double distance;   /* fix to foot point, metres */
    double offset;     /* metres from the edge's start to the foot point */
    double bearing;    /* road bearing at the foot point in the edge's forward direction, degrees [0, 360) */
} rsc_candidate;

/* Builds an index over n segments (ax,ay)-(bx,by) belonging to edges `edge[i]` starting `offset[i]` metres along
 * their edge. Segments of one edge must be contiguous. `edge_direction[e]` for each of `edge_count` edges:
 * 0 = both ways, 1 = forward only, -1 = backward only. `cache_radius` (metres, > 0) is the largest radius served
 * from the cell cache (per-cell lists of STRtree query results); larger radii query the STRtree directly.
 * Arrays are copied. Returns an owned index, or NULL with a message in err. */
rsc_index *rsc_index_create(const double *ax, const double *ay, const double *bx, const double *by,
                            const int32_t *edge, const double *offset, size_t n, const int8_t *edge_direction,
                            size_t edge_count, double cache_radius, char *err, size_t errlen);
/* Frees an index; NULL is a no-op. Every rsc_query made from it must be destroyed first. */
void rsc_index_destroy(rsc_index *index);
/* Number of segments; number of non-empty cache cells (0 when the cache is off). */
size_t rsc_index_segment_count(const rsc_index *index);
size_t rsc_index_cache_cells(const rsc_index *index);

/* Creates a per-thread query context bound to `index` (which must outlive it) with its own GEOS context.
 * Returns an owned context or NULL on failure. */
rsc_query *rsc_query_create(const rsc_index *index);
/* Frees a query context; NULL is a no-op. */
void rsc_query_destroy(rsc_query *query);

/* All edges with a point within `radius` metres of (x, y), one candidate per edge (its nearest point), sorted by
 * distance (ties by edge). Writes at most `capacity` candidates (the nearest ones) to `out`.
 * `use_cache` = 0 forces the direct STRtree query. Returns the number written (>= 0; 0 = no edge within radius), or
 * a negative RSC_E* code: RSC_EINVAL on bad arguments, RSC_EGEOS when GEOS failed (could not be loaded, could not
 * build the STRtree of a borrowed index, or a query failed), RSC_ENOMEM; rsc_query_failure then says what failed. */
int rsc_query_candidates(rsc_query *query, double x, double y, double radius, int use_cache, rsc_candidate *out,
                         int capacity);
/* The candidate of one edge: its nearest point to (x, y) if within `radius`, written to *out, as
 * rsc_query_candidates would list it for that edge (with no limit on how many other edges lie nearer), from the
 * edge's own segments only (a table of where each edge's segments start, built on the index's first call, 4 bytes
 * per edge). Returns 1 when written, 0 when the edge lies farther, RSC_EINVAL (NULL, an edge out of range, a
 * non-finite point or negative radius) or RSC_ENOMEM (rsc_query_failure says so). */
int rsc_query_edge_candidate(rsc_query *query, int32_t edge, double x, double y, double radius, rsc_candidate *out);
/* Brute force reference: same contract as rsc_query_candidates, scanning every segment (for tests). */
int rsc_query_candidates_brute(rsc_query *query, double x, double y, double radius, rsc_candidate *out,
                               int capacity);

/* Best candidate for each of n fixes (x/y in metres, course in degrees or NaN when unknown), written to
 * out[i]; out[i].edge = -1 when no edge is within radius. The choice minimises distance plus a heading penalty
 * when the course is known, and avoids driving against a one-way edge. Returns the number of fixes snapped
 * (>= 0), or a negative RSC_E* code: RSC_EINVAL, or the failure of a fix's candidate search (RSC_EGEOS /
 * RSC_ENOMEM, see rsc_query_candidates; the batch stops there, out[] is then partly written).
 * `use_cache` = 0 queries the STRtree directly for every fix.
 * No allocation per fix (the STRtree path reuses the query's scratch). */
int rsc_query_snap_batch(rsc_query *query, const double *x, const double *y, const double *course, size_t n,
                         double radius, int use_cache, rsc_candidate *out);
/* What the query's last failed call failed on: GEOS's own message (collected by the error handler of the query's
 * GEOS context), or why there was no STRtree (GEOS not loadable, tree not built). Owned by the query, valid until
 * its next call; "" when nothing failed or for NULL. */
const char *rsc_query_failure(const rsc_query *query);

/* The heading-aware choice used by rsc_query_snap_batch among `count` candidates; returns the chosen index or -1. */
int rsc_choose_candidate(const rsc_index *index, const rsc_candidate *cands, int count, double course);

/* ------------------------------------------------------------------------------------------------------------
 * OSM reading (libosmium). Car-relevant highway ways, ferry routes, their nodes and turn restrictions.
 * ------------------------------------------------------------------------------------------------------------ */
typedef struct rsc_osm rsc_osm;

/* Reads .osm.pbf, .osm, .osm.gz, .osm.bz2 (format from the file name). Keeps ways tagged highway=* (any value;
 * the caller filters) or route=ferry, the nodes they use, and type=restriction relations.
 * On success stores an owned result in *out and returns RSC_OK; otherwise returns RSC_EIO / RSC_EFORMAT /
 * RSC_ENOMEM with a message in err and leaves *out NULL. */
int rsc_osm_read(const char *path, rsc_osm **out, char *err, size_t errlen);
/* Frees a result; NULL is a no-op. */
void rsc_osm_destroy(rsc_osm *osm);

/* Nodes referenced by the kept ways that have a location, in ascending id order. Pointers stay valid until
 * rsc_osm_destroy. */
size_t rsc_osm_node_count(const rsc_osm *osm);
const int64_t *rsc_osm_node_ids(const rsc_osm *osm);
const double *rsc_osm_node_lats(const rsc_osm *osm);
const double *rsc_osm_node_lons(const rsc_osm *osm);
/* Per node, the `ref` of a highway=motorway_junction node (the exit number), or NULL. */
const char *const *rsc_osm_node_exit_refs(const rsc_osm *osm);

/* Kept ways in file order. For way i: its id, its node references as indices into the node arrays
 * (refs[ref_start[i] ..< ref_start[i+1]]; -1 for a node without a location), and its tags
 * (keys/values[tag_start[i] ..< tag_start[i+1]], NUL-terminated UTF-8). Arrays of starts have count+1 entries. */
size_t rsc_osm_way_count(const rsc_osm *osm);
const int64_t *rsc_osm_way_ids(const rsc_osm *osm);
const size_t *rsc_osm_way_ref_starts(const rsc_osm *osm);
const int32_t *rsc_osm_way_refs(const rsc_osm *osm);
const size_t *rsc_osm_way_tag_starts(const rsc_osm *osm);
const char *const *rsc_osm_tag_keys(const rsc_osm *osm);
const char *const *rsc_osm_tag_values(const rsc_osm *osm);

/* Turn restrictions: relation id, its restriction value (e.g. "no_left_turn"; restriction:motorcar preferred),
 * from way id, via node id (0 when the via member is a way or missing), to way id. */
typedef struct rsc_osm_restriction {
    int64_t relation_id;
    int64_t from_way;
    int64_t via_node;
    int64_t to_way;
    const char *restriction;
} rsc_osm_restriction;
size_t rsc_osm_restriction_count(const rsc_osm *osm);
const rsc_osm_restriction *rsc_osm_restrictions(const rsc_osm *osm);

#ifdef __cplusplus
}
#endif

#include "cshims_match.h"
#include "cshims_log.h"
#include "cshims_rsmap.h"
#include "cshims_ch.h"
#include "cshims_crash.h"
#endif
