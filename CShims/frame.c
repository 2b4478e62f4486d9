/* Local metric frame and geodesics through PROJ. See cshims.h for the contract of each function. */
#include "cshims.h"
#include "cshims_log_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rsc_frame {
    const rsc_proj_api *api;
    PJ_CONTEXT *ctx;
    PJ *pj;
    double lat0, lon0;             /* the centre it was made for (the spares' key, with `reference`) */
    int reference;                 /* rsc_frame_create_reference: PROJ's pipeline converts the degrees itself */
    double in_scale;               /* what degrees are multiplied by before proj_trans: RSC_DEG_TO_RAD, or 1 */
    char failure[RSC_FAILURE_LEN]; /* PROJ's last error message (its log handler), then what the last call failed on */
};

/* Spare frames: rsc_frame_destroy keeps the last RSC_FRAME_SPARES frames given back, whole (struct, PROJ context,
 * pipeline), and rsc_frame_create / rsc_frame_clone hand one out again when it was made for the same centre (the
 * same bits of lat0 and lon0), instead of making a context and a pipeline again: about 60 us of PROJ's CPU time per
 * frame (parsing the pipeline string into its object model and back, proj.ini and proj.db looked up through the
 * file system), paid by every snapper, matcher and renderer on a map, all of one centre. A frame is owned by one
 * owner or by the spares, never both, so each PROJ context still has one user at a time; the pipeline holds no state
 * between calls beyond its error number, reset by each call, so a spare gives bit-identical results. Spares are
 * kept for the process (about 12 KB each), the oldest dropped first, and freed at exit (an atexit handler,
 * registered after PROJ's own process-wide state was made, so it runs before that state is torn down): a program
 * that frees what it made leaves no PROJ memory behind for valgrind to report. */
#define RSC_FRAME_SPARES 8
static pthread_mutex_t rsc_spares_lock = PTHREAD_MUTEX_INITIALIZER;
static rsc_frame *rsc_spares[RSC_FRAME_SPARES];
static size_t rsc_spare_count = 0;
static int rsc_spares_closed = 0; /* after the exit handler: frames given up are freed at once */
static pthread_once_t rsc_spares_once = PTHREAD_ONCE_INIT;

static int rsc_same_centre(const rsc_frame *frame, double lat0, double lon0, int reference) {
    return memcmp(&frame->lat0, &lat0, sizeof lat0) == 0 && memcmp(&frame->lon0, &lon0, sizeof lon0) == 0 &&
           frame->reference == reference;
}

/* A spare frame made for (lat0, lon0), now the caller's, ready as a new one (no failure, logging as the hook wants
 * it now); NULL if there is none. */
static rsc_frame *rsc_take_spare(double lat0, double lon0, int reference) {
    rsc_frame *frame = NULL;
    pthread_mutex_lock(&rsc_spares_lock);
    for (size_t i = rsc_spare_count; i-- > 0;) {
        if (rsc_same_centre(rsc_spares[i], lat0, lon0, reference)) {
            frame = rsc_spares[i];
            memmove(&rsc_spares[i], &rsc_spares[i + 1], (rsc_spare_count - i - 1) * sizeof rsc_spares[0]);
            rsc_spare_count--;
            break;
        }
    }
    pthread_mutex_unlock(&rsc_spares_lock);
    if (frame) {
        frame->failure[0] = '\0';
        rsc_log_attach_proj(frame->api, frame->ctx, frame->failure);
        frame->api->proj_errno_reset(frame->pj);
    }
    return frame;
}

static void rsc_frame_free(rsc_frame *frame) {
    frame->api->proj_destroy(frame->pj);
    frame->api->proj_context_destroy(frame->ctx);
    free(frame);
}

static void rsc_free_spares_at_exit(void) {
    rsc_frame *spares[RSC_FRAME_SPARES];
    pthread_mutex_lock(&rsc_spares_lock);
    size_t n = rsc_spare_count;
    memcpy(spares, rsc_spares, n * sizeof spares[0]);
    rsc_spare_count = 0;
    rsc_spares_closed = 1;
    pthread_mutex_unlock(&rsc_spares_lock);
    for (size_t i = 0; i < n; i++) rsc_frame_free(spares[i]);
}

static void rsc_register_spares_exit(void) {
    /* Without the handler spares would only stay allocated until exit: no harm beyond valgrind's report. */
    (void)atexit(rsc_free_spares_at_exit);
}

static void rsc_set_err(char *err, size_t errlen, const char *msg) {
    if (err && errlen > 0) {
        snprintf(err, errlen, "%s", msg);
    }
}

/* Degrees to radians as PROJ's unitconvert step has it (forward: times; inverse: divided by), so that a frame gives
 * bit for bit what the pipeline "unitconvert deg -> rad, then tmerc" (rsc_frame_create_reference) gives, without the
 * pipeline's two extra steps per point: a fifth to a third of a projection's cost. */
#define RSC_DEG_TO_RAD 0.017453292519943296

static rsc_frame *rsc_frame_make(double lat0, double lon0, int reference, char *err, size_t errlen) {
    if (!isfinite(lat0) || !isfinite(lon0) || fabs(lat0) > 90.0 || fabs(lon0) > 180.0) {
        rsc_set_err(err, errlen, "frame centre is not a valid latitude/longitude");
        return NULL;
    }
    rsc_frame *spare = rsc_take_spare(lat0, lon0, reference);
    if (spare) return spare;
    const rsc_proj_api *P = rsc_proj_load(err, errlen);
    if (!P) return NULL;
    rsc_frame *frame = calloc(1, sizeof *frame);
    if (!frame) {
        rsc_set_err(err, errlen, "out of memory");
        return NULL;
    }
    frame->api = P;
    frame->lat0 = lat0;
    frame->lon0 = lon0;
    frame->reference = reference;
    frame->in_scale = reference ? 1.0 : RSC_DEG_TO_RAD;
    frame->ctx = P->proj_context_create();
    if (!frame->ctx) {
        free(frame);
        rsc_set_err(err, errlen, "proj_context_create failed");
        return NULL;
    }
    rsc_log_attach_proj(P, frame->ctx, frame->failure);
    /* Projection strings need no proj.db: (lon, lat) in, radians (degrees for the reference pipeline), metres out. */
    char def[256];
    snprintf(def, sizeof def, "%s+proj=tmerc +lat_0=%.9f +lon_0=%.9f +k=1 +x_0=0 +y_0=0 +ellps=WGS84",
             reference ? "+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad +step " : "", lat0, lon0);
    frame->pj = P->proj_create(frame->ctx, def);
    if (!frame->pj) {
        char msg[200];
        snprintf(msg, sizeof msg, "PROJ could not create the local frame: %s",
                 P->proj_context_errno_string(frame->ctx, P->proj_context_errno(frame->ctx)));
        rsc_set_err(err, errlen, msg);
        P->proj_context_destroy(frame->ctx);
        free(frame);
        return NULL;
    }
    pthread_once(&rsc_spares_once, rsc_register_spares_exit);
    return frame;
}

rsc_frame *rsc_frame_create(double lat0, double lon0, char *err, size_t errlen) {
    return rsc_frame_make(lat0, lon0, 0, err, errlen);
}

rsc_frame *rsc_frame_create_reference(double lat0, double lon0, char *err, size_t errlen) {
    return rsc_frame_make(lat0, lon0, 1, err, errlen);
}

rsc_frame *rsc_frame_clone(const rsc_frame *frame) {
    if (!frame) return NULL;
    rsc_frame *spare = rsc_take_spare(frame->lat0, frame->lon0, frame->reference);
    if (spare) return spare;
    const rsc_proj_api *P = frame->api;
    rsc_frame *copy = calloc(1, sizeof *copy);
    if (!copy) return NULL;
    copy->api = P;
    copy->lat0 = frame->lat0;
    copy->lon0 = frame->lon0;
    copy->reference = frame->reference;
    copy->in_scale = frame->in_scale;
    copy->ctx = P->proj_context_create();
    if (!copy->ctx) {
        free(copy);
        return NULL;
    }
    rsc_log_attach_proj(P, copy->ctx, copy->failure);
    copy->pj = P->proj_clone(copy->ctx, frame->pj);
    if (!copy->pj) {
        P->proj_context_destroy(copy->ctx);
        free(copy);
        return NULL;
    }
    return copy;
}

void rsc_frame_destroy(rsc_frame *frame) {
    if (!frame) return;
    rsc_frame *dropped = NULL;
    pthread_mutex_lock(&rsc_spares_lock);
    if (rsc_spares_closed) {
        dropped = frame;
    } else if (rsc_spare_count == RSC_FRAME_SPARES) {
        dropped = rsc_spares[0];
        memmove(&rsc_spares[0], &rsc_spares[1], (RSC_FRAME_SPARES - 1) * sizeof rsc_spares[0]);
        rsc_spare_count--;
    }
    if (dropped != frame) rsc_spares[rsc_spare_count++] = frame;
    pthread_mutex_unlock(&rsc_spares_lock);
    if (dropped) rsc_frame_free(dropped);
}

/* Points one at a time through proj_trans (proj_trans_generic is the same loop with strides). Forward: (lon, lat)
 * degrees in, (x, y) out; inverse: (x, y) in, (lon, lat) degrees out. A refused point gets HUGE_VAL and the others
 * are still done; the first refused one is named in frame->failure. */
static int rsc_frame_trans(rsc_frame *frame, PJ_DIRECTION dir, const double *in_a, const double *in_b, double *out_a,
                           double *out_b, size_t n) {
    if (!frame || (n > 0 && (!in_a || !in_b || !out_a || !out_b))) return RSC_EINVAL;
    if (n == 0) return RSC_OK;
    const rsc_proj_api *P = frame->api;
    P->proj_errno_reset(frame->pj);
    frame->failure[0] = '\0';
    size_t failed = n;
    int code = 0;
    for (size_t i = 0; i < n; i++) {
        PJ_COORD c;
        c.v[0] = dir == PJ_FWD ? in_a[i] * frame->in_scale : in_a[i];
        c.v[1] = dir == PJ_FWD ? in_b[i] * frame->in_scale : in_b[i];
        c.v[2] = 0;
        c.v[3] = 0;
        PJ_COORD r = P->proj_trans(frame->pj, dir, c);
        if (r.v[0] == HUGE_VAL || r.v[1] == HUGE_VAL) {
            out_a[i] = out_b[i] = HUGE_VAL;
            if (failed == n) {
                failed = i;
                code = P->proj_errno(frame->pj);
            }
            P->proj_errno_reset(frame->pj);
            continue;
        }
        out_a[i] = dir == PJ_FWD ? r.v[0] : r.v[0] / frame->in_scale;
        out_b[i] = dir == PJ_FWD ? r.v[1] : r.v[1] / frame->in_scale;
    }
    if (failed == n) return RSC_OK;
    /* Say which point failed and why: PROJ's error string for its errno, and its own logged message. */
    size_t k = failed;
    char logged[RSC_FAILURE_LEN];
    snprintf(logged, sizeof logged, "%s", frame->failure);
    const char *why = code != 0 ? P->proj_context_errno_string(frame->ctx, code) : NULL;
    /* (lon, lat) in for the forward direction, (x, y) in for the inverse: name them as the caller gave them. */
    if (dir == PJ_FWD)
        snprintf(frame->failure, sizeof frame->failure, "point %zu (latitude %.9g, longitude %.9g): %s%s%s", k,
                 in_b[k], in_a[k], why ? why : "not projected", logged[0] ? "; " : "", logged);
    else
        snprintf(frame->failure, sizeof frame->failure, "point %zu (x %.3f, y %.3f): %s%s%s", k, in_a[k], in_b[k],
                 why ? why : "not projected", logged[0] ? "; " : "", logged);
    return RSC_EPROJ;
}

const char *rsc_frame_failure(const rsc_frame *frame) { return frame ? frame->failure : ""; }

int rsc_frame_forward(rsc_frame *frame, const double *lat, const double *lon, double *x, double *y, size_t n) {
    /* The pipeline takes (lon, lat) and gives (x, y). */
    return rsc_frame_trans(frame, PJ_FWD, lon, lat, x, y, n);
}

int rsc_frame_inverse(rsc_frame *frame, const double *x, const double *y, double *lat, double *lon, size_t n) {
    return rsc_frame_trans(frame, PJ_INV, x, y, lon, lat, n);
}

/* WGS84, initialised once; geod_geodesic is read-only after geod_init and safe to share. The PROJ table is kept
 * beside it, so a geodesic costs one atomic load besides PROJ's own function. NULL if PROJ cannot be loaded. */
static struct geod_geodesic rsc_wgs84;
static const rsc_proj_api *rsc_wgs84_api = NULL;
static int rsc_wgs84_ready = 0;

static const struct geod_geodesic *rsc_geod(const rsc_proj_api **api) {
    if (!__atomic_load_n(&rsc_wgs84_ready, __ATOMIC_ACQUIRE)) {
        const rsc_proj_api *P = rsc_proj_load(NULL, 0);
        if (!P) return NULL;
        struct geod_geodesic g;
        P->geod_init(&g, 6378137.0, 1.0 / 298.257223563);
        /* Idempotent: racing initialisers write identical bytes. */
        rsc_wgs84 = g;
        rsc_wgs84_api = P;
        __atomic_store_n(&rsc_wgs84_ready, 1, __ATOMIC_RELEASE);
    }
    *api = rsc_wgs84_api;
    return &rsc_wgs84;
}

void rsc_geod_inverse(double lat1, double lon1, double lat2, double lon2, double *distance, double *azimuth1,
                      double *azimuth2) {
    double s12 = NAN, azi1 = NAN, azi2 = NAN;
    const rsc_proj_api *P = NULL;
    const struct geod_geodesic *g = NULL;
    if (isfinite(lat1) && isfinite(lon1) && isfinite(lat2) && isfinite(lon2) && (g = rsc_geod(&P))) {
        P->geod_inverse(g, lat1, lon1, lat2, lon2, &s12, &azi1, &azi2);
        if (azi1 < 0) azi1 += 360.0;
        if (azi2 < 0) azi2 += 360.0;
    }
    if (distance) *distance = s12;
    if (azimuth1) *azimuth1 = azi1;
    if (azimuth2) *azimuth2 = azi2;
}

void rsc_geod_direct(double lat1, double lon1, double azimuth, double distance, double *lat2, double *lon2) {
    double la = NAN, lo = NAN;
    const rsc_proj_api *P = NULL;
    const struct geod_geodesic *g = NULL;
    if (isfinite(lat1) && isfinite(lon1) && isfinite(azimuth) && isfinite(distance) && (g = rsc_geod(&P))) {
        P->geod_direct(g, lat1, lon1, azimuth, distance, &la, &lo, NULL);
    }
    if (lat2) *lat2 = la;
    if (lon2) *lon2 = lo;
}
