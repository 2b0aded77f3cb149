// repairer.hpp - the resolver's own parser: where no track has the true parse's step,
// the resolver parses it itself, exactly as the sequential parser would, with its own
// match finder (a *repair*).
#pragma once

#include <cstddef>

#include "parallel/block_logic.hpp"
#include "parallel/items.hpp"

namespace flowdeflate::parallel {

template <class Parser>
class Repairer {
    static constexpr bool kFastest = BlockLogic<Parser>::kFastest;

public:
    explicit Repairer(const LevelParams& params) : parser_(params) {}

    /// The resolver took a track's step: the next repair brings the match finder up first.
    void stop() { active_ = false; }
    /// The last step was a repair's (the finder stands where it ended).
    [[nodiscard]] bool active() const { return active_; }

    /// One step at @p pos with the block's min_len into @p out (literal(p) / match(p, len,
    /// offset)); returns the position after it.  @p in_begin: the input's first byte.
    template <class Out>
    [[gnu::always_inline]] const u8* step(const u8* in_begin, const u8* pos, const BlockLogic<Parser>& blk, Out& out) {
        if (!active_) start(in_begin, pos, blk);
        const u8* next;
        if constexpr (kFastest) {
            u32 max_len = kMaxMatchLen, nice_len = std::min(parser_.nice_len(), kMaxMatchLen);
            next = parser_.step(pos, blk.in_end, max_len, nice_len, hash_, out);
        } else {
            next = parser_.step(pos, blk.in_end, blk.min_len, hashes_, out);
        }
        repaired_to_ = next;
        return next;
    }

private:
    // Brings the match finder to @p pos.  Since steps take a track's step wherever its
    // mask allows, repairs at levels 2-9 are mostly a step or two; priming 32 KiB (and
    // resetting 256 KiB of tables) for each would cost more than the steps.  Near the last
    // repair, the finder catches up instead.
    void start(const u8* in_begin, const u8* pos, const BlockLogic<Parser>& blk) {
        active_ = true;
        if constexpr (kFastest) {
            parser_.prime(in_begin, pos, hash_);
        } else {
            if (repaired_to_ != nullptr && repaired_to_ <= pos && std::size_t(pos - repaired_to_) <= kCatchUpMax &&
                blk.in_end - pos > kCatchUpEndMargin)
                parser_.catch_up(repaired_to_, pos, blk.in_end, hashes_);
            else
                parser_.prime(in_begin, pos, hashes_);
        }
    }

    static constexpr std::size_t kCatchUpMax = 40 * 1024;
    static constexpr std::ptrdiff_t kCatchUpEndMargin = 4 * kMaxMatchLen;

    Parser parser_;
    u32 hashes_[2] = {0, 0};
    u32 hash_ = 0;
    bool active_ = false;  ///< the finder stands where the last step ended
    /// Where the finder stands after its last step.
    const u8* repaired_to_ = nullptr;
};

}  // namespace flowdeflate::parallel
