/*
 * Water and buildings of an OSM file (issue 14): closed ways and multipolygon relations assembled into areas by
 * libosmium's area assembler, kept apart from the road network (a map's area layer, drawn under the roads).
 * Kept: natural=water, waterway=riverbank, landuse=reservoir, landuse=basin (water) and building=* except
 * building=no (buildings). Each area is one or more rings (outer and inner, filled together with the even-odd rule).
 */
#ifndef ROADSNAP_CSHIMS_AREAS_H
#define ROADSNAP_CSHIMS_AREAS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rsc_areas rsc_areas;

#define RSC_AREA_WATER 1
#define RSC_AREA_BUILDING 2

/* Reads the areas of an OSM file (PBF, XML, compressed XML); RSC_OK with *out (free with rsc_areas_destroy; a file
 * without areas gives an empty set) or a negative code with the reason in err. Areas whose rings cannot be
 * assembled (broken multipolygons, missing nodes) are left out. */
int rsc_areas_read(const char *path, rsc_areas **out, char *err, size_t errlen);
void rsc_areas_destroy(rsc_areas *areas);

/* Areas: area i has kind kinds[i] (RSC_AREA_*) and rings ring_firsts[i] .. ring_firsts[i+1]-1 (ring_firsts has
 * area_count + 1 entries). Ring r has points point_firsts[r] .. point_firsts[r+1]-1 (point_firsts has ring_count + 1
 * entries) in lats/lons (degrees). Pointers valid until rsc_areas_destroy; NULL for a NULL set. */
size_t rsc_areas_count(const rsc_areas *areas);
size_t rsc_areas_ring_count(const rsc_areas *areas);
size_t rsc_areas_point_count(const rsc_areas *areas);
const uint8_t *rsc_areas_kinds(const rsc_areas *areas);
const int64_t *rsc_areas_ring_firsts(const rsc_areas *areas);
const int64_t *rsc_areas_point_firsts(const rsc_areas *areas);
const double *rsc_areas_lats(const rsc_areas *areas);
const double *rsc_areas_lons(const rsc_areas *areas);

#ifdef __cplusplus
}
#endif
#endif
