// OSM reading through libosmium, behind the C functions of cshims.h. Every exception is caught here.
#include "cshims.h"

#include <osmium/io/any_input.hpp>
#include <osmium/osm/node.hpp>
#include <osmium/osm/relation.hpp>
#include <osmium/osm/way.hpp>
#include <osmium/thread/pool.hpp>

#include <algorithm>
#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

namespace {

// Way tags RoadSnap interprets; everything else is dropped at read time.
const char *const kKeptKeys[] = {
    "highway", "oneway", "oneway:motorcar", "oneway:motor_vehicle", "junction", "maxspeed", "maxspeed:forward",
    "maxspeed:backward", "maxspeed:type", "source:maxspeed", "zone:maxspeed", "name", "ref", "lanes", "lanes:forward",
    "lanes:backward", "turn:lanes", "turn:lanes:forward", "turn:lanes:backward", "toll", "access", "vehicle",
    "motor_vehicle", "motorcar", "route", "area", "service", "destination", "destination:ref", "duration",
    "railway", "motorroad", "name:en", "construction"};

bool kept_key(const char *key) {
    for (const char *k : kKeptKeys) {
        if (std::strcmp(k, key) == 0) return true;
    }
    return false;
}

void set_err(char *err, size_t errlen, const std::string &msg) {
    if (err && errlen) std::snprintf(err, errlen, "%s", msg.c_str());
}

// A libosmium failure: to the log hook (as libosmium's own message) and into the caller's error text.
void osmium_failed(char *err, size_t errlen, const std::string &what, const std::string &msg) {
    rsc_log(RSC_LOG_ERROR, "libosmium", what.c_str());
    set_err(err, errlen, msg);
}

}  // namespace

struct rsc_osm {
    std::vector<int64_t> node_ids;
    std::vector<double> lats, lons;
    std::vector<std::size_t> exit_offsets;  // per node, arena offset of its junction ref, or SIZE_MAX
    std::vector<const char *> exit_refs;
    std::vector<int64_t> way_ids;
    std::vector<size_t> ref_starts, tag_starts;
    std::vector<int32_t> refs;
    std::vector<std::size_t> key_offsets, value_offsets;  // into arena while reading
    std::vector<char> arena;
    std::vector<const char *> keys, values;
    std::vector<rsc_osm_restriction> restrictions;
    std::vector<std::size_t> restriction_offsets;
};

namespace {

std::size_t intern(rsc_osm &o, const char *s) {
    std::size_t off = o.arena.size();
    o.arena.insert(o.arena.end(), s, s + std::strlen(s) + 1);
    return off;
}

int read_osm(const char *path, rsc_osm &o, char *err, size_t errlen) {
    std::FILE *probe = std::fopen(path, "rb");
    if (!probe) {
        set_err(err, errlen, std::string("cannot open map file: ") + std::strerror(errno));
        return RSC_EIO;
    }
    std::fclose(probe);
    osmium::io::File file{path};
    // A pool of our own instead of libosmium's process-wide default one, whose threads would live until exit:
    // these end when this function returns.
    osmium::thread::Pool pool{};
    std::vector<int64_t> way_node_ids;  // per kept way's refs, as OSM ids
    // Pass 1: ways and relations.
    {
        osmium::io::Reader reader{file, osmium::osm_entity_bits::way | osmium::osm_entity_bits::relation, pool};
        while (osmium::memory::Buffer buffer = reader.read()) {
            for (const auto &item : buffer) {
                if (item.type() == osmium::item_type::way) {
                    const auto &way = static_cast<const osmium::Way &>(item);
                    const char *highway = way.tags()["highway"];
                    const char *route = way.tags()["route"];
                    if (!highway && !(route && (std::strcmp(route, "ferry") == 0 ||
                                                std::strcmp(route, "shuttle_train") == 0)))
                        continue;
                    if (way.nodes().size() < 2) continue;
                    o.way_ids.push_back(way.id());
                    o.ref_starts.push_back(way_node_ids.size());
                    for (const auto &nr : way.nodes()) way_node_ids.push_back(nr.ref());
                    o.tag_starts.push_back(o.key_offsets.size());
                    for (const auto &tag : way.tags()) {
                        if (!kept_key(tag.key())) continue;
                        o.key_offsets.push_back(intern(o, tag.key()));
                        o.value_offsets.push_back(intern(o, tag.value()));
                    }
                } else if (item.type() == osmium::item_type::relation) {
                    const auto &rel = static_cast<const osmium::Relation &>(item);
                    const char *type = rel.tags()["type"];
                    if (!type || std::strcmp(type, "restriction") != 0) continue;
                    const char *value = rel.tags()["restriction:motorcar"];
                    if (!value) value = rel.tags()["restriction"];
                    if (!value) continue;
                    rsc_osm_restriction r{};
                    r.relation_id = rel.id();
                    for (const auto &m : rel.members()) {
                        const char *role = m.role();
                        if (std::strcmp(role, "from") == 0 && m.type() == osmium::item_type::way) r.from_way = m.ref();
                        else if (std::strcmp(role, "to") == 0 && m.type() == osmium::item_type::way) r.to_way = m.ref();
                        else if (std::strcmp(role, "via") == 0 && m.type() == osmium::item_type::node) r.via_node = m.ref();
                    }
                    o.restriction_offsets.push_back(intern(o, value));
                    o.restrictions.push_back(r);
                }
            }
        }
        reader.close();
    }
    o.ref_starts.push_back(way_node_ids.size());
    o.tag_starts.push_back(o.key_offsets.size());
    std::vector<int64_t> needed = way_node_ids;
    std::sort(needed.begin(), needed.end());
    needed.erase(std::unique(needed.begin(), needed.end()), needed.end());
    std::vector<double> lat(needed.size(), 0.0), lon(needed.size(), 0.0);
    std::vector<char> found(needed.size(), 0);
    std::vector<std::size_t> exits(needed.size(), SIZE_MAX);
    // Pass 2: locations of the needed nodes.
    if (!needed.empty()) {
        osmium::io::Reader reader{file, osmium::osm_entity_bits::node, pool};
        while (osmium::memory::Buffer buffer = reader.read()) {
            for (const auto &node : buffer.select<osmium::Node>()) {
                auto it = std::lower_bound(needed.begin(), needed.end(), node.id());
                if (it == needed.end() || *it != node.id() || !node.location().valid()) continue;
                std::size_t k = static_cast<std::size_t>(it - needed.begin());
                lat[k] = node.location().lat();
                lon[k] = node.location().lon();
                found[k] = 1;
                const char *hw = node.tags()["highway"];
                const char *ref = node.tags()["ref"];
                if (hw && ref && std::strcmp(hw, "motorway_junction") == 0) exits[k] = intern(o, ref);
            }
        }
        reader.close();
    }
    std::vector<int32_t> new_index(needed.size(), -1);
    for (std::size_t k = 0; k < needed.size(); k++) {
        if (!found[k]) continue;
        new_index[k] = static_cast<int32_t>(o.node_ids.size());
        o.node_ids.push_back(needed[k]);
        o.lats.push_back(lat[k]);
        o.lons.push_back(lon[k]);
        o.exit_offsets.push_back(exits[k]);
    }
    o.refs.reserve(way_node_ids.size());
    for (int64_t id : way_node_ids) {
        auto it = std::lower_bound(needed.begin(), needed.end(), id);
        o.refs.push_back(new_index[static_cast<std::size_t>(it - needed.begin())]);
    }
    // Arena is final: turn offsets into pointers.
    const char *base = o.arena.data();
    for (std::size_t off : o.key_offsets) o.keys.push_back(base + off);
    for (std::size_t off : o.value_offsets) o.values.push_back(base + off);
    for (std::size_t off : o.exit_offsets) o.exit_refs.push_back(off == SIZE_MAX ? nullptr : base + off);
    for (std::size_t i = 0; i < o.restrictions.size(); i++) o.restrictions[i].restriction = base + o.restriction_offsets[i];
    return RSC_OK;
}

}  // namespace

extern "C" int rsc_osm_read(const char *path, rsc_osm **out, char *err, size_t errlen) {
    if (!out) return RSC_EINVAL;
    *out = nullptr;
    if (!path) {
        set_err(err, errlen, "no map path given");
        return RSC_EINVAL;
    }
    rsc_osm *o = nullptr;
    try {
        o = new rsc_osm();
        int rc = read_osm(path, *o, err, errlen);
        if (rc != RSC_OK) {
            delete o;
            return rc;
        }
        *out = o;
        return RSC_OK;
    } catch (const std::bad_alloc &) {
        delete o;
        set_err(err, errlen, "out of memory while reading the map");
        return RSC_ENOMEM;
    } catch (const std::exception &e) {
        delete o;
        osmium_failed(err, errlen, e.what(), std::string("not a readable OSM file: ") + e.what());
        return RSC_EFORMAT;
    } catch (...) {
        delete o;
        osmium_failed(err, errlen, "unknown error", "not a readable OSM file: unknown error");
        return RSC_EFORMAT;
    }
}

extern "C" void rsc_osm_destroy(rsc_osm *osm) { delete osm; }

extern "C" size_t rsc_osm_node_count(const rsc_osm *o) { return o ? o->node_ids.size() : 0; }
extern "C" const int64_t *rsc_osm_node_ids(const rsc_osm *o) { return o ? o->node_ids.data() : nullptr; }
extern "C" const double *rsc_osm_node_lats(const rsc_osm *o) { return o ? o->lats.data() : nullptr; }
extern "C" const double *rsc_osm_node_lons(const rsc_osm *o) { return o ? o->lons.data() : nullptr; }
extern "C" const char *const *rsc_osm_node_exit_refs(const rsc_osm *o) { return o ? o->exit_refs.data() : nullptr; }
extern "C" size_t rsc_osm_way_count(const rsc_osm *o) { return o ? o->way_ids.size() : 0; }
extern "C" const int64_t *rsc_osm_way_ids(const rsc_osm *o) { return o ? o->way_ids.data() : nullptr; }
extern "C" const size_t *rsc_osm_way_ref_starts(const rsc_osm *o) { return o ? o->ref_starts.data() : nullptr; }
extern "C" const int32_t *rsc_osm_way_refs(const rsc_osm *o) { return o ? o->refs.data() : nullptr; }
extern "C" const size_t *rsc_osm_way_tag_starts(const rsc_osm *o) { return o ? o->tag_starts.data() : nullptr; }
extern "C" const char *const *rsc_osm_tag_keys(const rsc_osm *o) { return o ? o->keys.data() : nullptr; }
extern "C" const char *const *rsc_osm_tag_values(const rsc_osm *o) { return o ? o->values.data() : nullptr; }
extern "C" size_t rsc_osm_restriction_count(const rsc_osm *o) { return o ? o->restrictions.size() : 0; }
extern "C" const rsc_osm_restriction *rsc_osm_restrictions(const rsc_osm *o) {
    return o ? o->restrictions.data() : nullptr;
}
