// block_runs.hpp - what the resolver collects of the block it is in: the block goes to Code
// as runs of items (the tracks' and the repairs'), and the resolver counts literals only as
// far as the min_len recalculations need them (Code counts the rest, in parallel).
#pragma once

#include <cassert>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/sequence.hpp"
#include "parallel/items.hpp"
#include "parallel/resolved_block.hpp"

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
    /// keeps them alive until Code is done.  (The owner is taken as it is: converting it
    /// to shared_ptr<const void> on every call made a temporary whose atomic count
    /// updates, on a control block the search threads also touch, cost 4% of all samples
    /// at level 6.)
    template <class Owner>
    void add(const u32* base, std::size_t first, std::size_t count, const u8* at, const Owner& owner) {
        if (count == 0) return;
        if (!runs_.empty() && runs_.back().base == base && runs_.back().first + runs_.back().count == first) {
            runs_.back().count += count;
        } else {
            runs_.push_back(PendingRun{base, first, count, at});
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
            for (; j < r.count && p < target; ++j) {
                const u32 len = item_len(items[j]);
                if (len == 0) litlen_[*p]++;
                p += len ? len : 1;
            }
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
    };
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
