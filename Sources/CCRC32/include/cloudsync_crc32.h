#ifndef CLOUDSYNC_CRC32_H
#define CLOUDSYNC_CRC32_H
#include <stddef.h>
#include <stdint.h>

/// The zip's CRC-32 (zlib's `crc32`: same polynomial, same pre- and post-conditioning) of `length`
/// bytes, continuing `crc` (0 to start).
uint32_t cloudsync_crc32(uint32_t crc, const uint8_t *bytes, size_t length);

/// 1 when this processor has the carry-less multiply the fast path folds with, 0 when every byte
/// goes through zlib's tables.
int cloudsync_crc32_is_folding(void);
#endif
