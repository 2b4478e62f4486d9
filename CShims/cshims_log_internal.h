/* Inside CShims only: attach the log hook's handlers to a PROJ or GEOS context when it is made. */
#ifndef ROADSNAP_CSHIMS_LOG_INTERNAL_H
#define ROADSNAP_CSHIMS_LOG_INTERNAL_H
#include "cshims_libs_internal.h"

/* Routes the context's messages to rsc_log at the level set with rsc_set_log_hook (when the context is made). */
void rsc_log_attach_proj(const rsc_proj_api *api, PJ_CONTEXT *ctx);
void rsc_log_attach_geos(const rsc_geos_api *api, GEOSContextHandle_t ctx);
#endif
