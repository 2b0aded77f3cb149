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
/// Marked mode with a WindowOffer: symbols between two looks at it inside a block.
constexpr std::size_t kOfferCheckInterval = std::size_t(32) << 10;
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

/// Decodes blocks into one HistoryBuffer<Symbol>; see the file comment.
template <class Symbol>
class ChunkDecoder {
public:
    static constexpr bool kMarked = std::is_same_v<Symbol, std::uint16_t>;

    enum class Outcome {
        stopped,
        final_block,
        error,
        switch_to_plain,  // at a block end: the last 32 KiB hold no marker
        window_offered,   // at a block end
        window_offered_mid_block,
    };

    ChunkDecoder(BitReader& reader, HistoryBuffer<Symbol>& out, DeflateDecoder::Tables& tables,
                 const DecodeLimits& limits, DecodeProgress& progress, std::size_t output_base)
        : reader_(reader), out_(out), tables_(tables), limits_(limits), progress_(progress),
          output_base_(output_base) {}

    /// Decodes blocks from the reader's position; with @p resume, first the rest of the
    /// Huffman block a marked decoder left at a symbol boundary (a *_mid_block outcome:
    /// the last boundary listed, its tables still in place).
    Outcome decode_blocks(bool resume = false) {
        for (;;) {
            bool is_final = false;
            DecodeStatus status = DecodeStatus::ok;
            if (resume) {
                resume = false;
                const BlockBoundary& block = progress_.boundaries.back();
                is_final = block.is_final;
                status = block.type == BlockType::static_huffman
                             ? decode_huffman(tables_.fixed_litlen, tables_.fixed_distance)
                             : decode_huffman(tables_.litlen, tables_.distance);
            } else {
                const std::uint64_t header_bit = reader_.bit_position();
                if (header_bit >= limits_.stop_bit) {
                    progress_.end_bit = header_bit;
                    return Outcome::stopped;
                }
                reader_.refill();
                is_final = reader_.read(1) != 0;
                const auto type = static_cast<BlockType>(reader_.read(2));
                progress_.boundaries.push_back({header_bit, output_offset(), type, is_final});
                status = decode_block(type);
            }
            if constexpr (kMarked)
                if (mid_block_ != Outcome::stopped) return mid_block_;
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
            if constexpr (kMarked) {
                if (window_is_marker_free()) return Outcome::switch_to_plain;
                if (window_offered()) return Outcome::window_offered;
            }
        }
    }

private:
    std::uint64_t output_offset() const noexcept { return output_base_ + out_.output_size(); }

    /// Marked mode: the window for this chunk's start has been offered.
    bool window_offered() const noexcept {
        return limits_.window_offer && limits_.window_offer->start_bit.load(std::memory_order_acquire) ==
                                           progress_.boundaries.front().bit_offset;
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
        DecodeStatus status = DecodeStatus::ok;
        for (;;) {
            const Symbol* fast_end = out_.capacity_end() - kFastLoopMaxOutput;
            // Marked mode with a window that may be offered: the fast loop stops every
            // kOfferCheckInterval symbols to look (a load, not a test per symbol).
            if constexpr (kMarked)
                if (limits_.window_offer && std::size_t(fast_end - out) > kOfferCheckInterval)
                    fast_end = out + kOfferCheckInterval;
            // Each iteration starts with a full buffer and the entry for its first bits
            // already looked up (the lookup for the next iteration is issued before the
            // refill and the match copy, so its latency overlaps theirs).
            std::uint32_t entry = 0;
            if (in.can_refill_from_word(kFastLoopInputAhead)) {
                in.refill_from_word();
                entry = litlen.lookup(in.buffer());
            }
            while (out <= fast_end && in.can_refill_from_word(kFastLoopInputAhead)) {
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
                if (dist > std::size_t(out - begin)) [[unlikely]] {
                    status = DecodeStatus::distance_too_far;
                    goto block_end;
                }
                copy_match_fast(out, dist, length);
                out += length;
            }
            // Out of room or near the input's end (or, marked, time to look for a window).
            out_.set_end(out);
            if constexpr (kMarked) {
                if (window_offered()) {
                    // Stopped between two symbols: the plain decoder goes on from here.
                    reader_ = in;
                    mid_block_ = Outcome::window_offered_mid_block;
                    return DecodeStatus::ok;
                }
            }
            if (output_offset() > limits_.max_output) {
                status = DecodeStatus::output_limit;
                break;
            }
            out_.ensure_room(kFastLoopMaxOutput);
            out = out_.end();
            begin = out_.begin();
            if (in.can_refill_from_word(kFastLoopInputAhead)) continue;
            bool end_of_block = false;
            status = decode_symbol_carefully(in, out, begin, litlen, distance, end_of_block);
            if (status != DecodeStatus::ok || end_of_block) break;
        }
    block_end:
        out_.set_end(out);
        reader_ = in;
        return status;
    }

    /// One literal, match or end of block, with checked refills and an exact copy.  The
    /// caller guarantees kFastLoopMaxOutput elements of room.
    [[gnu::always_inline]] static DecodeStatus decode_symbol_carefully(BitReader& in, Symbol*& out, const Symbol* begin,
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
        if (dist > std::size_t(out - begin)) return DecodeStatus::distance_too_far;
        copy_match_exact(out, dist, length);
        out += length;
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
    // decode_huffman left its block for the plain decoder (stopped: it did not).
    Outcome mid_block_ = Outcome::stopped;
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
    const Outcome outcome = ChunkDecoder<std::uint16_t>(reader, chunk.marked, *tables_, limits, chunk, 0).decode_blocks();
    const bool mid_block = outcome == Outcome::window_offered_mid_block;
    if (outcome != Outcome::switch_to_plain && outcome != Outcome::window_offered && !mid_block) return;
    // The plain decoder's window: the last 32 KiB, bytes already (no marker left), or
    // resolved with the window offered.
    const std::span<const std::uint16_t> tail =
        chunk.marked.output().last(std::min(kWindowSize, chunk.marked.output_size()));
    std::array<std::uint8_t, kWindowSize> window;
    std::size_t window_size = tail.size();
    if (outcome == Outcome::switch_to_plain) {
        std::copy(tail.begin(), tail.end(), window.begin());
    } else {
        // With fewer than 32 KiB decoded, the offered bytes' end comes first.
        const std::span<const std::uint8_t> before = limits.window_offer->bytes.last(
            std::min(limits.window_offer->bytes.size(), kWindowSize - tail.size()));
        std::copy(before.begin(), before.end(), window.begin());
        if (!resolve_markers(tail, limits.window_offer->bytes, std::span(window).subspan(before.size(), tail.size()))) {
            chunk.status = DecodeStatus::distance_too_far;
            return;
        }
        window_size = before.size() + tail.size();
    }
    chunk.plain.reset(std::span(window).first(window_size),
                      limits.expected_output > chunk.size() ? limits.expected_output - chunk.size() : 0);
    chunk.switched_to_plain = true;
    if (limits.window_offer) {
        limits.window_offer->marked_part_final.store(true, std::memory_order_release);
        limits.window_offer->marked_part_final.notify_all();
    }
    ChunkDecoder<std::uint8_t>(reader, chunk.plain, *tables_, limits, chunk, chunk.marked.output_size())
        .decode_blocks(mid_block);
}

}  // namespace flowdeflate::inflate
