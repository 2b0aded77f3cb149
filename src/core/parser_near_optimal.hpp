// parser_near_optimal.hpp - levels 10-12: libdeflate's near-optimal parser.
//
// Matching and choosing are separate passes per block.  First the binary-tree match
// finder records every match at every position (except inside very long matches) in a
// match cache while block-split statistics, taken from a greedy view of the same
// matches, decide where the block ends; when a change in the data ends the block, the
// block is rewound to the previous check point and the matches after it are kept for the
// next block.  Then a minimum-cost path through the block's literal/match graph is found
// under a cost model, repeatedly: the first pass uses default costs (blended with the
// previous block's when the blocks look alike), later passes the Huffman code lengths of
// the previous pass.  An all-literals block, and for small blocks a path optimised for
// the static code, are also priced.  The block then goes to the coder as sequences with
// the Huffman codes already built.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "core/block_coder.hpp"
#include "core/block_split.hpp"
#include "core/bt_match_finder.hpp"
#include "core/input_stream.hpp"
#include "core/match_feed.hpp"
#include "core/min_cost_path.hpp"
#include "core/parsed_block.hpp"
#include "core/path_split.hpp"

namespace flowdeflate::core {

/// A callback reference for finished blocks (one call per block, so an indirect call).
class BlockSinkRef {
public:
    template <class F>
    BlockSinkRef(F& f) : ctx_(&f), fn_([](void* c, const ParsedBlock& b) { (*static_cast<F*>(c))(b); }) {}
    void operator()(const ParsedBlock& b) const { fn_(ctx_, b); }

private:
    void* ctx_;
    void (*fn_)(void*, const ParsedBlock&);
};

/// Everything the near-optimal parse carries at a searched position, besides the binary
/// trees (which priming rebuilds): the previous block's cost model and statistics, and
/// the current block's statistics and cached matches so far.
struct NearOptimalParseState {
    // Carried from block to block.
    NearOptimalCosts costs{};
    u32 prev_observations[BlockSplitStats::kTypes]{};
    u32 prev_num_observations = 0;
    bool prev_block_used_only_literals = false;
    // The current block up to the position.
    const u8* block_begin = nullptr;
    const u8* mf_base = nullptr;
    const u8* next_observation = nullptr;
    const u8* prev_end_block_check = nullptr;  ///< last split check passed, or nullptr
    u32 min_len = 0;
    BlockSplitStats split_stats{};
    u32 new_match_len_freqs[kMaxMatchLen + 1]{};
    u32 match_len_freqs[kMaxMatchLen + 1]{};
    std::vector<LzMatch> cache;  ///< the match cache for [block_begin, position)
};

/// Captures the parse state at the first searched position at or after each target.
struct NearOptimalCapture {
    std::vector<std::size_t> targets;  ///< offsets from the input start, ascending
    std::size_t next = 0;
    std::vector<std::pair<std::size_t, NearOptimalParseState>> states;
};

/// The cost model a block's Huffman code gives (libdeflate's deflate_set_costs_from_codes):
/// each symbol's code length plus its extra bits, in 1/16 bit; symbols the code leaves out
/// cost a fixed guess.
void costs_from_codes(const HuffmanCodes& codes, NearOptimalCosts& costs);
/// Adds the symbols of the path that min_cost_path() left in @p items (from position 0 to
/// @p block_length) to @p freqs, and the end-of-block symbol.  @p offset_slot maps an
/// offset to its slot.
void tally_path(const u32* items, u32 block_length, const u8* offset_slot, SymbolFreqs& freqs);

class NearOptimalParser {
public:
    explicit NearOptimalParser(const LevelParams& params);
    ~NearOptimalParser();

    /// Parses [in_begin, in_end); optionally captures states for resume().
    void parse(const u8* in_begin, const u8* in_end, BlockSinkRef sink, NearOptimalCapture* capture = nullptr);
    /// Parses input that is still arriving (see input_stream.hpp).  With @p feed, takes
    /// the matches from it instead of searching (match_feed.hpp): the same blocks.
    void parse(InputStream& in, BlockSinkRef sink, MatchFeed* feed = nullptr);

    /// Continues at @p pos (a searched position of an earlier parse of the same input)
    /// from @p st, priming the match finder from the 32 KiB before pos.
    void resume(const u8* in_begin, const u8* pos, const u8* in_end, const NearOptimalParseState& st,
                BlockSinkRef sink);

private:
    using Costs = NearOptimalCosts;
    template <bool kFed>
    void run(const u8* in_begin, const u8* in_next, InputView view, const NearOptimalParseState* resumed,
             BlockSinkRef sink, NearOptimalCapture* capture, MatchFeed* feed);
    static constexpr u32 kMaxMatchesPerPos = kMaxMatchLen - kMinMatchLen + 1;
    static constexpr u32 kMatchCacheLength = kSoftMaxBlockLength * 5;

    void optimize_and_emit_block(const u8* block_begin, u32 block_length, const LzMatch* cache_end,
                                 bool is_first_block, bool is_final_block, bool& used_only_literals,
                                 BlockSinkRef sink);
    void find_min_cost_path(u32 block_length, const LzMatch* cache_end);
    void choose_all_literals();  // from block_bytes_
    void set_costs_from_codes(const HuffmanCodes& codes);
    void choose_default_litlen_costs(u32 block_length, u32& lit_cost, u32& len_sym_cost);
    void set_default_costs(u32 lit_cost, u32 len_sym_cost);
    void adjust_costs(u32 lit_cost, u32 len_sym_cost);
    void adjust_costs_impl(u32 lit_cost, u32 len_sym_cost, int change_amount);
    void set_initial_costs(u32 block_length, bool is_first_block);
    void init_stats();
    void merge_stats();
    void save_stats();
    void clear_old_stats();
    u32 true_cost() { return coder_.dynamic_cost_without_header(freqs_, codes_); }

    LevelParams params_;
    BlockCoder coder_;  // for the exact dynamic-block cost and the static code lengths
    SymbolFreqs freqs_{};
    u32 block_bytes_[kNumLiterals]{};  // the block's byte counts (count_bytes)
    HuffmanCodes codes_{};
    BlockSplitStats split_stats_{};
    Costs costs_{};
    Costs costs_saved_{};
    u32 prev_observations_[BlockSplitStats::kTypes]{};
    u32 prev_num_observations_ = 0;
    bool prev_block_used_only_literals_ = false;
    u32 next_hashes_[2] = {0, 0};
    u32 new_match_len_freqs_[kMaxMatchLen + 1]{};
    u32 match_len_freqs_[kMaxMatchLen + 1]{};
    u8 offset_slot_full_[kWindowSize + 1]{};
    std::unique_ptr<LzMatch[]> match_cache_;
    std::unique_ptr<u32[]> cost_to_end_;  // min_cost_path.hpp: PathNodes
    std::unique_ptr<u32[]> items_;
    // The best pass so far while a later one runs (optimize_and_emit_block): its items,
    // symbol counts and codes, kept instead of recomputed.
    std::unique_ptr<u32[]> best_items_;
    SymbolFreqs best_freqs_{};
    HuffmanCodes best_codes_{};
    std::unique_ptr<Sequence[]> seqs_;
    std::unique_ptr<BtMatchFinder> mf_;
    // Fed parses with helpers: the paths in parts on several threads (path_split.hpp),
    // cut where the cache was marked (the current block's marks, then those after it).
    PathHelpers* helpers_ = nullptr;
    PathSplitter splitter_;
    std::vector<PathMark> marks_;
    std::span<const PathMark> block_marks_;
};

}  // namespace flowdeflate::core
