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
// sequences themselves (fastest_follower.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>

#include "core/deflate_format.hpp"
#include "io/large_array.hpp"

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

/// Level 1's steps are written as sequences instead (fastest_follower.hpp): a run of
/// literal steps, then the match step after it (length 0: none, the track's last).  The
/// literal count has 32 bits, unlike core::Sequence's 23: a track of incompressible input
/// may be a chunk long (up to 1 GiB); a block's run never is.
struct SeqStep {
    u32 litrun;
    u16 length;
    u16 offset;
};

/// A growable array whose new room is left uninitialised, so that only the pages actually
/// written become resident (a track may need one item per byte, and usually needs far
/// fewer; a coded block's bits are written once).  ItemBuffer: a track's items.  Arrays of
/// 2 MiB and more are io::LargeArray, on transparent huge pages: a track's items written
/// into fresh 4 KiB pages took a page fault each (about 11 us here, 4% of a -1 -p2 run).
/// release_unwritten_pages() (pool.hpp) gives back whole huge pages only.
template <class T>
class PodBuffer {
public:
    [[nodiscard]] T* data() { return data_.get(); }
    [[nodiscard]] const T* data() const { return data_.get(); }
    [[nodiscard]] std::size_t size() const { return size_; }
    [[nodiscard]] bool empty() const { return size_ == 0; }
    [[nodiscard]] std::size_t capacity() const { return capacity_; }
    /// The pages the storage lies on (io::LargeArray::page_size()).
    [[nodiscard]] std::size_t page_size() const { return data_.page_size(); }
    T& operator[](std::size_t i) { return data_.get()[i]; }
    const T& operator[](std::size_t i) const { return data_.get()[i]; }
    T& back() { return data_.get()[size_ - 1]; }
    void clear() { size_ = 0; }
    /// Room for @p n elements; keeps the contents.
    void reserve(std::size_t n) {
        if (n <= capacity_) return;
        io::LargeArray<T> bigger(n);
        if (size_) std::memcpy(bigger.get(), data_.get(), size_ * sizeof(T));
        data_ = std::move(bigger);
        capacity_ = n;
    }
    void push_back(T v) {
        if (size_ == capacity_) [[unlikely]]
            reserve(std::max<std::size_t>(64, capacity_ * 2));
        data_.get()[size_++] = v;
    }
    void append(const T* v, std::size_t n) {
        if (n == 0) return;  // (v may be null then)
        if (size_ + n > capacity_) [[unlikely]]
            reserve(std::max<std::size_t>({64, capacity_ * 2, size_ + n}));
        std::memcpy(data_.get() + size_, v, n * sizeof(T));
        size_ += n;
    }
    /// After writing through data() directly.
    void set_size(std::size_t n) { size_ = n; }
    /// @p n elements whose new ones are uninitialised (to be written through data()).
    void resize_uninitialised(std::size_t n) {
        reserve(n);
        size_ = n;
    }

private:
    io::LargeArray<T> data_;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};
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
