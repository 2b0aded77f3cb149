// parser_fastest.hpp - level 1: greedy parsing over the hash-table match finder, with
// fixed-size blocks (no split statistics): a block ends after 65535 bytes (or the rest of
// the input, if less than 5000 more would remain) or 8192 matches.
#pragma once

#include <memory>

#include "core/block_split.hpp"
#include "core/ht_match_finder.hpp"
#include "core/input_stream.hpp"
#include "core/parsed_block.hpp"

namespace flowdeflate::core {

/// Everything the level-1 parse carries from one position to the next, besides the
/// match finder (which priming rebuilds from the 32 KiB before the position).
struct FastestParseState {
    const u8* block_begin = nullptr;
    const u8* mf_base = nullptr;  ///< the match finder's base pointer (see ht_match_finder.hpp)
    u32 next_hash = 0;
    u32 num_matches = 0;  ///< matches already in the current block
};

class FastestParser {
public:
    explicit FastestParser(const LevelParams& params) : nice_len_(params.nice_match_length) {}

    /// Parses [in_begin, in_end) from the start.
    template <class Sink, class Trace = NoTrace>
    void parse(const u8* in_begin, const u8* in_end, Sink&& sink, Trace&& trace = Trace{}) {
        mf_.init(in_begin);
        FastestParseState st{in_begin, in_begin, 0, 0};
        run(in_begin, InputView{in_end, nullptr}, st, sink, trace);
    }

    /// Parses input that is still arriving (see input_stream.hpp).
    template <class Sink>
    void parse(InputStream& in, Sink&& sink) {
        mf_.init(in.begin());
        FastestParseState st{in.begin(), in.begin(), 0, 0};
        NoTrace trace;
        run(in.begin(), InputView{nullptr, &in}, st, sink, trace);
    }

    /// Resumes at @p pos with state @p st, priming the match finder from the input
    /// before pos (which must be readable back to pos - 32 KiB or @p in_begin).
    template <class Sink, class Trace = NoTrace>
    void resume(const u8* in_begin, const u8* pos, const u8* in_end, FastestParseState st, Sink&& sink,
                Trace&& trace = Trace{}) {
        u32 h = 0;
        mf_.prime(in_begin, st.mf_base, pos, h);
        run(pos, InputView{in_end, nullptr}, st, sink, trace);
    }

    /// One step at @p in_next: a literal or a match (or, in the last few bytes, all the
    /// remaining literals).  Items depend only on the position (the match finder's state
    /// is a function of the 32 KiB before it), never on the block.  @p max_len and
    /// @p nice_len start at 258 and the level's nice length; they shrink near the end.
    template <class Out>
    [[gnu::always_inline]] const u8* step(const u8* in_next, const u8* in_end, u32& max_len, u32& nice_len,
                                          u32& next_hash, Out& out) {
        const std::size_t remaining = std::size_t(in_end - in_next);
        if (remaining < kMaxMatchLen) [[unlikely]] {
            max_len = u32(remaining);
            if (max_len < HtMatchFinder::kRequiredBytes) {
                do out.literal(in_next++);
                while (--max_len);
                return in_next;
            }
            nice_len = std::min(nice_len, max_len);
        }
        u32 offset;
        const u32 length = mf_.longest_match(in_next, max_len, nice_len, next_hash, offset);
        if (length) {
            out.match(in_next, length, offset);
            mf_.skip_bytes(in_next + 1, in_end, length - 1, next_hash);
            return in_next + length;
        }
        out.literal(in_next);
        return in_next + 1;
    }

    void prime(const u8* in_begin, const u8* pos, u32& next_hash) { mf_.prime(in_begin, pos, pos, next_hash); }
    [[nodiscard]] u32 nice_len() const { return nice_len_; }

private:
    template <class Trace>
    struct BuildItems {
        SequenceBuilder& b;
        Trace& trace;
        [[gnu::always_inline]] void literal(const u8* p) {
            trace.on_literal(p);
            b.literal(*p);
        }
        [[gnu::always_inline]] void match(const u8* p, u32 len, u32 offset) {
            trace.on_match(p, len, offset);
            b.match(len, offset);
        }
    };

    template <class Sink, class Trace>
    void run(const u8* in_next, InputView view, FastestParseState st, Sink& sink, Trace& trace) {
        const u8* in_end;
        SequenceBuilder b;
        // Only the last 258 bytes of input shrink these, and only downwards.
        u32 max_len = kMaxMatchLen, nice_len = std::min(nice_len_, kMaxMatchLen);
        const u8* block_begin = st.block_begin;
        bool resumed_mid_block = st.num_matches != 0 || block_begin != in_next;
        do {
            if (!resumed_mid_block) block_begin = in_next;
            in_end = view.block_end(block_begin);
            const u8* const max_block_end = choose_max_block_end(block_begin, in_end, kFastSoftMaxBlockLength);
            const u8* const first_item = in_next;
            b.begin(seqs_.get() + (resumed_mid_block ? st.num_matches : 0), &freqs_);
            const Sequence* const seq_limit = seqs_.get() + kFastSeqStoreLength;
            resumed_mid_block = false;
            do {
                if constexpr (std::decay_t<Trace>::kEnabled) {
                    st.block_begin = block_begin;
                    st.mf_base = mf_.base();
                    st.num_matches = u32(b.num_matches() + (b.first() - seqs_.get()));
                    trace.on_step(in_next, st);
                }
                if constexpr (std::decay_t<Trace>::kSteps) {
                    if (trace.stop(in_next)) return;
                    trace.on_step_begin(in_next, 0);
                }
                BuildItems<std::decay_t<Trace>> items{b, trace};
                in_next = step(in_next, in_end, max_len, nice_len, st.next_hash, items);
            } while (in_next < max_block_end && b.below(seq_limit));
            freqs_.litlen[kEndOfBlock]++;
            sink(ParsedBlock{{first_item, std::size_t(in_next - first_item)}, b.first(), &freqs_, nullptr,
                             in_next == in_end});
        } while (in_next != in_end);
    }

    u32 nice_len_;
    SymbolFreqs freqs_{};
    std::unique_ptr<Sequence[]> seqs_{new Sequence[kFastSeqStoreLength + 1]};
    std::unique_ptr<HtMatchFinder> mf_holder_{new HtMatchFinder};
    HtMatchFinder& mf_ = *mf_holder_;
};

}  // namespace flowdeflate::core
