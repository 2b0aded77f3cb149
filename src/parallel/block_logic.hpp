// block_logic.hpp - libdeflate's block logic between two steps (levels 1-9), as the
// resolver replays it: where a block ends and, at the lazy levels, which min match length
// the next step uses.  The sequential parsers run the same rules inside their own loops;
// the resolver runs it for the true parse over the steps it takes from tracks and repairs.
#pragma once

#include <algorithm>
#include <type_traits>

#include "core/block_split.hpp"
#include "core/parser_fastest.hpp"
#include "core/parser_lazy.hpp"
#include "parallel/items.hpp"

namespace flowdeflate::parallel {

template <class Parser>
struct BlockLogic {
    static constexpr bool kFastest = std::is_same_v<Parser, FastestParser>;
    static constexpr bool kRecalc =
        std::is_same_v<Parser, LazyParser<LazyMode::lazy>> || std::is_same_v<Parser, LazyParser<LazyMode::lazy2>>;

    const u8* block_begin = nullptr;
    const u8* in_end = nullptr;  ///< the end assumed for this block (see input_stream.hpp)
    const u8* max_block_end = nullptr;
    const u8* next_recalc = nullptr;
    u32 min_len = 0;
    u32 num_matches = 0;
    u32 seq_limit = 0;
    BlockSplitStats split{};

    void begin(const u8* q, const u8* end, u32 depth) {
        block_begin = q;
        in_end = end;
        num_matches = 0;
        if constexpr (kFastest) {
            max_block_end = choose_max_block_end(q, end, kFastSoftMaxBlockLength);
            seq_limit = kFastSeqStoreLength;
        } else {
            max_block_end = choose_max_block_end(q, end, kSoftMaxBlockLength);
            seq_limit = kSeqStoreLength;
            next_recalc = q + std::min<std::size_t>(end - q, 10000);
            split.reset();
            min_len = calculate_min_match_len(q, max_block_end - q, depth);
        }
    }
    /// Before each step at @p q: the lazy levels recalculate min_len from the block's
    /// literal counts @p litlen now and then.
    void before_step(const u8* q, const u32* litlen, u32 depth) {
        if constexpr (kRecalc) {
            if (q >= next_recalc) {
                min_len = recalculate_min_match_len(litlen, depth);
                next_recalc += std::min<std::size_t>(in_end - next_recalc, q - block_begin);
            }
        }
    }
    [[gnu::always_inline]] void literal(u8 c) {
        if constexpr (!kFastest) split.observe_literal(c);
    }
    [[gnu::always_inline]] void match(u32 len) {
        if constexpr (!kFastest) split.observe_match(len);
        ++num_matches;
    }
    // Runs: many steps in one tight loop, up to the next place where the block logic
    // looks at more than counters: the block's maximum end, the sequence store's limit, a
    // block-split check (due every 512 observations), a min_len recalculation, or where
    // the caller stops (a step parsed with another min_len, a newer chunk's tracks).
    // Between two such places, stepping one at a time with continues() would decide
    // exactly as a run does.

    /// Where a run from here must stop at the latest, given the caller's @p limit.
    [[nodiscard]] const u8* run_stop(const u8* limit) const {
        const u8* stop = std::min(limit, max_block_end);
        if constexpr (kRecalc) stop = std::min(stop, next_recalc);
        return stop;
    }
    /// May a run take the step at @p p (before @p stop)?
    [[nodiscard]] bool run_goes_on(const u8* p, const u8* stop) const {
        // (Not merely 512 new observations: until the block is 5000 bytes long the check
        // does nothing, and stopping there sent every step of that stretch down the slow
        // path, one step at a time.)
        if constexpr (!kFastest)
            if (split.ready_to_check(block_begin, p, in_end)) return false;
        return p < stop && num_matches < seq_limit;
    }

    /// After a step that ended at @p q: does the block go on?
    [[nodiscard]] bool continues(const u8* q) {
        bool more = q < max_block_end && num_matches < seq_limit;
        if constexpr (!kFastest) more = more && !split.should_end_block(block_begin, q, in_end);
        return more;
    }
};

}  // namespace flowdeflate::parallel
