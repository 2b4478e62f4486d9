/*
 * roadsnap.h - C API of RoadSnap (libroadsnap): road snapping, map matching, routing and navigation.
 *
 * C99. Link with `pkg-config --cflags --libs roadsnap` (shared library) or `roadsnap-static` (static archive).
 *
 * Conventions
 * - Every function that can fail returns an rs_status; RS_OK (0) is success. On failure the calling thread's
 *   rs_last_error_message() says what went wrong (file, line, fix or argument); on success it is "".
 * - Handles (rs_map, rs_snapper, ...) are opaque ids, not pointers to memory: a NULL, closed (stale) or
 *   wrong-kind handle gives RS_E_INVALID_HANDLE, never a crash. Closing a handle twice gives RS_E_INVALID_HANDLE.
 * - Results go into caller-owned memory; the library keeps no pointer to it after the call returns.
 * - Coordinates are WGS84 degrees; distances metres; bearings/courses degrees clockwise from north in [0, 360);
 *   times seconds since the Unix epoch (UTC). NAN means "unknown" where a field says so.
 * - Thread safety is stated per function:
 *     [thread-safe]       may be called from any thread at once, on the same handle too;
 *     [one thread a time] the handle must not be used by two threads at the same moment (a call that finds the
 *                         handle busy on another thread returns RS_E_BUSY instead of racing). Make one per thread.
 */
#ifndef ROADSNAP_H
#define ROADSNAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ABI version of this header: bumped on any incompatible change to a declaration or struct layout below.
 * Compare with rs_abi_version() at run time to detect a mismatched library. */
#define ROADSNAP_ABI_VERSION 1
/* Library version this header ships with (rs_version() gives the library's at run time). */
#define ROADSNAP_VERSION_MAJOR 0
#define ROADSNAP_VERSION_MINOR 1
#define ROADSNAP_VERSION_PATCH 0
/* The version as one comparable number, MAJOR * 10000 + MINOR * 100 + PATCH (0.1.0 is 100), and as text. */
#define ROADSNAP_VERSION_NUMBER \
    (ROADSNAP_VERSION_MAJOR * 10000 + ROADSNAP_VERSION_MINOR * 100 + ROADSNAP_VERSION_PATCH)
#define ROADSNAP_VERSION_STRING "0.1.0"
/* True when this header is version maj.min.patch or later, for code that uses a newer call when it exists:
 *     #if ROADSNAP_VERSION_AT_LEAST(0, 2, 0) ... #endif                                                           */
#define ROADSNAP_VERSION_AT_LEAST(maj, min, patch) \
    (ROADSNAP_VERSION_NUMBER >= ((maj) * 10000 + (min) * 100 + (patch)))

/* ---------------------------------------------------------------------------------------------------------------
 * Status codes and errors
 * --------------------------------------------------------------------------------------------------------------- */
typedef enum rs_status {
    RS_OK = 0,
    RS_E_NULL_ARGUMENT = 1,     /* a required pointer argument was NULL */
    RS_E_INVALID_HANDLE = 2,    /* handle NULL, already closed/destroyed, or of another kind */
    RS_E_INVALID_ARGUMENT = 3,  /* a value out of its valid range (radius, index, option, ...) */
    RS_E_INVALID_FIX = 4,       /* a fix with NaN or out-of-range latitude/longitude */
    RS_E_IO = 5,                /* a file could not be opened, read or written */
    RS_E_INVALID_MAP = 6,       /* not a readable OSM or GeoJSON road network */
    RS_E_NO_DRIVABLE_ROADS = 7, /* the map holds no road a car may drive on */
    RS_E_INVALID_TRACK = 8,     /* a malformed track file */
    RS_E_BUFFER_TOO_SMALL = 9,  /* an output buffer was too small; the needed size is reported */
    RS_E_BUSY = 10,             /* a [one thread a time] handle is in use on another thread */
    RS_E_PROJECTION = 11,       /* PROJ failed */
    RS_E_GEOMETRY = 12,         /* GEOS failed */
    RS_E_INTERNAL = 13,         /* a bug: the message says where */
    RS_E_NO_ROUTE = 14,         /* a route request gave no route; its rs_route_status says why */
    RS_E_CANCELED = 15          /* a long build was stopped through its cancel flag; nothing was made */
} rs_status;

/* The calling thread's message for its last failed call; "" after a successful call. Never NULL. The text stays
 * valid until this thread's next rs_ call. [thread-safe] (each thread has its own message) */
const char *rs_last_error_message(void);

/* Name of a status code ("RS_OK", "RS_E_IO", ...); "RS_E_UNKNOWN" for values not listed. Static storage.
 * [thread-safe] */
const char *rs_status_name(rs_status status);

/* ---------------------------------------------------------------------------------------------------------------
 * Version
 * --------------------------------------------------------------------------------------------------------------- */
/* The library's version, "MAJOR.MINOR.PATCH". Static storage. [thread-safe] */
const char *rs_version(void);
/* The library's ABI version; equal to ROADSNAP_ABI_VERSION when header and library match. [thread-safe] */
int32_t rs_abi_version(void);
/* Number of handles of every kind currently open in this process (for leak checks in tests: a handle never
 * closed keeps its object alive without looking like a leak to memory checkers). [thread-safe] */
int64_t rs_open_handle_count(void);

/* ---------------------------------------------------------------------------------------------------------------
 * Living in a host process
 * - Signals: the library installs no signal handler and changes no signal disposition, on loading or in any call.
 *   The Swift runtime inside it has a crash backtracer that stays off unless the environment asks for it and
 *   names the backtracer program (SWIFT_BACKTRACE=enable=yes,swift-backtrace=PATH, read once when the library is
 *   loaded); then it handles SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP and SIGQUIT. A host that may run
 *   with such an environment and owns those signals sets SWIFT_BACKTRACE=enable=no (or unsets it) before loading
 *   the library, or installs its own handlers after loading it.
 * - Threads: the library starts threads only while it needs them: map reading (ended when rs_map_open returns), a
 *   navigator's routing worker and its system-clock timer thread (ended by rs_navigator_destroy). No thread of the
 *   library outlives the last handle closed.
 * - Messages: PROJ, GEOS and libosmium write nothing to stderr; their messages go to rs_set_log_handler's
 *   function, or nowhere.
 * - GEOS and PROJ are loaded on first use, not when the program starts: PROJ (libproj.so.25 for PROJ 9, with what
 *   it pulls in) when an OSM or GeoJSON map is opened or the first snapper, matcher or router is made on a compiled
 *   map; GEOS (libgeos_c.so.1) when a map's segment index is built (OSM, GeoJSON) or a compiled map's index is
 *   queried beyond its cache. They are found by soname as the dynamic loader finds libraries (LD_LIBRARY_PATH,
 *   ld.so.cache, ...); ROADSNAP_PROJ_LIBRARY / ROADSNAP_GEOS_LIBRARY may name another file to load instead (read
 *   once, at first use; ignored in set-user-ID programs). If one cannot be loaded, the call needing it fails with
 *   RS_E_PROJECTION resp. RS_E_GEOMETRY and a message naming the library; that failure lasts for the process.
 * --------------------------------------------------------------------------------------------------------------- */
/* Message levels, most severe first. */
typedef enum rs_log_level { RS_LOG_ERROR = 1, RS_LOG_WARNING = 2, RS_LOG_INFO = 3, RS_LOG_DEBUG = 4 } rs_log_level;

/* Receives one message of a library under RoadSnap, or of RoadSnap itself: `level` an rs_log_level, `source`
 * "PROJ", "GEOS", "libosmium" or "RoadSnap" (warnings of rs_map_open about what a map left out: GeoJSON features that
 * are not car roads, OSM ways cut by nodes missing from the file), `message` the text without a trailing newline.
 * Both strings are valid during the call only. Called on the thread whose rs_ call produced the message; it must not
 * call back into rs_ functions that open or create. */
typedef void (*rs_log_fn)(void *user_data, int32_t level, const char *source, const char *message);

/* Sends PROJ, GEOS, libosmium and RoadSnap messages to fn(user_data, ...) instead of dropping them; fn NULL drops them again
 * (the default). Messages at the level set with rs_set_log_level or more severe are delivered (RS_LOG_WARNING
 * unless set). Failures are still reported by each call's rs_status and rs_last_error_message(); the log adds the
 * libraries' own words. Never fails. [thread-safe] */
rs_status rs_set_log_handler(rs_log_fn fn, void *user_data);

/* Most detailed level delivered to the log handler (RS_LOG_ERROR ... RS_LOG_DEBUG; RS_LOG_DEBUG includes PROJ's
 * debug messages, such as which resource files it opens). Applies to maps, snappers and matchers made after the
 * call. Errors: RS_E_INVALID_ARGUMENT for a value outside RS_LOG_ERROR ... RS_LOG_DEBUG. [thread-safe] */
rs_status rs_set_log_level(int32_t max_level);

/* ---------------------------------------------------------------------------------------------------------------
 * Shared value types
 * --------------------------------------------------------------------------------------------------------------- */
/* One GPS fix. latitude/longitude are required; the other fields are NAN when unknown. A fix with latitude or
 * longitude NaN or out of range, or a time beyond +-1e11 s, is invalid. */
typedef struct rs_fix {
    double latitude;
    double longitude;
    double time;     /* seconds since the Unix epoch, UTC */
    double course;   /* course over ground, degrees */
    double speed;    /* speed over ground, m/s */
    double altitude; /* metres */
    double accuracy; /* horizontal accuracy (1 sigma), metres; matching scores a fix with a larger one than its
                        sigma with its own */
} rs_fix;

/* An rs_fix at (latitude, longitude) with every optional field NAN. [thread-safe] */
rs_fix rs_fix_make(double latitude, double longitude);

/* ---------------------------------------------------------------------------------------------------------------
 * Maps
 * --------------------------------------------------------------------------------------------------------------- */
typedef struct rs_map rs_map;

typedef struct rs_map_info {
    int64_t node_count;
    int64_t edge_count;
    double min_latitude, min_longitude, max_latitude, max_longitude;
    double total_length; /* metres of road, each edge counted once */
} rs_map_info;

/* How an edge may be travelled relative to its geometry. */
typedef enum rs_direction { RS_DIRECTION_BOTH = 0, RS_DIRECTION_FORWARD = 1, RS_DIRECTION_BACKWARD = -1 } rs_direction;

typedef struct rs_edge_info {
    int64_t source_id;      /* OSM way id, or the GeoJSON feature's numeric id; INT64_MIN when the id is a string
                             * (see rs_map_edge_source_id for the text form of any id) */
    int64_t from_node, to_node;
    double length;          /* metres */
    int32_t direction;      /* an rs_direction */
    int32_t is_roundabout, is_toll, is_ferry; /* 0 or 1 */
    double maxspeed_forward;  /* km/h as tagged, NAN when untagged */
    double maxspeed_backward; /* km/h as tagged, NAN when untagged */
    double default_speed;     /* km/h used when untagged (by road class) */
    const char *road_class;   /* "motorway", "residential", ..., "ferry", "unknown"; static storage */
} rs_edge_info;

/* Opens a road network: .osm.pbf, .osm, .osm.gz, .osm.bz2 (car roads, one-ways, turn restrictions), a GeoJSON
 * FeatureCollection (.geojson/.json), or a compiled map (.rsmap, made by `roadsnap compile`; recognised by its
 * content), which is memory-mapped and read in place: it opens in milliseconds and its pages are shared with other
 * processes using the same file. A compiled map's checksums are all verified here; a truncated, corrupt, other-
 * version or other-byte-order file gives RS_E_INVALID_MAP naming the file and the problem.
 * On success *out_map is a new handle to close with rs_map_close; on failure *out_map is NULL.
 * Errors: RS_E_NULL_ARGUMENT, RS_E_IO, RS_E_INVALID_MAP, RS_E_NO_DRIVABLE_ROADS.
 * [thread-safe] A map is immutable: every rs_map_* call below is [thread-safe] on the same handle. */
rs_status rs_map_open(const char *path, rs_map **out_map);

/* Opens a compiled map (the bytes of a .rsmap file) held in memory, e.g. in flash or RAM on a device: the map reads
 * `bytes` in place, without copying. Ownership: `bytes` stays the caller's; it must remain valid and unchanged until
 * the map and every handle made from it (snappers, matchers, routers, navigators) are closed or destroyed.
 * Alignment: `bytes` must be 64-byte aligned (sections are 64-byte aligned within the file; RS_E_INVALID_ARGUMENT
 * otherwise). `name` (may be NULL: "<memory>") names the map in error messages. Every checksum is verified.
 * Errors: RS_E_NULL_ARGUMENT, RS_E_INVALID_ARGUMENT, RS_E_INVALID_MAP (not a compiled map, truncated, corrupt,
 * other version or byte order). [thread-safe] */
rs_status rs_map_open_memory(const void *bytes, size_t size, const char *name, rs_map **out_map);

/* Releases the handle. Snappers (and other handles) made from the map stay valid: they keep the network alive.
 * Errors: RS_E_INVALID_HANDLE (NULL, stale or not a map). [thread-safe] */
rs_status rs_map_close(rs_map *map);

/* Counts and bounds of the map. [thread-safe] */
rs_status rs_map_get_info(const rs_map *map, rs_map_info *out_info);

/* Attributes of edge `edge` (0 <= edge < edge_count). Errors: RS_E_INVALID_ARGUMENT for an index out of range.
 * [thread-safe] */
rs_status rs_map_get_edge(const rs_map *map, int64_t edge, rs_edge_info *out_edge);

/* Text form of an edge's source id (OSM way id or GeoJSON feature id), or of its road name (`name`, else `ref`;
 * "" when neither is tagged), written NUL-terminated into buf[capacity]. *out_length (may be NULL) receives the
 * length without the NUL. When capacity is too small the text is truncated (still NUL-terminated when capacity >
 * 0) and RS_E_BUFFER_TOO_SMALL is returned; buf may be NULL when capacity is 0, to ask for the length. [thread-safe] */
rs_status rs_map_edge_source_id(const rs_map *map, int64_t edge, char *buf, size_t capacity, size_t *out_length);
rs_status rs_map_edge_name(const rs_map *map, int64_t edge, char *buf, size_t capacity, size_t *out_length);

/* ---------------------------------------------------------------------------------------------------------------
 * Tracks (recorded GPS files)
 * --------------------------------------------------------------------------------------------------------------- */
typedef struct rs_track rs_track;

typedef struct rs_track_info {
    int64_t fix_count;     /* usable fixes */
    int64_t skipped_count; /* rows left out (NaN or out-of-range coordinates, bad checksums, unparsable values) */
    int64_t segment_count; /* recorded segments (GPX trkseg); 1 for other formats */
} rs_track_info;

/* Reads a track: GPX 1.0/1.1, NMEA 0183 (RMC/GGA), CSV with a header row, or GeoJSON (format detected from the
 * name and content). Unusable rows are skipped and counted; a file with no usable fix is an error. On success
 * *out_track is a new handle to close with rs_track_close; on failure NULL. Errors: RS_E_NULL_ARGUMENT, RS_E_IO,
 * RS_E_INVALID_TRACK. [thread-safe] A track is immutable: every rs_track_* call is [thread-safe]. */
rs_status rs_track_open(const char *path, rs_track **out_track);

/* Releases the handle. Errors: RS_E_INVALID_HANDLE. [thread-safe] */
rs_status rs_track_close(rs_track *track);

/* Counts of the track. [thread-safe] */
rs_status rs_track_get_info(const rs_track *track, rs_track_info *out_info);

/* Copies fixes first .. first+capacity-1 (fewer at the end of the track) into out; *out_count (may be NULL) gets
 * the number copied. Errors: RS_E_INVALID_ARGUMENT when first > fix_count. [thread-safe] */
rs_status rs_track_get_fixes(const rs_track *track, size_t first, rs_fix *out, size_t capacity, size_t *out_count);

/* ---------------------------------------------------------------------------------------------------------------
 * Snapping a fix to the nearest road
 * --------------------------------------------------------------------------------------------------------------- */
typedef struct rs_snapper rs_snapper;

/* Default search radius of a snapper, metres. */
#define RS_DEFAULT_SNAP_RADIUS 50.0

typedef enum rs_snap_status {
    RS_SNAP_SNAPPED = 1,     /* a road was found within the radius */
    RS_SNAP_NO_ROAD = 0,     /* no road within the radius */
    RS_SNAP_INVALID_FIX = -1 /* the fix's latitude/longitude is NaN or out of range */
} rs_snap_status;

/* Where a fix lies on the road. When status is not RS_SNAP_SNAPPED, edge is -1 and the doubles are NAN. */
typedef struct rs_snap_result {
    int32_t status;   /* an rs_snap_status */
    int32_t reserved; /* 0 */
    int64_t edge;     /* edge index in the map (see rs_map_get_edge) */
    double latitude;  /* the point on the road */
    double longitude;
    double distance;  /* metres from the fix to the road */
    double offset;    /* metres along the edge from its first point */
    double bearing;   /* road bearing at the point, in the direction the fix is taken to travel */
} rs_snap_result;

/* A snapper on a map with a search radius in metres (0 for RS_DEFAULT_SNAP_RADIUS; else finite, > 0 and
 * <= 10000). On success *out_snapper is a new handle to destroy with rs_snapper_destroy. Creating is
 * [thread-safe]; each snapper then is [one thread a time]: make one per thread (they share the map's index). */
rs_status rs_snapper_create(const rs_map *map, double radius, rs_snapper **out_snapper);

/* Releases a snapper. A call still running on it on another thread finishes safely first.
 * Errors: RS_E_INVALID_HANDLE. [thread-safe] */
rs_status rs_snapper_destroy(rs_snapper *snapper);

/* Snaps one fix to its road: the nearest edge, using the fix's course when known and one-way direction.
 * A fix with no road near gives RS_OK with out->status RS_SNAP_NO_ROAD; an invalid fix gives RS_E_INVALID_FIX
 * with out->status RS_SNAP_INVALID_FIX. [one thread a time] */
rs_status rs_snapper_snap(rs_snapper *snapper, const rs_fix *fix, rs_snap_result *out);

/* Snaps `count` fixes into out[0 .. count-1] (caller-owned; no allocation per fix). Invalid fixes do not stop the
 * batch: they get status RS_SNAP_INVALID_FIX and the others are snapped. *out_snapped_count (may be NULL) gets the
 * number of fixes snapped to a road. count 0 is allowed (fixes and out may then be NULL). [one thread a time] */
rs_status rs_snapper_snap_batch(rs_snapper *snapper, const rs_fix *fixes, size_t count, rs_snap_result *out,
                                size_t *out_snapped_count);

/* ---------------------------------------------------------------------------------------------------------------
 * Map matching a whole track (hidden Markov model after Newson & Krumm 2009)
 * --------------------------------------------------------------------------------------------------------------- */
typedef struct rs_matcher rs_matcher;
typedef struct rs_match rs_match;

/* Matcher settings. A zeroed struct means every default; a field left 0 takes its default. */
typedef struct rs_match_options {
    double sigma;          /* GPS error standard deviation, metres, up to 1000; used as given. Default (0): 4.07,
                            * raised to the track's own estimate when the track is noisier */
    int32_t estimate_sigma; /* 1: estimate sigma from each track (1.4826 x median distance to road), else 0 */
    int32_t max_candidates; /* nearest roads considered per fix, 1..256 (default 8); an edge and its reverse
                             * twin (the same road drawn once per direction) count once */
    double beta;           /* transition scale, metres, up to 10000 (default 3) */
    double radius;         /* candidate search radius, metres, up to 10000 (default 40) */
    double max_gap;        /* a longer time gap between fixes splits the track, seconds, up to 1e7 (default 60;
                            * < 0: never) */
} rs_match_options;

typedef enum rs_match_status {
    RS_MATCH_MATCHED = 1,     /* the fix was placed on the matched path */
    RS_MATCH_UNMATCHED = 0,   /* dropped: no road within the radius, or an outlier */
    RS_MATCH_INVALID_FIX = -1 /* the fix's latitude/longitude is NaN or out of range */
} rs_match_status;

/* Where one fix of a track was matched. When status is not RS_MATCH_MATCHED: sub_match and edge are -1 and the
 * doubles NAN. */
typedef struct rs_matched_fix {
    int32_t status;    /* an rs_match_status */
    int32_t forward;   /* 1: travelling the edge along its geometry, 0: against it */
    int64_t sub_match; /* index of the sub-match holding the fix */
    int64_t edge;      /* edge index in the map */
    double latitude;   /* the matched point on the road */
    double longitude;
    double distance;   /* metres from the fix to the matched point */
    double offset;     /* metres from the edge's first point to the matched point */
    double along;      /* metres along the sub-match's path from its start */
} rs_matched_fix;

typedef struct rs_match_info {
    int64_t fix_count;       /* fixes given (invalid ones included) */
    int64_t matched_count;   /* fixes with status RS_MATCH_MATCHED */
    int64_t sub_match_count; /* runs of fixes joined by drivable routes; the track splits where none joins them */
    double sigma;            /* the sigma applied (estimated when asked) */
} rs_match_info;

typedef struct rs_sub_match_info {
    int64_t first_fix, last_fix; /* fix indices (as given) of the first and last matched fix, inclusive */
    int64_t matched_fix_count;
    int64_t edge_count;          /* edges traversed in order (rs_match_get_edges) */
    int64_t point_count;         /* points of the matched polyline (rs_match_get_geometry) */
    double length;               /* metres of road driven from the first to the last matched point */
    double duration;             /* seconds from the first to the last matched fix; NAN without times */
    double confidence;           /* in [0, 1] */
} rs_sub_match_info;

/* A matcher on a map (options may be NULL for defaults). Errors: RS_E_INVALID_ARGUMENT for an option out of range.
 * Creating is [thread-safe]; each matcher is [one thread a time]: make one per thread (they share the map). */
rs_status rs_matcher_create(const rs_map *map, const rs_match_options *options, rs_matcher **out_matcher);

/* Releases a matcher; a call running on it on another thread finishes safely first. [thread-safe] */
rs_status rs_matcher_destroy(rs_matcher *matcher);

/* Matches the track fixes[0 .. count-1] (in time order). Per-fix results go into out_fixes[0 .. count-1] when it is
 * not NULL (caller-owned); the whole result, with sub-matches, edges and geometry, into *out_match (may be NULL when
 * not wanted), a new handle to close with rs_match_close. Invalid fixes are left out of the match and reported
 * with status RS_MATCH_INVALID_FIX. [one thread a time] */
rs_status rs_matcher_match(rs_matcher *matcher, const rs_fix *fixes, size_t count, rs_matched_fix *out_fixes,
                           rs_match **out_match);

/* Releases a match result. [thread-safe] A match is immutable: every rs_match_* call is [thread-safe]. */
rs_status rs_match_close(rs_match *match);

rs_status rs_match_get_info(const rs_match *match, rs_match_info *out_info);

/* Sub-match `index` (0 <= index < sub_match_count). Errors: RS_E_INVALID_ARGUMENT for an index out of range. */
rs_status rs_match_get_sub_match(const rs_match *match, size_t index, rs_sub_match_info *out_info);

/* Edge indices a sub-match traversed, in driving order (consecutive repeats collapsed), into out[capacity];
 * *out_count gets the number of edges. When capacity is too small, the first `capacity` are written and
 * RS_E_BUFFER_TOO_SMALL returned (out may be NULL when capacity is 0, to ask for the count). */
rs_status rs_match_get_edges(const rs_match *match, size_t index, int64_t *out, size_t capacity, size_t *out_count);

/* The matched polyline of a sub-match as latitude/longitude pairs: out[2k] latitude, out[2k+1] longitude of point
 * k, for capacity points (out holds 2 x capacity doubles); *out_count gets the number of points. Same buffer rules
 * as rs_match_get_edges. */
rs_status rs_match_get_geometry(const rs_match *match, size_t index, double *out, size_t capacity, size_t *out_count);

/* Result formats of rs_match_render and rs_match_write_file: those of `roadsnap match --format F`. */
typedef enum rs_output_format {
    RS_OUTPUT_GEOJSON = 0, /* a FeatureCollection: a LineString per sub-match, then a Point per fix */
    RS_OUTPUT_CSV = 1,     /* a header row, then one row per fix */
    RS_OUTPUT_GPX = 2,     /* GPX 1.1: one track segment per sub-match along the matched path */
    RS_OUTPUT_OSRM = 3     /* an OSRM `match` service response (code, matchings, tracepoints) */
} rs_output_format;

/* The match as text in `format` (UTF-8): byte for byte what `roadsnap match --format F` writes for the same fixes
 * on the same map with the same options, except GPX's <name>, which is "rs_matcher_match (matched)" where the CLI
 * puts the track file's path. Outputs describe the valid fixes only, as the CLI's describe the usable rows of a
 * track file: fixes given to rs_matcher_match with status RS_MATCH_INVALID_FIX are left out, and the fix indices
 * written (GeoJSON fix_index, first_fix, last_fix; CSV fix_index; the order of OSRM tracepoints) count valid fixes
 * only. They equal the indices given when every fix was valid; rs_match_get_sub_match always gives the indices as
 * given. The text goes NUL-terminated into out[capacity]; *out_length (may be NULL) gets its length in bytes without
 * the NUL. When capacity < length + 1, the text is truncated (still NUL-terminated when capacity > 0) and
 * RS_E_BUFFER_TOO_SMALL returned, the message giving the size needed (length + 1); out may be NULL when capacity is
 * 0, to ask for the length. The match keeps the text of the last format rendered, so asking for the length and then
 * the text renders once (the memory is freed by rs_match_close). Errors: RS_E_INVALID_ARGUMENT for an unknown
 * format; RS_E_NULL_ARGUMENT for out NULL with capacity > 0. [thread-safe] */
rs_status rs_match_render(const rs_match *match, rs_output_format format, char *out, size_t capacity,
                          size_t *out_length);

/* Writes the match in `format` (the text rs_match_render gives) to the file `path`, atomically, as the CLI does:
 * into a temporary file beside it, then renamed over it, so a reader never sees a partial file and a failed write
 * leaves an existing file as it was (and no temporary file). Missing parent directories are created; an existing
 * file is replaced. Errors: RS_E_NULL_ARGUMENT (path NULL), RS_E_INVALID_ARGUMENT (unknown format, empty path or
 * one ending in '/'), RS_E_IO when the file cannot be written (the message names the path and the reason).
 * [thread-safe] */
rs_status rs_match_write_file(const rs_match *match, rs_output_format format, const char *path);

/* ---------------------------------------------------------------------------------------------------------------
 * Routing with turn-by-turn steps
 * --------------------------------------------------------------------------------------------------------------- */
typedef struct rs_router rs_router;
typedef struct rs_route rs_route;

/* A place to route from, through or to. */
typedef struct rs_waypoint {
    double latitude;
    double longitude;
    double heading;                   /* preferred direction of travel there, degrees; NAN for any */
    int32_t prefer_same_side_of_road; /* 1: arrive with the waypoint on the driving side of the road */
    int32_t reserved;                 /* 0 */
} rs_waypoint;

/* Road types to avoid (used anyway when nothing else connects). Pass NULL for the defaults: highways and tolls
 * allowed, ferries avoided. */
typedef struct rs_route_options {
    int32_t avoid_highways; /* motorways and trunk roads with their ramps */
    int32_t avoid_tolls;
    int32_t avoid_ferries;
    int32_t reserved; /* 0 */
} rs_route_options;

/* Outcome of a route request, as a navigation SDK reports it. */
typedef enum rs_route_status {
    RS_ROUTE_OK = 0,
    RS_ROUTE_NO_ROUTE_FOUND = 1,         /* waypoints on roads, but no drivable path joins them */
    RS_ROUTE_NO_WAYPOINTS = 2,           /* no destination */
    RS_ROUTE_DUPLICATE_WAYPOINTS = 3,    /* two consecutive waypoints are the same place */
    RS_ROUTE_WAYPOINT_ERROR = 4,         /* a waypoint has no road near it, or an invalid coordinate */
    RS_ROUTE_LOCATION_UNAVAILABLE = 5,   /* no origin */
    RS_ROUTE_CANCELED = 6,               /* a newer request replaced this one */
    RS_ROUTE_TRAVEL_MODE_UNSUPPORTED = 7,
    RS_ROUTE_INTERNAL_ERROR = 8
} rs_route_status;

typedef enum rs_driving_side { RS_DRIVING_SIDE_NONE = 0, RS_DRIVING_SIDE_LEFT = 1, RS_DRIVING_SIDE_RIGHT = 2 } rs_driving_side;

typedef struct rs_route_info {
    double distance;     /* metres */
    double duration;     /* seconds, turn costs included */
    int64_t leg_count;   /* one per destination */
    int32_t driving_side; /* an rs_driving_side */
    int32_t reserved;
} rs_route_info;

typedef struct rs_route_leg_info {
    double distance, duration;
    int64_t step_count;  /* a depart first, a destination last */
    int64_t point_count; /* points of the leg's geometry (rs_route_get_leg_geometry) */
    double origin_latitude, origin_longitude;           /* where the leg's start was placed on the road */
    double destination_latitude, destination_longitude; /* where its end was placed */
} rs_route_leg_info;

/* Lane arrow shapes, as bits of rs_lane masks. */
enum {
    RS_LANE_UNKNOWN = 1 << 0, RS_LANE_STRAIGHT = 1 << 1, RS_LANE_SLIGHT_LEFT = 1 << 2, RS_LANE_SLIGHT_RIGHT = 1 << 3,
    RS_LANE_NORMAL_LEFT = 1 << 4, RS_LANE_NORMAL_RIGHT = 1 << 5, RS_LANE_SHARP_LEFT = 1 << 6,
    RS_LANE_SHARP_RIGHT = 1 << 7, RS_LANE_UTURN_LEFT = 1 << 8, RS_LANE_UTURN_RIGHT = 1 << 9
};

/* One lane at a maneuver (lanes are listed left to right). */
typedef struct rs_lane {
    uint32_t shapes;      /* RS_LANE_* bits painted on the lane */
    uint32_t recommended; /* the subset of `shapes` the route takes */
} rs_lane;

typedef struct rs_route_step {
    const char *maneuver;            /* "depart", "turnLeft", "roundaboutExitClockwise", "destinationRight", ...
                                      * (the navigation SDK's names); static storage */
    double latitude, longitude;      /* where the maneuver happens */
    double distance_from_previous;   /* metres from the previous step's maneuver (0 for the first) */
    double time_from_previous;       /* seconds */
    double distance_from_leg_start, time_from_leg_start;
    double rounded_distance_from_previous; /* rounded for display as navigation UIs show it */
    int32_t roundabout_exit;         /* exit to take (1 = first), -1 when not a roundabout */
    int32_t lane_count;              /* lanes at the maneuver (rs_route_step_lanes); 0 without lane guidance */
    int32_t driving_side;            /* an rs_driving_side */
    int32_t reserved;
} rs_route_step;

/* Text of a step, for rs_route_step_text. */
typedef enum rs_step_text {
    RS_STEP_INSTRUCTION = 0, /* "Turn left onto Main Street" */
    RS_STEP_ROAD_NAME = 1,   /* road after the maneuver: name, else ref; "" when unnamed */
    RS_STEP_FULL_ROAD_NAME = 2, /* name and ref together, "Main Street (SR 520)" */
    RS_STEP_EXIT_NUMBER = 3  /* exit number tagged on the junction; "" when none */
} rs_step_text;

/* A router on a map (car profile: speeds from maxspeed, else per road class; one-ways, turn restrictions, access).
 * Preprocesses the network (a contraction hierarchy), which takes a moment on big maps. [thread-safe]; a router is
 * [thread-safe] too: route from any number of threads on one router. */
rs_status rs_router_create(const rs_map *map, rs_router **out_router);

/* Progress of a long build: `phase` names the step under way ("turn graph", "priorities", "contracting",
 * "search graph", ...; valid during the call only) and `fraction` how much of it is done, 0..1 (each phase starts
 * again at 0). Called on the thread that started the build. */
typedef void (*rs_progress_fn)(void *user_data, const char *phase, double fraction);

/* Progress, cancellation and threads of a long build (router preprocessing). Zero-initialise, then set fields. */
typedef struct rs_build_options {
    rs_progress_fn progress;       /* may be NULL */
    void *user_data;               /* passed to progress */
    const volatile int32_t *cancel; /* may be NULL; store a nonzero value into *cancel (from any thread, e.g. with
                                     * an atomic store) to stop the build: it stops within a fraction of a second and
                                     * the call returns RS_E_CANCELED without making a handle. Read during the call
                                     * only. */
    int32_t threads;               /* worker threads for the build; 0 = every core available to the process */
    int32_t reserved;              /* 0 */
} rs_build_options;

/* rs_router_create with progress reports, a cancel flag and a thread count (options may be NULL: as
 * rs_router_create). Errors: as rs_router_create, RS_E_INVALID_ARGUMENT for threads < 0, RS_E_CANCELED when
 * canceled (then *out_router is NULL and nothing stays allocated). [thread-safe] */
rs_status rs_router_create_ex(const rs_map *map, const rs_build_options *options, rs_router **out_router);

/* Releases a router; calls running on it on other threads finish safely first. [thread-safe] */
rs_status rs_router_destroy(rs_router *router);

/* Routes from waypoints[0] through the others in order (one leg per later waypoint); options may be NULL.
 * On a route: RS_OK, *out_route a new handle to close with rs_route_close, *out_route_status RS_ROUTE_OK.
 * When the request gives no route: RS_E_NO_ROUTE, *out_route NULL, *out_route_status says why and
 * rs_last_error_message() names the waypoint. out_route_status may be NULL. [thread-safe] */
rs_status rs_router_route(rs_router *router, const rs_waypoint *waypoints, size_t count,
                          const rs_route_options *options, rs_route_status *out_route_status, rs_route **out_route);

/* Releases a route. [thread-safe] A route is immutable: every rs_route_* call is [thread-safe]. */
rs_status rs_route_close(rs_route *route);

rs_status rs_route_get_info(const rs_route *route, rs_route_info *out_info);
/* Leg `leg` (0-based). Errors: RS_E_INVALID_ARGUMENT for an index out of range (also for steps below). */
rs_status rs_route_get_leg(const rs_route *route, size_t leg, rs_route_leg_info *out_info);
rs_status rs_route_get_step(const rs_route *route, size_t leg, size_t step, rs_route_step *out_step);
/* A step's text (see rs_step_text) into buf[capacity], with rs_map_edge_name's buffer rules. */
rs_status rs_route_step_text(const rs_route *route, size_t leg, size_t step, rs_step_text which, char *buf,
                             size_t capacity, size_t *out_length);
/* A step's lanes, left to right, into out[capacity], with rs_match_get_edges's buffer rules. */
rs_status rs_route_step_lanes(const rs_route *route, size_t leg, size_t step, rs_lane *out, size_t capacity,
                              size_t *out_count);
/* A leg's geometry as latitude/longitude pairs, with rs_match_get_geometry's buffer rules. */
rs_status rs_route_get_leg_geometry(const rs_route *route, size_t leg, double *out, size_t capacity,
                                    size_t *out_count);

/* ---------------------------------------------------------------------------------------------------------------
 * Navigation session: a navigator, its road-snapped location provider and a location simulator, headless
 * --------------------------------------------------------------------------------------------------------------- */
typedef struct rs_navigator rs_navigator;

typedef enum rs_nav_state {
    RS_NAV_STATE_UNKNOWN = 0,
    RS_NAV_STATE_ENROUTE = 1,   /* following the route */
    RS_NAV_STATE_REROUTING = 2, /* off the route; a new route from the current position is being computed */
    RS_NAV_STATE_STOPPED = 3    /* no route, arrived with stop-at-arrival, or cleared */
} rs_nav_state;

/* Traffic delay to the next destination (values as the navigation SDK numbers them). */
typedef enum rs_delay_category { RS_DELAY_NO_DATA = 0, RS_DELAY_HEAVY = 1, RS_DELAY_MEDIUM = 2, RS_DELAY_LIGHT = 3 } rs_delay_category;

typedef enum rs_lighting_mode { RS_LIGHTING_NORMAL = 0, RS_LIGHTING_LOW_LIGHT = 1 } rs_lighting_mode;

typedef enum rs_speed_alert_severity {
    RS_SPEED_ALERT_UNKNOWN = 0, /* no speed or no speed limit known */
    RS_SPEED_ALERT_NOT_SPEEDING = 1,
    RS_SPEED_ALERT_MINOR = 2,
    RS_SPEED_ALERT_MAJOR = 3
} rs_speed_alert_severity;

/* One road-snapped location (one per raw fix). Unknown values as the navigation SDK reports them: altitude NAN,
 * course, speed and accuracy -1. */
typedef struct rs_road_snapped_location {
    double latitude, longitude;
    double altitude;
    double course;      /* degrees along the road */
    double speed;       /* m/s */
    double time;        /* seconds since the Unix epoch */
    double accuracy;    /* horizontal, metres */
    int64_t edge;       /* edge index the location is snapped to, -1 when no road was near (raw position passed) */
    int32_t forward;    /* 1: along the edge's geometry */
    int32_t reserved;
    double offset;      /* metres from the edge's start */
    double distance_from_fix; /* metres between the raw fix and the snapped point */
} rs_road_snapped_location;

/* The turn-by-turn feed (did_update_nav_info). Pointers inside are valid only during the callback. */
typedef struct rs_nav_info {
    int32_t nav_state;     /* an rs_nav_state */
    int32_t route_changed; /* 1 when the route changed since the previous nav info */
    int32_t has_current_step; /* 1 when current_step is filled (only while en route) */
    int32_t remaining_step_count; /* steps after the current one, to the end of the current leg */
    rs_route_step current_step;   /* the next maneuver to make */
    const char *current_instruction; /* its instruction ("" without a current step) */
    const char *current_road_name;   /* road after it */
    double distance_to_current_step, time_to_current_step;
    double distance_to_next_destination, time_to_next_destination;   /* end of the current leg */
    double distance_to_final_destination, time_to_final_destination; /* end of the route */
} rs_nav_info;

/* The listener: a table of C functions plus user data, mirroring the Swift NavigatorListener and
 * RoadSnappedLocationProviderListener. Any function may be NULL (not interested). The table is copied at
 * rs_navigator_create. Functions are called on the thread of the rs_navigator_* call that caused the event
 * (update_location, advance_clock, continue_to_next_destination, ...), before that call returns; events of
 * rs_navigator_set_destinations come from the library's routing thread while set_destinations waits for it; with a
 * system clock, simulated fixes come from a library timer thread. They may call rs_ functions, including
 * rs_navigator_destroy; rs_navigator_set_destinations from a callback of the same navigator gives RS_E_BUSY (it
 * would wait for the thread delivering the callback). Pointer arguments are valid during the call only. */
typedef struct rs_navigator_listener {
    void *user_data;
    void (*did_arrive_at_waypoint)(void *user_data, int64_t waypoint_index, const rs_waypoint *waypoint);
    void (*did_change_route)(void *user_data);
    void (*did_update_remaining_time)(void *user_data, double seconds);
    void (*did_update_remaining_distance)(void *user_data, double metres);
    void (*did_update_delay_category)(void *user_data, int32_t delay_category);
    void (*did_change_suggested_lighting_mode)(void *user_data, int32_t lighting_mode);
    void (*did_update_speeding_percentage)(void *user_data, double percentage_above_limit);
    void (*did_update_speed_alert_severity)(void *user_data, int32_t severity, double speeding_percentage);
    void (*did_update_nav_info)(void *user_data, const rs_nav_info *nav_info);
    void (*did_update_road_snapped_location)(void *user_data, const rs_road_snapped_location *location);
} rs_navigator_listener;

/* Session settings; a zeroed struct (or NULL) means the defaults. */
typedef struct rs_navigator_options {
    int32_t use_virtual_clock;   /* 1: a virtual clock moved only by rs_navigator_advance_clock (tests, replays);
                                  * 0: the system clock (simulated fixes then arrive in real time) */
    int32_t reserved;
    double virtual_clock_start;  /* seconds since the Unix epoch where the virtual clock starts (finite) */
    double arrival_radius;       /* metres (default 20) */
    double time_update_threshold;     /* seconds >= 0 (0: the default, 1) */
    double distance_update_threshold; /* metres >= 0 (0: the default, 1) */
} rs_navigator_options;

typedef struct rs_navigator_state {
    int32_t nav_state;          /* an rs_nav_state */
    int32_t guidance_active;
    int32_t delay_category;     /* an rs_delay_category */
    int32_t lighting_mode;      /* an rs_lighting_mode */
    int64_t remaining_leg_count;
    double time_to_next_destination;     /* seconds; DBL_MAX without a route */
    double distance_to_next_destination; /* metres; DBL_MAX without a route */
} rs_navigator_state;

/* A navigation session on the router's map, routing with `router` (the navigator keeps it alive: closing the
 * router handle afterwards is allowed). options and listener may be NULL. [thread-safe]; a navigator is
 * [thread-safe] as well: every rs_navigator_* call may come from any thread. */
rs_status rs_navigator_create(rs_router *router, const rs_navigator_options *options,
                              const rs_navigator_listener *listener, rs_navigator **out_navigator);

/* Stops the session (and its simulator) and releases the handle; events still being delivered finish first. */
rs_status rs_navigator_destroy(rs_navigator *navigator);

/* Routes from the current location (the last fix given or simulated) through `waypoints`, one leg each, and waits
 * for the result. RS_OK with *out_route_status RS_ROUTE_OK when a route was installed; RS_E_NO_ROUTE otherwise
 * (RS_ROUTE_LOCATION_UNAVAILABLE before the first fix). Guidance is not started: rs_navigator_set_guidance.
 * Errors: RS_E_BUSY when called from one of this navigator's callbacks. */
rs_status rs_navigator_set_destinations(rs_navigator *navigator, const rs_waypoint *waypoints, size_t count,
                                        const rs_route_options *options, rs_route_status *out_route_status);

/* Starts the next leg after arriving; *out_has_next (may be NULL) is 0 when none is left (destinations cleared). */
rs_status rs_navigator_continue_to_next_destination(rs_navigator *navigator, int32_t *out_has_next);

/* Removes the route and stops guidance. */
rs_status rs_navigator_clear_destinations(rs_navigator *navigator);

/* Turns guidance (events, rerouting, arrival) on or off; on needs a route (RS_E_INVALID_ARGUMENT otherwise). */
rs_status rs_navigator_set_guidance(rs_navigator *navigator, int32_t active);

/* Feeds one raw fix (receiver, replay, gpsd): it is snapped on line, reported to did_update_road_snapped_location and
 * drives the navigator. A fix with NAN time takes the session clock's time. Errors: RS_E_INVALID_FIX;
 * RS_E_PROJECTION when PROJ cannot put the fix into the map's frame (far outside the map): the fix is skipped (no
 * location for it), the message names it and PROJ's reason, and the session goes on with the next fix. */
rs_status rs_navigator_update_location(rs_navigator *navigator, const rs_fix *fix);

/* Where guidance stands now. */
rs_status rs_navigator_get_state(rs_navigator *navigator, rs_navigator_state *out_state);

/* The legs still to drive (current one first) as a route handle to close with rs_route_close; RS_E_NO_ROUTE when
 * there is no route. */
rs_status rs_navigator_get_route(rs_navigator *navigator, rs_route **out_route);

/* Speed alert thresholds in percent over the limit, and seconds over the major threshold before minor is upgraded
 * to major. Errors: RS_E_INVALID_ARGUMENT unless 0 <= minor <= major and seconds >= 0. */
rs_status rs_navigator_set_speed_alert_options(rs_navigator *navigator, double minor_percentage,
                                               double major_percentage, double upgrade_seconds);

/* Simulation on the session's clock: along the current route (RS_E_NO_ROUTE without one) at speed_multiplier times
 * the road speeds (0 for 1), or a stationary fix at a place; stop. */
rs_status rs_navigator_simulate_along_route(rs_navigator *navigator, double speed_multiplier);
rs_status rs_navigator_simulate_at(rs_navigator *navigator, double latitude, double longitude);
rs_status rs_navigator_stop_simulation(rs_navigator *navigator);

/* Moves a virtual clock on by `seconds` (0 < seconds <= 3600), running what falls due (simulated fixes, refreshes)
 * on this thread.
 * Errors: RS_E_INVALID_ARGUMENT with the system clock. */
rs_status rs_navigator_advance_clock(rs_navigator *navigator, double seconds);

/* ---------------------------------------------------------------------------------------------------------------
 * Streaming map matching: a live GNSS feed one fix at a time, on the same engine as rs_matcher_match (the same
 * candidates, emission, transition and route search; one-ways and turn restrictions honoured), without the navigator.
 * The answer for the newest fix is the best state now (lag 0); the answer for the fix `lag` pushes back (up to
 * max_lag) is read off the best chain through it and settles as fixes arrive. Memory is bounded on an endless drive.
 * --------------------------------------------------------------------------------------------------------------- */
typedef struct rs_stream_matcher rs_stream_matcher;

/* A streaming matcher on a map: options as for rs_matcher_create (NULL: defaults; estimate_sigma is refused, a live
 * feed has no whole track to estimate from; a sigma left 0 is raised to the feed's own estimate as fixes arrive, by
 * the same rule over the fixes scored so far), answers up to max_lag (0..1024) fixes back. Errors:
 * RS_E_INVALID_ARGUMENT for an option out of range. Creating is [thread-safe]; each stream is [one thread a time]. */
rs_status rs_stream_matcher_create(const rs_map *map, const rs_match_options *options, int32_t max_lag,
                                   rs_stream_matcher **out_matcher);

/* Pushes the next fix (in time order). An invalid fix (NAN or out-of-range latitude/longitude) counts as an unmatched
 * fix. No allocation per fix once the stream's buffers have grown to its lag window. [one thread a time] */
rs_status rs_stream_matcher_push_fix(rs_stream_matcher *matcher, const rs_fix *fix);

/* The answer for the fix pushed `lag` fixes before the newest (0: the newest) into *out: status RS_MATCH_MATCHED,
 * RS_MATCH_UNMATCHED (no road near, or an outlier) or RS_MATCH_INVALID_FIX; sub_match is -1 and along NAN (a stream
 * has no sub-matches). A fix the chain cannot reach is a possible outlier: unmatched at lag 0; while later fixes keep
 * the run of such fixes open, it is answered at lag >= 1 as that run matched on its own (where the run goes should
 * the chain end), and it becomes unmatched again if a later fix joins the chain (it was an outlier). Errors: RS_E_INVALID_ARGUMENT when lag > max_lag or fewer fixes were pushed since the last
 * reset. [one thread a time] */
rs_status rs_stream_matcher_result(rs_stream_matcher *matcher, int32_t lag, rs_matched_fix *out);

/* Forgets every fix pushed (after a long gap, or a jump of the feed). [one thread a time] */
rs_status rs_stream_matcher_reset(rs_stream_matcher *matcher);

/* Releases a streaming matcher; a call running on it on another thread finishes safely first. [thread-safe] */
rs_status rs_stream_matcher_free(rs_stream_matcher *matcher);

/* ---- Voice guidance ----
 * Spoken prompts for each step of the current leg, each kind at most once per step and re-planned after a reroute:
 * early (long before, on fast roads), preparation ("In 300 metres, turn right onto Main Street, then turn left") and
 * now ("Turn right now"). Trigger distances grow with speed and road class. */
typedef enum rs_announcement_kind {
    RS_ANNOUNCEMENT_EARLY = 0,
    RS_ANNOUNCEMENT_PREPARATION = 1,
    RS_ANNOUNCEMENT_NOW = 2
} rs_announcement_kind;

/* Units of spoken distances. */
typedef enum rs_distance_units {
    RS_UNITS_METRIC = 0,         /* metres, kilometres */
    RS_UNITS_IMPERIAL = 1,       /* feet, miles */
    RS_UNITS_IMPERIAL_YARDS = 2  /* yards, miles (UK) */
} rs_distance_units;

/* One prompt. Strings are valid only during the callback. */
typedef struct rs_announcement {
    int32_t kind;               /* an rs_announcement_kind */
    int32_t step_index;         /* the step announced, index in the current leg's steps */
    double distance;            /* metres from the driver to the maneuver */
    double trigger_distance;    /* metres at which this prompt was due */
    double time;                /* fix time, seconds since the Unix epoch */
    const char *text;           /* the sentence to speak */
    const char *short_text;     /* the step without its road ("Turn right") */
    const char *secondary_text; /* the banner's second line (destinations or road), may be "" */
} rs_announcement;

typedef void (*rs_announcement_fn)(void *user_data, const rs_announcement *announcement);

/* Sets (or with NULL removes) the function receiving prompts; called like the listener's functions. */
rs_status rs_navigator_set_announcement_callback(rs_navigator *navigator, rs_announcement_fn fn, void *user_data);

/* Units of spoken distances (default: by the map's country). Errors: RS_E_INVALID_ARGUMENT for another value. */
rs_status rs_navigator_set_announcement_units(rs_navigator *navigator, int32_t units);

/* ---- Route choice: alternative routes and traffic-aware routing (issue #15) ---------------------------------- */

/* Limits of a route choice; a zeroed struct gives the main route only. Traffic: current speeds per OSM way id
 * (km/h > 0), as in a traffic feed file; routes then minimise travel time under those speeds (exact Dijkstra on the
 * re-weighted costs), and every limit is checked with traffic costs. */
typedef struct rs_alternative_options {
    int32_t count;                   /* alternatives wanted besides the main route, 0..16 */
    int32_t reserved;
    double max_overlap;              /* largest share of the main route's length shared with it, (0, 1]; 0: 0.8 */
    double max_stretch;              /* largest extra cost over the main route as a share, > 0; 0: 0.35 */
    const int64_t *traffic_way_ids;  /* traffic_count OSM way ids (NULL when traffic_count is 0) */
    const double *traffic_speeds_kmh;/* their current speeds, km/h */
    size_t traffic_count;
} rs_alternative_options;

/* How one route of a choice compares with the main route. */
typedef struct rs_route_choice_info {
    double distance;          /* metres */
    double duration;          /* seconds at free flow */
    double traffic_duration;  /* seconds under the given traffic speeds (= duration without traffic) */
    double overlap;           /* share of the main route's length this route shares with it (1 for the main route) */
    double stretch;           /* extra cost over the main route as a share of its cost (0 for the main route) */
} rs_route_choice_info;

/* The main route and up to alternatives->count alternatives (via-node method on the hierarchy; alternatives differ
 * from each other too) between two waypoints (with via waypoints: the main route only). *out_count (may be NULL)
 * receives the number of routes found, main first then by cost; the first min(found, capacity) are written to
 * out_routes as new handles to close with rs_route_close, and their infos to out_infos (may be NULL).
 * alternatives may be NULL (main route only). Errors: as rs_router_route; RS_E_INVALID_ARGUMENT for limits out of
 * range, a traffic speed that is not a positive number or capacity 0. [thread-safe] */
rs_status rs_router_route_alternatives(rs_router *router, const rs_waypoint *waypoints, size_t count,
                                       const rs_route_options *options, const rs_alternative_options *alternatives,
                                       rs_route **out_routes, rs_route_choice_info *out_infos, size_t capacity,
                                       size_t *out_count, rs_route_status *out_route_status);

/* Guides along `route` (for example an alternative from rs_router_route_alternatives) instead of routing: it becomes
 * the navigator's route from its first leg, as rs_navigator_set_destinations would install it; later reroutes keep
 * the navigator's routing options. The route handle stays the caller's. Errors: RS_E_INVALID_ARGUMENT for a route
 * made on another map. */
rs_status rs_navigator_set_route(rs_navigator *navigator, const rs_route *route);

/* Current traffic speeds (km/h > 0) per OSM way id for the navigator: its delay category, its routes (destinations,
 * reroutes) and its faster-route offers use them; count 0 removes the feed. The arrays are copied.
 * Errors: RS_E_INVALID_ARGUMENT for a speed that is not a positive number. */
rs_status rs_navigator_set_traffic(rs_navigator *navigator, const int64_t *way_ids, const double *speeds_kmh,
                                   size_t count);

/* A faster route under traffic found during guidance (checked every 60 s of fix time; offered when its ETA is at
 * least 10 % below the rest of the current route's). */
typedef struct rs_reroute_offer {
    double current_eta;  /* seconds to the final destination on the current route, under traffic */
    double offered_eta;  /* seconds on the offered route, under traffic */
    double distance;     /* metres of the offered route */
    double time;         /* fix time of the offer, seconds since the Unix epoch */
} rs_reroute_offer;

/* The pending offer (the last one not accepted or superseded by a route change); RS_E_NO_ROUTE when there is none. */
rs_status rs_navigator_get_reroute_offer(rs_navigator *navigator, rs_reroute_offer *out_offer);

/* Switches to the pending offer's route; RS_E_NO_ROUTE when there is none. */
rs_status rs_navigator_accept_reroute_offer(rs_navigator *navigator);

/* ---- Pictures (issue 14): the map view and the maneuver icons as caller-owned RGBA pixels ---------------------
 * Drawing goes through cairo, which is not linked: it is loaded on the first drawing call (libcairo.so.2; Debian
 * libcairo2 and fonts-dejavu-core; ROADSNAP_CAIRO_LIBRARY names another file), so a program that never draws does
 * not map cairo, fontconfig or freetype. Without cairo these calls fail with RS_E_INVALID_ARGUMENT and a message
 * naming the library. Pixels are straight (not premultiplied) RGBA, 4 bytes each, rows `stride` bytes apart. */

#define RS_STYLE_LIGHT 0
#define RS_STYLE_DARK 1
#define RS_MAP_TYPE_NORMAL 0 /* roads by class, names along the larger ones */
#define RS_MAP_TYPE_NONE 1   /* only the background and the my-location puck */

/* The map view. Fill with rs_render_options_init (which sets `size`) and change what you need; a caller built
 * against an older header passes its smaller `size` and gets the defaults for the fields it does not know. */
typedef struct rs_render_options {
    uint32_t size;                 /* sizeof(rs_render_options) */
    uint32_t width, height;        /* frame in points, 1 .. 16384 pixels a side after `scale` (default 640 x 480) */
    double scale;                  /* pixels per point, (0, 16] (default 1) */
    double latitude, longitude;    /* camera target (default 0, 0) */
    double zoom;                   /* web-Mercator zoom 0 .. 24 (default 16) */
    double bearing;                /* degrees clockwise from north pointing up (default 0) */
    double tilt;                   /* degrees 0 .. 60 (default 0) */
    double padding_top, padding_left, padding_bottom, padding_right; /* points; the target is the padded centre */
    int32_t style;                 /* RS_STYLE_LIGHT or RS_STYLE_DARK */
    int32_t map_type;              /* RS_MAP_TYPE_NORMAL or RS_MAP_TYPE_NONE */
    uint32_t background_rgba;      /* 0xRRGGBBAA; 0 for the style's own */
    int32_t show_my_location;      /* nonzero: draw the my-location puck at my_latitude/my_longitude */
    double my_latitude, my_longitude;
    double my_course;              /* degrees, NaN unknown (no arrow) */
    double my_accuracy;            /* metres, NaN unknown (no circle) */
    /* Overlays (appended: a caller built against an older header, with its smaller `size`, draws none). Arrays are
     * (latitude, longitude) pairs in degrees, read during the call only; a count > 0 with a NULL array is
     * RS_E_NULL_ARGUMENT, an invalid coordinate RS_E_INVALID_ARGUMENT. */
    const double *route_latlon;    /* the route line: route_count pairs (NULL/0: none) */
    size_t route_count;
    double route_driven;           /* metres from the route's start drawn as driven (grey); default 0 */
    const double *marker_latlon;   /* markers (pins, waypoints): marker_count pairs */
    size_t marker_count;
    const double *fix_latlon;      /* raw fixes (red dots): fix_count pairs */
    const double *fix_matched_latlon; /* NULL, or fix_count pairs where each fix matched (NaN: unmatched), joined
                                         to the raw fix by a short line and drawn as a green dot */
    size_t fix_count;
} rs_render_options;

/* Defaults into *options (including its size). Errors: RS_E_NULL_ARGUMENT. [thread-safe] */
rs_status rs_render_options_init(rs_render_options *options);

/* Draws the map view of `map` (NULL: no roads) into out: pixel width x height, rows `stride` bytes apart,
 * out_size bytes in all (>= stride * pixel height). Map type normal draws the map file's water and buildings under
 * the roads (OSM files; none from GeoJSON or compiled maps). The first draw of a map builds its renderer (and reads
 * those areas from the file); later draws reuse it, and draws of one map from several threads take turns. Errors: RS_E_NULL_ARGUMENT, RS_E_INVALID_HANDLE,
 * RS_E_INVALID_ARGUMENT (a value out of range: size, NaN camera, ...), RS_E_BUFFER_TOO_SMALL (stride or out_size;
 * the message gives the sizes needed). [thread-safe] */
rs_status rs_render_rgba(const rs_map *map, const rs_render_options *options, uint8_t *out, size_t stride,
                         size_t out_size);

/* A maneuver icon. Fill with rs_icon_options_init. */
typedef struct rs_icon_options {
    uint32_t size;                 /* sizeof(rs_icon_options) */
    uint32_t pixels;               /* the icon is a square of this many pixels, 4 .. 16384 (default 96) */
    int32_t style;                 /* RS_STYLE_LIGHT (dark symbols) or RS_STYLE_DARK (light symbols) */
    int32_t left_hand_traffic;     /* nonzero: unspecified ramps on the left */
    uint32_t background_rgba;      /* 0xRRGGBBAA; 0 for transparent */
} rs_icon_options;

/* Defaults into *options (including its size). Errors: RS_E_NULL_ARGUMENT. [thread-safe] */
rs_status rs_icon_options_init(rs_icon_options *options);

/* The icon of `maneuver` (the names of rs_route_step.maneuver: "turnLeft", "roundaboutExitClockwise", ...) into
 * out (pixels x pixels, rows `stride` bytes apart, out_size bytes). Errors: RS_E_NULL_ARGUMENT,
 * RS_E_INVALID_ARGUMENT (unknown maneuver, size), RS_E_BUFFER_TOO_SMALL. [thread-safe] */
rs_status rs_maneuver_icon_rgba(const char *maneuver, const rs_icon_options *options, uint8_t *out, size_t stride,
                                size_t out_size);

#ifdef __cplusplus
}
#endif

#endif /* ROADSNAP_H */
