// block_split.hpp - libdeflate's block-splitting heuristic.
//
// While parsing, each literal and match is reduced to one of 10 "observation types"
// (literals by their top 2 bits and low bit, matches by short/long).  Every 512 new
// observations, once the block is at least 5000 bytes long and 5000 bytes remain, the
// new observations' distribution is compared with the block's so far; a large enough
// sum of absolute differences (scaled to stay in integers), plus a term growing with the
// block length, ends the block.  The statistics are part of the parse state.
#pragma once

#include "core/deflate_format.hpp"

namespace flowdeflate::core {

struct BlockSplitStats {
    static constexpr u32 kLiteralTypes = 8;
    static constexpr u32 kMatchTypes = 2;
    static constexpr u32 kTypes = kLiteralTypes + kMatchTypes;
    static constexpr u32 kObservationsPerCheck = 512;

    u32 new_observations[kTypes];
    u32 observations[kTypes];
    u32 num_new_observations;
    u32 num_observations;

    void reset() { *this = BlockSplitStats{}; }

    [[gnu::always_inline]] static u32 literal_type(u8 lit) { return ((lit >> 5) & 0x6) | (lit & 1); }
    [[gnu::always_inline]] static u32 match_type(u32 length) { return kLiteralTypes + (length >= 9); }
    [[gnu::always_inline]] void observe_literal(u8 lit) {
        new_observations[literal_type(lit)]++;
        num_new_observations++;
    }
    [[gnu::always_inline]] void observe_match(u32 length) {
        new_observations[match_type(length)]++;
        num_new_observations++;
    }
    void merge_new_observations() {
        for (u32 i = 0; i < kTypes; ++i) {
            observations[i] += new_observations[i];
            new_observations[i] = 0;
        }
        num_observations += num_new_observations;
        num_new_observations = 0;
    }

    /// The periodic check: true means "end the block here".  Otherwise the new
    /// observations are merged into the block's.
    bool do_end_block_check(u32 block_length) {
        if (num_observations > 0) {
            u32 total_delta = 0;
            for (u32 i = 0; i < kTypes; ++i) {
                const u32 expected = observations[i] * num_new_observations;
                const u32 actual = new_observations[i] * num_observations;
                total_delta += actual > expected ? actual - expected : expected - actual;
            }
            const u32 num_items = num_observations + num_new_observations;
            // Split when the sum of differences of probabilities reaches 200/512.
            u32 cutoff = num_new_observations * 200 / 512 * num_observations;
            // Short blocks cost a lot of header: demand a clearer change.
            if (block_length < 10000 && num_items < 8192) cutoff += u32(u64(cutoff) * (8192 - num_items) / 8192);
            if (total_delta + (block_length / 4096) * num_observations >= cutoff) return true;
        }
        merge_new_observations();
        return false;
    }

    [[nodiscard]] bool ready_to_check(const u8* block_begin, const u8* in_next, const u8* in_end) const {
        return num_new_observations >= kObservationsPerCheck && in_next - block_begin >= s32(kMinBlockLength) &&
               in_end - in_next >= s32(kMinBlockLength);
    }

    bool should_end_block(const u8* block_begin, const u8* in_next, const u8* in_end) {
        if (!ready_to_check(block_begin, in_next, in_end)) return false;
        return do_end_block_check(u32(in_next - block_begin));
    }
};

/// The end of a block that starts at @p block_begin: the soft maximum, unless the rest of
/// the input is shorter than that plus a minimum block (then the block takes it all).
[[gnu::always_inline]] inline const u8* choose_max_block_end(const u8* block_begin, const u8* in_end,
                                                             std::size_t soft_max_len) {
    if (std::size_t(in_end - block_begin) < soft_max_len + kMinBlockLength) return in_end;
    return block_begin + soft_max_len;
}

/// libdeflate's min-match-length heuristic: the fewer distinct literals, the cheaper
/// literals are, the longer a match must be to be worth it (3..9).
inline u32 choose_min_match_len(u32 num_used_literals, u32 max_search_depth) {
    static constexpr u8 kMinLens[] = {
        9, 9, 9, 9, 9, 9, 8, 8, 7, 7, 6, 6, 6, 6, 6, 6, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
        5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
        4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    };
    if (num_used_literals >= std::size(kMinLens)) return 3;
    u32 min_len = kMinLens[num_used_literals];
    if (max_search_depth < 16) {  // a shallow search rarely finds long matches
        if (max_search_depth < 5)
            min_len = std::min(min_len, 4u);
        else if (max_search_depth < 10)
            min_len = std::min(min_len, 5u);
        else
            min_len = std::min(min_len, 7u);
    }
    return min_len;
}

/// The literals a block's initial min match length counts: the distinct byte values in its
/// first 4 KiB (256, as if all were used, for blocks under 512 bytes: static codes are
/// likely there, and min_len 3).
inline u32 used_literals_in(const u8* data, std::size_t data_len) {
    if (data_len < 512) return kNumLiterals;
    data_len = std::min<std::size_t>(data_len, 4096);
    u8 used[256] = {};
    for (std::size_t i = 0; i < data_len; ++i) used[data[i]] = 1;
    u32 num_used = 0;
    for (u32 i = 0; i < 256; ++i) num_used += used[i];
    return num_used;
}

/// choose_min_match_len(used_literals_in(data, data_len), depth), sooner: every count
/// from kMinLenThreeUsed on gives min_len 3, so it stops counting once that many distinct
/// values are seen (most binary data gets there within 1 KiB of its 4).
inline u32 min_match_len_at_block_start(const u8* data, std::size_t data_len, u32 max_search_depth) {
    constexpr u32 kMinLenThreeUsed = 80;
    constexpr std::size_t kCheckEvery = 512;
    if (data_len < 512) return choose_min_match_len(kNumLiterals, max_search_depth);
    data_len = std::min<std::size_t>(data_len, 4096);
    u8 used[256] = {};
    const auto count = [&] {
        u32 n = 0;
        for (u32 i = 0; i < 256; ++i) n += used[i];
        return n;
    };
    for (std::size_t i = 0; i < data_len;) {
        const std::size_t stop = std::min(data_len, i + kCheckEvery);
        for (; i < stop; ++i) used[data[i]] = 1;
        if (i < data_len && count() >= kMinLenThreeUsed) return choose_min_match_len(kMinLenThreeUsed, max_search_depth);
    }
    return choose_min_match_len(count(), max_search_depth);
}

/// The literals the recalculation counts: those the block used so far, rare ones left out.
inline u32 used_literals_of(const u32 litlen_freqs[]) {
    u32 literal_freq = 0;
    for (u32 i = 0; i < kNumLiterals; ++i) literal_freq += litlen_freqs[i];
    const u32 cutoff = literal_freq >> 10;
    u32 num_used = 0;
    for (u32 i = 0; i < kNumLiterals; ++i) num_used += litlen_freqs[i] > cutoff;
    return num_used;
}

/// Initial min match length of a block.
inline u32 calculate_min_match_len(const u8* data, std::size_t data_len, u32 max_search_depth) {
    return min_match_len_at_block_start(data, data_len, max_search_depth);
}

/// Recalculation from the literals the block actually used.
inline u32 recalculate_min_match_len(const u32 litlen_freqs[], u32 max_search_depth) {
    return choose_min_match_len(used_literals_of(litlen_freqs), max_search_depth);
}

/// The min match lengths (bit m - 3) that choose_min_match_len() gives for counts within
/// @p margin of @p num_used: where a parse of the same data that counted a little
/// differently (another block start) may land.
inline u32 min_lens_near(u32 num_used, u32 max_search_depth, u32 margin) {
    u32 mask = 0;
    for (u32 n = num_used > margin ? num_used - margin : 0; n <= num_used + margin; ++n)
        mask |= 1u << (choose_min_match_len(n, max_search_depth) - kMinMatchLen);
    return mask;
}

}  // namespace flowdeflate::core
