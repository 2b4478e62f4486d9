/* The public structs' sizes as the library (built for x86_64, LP64) lays them out: `make cross-check` compiles this
 * file for aarch64 (and for the host) as C99 and as C++11, so a header change that would lay a struct out
 * differently on another 64-bit target fails to compile. Sizes were measured on x86_64 with sizeof. */
#include <stddef.h>

#include "roadsnap.h"

#define RS_LAYOUT(type, size) typedef char layout_of_##type[(sizeof(type) == (size)) ? 1 : -1]
RS_LAYOUT(rs_fix, 56);
RS_LAYOUT(rs_map_info, 56);
RS_LAYOUT(rs_edge_info, 80);
RS_LAYOUT(rs_track_info, 24);
RS_LAYOUT(rs_snap_result, 56);
RS_LAYOUT(rs_match_options, 40);
RS_LAYOUT(rs_matched_fix, 64);
RS_LAYOUT(rs_match_info, 32);
RS_LAYOUT(rs_sub_match_info, 64);
RS_LAYOUT(rs_waypoint, 32);
RS_LAYOUT(rs_route_options, 16);
RS_LAYOUT(rs_route_info, 32);
RS_LAYOUT(rs_route_leg_info, 64);
RS_LAYOUT(rs_lane, 8);
RS_LAYOUT(rs_route_step, 80);
RS_LAYOUT(rs_step_text, 4);
RS_LAYOUT(rs_road_snapped_location, 88);
RS_LAYOUT(rs_nav_info, 160);
RS_LAYOUT(rs_navigator_listener, 88);
RS_LAYOUT(rs_navigator_options, 40);
RS_LAYOUT(rs_navigator_state, 40);
RS_LAYOUT(rs_alternative_options, 48);
RS_LAYOUT(rs_route_choice_info, 40);
RS_LAYOUT(rs_reroute_offer, 32);
typedef char layout_of_handles[(sizeof(rs_map *) == sizeof(void *)) ? 1 : -1];

/* Something to compile besides the typedefs (ISO C forbids an empty translation unit). */
int roadsnap_abi_layout_checked(void);
int roadsnap_abi_layout_checked(void) { return ROADSNAP_ABI_VERSION; }
