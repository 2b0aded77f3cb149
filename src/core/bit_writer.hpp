// bit_writer.hpp - the LSB-first bit writer that DEFLATE needs.
//
// Bits collect in a 64-bit buffer and are flushed a whole word at a time while at least
// 8 bytes of room remain, else byte by byte, so the writer never touches memory past
// `end`.  At most 63 bits are held, which is why callers flush after at most 56 new bits
// (4 literals of at most 14 bits each, or one match of at most 47 bits).
//
// The writer starts at any bit offset (0..7 pending bits), so the same block coder can
// write straight into the final output (sequential path) or into a scratch buffer at bit
// offset 0 whose bits are shifted into place at assembly (parallel path).
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>

#include "core/deflate_format.hpp"

namespace flowdeflate::core {

struct BitWriter {
    u64 bitbuf = 0;    // pending bits, lowest first
    u32 bitcount = 0;  // number of pending bits (<= 63; <= 7 after flush())
    u8* next = nullptr;
    u8* end = nullptr;
    u8* fast_end = nullptr;  // while next < fast_end, a whole 8-byte word may be stored

    BitWriter() = default;
    BitWriter(u8* begin, u8* end_) : next(begin), end(end_), fast_end(end_ - std::min<std::ptrdiff_t>(7, end_ - begin)) {}

    [[gnu::always_inline]] void add(u64 bits, u32 n) {
        bitbuf |= bits << bitcount;
        bitcount += n;
    }

    [[gnu::always_inline]] void flush() {
        if (next < fast_end) [[likely]] {
            u64 v = bitbuf;
            std::memcpy(next, &v, 8);  // little-endian host assumed (x86-64, aarch64)
            bitbuf >>= bitcount & ~7u;
            next += bitcount >> 3;
            bitcount &= 7;
        } else {
            while (bitcount >= 8) {
                *next++ = u8(bitbuf);
                bitcount -= 8;
                bitbuf >>= 8;
            }
        }
    }

    /// Bytes still free after the complete bytes written so far.
    [[nodiscard]] std::size_t room() const { return std::size_t(end - next); }

    /// Writes out a final partial byte, if any (end of stream).
    void finish() {
        flush();
        if (bitcount) {
            *next++ = u8(bitbuf);
            bitbuf = 0;
            bitcount = 0;
        }
    }
};

static_assert(std::endian::native == std::endian::little, "flowdeflate assumes a little-endian host");

}  // namespace flowdeflate::core
