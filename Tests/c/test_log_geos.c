/* GEOS messages reach the log hook: the handlers CShims attaches to every GEOS context it makes
 * (rsc_log_attach_geos, CShims/log.c) route GEOS errors and notices to the one hook that rs_set_log_handler sets
 * (rsc_set_log_hook). Nothing RoadSnap asks of GEOS makes it speak (an STRtree over rectangles), so this test makes
 * GEOS speak on a context set up exactly as CShims sets up its own: it is built from CShims' log.c and libs.c, loads
 * GEOS through the same table, and calls GEOS's WKT reader and validity check (linked directly: the same library). */
#include "check.h"
#include "cshims_log.h"
#include "cshims_log_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct seen {
    int errors, warnings, others;
    char last[512];
} seen;

static void hook(void *user, int32_t level, const char *source, const char *message) {
    seen *s = user;
    if (strcmp(source, "GEOS") != 0) { s->others++; return; }
    if (level == RSC_LOG_ERROR) s->errors++;
    else if (level == RSC_LOG_WARNING) s->warnings++;
    else s->others++;
    snprintf(s->last, sizeof s->last, "%s", message);
}

int main(void) {
    char err[256] = "";
    const rsc_geos_api *G = rsc_geos_load(err, sizeof err);
    if (!G) { fprintf(stderr, "cannot load GEOS: %s\n", err); return 1; }
    seen s = {0};
    rsc_set_log_hook(hook, &s, RSC_LOG_DEBUG);
    GEOSContextHandle_t ctx = G->GEOS_init_r();
    if (!ctx) { fprintf(stderr, "GEOS_init_r failed\n"); return 1; }
    char failure[RSC_FAILURE_LEN] = "";
    rsc_log_attach_geos(G, ctx, failure);

    /* An error: a cut-off WKT string. */
    GEOSGeometry *bad = GEOSGeomFromWKT_r(ctx, "LINESTRING (0 0, 1");
    CHECK(bad == NULL);
    CHECK(s.errors == 1);
    CHECK(strstr(s.last, "ParseException") != NULL || strstr(s.last, "Expected") != NULL);
    /* ... and the owner's failure buffer keeps it, to say what failed */
    CHECK(strstr(failure, "ParseException") != NULL || strstr(failure, "Expected") != NULL);

    /* A notice: a self-intersecting ring's validity check says where. */
    GEOSGeometry *bowtie = GEOSGeomFromWKT_r(ctx, "POLYGON ((0 0, 1 1, 1 0, 0 1, 0 0))");
    CHECK(bowtie != NULL);
    CHECK(GEOSisValid_r(ctx, bowtie) == 0);
    CHECK(s.warnings == 1);
    CHECK(strstr(s.last, "Self-intersection") != NULL);

    /* Levels are honoured: errors only. */
    rsc_set_log_hook(hook, &s, RSC_LOG_ERROR);
    CHECK(GEOSisValid_r(ctx, bowtie) == 0);
    CHECK(s.warnings == 1);

    /* No hook: nothing is delivered (and nothing printed). */
    rsc_set_log_hook(NULL, NULL, 0);
    CHECK(GEOSGeomFromWKT_r(ctx, "POINT (") == NULL);
    CHECK(s.errors == 1 && s.others == 0);

    G->GEOSGeom_destroy_r(ctx, bowtie);
    G->GEOS_finish_r(ctx);
    if (check_failures == 0) printf("test_log_geos: all checks passed (GEOS error and notice routed to the log hook)\n");
    return check_failures;
}
