// sequence.hpp - what a parser hands to the block coder: a run of literals followed by a
// match (or by the end of the block), plus the symbol frequencies of the block.
//
// Parsing (choosing literals and matches) and coding (Huffman codes and bits) meet only
// here, so either side can run anywhere: the parallel pipeline parses in one task and
// codes in another.
#pragma once

#include <cstring>

#include "core/deflate_format.hpp"

namespace flowdeflate::core {

/// A run of `litrunlen()` literals (read from the input, not stored) followed by a match
/// of `length()` bytes at `offset`, or by the end of the block when length() == 0.
struct Sequence {
    static constexpr u32 kLengthShift = 23;
    static constexpr u32 kLitrunMask = (1u << kLengthShift) - 1;
    static_assert(kMaxBlockLength <= kLitrunMask);

    u32 litrunlen_and_length;
    u16 offset;
    u16 offset_slot;

    [[nodiscard]] u32 litrunlen() const { return litrunlen_and_length & kLitrunMask; }
    [[nodiscard]] u32 length() const { return litrunlen_and_length >> kLengthShift; }
};

/// Symbol frequencies of one block, for the literal/length and offset alphabets.
struct SymbolFreqs {
    u32 litlen[kNumLitlenSyms];
    u32 offset[kNumOffsetSyms];

    void clear() { std::memset(this, 0, sizeof(*this)); }
};

/// How often each byte value occurs in [data, data + n): four tables counted in turn and
/// summed, so that a run of one value does not chain every increment through one counter
/// (each increment waits for the store before it otherwise).
inline void count_bytes(const u8* data, std::size_t n, u32 (&counts)[kNumLiterals]) {
    u32 part[4][kNumLiterals] = {};
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        part[0][data[i]]++;
        part[1][data[i + 1]]++;
        part[2][data[i + 2]]++;
        part[3][data[i + 3]]++;
    }
    for (; i < n; ++i) part[0][data[i]]++;
    for (u32 b = 0; b < kNumLiterals; ++b) counts[b] = part[0][b] + part[1][b] + part[2][b] + part[3][b];
}

/// A block's Huffman codes: bit-reversed codewords and their lengths.
struct HuffmanCodes {
    u32 litlen_codewords[kNumLitlenSyms];
    u32 offset_codewords[kNumOffsetSyms];
    u8 litlen_lens[kNumLitlenSyms];
    u8 offset_lens[kNumOffsetSyms];
};

/// Ends @p seq, which holds a run of @p litrun literals, with a match, and counts the
/// match's symbols.
[[gnu::always_inline]] inline void put_match(Sequence& seq, SymbolFreqs& freqs, u32 litrun, u32 length, u32 offset) {
    const u32 length_slot = kLengthSlot[length];
    const u32 oslot = offset_slot(offset);
    freqs.litlen[kFirstLenSym + length_slot]++;
    freqs.offset[oslot]++;
    seq.litrunlen_and_length = litrun | (length << Sequence::kLengthShift);
    seq.offset = u16(offset);
    seq.offset_slot = u16(oslot);
}

/// Where a block's matches go, and how many there are: what SequenceBuilder and
/// MatchCounter share (the block logic reads the count).
class MatchStore {
public:
    /// True while fewer than @p limit sequences (matches) are stored.
    [[nodiscard]] bool below(const Sequence* limit) const { return seq_ < limit; }
    /// Number of matches chosen so far in this block.
    [[nodiscard]] std::size_t num_matches() const { return std::size_t(seq_ - first_); }
    [[nodiscard]] const Sequence* first() const { return first_; }

protected:
    void start(Sequence* first, SymbolFreqs* freqs) {
        seq_ = first;
        first_ = first;
        freqs_ = freqs;
    }
    Sequence* seq_ = nullptr;
    Sequence* first_ = nullptr;
    SymbolFreqs* freqs_ = nullptr;
};

/// Appends parser choices to a sequence list and counts their symbols.  One object per
/// block; the parser owns the storage (no allocation per block).
class SequenceBuilder : public MatchStore {
public:
    void begin(Sequence* first, SymbolFreqs* freqs) {
        start(first, freqs);
        freqs_->clear();
        seq_->litrunlen_and_length = 0;
    }
    [[gnu::always_inline]] void literal(u8 lit) {
        freqs_->litlen[lit]++;
        seq_->litrunlen_and_length++;
    }
    [[gnu::always_inline]] void match(u32 length, u32 offset) {
        put_match(*seq_, *freqs_, seq_->litrunlen_and_length, length, offset);
        ++seq_;
        seq_->litrunlen_and_length = 0;
    }
};

/// SequenceBuilder's interface for a parse whose blocks nobody codes (the parallel
/// search's history track): it keeps what the block logic reads, the literal counts (the
/// min_len recalculation) and the number of matches (the sequence store's limit), and
/// skips writing sequences (seq_ is never written through) and counting match symbols.
class MatchCounter : public MatchStore {
public:
    void begin(Sequence* first, SymbolFreqs* freqs) {
        start(first, freqs);
        std::memset(freqs_->litlen, 0, sizeof(freqs_->litlen));
    }
    [[gnu::always_inline]] void literal(u8 lit) { freqs_->litlen[lit]++; }
    [[gnu::always_inline]] void match(u32, u32) { ++seq_; }
};

}  // namespace flowdeflate::core
