/* Inside CShims only: GEOS and PROJ are not linked but loaded on first use (dlopen by their versioned soname), so a
 * program linking libroadsnap does not map them, and the libraries Debian's PROJ pulls in (curl, TLS, TIFF, SQLite,
 * ...), when it starts. Every GEOS and PROJ function CShims calls goes through the tables below, resolved once. */
#ifndef ROADSNAP_CSHIMS_LIBS_INTERNAL_H
#define ROADSNAP_CSHIMS_LIBS_INTERNAL_H
#ifndef GEOS_USE_ONLY_R_API
#define GEOS_USE_ONLY_R_API
#endif
#include <geodesic.h>
#include <geos_c.h>
#include <proj.h>
#include <stddef.h>
#include <cairo/cairo.h>
#include <cairo/cairo-svg.h>

/* The sonames, chosen at build time from the installed headers (the ABI the code is compiled against). A build
 * against another PROJ or GEOS may name its soname with -DRSC_PROJ_SONAME=... / -DRSC_GEOS_SONAME=...;
 * Tests/c/check-self-contained.sh checks the choice against the soname of the installed library. */
#define RSC_STR_(x) #x
#define RSC_STR(x) RSC_STR_(x)
#ifndef RSC_PROJ_SONAME
#if PROJ_VERSION_MAJOR == 9
#define RSC_PROJ_SONAME "libproj.so.25" /* every PROJ 9.x release */
#elif PROJ_VERSION_MAJOR == 8
#define RSC_PROJ_SONAME "libproj.so.22"
#else
#error "unknown soname for this PROJ version: build with -DRSC_PROJ_SONAME=\"libproj.so.N\""
#endif
#endif
#ifndef RSC_GEOS_SONAME
#define RSC_GEOS_SONAME "libgeos_c.so." RSC_STR(GEOS_CAPI_VERSION_MAJOR)
#endif

/* Environment variables naming another file (or soname) to load instead; documented in roadsnap.h. */
#define RSC_PROJ_LIBRARY_ENV "ROADSNAP_PROJ_LIBRARY"
#define RSC_GEOS_LIBRARY_ENV "ROADSNAP_GEOS_LIBRARY"
/* cairo (drawing, issue 14): every cairo 1.x is libcairo.so.2. */
#ifndef RSC_CAIRO_SONAME
#define RSC_CAIRO_SONAME "libcairo.so.2"
#endif
#define RSC_CAIRO_LIBRARY_ENV "ROADSNAP_CAIRO_LIBRARY"

#define RSC_PROJ_FUNCTIONS(X)                                                                                         \
    X(proj_context_create) X(proj_context_destroy) X(proj_context_errno) X(proj_context_errno_string)               \
    X(proj_create) X(proj_clone) X(proj_destroy) X(proj_errno) X(proj_errno_reset) X(proj_trans)                    \
    X(proj_log_func) X(proj_log_level) X(geod_init) X(geod_inverse) X(geod_direct)

#define RSC_GEOS_FUNCTIONS(X)                                                                                         \
    X(GEOS_init_r) X(GEOS_finish_r) X(GEOSContext_setErrorMessageHandler_r)                                          \
    X(GEOSContext_setNoticeMessageHandler_r) X(GEOSGeom_createRectangle_r) X(GEOSGeom_destroy_r)                     \
    X(GEOSSTRtree_create_r) X(GEOSSTRtree_insert_r) X(GEOSSTRtree_query_r) X(GEOSSTRtree_destroy_r)

#define RSC_CAIRO_FUNCTIONS(X)                                                                                        \
    X(cairo_image_surface_create) X(cairo_svg_surface_create_for_stream) X(cairo_surface_destroy)                    \
    X(cairo_surface_status) X(cairo_surface_flush) X(cairo_surface_finish) X(cairo_surface_write_to_png_stream)      \
    X(cairo_image_surface_get_data) X(cairo_image_surface_get_stride) X(cairo_create) X(cairo_destroy)               \
    X(cairo_status) X(cairo_status_to_string) X(cairo_scale) X(cairo_save) X(cairo_restore) X(cairo_translate)        \
    X(cairo_rotate) X(cairo_set_source_rgba) X(cairo_set_operator) X(cairo_paint) X(cairo_move_to) X(cairo_line_to)   \
    X(cairo_close_path) X(cairo_new_path) X(cairo_arc) X(cairo_stroke) X(cairo_fill) X(cairo_fill_preserve)          \
    X(cairo_stroke_preserve) X(cairo_set_line_width) X(cairo_set_line_cap) X(cairo_set_line_join) X(cairo_set_dash)   \
    X(cairo_select_font_face) X(cairo_set_font_size) X(cairo_text_extents) X(cairo_show_text) X(cairo_text_path)    \
    X(cairo_image_surface_create_from_png_stream) X(cairo_image_surface_get_width) X(cairo_image_surface_get_height)  \
    X(cairo_set_antialias) X(cairo_set_fill_rule)

/* One pointer per function, named as the function and of its type (from the library's own header). */
#define RSC_LIBS_FIELD(name) __typeof__(name) *name;
typedef struct rsc_proj_api { RSC_PROJ_FUNCTIONS(RSC_LIBS_FIELD) } rsc_proj_api;
typedef struct rsc_geos_api { RSC_GEOS_FUNCTIONS(RSC_LIBS_FIELD) } rsc_geos_api;
typedef struct rsc_cairo_api { RSC_CAIRO_FUNCTIONS(RSC_LIBS_FIELD) } rsc_cairo_api;
#undef RSC_LIBS_FIELD

/* The table, loading the library on the first call (once per process, thread-safe). On failure (library missing,
 * a function missing) NULL, and the reason naming the library is written into err (if not NULL); a failure is
 * final for the process. */
const rsc_proj_api *rsc_proj_load(char *err, size_t errlen);
const rsc_geos_api *rsc_geos_load(char *err, size_t errlen);
const rsc_cairo_api *rsc_cairo_load(char *err, size_t errlen);
#endif
