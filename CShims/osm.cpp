// OSM reading through libosmium, behind the C functions of cshims.h. Every exception is caught here.
#include "cshims.h"
#include "cshims_osmium_internal.h"

#include <osmium/io/any_input.hpp>
#include <osmium/io/detail/input_format.hpp>

#include <expat.h>
#include <osmium/osm/node.hpp>
#include <osmium/osm/relation.hpp>
#include <osmium/osm/way.hpp>
#include <osmium/thread/pool.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <future>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

// Reads one protobuf varint from [p, end); false when it runs past end or past 10 bytes.
bool pbf_varint(const unsigned char *&p, const unsigned char *end, uint64_t &value) {
    value = 0;
    for (int shift = 0; shift < 70 && p < end; shift += 7) {
        unsigned char b = *p++;
        value |= static_cast<uint64_t>(b & 0x7f) << shift;
        if (!(b & 0x80)) return true;
    }
    return false;
}

// Walks the blob framing of an uncompressed PBF file before libosmium reads it: each BlobHeader must be 1..64 KiB,
// name its type in field 1 ("OSMHeader" first, "OSMData" after), and give a data size of 1 byte..32 MiB that lies
// within the file. libosmium accepts a header without a type and compares it through a null pointer; a clear error
// here instead. Returns RSC_OK, RSC_EIO, or RSC_EFORMAT with a message naming the blob and its offset.
int check_pbf_framing(const char *path, char *err, size_t errlen) {
    std::FILE *f = std::fopen(path, "rb");
    if (!f) {
        set_err(err, errlen, std::string("cannot open map file: ") + std::strerror(errno));
        return RSC_EIO;
    }
    struct Closer { std::FILE *f; ~Closer() { std::fclose(f); } } closer{f};
    if (std::fseek(f, 0, SEEK_END) != 0) return RSC_OK;  // not seekable (a pipe): leave it to libosmium
    long end_pos = std::ftell(f);
    if (end_pos < 0 || std::fseek(f, 0, SEEK_SET) != 0) return RSC_OK;
    const uint64_t file_size = static_cast<uint64_t>(end_pos);
    uint64_t offset = 0;
    std::vector<unsigned char> header;
    for (unsigned blob = 0;; blob++) {
        unsigned char len_bytes[4];
        size_t got = std::fread(len_bytes, 1, 4, f);
        char where[96];
        std::snprintf(where, sizeof where, "PBF blob %u at byte %llu: ", blob, static_cast<unsigned long long>(offset));
        if (got == 0 && blob > 0) return RSC_OK;
        if (got != 4) {
            set_err(err, errlen, std::string("not a readable OSM file: ") + where + "truncated blob header length");
            return RSC_EFORMAT;
        }
        uint32_t len = (uint32_t(len_bytes[0]) << 24) | (uint32_t(len_bytes[1]) << 16) |
                       (uint32_t(len_bytes[2]) << 8) | uint32_t(len_bytes[3]);
        if (len == 0 || len > 64u * 1024u) {
            set_err(err, errlen, std::string("not a readable OSM file: ") + where + "blob header length " +
                                     std::to_string(len) + " is not within 1..65536");
            return RSC_EFORMAT;
        }
        header.resize(len);
        if (std::fread(header.data(), 1, len, f) != len) {
            set_err(err, errlen, std::string("not a readable OSM file: ") + where + "truncated blob header");
            return RSC_EFORMAT;
        }
        const unsigned char *p = header.data(), *hend = header.data() + len;
        std::string type;
        bool has_type = false;
        uint64_t datasize = 0;
        while (p < hend) {
            uint64_t key = 0, v = 0;
            if (!pbf_varint(p, hend, key)) break;
            const uint64_t field = key >> 3;
            const unsigned wire = static_cast<unsigned>(key & 7);
            bool ok = true;
            if (wire == 0) {
                ok = pbf_varint(p, hend, v);
                if (ok && field == 3) datasize = v;
            } else if (wire == 1 || wire == 5) {
                const size_t n = wire == 1 ? 8 : 4;
                ok = static_cast<size_t>(hend - p) >= n;
                if (ok) p += n;
            } else if (wire == 2) {
                ok = pbf_varint(p, hend, v) && v <= static_cast<uint64_t>(hend - p);
                if (ok) {
                    if (field == 1) {
                        type.assign(reinterpret_cast<const char *>(p), static_cast<size_t>(v));
                        has_type = true;
                    }
                    p += v;
                }
            } else {
                ok = false;
            }
            if (!ok) {
                set_err(err, errlen, std::string("not a readable OSM file: ") + where + "malformed blob header");
                return RSC_EFORMAT;
            }
        }
        if (p != hend) {
            set_err(err, errlen, std::string("not a readable OSM file: ") + where + "malformed blob header");
            return RSC_EFORMAT;
        }
        const char *expected = blob == 0 ? "OSMHeader" : "OSMData";
        if (!has_type || type != expected) {
            set_err(err, errlen, std::string("not a readable OSM file: ") + where + "blob type is not " + expected);
            return RSC_EFORMAT;
        }
        const uint64_t data_start = offset + 4 + len;
        if (datasize == 0 || datasize > 32u * 1024u * 1024u || datasize > file_size - std::min(file_size, data_start)) {
            set_err(err, errlen, std::string("not a readable OSM file: ") + where + "blob data size " +
                                     std::to_string(datasize) + " is zero, over 32 MiB or past the end of the file");
            return RSC_EFORMAT;
        }
        offset = data_start + datasize;
        if (std::fseek(f, static_cast<long>(offset), SEEK_SET) != 0) {
            set_err(err, errlen, std::string("not a readable OSM file: ") + where + "cannot seek past the blob");
            return RSC_EFORMAT;
        }
    }
}

// libosmium 2.19's PBF parser reads the file descriptor its Reader opened and closes it at the end of a successful
// parse only: on a malformed file (any exception from the parser) the descriptor stayed open, one per failed read,
// until the process ran out of them (found by the osm-pbf fuzz target's descriptor check). This parser runs
// libosmium's and closes the descriptor when it throws. It reports the error as Parser::parse does, except that a
// header already given by libosmium's parser (the failure came later, in a data blob) is not given again (a second
// std::promise::set_* would throw std::future_error out of the parser thread: std::terminate).
class DescriptorClosingPBFParser final : public osmium::io::detail::Parser {
    std::unique_ptr<osmium::io::detail::Parser> m_parser;
    int m_fd;

public:
    DescriptorClosingPBFParser(osmium::io::detail::parser_arguments &args,
                               const osmium::io::detail::ParserFactory::create_parser_type &libosmium_parser)
        : Parser(args), m_parser(libosmium_parser(args)), m_fd(args.fd) {}

    void run() override {
        try {
            m_parser->run();
        } catch (...) {
            if (m_fd >= 0) ::close(m_fd);
            try {
                set_header_exception(std::current_exception());
            } catch (const std::future_error &) {
                // libosmium's parser gave the header already.
            }
            throw;
        }
    }
};

void install_descriptor_closing_pbf_parser() {
    auto &factory = osmium::io::detail::ParserFactory::instance();
    // After static initialisation, which registers libosmium's parser (once per translation unit including it).
    osmium::io::detail::ParserFactory::create_parser_type libosmium_parser =
        factory.get_creator_function(osmium::io::File{"any.osm.pbf"});
    factory.register_parser(osmium::io::file_format::pbf,
                            [libosmium_parser](osmium::io::detail::parser_arguments &args) {
                                return std::unique_ptr<osmium::io::detail::Parser>(
                                    new DescriptorClosingPBFParser{args, libosmium_parser});
                            });
}

// libosmium 2.19 reads an XML coordinate (lat="45.24E38032") by scaling its digits by its exponent in a 64-bit
// integer before its range check: a large exponent overflows (undefined behaviour: a UBSan trap under the osm-xml
// fuzz target, a wrong coordinate kept in a plain build). So a pass of expat (libosmium's parser, with its defaults)
// over the decompressed XML first refuses every coordinate attribute libosmium reads whose value is 1e9 or more in
// magnitude (libosmium refuses anything beyond 214.7483647 itself; below 1e9 its arithmetic cannot overflow). Any
// other fault (malformed XML, entity declarations) is left to libosmium, which reports it as before.
const char *const kCoordinateAttributes[] = {"lat",    "lon",    "minlat",  "minlon",  "maxlat",
                                             "maxlon", "min_lat", "min_lon", "max_lat", "max_lon"};

struct CoordinateCheck {
    XML_Parser parser;
    std::string failure;
};

void XMLCALL coordinate_check_start(void *data, const XML_Char *element, const XML_Char **attrs) {
    auto *check = static_cast<CoordinateCheck *>(data);
    for (const XML_Char **a = attrs; a[0] && a[1]; a += 2) {
        bool coordinate = false;
        for (const char *name : kCoordinateAttributes) coordinate = coordinate || std::strcmp(a[0], name) == 0;
        if (!coordinate) continue;
        double value = std::strtod(a[1], nullptr);
        if (std::isnan(value) || std::fabs(value) < 1e9) continue;
        check->failure = std::string("coordinate ") + a[0] + "=\"" + std::string(a[1]).substr(0, 40) + "\" of <" +
                         element + "> at line " + std::to_string(XML_GetCurrentLineNumber(check->parser)) +
                         " is out of range";
        XML_StopParser(check->parser, XML_FALSE);
        return;
    }
}

void XMLCALL coordinate_check_entity(void *data, const XML_Char *, int, const XML_Char *, int, const XML_Char *,
                                     const XML_Char *, const XML_Char *, const XML_Char *) {
    XML_StopParser(static_cast<CoordinateCheck *>(data)->parser, XML_FALSE);  // libosmium refuses these itself
}

// RSC_OK when the pass found no coordinate out of range, else RSC_EFORMAT with the failure in err.
int coordinate_check_outcome(const CoordinateCheck &check, char *err, size_t errlen) {
    if (check.failure.empty()) return RSC_OK;
    set_err(err, errlen, "not a readable OSM file: " + check.failure);
    return RSC_EFORMAT;
}

int check_xml_coordinates(const char *path, const osmium::io::File &file, char *err, size_t errlen) {
    CoordinateCheck check{XML_ParserCreate(nullptr), {}};
    if (!check.parser) throw std::bad_alloc();
    struct Freer { XML_Parser p; ~Freer() { XML_ParserFree(p); } } freer{check.parser};
    XML_SetUserData(check.parser, &check);
    XML_SetStartElementHandler(check.parser, coordinate_check_start);
    XML_SetEntityDeclHandler(check.parser, coordinate_check_entity);
    if (file.buffer()) {  // a small file the caller already read (read_osm): checked from its bytes, not read again
        XML_Parse(check.parser, file.buffer(), static_cast<int>(file.buffer_size()), XML_TRUE);
        return coordinate_check_outcome(check, err, errlen);
    }
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return RSC_OK;  // libosmium reports it
    // The decompressor owns the descriptor (closed by close() or its destructor).
    std::unique_ptr<osmium::io::Decompressor> input =
        osmium::io::CompressionFactory::instance().create_decompressor(file.compression(), fd);
    for (;;) {
        std::string chunk = input->read();
        bool last = chunk.empty();
        if (XML_Parse(check.parser, chunk.data(), static_cast<int>(chunk.size()), last ? XML_TRUE : XML_FALSE) !=
                XML_STATUS_OK ||
            last)
            break;
    }
    input->close();
    return coordinate_check_outcome(check, err, errlen);
}

}  // namespace

int rsc_osmium_before_read(const char *path, const osmium::io::File &file, char *err, size_t errlen) {
    static std::once_flag installed;
    std::call_once(installed, install_descriptor_closing_pbf_parser);
    if (file.format() == osmium::io::file_format::pbf && file.compression() == osmium::io::file_compression::none)
        return check_pbf_framing(path, err, errlen);
    if (file.format() == osmium::io::file_format::xml) return check_xml_coordinates(path, file, err, errlen);
    return RSC_OK;
}

namespace {

// The contents of the regular file at `path` when it is no larger than `limit` bytes; false otherwise (larger, not
// a regular file, or read short).
bool read_small_file(const char *path, std::size_t limit, std::string &contents) {
    std::FILE *f = std::fopen(path, "rb");
    if (!f) return false;
    struct Closer { std::FILE *f; ~Closer() { std::fclose(f); } } closer{f};
    struct stat st {};
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        static_cast<uint64_t>(st.st_size) > limit)
        return false;
    contents.resize(static_cast<std::size_t>(st.st_size));
    return std::fread(contents.data(), 1, contents.size(), f) == contents.size() && std::fgetc(f) == EOF;
}

int read_osm(const char *path, rsc_osm &o, char *err, size_t errlen) {
    std::FILE *probe = std::fopen(path, "rb");
    if (!probe) {
        set_err(err, errlen, std::string("cannot open map file: ") + std::strerror(errno));
        return RSC_EIO;
    }
    std::fclose(probe);
    osmium::io::File file{path};
    // An uncompressed XML file no larger than one of libosmium's read chunks (1 MiB) is read once, here, and the
    // coordinate check and both passes parse it from memory. Its parser gets the same bytes in the same single chunk
    // as from the file, but libosmium's file reader zero-fills a fresh 1 MiB buffer per read call, two calls per
    // pass: most of the time of a small file (the osm-xml fuzz target's inputs; docs/reliability.md, seventh session).
    std::string contents;  // outlives the readers
    if (file.format() == osmium::io::file_format::xml && file.compression() == osmium::io::file_compression::none &&
        read_small_file(path, osmium::io::Decompressor::input_buffer_size, contents))
        file = osmium::io::File{contents.data(), contents.size(), "osm"};
    int rc = rsc_osmium_before_read(path, file, err, errlen);
    if (rc != RSC_OK) return rc;
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
