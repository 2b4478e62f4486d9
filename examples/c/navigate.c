/* Headless turn-by-turn guidance through libroadsnap's C API: a navigation session on a virtual clock drives a
 * simulated car from one place to another and prints the feed a head unit would show.
 *
 *   cc -std=c99 -O2 navigate.c -o navigate $(pkg-config --cflags --libs roadsnap)
 *   ./navigate ../../Samples/bellevue-issue147.osm.gz 47.5819,-122.1123 47.5779,-122.1712
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <roadsnap.h>

typedef struct {
    int arrived;
    char last_instruction[256];
    double clock;
} feed;

static void on_arrive(void *user, int64_t index, const rs_waypoint *w) {
    feed *f = user;
    f->arrived = 1;
    printf("[%6.0f s] arrived at destination %lld (%.5f,%.5f)\n", f->clock, (long long)index, w->latitude,
           w->longitude);
}

static void on_nav_info(void *user, const rs_nav_info *info) {
    feed *f = user;
    if (!info->has_current_step || strcmp(info->current_instruction, f->last_instruction) == 0) return;
    snprintf(f->last_instruction, sizeof f->last_instruction, "%s", info->current_instruction);
    printf("[%6.0f s] in %4.0f m: %s  (%.1f km, %.0f min to go)\n", f->clock, info->distance_to_current_step,
           info->current_instruction, info->distance_to_final_destination / 1000,
           info->time_to_final_destination / 60);
}

static void on_route(void *user) { printf("[%6.0f s] route changed\n", ((feed *)user)->clock); }

int main(int argc, char **argv) {
    double from_lat, from_lon, to_lat, to_lon;
    if (argc != 4 || sscanf(argv[2], "%lf,%lf", &from_lat, &from_lon) != 2 ||
        sscanf(argv[3], "%lf,%lf", &to_lat, &to_lon) != 2) {
        fprintf(stderr, "usage: %s MAP FROM_LAT,FROM_LON TO_LAT,TO_LON\n", argv[0]);
        return 2;
    }
    int rc = 1;
    rs_map *map = NULL;
    rs_router *router = NULL;
    rs_navigator *nav = NULL;
    feed f;
    memset(&f, 0, sizeof f);
    rs_navigator_listener listener;
    memset(&listener, 0, sizeof listener); /* callbacks left NULL are not called */
    listener.user_data = &f;
    listener.did_arrive_at_waypoint = on_arrive;
    listener.did_update_nav_info = on_nav_info;
    listener.did_change_route = on_route;
    rs_navigator_options options;
    memset(&options, 0, sizeof options);
    options.use_virtual_clock = 1;
    options.virtual_clock_start = 1232225125; /* 2009-01-17 20:45:25 UTC */

    rs_waypoint destination = {to_lat, to_lon, NAN, 0, 0};
    rs_route_status route_status;
    if (rs_map_open(argv[1], &map) != RS_OK || rs_router_create(map, &router) != RS_OK ||
        rs_navigator_create(router, &options, &listener, &nav) != RS_OK ||
        rs_navigator_simulate_at(nav, from_lat, from_lon) != RS_OK || rs_navigator_advance_clock(nav, 1) != RS_OK ||
        rs_navigator_set_destinations(nav, &destination, 1, NULL, &route_status) != RS_OK ||
        rs_navigator_set_guidance(nav, 1) != RS_OK || rs_navigator_simulate_along_route(nav, 1) != RS_OK) {
        fprintf(stderr, "%s\n", rs_last_error_message());
        goto done;
    }
    /* Each second of virtual time gives one simulated fix and the events it causes, on this thread. */
    while (!f.arrived && f.clock < 3 * 3600) {
        if (rs_navigator_advance_clock(nav, 1) != RS_OK) goto done;
        f.clock += 1;
    }
    rc = f.arrived ? 0 : 1;

done:
    rs_navigator_destroy(nav);
    rs_router_destroy(router);
    rs_map_close(map);
    return rc;
}
