/* fgbisect — LEB128 integers (7 bits a byte, low first, the top bit set
 * on every byte but the last) read a word at a time, for the binary readers
 * (JFR's compressed integers, protobuf's varints).
 *
 * One 8-byte load finds the varint's end (its first byte with the top bit
 * clear) and packs its 7-bit groups side by side, without a loop over its
 * bytes.  The caller makes sure 8 bytes can be read at the cursor. */
#ifndef FG_VARINT_H
#define FG_VARINT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define FG_VARINT_TOPS UINT64_C(0x8080808080808080)

/* The 8 bytes at p, the first in the low byte whatever the machine. */
static inline uint64_t fg_varint_load(const uint8_t *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* The 7-bit groups of w's bytes (their top bits dropped), low first, side
 * by side: pairs, then quads, then the whole. */
static inline uint64_t fg_varint_pack(uint64_t w)
{
	w &= ~FG_VARINT_TOPS;
	w = (w & UINT64_C(0x007f007f007f007f)) | (w & UINT64_C(0x7f007f007f007f00)) >> 1;
	w = (w & UINT64_C(0x00003fff00003fff)) | (w & UINT64_C(0x3fff00003fff0000)) >> 2;
	return (w & UINT64_C(0x000000000fffffff)) | (w & UINT64_C(0x0fffffff00000000)) >> 4;
}

/* The varint at *pp when it ends within its first 8 bytes: true, *v its
 * value and *pp past it.  False (nothing moved) when those 8 bytes all have
 * the top bit set: a longer form, for the caller's own rules. */
static inline bool fg_varint_word(const uint8_t **pp, uint64_t *v)
{
	uint64_t w = fg_varint_load(*pp);
	uint64_t ends = ~w & FG_VARINT_TOPS;
	if (!ends)
		return false;
	unsigned last = (unsigned)__builtin_ctzll(ends); /* 8k + 7 for the end in byte k */
	*pp += (last >> 3) + 1;
	/* 2 << 63 wraps to 0: all eight bytes kept. */
	*v = fg_varint_pack(w & ((UINT64_C(2) << last) - 1));
	return true;
}

#endif
