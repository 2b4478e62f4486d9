/* The drawing canvas over cairo (cshims_render.h); cairo is loaded on first use (CShims/libs.c). */
#include "cshims.h"
#include "cshims_libs_internal.h"
#include "cshims_render.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rsc_canvas {
    const rsc_cairo_api *C;
    cairo_surface_t *surface;
    cairo_t *cr;
    int kind, pixel_width, pixel_height, finished;
    /* The SVG document as cairo streams it (SVG canvases). */
    unsigned char *bytes;
    size_t length, capacity;
    int out_of_memory;
    /* Size in points; scratch for one edge's projected points (rsc_render_path_edges). */
    double width, height;
    double *edge_xy;
    size_t edge_capacity;
};

static cairo_status_t rsc_canvas_append(void *closure, const unsigned char *data, unsigned int length) {
    rsc_canvas *c = closure;
    if (c->length + length > c->capacity) {
        size_t cap = c->capacity ? c->capacity : 65536;
        while (cap < c->length + length) cap *= 2;
        unsigned char *grown = realloc(c->bytes, cap);
        if (!grown) {
            c->out_of_memory = 1;
            return CAIRO_STATUS_NO_MEMORY;
        }
        c->bytes = grown;
        c->capacity = cap;
    }
    memcpy(c->bytes + c->length, data, length);
    c->length += length;
    return CAIRO_STATUS_SUCCESS;
}

rsc_canvas *rsc_render_canvas_create(int kind, double width, double height, double scale, char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    if (!(isfinite(scale) && scale > 0 && scale <= 16)) {
        if (err) snprintf(err, errlen, "pixel scale must be in (0, 16], got %g", scale);
        return NULL;
    }
    double pw = width * scale, ph = height * scale;
    if (!(isfinite(pw) && isfinite(ph) && pw >= 0.5 && ph >= 0.5 && pw < RSC_CANVAS_MAX_SIDE + 0.5 &&
          ph < RSC_CANVAS_MAX_SIDE + 0.5)) {
        if (err) snprintf(err, errlen, "picture size %gx%g px must be 1..%d pixels a side", pw, ph, RSC_CANVAS_MAX_SIDE);
        return NULL;
    }
    if (kind != RSC_CANVAS_RASTER && kind != RSC_CANVAS_SVG) {
        if (err) snprintf(err, errlen, "unknown canvas kind %d", kind);
        return NULL;
    }
    const rsc_cairo_api *C = rsc_cairo_load(err, errlen);
    if (!C) return NULL;
    rsc_canvas *c = calloc(1, sizeof *c);
    if (!c) {
        if (err) snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->C = C;
    c->kind = kind;
    c->pixel_width = (int)lround(pw);
    c->pixel_height = (int)lround(ph);
    c->width = width;
    c->height = height;
    if (kind == RSC_CANVAS_RASTER) {
        c->surface = C->cairo_image_surface_create(CAIRO_FORMAT_ARGB32, c->pixel_width, c->pixel_height);
    } else {
        c->surface = C->cairo_svg_surface_create_for_stream(rsc_canvas_append, c, pw, ph);
    }
    if (C->cairo_surface_status(c->surface) != CAIRO_STATUS_SUCCESS) {
        if (err) snprintf(err, errlen, "cairo: %s", C->cairo_status_to_string(C->cairo_surface_status(c->surface)));
        C->cairo_surface_destroy(c->surface);
        free(c);
        return NULL;
    }
    c->cr = C->cairo_create(c->surface);
    if (C->cairo_status(c->cr) != CAIRO_STATUS_SUCCESS) {
        if (err) snprintf(err, errlen, "cairo: %s", C->cairo_status_to_string(C->cairo_status(c->cr)));
        C->cairo_destroy(c->cr);
        C->cairo_surface_destroy(c->surface);
        free(c);
        return NULL;
    }
    C->cairo_scale(c->cr, scale, scale);
    return c;
}

void rsc_render_canvas_destroy(rsc_canvas *c) {
    if (!c) return;
    c->C->cairo_destroy(c->cr);
    c->C->cairo_surface_destroy(c->surface);
    free(c->bytes);
    free(c->edge_xy);
    free(c);
}

static int rsc_canvas_usable(const rsc_canvas *c) {
    return c && !c->finished && c->C->cairo_status(c->cr) == CAIRO_STATUS_SUCCESS;
}

static void rsc_set_colour(rsc_canvas *c, uint32_t rgba) {
    c->C->cairo_set_source_rgba(c->cr, ((rgba >> 24) & 255) / 255.0, ((rgba >> 16) & 255) / 255.0,
                                ((rgba >> 8) & 255) / 255.0, (rgba & 255) / 255.0);
}

void rsc_render_clear(rsc_canvas *c, uint32_t rgba) {
    if (!rsc_canvas_usable(c)) return;
    const rsc_cairo_api *C = c->C;
    C->cairo_save(c->cr);
    C->cairo_set_operator(c->cr, CAIRO_OPERATOR_SOURCE);
    rsc_set_colour(c, rgba);
    C->cairo_paint(c->cr);
    C->cairo_restore(c->cr);
}

static void rsc_set_line(rsc_canvas *c, double width, int style) {
    const rsc_cairo_api *C = c->C;
    C->cairo_set_line_width(c->cr, width);
    C->cairo_set_line_cap(c->cr, (style & RSC_LINE_ROUND) ? CAIRO_LINE_CAP_ROUND : CAIRO_LINE_CAP_BUTT);
    C->cairo_set_line_join(c->cr, (style & RSC_LINE_ROUND) ? CAIRO_LINE_JOIN_ROUND : CAIRO_LINE_JOIN_MITER);
}

void rsc_render_lines(rsc_canvas *c, const double *xy, const int32_t *counts, size_t count, double width,
                      uint32_t rgba, int style, const double *dash, int ndash) {
    if (!rsc_canvas_usable(c) || !xy || !counts || !(width > 0)) return;
    const rsc_cairo_api *C = c->C;
    C->cairo_new_path(c->cr);
    size_t k = 0;
    for (size_t i = 0; i < count; i++) {
        int32_t n = counts[i];
        if (n >= 2) {
            C->cairo_move_to(c->cr, xy[2 * k], xy[2 * k + 1]);
            for (int32_t j = 1; j < n; j++) C->cairo_line_to(c->cr, xy[2 * (k + j)], xy[2 * (k + j) + 1]);
        }
        if (n > 0) k += (size_t)n;
    }
    rsc_set_line(c, width, style);
    C->cairo_set_dash(c->cr, (dash && ndash > 0) ? dash : NULL, (dash && ndash > 0) ? ndash : 0, 0);
    rsc_set_colour(c, rgba);
    C->cairo_stroke(c->cr);
    C->cairo_set_dash(c->cr, NULL, 0, 0);
}

/* Fills and/or strokes the current path. */
static void rsc_paint_path(rsc_canvas *c, uint32_t fill_rgba, double stroke_width, uint32_t stroke_rgba) {
    const rsc_cairo_api *C = c->C;
    if (fill_rgba & 255) {
        rsc_set_colour(c, fill_rgba);
        C->cairo_fill_preserve(c->cr);
    }
    if (stroke_width > 0 && (stroke_rgba & 255)) {
        rsc_set_line(c, stroke_width, RSC_LINE_ROUND);
        rsc_set_colour(c, stroke_rgba);
        C->cairo_stroke_preserve(c->cr);
    }
    C->cairo_new_path(c->cr);
}

void rsc_render_polygon(rsc_canvas *c, const double *xy, size_t n, uint32_t fill_rgba, double stroke_width,
                        uint32_t stroke_rgba) {
    if (!rsc_canvas_usable(c) || !xy || n < 3) return;
    const rsc_cairo_api *C = c->C;
    C->cairo_new_path(c->cr);
    C->cairo_move_to(c->cr, xy[0], xy[1]);
    for (size_t i = 1; i < n; i++) C->cairo_line_to(c->cr, xy[2 * i], xy[2 * i + 1]);
    C->cairo_close_path(c->cr);
    rsc_paint_path(c, fill_rgba, stroke_width, stroke_rgba);
}

void rsc_render_circle(rsc_canvas *c, double x, double y, double radius, uint32_t fill_rgba, double stroke_width,
                       uint32_t stroke_rgba) {
    if (!rsc_canvas_usable(c) || !(radius > 0)) return;
    c->C->cairo_new_path(c->cr);
    c->C->cairo_arc(c->cr, x, y, radius, 0, 2 * M_PI);
    c->C->cairo_close_path(c->cr);
    rsc_paint_path(c, fill_rgba, stroke_width, stroke_rgba);
}

void rsc_render_arc(rsc_canvas *c, double x, double y, double radius, double a0, double a1, double width,
                    uint32_t rgba, int style) {
    if (!rsc_canvas_usable(c) || !(radius > 0) || !(width > 0)) return;
    const rsc_cairo_api *C = c->C;
    C->cairo_new_path(c->cr);
    C->cairo_arc(c->cr, x, y, radius, a0, a1);
    rsc_set_line(c, width, style);
    rsc_set_colour(c, rgba);
    C->cairo_stroke(c->cr);
}

static void rsc_set_font(rsc_canvas *c, double size, int bold) {
    c->C->cairo_select_font_face(c->cr, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
                                 bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    c->C->cairo_set_font_size(c->cr, size);
}

double rsc_render_text_width(rsc_canvas *c, const char *utf8, double size, int bold) {
    if (!rsc_canvas_usable(c) || !utf8 || !(size > 0)) return 0;
    rsc_set_font(c, size, bold);
    cairo_text_extents_t ext;
    c->C->cairo_text_extents(c->cr, utf8, &ext);
    return ext.x_advance;
}

void rsc_render_text(rsc_canvas *c, const char *utf8, double x, double y, double angle, double size, int bold,
                     int align, uint32_t rgba, double halo_width, uint32_t halo_rgba) {
    if (!rsc_canvas_usable(c) || !utf8 || !*utf8 || !(size > 0)) return;
    const rsc_cairo_api *C = c->C;
    C->cairo_save(c->cr);
    C->cairo_translate(c->cr, x, y);
    if (angle != 0) C->cairo_rotate(c->cr, angle);
    rsc_set_font(c, size, bold);
    double dx = 0;
    if (align != RSC_TEXT_LEFT) {
        cairo_text_extents_t ext;
        C->cairo_text_extents(c->cr, utf8, &ext);
        dx = align == RSC_TEXT_CENTER ? -ext.x_advance / 2 : -ext.x_advance;
    }
    C->cairo_new_path(c->cr);
    if (halo_width > 0 && (halo_rgba & 255)) {
        C->cairo_move_to(c->cr, dx, 0);
        C->cairo_text_path(c->cr, utf8);
        rsc_set_line(c, halo_width * 2, RSC_LINE_ROUND);
        rsc_set_colour(c, halo_rgba);
        C->cairo_stroke(c->cr);
    }
    C->cairo_move_to(c->cr, dx, 0);
    rsc_set_colour(c, rgba);
    C->cairo_show_text(c->cr, utf8);
    C->cairo_restore(c->cr);
}

static int rsc_canvas_failed(rsc_canvas *c, char *err, size_t errlen) {
    cairo_status_t s = c->C->cairo_status(c->cr);
    if (s == CAIRO_STATUS_SUCCESS) s = c->C->cairo_surface_status(c->surface);
    if (s == CAIRO_STATUS_SUCCESS && !c->out_of_memory) return 0;
    if (err) snprintf(err, errlen, "cairo: %s", c->out_of_memory ? "out of memory" : c->C->cairo_status_to_string(s));
    return 1;
}

int rsc_render_encode(rsc_canvas *c, unsigned char **out, size_t *len, char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    if (!c || !out || !len) return RSC_EINVAL;
    *out = NULL;
    *len = 0;
    if (c->finished) {
        if (err) snprintf(err, errlen, "the SVG canvas was already encoded");
        return RSC_EINVAL;
    }
    if (rsc_canvas_failed(c, err, errlen)) return RSC_EINVAL;
    const rsc_cairo_api *C = c->C;
    if (c->kind == RSC_CANVAS_RASTER) {
        free(c->bytes); /* (an SVG canvas's stream may have started while drawing: kept) */
        c->bytes = NULL;
        c->length = c->capacity = 0;
        C->cairo_surface_flush(c->surface);
        cairo_status_t s = C->cairo_surface_write_to_png_stream(c->surface, rsc_canvas_append, c);
        if (s != CAIRO_STATUS_SUCCESS || c->out_of_memory) {
            if (err) snprintf(err, errlen, "cairo PNG: %s", C->cairo_status_to_string(s));
            return RSC_ENOMEM;
        }
    } else {
        C->cairo_surface_finish(c->surface);
        c->finished = 1;
        if (rsc_canvas_failed(c, err, errlen)) return RSC_ENOMEM;
    }
    *out = c->bytes;
    *len = c->length;
    c->bytes = NULL;
    c->length = c->capacity = 0;
    return RSC_OK;
}

int rsc_render_copy_rgba(rsc_canvas *c, unsigned char *out, size_t stride) {
    if (!c || !out || c->kind != RSC_CANVAS_RASTER || stride < (size_t)c->pixel_width * 4) return RSC_EINVAL;
    const rsc_cairo_api *C = c->C;
    C->cairo_surface_flush(c->surface);
    const unsigned char *data = C->cairo_image_surface_get_data(c->surface);
    int src_stride = C->cairo_image_surface_get_stride(c->surface);
    if (!data) return RSC_EINVAL;
    for (int y = 0; y < c->pixel_height; y++) {
        const uint32_t *row = (const uint32_t *)(const void *)(data + (size_t)y * (size_t)src_stride);
        unsigned char *o = out + (size_t)y * stride;
        for (int x = 0; x < c->pixel_width; x++) {
            /* ARGB32: native-endian 32-bit words, colour premultiplied by alpha. */
            uint32_t p = row[x];
            unsigned a = p >> 24, r = (p >> 16) & 255, g = (p >> 8) & 255, b = p & 255;
            if (a != 0 && a != 255) {
                r = (r * 255 + a / 2) / a;
                g = (g * 255 + a / 2) / a;
                b = (b * 255 + a / 2) / a;
            }
            o[4 * x] = (unsigned char)r;
            o[4 * x + 1] = (unsigned char)g;
            o[4 * x + 2] = (unsigned char)b;
            o[4 * x + 3] = (unsigned char)a;
        }
    }
    return RSC_OK;
}

int rsc_render_pixel_width(const rsc_canvas *c) { return c ? c->pixel_width : 0; }
int rsc_render_pixel_height(const rsc_canvas *c) { return c ? c->pixel_height : 0; }

typedef struct {
    const unsigned char *data;
    size_t length, offset;
} rsc_png_reader;

static cairo_status_t rsc_png_read(void *closure, unsigned char *data, unsigned int length) {
    rsc_png_reader *r = closure;
    if (r->length - r->offset < length) return CAIRO_STATUS_READ_ERROR;
    memcpy(data, r->data + r->offset, length);
    r->offset += length;
    return CAIRO_STATUS_SUCCESS;
}

rsc_canvas *rsc_render_canvas_from_png(const unsigned char *png, size_t len, char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    if (!png) {
        if (err) snprintf(err, errlen, "no PNG bytes");
        return NULL;
    }
    const rsc_cairo_api *C = rsc_cairo_load(err, errlen);
    if (!C) return NULL;
    rsc_png_reader reader = {png, len, 0};
    cairo_surface_t *surface = C->cairo_image_surface_create_from_png_stream(rsc_png_read, &reader);
    if (C->cairo_surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        if (err) snprintf(err, errlen, "not a readable PNG: %s", C->cairo_status_to_string(C->cairo_surface_status(surface)));
        C->cairo_surface_destroy(surface);
        return NULL;
    }
    rsc_canvas *c = calloc(1, sizeof *c);
    if (!c) {
        C->cairo_surface_destroy(surface);
        if (err) snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->C = C;
    c->kind = RSC_CANVAS_RASTER;
    c->surface = surface;
    c->pixel_width = C->cairo_image_surface_get_width(surface);
    c->pixel_height = C->cairo_image_surface_get_height(surface);
    c->width = c->pixel_width;
    c->height = c->pixel_height;
    c->cr = C->cairo_create(surface);
    return c;
}

/* ---- Roads: projection over whole shape arrays, one cairo path per style class ---- */

static size_t rsc_path_polylines(rsc_canvas *c, const rsc_view_transform *t, const double *unit_xy,
                                 const int64_t *starts, const int32_t *counts, const int32_t *edges, size_t n,
                                 double min_step, double margin, int chain_edges) {
    if (!rsc_canvas_usable(c) || !t || !unit_xy || !starts || !counts || (!edges && n)) return 0;
    const rsc_cairo_api *C = c->C;
    cairo_t *cr = c->cr;
    C->cairo_new_path(cr);
    const double world = t->world, tx = t->tx, ty = t->ty, cb = t->cos_b, sb = t->sin_b;
    const double st = t->sin_t, ct = t->cos_t, eye = t->eye, cx = t->cx, cy = t->cy, near = t->eye * 0.05;
    const double lo_x = -margin, hi_x = c->width + margin, lo_y = -margin, hi_y = c->height + margin;
    const double step2 = min_step > 0 ? min_step * min_step : 0;
    size_t emitted = 0;
    /* Whether the path's last subpath ended on the last point of the previous edge (at ex, ey): an edge starting
     * there continues it (one subpath along a way's consecutive edges: fewer caps to stroke). */
    int chain = 0;
    double ex = 0, ey = 0;
    for (size_t i = 0; i < n; i++) {
        int32_t e = edges[i];
        int32_t m = counts[e];
        if (m < 2) continue;
        if ((size_t)m > c->edge_capacity) {
            size_t cap = c->edge_capacity ? c->edge_capacity : 256;
            while (cap < (size_t)m) cap *= 2;
            double *grown = realloc(c->edge_xy, cap * 2 * sizeof *grown);
            if (!grown) return 0;
            c->edge_xy = grown;
            c->edge_capacity = cap;
        }
        const double *u = unit_xy + 2 * starts[e];
        double *p = c->edge_xy;
        double minx = INFINITY, maxx = -INFINITY, miny = INFINITY, maxy = -INFINITY;
        for (int32_t j = 0; j < m; j++) {
            double dx = u[2 * j] * world - tx, dy = u[2 * j + 1] * world - ty;
            double rx = dx * cb + dy * sb, ry = -dx * sb + dy * cb;
            double x, y;
            if (st == 0) {
                x = cx + rx;
                y = cy + ry;
            } else {
                double depth = eye - ry * st; /* ahead (up on the picture) is -ry */
                if (depth < near) {
                    p[2 * j] = NAN;
                    p[2 * j + 1] = NAN;
                    continue;
                }
                double k = eye / depth;
                x = cx + rx * k;
                y = cy + ry * ct * k;
            }
            p[2 * j] = x;
            p[2 * j + 1] = y;
            if (x < minx) minx = x;
            if (x > maxx) maxx = x;
            if (y < miny) miny = y;
            if (y > maxy) maxy = y;
        }
        if (maxx < lo_x || minx > hi_x || maxy < lo_y || miny > hi_y) { /* (also: all beyond the horizon) */
            chain = 0;
            continue;
        }
        /* Runs between horizon breaks; within a run, points within min_step of the last kept one wait as
         * `pending` and are drawn only if they end the run. */
        int open = 0, have_pending = 0;
        double lx = 0, ly = 0, px = 0, py = 0;
        for (int32_t j = 0; j <= m; j++) {
            int valid = j < m && !isnan(p[2 * j]);
            if (!valid) {
                if (open && have_pending) {
                    C->cairo_line_to(cr, px, py);
                    emitted++;
                    lx = px;
                    ly = py;
                }
                chain = open && j == m;
                ex = lx;
                ey = ly;
                open = have_pending = 0;
                continue;
            }
            double x = p[2 * j], y = p[2 * j + 1];
            if (!open) {
                if (!(chain_edges && chain && j == 0 && x == ex && y == ey)) {
                    C->cairo_move_to(cr, x, y);
                    emitted++;
                }
                lx = x;
                ly = y;
                open = 1;
                have_pending = 0;
                continue;
            }
            double ddx = x - lx, ddy = y - ly;
            if (ddx * ddx + ddy * ddy < step2) {
                px = x;
                py = y;
                have_pending = 1;
                continue;
            }
            C->cairo_line_to(cr, x, y);
            emitted++;
            lx = x;
            ly = y;
            have_pending = 0;
        }
    }
    return emitted;
}

size_t rsc_render_path_edges(rsc_canvas *c, const rsc_view_transform *t, const double *unit_xy,
                             const int64_t *starts, const int32_t *counts, const int32_t *edges, size_t n,
                             double min_step, double margin) {
    return rsc_path_polylines(c, t, unit_xy, starts, counts, edges, n, min_step, margin, 1);
}

size_t rsc_render_path_rings(rsc_canvas *c, const rsc_view_transform *t, const double *unit_xy,
                             const int64_t *starts, const int32_t *counts, const int32_t *rings, size_t n,
                             double min_step, double margin) {
    return rsc_path_polylines(c, t, unit_xy, starts, counts, rings, n, min_step, margin, 0);
}

void rsc_render_fill_path(rsc_canvas *c, uint32_t rgba) {
    if (!rsc_canvas_usable(c)) return;
    const rsc_cairo_api *C = c->C;
    C->cairo_set_fill_rule(c->cr, CAIRO_FILL_RULE_EVEN_ODD);
    rsc_set_colour(c, rgba);
    C->cairo_fill(c->cr);
    C->cairo_set_fill_rule(c->cr, CAIRO_FILL_RULE_WINDING);
}

void rsc_render_stroke_path(rsc_canvas *c, double width, uint32_t rgba, int style, const double *dash, int ndash,
                            int keep) {
    if (!rsc_canvas_usable(c)) return;
    const rsc_cairo_api *C = c->C;
    if (!(width > 0)) {
        if (!keep) C->cairo_new_path(c->cr);
        return;
    }
    rsc_set_line(c, width, style);
    C->cairo_set_dash(c->cr, (dash && ndash > 0) ? dash : NULL, (dash && ndash > 0) ? ndash : 0, 0);
    rsc_set_colour(c, rgba);
    if (style & RSC_LINE_FAST_AA) C->cairo_set_antialias(c->cr, CAIRO_ANTIALIAS_FAST);
    if (keep) C->cairo_stroke_preserve(c->cr);
    else C->cairo_stroke(c->cr);
    if (style & RSC_LINE_FAST_AA) C->cairo_set_antialias(c->cr, CAIRO_ANTIALIAS_DEFAULT);
    C->cairo_set_dash(c->cr, NULL, 0, 0);
}
