/* Reads the `time,lat,lon` CSV of Samples/newson-krumm-bellevue.csv into rs_fix values (time as ISO 8601 UTC). */
#ifndef RS_TEST_TRACK_H
#define RS_TEST_TRACK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "roadsnap.h"

/* Reads up to `capacity` fixes; returns the count, or -1 when the file cannot be opened. */
static long read_sample_track(const char *path, rs_fix *fixes, long capacity) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    long n = 0;
    if (!fgets(line, sizeof line, f)) { fclose(f); return 0; } /* header */
    while (n < capacity && fgets(line, sizeof line, f)) {
        struct tm tm;
        memset(&tm, 0, sizeof tm);
        double lat, lon;
        if (sscanf(line, "%d-%d-%dT%d:%d:%dZ,%lf,%lf", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                   &tm.tm_min, &tm.tm_sec, &lat, &lon) != 8)
            continue;
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        fixes[n] = rs_fix_make(lat, lon);
        fixes[n].time = (double)timegm(&tm);
        n++;
    }
    fclose(f);
    return n;
}
#endif
