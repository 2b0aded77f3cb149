// match_finder_common.hpp - what libdeflate's three match finders share.
//
// Positions are stored as 16-bit offsets from a base pointer that advances by the window
// size (32 KiB) whenever the current position reaches it ("sliding"): every stored entry
// then drops by 32768 with signed saturation, so entries that fell out of the window
// become kInitVal.  An entry is usable while it is greater than `cur_pos - 32768`, so a
// match finder's view at position p depends only on what was inserted in the 32 KiB
// before p - which is what lets a search start anywhere after priming from that history.
#pragma once

#include <cstddef>
#include <cstring>

#include "core/deflate_format.hpp"

namespace flowdeflate::core {

using MfPos = s16;
inline constexpr MfPos kMfInitVal = MfPos(-s32(kWindowSize));

[[gnu::always_inline]] inline u32 load_u32(const u8* p) {
    u32 v;
    std::memcpy(&v, p, 4);
    return v;
}
[[gnu::always_inline]] inline u64 load_u64(const u8* p) {
    u64 v;
    std::memcpy(&v, p, 8);
    return v;
}
[[gnu::always_inline]] inline u32 load_u24(const u8* p) { return load_u32(p) & 0xFFFFFF; }

// Searches without branches, for incompressible input, where whether a bucket holds a
// position in the window is a coin toss (the finders' "flat" forms): masks, not selects,
// which the compiler turns back into branches when it can see where a condition came from.

/// @p v, which the compiler may not reason about.
[[gnu::always_inline]] inline u32 opaque(u32 v) {
    asm("" : "+r"(v));
    return v;
}
/// @p a where @p mask is all ones, @p b where it is zero.
[[gnu::always_inline]] inline s32 pick(u32 mask, s32 a, s32 b) { return s32((u32(a) & mask) | (u32(b) & ~mask)); }

/// Chooses a finder's form once per window from @p quick, the searches of the window
/// just passed that ended early (an empty bucket; in the flat form also a head that did
/// not match where its chain or tree ended): the flat form where they were more than half
/// of the window's positions.  Both forms find the same matches; only their speed differs.
[[gnu::always_inline]] inline bool choose_flat(u32 quick) { return quick > kWindowSize / 2; }

/// libdeflate's multiplicative hash.
[[gnu::always_inline]] inline u32 lz_hash(u32 seq, u32 num_bits) { return u32(seq * 0x1E35A7BDu) >> (32 - num_bits); }

/// Sets @p count entries to kMfInitVal (an empty table).
void mf_init(MfPos* data, std::size_t count);

/// Subtracts 32768 from every entry with signed saturation: entries that were negative
/// (already behind the old window) become kMfInitVal.  This runs once per 32 KiB of
/// input over up to 256 KiB of tables (match_finder_common.cpp: AVX-512 or AVX2 where the
/// CPU has them, chosen at load time).
void mf_rebase(MfPos* data, std::size_t count);

/// Length of the common prefix of @p a and @p b, known to be at least @p start_len and
/// capped at @p max_len.
[[gnu::always_inline]] inline u32 lz_extend(const u8* a, const u8* b, u32 start_len, u32 max_len) {
    u32 len = start_len;
    if (max_len - len >= 32) [[likely]] {  // room for 4 whole words: no bound checks
        for (int i = 0; i < 4; ++i) {
            const u64 v = load_u64(a + len) ^ load_u64(b + len);
            if (v != 0) return len + (u32(__builtin_ctzll(v)) >> 3);
            len += 8;
        }
    }
    while (len + 8 <= max_len) {
        const u64 v = load_u64(a + len) ^ load_u64(b + len);
        if (v != 0) return len + (u32(__builtin_ctzll(v)) >> 3);
        len += 8;
    }
    while (len < max_len && a[len] == b[len]) len++;
    return len;
}

[[gnu::always_inline]] inline void prefetch_write(const void* p) { __builtin_prefetch(p, 1); }

}  // namespace flowdeflate::core
