/*
 * One log hook for the messages of the C libraries under RoadSnap (PROJ, GEOS, libosmium), so that a host decides
 * where they go (rs_set_log_handler) instead of them reaching stderr or being lost.
 */
#ifndef ROADSNAP_CSHIMS_LOG_H
#define ROADSNAP_CSHIMS_LOG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Levels, most severe first (the values of rs_log_level in roadsnap.h). */
#define RSC_LOG_ERROR 1
#define RSC_LOG_WARNING 2
#define RSC_LOG_INFO 3
#define RSC_LOG_DEBUG 4

/* Receives one message: its level, where it comes from ("PROJ", "GEOS", "libosmium", "RoadSnap") and the text (without
 * a trailing newline). Both strings are valid during the call only. Called on the thread that logged. */
typedef void (*rsc_log_fn)(void *user_data, int32_t level, const char *source, const char *message);

/* Sets the hook (NULL: messages are dropped, the default) and the most detailed level delivered (messages above
 * `max_level` are not even produced: PROJ's debug output costs time). Thread-safe; a message being delivered
 * on another thread may still reach the previous hook. */
void rsc_set_log_hook(rsc_log_fn fn, void *user_data, int32_t max_level);
/* The most detailed level currently delivered (0 when no hook is set). Thread-safe. */
int32_t rsc_log_max_level(void);
/* Delivers a message to the hook, when one is set and `level` <= the maximum level. Thread-safe. */
void rsc_log(int32_t level, const char *source, const char *message);

#ifdef __cplusplus
}
#endif
#endif
