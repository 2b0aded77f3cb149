// parser_lazy.hpp - levels 2-9: greedy (2-4), lazy (5-7) and lazy2 (8-9) parsing over the
// hash-chain match finder, with libdeflate's block splitting and min-match-length
// heuristics.
//
// greedy takes the longest match at each position.  lazy first looks one position ahead
// (with half the search depth) and prefers a literal plus the next match when that match
// is better by libdeflate's score 4*(len gain) + (log2 offset loss) > 2; lazy2 also
// looks two ahead (quarter depth, score > 6).  A match of length 3 is refused when its
// offset is large (over 4096 greedy, 8192 lazy).  The min match length is chosen from
// the block's first 4 KiB and, for lazy/lazy2, recalculated from the block's literal
// counts after 10000 bytes and then whenever the block doubles.
//
// The parse state between two steps is LazyParseState plus the match finder; the match
// finder is rebuilt by priming, so a parse can resume at any step position.
#pragma once

#include <memory>
#include <utility>

#include "core/block_split.hpp"
#include "core/hc_match_finder.hpp"
#include "core/input_stream.hpp"
#include "core/parsed_block.hpp"

namespace flowdeflate::core {

enum class LazyMode { greedy, lazy, lazy2 };

/// Everything the parse carries from one step to the next, besides the match finder.
struct LazyParseState {
    const u8* block_begin = nullptr;
    const u8* next_recalc_min_len = nullptr;  ///< lazy/lazy2: next recalculation point
    const u8* mf_base = nullptr;              ///< the match finder's base pointer
    u32 min_len = 0;
    u32 next_hashes[2] = {0, 0};
    u32 num_matches = 0;  ///< matches already in the current block
    BlockSplitStats split_stats{};
    SymbolFreqs freqs{};  ///< symbol counts of the current block so far
};

[[gnu::always_inline]] inline int bsr32(u32 v) { return 31 - __builtin_clz(v); }

/// libdeflate's lazy rule: is the match found one (or two) positions on worth deferring
/// the held one for?  4 * (length gain) + (log2 offset saved) above @p threshold (2 one
/// position on, 6 two on).
[[gnu::always_inline]] inline bool lazy_prefers_next(u32 cur_len, u32 cur_offset, u32 next_len, u32 next_offset,
                                                     int threshold) {
    return next_len >= cur_len && 4 * int(next_len - cur_len) + (bsr32(cur_offset) - bsr32(next_offset)) > threshold;
}

/// Does a step's output @p Out take the step's mask, HcMatchFinder::SharedMatch::step()'s
/// (Out::kStepMask, with step_mask(mask) called before the step's items)?  The parallel
/// search's tracks do: the resolver may then take a step parsed with one min match length
/// where the true parse has another.  Computing it costs the sequential parse nothing.
template <class Out>
inline constexpr bool kWantsStepMask = requires { requires Out::kStepMask; };

/// Does a step's output @p Out branch (Out::kBranches): the parallel search's history
/// track following parses with other min match lengths where they leave it, over its
/// match finder's past (HcMatchFinder::search_past(), which needs kLog insertions)?
template <class Out>
inline constexpr bool kBranches = requires { requires Out::kBranches; };

/// Does a step-recording Trace take the block-split statistics, match count and literal
/// counts (of the parse's own block so far) after every Trace::kStrideSteps steps
/// (stride_end(), before the next step) and at every block end (on_block_end())?  The
/// parallel search's history track does, to mark its strides without a pass of its own.
template <class Trace>
inline constexpr bool kMarksStrides = requires(std::decay_t<Trace>& t, const BlockSplitStats& s, const u32* lit) {
    t.stride_end(nullptr, s, std::size_t{}, lit);
    t.on_block_end(s, std::size_t{}, lit);
    std::decay_t<Trace>::kStrideSteps;
};

/// Does a Trace take the literal count behind each min match length the parse chooses
/// (on_used_literals(count, max_search_depth): at a block start and at each
/// recalculation)?  The parallel search's history track does, to branch only where another
/// block start could have chosen another min_len.
template <class Trace>
inline constexpr bool kWatchesUsedLiterals =
    requires(std::decay_t<Trace>& t) { t.on_used_literals(u32{}, u32{}); };

/// Where the sequential parse puts a step's items: the block's sequences, the split
/// statistics and the trace.
template <class Trace, class Builder = SequenceBuilder>
struct BuildItems {
    static constexpr bool kStepMask = kWantsStepMask<Trace>;
    static constexpr bool kBranches = ::flowdeflate::core::kBranches<Trace>;
    Builder& b;
    BlockSplitStats& split;
    Trace& trace;
    [[gnu::always_inline]] void step_mask(u32 mask, const HcMatchFinder::SharedMatch& found) {
        if constexpr (kStepMask) trace.on_step_mask(mask, found);
    }
    [[gnu::always_inline]] void literal(const u8* p) {
        trace.on_literal(p);
        split.observe_literal(*p);
        b.literal(*p);
    }
    /// A step that is one literal (see put_literal_step()).
    [[gnu::always_inline]] void literal_step(const u8* p) {
        if constexpr (requires { trace.on_literal_step(p); })
            trace.on_literal_step(p);
        else
            trace.on_literal(p);
        split.observe_literal(*p);
        b.literal(*p);
    }
    [[gnu::always_inline]] void match(const u8* p, u32 len, u32 offset) {
        trace.on_match(p, len, offset);
        split.observe_match(len);
        b.match(len, offset);
    }
};

/// A step that is one literal, not one the lazy look-ahead deferred before a match: to
/// Out::literal_step() where the output tells the two apart (a track writes the step's
/// end with its last item), else to literal().
template <class Out>
[[gnu::always_inline]] inline void put_literal_step(Out& out, const u8* p) {
    if constexpr (requires { out.literal_step(p); })
        out.literal_step(p);
    else
        out.literal(p);
}

template <LazyMode kMode_>
class LazyParser {
    static constexpr bool kLazy = kMode_ != LazyMode::greedy;

public:
    static constexpr LazyMode kMode = kMode_;
    explicit LazyParser(const LevelParams& params)
        : max_search_depth_(params.max_search_depth), nice_match_length_(params.nice_match_length) {}

    template <class Sink, class Trace = NoTrace>
    void parse(const u8* in_begin, const u8* in_end, Sink&& sink, Trace&& trace = Trace{}) {
        mf_.init(in_begin);
        st_.block_begin = nullptr;  // begin a new block at in_begin
        st_.next_hashes[0] = st_.next_hashes[1] = 0;
        run(in_begin, InputView{in_end, nullptr}, sink, trace);
    }

    /// Parses input that is still arriving (see input_stream.hpp).
    template <class Sink>
    void parse(InputStream& in, Sink&& sink) {
        mf_.init(in.begin());
        st_.block_begin = nullptr;
        st_.next_hashes[0] = st_.next_hashes[1] = 0;
        NoTrace trace;
        run(in.begin(), InputView{nullptr, &in}, sink, trace);
    }

    /// Resumes at @p pos with @p st (captured at a step position of an earlier parse of
    /// the same input), priming the match finder from the 32 KiB before pos.
    template <class Sink, class Trace = NoTrace>
    void resume(const u8* in_begin, const u8* pos, const u8* in_end, const LazyParseState& st, Sink&& sink,
                Trace&& trace = Trace{}) {
        st_ = st;
        u32 h[2];
        mf_.prime(in_begin, st.mf_base, pos, h);
        run(pos, InputView{in_end, nullptr}, sink, trace);
    }

    /// One step of the parse at @p in_next with min match length @p min_len: a literal,
    /// or a match preceded by the literals the lazy look-ahead deferred.  Between two
    /// steps the block logic looks at the block; a step depends only on its position,
    /// min_len and the match finder (whose state is a function of the 32 KiB before).
    /// Items go to @p out (literal(p), match(p, len, offset)); returns the next position.
    template <class Out>
    [[gnu::always_inline]] const u8* step(const u8* in_next, const u8* in_end, u32 min_len, u32 next_hashes[2],
                                          Out& out) {
        const u32 depth = max_search_depth_;
        constexpr bool kLog = kBranches<Out>;
        u32 max_len = kMaxMatchLen, nice_len = std::min(nice_match_length_, kMaxMatchLen);
        adjust_max_and_nice_len(max_len, nice_len, in_end - in_next);
        if constexpr (!kLazy) {
            u32 offset = 0;
            const u32 length = first_search(in_next, min_len, max_len, nice_len, next_hashes, offset, out);
            if (length >= min_len && (length > kMinMatchLen || offset <= 4096)) {
                out.match(in_next, length, offset);
                mf_.template skip_bytes<kLog>(in_next + 1, in_end, length - 1, next_hashes);
                return in_next + length;
            }
            put_literal_step(out, in_next);
            return in_next + 1;
        } else {
            u32 cur_offset = 0;
            u32 cur_len = first_search(in_next, min_len, max_len, nice_len, next_hashes, cur_offset, out);
            if (cur_len < min_len || (cur_len == kMinMatchLen && cur_offset > 8192)) {
                put_literal_step(out, in_next);
                return in_next + 1;
            }
            const u8* match_pos = in_next;
            in_next++;
            for (;;) {  // we hold a match (cur_len, cur_offset) starting at match_pos
                if (cur_len >= nice_len) {
                    out.match(match_pos, cur_len, cur_offset);
                    mf_.template skip_bytes<kLog>(in_next, in_end, cur_len - 1, next_hashes);
                    return in_next + cur_len - 1;
                }
                adjust_max_and_nice_len(max_len, nice_len, in_end - in_next);
                u32 next_offset;
                u32 next_len = mf_.template longest_match<kLog>(in_next, cur_len - 1, max_len, nice_len, depth >> 1, next_hashes,
                                                 next_offset);
                in_next++;
                if (lazy_prefers_next(cur_len, cur_offset, next_len, next_offset, 2)) {
                    out.literal(in_next - 2);
                    cur_len = next_len;
                    cur_offset = next_offset;
                    match_pos = in_next - 1;
                    continue;
                }
                if constexpr (kMode == LazyMode::lazy2) {
                    adjust_max_and_nice_len(max_len, nice_len, in_end - in_next);
                    next_len = mf_.template longest_match<kLog>(in_next, cur_len - 1, max_len, nice_len, depth >> 2, next_hashes,
                                                 next_offset);
                    in_next++;
                    if (lazy_prefers_next(cur_len, cur_offset, next_len, next_offset, 6)) {
                        out.literal(in_next - 3);
                        out.literal(in_next - 2);
                        cur_len = next_len;
                        cur_offset = next_offset;
                        match_pos = in_next - 1;
                        continue;
                    }
                    out.match(match_pos, cur_len, cur_offset);
                    if (cur_len > 3) {
                        mf_.template skip_bytes<kLog>(in_next, in_end, cur_len - 3, next_hashes);
                        in_next += cur_len - 3;
                    }
                } else {
                    out.match(match_pos, cur_len, cur_offset);
                    mf_.template skip_bytes<kLog>(in_next, in_end, cur_len - 2, next_hashes);
                    in_next += cur_len - 2;
                }
                return in_next;
            }
        }
    }

    /// The length-3 match farther than this is a literal (greedy: 4096, lazy: 8192).
    static constexpr u32 kFar3 = kLazy ? 8192 : 4096;

    /// A step's first search, the only one that reads min_len: longest_match() with
    /// best_len = min_len - 1, or, for an @p out that wants it, the search for every
    /// best_len at once, which gives the same result and the step's mask.
    template <class Out>
    [[gnu::always_inline]] u32 first_search(const u8* in_next, u32 min_len, u32 max_len, u32 nice_len,
                                            u32 next_hashes[2], u32& offset, Out& out) {
        if constexpr (kWantsStepMask<Out>) {
            HcMatchFinder::SharedMatch found;
            mf_.template longest_match_shared<kBranches<Out>>(in_next, max_len, nice_len, max_search_depth_, next_hashes, found);
            return found.step(min_len, kFar3, offset, [&](u32 mask) { out.step_mask(mask, found); });
        } else {
            return mf_.template longest_match<kBranches<Out>>(in_next, min_len - 1, max_len, nice_len, max_search_depth_,
                                                              next_hashes, offset);
        }
    }

    /// Brings the match finder from its state at @p from (a step position of this
    /// finder's own parse) to its state at @p to, inserting the positions between, as
    /// the parse would: cheaper than prime() when @p to is near.  Not within a match's
    /// length of @p in_end.
    void catch_up(const u8* from, const u8* to, const u8* in_end, u32 next_hashes[2]) {
        mf_.insert_range(from, to, in_end, next_hashes);
    }

    /// Brings the match finder to its state at @p pos (see HcMatchFinder::prime());
    /// sets the hashes step() needs next.
    void prime(const u8* in_begin, const u8* pos, u32 next_hashes[2]) { mf_.prime(in_begin, pos, pos, next_hashes); }

    /// Speculative parse from @p pos as if a block began there (the parallel search's
    /// history track): primes the match finder, then parses until @p trace stops it.
    template <class Trace>
    void search(const u8* in_begin, const u8* pos, const u8* in_end, Trace&& trace) {
        st_.block_begin = nullptr;
        prime(in_begin, pos, st_.next_hashes);
        if constexpr (requires { trace.watch(std::as_const(mf_)); }) trace.watch(std::as_const(mf_));
        const auto no_sink = [](const ParsedBlock&) {};
        run(pos, InputView{in_end, nullptr}, no_sink, trace);
    }

    [[nodiscard]] u32 max_search_depth() const { return max_search_depth_; }

private:
    template <class Sink, class Trace>
    void run(const u8* in_next, InputView view, Sink& sink, Trace& trace) {
        const u8* in_end;
        const u32 depth = max_search_depth_;
        // A parse that only records its steps (the parallel search) codes no block: it
        // only counts what the block logic reads.
        std::conditional_t<std::decay_t<Trace>::kSteps, MatchCounter, SequenceBuilder> b;
        LazyParseState& st = st_;
        bool resumed = st.block_begin != nullptr;
        // The hottest state lives in locals, so the compiler can keep it in registers;
        // st gets them back only where an observer looks.
        u32 next_hashes[2] = {st.next_hashes[0], st.next_hashes[1]};
        BlockSplitStats split = st.split_stats;
        std::size_t stride_steps = 0;  // kMarksStrides: steps begun since the last stride end
        do {
            in_end = view.block_end(resumed ? st.block_begin : in_next);
            Sequence* first_seq = seqs_.get();
            if (!resumed) {
                st.block_begin = in_next;
                st.next_recalc_min_len = in_next + std::min<std::size_t>(in_end - in_next, 10000);
                split.reset();
                b.begin(first_seq, &st.freqs);
                const std::size_t block_max = choose_max_block_end(in_next, in_end, kSoftMaxBlockLength) - in_next;
                if constexpr (kWatchesUsedLiterals<Trace>) {  // the trace wants the count itself
                    const u32 used = used_literals_in(in_next, block_max);
                    st.min_len = choose_min_match_len(used, depth);
                    trace.on_used_literals(used, depth);
                } else {
                    st.min_len = calculate_min_match_len(in_next, block_max, depth);
                }
                st.num_matches = 0;
            } else {
                // Continue the block: keep its counts, append after its earlier matches.
                const SymbolFreqs saved = st.freqs;
                first_seq += st.num_matches;
                b.begin(first_seq, &st.freqs);
                st.freqs = saved;
            }
            resumed = false;
            const u8* const block_begin = st.block_begin;
            const u8* const max_block_end = choose_max_block_end(block_begin, in_end, kSoftMaxBlockLength);
            const u8* const first_item = in_next;
            const Sequence* const seq_limit = seqs_.get() + kSeqStoreLength;
            const u32 matches_before = st.num_matches;
            u32 min_len = st.min_len;
            do {
                if constexpr (std::decay_t<Trace>::kEnabled) {
                    st.min_len = min_len;
                    st.mf_base = mf_.base();
                    st.num_matches = matches_before + u32(b.num_matches());
                    st.next_hashes[0] = next_hashes[0];
                    st.next_hashes[1] = next_hashes[1];
                    st.split_stats = split;
                    trace.on_step(in_next, st);
                }
                if constexpr (std::decay_t<Trace>::kSteps) {
                    if (trace.stop(in_next)) return;
                }
                if constexpr (kLazy) {
                    if (in_next >= st.next_recalc_min_len) {
                        const u32 used = used_literals_of(st.freqs.litlen);
                        min_len = choose_min_match_len(used, depth);
                        if constexpr (kWatchesUsedLiterals<Trace>) trace.on_used_literals(used, depth);
                        st.next_recalc_min_len +=
                            std::min<std::size_t>(in_end - st.next_recalc_min_len, in_next - block_begin);
                    }
                }
                if constexpr (std::decay_t<Trace>::kSteps) trace.on_step_begin(in_next, min_len);
                if constexpr (kMarksStrides<Trace>) {
                    if (stride_steps == std::decay_t<Trace>::kStrideSteps) [[unlikely]] {
                        trace.stride_end(in_next, split, matches_before + b.num_matches(), st.freqs.litlen);
                        stride_steps = 0;
                    }
                    ++stride_steps;
                }
                BuildItems<std::decay_t<Trace>, decltype(b)> items{b, split, trace};
                in_next = step(in_next, in_end, min_len, next_hashes, items);
            } while (in_next < max_block_end && b.below(seq_limit) &&
                     !split.should_end_block(block_begin, in_next, in_end));
            if constexpr (kMarksStrides<Trace>)
                trace.on_block_end(split, matches_before + b.num_matches(), st.freqs.litlen);
            st.freqs.litlen[kEndOfBlock]++;
            sink(ParsedBlock{{first_item, std::size_t(in_next - first_item)}, b.first(), &st.freqs, nullptr,
                             in_next == in_end});
        } while (in_next != in_end);
    }

    u32 max_search_depth_;
    u32 nice_match_length_;
    LazyParseState st_{};
    std::unique_ptr<Sequence[]> seqs_{new Sequence[kSeqStoreLength + 1]};
    std::unique_ptr<HcMatchFinder> mf_holder_{new HcMatchFinder};
    HcMatchFinder& mf_ = *mf_holder_;
};

}  // namespace flowdeflate::core
