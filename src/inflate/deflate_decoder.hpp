// deflate_decoder.hpp - raw DEFLATE decoding from any block boundary, with or without the
// window.
//
// The building block of parallel decompression of any gzip file (Knespel & Brunst,
// "Rapidgzip", HPDC 2023): a worker is given a bit offset where a block starts (found by
// BlockFinder or known from a previous chunk) and decodes blocks from there,
//
//   - in plain mode, when the 32 KiB that precede the offset are known (or the offset is
//     the stream's start): the output is bytes, as any inflater's;
//   - in marked mode, when they are not: the output is 16-bit symbols in which a
//     back-reference into the unknown window yields markers (markers.hpp) that
//     resolve_markers() later replaces.  Markers only come from the window, and a match
//     reaches at most 32 KiB back, so once the last 32 KiB of output hold no marker none
//     can appear again: decoding then goes on in plain mode, seeded with those 32 KiB as
//     its window.  A chunk's output is thus a (usually short) marked part followed by a
//     plain part; split_offset() says where.
//
// Decoding stops before the first block whose header starts at or after `stop_bit` (that
// block is not decoded), after the final block (BFINAL), or at the first error.  The
// result lists every block it decoded with its header's bit offset and the output offset
// where its data starts, which is what a caller needs to stitch chunks decoded by several
// workers: chunk k ends exactly where chunk k+1's first block starts.
//
// Validity is libdeflate's: a stream decodes here exactly when libdeflate 1.23's decoder
// accepts it (see huffman_decode_table.hpp for the code rules).  Distances may reach the
// window: in plain mode the window given plus the output so far, in marked mode 32 KiB
// plus the output so far.  Errors are results, never exceptions or undefined behaviour.
//
// A DeflateDecoder owns its decode tables (about 22 KiB, allocated once); it is not
// shared between threads, and one per worker is the intended use.
#pragma once

#include "core/deflate_format.hpp"
#include "inflate/decode_status.hpp"
#include "inflate/history_buffer.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <vector>

namespace flowdeflate::inflate {

using core::BlockType;


/// One block decoded: where its header starts and where its data starts in the output.
struct BlockBoundary {
    std::uint64_t bit_offset = 0;
    std::uint64_t output_offset = 0;
    BlockType type = BlockType::stored;
    bool is_final = false;
    friend bool operator==(const BlockBoundary&, const BlockBoundary&) = default;
};

inline constexpr std::uint64_t kNoStopBit = std::numeric_limits<std::uint64_t>::max();

struct DecodeLimits {
    /// Stop before the first block whose header starts at or after this bit.
    std::uint64_t stop_bit = kNoStopBit;
    /// Give up (output_limit) once the output exceeds this many symbols: decoding from a
    /// false block-finder candidate must not run away with memory.
    std::size_t max_output = std::numeric_limits<std::size_t>::max();
    /// Initial output capacity; the buffer grows geometrically beyond it.
    std::size_t expected_output = 0;
    /// When set, the start bit is stored here (release, waiters notified) as soon as the
    /// first block has decoded without an error: an early sign, for a thread waiting on a
    /// speculative chunk, of where that chunk will most likely start.
    std::atomic<std::uint64_t>* first_block_decoded = nullptr;
    /// When set, decoding stops at the first block boundary after the first block at which
    /// this reads true (as at stop_bit: the chunk ends there, complete and usable): a caller
    /// that has caught up with a speculative chunk takes what is decoded and decodes the
    /// rest itself.
    const std::atomic<bool>* stop_requested = nullptr;
    /// Stop at the first block boundary, after the first block, at which the output holds
    /// this many symbols or more (as at stop_bit: the chunk ends there, complete and
    /// usable): a worker's region of very compressible data becomes a shorter stretch
    /// instead of a failure at max_output.
    std::size_t stop_after_output = std::numeric_limits<std::size_t>::max();
};

/// What both modes report.
struct DecodeProgress {
    DecodeStatus status = DecodeStatus::ok;
    /// Where decoding stopped: the header of the first block not decoded (stop_bit), the
    /// bit after the final block, or, on an error, about where it was found.
    std::uint64_t end_bit = 0;
    /// The final block (BFINAL = 1) was decoded to its end.
    bool final_block_ended = false;
    /// Every block decoded, in order; the first starts at the start bit.
    std::vector<BlockBoundary> boundaries;

    [[nodiscard]] bool ok() const noexcept { return status == DecodeStatus::ok; }
    /// Back to the state before decoding (the boundary list keeps its memory).
    void restart() noexcept {
        status = DecodeStatus::ok;
        end_bit = 0;
        final_block_ended = false;
        boundaries.clear();
    }
};

/// Plain mode's result: bytes.
struct PlainChunk : DecodeProgress {
    HistoryBuffer<std::uint8_t> buffer;  // history: the window given

    [[nodiscard]] std::span<const std::uint8_t> bytes() const noexcept { return buffer.output(); }
};

/// Marked mode's result: marked symbols up to split_offset(), bytes after it.
struct MarkedChunk : DecodeProgress {
    HistoryBuffer<std::uint16_t> marked;  // history: the 32 K markers of the unknown window
    HistoryBuffer<std::uint8_t> plain;    // history: the 32 KiB of output before the split

    /// Output before the switch to plain mode: bytes and markers.
    [[nodiscard]] std::span<const std::uint16_t> marked_symbols() const noexcept { return marked.output(); }
    /// Output after the switch: bytes only (empty when it did not happen).
    [[nodiscard]] std::span<const std::uint8_t> plain_bytes() const noexcept { return plain.output(); }
    /// Output offset where plain mode took over (== size() when it did not).
    [[nodiscard]] std::size_t split_offset() const noexcept { return marked.output_size(); }
    [[nodiscard]] std::size_t size() const noexcept { return marked.output_size() + plain.output_size(); }

    /// Plain mode took over (the last 32 KiB at some block end held no marker).
    bool switched_to_plain = false;
};

/// One LZ77 sequence of a token chunk: `literals` bytes from the literal stream, then a
/// copy of `length` bytes from `distance` back (length 0: the literals only).
struct Sequence {
    std::uint32_t literals = 0;
    std::uint16_t length = 0;
    std::uint16_t distance = 0;
};

/// Token mode's result: the chunk as LZ77 tokens, before any byte is copied.  Nothing in it
/// depends on the bytes before the chunk, so it can be decoded without them; replay_tokens()
/// turns it into bytes once they are known, at the cost of the copies alone.
struct TokenChunk : DecodeProgress {
    HistoryBuffer<std::uint8_t> literals;    // every literal and stored byte, in order
    HistoryBuffer<Sequence> sequences;       // the matches, each after its literals
    std::uint64_t output_size = 0;           // bytes the chunk decodes to

    [[nodiscard]] std::size_t size() const noexcept { return std::size_t(output_size); }
};

/// Bytes past a replay's end that replay_tokens() may write (word copies).
inline constexpr std::size_t kReplaySlack = 64;

/// Writes @p chunk's bytes to @p out (room for chunk.size() + kReplaySlack bytes), the
/// @p history bytes before @p out being the chunk's window (the last of them just before
/// it; up to 32 KiB are read).  False when a match reaches before that history: the stream
/// is invalid there (or the chunk did not start where the caller assumed).
[[nodiscard]] bool replay_tokens(const TokenChunk& chunk, std::uint8_t* out, std::size_t history) noexcept;

class DeflateDecoder {
public:
    DeflateDecoder();
    ~DeflateDecoder();
    DeflateDecoder(DeflateDecoder&&) noexcept;
    DeflateDecoder& operator=(DeflateDecoder&&) noexcept;

    /// Decodes from bit @p start_bit of @p input, the bytes before it being @p window (its
    /// last 32 KiB are used; empty at a stream's start).
    [[nodiscard]] PlainChunk decode_plain(std::span<const std::uint8_t> input, std::uint64_t start_bit,
                                          std::span<const std::uint8_t> window, const DecodeLimits& limits = {});
    /// Decodes from bit @p start_bit of @p input without knowing the bytes before it.
    [[nodiscard]] MarkedChunk decode_marked(std::span<const std::uint8_t> input, std::uint64_t start_bit,
                                            const DecodeLimits& limits = {});

    /// The same into a chunk given back for reuse: its buffers keep their memory, so a
    /// caller that recycles chunks (a bounded pool) allocates and page-faults nothing once
    /// they are large enough.  Whatever @p chunk held is replaced.
    void decode_plain(std::span<const std::uint8_t> input, std::uint64_t start_bit,
                      std::span<const std::uint8_t> window, const DecodeLimits& limits, PlainChunk& chunk);
    void decode_marked(std::span<const std::uint8_t> input, std::uint64_t start_bit, const DecodeLimits& limits,
                       MarkedChunk& chunk);
    /// Decodes from bit @p start_bit into LZ77 tokens (TokenChunk): no window needed, no
    /// copies made.  Distances may reach 32 KiB before the start, as in marked mode.
    void decode_tokens(std::span<const std::uint8_t> input, std::uint64_t start_bit, const DecodeLimits& limits,
                       TokenChunk& chunk);

    struct Tables;

private:
    std::unique_ptr<Tables> tables_;
};

}  // namespace flowdeflate::inflate
