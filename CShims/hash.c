/* The compiled map's section checksum: four lanes of multiply-rotate rounds over 32-byte stripes, merged and
 * avalanched at the end (the structure of xxHash64; this is RoadSnap's own implementation). See cshims_rsmap.h. */
#include "cshims.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static inline uint64_t read64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline uint32_t read32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    return v;
}

static inline uint64_t lane_round(uint64_t acc, uint64_t input) {
    acc += input * P2;
    acc = rotl64(acc, 31);
    return acc * P1;
}

static inline uint64_t merge_round(uint64_t acc, uint64_t v) {
    acc ^= lane_round(0, v);
    return acc * P1 + P4;
}

void rsc_hash_init(rsc_hash_state *s, uint64_t seed) {
    memset(s, 0, sizeof *s);
    s->seed = seed;
    s->v[0] = seed + P1 + P2;
    s->v[1] = seed + P2;
    s->v[2] = seed;
    s->v[3] = seed - P1;
}

static void stripes(rsc_hash_state *s, const uint8_t *p, size_t n) {
    uint64_t v0 = s->v[0], v1 = s->v[1], v2 = s->v[2], v3 = s->v[3];
    for (size_t i = 0; i + 32 <= n; i += 32) {
        v0 = lane_round(v0, read64(p + i));
        v1 = lane_round(v1, read64(p + i + 8));
        v2 = lane_round(v2, read64(p + i + 16));
        v3 = lane_round(v3, read64(p + i + 24));
    }
    s->v[0] = v0; s->v[1] = v1; s->v[2] = v2; s->v[3] = v3;
}

void rsc_hash_update(rsc_hash_state *s, const void *data, size_t length) {
    const uint8_t *p = data;
    s->total += length;
    if (s->buffered) {
        size_t take = 32 - s->buffered;
        if (take > length) take = length;
        memcpy(s->buf + s->buffered, p, take);
        s->buffered += (uint32_t)take;
        p += take;
        length -= take;
        if (s->buffered < 32) return;
        stripes(s, s->buf, 32);
        s->buffered = 0;
    }
    size_t whole = length & ~(size_t)31;
    stripes(s, p, whole);
    p += whole;
    length -= whole;
    if (length) {
        memcpy(s->buf, p, length);
        s->buffered = (uint32_t)length;
    }
}

uint64_t rsc_hash_final(const rsc_hash_state *s) {
    uint64_t h;
    if (s->total >= 32) {
        h = rotl64(s->v[0], 1) + rotl64(s->v[1], 7) + rotl64(s->v[2], 12) + rotl64(s->v[3], 18);
        for (int i = 0; i < 4; i++) h = merge_round(h, s->v[i]);
    } else {
        h = s->seed + P5;
    }
    h += s->total;
    const uint8_t *p = s->buf;
    size_t n = s->buffered;
    while (n >= 8) {
        h ^= lane_round(0, read64(p));
        h = rotl64(h, 27) * P1 + P4;
        p += 8; n -= 8;
    }
    if (n >= 4) {
        h ^= (uint64_t)read32(p) * P1;
        h = rotl64(h, 23) * P2 + P3;
        p += 4; n -= 4;
    }
    while (n > 0) {
        h ^= (*p) * P5;
        h = rotl64(h, 11) * P1;
        p++; n--;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

uint64_t rsc_hash64(const void *data, size_t length, uint64_t seed) {
    rsc_hash_state s;
    rsc_hash_init(&s, seed);
    rsc_hash_update(&s, data, length);
    return rsc_hash_final(&s);
}

int rsc_hash_fd(int fd, uint64_t offset, uint64_t length, uint64_t seed, uint64_t *out) {
    if (fd < 0 || !out) return RSC_EINVAL;
    const size_t chunk = 1u << 20;
    uint8_t *buf = malloc(chunk);
    if (!buf) return RSC_ENOMEM;
    rsc_hash_state s;
    rsc_hash_init(&s, seed);
    while (length > 0) {
        size_t want = length < chunk ? (size_t)length : chunk;
        ssize_t got = pread(fd, buf, want, (off_t)offset);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) { free(buf); return RSC_EIO; }
        rsc_hash_update(&s, buf, (size_t)got);
        offset += (uint64_t)got;
        length -= (uint64_t)got;
    }
    free(buf);
    *out = rsc_hash_final(&s);
    return RSC_OK;
}
