/* Pictures through the C API (issue 14): rs_render_rgba and rs_maneuver_icon_rgba into caller-owned buffers.
 * Usage: test_render REPO_DIR (reads Tests/c/Fixtures/two-roads.geojson: Main Street runs east-west at 47.57, and
 * the sample map Samples/bellevue-issue147.osm.gz for its buildings). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

static const uint8_t *pixel(const uint8_t *rgba, size_t stride, int x, int y) { return rgba + (size_t)y * stride + 4 * (size_t)x; }

/* Whether a pixel within 2 of (x, y) has the colour (each channel within 8). */
static int colour_near(const uint8_t *rgba, size_t stride, int x, int y, uint32_t rgb) {
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++) {
            const uint8_t *p = pixel(rgba, stride, x + dx, y + dy);
            if (abs(p[0] - (int)(rgb >> 16)) <= 8 && abs(p[1] - (int)((rgb >> 8) & 255)) <= 8 &&
                abs(p[2] - (int)(rgb & 255)) <= 8)
                return 1;
        }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: test_render REPO_DIR\n"); return 2; }
    char path[4096];
    snprintf(path, sizeof path, "%s/Tests/c/Fixtures/two-roads.geojson", argv[1]);
    rs_map *map = NULL;
    CHECK_STATUS(rs_map_open(path, &map), RS_OK);

    rs_render_options o;
    CHECK_STATUS(rs_render_options_init(&o), RS_OK);
    CHECK(o.size == sizeof o && o.width == 640 && o.zoom == 16);
    o.width = 200; o.height = 100; o.latitude = 47.57; o.longitude = -122.149; o.zoom = 17;
    size_t stride = 200 * 4 + 16; /* rows with padding: the stride is honoured */
    uint8_t *buf = malloc(stride * 100);
    CHECK(buf != NULL);
    if (!buf) return 1;
    CHECK_STATUS(rs_render_rgba(map, &o, buf, stride, stride * 100), RS_OK);
    /* Main Street through the middle row in the light style's residential white; the land colour above it (Side
     * Street runs north from the centre, x = 100). */
    const uint8_t *road = pixel(buf, stride, 60, 50), *land = pixel(buf, stride, 60, 10);
    CHECK(road[0] == 0xFF && road[1] == 0xFF && road[2] == 0xFF && road[3] == 0xFF);
    CHECK(land[0] == 0xF2 && land[1] == 0xEF && land[2] == 0xE9 && land[3] == 0xFF);

    /* Map type none with a background colour, no map handle: every pixel the background. */
    o.map_type = RS_MAP_TYPE_NONE; o.background_rgba = 0x204060FF;
    CHECK_STATUS(rs_render_rgba(NULL, &o, buf, stride, stride * 100), RS_OK);
    road = pixel(buf, stride, 100, 50);
    CHECK(road[0] == 0x20 && road[1] == 0x40 && road[2] == 0x60 && road[3] == 0xFF);

    /* Overlays through the appended fields: a route line across the middle (light route blue), a raw fix ~47 px
     * right and ~28 px up (red) and a marker pin ~47 px left and ~41 px down (its head ~17 px above, marker red). */
    double route[] = {47.57, -122.150, 47.57, -122.148};
    double fixes[] = {47.5702, -122.1485};
    double markers[] = {47.5697, -122.1495};
    o.route_latlon = route; o.route_count = 2;
    o.fix_latlon = fixes; o.fix_count = 1;
    o.marker_latlon = markers; o.marker_count = 1;
    CHECK_STATUS(rs_render_rgba(NULL, &o, buf, stride, stride * 100), RS_OK);
    CHECK(colour_near(buf, stride, 100, 50, 0x1A73E8));
    CHECK(colour_near(buf, stride, 147, 22, 0xD93A2B));
    CHECK(colour_near(buf, stride, 53, 74, 0xDB4437));
    CHECK(!colour_near(buf, stride, 100, 15, 0x1A73E8));
    /* A caller built before the overlay fields (smaller size) draws none of them. */
    o.size = (uint32_t)offsetof(rs_render_options, route_latlon);
    CHECK_STATUS(rs_render_rgba(NULL, &o, buf, stride, stride * 100), RS_OK);
    CHECK(!colour_near(buf, stride, 100, 50, 0x1A73E8));
    o.size = sizeof o;
    /* A count with a NULL array, a coordinate out of range. */
    o.fix_latlon = NULL;
    CHECK_STATUS(rs_render_rgba(NULL, &o, buf, stride, stride * 100), RS_E_NULL_ARGUMENT);
    CHECK(strstr(rs_last_error_message(), "fix_latlon") != NULL);
    fixes[0] = 95;
    o.fix_latlon = fixes;
    CHECK_STATUS(rs_render_rgba(NULL, &o, buf, stride, stride * 100), RS_E_INVALID_ARGUMENT);
    CHECK(strstr(rs_last_error_message(), "fix_latlon[0]") != NULL);
    o.route_count = o.fix_count = o.marker_count = 0;

    /* Bad input: clear statuses, nothing drawn outside the buffer. */
    CHECK_STATUS(rs_render_rgba(map, &o, buf, 100, stride * 100), RS_E_BUFFER_TOO_SMALL);
    CHECK_STATUS(rs_render_rgba(map, &o, buf, stride, stride * 99), RS_E_BUFFER_TOO_SMALL);
    CHECK_STATUS(rs_render_rgba(map, &o, NULL, stride, stride * 100), RS_E_NULL_ARGUMENT);
    o.zoom = NAN;
    CHECK_STATUS(rs_render_rgba(map, &o, buf, stride, stride * 100), RS_E_INVALID_ARGUMENT);
    CHECK(strstr(rs_last_error_message(), "zoom") != NULL);
    o.zoom = 17; o.width = 0;
    CHECK_STATUS(rs_render_rgba(map, &o, buf, stride, stride * 100), RS_E_INVALID_ARGUMENT);

    /* An OSM map draws its buildings under the roads: the sample's largest building (way 135361717, ~300 x 240 m)
     * fills most of a 200 x 100 view at zoom 17 in the light style's building colour; map type none draws none.
     * Drawn twice, so the second draw reuses the map's renderer. */
    rs_map *osm = NULL;
    snprintf(path, sizeof path, "%s/Samples/bellevue-issue147.osm.gz", argv[1]);
    CHECK_STATUS(rs_map_open(path, &osm), RS_OK);
    CHECK_STATUS(rs_render_options_init(&o), RS_OK);
    o.width = 200; o.height = 100; o.latitude = 47.5743; o.longitude = -122.17225; o.zoom = 17;
    for (int round = 0; round < 3; round++) {
        o.map_type = round < 2 ? RS_MAP_TYPE_NORMAL : RS_MAP_TYPE_NONE;
        CHECK_STATUS(rs_render_rgba(osm, &o, buf, stride, stride * 100), RS_OK);
        int building = 0;
        for (int y = 0; y < 100; y++)
            for (int x = 0; x < 200; x++) {
                const uint8_t *p = pixel(buf, stride, x, y);
                if (abs(p[0] - 0xD9) <= 4 && abs(p[1] - 0xD0) <= 4 && abs(p[2] - 0xC9) <= 4) building++;
            }
        if (round < 2) CHECK(building > 10000);
        else CHECK(building == 0);
    }
    CHECK_STATUS(rs_map_close(osm), RS_OK);
    free(buf);

    /* Icons: drawn, different for different maneuvers, unknown names refused. */
    rs_icon_options io;
    CHECK_STATUS(rs_icon_options_init(&io), RS_OK);
    io.pixels = 48;
    uint8_t left[48 * 48 * 4], right[48 * 48 * 4];
    CHECK_STATUS(rs_maneuver_icon_rgba("turnLeft", &io, left, 48 * 4, sizeof left), RS_OK);
    CHECK_STATUS(rs_maneuver_icon_rgba("turnRight", &io, right, 48 * 4, sizeof right), RS_OK);
    int drawn = 0, differ = 0;
    for (int i = 0; i < 48 * 48; i++) {
        if (left[4 * i + 3] > 128) drawn++;
        if ((left[4 * i + 3] > 128) != (right[4 * i + 3] > 128)) differ++;
    }
    CHECK(drawn > 100);
    CHECK(differ > 100);
    CHECK_STATUS(rs_maneuver_icon_rgba("turnSideways", &io, left, 48 * 4, sizeof left), RS_E_INVALID_ARGUMENT);
    CHECK_STATUS(rs_maneuver_icon_rgba("turnLeft", &io, left, 48 * 4, sizeof left - 1), RS_E_BUFFER_TOO_SMALL);
    io.pixels = 0;
    CHECK_STATUS(rs_maneuver_icon_rgba("turnLeft", &io, left, 48 * 4, sizeof left), RS_E_INVALID_ARGUMENT);

    CHECK_STATUS(rs_map_close(map), RS_OK);
    if (check_failures == 0) printf("test_render: all checks passed\n");
    return check_failures;
}
