/* fgbisect — SHA-256 (FIPS 180-4), for cache keys.
 *
 * Small and unoptimised: it hashes URLs, never file contents. */
#ifndef FG_SHA256_H
#define FG_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define FG_SHA256_SIZE 32
#define FG_SHA256_HEX_SIZE (2 * FG_SHA256_SIZE + 1)

typedef struct fg_sha256 {
	uint32_t state[8];
	uint64_t length;   /* bytes hashed so far */
	unsigned char block[64];
	size_t used;       /* bytes pending in block */
} fg_sha256;

void fg_sha256_init(fg_sha256 *ctx);
void fg_sha256_update(fg_sha256 *ctx, const void *data, size_t len);
void fg_sha256_final(unsigned char out[FG_SHA256_SIZE], fg_sha256 *ctx);

/* The digest of len bytes as 64 lowercase hex digits and a NUL. */
void fg_sha256_hex(char out[FG_SHA256_HEX_SIZE], const void *data, size_t len);

#endif
