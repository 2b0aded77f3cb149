// block_runs.hpp - what the resolver collects of the block it is in: the block goes to Code
// as runs of items (the tracks' and the repairs'), and the resolver counts literals only as
// far as the min_len recalculations need them (Code counts the rest, in parallel).  Over a
// history track's items it adds the search's literal counts per checkpoint
// (Track::checkpoint_literals) and walks only the items around them: counting item by item
// was a third of the resolver's time at level 6 on binaries.
#pragma once

#include <cassert>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/sequence.hpp"
#include "parallel/items.hpp"
#include "parallel/resolved_block.hpp"
#include "parallel/track.hpp"

namespace flowdeflate::parallel {

class BlockRuns {
public:
    /// A new block at @p pos; @p count_literals: the level recalculates min_len.
    void begin(const u8* pos, bool count_literals) {
        if (count_literals) std::memset(litlen_, 0, sizeof(litlen_));
        runs_.clear();
        keep_.clear();
        counted_ = LiteralCursor{0, 0, pos, 0};
    }

    /// The block's next items: @p count items of @p base from @p first, at @p at; @p owner
    /// keeps them alive until Code is done; @p track: the track whose items @p base is,
    /// if it has literal checkpoints (else null).  (The owner is taken as it is:
    /// converting it to shared_ptr<const void> on every call made a temporary whose atomic
    /// count updates, on a control block the search threads also touch, cost 4% of all
    /// samples at level 6.)
    template <class Owner>
    void add(const u32* base, std::size_t first, std::size_t count, const u8* at, const Owner& owner,
             const Track* track = nullptr) {
        if (count == 0) return;
        if (!runs_.empty() && runs_.back().base == base && runs_.back().first + runs_.back().count == first) {
            runs_.back().count += count;
        } else {
            if (track && (track->checkpoint_literals.empty() || track->items.data() != base)) track = nullptr;
            runs_.push_back(PendingRun{base, first, count, at, track});
            if constexpr (!std::is_same_v<Owner, std::nullptr_t>)
                if (owner && (keep_.empty() || keep_.back().get() != owner.get())) keep_.push_back(owner);
        }
    }

    /// The block's repaired steps so far, to append a repair's items to.
    std::vector<u32>& repair_items() {
        if (!repair_items_) repair_items_ = std::make_shared<std::vector<u32>>();
        return *repair_items_;
    }
    /// The repair items from @p first on, parsed at @p at, join the block.
    void add_repaired(std::size_t first, const u8* at) {
        add(nullptr, first, repair_items_->size() - first, at, nullptr);
    }

    /// Counts the literals of the block's runs up to @p target (a step position the runs
    /// reach), for the min_len recalculation.
    void count_literals_to(const u8* target) {
        // (The last run may still grow: add() appends to it, so the cursor stays on it at
        // its end until a new run follows.)
        LiteralCursor& c = counted_;
        while (c.p < target && c.run < runs_.size()) {
            const PendingRun& r = runs_[c.run];
            if (c.item == r.count) {
                if (c.run + 1 == runs_.size()) break;
                c.run++;
                c.item = 0;
                assert(runs_[c.run].at == c.p);
                continue;
            }
            const u32* const items = (r.base ? r.base : repair_items_->data()) + r.first;
            std::size_t j = c.item;
            const u8* p = c.p;
            if (r.track) pass_checkpoints(r, items, j, p, target);
            walk(items, j, r.count, p, target);
            c.items += j - c.item;
            c.p = p;
            c.item = j;
        }
    }
    /// The literal counts so far (count_literals_to()).
    [[nodiscard]] const u32* litlen() const { return litlen_; }

    /// Hands the block's runs (and, with @p with_counts, its literal counts) to @p block.
    void finish(ResolvedBlock& block, bool with_counts) {
        // The repair items stop growing here (later repairs get a new vector), so
        // pointers into them stay valid.
        block.runs.reserve(runs_.size());
        for (const PendingRun& r : runs_)
            block.runs.push_back(ItemRun{(r.base ? r.base : repair_items_->data()) + r.first, r.count, r.at});
        if (with_counts) {
            std::memcpy(block.litlen, litlen_, sizeof(litlen_));
            block.literals_counted = counted_.items;
        }
        if (repair_items_) keep_.push_back(std::move(repair_items_));
        repair_items_.reset();
        block.keep = std::move(keep_);
        keep_.clear();
        runs_.clear();
    }

private:
    struct PendingRun {
        const u32* base;  ///< a track's items, or null: repair_items_
        std::size_t first, count;
        const u8* at;
        const Track* track;  ///< base's track, where it has literal checkpoints
    };

    // Counts the literals among items[j, end) that begin before @p target (@p p: where
    // items[j] begins); both move on.
    void walk(const u32* items, std::size_t& j, std::size_t end, const u8*& p, const u8* target) {
        for (; j < end && p < target; ++j) {
            const u32 len = item_len(items[j]);
            if (len == 0) litlen_[*p]++;
            p += len ? len : 1;
        }
    }

    // Counts run @p r's items from @p j (at @p p) to the last checkpoint of its track that
    // lies inside the run and ends at or before @p target: walks to the first one, then adds
    // the counts of the checkpoints after it.  (Where there is none, nothing.)
    void pass_checkpoints(const PendingRun& r, const u32* items, std::size_t& j, const u8*& p, const u8* target) {
        const Track& t = *r.track;
        const std::size_t n = t.checkpoints();
        const std::size_t from = r.first + j, run_end = r.first + r.count;
        // The first checkpoint that ends after item `from`.
        std::size_t lo = 0, hi = n;
        while (lo < hi) {
            const std::size_t mid = (lo + hi) / 2;
            if (t.checkpoint_end(mid).item_end <= from)
                lo = mid + 1;
            else
                hi = mid;
        }
        const auto fits = [&](std::size_t k) {
            const Track::LazyStride& e = t.checkpoint_end(k);
            return e.item_end <= run_end && t.begin + e.offset <= target && t.checkpoint_counted(k);
        };
        // The first whole checkpoint from here: lo, if `from` is where it starts.
        const std::size_t first = lo < n && (lo == 0 ? 0 : t.checkpoint_end(lo - 1).item_end) == from ? lo : lo + 1;
        if (first >= n || !fits(first)) return;
        if (first != lo) walk(items, j, t.checkpoint_end(lo).item_end - r.first, p, target);  // to its start
        std::size_t k = first;
        for (; k < n && fits(k); ++k) {
            const u16* counts = t.literal_counts(k);
            for (u32 c = 0; c < kNumLiterals; ++c) litlen_[c] += counts[c];
        }
        const Track::LazyStride& e = t.checkpoint_end(k - 1);
        j = e.item_end - r.first;
        p = t.begin + e.offset;
    }
    // How far the block's literals are counted: the next item to count, items[item] of
    // runs_[run], at p; items: items counted so far.
    struct LiteralCursor {
        std::size_t run = 0, item = 0;
        const u8* p = nullptr;
        std::size_t items = 0;
    };

    std::vector<PendingRun> runs_;
    LiteralCursor counted_;
    u32 litlen_[kNumLiterals] = {};
    std::vector<std::shared_ptr<const void>> keep_;
    std::shared_ptr<std::vector<u32>> repair_items_;  ///< this block's repaired steps
};

}  // namespace flowdeflate::parallel
