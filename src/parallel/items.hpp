// items.hpp - how a parse is written down so that another thread can replay it: one u32
// per literal or match (an *item*), grouped into *steps* (what one parse step emitted:
// a literal, a match, or a lazy step's deferred literals and its match).
//
// Bits of an item:
//   bit 31      the step ends after this item
//   bits 24-30  the step's mask: bit m - 3 is set when the step is what a parse with
//               min match length m makes there (0 in the resolver's repairs).  See
//               HcMatchFinder::SharedMatch::step().
//   bits 15-23  match length, or 0 for a literal
//   bits 0-14   match offset - 1
//
// Search writes items (ItemWriter), the resolver replays them through the block logic
// (apply_step()), and Code turns them into sequences.  Levels 2-9: level 1's tracks are
// sequences themselves (sequence_follower.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>

#include "core/deflate_format.hpp"
#include "io/pod_buffer.hpp"

namespace flowdeflate::parallel {

// The stages are made of the exact core's pieces (parsers, match finders, block logic,
// coder) and name them as the core does.
using namespace core;

inline constexpr u32 kStepEnd = 1u << 31;
inline constexpr u32 kMaskShift = 24;
inline constexpr u32 kLenShift = 15;

[[gnu::always_inline]] inline u32 item_len(u32 item) { return (item >> kLenShift) & 0x1FF; }
[[gnu::always_inline]] inline u32 item_offset(u32 item) { return (item & 0x7FFF) + 1; }
/// Does a step mask (or the AND of several) hold @p min_len?
[[gnu::always_inline]] inline bool mask_fits(u32 mask, u32 min_len) {
    return (mask >> (min_len - core::kMinMatchLen)) & 1;
}
/// Is the step that begins with @p item the one a parse with @p min_len makes?
[[gnu::always_inline]] inline bool item_fits(u32 item, u32 min_len) { return mask_fits(item >> kMaskShift, min_len); }
[[gnu::always_inline]] inline u32 match_item(u32 len, u32 offset) { return (len << kLenShift) | (offset - 1); }
/// The mask of a step parsed with @p min_len that records no other (TrackPlan::step_masks).
[[gnu::always_inline]] inline u32 own_min_len_mask(u32 min_len) { return 1u << (min_len - core::kMinMatchLen); }

/// One item at @p p into @p out (literal(p) or match(p, len, offset)); returns the
/// position after it.
template <class Out>
[[gnu::always_inline]] inline const u8* apply_item(u32 item, const u8* p, Out& out) {
    const u32 len = item_len(item);
    if (len == 0) {
        out.literal(p);
        return p + 1;
    }
    out.match(p, len, item_offset(item));
    return p + len;
}

/// The items of one step at items[i], applied at @p p; both move on past the step.
template <class Out>
[[gnu::always_inline]] inline void apply_step(const u32* items, std::size_t& i, const u8*& p, Out& out) {
    for (;;) {
        const u32 item = items[i++];
        p = apply_item(item, p, out);
        if (item & kStepEnd) break;
    }
}

/// Level 1's steps are written as sequences instead (sequence_follower.hpp): a run of
/// literal steps, then the match step after it (length 0: none, the track's last).  The
/// literal count has 32 bits, unlike core::Sequence's 23: a track of incompressible input
/// may be a chunk long (up to 1 GiB); a block's run never is.
struct SeqStep {
    u32 litrun;
    u16 length;
    u16 offset;
};

using io::PodBuffer;
using ItemBuffer = PodBuffer<u32>;

/// Appends items without a capacity check per item: the buffer is sized up front for the
/// worst case, one item per byte of the track's extent (a step that starts before `stop`
/// covers at most 258 + 2 bytes); only the pages written become resident.  A match always
/// ends its step; a literal ends it unless the lazy look-ahead deferred it.
struct ItemWriter {
    ItemBuffer& items;
    u32* first;
    u32* next;
    ItemWriter(ItemBuffer& v, const u8* begin, const u8* stop) : items(v) {
        v.clear();
        v.reserve(std::size_t(stop - begin) + 2 * core::kMaxMatchLen + 64);
        first = next = v.data();
    }
    [[gnu::always_inline]] void literal(u32 mask, bool step_end) {
        *next++ = (mask << kMaskShift) | (step_end ? kStepEnd : 0);
    }
    [[gnu::always_inline]] void match(u32 mask, u32 len, u32 offset) {
        *next++ = kStepEnd | (mask << kMaskShift) | match_item(len, offset);
    }
    void finish() { items.set_size(std::size_t(next - first)); }
};

}  // namespace flowdeflate::parallel
