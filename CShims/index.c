/* Segment index over GEOS's STRtree, with a per-cell cache of STRtree query results, and the per-fix snapping
 * loop. See cshims.h for the contract of each function. */
#include "cshims.h"
#include "cshims_log_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cells beyond this many disable growth of the cache resolution (cell size grows instead). */
#define RSC_MAX_CACHE_CELLS (4u * 1024u * 1024u)

/* A segment's end points, stored together: a scan touches one 32-byte record per segment. */
typedef struct rsc_seg {
    double ax, ay, bx, by;
} rsc_seg;

struct rsc_index {
    size_t n;
    /* Segments in locality order: edges sorted along a Hilbert curve through their centres, each edge's segments
     * together and in their given order; `orig` maps back to the index given at creation. */
    rsc_seg *seg;
    double *len, *offset, *bearing;
    int32_t *edge, *orig;
    int8_t *edge_direction;
    size_t edge_count;
    const rsc_geos_api *geos; /* loaded with the tree */
    GEOSContextHandle_t ctx; /* context that built (and will free) the tree */
    GEOSSTRtree *tree;
    /* Cell cache: grid over the segments' envelope expanded by cache_radius. */
    double cache_radius, cell, gx0, gy0;
    size_t nx, ny;
    uint32_t *cell_start; /* nx*ny + 1 entries */
    int32_t *cell_items;  /* segment indices, ascending within a cell */
    size_t nonempty_cells;
    size_t cell_item_count;
    /* Borrowed (rsc_index_borrow): the arrays belong to the caller, and the STRtree is built on first need. */
    int borrowed;
    pthread_mutex_t tree_lock;
    atomic_int tree_ready;
    /* Edge -> its first segment in locality order (an edge's segments are consecutive there), -1 for an edge with
     * none: built on first need (rsc_query_edge_candidate) under tree_lock, owned by the index either way. */
    int32_t *edge_first;
    atomic_int edge_first_ready;
    /* GEOS's last error message on the index's context; for a borrowed index, why its STRtree could not be built. */
    char failure[RSC_FAILURE_LEN];
};

struct rsc_query {
    const rsc_index *index;
    GEOSContextHandle_t ctx; /* made with the first STRtree query (a cached query needs no GEOS) */
    int32_t *hits;
    size_t hit_count, hit_cap;
    int failed;
    rsc_candidate *scratch;
    int scratch_cap;
    /* What the last failed call failed on: GEOS's own message (its error handler on the query's context) or ours. */
    char failure[RSC_FAILURE_LEN];
};

static void rsc_index_free_arrays(rsc_index *ix) {
    free(ix->edge_first);
    ix->edge_first = NULL;
    if (ix->borrowed) return;
    free(ix->seg); free(ix->len); free(ix->offset); free(ix->bearing); free(ix->edge); free(ix->orig);
    free(ix->edge_direction); free(ix->cell_start); free(ix->cell_items);
}

static double rsc_bearing(double dx, double dy) {
    double b = atan2(dx, dy) * (180.0 / M_PI);
    if (b < 0) b += 360.0;
    if (b >= 360.0) b -= 360.0;
    return b;
}

typedef struct {
    int32_t *items;
    size_t count, cap;
    int failed;
} rsc_hitlist;

static void rsc_collect(void *item, void *userdata) {
    rsc_hitlist *h = userdata;
    if (h->failed) return;
    if (h->count == h->cap) {
        size_t cap = h->cap ? h->cap * 2 : 64;
        int32_t *grown = realloc(h->items, cap * sizeof *grown);
        if (!grown) { h->failed = 1; return; }
        h->items = grown;
        h->cap = cap;
    }
    h->items[h->count++] = (int32_t)((uintptr_t)item - 1);
}

static int rsc_cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Queries `tree` for envelopes intersecting the box; appends segment indices (unsorted) to h. */
static int rsc_tree_query(const rsc_geos_api *G, GEOSContextHandle_t ctx, GEOSSTRtree *tree, double x0, double y0,
                          double x1, double y1, rsc_hitlist *h) {
    GEOSGeometry *box = G->GEOSGeom_createRectangle_r(ctx, x0, y0, x1, y1);
    if (!box) return RSC_EGEOS;
    G->GEOSSTRtree_query_r(ctx, tree, box, rsc_collect, h);
    G->GEOSGeom_destroy_r(ctx, box);
    return h->failed ? RSC_ENOMEM : RSC_OK;
}

/* Position of cell (x, y) along a Hilbert curve filling a 2^16 x 2^16 grid. */
static uint64_t rsc_hilbert(uint32_t x, uint32_t y) {
    uint64_t d = 0;
    for (uint32_t s = 1u << 15; s > 0; s >>= 1) {
        uint32_t rx = (x & s) ? 1 : 0, ry = (y & s) ? 1 : 0;
        d += (uint64_t)s * s * ((3 * rx) ^ ry);
        if (ry == 0) {
            if (rx == 1) { x = s - 1 - x; y = s - 1 - y; }
            uint32_t t = x; x = y; y = t;
        }
    }
    return d;
}

typedef struct {
    uint64_t key;
    int32_t edge;
} rsc_edge_key;

static int rsc_cmp_edge_key(const void *a, const void *b) {
    const rsc_edge_key *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->edge > y->edge) - (x->edge < y->edge);
}

static void rsc_err(char *err, size_t errlen, const char *msg) {
    if (err && errlen) snprintf(err, errlen, "%s", msg);
}

/* Visits the cells whose window (cell grown by `r` on every side) segment `g` crosses. Pass 1 (`items` NULL): counts
 * into `fill[c]`. Pass 2: writes `item` at `items[fill[c]++]`. Rows of cells spanned by the segment's y-range are
 * clipped to the row's window; the x-range found spans whole cells. Conservative by one cell at the ends (a superset
 * of the cells within `r` is harmless: queries filter by distance). Returns RSC_OK or RSC_ENOMEM on count overflow. */
static int rsc_raster_segment(const rsc_index *ix, const rsc_seg *g, double r, uint32_t *fill, int32_t *items,
                              int32_t item) {
    double cell = ix->cell, gx0 = ix->gx0, gy0 = ix->gy0;
    double dx = g->bx - g->ax, dy = g->by - g->ay;
    double ylo = fmin(g->ay, g->by), yhi = fmax(g->ay, g->by);
    double fy0 = floor((ylo - r - gy0) / cell) - 1, fy1 = floor((yhi + r - gy0) / cell) + 1;
    size_t cy0 = fy0 < 0 ? 0 : (size_t)fy0;
    size_t cy1 = fy1 >= (double)ix->ny ? ix->ny - 1 : (fy1 < 0 ? 0 : (size_t)fy1);
    double margin = 1e-6 * cell;
    for (size_t cy = cy0; cy <= cy1; cy++) {
        double wy0 = gy0 + (double)cy * cell - r - margin, wy1 = gy0 + (double)(cy + 1) * cell + r + margin;
        double t0 = 0, t1 = 1;
        if (fabs(dy) > 0) {
            double a = (wy0 - g->ay) / dy, b = (wy1 - g->ay) / dy;
            if (a > b) { double t = a; a = b; b = t; }
            t0 = fmax(0, a); t1 = fmin(1, b);
            if (t0 > t1) continue;
        } else if (g->ay < wy0 || g->ay > wy1) {
            continue;
        }
        double xa = g->ax + dx * t0, xb = g->ax + dx * t1;
        double xlo = fmin(xa, xb) - r - margin, xhi = fmax(xa, xb) + r + margin;
        double fx0 = floor((xlo - gx0) / cell) - 1, fx1 = floor((xhi - gx0) / cell) + 1;
        if (fx1 < 0 || fx0 >= (double)ix->nx) continue;
        size_t cx0 = fx0 < 0 ? 0 : (size_t)fx0;
        size_t cx1 = fx1 >= (double)ix->nx ? ix->nx - 1 : (size_t)fx1;
        for (size_t cx = cx0; cx <= cx1; cx++) {
            /* Exact test of the cell's window against the clipped piece's x-range. */
            double x0 = gx0 + (double)cx * cell;
            if (x0 + cell + r + margin < fmin(xa, xb) || x0 - r - margin > fmax(xa, xb)) continue;
            size_t c = cy * ix->nx + cx;
            if (items) items[fill[c]++] = item;
            else if (fill[c] == UINT32_MAX) return RSC_ENOMEM;
            else fill[c]++;
        }
    }
    return RSC_OK;
}

rsc_index *rsc_index_create(const double *ax, const double *ay, const double *bx, const double *by,
                            const int32_t *edge, const double *offset, size_t n, const int8_t *edge_direction,
                            size_t edge_count, double cache_radius, char *err, size_t errlen) {
    if (n == 0 || !ax || !ay || !bx || !by || !edge || !offset || !edge_direction || !(cache_radius > 0) ||
        n > INT32_MAX - 1) {
        rsc_err(err, errlen, "segment index needs at least one segment and a positive cache radius");
        return NULL;
    }
    rsc_index *ix = calloc(1, sizeof *ix);
    if (!ix) { rsc_err(err, errlen, "out of memory"); return NULL; }
    pthread_mutex_init(&ix->tree_lock, NULL);
    ix->n = n;
    ix->edge_count = edge_count;
    size_t bytes = n * sizeof(double);
    ix->seg = malloc(n * sizeof(rsc_seg));
    ix->len = malloc(bytes); ix->offset = malloc(bytes); ix->bearing = malloc(bytes);
    ix->edge = malloc(n * sizeof(int32_t));
    ix->orig = malloc(n * sizeof(int32_t));
    ix->edge_direction = malloc(edge_count ? edge_count : 1);
    if (!ix->seg || !ix->len || !ix->offset || !ix->bearing || !ix->edge || !ix->orig || !ix->edge_direction) {
        rsc_index_free_arrays(ix); free(ix);
        rsc_err(err, errlen, "out of memory");
        return NULL;
    }
    memcpy(ix->edge_direction, edge_direction, edge_count);
    double minx = INFINITY, miny = INFINITY, maxx = -INFINITY, maxy = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(ax[i]) || !isfinite(ay[i]) || !isfinite(bx[i]) || !isfinite(by[i]) || edge[i] < 0 ||
            (size_t)edge[i] >= edge_count) {
            rsc_index_free_arrays(ix); free(ix);
            rsc_err(err, errlen, "segment with a non-finite coordinate or an edge out of range");
            return NULL;
        }
        minx = fmin(minx, fmin(ax[i], bx[i])); maxx = fmax(maxx, fmax(ax[i], bx[i]));
        miny = fmin(miny, fmin(ay[i], by[i])); maxy = fmax(maxy, fmax(ay[i], by[i]));
    }
    /* Locality order: edges by the Hilbert position of their first segment's midpoint, segments grouped by edge. */
    rsc_edge_key *keys = malloc((edge_count ? edge_count : 1) * sizeof *keys);
    size_t *start = calloc(edge_count + 1, sizeof *start);
    if (!keys || !start) {
        free(keys); free(start); rsc_index_free_arrays(ix); free(ix);
        rsc_err(err, errlen, "out of memory");
        return NULL;
    }
    double sx = maxx > minx ? 65535.0 / (maxx - minx) : 0, sy = maxy > miny ? 65535.0 / (maxy - miny) : 0;
    for (size_t e = 0; e < edge_count; e++) { keys[e].key = UINT64_MAX; keys[e].edge = (int32_t)e; }
    for (size_t i = 0; i < n; i++) {
        rsc_edge_key *k = &keys[edge[i]];
        if (k->key != UINT64_MAX) continue;
        double mx = 0.5 * (ax[i] + bx[i]), my = 0.5 * (ay[i] + by[i]);
        k->key = rsc_hilbert((uint32_t)((mx - minx) * sx), (uint32_t)((my - miny) * sy));
    }
    qsort(keys, edge_count, sizeof *keys, rsc_cmp_edge_key);
    /* start[rank] = first new index of the edge with that rank; filled in given order within each edge. */
    size_t *rank_of = malloc((edge_count ? edge_count : 1) * sizeof *rank_of);
    if (!rank_of) {
        free(keys); free(start); rsc_index_free_arrays(ix); free(ix);
        rsc_err(err, errlen, "out of memory");
        return NULL;
    }
    for (size_t r = 0; r < edge_count; r++) rank_of[keys[r].edge] = r;
    for (size_t i = 0; i < n; i++) start[rank_of[edge[i]] + 1]++;
    for (size_t r = 0; r < edge_count; r++) start[r + 1] += start[r];
    for (size_t i = 0; i < n; i++) {
        size_t j = start[rank_of[edge[i]]]++;
        ix->seg[j] = (rsc_seg){ax[i], ay[i], bx[i], by[i]};
        double dx = bx[i] - ax[i], dy = by[i] - ay[i];
        ix->len[j] = sqrt(dx * dx + dy * dy);
        ix->bearing[j] = rsc_bearing(dx, dy);
        ix->offset[j] = offset[i];
        ix->edge[j] = edge[i];
        ix->orig[j] = (int32_t)i;
    }
    free(keys); free(start); free(rank_of);
    const rsc_geos_api *G = rsc_geos_load(err, errlen);
    if (!G) { rsc_index_free_arrays(ix); free(ix); return NULL; }
    ix->geos = G;
    ix->ctx = G->GEOS_init_r();
    if (!ix->ctx) { rsc_index_free_arrays(ix); free(ix); rsc_err(err, errlen, "GEOS_init_r failed"); return NULL; }
    rsc_log_attach_geos(G, ix->ctx, ix->failure);
    ix->tree = G->GEOSSTRtree_create_r(ix->ctx, 10);
    if (!ix->tree) { rsc_index_destroy(ix); rsc_err(err, errlen, "GEOSSTRtree_create_r failed"); return NULL; }
    for (size_t i = 0; i < n; i++) {
        const rsc_seg *g = &ix->seg[i];
        GEOSGeometry *env = G->GEOSGeom_createRectangle_r(ix->ctx, fmin(g->ax, g->bx), fmin(g->ay, g->by),
                                                          fmax(g->ax, g->bx), fmax(g->ay, g->by));
        if (!env) { rsc_index_destroy(ix); rsc_err(err, errlen, "GEOS could not make a segment envelope"); return NULL; }
        /* The tree keeps the envelope by value and the item pointer; the geometry may go. */
        G->GEOSSTRtree_insert_r(ix->ctx, ix->tree, env, (void *)(uintptr_t)(i + 1));
        G->GEOSGeom_destroy_r(ix->ctx, env);
    }
    /* Cell cache, filled from STRtree queries (the first query also builds the tree before any sharing). */
    ix->cache_radius = cache_radius;
    double gx0 = minx - cache_radius, gy0 = miny - cache_radius;
    double w = (maxx + cache_radius) - gx0, h = (maxy + cache_radius) - gy0;
    double cell = cache_radius;
    while ((ceil(w / cell) * ceil(h / cell)) > (double)RSC_MAX_CACHE_CELLS) cell *= 1.5;
    ix->cell = cell; ix->gx0 = gx0; ix->gy0 = gy0;
    ix->nx = (size_t)ceil(w / cell); if (ix->nx == 0) ix->nx = 1;
    ix->ny = (size_t)ceil(h / cell); if (ix->ny == 0) ix->ny = 1;
    size_t cells = ix->nx * ix->ny;
    /* Each segment goes into the cells whose window (the cell grown by the cache radius on every side) it crosses:
     * found by walking the rows of cells its y-range spans and clipping it to each row, so a long diagonal road costs
     * cells along it, not the area of its envelope (a grid-wide STRtree query per cell did, up to 4 M queries).
     * Two passes over the segments (count, then fill in segment order: each cell's items come out ascending). */
    ix->cell_start = calloc(cells + 1, sizeof(uint32_t));
    uint32_t *fill = ix->cell_start; /* counts, then each cell's write cursor, then shifted into the start table */
    if (!ix->cell_start) { rsc_index_destroy(ix); rsc_err(err, errlen, "out of memory"); return NULL; }
    size_t sum = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            if (rsc_raster_segment(ix, &ix->seg[i], cache_radius, fill, pass ? ix->cell_items : NULL, (int32_t)i) != RSC_OK) {
                rsc_index_destroy(ix); rsc_err(err, errlen, "cell cache too large"); return NULL;
            }
        }
        if (pass == 0) {
            for (size_t c = 0; c < cells; c++) {
                uint32_t k = fill[c];
                if (sum + k > UINT32_MAX) { rsc_index_destroy(ix); rsc_err(err, errlen, "cell cache too large"); return NULL; }
                fill[c] = (uint32_t)sum;
                sum += k;
                if (k) ix->nonempty_cells++;
            }
            ix->cell_items = malloc((sum ? sum : 1) * sizeof(int32_t));
            if (!ix->cell_items) { rsc_index_destroy(ix); rsc_err(err, errlen, "out of memory"); return NULL; }
        }
    }
    /* Each cursor now points at the next cell's start: shift by one. */
    memmove(ix->cell_start + 1, ix->cell_start, cells * sizeof(uint32_t));
    ix->cell_start[0] = 0;
    ix->cell_start[cells] = (uint32_t)sum;
    size_t items_n = ix->cell_start[cells];
    /* Query the tree once before it is shared: GEOS builds it lazily on the first query. */
    rsc_hitlist hl = {0};
    if (rsc_tree_query(G, ix->ctx, ix->tree, gx0, gy0, gx0 + cell, gy0 + cell, &hl) != RSC_OK) {
        free(hl.items); rsc_index_destroy(ix); rsc_err(err, errlen, "GEOS STRtree query failed"); return NULL;
    }
    ix->cell_start[cells] = (uint32_t)items_n;
    ix->cell_item_count = items_n;
    atomic_store(&ix->tree_ready, 1);
    free(hl.items);
    return ix;
}

void rsc_index_destroy(rsc_index *ix) {
    if (!ix) return;
    if (ix->tree) ix->geos->GEOSSTRtree_destroy_r(ix->ctx, ix->tree);
    if (ix->ctx) ix->geos->GEOS_finish_r(ix->ctx);
    rsc_index_free_arrays(ix);
    pthread_mutex_destroy(&ix->tree_lock);
    free(ix);
}

int rsc_index_export(const rsc_index *ix, rsc_index_view *v) {
    if (!ix || !v || ix->borrowed) return RSC_EINVAL;
    memset(v, 0, sizeof *v);
    v->segment_count = ix->n;
    v->edge_count = ix->edge_count;
    v->nx = ix->nx; v->ny = ix->ny;
    v->cell_count = ix->nx * ix->ny;
    v->cell_item_count = ix->cell_item_count;
    v->nonempty_cells = ix->nonempty_cells;
    v->cache_radius = ix->cache_radius; v->cell = ix->cell; v->gx0 = ix->gx0; v->gy0 = ix->gy0;
    v->segments = (const double *)ix->seg;
    v->length = ix->len; v->offset = ix->offset; v->bearing = ix->bearing;
    v->edge = ix->edge; v->orig = ix->orig;
    v->edge_direction = ix->edge_direction;
    v->cell_start = ix->cell_start;
    v->cell_items = ix->cell_items;
    return RSC_OK;
}

rsc_index *rsc_index_borrow(const rsc_index_view *v, char *err, size_t errlen) {
    if (!v || v->segment_count == 0 || v->segment_count > INT32_MAX - 1 || !v->segments || !v->length ||
        !v->offset || !v->bearing || !v->edge || !v->orig || !v->edge_direction || !v->cell_start ||
        (v->cell_item_count > 0 && !v->cell_items) || v->nx == 0 || v->ny == 0 || v->cell_count != v->nx * v->ny ||
        !(v->cache_radius > 0) || !(v->cell > 0) || !isfinite(v->gx0) || !isfinite(v->gy0)) {
        rsc_err(err, errlen, "segment index arrays are missing or inconsistent");
        return NULL;
    }
    if (v->cell_start[v->cell_count] != v->cell_item_count || v->cell_start[0] != 0) {
        rsc_err(err, errlen, "segment index cell table does not match its item count");
        return NULL;
    }
    rsc_index *ix = calloc(1, sizeof *ix);
    if (!ix) { rsc_err(err, errlen, "out of memory"); return NULL; }
    ix->borrowed = 1;
    pthread_mutex_init(&ix->tree_lock, NULL);
    ix->n = v->segment_count;
    ix->edge_count = v->edge_count;
    ix->seg = (rsc_seg *)(uintptr_t)v->segments;
    ix->len = (double *)(uintptr_t)v->length;
    ix->offset = (double *)(uintptr_t)v->offset;
    ix->bearing = (double *)(uintptr_t)v->bearing;
    ix->edge = (int32_t *)(uintptr_t)v->edge;
    ix->orig = (int32_t *)(uintptr_t)v->orig;
    ix->edge_direction = (int8_t *)(uintptr_t)v->edge_direction;
    ix->cell_start = (uint32_t *)(uintptr_t)v->cell_start;
    ix->cell_items = (int32_t *)(uintptr_t)v->cell_items;
    ix->cache_radius = v->cache_radius; ix->cell = v->cell; ix->gx0 = v->gx0; ix->gy0 = v->gy0;
    ix->nx = v->nx; ix->ny = v->ny;
    ix->nonempty_cells = v->nonempty_cells;
    ix->cell_item_count = v->cell_item_count;
    return ix;
}

/* The STRtree of a borrowed index, built once on first need (under the index's lock, and queried once before it
 * is published so GEOS finishes its lazy build before threads share it). Returns RSC_OK or a failure code. */
static int rsc_index_ensure_tree(const rsc_index *cix) {
    rsc_index *ix = (rsc_index *)(uintptr_t)cix;
    if (atomic_load_explicit(&ix->tree_ready, memory_order_acquire)) return ix->tree ? RSC_OK : RSC_EGEOS;
    pthread_mutex_lock(&ix->tree_lock);
    int rc = RSC_OK;
    if (!atomic_load_explicit(&ix->tree_ready, memory_order_relaxed)) {
        const rsc_geos_api *G = rsc_geos_load(ix->failure, sizeof ix->failure);
        ix->geos = G;
        ix->ctx = G ? G->GEOS_init_r() : NULL;
        if (G && !ix->ctx) snprintf(ix->failure, sizeof ix->failure, "GEOS_init_r failed (out of memory?)");
        if (ix->ctx) {
            rsc_log_attach_geos(G, ix->ctx, ix->failure);
            ix->tree = G->GEOSSTRtree_create_r(ix->ctx, 10);
        }
        for (size_t i = 0; ix->tree && i < ix->n; i++) {
            const rsc_seg *g = &ix->seg[i];
            GEOSGeometry *env = G->GEOSGeom_createRectangle_r(ix->ctx, fmin(g->ax, g->bx), fmin(g->ay, g->by),
                                                              fmax(g->ax, g->bx), fmax(g->ay, g->by));
            if (!env) { G->GEOSSTRtree_destroy_r(ix->ctx, ix->tree); ix->tree = NULL; break; }
            G->GEOSSTRtree_insert_r(ix->ctx, ix->tree, env, (void *)(uintptr_t)(i + 1));
            G->GEOSGeom_destroy_r(ix->ctx, env);
        }
        if (ix->tree) {
            rsc_hitlist hl = {0};
            if (rsc_tree_query(G, ix->ctx, ix->tree, ix->gx0, ix->gy0, ix->gx0 + ix->cell, ix->gy0 + ix->cell, &hl) != RSC_OK) {
                G->GEOSSTRtree_destroy_r(ix->ctx, ix->tree);
                ix->tree = NULL;
            }
            free(hl.items);
        }
        atomic_store_explicit(&ix->tree_ready, 1, memory_order_release);
    }
    if (!ix->tree) {
        rc = RSC_EGEOS;
        if (!ix->failure[0]) snprintf(ix->failure, sizeof ix->failure, "GEOS could not build the STRtree");
    }
    pthread_mutex_unlock(&ix->tree_lock);
    return rc;
}

size_t rsc_index_segment_count(const rsc_index *ix) { return ix ? ix->n : 0; }
size_t rsc_index_cache_cells(const rsc_index *ix) { return ix ? ix->nonempty_cells : 0; }

rsc_query *rsc_query_create(const rsc_index *index) {
    if (!index) return NULL;
    rsc_query *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->index = index;
    q->scratch_cap = 256;
    q->scratch = malloc((size_t)q->scratch_cap * sizeof(rsc_candidate));
    if (!q->scratch) { free(q); return NULL; }
    return q;
}

void rsc_query_destroy(rsc_query *q) {
    if (!q) return;
    if (q->ctx) q->index->geos->GEOS_finish_r(q->ctx);
    free(q->hits);
    free(q->scratch);
    free(q);
}

/* The nearest point of segment g to (x, y): its parameter along the segment in *t (0..1) and the point in *fx, *fy;
 * returns its squared distance. */
static inline double rsc_foot_d2(const rsc_seg *g, double x, double y, double *t, double *fx, double *fy) {
    double ax = g->ax, ay = g->ay, dx = g->bx - ax, dy = g->by - ay;
    double l2 = dx * dx + dy * dy, u = 0.0;
    if (l2 > 0) {
        u = ((x - ax) * dx + (y - ay) * dy) / l2;
        u = u < 0 ? 0 : (u > 1 ? 1 : u);
    }
    *t = u;
    *fx = ax + u * dx;
    *fy = ay + u * dy;
    return (x - *fx) * (x - *fx) + (y - *fy) * (y - *fy);
}

/* Segment i's candidate at parameter t, point (fx, fy), `distance` from the fix. */
static inline void rsc_fill_candidate(const rsc_index *ix, int32_t i, double t, double fx, double fy,
                                      double distance, rsc_candidate *c) {
    c->edge = ix->edge[i];
    c->segment = ix->orig[i];
    c->x = fx;
    c->y = fy;
    c->distance = distance;
    c->offset = ix->offset[i] + t * ix->len[i];
    c->bearing = ix->bearing[i];
}

static inline int rsc_before(const rsc_candidate *a, const rsc_candidate *b) {
    return a->distance < b->distance || (a->distance == b->distance && a->edge < b->edge);
}

/* Adds candidate c (one edge's nearest so far) into the sorted top-`capacity` list out[0..*count). */
static inline void rsc_push(rsc_candidate *out, int *count, int capacity, const rsc_candidate *c) {
    int n = *count;
    if (n == capacity) {
        if (!rsc_before(c, &out[n - 1])) return;
        n--;
    }
    int i = n;
    while (i > 0 && rsc_before(c, &out[i - 1])) {
        out[i] = out[i - 1];
        i--;
    }
    out[i] = *c;
    *count = n + 1;
}

/* Whether segment g passes within `radius` of (x, y) (r2 = radius squared, r2_out = r2 with a margin for rounding, as
 * rsc_scan has them); if so, its foot point's parameter, position and distance. */
static inline int rsc_seg_within(const rsc_seg *g, double x, double y, double radius, double r2, double r2_out,
                                 double *t, double *fx, double *fy, double *distance) {
    /* Cheap envelope reject before the exact foot point. */
    double ex0 = g->ax < g->bx ? g->ax : g->bx, ex1 = g->ax < g->bx ? g->bx : g->ax;
    double ey0 = g->ay < g->by ? g->ay : g->by, ey1 = g->ay < g->by ? g->by : g->ay;
    double ddx = x < ex0 ? ex0 - x : (x > ex1 ? x - ex1 : 0), ddy = y < ey0 ? ey0 - y : (y > ey1 ? y - ey1 : 0);
    if (ddx * ddx + ddy * ddy > r2) return 0;
    double d2 = rsc_foot_d2(g, x, y, t, fx, fy);
    if (d2 > r2_out) return 0;
    *distance = sqrt(d2);
    return *distance <= radius;
}

/* Scans segments in ascending (locality) order, where each edge's segments are consecutive, keeping each edge's
 * nearest segment within radius. */
static int rsc_scan(const rsc_index *ix, const int32_t *items, size_t count, double x, double y, double radius,
                    rsc_candidate *out, int capacity) {
    int n = 0;
    rsc_candidate best;
    int32_t cur_edge = -1;
    int have = 0;
    double r2 = radius * radius;
    /* Squared distances beyond this are beyond the radius whatever the rounding: no square root for them (the
     * exact test, distance > radius, decides the rest as before). */
    double r2_out = r2 * (1 + 1e-12);
    for (size_t k = 0; k < count; k++) {
        int32_t i = items ? items[k] : (int32_t)k;
        double t, fx, fy, distance;
        if (!rsc_seg_within(&ix->seg[i], x, y, radius, r2, r2_out, &t, &fx, &fy, &distance)) continue;
        int32_t e = ix->edge[i];
        if (have && e == cur_edge) {
            if (distance < best.distance) rsc_fill_candidate(ix, i, t, fx, fy, distance, &best);
            continue;
        }
        if (have) rsc_push(out, &n, capacity, &best);
        rsc_fill_candidate(ix, i, t, fx, fy, distance, &best);
        cur_edge = e;
        have = 1;
    }
    if (have) rsc_push(out, &n, capacity, &best);
    return n;
}

int rsc_query_candidates(rsc_query *q, double x, double y, double radius, int use_cache, rsc_candidate *out,
                         int capacity) {
    if (!q || !out || capacity <= 0 || !(radius >= 0) || !isfinite(x) || !isfinite(y)) return RSC_EINVAL;
    const rsc_index *ix = q->index;
    if (use_cache && radius <= ix->cache_radius) {
        double fx = (x - ix->gx0) / ix->cell, fy = (y - ix->gy0) / ix->cell;
        if (fx < 0 || fy < 0 || fx >= (double)ix->nx || fy >= (double)ix->ny) return 0;
        size_t c = (size_t)fy * ix->nx + (size_t)fx;
        uint32_t s = ix->cell_start[c], e = ix->cell_start[c + 1];
        return rsc_scan(ix, ix->cell_items + s, e - s, x, y, radius, out, capacity);
    }
    int ready = rsc_index_ensure_tree(ix);
    if (ready != RSC_OK) {
        snprintf(q->failure, sizeof q->failure, "no STRtree for a %.1f m search: %s", radius, ix->failure);
        return ready;
    }
    if (!q->ctx) {
        q->ctx = ix->geos->GEOS_init_r();
        if (!q->ctx) {
            snprintf(q->failure, sizeof q->failure, "GEOS_init_r failed (out of memory?)");
            return RSC_EGEOS;
        }
        rsc_log_attach_geos(ix->geos, q->ctx, q->failure);
    }
    q->failure[0] = '\0';
    rsc_hitlist h = {q->hits, 0, q->hit_cap, 0};
    int rc = rsc_tree_query(ix->geos, q->ctx, ix->tree, x - radius, y - radius, x + radius, y + radius, &h);
    q->hits = h.items;
    q->hit_cap = h.cap;
    if (rc != RSC_OK) {
        char geos[RSC_FAILURE_LEN];
        snprintf(geos, sizeof geos, "%s", q->failure);
        snprintf(q->failure, sizeof q->failure, "STRtree query around (%.1f, %.1f) failed: %s", x, y,
                 rc == RSC_ENOMEM ? "out of memory" : geos[0] ? geos : "GEOS gave no geometry");
        return rc;
    }
    /* No hit leaves h.items NULL, which qsort must not get (UBSan, issue 16). */
    if (h.count > 1) qsort(h.items, h.count, sizeof(int32_t), rsc_cmp_i32);
    return rsc_scan(ix, h.items, h.count, x, y, radius, out, capacity);
}

/* The index's edge_first table, built on first need. RSC_OK, or RSC_ENOMEM. */
static int rsc_index_ensure_edge_first(const rsc_index *cix) {
    rsc_index *ix = (rsc_index *)(uintptr_t)cix;
    if (atomic_load_explicit(&ix->edge_first_ready, memory_order_acquire)) return ix->edge_first ? RSC_OK : RSC_ENOMEM;
    pthread_mutex_lock(&ix->tree_lock);
    if (!atomic_load_explicit(&ix->edge_first_ready, memory_order_relaxed)) {
        int32_t *first = malloc((ix->edge_count ? ix->edge_count : 1) * sizeof *first);
        if (first) {
            for (size_t e = 0; e < ix->edge_count; e++) first[e] = -1;
            for (size_t j = 0; j < ix->n; j++) {
                int32_t e = ix->edge[j];
                if (e >= 0 && (size_t)e < ix->edge_count && first[e] < 0) first[e] = (int32_t)j;
            }
        }
        ix->edge_first = first;
        atomic_store_explicit(&ix->edge_first_ready, 1, memory_order_release);
    }
    pthread_mutex_unlock(&ix->tree_lock);
    return ix->edge_first ? RSC_OK : RSC_ENOMEM;
}

int rsc_query_edge_candidate(rsc_query *q, int32_t edge, double x, double y, double radius, rsc_candidate *out) {
    if (!q || !out || !(radius >= 0) || !isfinite(x) || !isfinite(y)) return RSC_EINVAL;
    const rsc_index *ix = q->index;
    if (edge < 0 || (size_t)edge >= ix->edge_count) return RSC_EINVAL;
    int rc = rsc_index_ensure_edge_first(ix);
    if (rc != RSC_OK) {
        snprintf(q->failure, sizeof q->failure, "out of memory for the segment index's edge table");
        return rc;
    }
    double r2 = radius * radius, r2_out = r2 * (1 + 1e-12);
    int found = 0;
    /* The edge's segments in locality order, the first nearest kept: what rsc_scan keeps for the edge. */
    for (int32_t i = ix->edge_first[edge]; i >= 0 && (size_t)i < ix->n && ix->edge[i] == edge; i++) {
        double t, fx, fy, distance;
        if (!rsc_seg_within(&ix->seg[i], x, y, radius, r2, r2_out, &t, &fx, &fy, &distance)) continue;
        if (found && !(distance < out->distance)) continue;
        rsc_fill_candidate(ix, i, t, fx, fy, distance, out);
        found = 1;
    }
    return found;
}

int rsc_query_candidates_brute(rsc_query *q, double x, double y, double radius, rsc_candidate *out, int capacity) {
    if (!q || !out || capacity <= 0 || !(radius >= 0) || !isfinite(x) || !isfinite(y)) return RSC_EINVAL;
    return rsc_scan(q->index, NULL, q->index->n, x, y, radius, out, capacity);
}

/* Metres of penalty per degree between the fix's course and the road's direction of travel. */
#define RSC_HEADING_PENALTY_PER_DEGREE 0.2
/* Penalty for a candidate that would mean driving against a one-way edge. */
#define RSC_WRONG_WAY_PENALTY 1000.0

int rsc_choose_candidate(const rsc_index *ix, const rsc_candidate *cands, int count, double course) {
    if (!ix || !cands || count <= 0) return -1;
    int best = -1;
    double best_cost = INFINITY;
    int have_course = isfinite(course);
    for (int k = 0; k < count; k++) {
        double cost = cands[k].distance;
        if (have_course) {
            double diff = fabs(fmod(course - cands[k].bearing + 540.0, 360.0) - 180.0); /* 0..180 to forward */
            int dir = (cands[k].edge >= 0 && (size_t)cands[k].edge < ix->edge_count) ? ix->edge_direction[cands[k].edge] : 0;
            if (dir == 0) {
                cost += RSC_HEADING_PENALTY_PER_DEGREE * (diff < 90 ? diff : 180 - diff);
            } else {
                double along = dir > 0 ? diff : 180 - diff;
                cost += RSC_HEADING_PENALTY_PER_DEGREE * along + (along > 90 ? RSC_WRONG_WAY_PENALTY : 0);
            }
        }
        if (cost < best_cost) {
            best_cost = cost;
            best = k;
        }
    }
    return best;
}

int rsc_query_snap_batch(rsc_query *q, const double *x, const double *y, const double *course, size_t n,
                         double radius, int use_cache, rsc_candidate *out) {
    if (!q || (n > 0 && (!x || !y || !out)) || !(radius >= 0)) return RSC_EINVAL;
    int snapped = 0;
    for (size_t i = 0; i < n; i++) {
        int count = isfinite(x[i]) && isfinite(y[i])
                        ? rsc_query_candidates(q, x[i], y[i], radius, use_cache, q->scratch, q->scratch_cap)
                        : 0;
        if (count < 0) return count; /* a failed search is a failure (its message in rsc_query_failure), not "no road" */
        int k = count > 0 ? rsc_choose_candidate(q->index, q->scratch, count, course ? course[i] : NAN) : -1;
        if (k >= 0) {
            out[i] = q->scratch[k];
            snapped++;
        } else {
            memset(&out[i], 0, sizeof out[i]);
            out[i].edge = -1;
            out[i].segment = -1;
            out[i].distance = NAN;
        }
    }
    return snapped;
}

const char *rsc_query_failure(const rsc_query *q) { return q ? q->failure : ""; }
