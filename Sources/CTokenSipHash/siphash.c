// SipHash-2-4, 128-bit output (Aumasson and Bernstein; the variant of libsodium's
// crypto_shorthash_siphashx24 and of the reference siphash.c with outlen 16), for one message or
// many at a time.
#include "CTokenSipHash.h"

#include <string.h>

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND(v0, v1, v2, v3) \
    do {                         \
        v0 += v1;                \
        v1 = ROTL(v1, 13);       \
        v1 ^= v0;                \
        v0 = ROTL(v0, 32);       \
        v2 += v3;                \
        v3 = ROTL(v3, 16);       \
        v3 ^= v2;                \
        v0 += v3;                \
        v3 = ROTL(v3, 21);       \
        v3 ^= v0;                \
        v2 += v1;                \
        v1 = ROTL(v1, 17);       \
        v1 ^= v2;                \
        v2 = ROTL(v2, 32);       \
    } while (0)

typedef struct {
    uint64_t v0, v1, v2, v3;
} sip_state;

static inline uint64_t load64_le(const uint8_t *p) {
    uint64_t word;
    memcpy(&word, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    word = __builtin_bswap64(word);
#endif
    return word;
}

static inline void store64_le(uint8_t *p, uint64_t word) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    word = __builtin_bswap64(word);
#endif
    memcpy(p, &word, 8);
}

static inline sip_state sip_start(const uint8_t key[16]) {
    uint64_t k0 = load64_le(key), k1 = load64_le(key + 8);
    sip_state s = {0x736f6d6570736575ULL ^ k0, 0x646f72616e646f6dULL ^ k1 ^ 0xee, 0x6c7967656e657261ULL ^ k0,
                   0x7465646279746573ULL ^ k1};
    return s;
}

static inline void sip_compress(sip_state *s, uint64_t block) {
    s->v3 ^= block;
    SIPROUND(s->v0, s->v1, s->v2, s->v3);
    SIPROUND(s->v0, s->v1, s->v2, s->v3);
    s->v0 ^= block;
}

// The message's blocks from `first_block` on, its last block (its final length % 8 bytes with
// the length's low byte on top) and the finalisation, from state `s`.
static void sip_finish(sip_state s, const uint8_t *message, size_t length, size_t first_block, uint8_t digest[16]) {
    size_t blocks = length / 8;
    for (size_t i = first_block; i < blocks; i++) sip_compress(&s, load64_le(message + 8 * i));
    const uint8_t *tail = message + 8 * blocks;
    uint64_t last = (uint64_t)length << 56;
    switch (length & 7) {
    case 7: last |= (uint64_t)tail[6] << 48; /* fall through */
    case 6: last |= (uint64_t)tail[5] << 40; /* fall through */
    case 5: last |= (uint64_t)tail[4] << 32; /* fall through */
    case 4: last |= (uint64_t)tail[3] << 24; /* fall through */
    case 3: last |= (uint64_t)tail[2] << 16; /* fall through */
    case 2: last |= (uint64_t)tail[1] << 8;  /* fall through */
    case 1: last |= (uint64_t)tail[0]; break;
    case 0: break;
    }
    sip_compress(&s, last);
    s.v2 ^= 0xee;
    for (int i = 0; i < 4; i++) SIPROUND(s.v0, s.v1, s.v2, s.v3);
    store64_le(digest, s.v0 ^ s.v1 ^ s.v2 ^ s.v3);
    s.v1 ^= 0xdd;
    for (int i = 0; i < 4; i++) SIPROUND(s.v0, s.v1, s.v2, s.v3);
    store64_le(digest + 8, s.v0 ^ s.v1 ^ s.v2 ^ s.v3);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

#define VSIPROUND(v0, v1, v2, v3)          \
    do {                                   \
        v0 = _mm512_add_epi64(v0, v1);     \
        v1 = _mm512_rol_epi64(v1, 13);     \
        v1 = _mm512_xor_si512(v1, v0);     \
        v0 = _mm512_rol_epi64(v0, 32);     \
        v2 = _mm512_add_epi64(v2, v3);     \
        v3 = _mm512_rol_epi64(v3, 16);     \
        v3 = _mm512_xor_si512(v3, v2);     \
        v0 = _mm512_add_epi64(v0, v3);     \
        v3 = _mm512_rol_epi64(v3, 21);     \
        v3 = _mm512_xor_si512(v3, v0);     \
        v2 = _mm512_add_epi64(v2, v1);     \
        v1 = _mm512_rol_epi64(v1, 17);     \
        v1 = _mm512_xor_si512(v1, v2);     \
        v2 = _mm512_rol_epi64(v2, 32);     \
    } while (0)

// Eight messages: the blocks all of them have, in the lanes of one vector; the rest one by one.
__attribute__((target("avx512f"))) static void sip_eight(sip_state start, const uint8_t *const *messages,
                                                          const size_t *lengths, uint8_t *digests) {
    size_t common = lengths[0] / 8;
    for (int lane = 1; lane < 8; lane++) {
        if (lengths[lane] / 8 < common) common = lengths[lane] / 8;
    }
    __m512i v0 = _mm512_set1_epi64((long long)start.v0), v1 = _mm512_set1_epi64((long long)start.v1);
    __m512i v2 = _mm512_set1_epi64((long long)start.v2), v3 = _mm512_set1_epi64((long long)start.v3);
    __m512i addresses = _mm512_loadu_si512((const void *)messages);
    const __m512i step = _mm512_set1_epi64(8);
    for (size_t i = 0; i < common; i++) {
        // Each lane's next little-endian word, read at its own message's address.
        __m512i block = _mm512_i64gather_epi64(addresses, (const void *)0, 1);
        v3 = _mm512_xor_si512(v3, block);
        VSIPROUND(v0, v1, v2, v3);
        VSIPROUND(v0, v1, v2, v3);
        v0 = _mm512_xor_si512(v0, block);
        addresses = _mm512_add_epi64(addresses, step);
    }
    uint64_t s0[8], s1[8], s2[8], s3[8];
    _mm512_storeu_si512((void *)s0, v0);
    _mm512_storeu_si512((void *)s1, v1);
    _mm512_storeu_si512((void *)s2, v2);
    _mm512_storeu_si512((void *)s3, v3);
    for (int lane = 0; lane < 8; lane++) {
        sip_state s = {s0[lane], s1[lane], s2[lane], s3[lane]};
        sip_finish(s, messages[lane], lengths[lane], common, digests + 16 * lane);
    }
}

// -1 until the first call has asked the processor; then 1 with AVX-512, 0 without. Racing first
// calls find the same answer.
static int has_avx512 = -1;

static int vectors_available(void) {
    int available = __atomic_load_n(&has_avx512, __ATOMIC_RELAXED);
    if (__builtin_expect(available < 0, 0)) {
        __builtin_cpu_init();
        available = __builtin_cpu_supports("avx512f") ? 1 : 0;
        __atomic_store_n(&has_avx512, available, __ATOMIC_RELAXED);
    }
    return available;
}
#endif

void tv_siphash24_128(uint8_t digest[16], const uint8_t *message, size_t length, const uint8_t key[16]) {
    sip_finish(sip_start(key), message, length, 0, digest);
}

void tv_siphash24_128_many(const uint8_t key[16], size_t count, const uint8_t *const *messages,
                           const size_t *lengths, uint8_t *digests) {
    sip_state start = sip_start(key);
    size_t done = 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (count >= 8 && vectors_available()) {
        for (; done + 8 <= count; done += 8) sip_eight(start, messages + done, lengths + done, digests + 16 * done);
    }
#endif
    for (; done < count; done++) sip_finish(start, messages[done], lengths[done], 0, digests + 16 * done);
}
