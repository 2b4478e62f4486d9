// Water and buildings of an OSM file through libosmium's multipolygon manager and area assembler
// (cshims_areas.h). Every exception is caught here.
#include "cshims.h"
#include "cshims_areas.h"
#include "cshims_osmium_internal.h"

#include <osmium/area/assembler.hpp>
#include <osmium/area/multipolygon_manager.hpp>
#include <osmium/handler/node_locations_for_ways.hpp>
#include <osmium/index/map/flex_mem.hpp>
#include <osmium/io/any_input.hpp>
#include <osmium/osm/area.hpp>
#include <osmium/tags/tags_filter.hpp>
#include <osmium/thread/pool.hpp>
#include <osmium/visitor.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

struct rsc_areas {
    std::vector<uint8_t> kinds;
    std::vector<int64_t> ring_firsts{0};
    std::vector<int64_t> point_firsts{0};
    std::vector<double> lats, lons;
};

namespace {

void areas_err(char *err, size_t errlen, const std::string &msg) {
    if (err && errlen) std::snprintf(err, errlen, "%s", msg.c_str());
}

uint8_t area_kind(const osmium::TagList &tags) {
    const char *natural = tags["natural"], *waterway = tags["waterway"], *landuse = tags["landuse"];
    if ((natural && std::strcmp(natural, "water") == 0) || (waterway && std::strcmp(waterway, "riverbank") == 0) ||
        (landuse && (std::strcmp(landuse, "reservoir") == 0 || std::strcmp(landuse, "basin") == 0)))
        return RSC_AREA_WATER;
    const char *building = tags["building"];
    if (building && std::strcmp(building, "no") != 0) return RSC_AREA_BUILDING;
    return 0;
}

template <typename Ring> void add_ring(rsc_areas &a, const Ring &ring) {
    for (const auto &nr : ring) {
        if (!nr.location().valid()) continue;
        a.lats.push_back(nr.location().lat());
        a.lons.push_back(nr.location().lon());
    }
    a.point_firsts.push_back(static_cast<int64_t>(a.lats.size()));
}

void add_area(rsc_areas &a, const osmium::Area &area) {
    uint8_t kind = area_kind(area.tags());
    if (!kind) return;
    for (const auto &outer : area.outer_rings()) {
        add_ring(a, outer);
        for (const auto &inner : area.inner_rings(outer)) add_ring(a, inner);
    }
    a.kinds.push_back(kind);
    a.ring_firsts.push_back(static_cast<int64_t>(a.point_firsts.size() - 1));
}

int read_areas(const char *path, rsc_areas &a, char *err, size_t errlen) {
    std::FILE *probe = std::fopen(path, "rb");
    if (!probe) {
        areas_err(err, errlen, std::string("cannot open map file: ") + std::strerror(errno));
        return RSC_EIO;
    }
    std::fclose(probe);
    osmium::io::File file{path};
    int rc = rsc_osmium_before_read(path, file, err, errlen);
    if (rc != RSC_OK) return rc;
    osmium::thread::Pool pool{};
    osmium::TagsFilter filter{false};
    filter.add_rule(true, "building");
    filter.add_rule(true, "natural", "water");
    filter.add_rule(true, "waterway", "riverbank");
    filter.add_rule(true, "landuse", "reservoir");
    filter.add_rule(true, "landuse", "basin");
    osmium::area::Assembler::config_type config;
    osmium::area::MultipolygonManager<osmium::area::Assembler> manager{config, filter};
    {
        osmium::io::Reader relations{file, osmium::osm_entity_bits::relation, pool};
        osmium::apply(relations, manager);
        relations.close();
        manager.prepare_for_lookup();
    }
    using Index = osmium::index::map::FlexMem<osmium::unsigned_object_id_type, osmium::Location>;
    Index index;
    osmium::handler::NodeLocationsForWays<Index> locations{index};
    locations.ignore_errors();
    struct Collect : osmium::handler::Handler {
        rsc_areas &a;
        explicit Collect(rsc_areas &areas) : a(areas) {}
        void area(const osmium::Area &area) { add_area(a, area); }
    } collect{a};
    osmium::io::Reader reader{file, pool};
    osmium::apply(reader, locations, manager.handler([&collect](osmium::memory::Buffer &&buffer) {
        osmium::apply(buffer, collect);
    }));
    reader.close();
    return RSC_OK;
}

}  // namespace

extern "C" int rsc_areas_read(const char *path, rsc_areas **out, char *err, size_t errlen) {
    if (err && errlen) err[0] = 0;
    if (!path || !out) return RSC_EINVAL;
    *out = nullptr;
    rsc_areas *a = new (std::nothrow) rsc_areas();
    if (!a) {
        areas_err(err, errlen, "out of memory");
        return RSC_ENOMEM;
    }
    int rc;
    try {
        rc = read_areas(path, *a, err, errlen);
    } catch (const std::bad_alloc &) {
        areas_err(err, errlen, "out of memory reading areas");
        rc = RSC_ENOMEM;
    } catch (const std::exception &e) {
        areas_err(err, errlen, std::string("reading areas: ") + e.what());
        rc = RSC_EFORMAT;
    } catch (...) {
        areas_err(err, errlen, "reading areas: unknown error");
        rc = RSC_EFORMAT;
    }
    if (rc != RSC_OK) {
        delete a;
        return rc;
    }
    *out = a;
    return RSC_OK;
}

extern "C" void rsc_areas_destroy(rsc_areas *a) { delete a; }
extern "C" size_t rsc_areas_count(const rsc_areas *a) { return a ? a->kinds.size() : 0; }
extern "C" size_t rsc_areas_ring_count(const rsc_areas *a) { return a ? a->point_firsts.size() - 1 : 0; }
extern "C" size_t rsc_areas_point_count(const rsc_areas *a) { return a ? a->lats.size() : 0; }
extern "C" const uint8_t *rsc_areas_kinds(const rsc_areas *a) { return a ? a->kinds.data() : nullptr; }
extern "C" const int64_t *rsc_areas_ring_firsts(const rsc_areas *a) { return a ? a->ring_firsts.data() : nullptr; }
extern "C" const int64_t *rsc_areas_point_firsts(const rsc_areas *a) { return a ? a->point_firsts.data() : nullptr; }
extern "C" const double *rsc_areas_lats(const rsc_areas *a) { return a ? a->lats.data() : nullptr; }
extern "C" const double *rsc_areas_lons(const rsc_areas *a) { return a ? a->lons.data() : nullptr; }
