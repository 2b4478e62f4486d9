/*
 * Drawing for the headless map view, the maneuver icons and the head-unit frames (issue 14): a canvas over cairo.
 *
 * cairo is not linked: it is loaded on first use (dlopen of libcairo.so.2, CShims/libs.c, like GEOS and PROJ), so
 * a program linking RoadSnap that never draws does not map cairo, fontconfig or freetype. rsc_render_canvas_create
 * fails with a message naming the library when it cannot be loaded (Debian: libcairo2; ROADSNAP_CAIRO_LIBRARY
 * names another file).
 *
 * Coordinates are in points, y down, (0,0) the top-left corner; the canvas is `width` x `height` points and
 * `width*scale` x `height*scale` pixels. Colours are 0xRRGGBBAA (not premultiplied). Drawing calls on a canvas in an
 * error state do nothing; the error is reported by the call producing the output. A canvas is not thread-safe
 * (one per thread); different canvases may be used on different threads.
 */
#ifndef ROADSNAP_CSHIMS_RENDER_H
#define ROADSNAP_CSHIMS_RENDER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rsc_canvas rsc_canvas;

/* Canvas kinds: a raster image (PNG or RGBA out) or a vector SVG document. */
#define RSC_CANVAS_RASTER 0
#define RSC_CANVAS_SVG 1

/* Line caps and joins (rsc_render_lines `style` bits): round caps and joins (else butt caps, miter joins). */
#define RSC_LINE_ROUND 1
/* Antialiasing with cairo's fast 4x4 coverage grid instead of the 256-level one (rsc_render_stroke_path `style`
 * bit): about twice as fast for the road layers, which are drawn many at a time. */
#define RSC_LINE_FAST_AA 2

/* Text alignment (rsc_render_text `align`). */
#define RSC_TEXT_LEFT 0
#define RSC_TEXT_CENTER 1
#define RSC_TEXT_RIGHT 2

/* Largest side accepted, in pixels (width*scale and height*scale). */
#define RSC_CANVAS_MAX_SIDE 16384

/* A new canvas filled with transparent black; NULL on failure (cairo missing, bad size: 1..16384 pixels a side,
 * scale finite in (0, 16]), the reason in err. Free with rsc_render_canvas_destroy. */
rsc_canvas *rsc_render_canvas_create(int kind, double width, double height, double scale, char *err, size_t errlen);
void rsc_render_canvas_destroy(rsc_canvas *canvas);

/* Fills the whole canvas with `rgba` (replacing what was drawn: also clears a reused raster canvas). */
void rsc_render_clear(rsc_canvas *canvas, uint32_t rgba);

/* Strokes `count` polylines in one pass: polyline i has counts[i] points, taken in order from xy (x0,y0,x1,y1,...).
 * `dash` (ndash lengths in points, NULL or 0 for solid). Polylines of fewer than 2 points are skipped. */
void rsc_render_lines(rsc_canvas *canvas, const double *xy, const int32_t *counts, size_t count, double width,
                      uint32_t rgba, int style, const double *dash, int ndash);

/* Fills (fill_rgba alpha > 0) and/or strokes (stroke_width > 0) one closed polygon of n points. */
void rsc_render_polygon(rsc_canvas *canvas, const double *xy, size_t n, uint32_t fill_rgba, double stroke_width,
                        uint32_t stroke_rgba);

/* Fills (fill_rgba alpha > 0) and/or strokes (stroke_width > 0) a full circle. */
void rsc_render_circle(rsc_canvas *canvas, double x, double y, double radius, uint32_t fill_rgba, double stroke_width,
                       uint32_t stroke_rgba);
/* Strokes an arc of a circle from angle a0 to a1 (radians, 0 = +x, increasing clockwise on screen). */
void rsc_render_arc(rsc_canvas *canvas, double x, double y, double radius, double a0, double a1, double width,
                    uint32_t rgba, int style);

/* Draws UTF-8 text with its baseline's anchor at (x, y) rotated by `angle` radians (clockwise), DejaVu Sans (bold
 * when `bold`), `size` points; a halo of `halo_width` points in halo_rgba drawn under it when halo_width > 0. */
void rsc_render_text(rsc_canvas *canvas, const char *utf8, double x, double y, double angle, double size, int bold,
                     int align, uint32_t rgba, double halo_width, uint32_t halo_rgba);
/* The advance width of `utf8` in points at `size` (0 on a canvas in an error state). */
double rsc_render_text_width(rsc_canvas *canvas, const char *utf8, double size, int bold);

/* The canvas as a PNG (raster) or as an SVG document (an SVG canvas, which is finished by this: draw nothing more).
 * On success *out is a malloc'd buffer of *len bytes the caller frees with free(); RSC_OK or a negative code with
 * the reason in err. */
int rsc_render_encode(rsc_canvas *canvas, unsigned char **out, size_t *len, char *err, size_t errlen);

/* Copies a raster canvas into `out` as straight (not premultiplied) RGBA, 4 bytes a pixel, rows `stride` bytes
 * apart (>= 4 * pixel width); `out` holds stride * pixel height bytes. RSC_OK or RSC_EINVAL. */
int rsc_render_copy_rgba(rsc_canvas *canvas, unsigned char *out, size_t stride);
/* A raster canvas (scale 1) holding a decoded PNG; NULL with the reason in err when it is not a readable PNG. */
rsc_canvas *rsc_render_canvas_from_png(const unsigned char *png, size_t len, char *err, size_t errlen);

/* The camera of a map view (RoadSnapCore's MapProjection): unit web-Mercator coordinates (0..1, y south) to points
 * on the picture. world = 256*2^zoom; (tx, ty) the target in world points; the bearing's cosine and sine; the tilt's
 * sine and cosine (sin_t 0: no perspective) with the eye at `eye` points; (cx, cy) the target's point. */
typedef struct rsc_view_transform {
    double world, tx, ty, cos_b, sin_b, sin_t, cos_t, eye, cx, cy;
} rsc_view_transform;

/* Replaces the canvas's current path with the polylines of `n` edges. Edge e = edges[i] has counts[e] shape points
 * at unit_xy[2*starts[e]] ... (x0,y0,x1,y1,... in unit web-Mercator), projected with `t`. A point closer than
 * `min_step` points to the last one kept is dropped (a polyline's last point is always kept); a polyline is broken
 * where it passes beyond a tilted camera's horizon; an edge whose projected points all lie more than `margin`
 * points outside the picture on one side is skipped. Returns the number of points put on the path (0 on a canvas
 * in an error state or out of memory). */
size_t rsc_render_path_edges(rsc_canvas *canvas, const rsc_view_transform *t, const double *unit_xy,
                             const int64_t *starts, const int32_t *counts, const int32_t *edges, size_t n,
                             double min_step, double margin);

/* As rsc_render_path_edges for the rings of areas (`rings` indices as `edges`): every ring its own subpath (no
 * joining of consecutive ones), for rsc_render_fill_path. */
size_t rsc_render_path_rings(rsc_canvas *canvas, const rsc_view_transform *t, const double *unit_xy,
                             const int64_t *starts, const int32_t *counts, const int32_t *rings, size_t n,
                             double min_step, double margin);

/* Fills the canvas's current path with the even-odd rule (inner rings make holes) and clears it. */
void rsc_render_fill_path(rsc_canvas *canvas, uint32_t rgba);

/* Strokes the canvas's current path (from rsc_render_path_edges), keeping it for another stroke when `keep`.
 * `style`: RSC_LINE_ROUND and/or RSC_LINE_FAST_AA bits; dash as in rsc_render_lines. */
void rsc_render_stroke_path(rsc_canvas *canvas, double width, uint32_t rgba, int style, const double *dash, int ndash,
                            int keep);

/* Pixel size of the canvas (width*scale and height*scale rounded). */
int rsc_render_pixel_width(const rsc_canvas *canvas);
int rsc_render_pixel_height(const rsc_canvas *canvas);

#ifdef __cplusplus
}
#endif
#endif
