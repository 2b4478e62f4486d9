/* The one log hook (cshims_log.h) and the PROJ and GEOS message handlers that feed it. */
#include "cshims_log.h"
#include "cshims_log_internal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t hook_lock = PTHREAD_MUTEX_INITIALIZER;
static rsc_log_fn hook_fn = NULL;
static void *hook_user = NULL;
static int32_t hook_level = 0;

void rsc_set_log_hook(rsc_log_fn fn, void *user_data, int32_t max_level) {
    pthread_mutex_lock(&hook_lock);
    hook_fn = fn;
    hook_user = fn ? user_data : NULL;
    hook_level = fn ? max_level : 0;
    pthread_mutex_unlock(&hook_lock);
}

int32_t rsc_log_max_level(void) {
    pthread_mutex_lock(&hook_lock);
    int32_t level = hook_level;
    pthread_mutex_unlock(&hook_lock);
    return level;
}

void rsc_log(int32_t level, const char *source, const char *message) {
    pthread_mutex_lock(&hook_lock);
    rsc_log_fn fn = hook_fn;
    void *user = hook_user;
    int32_t max = hook_level;
    pthread_mutex_unlock(&hook_lock);
    if (!fn || level > max || !message) return;
    /* Without the trailing newline some libraries add. */
    char text[1024];
    size_t n = strlen(message);
    if (n >= sizeof text) n = sizeof text - 1;
    memcpy(text, message, n);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r')) n--;
    text[n] = '\0';
    fn(user, level, source ? source : "", text);
}

/* Keeps a library's error message in its owner's failure buffer (RSC_FAILURE_LEN bytes), without a newline. */
static void rsc_keep(char *buffer, const char *message) {
    if (!buffer || !message) return;
    snprintf(buffer, RSC_FAILURE_LEN, "%s", message);
    size_t n = strlen(buffer);
    while (n > 0 && (buffer[n - 1] == '\n' || buffer[n - 1] == '\r')) buffer[--n] = '\0';
}

/* PROJ: PJ_LOG_ERROR 1, PJ_LOG_DEBUG 2, PJ_LOG_TRACE 3. */
static void rsc_proj_log(void *user, int level, const char *message) {
    if (level <= 1) rsc_keep(user, message);
    rsc_log(level <= 1 ? RSC_LOG_ERROR : RSC_LOG_DEBUG, "PROJ", message);
}

void rsc_log_attach_proj(const rsc_proj_api *api, PJ_CONTEXT *ctx, char *failure) {
    int32_t max = rsc_log_max_level();
    api->proj_log_func(ctx, failure, rsc_proj_log);
    /* PROJ's trace level is too chatty even for debugging RoadSnap; its debug level says which files it opens.
     * Errors are always asked for: they are kept in `failure` (rsc_log drops them when the hook does not want them). */
    api->proj_log_level(ctx, max >= RSC_LOG_DEBUG ? PJ_LOG_DEBUG : PJ_LOG_ERROR);
}

static void rsc_geos_error(const char *message, void *user) {
    rsc_keep(user, message);
    rsc_log(RSC_LOG_ERROR, "GEOS", message);
}

static void rsc_geos_notice(const char *message, void *user) {
    (void)user;
    rsc_log(RSC_LOG_WARNING, "GEOS", message);
}

void rsc_log_attach_geos(const rsc_geos_api *api, GEOSContextHandle_t ctx, char *failure) {
    api->GEOSContext_setErrorMessageHandler_r(ctx, rsc_geos_error, failure);
    api->GEOSContext_setNoticeMessageHandler_r(ctx, rsc_geos_notice, NULL);
}
