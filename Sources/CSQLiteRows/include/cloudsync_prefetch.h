#ifndef CLOUDSYNC_PREFETCH_H
#define CLOUDSYNC_PREFETCH_H

/// Asks the CPU to bring the cache line at `address` in for a write, without waiting for it (Swift
/// has no prefetch of its own). An import's filter of samples seen (`SeenSamples`) asks for a
/// sample's word when the sample arrives, and reads it after the sample's names are looked up.
static inline void cloudsync_prefetch_for_write(const void *address) { __builtin_prefetch(address, 1, 3); }

#endif
