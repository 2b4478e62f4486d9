/* Names the input of the crashing thread on standard error (see cshims_crash.h). */
#define _GNU_SOURCE
#include "include/cshims_crash.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const int rsc_crash_signals[] = {SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT};
#define RSC_CRASH_SIGNALS (sizeof rsc_crash_signals / sizeof rsc_crash_signals[0])

static struct sigaction rsc_crash_previous[RSC_CRASH_SIGNALS];
static char rsc_crash_prefix[256];
static volatile sig_atomic_t rsc_crash_installed;
static __thread char *rsc_crash_note;

static void rsc_crash_write(const char *s) {
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(2, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

static void rsc_crash_handler(int sig, siginfo_t *info, void *context) {
    (void)context;
    const char *note = rsc_crash_note;
    if (note) {
        rsc_crash_write(rsc_crash_prefix);
        rsc_crash_write(note);
        rsc_crash_write("\n");
    }
    for (size_t i = 0; i < RSC_CRASH_SIGNALS; i++) {
        if (rsc_crash_signals[i] == sig) {
            sigaction(sig, &rsc_crash_previous[i], NULL);
            break;
        }
    }
    /* A fault re-executes its instruction on return and reaches the restored handler; a sent or raised signal
     * (abort, raise, kill) and a trap (which resumes after the instruction) are raised again. */
    if (sig == SIGABRT || sig == SIGTRAP || info == NULL || info->si_code <= 0) raise(sig);
}

void rsc_crash_note_install(const char *prefix) {
    if (rsc_crash_installed) return;
    rsc_crash_installed = 1;
    size_t n = prefix ? strlen(prefix) : 0;
    if (n >= sizeof rsc_crash_prefix) n = sizeof rsc_crash_prefix - 1;
    if (n) memcpy(rsc_crash_prefix, prefix, n);
    rsc_crash_prefix[n] = 0;
    for (size_t i = 0; i < RSC_CRASH_SIGNALS; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_sigaction = rsc_crash_handler;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
        sigaction(rsc_crash_signals[i], &action, &rsc_crash_previous[i]);
    }
}

void rsc_crash_note_set(const char *text) {
    char *old = rsc_crash_note;
    rsc_crash_note = text ? strdup(text) : NULL;
    free(old);
}
