/* Inside CShims only: attach the log hook's handlers to a PROJ or GEOS context when it is made. */
#ifndef ROADSNAP_CSHIMS_LOG_INTERNAL_H
#define ROADSNAP_CSHIMS_LOG_INTERNAL_H
#ifndef GEOS_USE_ONLY_R_API
#define GEOS_USE_ONLY_R_API
#endif
#include <geos_c.h>
#include <proj.h>

/* Routes the context's messages to rsc_log at the level set with rsc_set_log_hook (when the context is made). */
void rsc_log_attach_proj(PJ_CONTEXT *ctx);
void rsc_log_attach_geos(GEOSContextHandle_t ctx);
#endif
