/* Inside CShims only: attach the log hook's handlers to a PROJ or GEOS context when it is made. */
#ifndef ROADSNAP_CSHIMS_LOG_INTERNAL_H
#define ROADSNAP_CSHIMS_LOG_INTERNAL_H
#include "cshims_libs_internal.h"

/* Size of an owner's failure buffer (rsc_frame, rsc_index, rsc_query): the library's last error message. */
#define RSC_FAILURE_LEN 512

/* Routes the context's messages to rsc_log at the level set with rsc_set_log_hook (when the context is made), and
 * keeps the library's last error message in `failure` (RSC_FAILURE_LEN bytes owned by the context's owner, which
 * outlives the context; NULL keeps none), so the owner can say what failed. */
void rsc_log_attach_proj(const rsc_proj_api *api, PJ_CONTEXT *ctx, char *failure);
void rsc_log_attach_geos(const rsc_geos_api *api, GEOSContextHandle_t ctx, char *failure);
#endif
