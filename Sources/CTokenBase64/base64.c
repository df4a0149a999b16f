// base64url blocks with AVX2 (the method of Muła and Lemire, "Faster Base64 Encoding and Decoding
// Using AVX2 Instructions", 2018, with the URL alphabet's ranges compared directly).
#include "CTokenBase64.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

__attribute__((target("avx2"))) static long decode_blocks_avx2(const uint8_t *input, size_t count, uint8_t *output) {
    // Each character's class: its range of the alphabet (a signed compare also turns away the
    // bytes 0x80–0xFF, which read as negative).
    const __m256i before_upper = _mm256_set1_epi8('A' - 1), after_upper = _mm256_set1_epi8('Z' + 1);
    const __m256i before_lower = _mm256_set1_epi8('a' - 1), after_lower = _mm256_set1_epi8('z' + 1);
    const __m256i before_digit = _mm256_set1_epi8('0' - 1), after_digit = _mm256_set1_epi8('9' + 1);
    const __m256i dash = _mm256_set1_epi8('-'), underscore = _mm256_set1_epi8('_');
    // What each class adds to a character to make its six bits: A → 0, a → 26, 0 → 52, - → 62, _ → 63.
    const __m256i upper_offset = _mm256_set1_epi8(-65), lower_offset = _mm256_set1_epi8(-71);
    const __m256i digit_offset = _mm256_set1_epi8(4), dash_offset = _mm256_set1_epi8(17);
    const __m256i underscore_offset = _mm256_set1_epi8(-32);
    // Four six-bit values a, b, c, d to a·2^18 + b·2^12 + c·2^6 + d in each 32-bit lane.
    const __m256i pairs = _mm256_set1_epi32(0x01400140), quads = _mm256_set1_epi32(0x00011000);
    // Each lane's three bytes, most significant first, to the front of each 128-bit half; then
    // the halves' 12 bytes side by side.
    const __m256i bytes = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
                                           2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i halves = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    size_t done = 0;
    while (done + 32 <= count) {
        __m256i characters = _mm256_loadu_si256((const __m256i *)(input + done));
        __m256i upper = _mm256_and_si256(_mm256_cmpgt_epi8(characters, before_upper),
                                         _mm256_cmpgt_epi8(after_upper, characters));
        __m256i lower = _mm256_and_si256(_mm256_cmpgt_epi8(characters, before_lower),
                                         _mm256_cmpgt_epi8(after_lower, characters));
        __m256i digit = _mm256_and_si256(_mm256_cmpgt_epi8(characters, before_digit),
                                         _mm256_cmpgt_epi8(after_digit, characters));
        __m256i is_dash = _mm256_cmpeq_epi8(characters, dash);
        __m256i is_underscore = _mm256_cmpeq_epi8(characters, underscore);
        __m256i valid = _mm256_or_si256(_mm256_or_si256(upper, lower),
                                        _mm256_or_si256(digit, _mm256_or_si256(is_dash, is_underscore)));
        if ((unsigned)_mm256_movemask_epi8(valid) != 0xFFFFFFFFu) return -1;
        __m256i offset = _mm256_or_si256(
            _mm256_or_si256(_mm256_and_si256(upper, upper_offset), _mm256_and_si256(lower, lower_offset)),
            _mm256_or_si256(_mm256_and_si256(digit, digit_offset),
                            _mm256_or_si256(_mm256_and_si256(is_dash, dash_offset),
                                            _mm256_and_si256(is_underscore, underscore_offset))));
        __m256i sextets = _mm256_add_epi8(characters, offset);
        __m256i words = _mm256_madd_epi16(_mm256_maddubs_epi16(sextets, pairs), quads);
        __m256i packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(words, bytes), halves);
        _mm_storeu_si128((__m128i *)(output + done / 4 * 3), _mm256_castsi256_si128(packed));
        _mm_storel_epi64((__m128i *)(output + done / 4 * 3 + 16), _mm256_extracti128_si256(packed, 1));
        done += 32;
    }
    return (long)done;
}

// -1 until the first call has asked the processor; then 1 with AVX2, 0 without. Every thread
// that asks finds the same answer, so racing first calls agree.
static int has_avx2 = -1;

long tv_base64url_decode_blocks(const uint8_t *input, size_t count, uint8_t *output) {
    int avx2 = __atomic_load_n(&has_avx2, __ATOMIC_RELAXED);
    if (__builtin_expect(avx2 < 0, 0)) {
        __builtin_cpu_init();
        avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
        __atomic_store_n(&has_avx2, avx2, __ATOMIC_RELAXED);
    }
    return avx2 ? decode_blocks_avx2(input, count, output) : 0;
}
#else
long tv_base64url_decode_blocks(const uint8_t *input, size_t count, uint8_t *output) {
    (void)input; (void)count; (void)output;
    return 0;
}
#endif
