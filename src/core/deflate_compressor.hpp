// deflate_compressor.hpp - the sequential compressor, composed of the same pieces the
// parallel pipeline uses: a parser (chosen by level) hands ParsedBlocks to the
// BlockCoder, and an assembler appends them at the real bit offset, deciding stored
// blocks there.  Wrappers add the zlib and gzip framing libdeflate writes.
#pragma once

#include <memory>
#include <span>
#include <variant>

#include "core/block_coder.hpp"
#include "core/input_stream.hpp"
#include "core/parsed_block.hpp"
#include "core/segmented_output.hpp"
#include "core/parser_fastest.hpp"
#include "core/parser_lazy.hpp"
#include "core/parser_near_optimal.hpp"
#include "flowdeflate/core.hpp"

namespace flowdeflate::core {

/// Codes parsed blocks and appends them to a bit stream of fixed size, each placed at the
/// real bit offset by place_block() (block_coder.hpp).
class BlockWriter {
public:
    explicit BlockWriter(BitWriter& out) : out_(out) {}

    /// Codes @p block and appends it; returns false (and writes nothing more) when it
    /// does not fit in the output.
    bool append(BlockCoder& coder, const ParsedBlock& block, HuffmanCodes& scratch_codes);

    [[nodiscard]] bool overflowed() const { return overflow_; }

private:
    BitWriter& out_;
    bool overflow_ = false;
};

/// Writes @p in as stored blocks only (level 0, and tiny inputs at every level).
/// Returns the size written, or 0 when it does not fit.
std::size_t compress_stored(std::span<const u8> in, std::span<u8> out);

class DeflateCompressor {
public:
    explicit DeflateCompressor(int level);
    ~DeflateCompressor();

    [[nodiscard]] int level() const { return params_.level; }
    [[nodiscard]] const LevelParams& params() const { return params_; }

    /// Raw DEFLATE; returns the size written or 0 when @p out is too small.
    std::size_t deflate(std::span<const u8> in, std::span<u8> out);

    static std::size_t deflate_bound(std::size_t in_size);

    /// deflate(), or deflate() in its zlib or gzip frame (core/framing.hpp), as @p format says.
    std::size_t compress(std::span<const u8> in, std::span<u8> out, Format format);
    /// A size compress() always fits in (libdeflate's *_compress_bound()).
    static std::size_t bound(std::size_t in_size, Format format);

    /// Compresses input that is still arriving into segments of @p segment_size bytes
    /// (the last may be shorter), byte-identical to the whole-buffer output.  Returns the
    /// number of input bytes.  Memory is bounded by the stream's window and one segment.
    /// At levels 10-12, @p feed (if given) supplies the matches (match_feed.hpp).  Seek
    /// points go to @p index (if given), one each @p index_span bytes.
    std::uint64_t compress_stream(InputStream& in, SegmentSink& out, Format format,
                                  std::size_t segment_size = kDefaultSegmentSize, MatchFeed* feed = nullptr,
                                  IndexSink* index = nullptr, std::uint64_t index_span = kDefaultIndexSpan);
    static constexpr std::size_t kDefaultSegmentSize = 1u << 20;

    /// Runs the level's parser over @p in and passes each ParsedBlock to @p sink.
    template <class Sink> void parse(std::span<const u8> in, Sink&& sink);
    template <class Sink> void parse(InputStream& in, Sink&& sink, MatchFeed* feed = nullptr);

private:
    LevelParams params_;
    BlockCoder coder_;
    HuffmanCodes scratch_codes_{};
    /// The level's parser (level_parsers.hpp); none for level 0, which stores.
    std::variant<std::monostate, std::unique_ptr<FastestParser>, std::unique_ptr<LazyParser<LazyMode::greedy>>,
                 std::unique_ptr<LazyParser<LazyMode::lazy>>, std::unique_ptr<LazyParser<LazyMode::lazy2>>,
                 std::unique_ptr<NearOptimalParser>>
        parser_;
    /// Runs @p f on the level's parser, if it has one.
    template <class F> void with_parser(F&& f);
};

}  // namespace flowdeflate::core
