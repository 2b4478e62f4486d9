/* GEOS and PROJ loaded on first use: see cshims_libs_internal.h. */
#define _GNU_SOURCE /* secure_getenv */
#include "cshims.h"
#include "cshims_libs_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *soname, *env, *package;
    int loaded;
    char error[512];
} rsc_library;

/* Opens the library (the file the environment names, else the soname); on failure the reason into lib->error. */
static void *rsc_library_open(rsc_library *lib) {
    const char *name = secure_getenv(lib->env);
    if (!name || !*name) name = lib->soname;
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(lib->error, sizeof lib->error, "cannot load %s: %s (install %s, or set %s to the library's file)",
                 name, why ? why : "unknown error", lib->package, lib->env);
    }
    return handle;
}

static int rsc_library_symbol(rsc_library *lib, void *handle, const char *symbol, void **out) {
    dlerror();
    *out = dlsym(handle, symbol);
    if (*out) return 1;
    snprintf(lib->error, sizeof lib->error, "%s has no function %s (RoadSnap was built for %s)",
             secure_getenv(lib->env) ? secure_getenv(lib->env) : lib->soname, symbol, lib->soname);
    return 0;
}

/* A function pointer from dlsym's void pointer (POSIX guarantees the representation). */
#define RSC_LIBS_RESOLVE(name)                                                                                        \
    {                                                                                                                 \
        void *p = NULL;                                                                                               \
        if (!rsc_library_symbol(lib, handle, #name, &p)) return;                                                      \
        memcpy(&api->name, &p, sizeof p);                                                                             \
    }

static rsc_library proj_lib = {RSC_PROJ_SONAME, RSC_PROJ_LIBRARY_ENV, "PROJ's runtime library (Debian: libproj25)", 0, ""};
static rsc_proj_api proj_api;
static pthread_once_t proj_once = PTHREAD_ONCE_INIT;

static void rsc_proj_init(void) {
    rsc_library *lib = &proj_lib;
    rsc_proj_api *api = &proj_api;
    void *handle = rsc_library_open(lib);
    if (!handle) return;
    RSC_PROJ_FUNCTIONS(RSC_LIBS_RESOLVE)
    lib->loaded = 1; /* published by pthread_once */
}

static rsc_library geos_lib = {RSC_GEOS_SONAME, RSC_GEOS_LIBRARY_ENV, "GEOS's C library (Debian: libgeos-c1v5)", 0, ""};
static rsc_geos_api geos_api;
static pthread_once_t geos_once = PTHREAD_ONCE_INIT;

static void rsc_geos_init(void) {
    rsc_library *lib = &geos_lib;
    rsc_geos_api *api = &geos_api;
    void *handle = rsc_library_open(lib);
    if (!handle) return;
    RSC_GEOS_FUNCTIONS(RSC_LIBS_RESOLVE)
    lib->loaded = 1;
}

static rsc_library cairo_lib = {RSC_CAIRO_SONAME, RSC_CAIRO_LIBRARY_ENV, "cairo (Debian: libcairo2)", 0, ""};
static rsc_cairo_api cairo_api;
static pthread_once_t cairo_once = PTHREAD_ONCE_INIT;

static void rsc_cairo_init(void) {
    rsc_library *lib = &cairo_lib;
    rsc_cairo_api *api = &cairo_api;
    void *handle = rsc_library_open(lib);
    if (!handle) return;
    RSC_CAIRO_FUNCTIONS(RSC_LIBS_RESOLVE)
    lib->loaded = 1;
}

/* A library whose function is missing stays open (never closed: its code may be in use by a host too). */
static void rsc_library_error(const rsc_library *lib, char *err, size_t errlen) {
    if (err && errlen > 0) snprintf(err, errlen, "%s", lib->error);
}

const rsc_proj_api *rsc_proj_load(char *err, size_t errlen) {
    pthread_once(&proj_once, rsc_proj_init);
    if (proj_lib.loaded) return &proj_api;
    rsc_library_error(&proj_lib, err, errlen);
    return NULL;
}

const rsc_geos_api *rsc_geos_load(char *err, size_t errlen) {
    pthread_once(&geos_once, rsc_geos_init);
    if (geos_lib.loaded) return &geos_api;
    rsc_library_error(&geos_lib, err, errlen);
    return NULL;
}

const rsc_cairo_api *rsc_cairo_load(char *err, size_t errlen) {
    pthread_once(&cairo_once, rsc_cairo_init);
    if (cairo_lib.loaded) return &cairo_api;
    rsc_library_error(&cairo_lib, err, errlen);
    return NULL;
}
