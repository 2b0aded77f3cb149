// bt_match_finder.hpp - the binary-tree match finder of levels 10-12 (libdeflate's
// bt_matchfinder).
//
// Each 4-byte hash bucket roots a binary search tree of earlier positions ordered by the
// strings that start there; inserting a position re-roots the tree at it, and the walk
// that splits the old tree also reports matches of increasing length.  A 2-way 3-byte
// hash table supplies length-3 matches.  Depth is limited by max_search_depth; a subtree
// that was cut off is dropped.  Along any root-to-leaf path positions decrease, so the
// part of a tree inside the window does not depend on what lies behind it.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/match_finder_common.hpp"

namespace flowdeflate::core {

/// A match reported by the binary-tree finder.
struct LzMatch {
    u16 length;
    u16 offset;
};

class BtMatchFinder {
public:
    static constexpr u32 kHash3Order = 16;
    static constexpr u32 kHash3Ways = 2;
    static constexpr u32 kHash4Order = 16;
    static constexpr u32 kRequiredBytes = 5;

    void init(const u8* base) {
        mf_init(&hash3_[0][0], sizeof(hash3_) / sizeof(MfPos));
        mf_init(hash4_, std::size(hash4_));
        base_ = base;
        flat_ = false;
        quick_ = 0;
    }
    [[nodiscard]] const u8* base() const { return base_; }

    /// Slides the window when @p in_next reaches the end of the current one.
    [[gnu::always_inline]] void slide_if_needed(const u8* in_next) {
        if (in_next - base_ == s32(kWindowSize)) {
            mf_rebase(&hash3_[0][0], sizeof(hash3_) / sizeof(MfPos));
            mf_rebase(hash4_, std::size(hash4_));
            mf_rebase(child_, std::size(child_));
            base_ += kWindowSize;
            choose_root_step();
        }
    }

    /// A digest of the tables and the base (tests: the root step's two forms must leave the
    /// same ones; slots never written count as they are, zero in a value-initialised finder).
    [[nodiscard]] u64 table_digest() const {
        u64 d = u64(reinterpret_cast<std::uintptr_t>(base_));
        const auto mix = [&d](const void* p, std::size_t bytes) {
            for (std::size_t i = 0; i + 8 <= bytes; i += 8) {
                u64 w;
                std::memcpy(&w, static_cast<const u8*>(p) + i, 8);
                d = (d ^ w) * 0x9E3779B97F4A7C15ull;
                d ^= d >> 29;
            }
        };
        mix(hash3_, sizeof(hash3_));
        mix(hash4_, sizeof(hash4_));
        mix(child_, sizeof(child_));
        return d;
    }

    /// Forces the root step's form (tests: both must find the same; see advance()).
    void set_flat_root_step(bool flat) { flat_ = flat; }
    [[nodiscard]] bool flat_root_step() const { return flat_; }

    static void hashes(const u8* p, u32 next_hashes[2]) {
        const u32 seq = load_u32(p);
        next_hashes[0] = lz_hash(seq & 0xFFFFFF, kHash3Order);
        next_hashes[1] = lz_hash(seq, kHash4Order);
    }

    /// Finds the matches at @p in_next (sorted by strictly increasing length) into
    /// @p out and inserts the position.  Returns the end of the written matches.
    [[gnu::always_inline]] LzMatch* get_matches(const u8* in_next, u32 max_len, u32 nice_len, u32 max_search_depth,
                                                u32 next_hashes[2], LzMatch* out) {
        if (flat_)
            return advance<true, true>(in_next, max_len, nice_len, max_search_depth, next_hashes, out);
        return advance<true, false>(in_next, max_len, nice_len, max_search_depth, next_hashes, out);
    }

    /// The near-optimal parser's step at a searched position: slides the window when due,
    /// then finds the matches, unless fewer than kRequiredBytes remain (@p max_len), where
    /// it neither searches nor inserts.  Returns the end of the written matches.
    [[gnu::always_inline]] LzMatch* matches_at(const u8* in_next, u32 max_len, u32 nice_len, u32 max_search_depth,
                                               u32 next_hashes[2], LzMatch* out) {
        slide_if_needed(in_next);
        if (max_len < kRequiredBytes) [[unlikely]]
            return out;
        return get_matches(in_next, max_len, nice_len, max_search_depth, next_hashes, out);
    }
    /// The same step at a position inside a long match: inserted, nothing reported.
    [[gnu::always_inline]] void skip_at(const u8* in_next, u32 max_len, u32 nice_len, u32 max_search_depth,
                                        u32 next_hashes[2]) {
        slide_if_needed(in_next);
        if (max_len >= kRequiredBytes) skip_byte(in_next, nice_len, max_search_depth, next_hashes);
    }

    /// Inserts the position at @p in_next without reporting matches.
    [[gnu::always_inline]] void skip_byte(const u8* in_next, u32 nice_len, u32 max_search_depth,
                                          u32 next_hashes[2]) {
        if (flat_)
            advance<false, true>(in_next, nice_len, nice_len, max_search_depth, next_hashes, nullptr);
        else
            advance<false, false>(in_next, nice_len, nice_len, max_search_depth, next_hashes, nullptr);
    }

    /// Brings a fresh finder to the state libdeflate has at @p p, where its base pointer
    /// is @p base (<= p): every position of the 32 KiB before p inserted, in order, with
    /// the parser's @p nice_len and @p max_search_depth (a skipped and a searched position
    /// change the trees alike).  Positions before @p base are inserted under the previous
    /// base and slid, exactly as they were.
    void prime(const u8* input_begin, const u8* base, const u8* p, u32 nice_len, u32 max_search_depth,
               u32 next_hashes[2]) {
        const u8* from = p - std::min<std::size_t>(std::size_t(p - input_begin), kWindowSize - 1);
        init(from < base ? base - kWindowSize : base);
        if (from == input_begin)
            next_hashes[0] = next_hashes[1] = 0;  // libdeflate's first position: bucket 0
        else
            hashes(from, next_hashes);
        for (const u8* q = from; q < p; ++q) {
            slide_if_needed(q);
            skip_byte(q, nice_len, max_search_depth, next_hashes);
        }
        slide_if_needed(p);
    }

private:
    void choose_root_step() {
        flat_ = choose_flat(quick_);
        quick_ = 0;
    }
    static u32 slot(s32 node) { return 2 * (u32(node) & (kWindowSize - 1)); }
    MfPos* left(s32 node) { return &child_[slot(node)]; }
    MfPos* right(s32 node) { return &child_[slot(node) + 1]; }

    template <bool kRecord, bool kFlat>
    [[gnu::always_inline]] LzMatch* advance(const u8* in_next, u32 max_len, u32 nice_len, u32 max_search_depth,
                                            u32 next_hashes[2], LzMatch* out) {
        const u8* const base = base_;
        const s32 cur_pos = s32(in_next - base);
        const s32 cutoff = cur_pos - s32(kWindowSize);
        u32 depth_remaining = max_search_depth;
        u32 best_len = 3;

        const u32 h3 = next_hashes[0];
        const u32 h4 = next_hashes[1];
        hashes(in_next + 1, next_hashes);
        prefetch_write(&hash3_[next_hashes[0]]);
        prefetch_write(&hash4_[next_hashes[1]]);

        s32 cur_node = hash3_[h3][0];
        hash3_[h3][0] = MfPos(cur_pos);
        const s32 cur_node_2 = hash3_[h3][1];
        hash3_[h3][1] = MfPos(cur_node);
        if (kRecord) {
            // The length-3 match, newest way first, without branches: on incompressible
            // input whether a bucket holds a position in the window is a coin toss (about
            // 0.4 at 16 bits), and those mispredictions were a third of the search there.
            // A way outside the window reads the current position instead (always a valid
            // address) and cannot match; the entry is written either way, counted only on
            // a match (the caller's room holds it).  libdeflate tests the second way only
            // when the first is in the window; testing it always is the same because the
            // second way is the first's previous value, never newer (positions are
            // inserted in order, and a slide keeps their order).
            const u32 seq3 = load_u24(in_next);
            const bool in1 = cur_node > cutoff;
            const bool in2 = cur_node_2 > cutoff;
            const s32 node1 = in1 ? cur_node : cur_pos;
            const s32 node2 = in2 ? cur_node_2 : cur_pos;
            const bool hit1 = in1 & (load_u24(base + node1) == seq3);
            const bool hit2 = in2 & (load_u24(base + node2) == seq3);
            out->length = 3;
            out->offset = u16(cur_pos - (hit1 ? node1 : node2));
            out += unsigned(hit1 | hit2);
        }

        cur_node = hash4_[h4];
        hash4_[h4] = MfPos(cur_pos);
        MfPos* pending_lt = left(cur_pos);
        MfPos* pending_gt = right(cur_pos);
        // The root's step takes one of two forms, which leave the same trees and report
        // the same matches; only their speed differs, by the input.  Where roots lie in
        // the window and match their first byte (compressible input), the branches of the
        // plain walk are predicted and it is the shortest.  On incompressible input both
        // are coin tosses (the root is in the window ~40% of the time at 16 bits, then its
        // side is random) and the walk rarely goes deeper, so the flat form takes that
        // step without branches: a root outside the window reads the current position (a
        // valid address) and links nothing, and both children end up empty, as they do
        // when a walk stops.  Each counts the searches that end early (choose_flat(), at
        // each slide): the plain form those whose root lies outside the window, the flat
        // one also those whose root's child on the walk's side does (so the flat form
        // holds a little longer).
        if constexpr (kFlat) {
            const u32 in = opaque(u32(cur_node > cutoff));
            const u32 in_mask = 0u - in;
            const s32 root = pick(in_mask, cur_node, cur_pos);
            const u32 root_byte = base[root];
            if (opaque(in & u32(root_byte == in_next[0]))) goto walk;
            const u32 lt = opaque(u32(root_byte < in_next[0]));  // outside: equal, gt side
            const u32 cur_slot = slot(cur_pos);
            const u32 next = slot(root) + lt;  // lt: the root's right child, else its left
            child_[cur_slot + (lt ^ 1)] = MfPos(pick(in_mask, root, kMfInitVal));
            cur_node = pick(in_mask, child_[next], kMfInitVal);
            pending_lt = &child_[u32(pick(0u - lt, s32(next), s32(cur_slot)))];
            pending_gt = &child_[u32(pick(0u - lt, s32(cur_slot + 1), s32(next)))];
            if (cur_node <= cutoff || !--depth_remaining) {
                ++quick_;
                *pending_lt = kMfInitVal;
                *pending_gt = kMfInitVal;
                return out;
            }
        } else if (cur_node <= cutoff) {
            ++quick_;
            *pending_lt = kMfInitVal;
            *pending_gt = kMfInitVal;
            return out;
        }
    walk: __attribute__((unused));  // (the plain form does not jump here)
        u32 best_lt_len = 0, best_gt_len = 0, len = 0;
        for (;;) {
            const u8* m = base + cur_node;
            if (m[len] == in_next[len]) {
                len = lz_extend(in_next, m, len + 1, max_len);
                if (!kRecord || len > best_len) {
                    if (kRecord) {
                        best_len = len;
                        out->length = u16(len);
                        out->offset = u16(in_next - m);
                        out++;
                    }
                    if (len >= nice_len) {
                        *pending_lt = *left(cur_node);
                        *pending_gt = *right(cur_node);
                        return out;
                    }
                }
            }
            if (m[len] < in_next[len]) {
                *pending_lt = MfPos(cur_node);
                pending_lt = right(cur_node);
                cur_node = *pending_lt;
                best_lt_len = len;
                if (best_gt_len < len) len = best_gt_len;
            } else {
                *pending_gt = MfPos(cur_node);
                pending_gt = left(cur_node);
                cur_node = *pending_gt;
                best_gt_len = len;
                if (best_lt_len < len) len = best_lt_len;
            }
            if (cur_node <= cutoff || !--depth_remaining) {
                *pending_lt = kMfInitVal;
                *pending_gt = kMfInitVal;
                return out;
            }
        }
    }

    alignas(64) MfPos hash3_[1u << kHash3Order][kHash3Ways];
    alignas(64) MfPos hash4_[1u << kHash4Order];
    alignas(64) MfPos child_[2 * kWindowSize];
    const u8* base_ = nullptr;
    bool flat_ = false;  ///< the root step's form (see advance())
    u32 quick_ = 0;      ///< searches since the last slide that ended early (see advance())
};

}  // namespace flowdeflate::core
