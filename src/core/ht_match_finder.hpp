// ht_match_finder.hpp - the hash-table match finder of level 1 (libdeflate's
// ht_matchfinder): each hash bucket remembers the 2 most recent positions whose next
// 4 bytes hash there; only matches of length >= 4 are found.  No chains, so it is fast
// and forgetful.
//
// Two details of libdeflate's finder look like state but are not observable: a lookup
// whose newest entry is out of the window replaces only that entry (the other is out of
// the window too), and skip_bytes() slides the window *before* a skipped run that would
// cross the 32 KiB boundary (up to 257 bytes early), forgetting some history early - but
// the next lookup after such a skip is already past the boundary, where that history is
// out of the window anyway.  So priming (insert every position of the 32 KiB before p)
// reproduces every lookup; parse_resume_test checks it around every boundary.
#pragma once

#include "core/match_finder_common.hpp"

namespace flowdeflate::core {

class HtMatchFinder {
public:
    static constexpr u32 kHashOrder = 15;
    static constexpr u32 kBucketSize = 2;
    static constexpr u32 kMinMatchLen = 4;
    static constexpr u32 kRequiredBytes = 5;

    void init(const u8* base) {
        mf_init(&tab_[0][0], sizeof(tab_) / sizeof(MfPos));
        base_ = base;
    }
    [[nodiscard]] const u8* base() const { return base_; }

    static u32 hash(const u8* p) { return lz_hash(load_u32(p), kHashOrder); }

    /// Longest match (>= 4) at @p in_next, inserting it.  Returns 0 when none.
    [[gnu::always_inline]] u32 longest_match(const u8* in_next, u32 max_len, u32 nice_len, u32& next_hash,
                                             u32& offset_out) {
        u32 cur_pos = u32(in_next - base_);
        if (cur_pos == kWindowSize) {
            slide();
            cur_pos = 0;
        }
        const MfPos cutoff = MfPos(s32(cur_pos) - s32(kWindowSize));
        const u32 h = next_hash;
        next_hash = hash(in_next + 1);
        const u32 seq = load_u32(in_next);
        prefetch_write(&tab_[next_hash]);

        u32 best_len = 0;
        const u8* best = in_next;
        MfPos node = tab_[h][0];
        tab_[h][0] = MfPos(cur_pos);
        if (node <= cutoff) goto out;
        {
            const u8* m = base_ + node;
            const MfPos second = tab_[h][1];
            tab_[h][1] = node;
            if (load_u32(m) == seq) {
                best_len = lz_extend(in_next, m, 4, max_len);
                best = m;
                if (second <= cutoff || best_len >= nice_len) goto out;
                m = base_ + second;
                if (load_u32(m) == seq && load_u32(m + best_len - 3) == load_u32(in_next + best_len - 3)) {
                    const u32 len = lz_extend(in_next, m, 4, max_len);
                    if (len > best_len) {
                        best_len = len;
                        best = m;
                    }
                }
            } else {
                if (second <= cutoff) goto out;
                m = base_ + second;
                if (load_u32(m) == seq) {
                    best_len = lz_extend(in_next, m, 4, max_len);
                    best = m;
                }
            }
        }
    out:
        offset_out = u32(in_next - best);
        return best_len;
    }

    /// Inserts @p count positions starting at @p in_next without searching.
    [[gnu::always_inline]] void skip_bytes(const u8* in_next, const u8* in_end, u32 count, u32& next_hash) {
        if (count + kRequiredBytes > std::size_t(in_end - in_next)) [[unlikely]]
            return;
        s32 cur_pos = s32(in_next - base_);
        if (cur_pos + s32(count) - 1 >= s32(kWindowSize)) {
            slide();
            cur_pos -= s32(kWindowSize);
        }
        u32 h = next_hash;
        u32 remaining = count;
        do {
            tab_[h][1] = tab_[h][0];
            tab_[h][0] = MfPos(cur_pos);
            h = hash(++in_next);
            cur_pos++;
        } while (--remaining);
        prefetch_write(&tab_[h]);
        next_hash = h;
    }

    /// Brings a fresh finder to the state libdeflate has at @p p, given the base pointer
    /// it has there (@p base, which may be up to 257 bytes after p after an early slide)
    /// and the input from @p input_begin.  See parse_state.hpp.
    void prime(const u8* input_begin, const u8* base, const u8* p, u32& next_hash) {
        init(base);
        const u8* from = std::max(input_begin, std::max(p, base) - kWindowSize + 1);
        if (from == input_begin) {
            // libdeflate starts with next_hash = 0: the first position goes to bucket 0.
            next_hash = 0;
        } else {
            next_hash = hash(from);
        }
        for (const u8* q = from; q < p; ++q) {
            tab_[next_hash][1] = tab_[next_hash][0];
            tab_[next_hash][0] = MfPos(q - base_);
            next_hash = hash(q + 1);
        }
    }

private:
    void slide() {
        mf_rebase(&tab_[0][0], sizeof(tab_) / sizeof(MfPos));
        base_ += kWindowSize;
    }

    alignas(64) MfPos tab_[1u << kHashOrder][kBucketSize];
    const u8* base_ = nullptr;
};

}  // namespace flowdeflate::core
