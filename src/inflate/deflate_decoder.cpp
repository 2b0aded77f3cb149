// deflate_decoder.cpp - the block loop, the Huffman decode loop, the marked -> plain switch.
//
// One template, ChunkDecoder<Symbol>, decodes blocks into a HistoryBuffer of bytes (plain)
// or of 16-bit symbols (marked).  The two modes differ only in what sits in the history in
// front of the output (the real window, or markers) and in the symbol width, so they share
// every line of decoding; the marked instance also checks, at each block end, whether it
// may hand over to a byte instance.
//
// The Huffman loop has a fast path and a careful path, as libdeflate's has.  The fast path
// runs while the input has a word to spare after the most one iteration reads and the
// output has room for the most one iteration writes; it then needs no bounds checks but
// the distance check.  Per iteration it refills the bit buffer once (56 bits at least: two
// main-table literals and a third, or a length of at most 15 + 5 bits and a distance of at
// most 15 + 13, fit), decodes up to three literals before refilling again, and copies
// matches a word at a time, writing up to a few words past the match's end (the buffer's
// slack), with the overlapping cases (distance below a word; distance 1, a run) handled
// apart.  The careful path decodes one symbol with checked refills and exact copies: it
// runs for the last bytes of input, and reports truncation as soon as a bit past the end
// was consumed.  When the output fills up, the buffer grows and the fast path resumes.
#include "inflate/deflate_decoder.hpp"

#include "inflate/bit_reader.hpp"
#include "inflate/dynamic_header.hpp"
#include "inflate/huffman_decode_table.hpp"
#include "inflate/markers.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace flowdeflate::inflate {

struct DeflateDecoder::Tables {
    LitlenDecodeTable litlen;
    DistanceDecodeTable distance;
    PrecodeDecodeTable precode;
    LitlenDecodeTable fixed_litlen;
    DistanceDecodeTable fixed_distance;
    DynamicCodeLengths lens;  // scratch for dynamic headers

    Tables() {
        std::array<std::uint8_t, core::kNumLitlenSyms> litlen_lens{};
        std::fill_n(litlen_lens.begin(), 144, 8);
        std::fill(litlen_lens.begin() + 144, litlen_lens.begin() + 256, 9);
        std::fill(litlen_lens.begin() + 256, litlen_lens.begin() + 280, 7);
        std::fill(litlen_lens.begin() + 280, litlen_lens.end(), 8);
        std::array<std::uint8_t, core::kNumOffsetSyms> distance_lens;
        distance_lens.fill(5);
        [[maybe_unused]] const bool ok = fixed_litlen.build(litlen_lens) && fixed_distance.build(distance_lens);
    }
};

namespace {

using namespace entry_flag;

/// Most elements one fast-loop iteration writes: three literals, or a longest match.
constexpr std::size_t kFastLoopMaxOutput = core::kMaxMatchLen + 3;
/// Input bytes one fast-loop iteration may move past its first word load (its second
/// refill), so that every load in the iteration stays inside the input.
constexpr std::size_t kFastLoopInputAhead = 16;

// ---- match copies -----------------------------------------------------------------------

template <class Symbol>
[[gnu::always_inline]] inline void copy_word(Symbol* dst, const Symbol* src) noexcept {
    std::uint64_t w;
    std::memcpy(&w, src, sizeof w);
    std::memcpy(dst, &w, sizeof w);
}

/// Copies @p length (3..258) elements from @p distance back; may write up to 32 bytes past
/// the end (HistoryBuffer::kSlack).
template <class Symbol>
[[gnu::always_inline]] inline void copy_match_fast(Symbol* dst, std::size_t distance, std::size_t length) noexcept {
    constexpr std::size_t kPerWord = sizeof(std::uint64_t) / sizeof(Symbol);
    const Symbol* src = dst - distance;
    Symbol* const end = dst + length;
    if (distance >= kPerWord) {
        // Every word read lies before the word written: plain forward copies.
        copy_word(dst, src);
        copy_word(dst + kPerWord, src + kPerWord);
        copy_word(dst + 2 * kPerWord, src + 2 * kPerWord);
        copy_word(dst + 3 * kPerWord, src + 3 * kPerWord);
        dst += 4 * kPerWord;
        src += 4 * kPerWord;
        while (dst < end) {
            copy_word(dst, src);
            copy_word(dst + kPerWord, src + kPerWord);
            dst += 2 * kPerWord;
            src += 2 * kPerWord;
        }
    } else if (distance == 1) {
        // A run of one element.
        constexpr std::uint64_t kRepeat = std::uint64_t(-1) / ((std::uint64_t(1) << (8 * sizeof(Symbol))) - 1);
        const std::uint64_t w = kRepeat * *src;
        for (int i = 0; i < 4; ++i) std::memcpy(dst + i * kPerWord, &w, sizeof w);
        dst += 4 * kPerWord;
        while (dst < end) {
            std::memcpy(dst, &w, sizeof w);
            std::memcpy(dst + kPerWord, &w, sizeof w);
            dst += 2 * kPerWord;
        }
    } else {
        // Distance below a word: each word copy makes `distance` more elements final.
        do {
            copy_word(dst, src);
            dst += distance;
            src += distance;
        } while (dst < end);
    }
}

/// Exact element-by-element copy (the careful path: no slack needed).
template <class Symbol>
inline void copy_match_exact(Symbol* dst, std::size_t distance, std::size_t length) noexcept {
    const Symbol* src = dst - distance;
    for (std::size_t i = 0; i < length; ++i) dst[i] = src[i];
}

// ---- the chunk decoder ----------------------------------------------------------------------

/// Token mode's state inside a Huffman block: where the next match goes, where the
/// current literal run began, and the bytes the matches have produced so far.
template <class Symbol>
struct TokenCursor {
    Sequence* seq = nullptr;
    Symbol* run_begin = nullptr;
    std::uint64_t matched = 0;
};

/// Decodes blocks into one HistoryBuffer<Symbol>; see the file comment.  With kTokens
/// (bytes only), the buffer receives the literals alone and each match becomes a Sequence
/// instead of a copy.
template <class Symbol, bool kTokens = false>
class ChunkDecoder {
public:
    static constexpr bool kMarked = std::is_same_v<Symbol, std::uint16_t>;
    static_assert(!kTokens || !kMarked);

    enum class Outcome {
        stopped,
        final_block,
        error,
        switch_to_plain,  // at a block end: the last 32 KiB hold no marker
    };

    ChunkDecoder(BitReader& reader, HistoryBuffer<Symbol>& out, DeflateDecoder::Tables& tables,
                 const DecodeLimits& limits, DecodeProgress& progress, std::size_t output_base,
                 HistoryBuffer<Sequence>* sequences = nullptr)
        : reader_(reader), out_(out), tables_(tables), limits_(limits), progress_(progress),
          output_base_(output_base), sequences_(sequences) {}

    /// Token mode: the bytes the matches produced (the literals are out_'s output).
    [[nodiscard]] std::uint64_t matched() const noexcept { return matched_; }

    Outcome decode_blocks() {
        for (;;) {
            const std::uint64_t header_bit = reader_.bit_position();
            if (header_bit >= limits_.stop_bit ||
                (!progress_.boundaries.empty() &&
                 ((limits_.stop_requested && limits_.stop_requested->load(std::memory_order_relaxed)) ||
                  output_offset() >= limits_.stop_after_output))) {
                progress_.end_bit = header_bit;
                return Outcome::stopped;
            }
            reader_.refill();
            const bool is_final = reader_.read(1) != 0;
            const auto type = static_cast<BlockType>(reader_.read(2));
            progress_.boundaries.push_back({header_bit, output_offset(), type, is_final});
            DecodeStatus status = decode_block(type);
            if (status == DecodeStatus::ok && reader_.truncated()) status = DecodeStatus::truncated;
            progress_.end_bit = reader_.bit_position();
            if (status != DecodeStatus::ok) {
                progress_.status = status;
                return Outcome::error;
            }
            if (limits_.first_block_decoded && progress_.boundaries.size() == 1) {
                limits_.first_block_decoded->store(progress_.boundaries.front().bit_offset, std::memory_order_release);
                limits_.first_block_decoded->notify_all();
            }
            if (is_final) {
                progress_.final_block_ended = true;
                return Outcome::final_block;
            }
            if constexpr (kMarked)
                if (window_is_marker_free()) return Outcome::switch_to_plain;
        }
    }

private:
    std::uint64_t output_offset() const noexcept {
        if constexpr (kTokens) return output_base_ + out_.output_size() + matched_;
        return output_base_ + out_.output_size();
    }

    DecodeStatus decode_block(BlockType type) {
        switch (type) {
        case BlockType::stored: return decode_stored();
        case BlockType::static_huffman: return decode_huffman(tables_.fixed_litlen, tables_.fixed_distance);
        case BlockType::dynamic_huffman: {
            const DecodeStatus s = read_dynamic_codes();
            return s == DecodeStatus::ok ? decode_huffman(tables_.litlen, tables_.distance) : s;
        }
        default: return DecodeStatus::invalid_block_type;
        }
    }

    DecodeStatus decode_stored() {
        reader_.align_to_byte();
        if (reader_.bytes_remaining() < 4) return DecodeStatus::truncated;
        const std::uint8_t* header = reader_.data() + reader_.byte_position();
        const unsigned len = header[0] | unsigned(header[1]) << 8;
        const unsigned nlen = header[2] | unsigned(header[3]) << 8;
        if (len != (~nlen & 0xFFFF)) return DecodeStatus::invalid_stored_length;
        if (reader_.bytes_remaining() - 4 < len) return DecodeStatus::truncated;
        if (output_offset() + len > limits_.max_output) return DecodeStatus::output_limit;
        out_.ensure_room(len);
        std::copy_n(header + 4, len, out_.end());  // widens to 16 bits in marked mode
        out_.set_end(out_.end() + len);
        reader_.seek((std::uint64_t(reader_.byte_position()) + 4 + len) * 8);
        return DecodeStatus::ok;
    }

    /// Reads a dynamic block's code lengths and builds its tables.
    DecodeStatus read_dynamic_codes() {
        DynamicCodeLengths& lens = tables_.lens;
        if (const DecodeStatus s = read_dynamic_code_lengths(reader_, tables_.precode, lens); s != DecodeStatus::ok)
            return s;
        if (!tables_.distance.build(lens.distance())) return DecodeStatus::invalid_distance_code;
        if (!tables_.litlen.build(lens.litlen())) return DecodeStatus::invalid_litlen_code;
        return DecodeStatus::ok;
    }

    /// Decodes one Huffman block's symbols up to and including its end-of-block symbol.
    DecodeStatus decode_huffman(const LitlenDecodeTable& litlen, const DistanceDecodeTable& distance) {
        BitReader in = reader_;  // a local copy lives in registers
        out_.ensure_room(kFastLoopMaxOutput);
        Symbol* out = out_.end();
        const Symbol* begin = out_.begin();
        // Token mode (locals, so that byte stores do not force reloads).
        TokenCursor<Symbol> tok;
        [[maybe_unused]] const Sequence* seq_fast_end = nullptr;
        if constexpr (kTokens) load_cursor(tok);
        DecodeStatus status = DecodeStatus::ok;
        for (;;) {
            const Symbol* fast_end = out_.capacity_end() - kFastLoopMaxOutput;
            if constexpr (kTokens) {
                sequences_->set_end(tok.seq);  // the careful path may have added one
                sequences_->ensure_room(2);
                tok.seq = sequences_->end();
                seq_fast_end = sequences_->capacity_end() - 1;
                // Matches make output without room in out_: at most so many that a full-
                // length one each passes max_output once, where the check below stops.
                // (Data of 1000:1 would otherwise run a whole block past it.)
                const std::size_t made = output_offset();
                const std::size_t left = made < limits_.max_output ? limits_.max_output - made : 0;
                if (left / core::kMaxMatchLen + 1 < std::size_t(seq_fast_end - tok.seq))
                    seq_fast_end = tok.seq + left / core::kMaxMatchLen + 1;
            }
            // Each iteration starts with a full buffer and the entry for its first bits
            // already looked up (the lookup for the next iteration is issued before the
            // refill and the match copy, so its latency overlaps theirs).
            std::uint32_t entry = 0;
            if (in.can_refill_from_word(kFastLoopInputAhead)) {
                in.refill_from_word();
                entry = litlen.lookup(in.buffer());
            }
            while (out <= fast_end && in.can_refill_from_word(kFastLoopInputAhead) &&
                   (!kTokens || tok.seq < seq_fast_end)) {
                if (entry & kLiteral) {
                    in.consume(entry_bits(entry));
                    *out++ = Symbol(entry_value(entry));
                    entry = litlen.lookup(in.buffer());
                    if (entry & kLiteral) {
                        in.consume(entry_bits(entry));
                        *out++ = Symbol(entry_value(entry));
                        entry = litlen.lookup(in.buffer());
                        if (entry & kLiteral) {
                            in.consume(entry_bits(entry));
                            *out++ = Symbol(entry_value(entry));
                            entry = litlen.lookup(in.buffer());  // >= 23 bits left: all real
                            in.refill_from_word();
                            continue;
                        }
                    }
                    in.refill_from_word();  // the entry's bits stay where they were
                }
                if (entry & kExceptional) [[unlikely]] {
                    in.consume(entry_bits(entry));
                    if (entry & kEndOfBlock) goto block_end;
                    entry = litlen.lookup_subtable(entry, in.buffer());
                    if (entry & kLiteral) {
                        in.consume(entry_bits(entry));
                        *out++ = Symbol(entry_value(entry));
                        in.refill_from_word();
                        entry = litlen.lookup(in.buffer());
                        continue;
                    }
                    if (entry & kEndOfBlock) {
                        in.consume(entry_bits(entry));
                        goto block_end;
                    }
                }
                std::uint64_t bits = in.buffer();
                in.consume(entry_bits(entry));
                const std::uint32_t length = entry_base_plus_extra(entry, bits);
                entry = distance.lookup(in.buffer());
                if (entry & kExceptional) [[unlikely]] {
                    in.consume(entry_bits(entry));
                    entry = distance.lookup_subtable(entry, in.buffer());
                }
                bits = in.buffer();
                in.consume(entry_bits(entry));
                const std::uint32_t dist = entry_base_plus_extra(entry, bits);
                in.refill_from_word();
                entry = litlen.lookup(in.buffer());
                if (dist > reach(out, begin, tok)) [[unlikely]] {
                    status = DecodeStatus::distance_too_far;
                    goto block_end;
                }
                if constexpr (kTokens) {
                    record_match(out, tok, length, dist);
                } else {
                    copy_match_fast(out, dist, length);
                    out += length;
                }
            }
            // Out of room or near the input's end.
            out_.set_end(out);
            if constexpr (kTokens) store_cursor(tok);
            if (output_offset() > limits_.max_output) {
                status = DecodeStatus::output_limit;
                break;
            }
            out_.ensure_room(kFastLoopMaxOutput);
            out = out_.end();
            begin = out_.begin();
            if constexpr (kTokens) {
                sequences_->ensure_room(2);
                load_cursor(tok);
            }
            if (in.can_refill_from_word(kFastLoopInputAhead)) continue;
            bool end_of_block = false;
            status = decode_symbol_carefully(in, out, begin, tok, litlen, distance, end_of_block);
            if (status != DecodeStatus::ok || end_of_block) break;
        }
    block_end:
        out_.set_end(out);
        if constexpr (kTokens) store_cursor(tok);
        reader_ = in;
        return status;
    }

    /// How far back a match may reach from @p out: the history and output so far; in
    /// token mode the literals, the matched bytes and the 32 KiB before the chunk.
    [[gnu::always_inline]] static std::size_t reach(const Symbol* out, const Symbol* begin,
                                                    const TokenCursor<Symbol>& tok) noexcept {
        if constexpr (kTokens) return std::size_t(out - begin) + std::size_t(tok.matched) + kWindowSize;
        return std::size_t(out - begin);
    }

    /// Token mode: a match after the literals since the last one.
    [[gnu::always_inline]] static void record_match(Symbol* out, TokenCursor<Symbol>& tok, std::uint32_t length,
                                                    std::uint32_t dist) noexcept {
        *tok.seq++ = Sequence{std::uint32_t(out - tok.run_begin), std::uint16_t(length), std::uint16_t(dist)};
        tok.run_begin = out;
        tok.matched += length;
    }

    void load_cursor(TokenCursor<Symbol>& tok) {
        tok.seq = sequences_->end();
        tok.run_begin = out_.begin() + run_begin_;
        tok.matched = matched_;
    }
    void store_cursor(const TokenCursor<Symbol>& tok) {
        sequences_->set_end(tok.seq);
        run_begin_ = std::size_t(tok.run_begin - out_.begin());
        matched_ = tok.matched;
    }

    /// One literal, match or end of block, with checked refills and an exact copy.  The
    /// caller guarantees kFastLoopMaxOutput elements of room.
    [[gnu::always_inline]] static DecodeStatus decode_symbol_carefully(BitReader& in, Symbol*& out, const Symbol* begin,
                                                                      TokenCursor<Symbol>& tok,
                                                                      const LitlenDecodeTable& litlen,
                                                                      const DistanceDecodeTable& distance,
                                                                      bool& end_of_block) noexcept {
        in.refill();
        std::uint32_t entry = litlen.lookup(in.buffer());
        if (entry & kSubtablePointer) {
            in.consume(entry_bits(entry));
            entry = litlen.lookup_subtable(entry, in.buffer());
        }
        std::uint64_t bits = in.buffer();
        in.consume(entry_bits(entry));
        if (in.truncated()) return DecodeStatus::truncated;
        if (entry & kLiteral) {
            *out++ = Symbol(entry_value(entry));
            return DecodeStatus::ok;
        }
        if (entry & kEndOfBlock) {
            end_of_block = true;
            return DecodeStatus::ok;
        }
        const std::uint32_t length = entry_base_plus_extra(entry, bits);
        in.refill();
        entry = distance.lookup(in.buffer());
        if (entry & kSubtablePointer) {
            in.consume(entry_bits(entry));
            entry = distance.lookup_subtable(entry, in.buffer());
        }
        bits = in.buffer();
        in.consume(entry_bits(entry));
        if (in.truncated()) return DecodeStatus::truncated;
        const std::uint32_t dist = entry_base_plus_extra(entry, bits);
        if (dist > reach(out, begin, tok)) return DecodeStatus::distance_too_far;
        if constexpr (kTokens) {
            record_match(out, tok, length, dist);
        } else {
            copy_match_exact(out, dist, length);
            out += length;
        }
        return DecodeStatus::ok;
    }

    /// Marked mode: true once the last 32 KiB of output hold no marker.  Each symbol is
    /// scanned at most once over the chunk (from the previous check's end on).
    bool window_is_marker_free() {
        const std::size_t end = out_.history_size() + out_.output_size();
        const std::size_t from = std::max(scanned_to_, end >= kWindowSize ? end - kWindowSize : 0);
        const std::size_t found = end_of_last_marker(std::span<const Symbol>(out_.begin() + from, end - from));
        if (found != 0) last_marker_end_ = from + found;
        scanned_to_ = end;
        return end - last_marker_end_ >= kWindowSize;
    }

    BitReader& reader_;
    HistoryBuffer<Symbol>& out_;
    DeflateDecoder::Tables& tables_;
    const DecodeLimits& limits_;
    DecodeProgress& progress_;
    std::size_t output_base_;  // output offset of out_'s first output element in the chunk
    // Marked mode: indices into out_ (history included); the history is all markers.
    std::size_t scanned_to_ = kWindowSize;
    std::size_t last_marker_end_ = kWindowSize;
    // Token mode: the matches, where the current literal run began in out_, the bytes the
    // matches produced.
    HistoryBuffer<Sequence>* sequences_ = nullptr;
    std::size_t run_begin_ = 0;
    std::uint64_t matched_ = 0;
};

}  // namespace

DeflateDecoder::DeflateDecoder() : tables_(std::make_unique<Tables>()) {}
DeflateDecoder::~DeflateDecoder() = default;
DeflateDecoder::DeflateDecoder(DeflateDecoder&&) noexcept = default;
DeflateDecoder& DeflateDecoder::operator=(DeflateDecoder&&) noexcept = default;

PlainChunk DeflateDecoder::decode_plain(std::span<const std::uint8_t> input, std::uint64_t start_bit,
                                        std::span<const std::uint8_t> window, const DecodeLimits& limits) {
    PlainChunk chunk;
    decode_plain(input, start_bit, window, limits, chunk);
    return chunk;
}

MarkedChunk DeflateDecoder::decode_marked(std::span<const std::uint8_t> input, std::uint64_t start_bit,
                                          const DecodeLimits& limits) {
    MarkedChunk chunk;
    decode_marked(input, start_bit, limits, chunk);
    return chunk;
}

void DeflateDecoder::decode_plain(std::span<const std::uint8_t> input, std::uint64_t start_bit,
                                  std::span<const std::uint8_t> window, const DecodeLimits& limits, PlainChunk& chunk) {
    chunk.restart();
    if (window.size() > kWindowSize) window = window.last(kWindowSize);
    chunk.buffer.reset(window, limits.expected_output);
    BitReader reader(input, start_bit);
    ChunkDecoder<std::uint8_t>(reader, chunk.buffer, *tables_, limits, chunk, 0).decode_blocks();
}

void DeflateDecoder::decode_marked(std::span<const std::uint8_t> input, std::uint64_t start_bit,
                                   const DecodeLimits& limits, MarkedChunk& chunk) {
    chunk.restart();
    chunk.switched_to_plain = false;
    static const std::array<std::uint16_t, kWindowSize> kMarkers = [] {
        std::array<std::uint16_t, kWindowSize> markers;
        for (std::size_t i = 0; i < kWindowSize; ++i) markers[i] = marker_for(i);
        return markers;
    }();
    chunk.marked.reset(kMarkers, limits.expected_output);
    chunk.plain.clear();
    BitReader reader(input, start_bit);
    using Outcome = ChunkDecoder<std::uint16_t>::Outcome;
    if (ChunkDecoder<std::uint16_t>(reader, chunk.marked, *tables_, limits, chunk, 0).decode_blocks() !=
        Outcome::switch_to_plain)
        return;
    // The last 32 KiB are bytes: they are the plain decoder's window.
    const std::span<const std::uint16_t> tail = chunk.marked.output().last(kWindowSize);
    std::array<std::uint8_t, kWindowSize> window;
    std::copy(tail.begin(), tail.end(), window.begin());
    chunk.plain.reset(window, limits.expected_output > chunk.size() ? limits.expected_output - chunk.size() : 0);
    chunk.switched_to_plain = true;
    ChunkDecoder<std::uint8_t>(reader, chunk.plain, *tables_, limits, chunk, chunk.marked.output_size()).decode_blocks();
}

void DeflateDecoder::decode_tokens(std::span<const std::uint8_t> input, std::uint64_t start_bit,
                                   const DecodeLimits& limits, TokenChunk& chunk) {
    chunk.restart();
    // About one match per 8 bytes and a third of the bytes literals; both grow if not.
    chunk.literals.reset({}, limits.expected_output / 2);
    chunk.sequences.reset({}, limits.expected_output / 8);
    BitReader reader(input, start_bit);
    ChunkDecoder<std::uint8_t, true> decoder(reader, chunk.literals, *tables_, limits, chunk, 0, &chunk.sequences);
    decoder.decode_blocks();
    chunk.output_size = chunk.literals.output_size() + decoder.matched();
}

namespace {

[[gnu::always_inline]] inline void copy16(std::uint8_t* dst, const std::uint8_t* src) noexcept {
    std::uint8_t w[16];
    std::memcpy(w, src, 16);
    std::memcpy(dst, w, 16);
}

}  // namespace

bool replay_tokens(const TokenChunk& chunk, std::uint8_t* out, std::size_t history) noexcept {
    // Branches are what a replay costs (a sequence is a few bytes): the common cases take
    // none that depend on the data but one, and write whole 16-byte words into the slack
    // past their end (the next sequence, or kReplaySlack at the end, overwrites them).
    history = std::min(history, kWindowSize);
    const std::uint8_t* const start = out;
    const std::uint8_t* literals = chunk.literals.output().data();
    const auto copy_literals = [&](std::size_t n) {
        copy16(out, literals);  // reads past the literals land in their buffer's slack
        for (std::size_t i = 16; i < n; i += 16) copy16(out + i, literals + i);
        out += n;
        literals += n;
    };
    for (const Sequence& s : chunk.sequences.output()) {
        copy_literals(s.literals);
        const std::size_t distance = s.distance, length = s.length;
        if (distance > std::size_t(out - start) + history) [[unlikely]]
            return false;
        const std::uint8_t* src = out - distance;
        if (distance >= 16) {
            copy16(out, src);
            copy16(out + 16, src + 16);
            for (std::size_t i = 32; i < length; i += 16) copy16(out + i, src + i);
        } else {
            copy_match_fast(out, distance, length);
        }
        out += length;
    }
    copy_literals(std::size_t(chunk.literals.output().data() + chunk.literals.output_size() - literals));
    return true;
}

}  // namespace flowdeflate::inflate
