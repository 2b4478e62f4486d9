/* Pictures through the C API (issue 14): rs_render_rgba and rs_maneuver_icon_rgba into caller-owned buffers.
 * Usage: test_render REPO_DIR (reads Tests/c/Fixtures/two-roads.geojson: Main Street runs east-west at 47.57). */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"

static const uint8_t *pixel(const uint8_t *rgba, size_t stride, int x, int y) { return rgba + (size_t)y * stride + 4 * (size_t)x; }

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

    /* Bad input: clear statuses, nothing drawn outside the buffer. */
    CHECK_STATUS(rs_render_rgba(map, &o, buf, 100, stride * 100), RS_E_BUFFER_TOO_SMALL);
    CHECK_STATUS(rs_render_rgba(map, &o, buf, stride, stride * 99), RS_E_BUFFER_TOO_SMALL);
    CHECK_STATUS(rs_render_rgba(map, &o, NULL, stride, stride * 100), RS_E_NULL_ARGUMENT);
    o.zoom = NAN;
    CHECK_STATUS(rs_render_rgba(map, &o, buf, stride, stride * 100), RS_E_INVALID_ARGUMENT);
    CHECK(strstr(rs_last_error_message(), "zoom") != NULL);
    o.zoom = 17; o.width = 0;
    CHECK_STATUS(rs_render_rgba(map, &o, buf, stride, stride * 100), RS_E_INVALID_ARGUMENT);
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
