/* C API of route choice (issue #15): alternatives with overlap and stretch limits, traffic-aware routing, and a
 * navigator guided along a chosen alternative, on the Bellevue sample (Samples/SOURCE.md). Run under valgrind by
 * `make capi-test`: every handle is closed, nothing leaks. Usage: test_route_choice REPO_ROOT */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

#define MAX_ROUTES 4

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s REPO_ROOT\n", argv[0]);
        return 2;
    }
    char map_path[4096];
    snprintf(map_path, sizeof map_path, "%s/Samples/bellevue-issue147.osm.gz", argv[1]);
    rs_map *map = NULL;
    CHECK_STATUS(rs_map_open(map_path, &map), RS_OK);
    rs_router *router = NULL;
    CHECK_STATUS(rs_router_create(map, &router), RS_OK);

    rs_waypoint ends[2] = {{47.5759, -122.1404, NAN, 0, 0}, {47.5700, -122.0990, NAN, 0, 0}};
    rs_route *routes[MAX_ROUTES];
    rs_route_choice_info infos[MAX_ROUTES];
    size_t found = 0;
    rs_route_status rst = RS_ROUTE_INTERNAL_ERROR;

    /* Argument checks. */
    rs_alternative_options alt = {0};
    alt.count = 3;
    CHECK_STATUS(rs_router_route_alternatives(router, ends, 2, NULL, &alt, NULL, infos, MAX_ROUTES, &found, &rst),
                 RS_E_NULL_ARGUMENT);
    CHECK_STATUS(rs_router_route_alternatives(router, ends, 2, NULL, &alt, routes, infos, 0, &found, &rst),
                 RS_E_INVALID_ARGUMENT);
    rs_alternative_options bad = alt;
    bad.max_overlap = 1.5;
    CHECK_STATUS(rs_router_route_alternatives(router, ends, 2, NULL, &bad, routes, infos, MAX_ROUTES, &found, &rst),
                 RS_E_INVALID_ARGUMENT);
    CHECK_MESSAGE("overlap");
    bad = alt;
    bad.count = -1;
    CHECK_STATUS(rs_router_route_alternatives(router, ends, 2, NULL, &bad, routes, infos, MAX_ROUTES, &found, &rst),
                 RS_E_INVALID_ARGUMENT);
    int64_t ways[3] = {654745473, 6494400, 577964016}; /* ways of the free-flow main route (roadsnap route --format json) */
    double negative[3] = {5, -5, 5};
    bad = alt;
    bad.traffic_way_ids = ways;
    bad.traffic_speeds_kmh = negative;
    bad.traffic_count = 3;
    CHECK_STATUS(rs_router_route_alternatives(router, ends, 2, NULL, &bad, routes, infos, MAX_ROUTES, &found, &rst),
                 RS_E_INVALID_ARGUMENT);
    rs_waypoint far[2] = {ends[0], {0, 0, NAN, 0, 0}};
    CHECK_STATUS(rs_router_route_alternatives(router, far, 2, NULL, &alt, routes, infos, MAX_ROUTES, &found, &rst),
                 RS_E_NO_ROUTE);
    CHECK(rst == RS_ROUTE_WAYPOINT_ERROR);
    CHECK(rs_open_handle_count() == 2);

    /* The main route equals rs_router_route's; alternatives respect the limits. */
    rs_route *plain = NULL;
    CHECK_STATUS(rs_router_route(router, ends, 2, NULL, &rst, &plain), RS_OK);
    rs_route_info plain_info;
    CHECK_STATUS(rs_route_get_info(plain, &plain_info), RS_OK);
    CHECK_STATUS(rs_router_route_alternatives(router, ends, 2, NULL, &alt, routes, infos, MAX_ROUTES, &found, &rst),
                 RS_OK);
    CHECK(rst == RS_ROUTE_OK);
    CHECK(found >= 2 && found <= 4);
    size_t written = found < MAX_ROUTES ? found : MAX_ROUTES;
    CHECK_NEAR(infos[0].distance, plain_info.distance, 1e-6);
    CHECK_NEAR(infos[0].duration, plain_info.duration, 1e-6);
    CHECK(infos[0].overlap == 1 && infos[0].stretch == 0);
    for (size_t i = 0; i < written; i++) {
        rs_route_info ri;
        CHECK_STATUS(rs_route_get_info(routes[i], &ri), RS_OK);
        CHECK_NEAR(ri.distance, infos[i].distance, 1e-6);
        CHECK_NEAR(infos[i].traffic_duration, infos[i].duration, 1e-6);
        if (i > 0) {
            CHECK(infos[i].overlap <= 0.8 + 1e-9);
            CHECK(infos[i].stretch > 0 && infos[i].stretch <= 0.35 + 1e-9);
            CHECK(infos[i].stretch >= infos[i - 1].stretch);
            CHECK(fabs(infos[i].distance - infos[0].distance) > 1);
        }
    }

    /* Room for one: only the main route is made, the count still says how many were found. */
    rs_route *one[1] = {NULL};
    size_t found_one = 0;
    CHECK_STATUS(rs_router_route_alternatives(router, ends, 2, NULL, &alt, one, NULL, 1, &found_one, NULL), RS_OK);
    CHECK(found_one == found && one[0] != NULL);
    CHECK_STATUS(rs_route_close(one[0]), RS_OK);

    /* Traffic: the main route's long ways at 5 km/h move the route off them; its traffic ETA stays below what the
     * free-flow route would take on them. */
    double slow[3] = {5, 5, 5};
    rs_alternative_options traffic = {0};
    traffic.traffic_way_ids = ways;
    traffic.traffic_speeds_kmh = slow;
    traffic.traffic_count = 3;
    rs_route *jammed[1] = {NULL};
    rs_route_choice_info jammed_info[1];
    CHECK_STATUS(rs_router_route_alternatives(router, ends, 2, NULL, &traffic, jammed, jammed_info, 1, &found_one, NULL),
                 RS_OK);
    CHECK(found_one == 1);
    CHECK(fabs(jammed_info[0].distance - infos[0].distance) > 10);
    CHECK(jammed_info[0].traffic_duration >= jammed_info[0].duration - 1e-9);
    /* 654745473 alone is 1243 m: at 5 km/h the free-flow route would take 895 s on it. */
    CHECK(jammed_info[0].traffic_duration < 895);

    /* A navigator guided along the second route. */
    rs_navigator_options nopts = {0};
    nopts.use_virtual_clock = 1;
    nopts.virtual_clock_start = 1232225125; /* 2009-01-17T20:45:25Z, the sample drive's start */
    rs_navigator *nav = NULL;
    CHECK_STATUS(rs_navigator_create(router, &nopts, NULL, &nav), RS_OK);
    CHECK_STATUS(rs_navigator_set_route(nav, NULL), RS_E_INVALID_HANDLE);
    CHECK_STATUS(rs_navigator_set_route(nav, routes[1]), RS_OK);
    rs_route *current = NULL;
    CHECK_STATUS(rs_navigator_get_route(nav, &current), RS_OK);
    rs_route_info ci;
    CHECK_STATUS(rs_route_get_info(current, &ci), RS_OK);
    CHECK_NEAR(ci.distance, infos[1].distance, 1e-6);
    CHECK_STATUS(rs_route_close(current), RS_OK);
    CHECK_STATUS(rs_navigator_set_guidance(nav, 1), RS_OK);
    CHECK_STATUS(rs_navigator_simulate_along_route(nav, 1), RS_OK);
    for (int s = 0; s < 60; s++) CHECK_STATUS(rs_navigator_advance_clock(nav, 1), RS_OK);
    rs_navigator_state st;
    CHECK_STATUS(rs_navigator_get_state(nav, &st), RS_OK);
    CHECK(st.nav_state == RS_NAV_STATE_ENROUTE);
    CHECK(st.distance_to_next_destination < infos[1].distance - 100);
    CHECK_STATUS(rs_navigator_destroy(nav), RS_OK);

    /* Traffic on the navigator: the main route's long ways jam 30 s into the drive; a faster route is offered
     * within the next minute and accepted. */
    CHECK_STATUS(rs_navigator_create(router, &nopts, NULL, &nav), RS_OK);
    rs_reroute_offer offer;
    CHECK_STATUS(rs_navigator_get_reroute_offer(nav, &offer), RS_E_NO_ROUTE);
    CHECK_STATUS(rs_navigator_accept_reroute_offer(nav), RS_E_NO_ROUTE);
    CHECK_STATUS(rs_navigator_set_traffic(nav, ways, negative, 3), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_navigator_set_route(nav, routes[0]), RS_OK);
    CHECK_STATUS(rs_navigator_set_guidance(nav, 1), RS_OK);
    CHECK_STATUS(rs_navigator_simulate_along_route(nav, 1), RS_OK);
    for (int s = 0; s < 30; s++) CHECK_STATUS(rs_navigator_advance_clock(nav, 1), RS_OK);
    CHECK_STATUS(rs_navigator_get_reroute_offer(nav, &offer), RS_E_NO_ROUTE);
    CHECK_STATUS(rs_navigator_set_traffic(nav, ways, slow, 3), RS_OK);
    int offered = 0;
    for (int s = 0; s < 90 && !offered; s++) {
        CHECK_STATUS(rs_navigator_advance_clock(nav, 1), RS_OK);
        offered = rs_navigator_get_reroute_offer(nav, &offer) == RS_OK;
    }
    CHECK(offered);
    CHECK(offer.offered_eta <= 0.9 * offer.current_eta);
    CHECK(offer.distance > 0);
    CHECK_STATUS(rs_navigator_accept_reroute_offer(nav), RS_OK);
    CHECK_STATUS(rs_navigator_get_reroute_offer(nav, &offer), RS_E_NO_ROUTE);
    CHECK_STATUS(rs_navigator_set_traffic(nav, NULL, NULL, 0), RS_OK);
    CHECK_STATUS(rs_navigator_destroy(nav), RS_OK);

    /* A route from another map is refused. */
    char small_path[4096];
    snprintf(small_path, sizeof small_path, "%s/Tests/RoadSnapCoreTests/Fixtures/osm/issue-70.osm.gz", argv[1]);
    rs_map *other = NULL;
    CHECK_STATUS(rs_map_open(small_path, &other), RS_OK);
    rs_router *other_router = NULL;
    CHECK_STATUS(rs_router_create(other, &other_router), RS_OK);
    rs_navigator *other_nav = NULL;
    CHECK_STATUS(rs_navigator_create(other_router, &nopts, NULL, &other_nav), RS_OK);
    CHECK_STATUS(rs_navigator_set_route(other_nav, routes[1]), RS_E_INVALID_ARGUMENT);
    CHECK_MESSAGE("not made on this map");
    CHECK_STATUS(rs_navigator_destroy(other_nav), RS_OK);
    CHECK_STATUS(rs_router_destroy(other_router), RS_OK);
    CHECK_STATUS(rs_map_close(other), RS_OK);

    CHECK_STATUS(rs_route_close(jammed[0]), RS_OK);
    for (size_t i = 0; i < written; i++) CHECK_STATUS(rs_route_close(routes[i]), RS_OK);
    CHECK_STATUS(rs_route_close(plain), RS_OK);
    CHECK_STATUS(rs_router_destroy(router), RS_OK);
    CHECK_STATUS(rs_map_close(map), RS_OK);
    CHECK(rs_open_handle_count() == 0);
    if (check_failures == 0) printf("test_route_choice: all checks passed\n");
    return check_failures == 0 ? 0 : 1;
}
