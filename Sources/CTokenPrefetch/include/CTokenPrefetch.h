// Cache hints for the verifier's lookahead over a batch: a line's caches are looked up a few
// lines before the line is checked, so that the memory their entries live in is on its way.
#ifndef TOKENVERIFY_CTOKENPREFETCH_H
#define TOKENVERIFY_CTOKENPREFETCH_H

// Asks the processor to bring the cache line holding `address` into its caches, for reading. A
// hint only: it never faults (any address will do) and changes no result.
static inline void tv_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
