/*
 * RoadSnap C shim: naming the input a thread was working on when the process crashes (a Swift runtime trap, a
 * segfault), so a batch that dies says which file killed it. Included from cshims.h; rsc_ prefix.
 *
 * rsc_crash_note_install(prefix) installs handlers for SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE and SIGABRT that
 * write "<prefix><note of the crashing thread>\n" to standard error, restore the handler that was there before
 * (the Swift runtime's backtracer, or the default) and let it handle the signal: the process still dies with the
 * same signal. Call once, early, from one thread; later calls do nothing.
 * rsc_crash_note_set(text) sets the calling thread's note to a copy of `text` (NULL clears it). Not for signal
 * handlers. Never fails: when the copy cannot be allocated the note is cleared.
 */
#ifndef ROADSNAP_CSHIMS_CRASH_H
#define ROADSNAP_CSHIMS_CRASH_H

#ifdef __cplusplus
extern "C" {
#endif

void rsc_crash_note_install(const char *prefix);
void rsc_crash_note_set(const char *text);

#ifdef __cplusplus
}
#endif

#endif
