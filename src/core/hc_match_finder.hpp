// hc_match_finder.hpp - the hash-chain match finder of levels 2-9 (libdeflate's
// hc_matchfinder).
//
// A 3-byte hash table remembers the most recent position for length-3 matches; a 4-byte
// hash table heads chains (linked through next_tab_, indexed by position mod 32 KiB) of
// all earlier positions with the same 4-byte hash.  A search walks the chain newest
// first, at most max_search_depth nodes, and stops early at nice_len.  Every position is
// inserted, searched or skipped, so the state at p is a function of the 32 KiB before p
// (plus libdeflate's quirk that the very first position is hashed as bucket 0).
#pragma once

#include <array>

#include "core/match_finder_common.hpp"

namespace flowdeflate::core {

namespace hc_detail {
// A parse step's first decision for min_len m, from (chain_len clamped to 9, node3_valid,
// a near 3-byte match): longest_match(m - 1) gives the chain's match when the chain has
// one longer than m - 1 (for m <= 4 only when node3 is valid: it gives up without one),
// and for m = 3 the 3-byte match when the chain has none.
enum : u32 { kLiteral = 0, kChain = 1, kThree = 2 };
constexpr u32 step_outcome(u32 m, u32 c, bool v, bool t) {
    if (m <= 4) {
        if (!v) return kLiteral;
        if (c >= 4) return kChain;
        return m == 3 && t ? kThree : kLiteral;
    }
    return c >= m ? kChain : kLiteral;
}
// [min_len - 3][key]: the step's mask (bits 0-6) and outcome (bits 8-9), see
// HcMatchFinder::SharedMatch::step().
inline constexpr auto kStepTable = [] {
    std::array<std::array<u16, 40>, 7> table{};
    for (u32 mh = 3; mh <= 9; ++mh)
        for (u32 key = 0; key < 40; ++key) {
            const u32 c = key / 4;
            const bool v = key & 2, t = key & 1;
            const u32 mine = step_outcome(mh, c, v, t);
            u32 mask = 0;
            for (u32 m = 3; m <= 9; ++m)
                if (step_outcome(m, c, v, t) == mine) mask |= 1u << (m - 3);
            table[mh - 3][key] = u16(mask | mine << 8);
        }
    return table;
}();
}  // namespace hc_detail

class HcMatchFinder {
public:
    static constexpr u32 kHash3Order = 15;
    static constexpr u32 kHash4Order = 16;

    void init(const u8* base) {
        mf_init(hash3_, std::size(hash3_));
        mf_init(hash4_, std::size(hash4_));
        base_ = base;
        flat_ = false;
        quick_ = 0;
    }
    [[nodiscard]] const u8* base() const { return base_; }

    static void hashes(const u8* p, u32 next_hashes[2]) {
        const u32 seq = load_u32(p);
        next_hashes[0] = lz_hash(seq & 0xFFFFFF, kHash3Order);
        next_hashes[1] = lz_hash(seq, kHash4Order);
    }

    /// Longest match at @p in_next longer than @p best_len, inserting the position.
    /// Returns best_len unchanged when nothing longer was found.  kLog: keeps the
    /// 3-byte bucket's old head for search_past() (a parse that branches).
    template <bool kLog = false>
    [[gnu::always_inline]] u32 longest_match(const u8* in_next, u32 best_len, u32 max_len, u32 nice_len,
                                             u32 max_search_depth, u32 next_hashes[2], u32& offset_out) {
        if (flat_)
            return search<kLog, true>(in_next, best_len, max_len, nice_len, max_search_depth, next_hashes, offset_out);
        return search<kLog, false>(in_next, best_len, max_len, nice_len, max_search_depth, next_hashes, offset_out);
    }

    /// Forces the search's form until the next slide (tests: both must find the same).
    void set_flat_search(bool flat) { flat_ = flat; }
    [[nodiscard]] bool flat_search() const { return flat_; }

private:
    template <bool kLog, bool kFlat>
    [[gnu::always_inline]] u32 search(const u8* in_next, u32 best_len, u32 max_len, u32 nice_len,
                                      u32 max_search_depth, u32 next_hashes[2], u32& offset_out) {
        u32 depth_remaining = max_search_depth;
        const u8* best = in_next;
        u32 cur_pos = u32(in_next - base_);
        if (cur_pos == kWindowSize) {
            slide();
            cur_pos = 0;
        }
        const u8* const base = base_;
        const MfPos cutoff = MfPos(s32(cur_pos) - s32(kWindowSize));
        if (max_len < 5) [[unlikely]]
            goto out;
        {
            MfPos node3, node4;
            insert_searched<kLog>(in_next, cur_pos, next_hashes, node3, node4);
            const u8* m;
            if (best_len < 4) {
                // Two forms that find the same match.  The plain one gives up at an empty
                // 3-byte bucket, then at an empty chain, then walks.  On incompressible
                // input those are coin tosses (a 3-byte bucket holds a position in the
                // window ~60% of the time, a chain ~40%), so the flat form decides them
                // without branches, reading the current position where a bucket is empty
                // (a valid address that cannot count), and takes the plain form only where
                // the chain's head matches 4 bytes or the chain goes on.  Each counts the
                // searches that end early (choose_flat(), at each slide): the plain form
                // those at an empty bucket, the flat one also those whose head did not
                // match where the chain ended (so the flat form holds a little longer).
                if constexpr (kFlat) {
                    const FlatHead head = flat_head(in_next, cur_pos, node3, node4, depth_remaining);
                    if (head.walk) goto plain;
                    ++quick_;
                    const u32 hit3 = head.match3(base) & u32(best_len < 3);
                    best = base + pick(0u - hit3, head.at3, s32(cur_pos));
                    best_len = u32(pick(0u - hit3, 3, s32(best_len)));
                    goto out;
                }
            plain: __attribute__((unused));  // (the plain form does not jump here)
                if (node3 <= cutoff) {
                    if constexpr (!kFlat) ++quick_;
                    goto out;
                }
                const u32 seq4 = load_u32(in_next);
                if (best_len < 3) {
                    m = base + node3;
                    if (load_u24(m) == (seq4 & 0xFFFFFF)) {
                        best_len = 3;
                        best = m;
                    }
                }
                if (node4 <= cutoff) {
                    if constexpr (!kFlat) ++quick_;
                    goto out;
                }
                for (;;) {
                    m = base + node4;
                    if (load_u32(m) == seq4) break;
                    node4 = next_[u16(node4) & (kWindowSize - 1)];
                    if (node4 <= cutoff || !--depth_remaining) goto out;
                }
                best = m;
                best_len = lz_extend(in_next, m, 4, max_len);
                if (best_len >= nice_len) goto out;
                node4 = next_[u16(node4) & (kWindowSize - 1)];
                if (node4 <= cutoff || !--depth_remaining) goto out;
            } else {
                // libdeflate walks the chain here whatever the 3-byte bucket says.  Where
                // the bucket's head lies outside the window, no position in the window
                // shares the first 3 bytes (the head is the newest with that hash), so no
                // chain node can match 4 or more: the walk would only visit 4-byte hash
                // collisions and find nothing.  It is skipped there.
                if (node4 <= cutoff || node3 <= cutoff || best_len >= nice_len) goto out;
            }
            for (;;) {
                for (;;) {
                    m = base + node4;
                    if (load_u32(m + best_len - 3) == load_u32(in_next + best_len - 3) &&
                        load_u32(m) == load_u32(in_next))
                        break;
                    node4 = next_[u16(node4) & (kWindowSize - 1)];
                    if (node4 <= cutoff || !--depth_remaining) goto out;
                }
                const u32 len = lz_extend(in_next, m, 4, max_len);
                if (len > best_len) {
                    best_len = len;
                    best = m;
                    if (best_len >= nice_len) goto out;
                }
                node4 = next_[u16(node4) & (kWindowSize - 1)];
                if (node4 <= cutoff || !--depth_remaining) goto out;
            }
        }
    out:
        offset_out = u32(in_next - best);
        return best_len;
    }

public:
    /// Inserts @p count positions from @p in_next without searching (kLog: see
    /// longest_match()).
    template <bool kLog = false>
    [[gnu::always_inline]] void skip_bytes(const u8* in_next, const u8* in_end, u32 count, u32 next_hashes[2]) {
        if (count + 5 > std::size_t(in_end - in_next)) [[unlikely]]
            return;
        u32 cur_pos = u32(in_next - base_);
        u32 h3 = next_hashes[0];
        u32 h4 = next_hashes[1];
        u32 remaining = count;
        do {
            if (cur_pos == kWindowSize) {
                slide();
                cur_pos = 0;
            }
            if constexpr (kLog) log3_[cur_pos & (kLog3Size - 1)] = hash3_[h3];
            hash3_[h3] = MfPos(cur_pos);
            next_[cur_pos] = hash4_[h4];
            hash4_[h4] = MfPos(cur_pos);
            const u32 seq = load_u32(++in_next);
            h3 = lz_hash(seq & 0xFFFFFF, kHash3Order);
            h4 = lz_hash(seq, kHash4Order);
            cur_pos++;
        } while (--remaining);
        prefetch_write(&hash3_[h3]);
        prefetch_write(&hash4_[h4]);
        next_hashes[0] = h3;
        next_hashes[1] = h4;
    }

    /// Brings a fresh finder to the state libdeflate has at @p p: every position of the
    /// 32 KiB before p inserted, with the base libdeflate has there (@p base <= p).
    void prime(const u8* input_begin, const u8* base, const u8* p, u32 next_hashes[2]) {
        init(base);
        const u8* from = std::max(input_begin, p - std::min<std::size_t>(p - input_begin, kWindowSize - 1));
        if (from == input_begin) {
            next_hashes[0] = next_hashes[1] = 0;  // libdeflate's first position: bucket 0
        } else {
            hashes(from, next_hashes);
        }
        for (const u8* q = from; q < p; ++q) {
            const u32 pos = u32(s32(q - base_)) ;
            hash3_[next_hashes[0]] = MfPos(pos);
            next_[pos & (kWindowSize - 1)] = hash4_[next_hashes[1]];
            hash4_[next_hashes[1]] = MfPos(pos);
            hashes(q + 1, next_hashes);
        }
    }

    // ---- for the parallel search's tracks, which share searches ------------------------
    // The tracks of a chunk move through the input together; at each position the match
    // finder holds exactly the positions before it.  One search per position and depth
    // serves every track: search_shared() keeps what any best_len (>= 2) needs, and
    // SharedMatch::result() gives what longest_match() would return for that best_len.

    /// What a search at one position found, for every best_len at once.
    struct SharedMatch {
        bool node3_valid = false;  ///< a position with the same 3-byte hash lies in the window
        bool match3 = false;       ///< ... and its first 3 bytes match
        u32 offset3 = 0;
        u32 chain_len = 0;         ///< longest match of >= 4 bytes on the chain (first found), or 0
        u32 chain_offset = 0;

        /// longest_match()'s length (and @p offset) for a search started at @p best_len.
        [[nodiscard]] u32 result(u32 best_len, u32& offset) const {
            if (best_len >= 4) {
                if (chain_len > best_len) {
                    offset = chain_offset;
                    return chain_len;
                }
                return best_len;
            }
            if (!node3_valid) return best_len;
            if (chain_len >= 4) {
                offset = chain_offset;
                return chain_len;
            }
            if (best_len < 3 && match3) {
                offset = offset3;
                return 3;
            }
            return best_len;
        }

        /// What a parse step that begins here decides with @p min_len (3..9): its first
        /// search's result (longest_match() with best_len = min_len - 1, and @p offset),
        /// or 0 when the step is a literal whatever the match (a length-3 match farther
        /// than @p far3 is one: the parser's rule); @p mask gets the step's mask: the min
        /// match lengths m = 3..9 (bit m - 3) for which the step decides the same (a
        /// literal, or the very same match).  Only the first search of a step reads
        /// min_len; what follows a match depends on the match alone.
        template <class Mask>
        [[gnu::always_inline]] u32 step(u32 min_len, u32 far3, u32& offset, Mask&& mask) const {
            // Without node3 the chain is not walked and all fields are zero, so the key is
            // 0: a literal for every m.  That is what the walk would say for m >= 5 too: no
            // position in the window shares the first 3 bytes (the 3-byte bucket's head is
            // its newest position with that hash, and it lies outside), so no chain node
            // can match 4.
            const u32 c = chain_len < 9 ? chain_len : 9;
            const u32 key = c * 4 + (node3_valid ? 2 : 0) + (match3 && offset3 <= far3 ? 1 : 0);
            const u32 e = hc_detail::kStepTable[min_len - kMinMatchLen][key];
            mask(e);
            // Selects, not a switch: a jump table cost the search 3% (mispredicted).
            const u32 kind = e >> 8;
            offset = kind == hc_detail::kThree ? offset3 : chain_offset;
            const u32 len = kind == hc_detail::kThree ? 3 : chain_len;
            return kind == hc_detail::kLiteral ? 0 : len;
        }
    };
    /// The mask of a step whose decision no min match length changes (SharedMatch::step()).
    static constexpr u32 kAllMinLens = 0x7F;

    /// Slides the window if @p p is where longest_match() would (call before searching or
    /// inserting p).
    void prepare(const u8* p) {
        if (u32(p - base_) == kWindowSize) slide();
    }

    /// The search of longest_match() at @p in_next without inserting it.
    [[gnu::always_inline]] void search_shared(const u8* in_next, u32 max_len, u32 nice_len, u32 max_search_depth,
                                              const u32 hashes[2], SharedMatch& out) const {
        out = SharedMatch{};
        if (max_len < 5) return;
        search_nodes<false>(in_next, u32(in_next - base_), hash3_[hashes[0]], hash4_[hashes[1]], max_len, nice_len,
                            max_search_depth, 0, out);
    }

    /// search_shared() at @p p as it would have gone when the finder held exactly the
    /// positions before p, run later, when it holds those before @p now (p <= now, both
    /// searched or skipped by this finder's parse since): for a parse that branched off
    /// at p and follows the finder's own parse a few steps behind (the history track's
    /// alternative parses).  The positions [p, now) sit at the heads of the chains and are
    /// passed over without counting depth.  False where the finder no longer knows what
    /// it held: the window slid since p, p's 3-byte bucket was written since, or the walk
    /// reaches a node whose link a position since p has overwritten (the far end of the
    /// window).  Not within a match's length of the end of the input.
    [[nodiscard]] bool search_past(const u8* p, const u8* now, u32 max_len, u32 nice_len, u32 max_search_depth,
                                   SharedMatch& out) const {
        out = SharedMatch{};
        if (p < base_ || p - base_ >= std::ptrdiff_t(kWindowSize) || now - base_ > std::ptrdiff_t(kWindowSize))
            return false;
        const MfPos cur = MfPos(p - base_);
        u32 h[2];
        hashes(p, h);
        if (now - p >= std::ptrdiff_t(kLog3Size)) return false;
        MfPos node3 = hash3_[h[0]];
        while (node3 >= cur) node3 = log3_[u16(node3) & (kLog3Size - 1)];
        MfPos node4 = hash4_[h[1]];
        while (node4 >= cur) node4 = next_[u16(node4) & (kWindowSize - 1)];
        const s32 stale = s32(now - base_) - s32(kWindowSize);
        return search_nodes<true>(p, u32(cur), node3, node4, max_len, nice_len, max_search_depth, stale, out);
    }

    /// longest_match() for every best_len at once (see SharedMatch): searches @p in_next
    /// and inserts it, exactly as longest_match() does.  Like longest_match(), it gives up
    /// where node3 is not valid (!SharedMatch::node3_valid): a literal for every min_len.  (It used to walk the chain there for a min_len of 5 or more, as libdeflate
    /// does, and for a branching parse: 4% of the search, for 4-byte hash collisions only.)
    template <bool kLog = false>
    [[gnu::always_inline]] void longest_match_shared(const u8* in_next, u32 max_len, u32 nice_len,
                                                     u32 max_search_depth, u32 next_hashes[2], SharedMatch& out) {
        out = SharedMatch{};
        u32 cur_pos = u32(in_next - base_);
        if (cur_pos == kWindowSize) {
            slide();
            cur_pos = 0;
        }
        if (max_len < 5) [[unlikely]]
            return;
        MfPos node3, node4;
        insert_searched<kLog>(in_next, cur_pos, next_hashes, node3, node4);
        // Without node3 the chain is not walked, for any min_len (search() says why: it
        // could only find collisions); the step is then a literal for every min_len, so
        // no branch begins there either.
        if (flat_)
            search_nodes<false, true>(in_next, cur_pos, node3, node4, max_len, nice_len, max_search_depth, 0, out);
        else
            search_nodes<false, false>(in_next, cur_pos, node3, node4, max_len, nice_len, max_search_depth, 0, out);
        quick_ += out.chain_len == 0;
    }

private:
    // Inserts the position about to be searched (@p next_hashes: its hashes; on return,
    // the next position's); @p node3 and @p node4 get the heads of its buckets before.
    template <bool kLog>
    [[gnu::always_inline]] void insert_searched(const u8* in_next, u32 cur_pos, u32 next_hashes[2], MfPos& node3,
                                                MfPos& node4) {
        const u32 h3 = next_hashes[0];
        const u32 h4 = next_hashes[1];
        node3 = hash3_[h3];
        node4 = hash4_[h4];
        if constexpr (kLog) log3_[cur_pos & (kLog3Size - 1)] = node3;
        hash3_[h3] = MfPos(cur_pos);
        hash4_[h4] = MfPos(cur_pos);
        next_[cur_pos] = node4;
        hashes(in_next + 1, next_hashes);
        prefetch_write(&hash3_[next_hashes[0]]);
        prefetch_write(&hash4_[next_hashes[1]]);
    }

    // The flat forms' first step (search(), search_nodes()), without branches: whether
    // the 3-byte bucket's head @p node3 is in the window (in3; at3: it, else the current
    // position, a valid address) and matches 3 bytes (match3()), and whether the chain from
    // @p node4 needs the plain walk (walk): it is considered only where node3 is in the
    // window (without it no node can match 4 bytes), and walked where its head matches 4
    // bytes or it goes on past the head (depth != 1: the plain walk's `!--depth_remaining`
    // goes on, wrapping around at 0 as libdeflate's does).  match3() is asked only where no
    // walk follows.
    struct FlatHead {
        u32 seq4, in3, walk;
        s32 at3;
        [[nodiscard]] u32 match3(const u8* base) const {
            return in3 & u32(load_u24(base + at3) == (seq4 & 0xFFFFFF));
        }
    };
    [[gnu::always_inline]] FlatHead flat_head(const u8* in_next, u32 cur_pos, MfPos node3, MfPos node4,
                                              u32 depth) const {
        const MfPos cutoff = MfPos(s32(cur_pos) - s32(kWindowSize));
        const u32 seq4 = load_u32(in_next);
        const u32 in3 = opaque(u32(node3 > cutoff));
        const u32 chain = opaque(u32(node4 > cutoff) & in3);
        const s32 at3 = pick(0u - in3, node3, s32(cur_pos));
        const s32 at4 = pick(0u - chain, node4, s32(cur_pos));
        const MfPos after4 = next_[u16(at4) & (kWindowSize - 1)];
        const u32 walk = chain & (u32(load_u32(base_ + at4) == seq4) | (u32(after4 > cutoff) & u32(depth != 1)));
        return {seq4, in3, opaque(walk), at3};
    }

    // search_shared()'s walk from the heads @p node3 and @p node4 of in_next's buckets.
    // kPast (search_past()): a node below @p stale has a link written since; false there.
    // kFlat: the flat form of its first step (see search()): where the chain's head does
    // not match 4 bytes and the chain ends there, the result without branches.
    template <bool kPast, bool kFlat = false>
    [[gnu::always_inline]] bool search_nodes(const u8* in_next, u32 cur_pos, MfPos node3, MfPos node4, u32 max_len,
                                             u32 nice_len, u32 max_search_depth, s32 stale,
                                             SharedMatch& out) const {
        // The next node on the chain after node4, unless its link is stale.
#define FD_NEXT_NODE(fail)                                                     \
    do {                                                                       \
        if constexpr (kPast)                                                   \
            if (s32(node4) < stale) return false;                              \
        node4 = next_[u16(node4) & (kWindowSize - 1)];                         \
        if (node4 <= cutoff || !--depth_remaining) fail;                       \
    } while (0)
        const u8* const base = base_;
        const MfPos cutoff = MfPos(s32(cur_pos) - s32(kWindowSize));
        if constexpr (kFlat) {
            static_assert(!kPast);
            const FlatHead head = flat_head(in_next, cur_pos, node3, node4, max_search_depth);
            if (!head.walk) {
                const u32 match3 = head.match3(base);
                out.node3_valid = head.in3 != 0;
                out.match3 = match3 != 0;
                out.offset3 = u32(pick(0u - match3, s32(cur_pos) - head.at3, 0));
                return true;
            }
        }
        out.node3_valid = node3 > cutoff;
        if (!out.node3_valid) return true;  // no node can match 4 bytes (see search())
        if (load_u24(base + node3) == (load_u32(in_next) & 0xFFFFFF)) {
            out.match3 = true;
            out.offset3 = u32(in_next - (base + node3));
        }
        if (node4 <= cutoff) return true;
        u32 depth_remaining = max_search_depth;
        const u32 seq4 = load_u32(in_next);
        const u8* m;
        for (;;) {
            m = base + node4;
            if (load_u32(m) == seq4) break;
            FD_NEXT_NODE(return true);
        }
        const u8* best = m;
        u32 best_len = lz_extend(in_next, m, 4, max_len);
        out.chain_len = best_len;
        out.chain_offset = u32(in_next - best);
        if (best_len >= nice_len) return true;
        FD_NEXT_NODE(return true);
        for (;;) {
            for (;;) {
                m = base + node4;
                if (load_u32(m + best_len - 3) == load_u32(in_next + best_len - 3) && load_u32(m) == load_u32(in_next))
                    break;
                FD_NEXT_NODE(goto done);
            }
            {
                const u32 len = lz_extend(in_next, m, 4, max_len);
                if (len > best_len) {
                    best_len = len;
                    best = m;
                    if (best_len >= nice_len) goto done;
                }
            }
            FD_NEXT_NODE(goto done);
        }
    done:
        out.chain_len = best_len;
        out.chain_offset = u32(in_next - best);
        return true;
#undef FD_NEXT_NODE
    }

public:

    /// Inserts the positions [@p p, @p end) (@p hashes: those of p; on return, those of
    /// end), as skip_bytes() does, then prefetches end's buckets.  Positions within 5 bytes
    /// of @p in_end are left out, as libdeflate leaves them out (nothing searches there).
    [[gnu::always_inline]] void insert_range(const u8* p, const u8* end, const u8* in_end, u32 hashes[2]) {
        if (in_end - end < 5) end = in_end - 5;
        u32 h3 = hashes[0], h4 = hashes[1];
        for (; p < end; ++p) {
            u32 cur_pos = u32(p - base_);
            if (cur_pos == kWindowSize) [[unlikely]] {
                slide();
                cur_pos = 0;
            }
            hash3_[h3] = MfPos(cur_pos);
            next_[cur_pos] = hash4_[h4];
            hash4_[h4] = MfPos(cur_pos);
            const u32 seq = load_u32(p + 1);
            h3 = lz_hash(seq & 0xFFFFFF, kHash3Order);
            h4 = lz_hash(seq, kHash4Order);
        }
        prefetch_write(&hash3_[h3]);
        prefetch_write(&hash4_[h4]);
        hashes[0] = h3;
        hashes[1] = h4;
    }

    /// Inserts @p p (after prepare(p)) with its @p hashes.
    [[gnu::always_inline]] void insert(const u8* p, const u32 hashes[2]) {
        const u32 cur_pos = u32(p - base_);
        hash3_[hashes[0]] = MfPos(cur_pos);
        next_[cur_pos] = hash4_[hashes[1]];
        hash4_[hashes[1]] = MfPos(cur_pos);
    }

private:
    void slide() {
        mf_rebase(hash3_, std::size(hash3_));
        mf_rebase(hash4_, std::size(hash4_));
        mf_rebase(next_, std::size(next_));
        base_ += kWindowSize;
        flat_ = choose_flat(quick_);
        quick_ = 0;
    }

    alignas(64) MfPos hash3_[1u << kHash3Order];
    alignas(64) MfPos hash4_[1u << kHash4Order];
    alignas(64) MfPos next_[kWindowSize];
    const u8* base_ = nullptr;
    bool flat_ = false;  ///< longest_match()'s form (see search())
    u32 quick_ = 0;      ///< its searches since the last slide that ended early (see search())
    // kLog: log3_[pos % kLog3Size] is the head pos's 3-byte bucket had before pos.
    static constexpr u32 kLog3Size = 1024;
    alignas(64) MfPos log3_[kLog3Size];
};

}  // namespace flowdeflate::core
