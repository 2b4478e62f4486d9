/*
 * RoadSnap C shim: the compiled map file (.rsmap) - its fixed-width records, the section checksum, and the
 * borrow-variant constructors that let the segment index use arrays living in a memory-mapped file.
 * Included from cshims.h; same conventions (rsc_ prefix, owned handles freed by *_destroy, RSC_E* codes).
 *
 * Every record below has a fixed C layout (little-endian on disk, natural alignment, explicit padding) so Swift
 * reads it in place from the mapping. The file layout itself is described in docs/compiled-maps.md.
 */
#ifndef ROADSNAP_CSHIMS_RSMAP_H
#define ROADSNAP_CSHIMS_RSMAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------------------
 * Checksum: a 64-bit hash in four independent lanes of multiply-rotate rounds (the structure of xxHash64,
 * implemented here). Not cryptographic: it detects corruption, not tampering.
 * ------------------------------------------------------------------------------------------------------------ */
typedef struct rsc_hash_state {
    uint64_t v[4];
    uint64_t total;
    uint8_t buf[32];
    uint32_t buffered;
    uint64_t seed;
} rsc_hash_state;

/* Starts a streaming hash with `seed`. */
void rsc_hash_init(rsc_hash_state *state, uint64_t seed);
/* Adds `length` bytes. */
void rsc_hash_update(rsc_hash_state *state, const void *data, size_t length);
/* The hash of everything added so far (the state may continue to be updated). */
uint64_t rsc_hash_final(const rsc_hash_state *state);
/* One-shot hash of `length` bytes at `data`. */
uint64_t rsc_hash64(const void *data, size_t length, uint64_t seed);
/* Hash of `length` bytes of the open file `fd` from `offset`, read with pread through a 1 MiB buffer (so the pages
 * are not mapped into the caller's address space). Returns RSC_OK, RSC_EIO on a read error or short file,
 * RSC_ENOMEM. */
int rsc_hash_fd(int fd, uint64_t offset, uint64_t length, uint64_t seed, uint64_t *out);

/* ------------------------------------------------------------------------------------------------------------
 * File records (all little-endian).
 * ------------------------------------------------------------------------------------------------------------ */
#define RSC_RSMAP_MAGIC "RSNAPMAP"    /* 8 bytes at offset 0 */
#define RSC_RSMAP_ENDIAN 0x01020304u  /* as written by the compiling machine: reads 0x04030201 on the other order */
#define RSC_RSMAP_ALIGN 64u           /* every section starts at a multiple of this */

typedef struct rsc_rsmap_header {
    char magic[8];
    uint32_t endian;            /* RSC_RSMAP_ENDIAN */
    uint32_t format_version;
    uint32_t header_size;       /* sizeof(rsc_rsmap_header) */
    uint32_t section_count;
    uint64_t file_size;         /* total bytes; a shorter file is truncated */
    uint64_t section_table_offset;
    uint64_t section_table_hash;
    uint64_t source_size;       /* bytes of the source map at compile time (0 when compiled from memory) */
    uint64_t source_hash;       /* rsc_hash64 of the source map file (0 when compiled from memory) */
    char engine_version[32];    /* NUL-terminated version of the engine that wrote the file */
    uint64_t reserved[3];
    uint64_t header_hash;       /* rsc_hash64 of this header with header_hash = 0 */
} rsc_rsmap_header;

typedef struct rsc_rsmap_section {
    uint32_t id;                /* what the section holds (see the Swift RSMapSection ids) */
    uint32_t element_size;      /* bytes per element */
    uint64_t offset;            /* from the start of the file; a multiple of RSC_RSMAP_ALIGN */
    uint64_t count;             /* elements */
    uint64_t hash;              /* rsc_hash64 of the section's count * element_size bytes */
} rsc_rsmap_section;

/* One edge of the network. `source_kind`: 0 OSM way, 1 numeric id, 2 string id (source_value = string index). */
typedef struct rsc_edge_record {
    int32_t from_node, to_node;
    int32_t shape_start, shape_count;
    double length;
    int64_t source_value;
    int32_t attributes;         /* index into the attribute records */
    int8_t direction;           /* 0 both, 1 forward, -1 backward */
    uint8_t source_kind;
    uint8_t pad[2];
} rsc_edge_record;

/* One distinct set of road attributes; strings are indices into the string table (UINT32_MAX: none). */
typedef struct rsc_attr_record {
    double maxspeed_forward, maxspeed_backward, ferry_duration; /* NaN: untagged */
    int64_t lanes;              /* INT64_MIN: untagged */
    uint32_t name, ref, turn_lanes_forward, turn_lanes_backward, destination;
    uint8_t road_class;         /* index in RoadClass.allCases */
    uint8_t access;             /* 0 yes, 1 destination, 2 no */
    uint8_t flags;              /* 1 roundabout, 2 toll, 4 train */
    uint8_t pad;
} rsc_attr_record;

/* A resolved turn restriction (kind 0 prohibitive, 1 mandatory; restriction = string index of the OSM value). */
typedef struct rsc_restriction_record {
    int32_t from_edge, via_node, to_edge;
    uint32_t restriction;
    int32_t kind;
} rsc_restriction_record;

/* ------------------------------------------------------------------------------------------------------------
 * Segment index arrays, exported for writing and borrowed back from a mapping.
 * ------------------------------------------------------------------------------------------------------------ */
typedef struct rsc_index_view {
    size_t segment_count, edge_count, cell_count, cell_item_count; /* cell_count = nx * ny */
    size_t nx, ny, nonempty_cells;
    double cache_radius, cell, gx0, gy0;
    const double *segments;     /* 4 per segment: ax, ay, bx, by (locality order) */
    const double *length, *offset, *bearing;
    const int32_t *edge, *orig;
    const int8_t *edge_direction;
    const uint32_t *cell_start; /* cell_count + 1 */
    const int32_t *cell_items;
} rsc_index_view;

/* Fills `view` with pointers into `index` (valid while it lives). Returns RSC_OK or RSC_EINVAL. */
int rsc_index_export(const rsc_index *index, rsc_index_view *view);
/* An index that reads the arrays of `view` in place (they must outlive it and not change): no copy, no STRtree
 * until the first query with a radius above the cache radius (built then, once, under a lock). Checks the counts
 * agree and the cell table's last entry; the arrays' contents are trusted (the caller verified their checksum).
 * Returns an owned index (free with rsc_index_destroy, which leaves the borrowed arrays alone) or NULL with a
 * message in err. */
rsc_index *rsc_index_borrow(const rsc_index_view *view, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
