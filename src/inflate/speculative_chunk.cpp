// speculative_chunk.cpp - see speculative_chunk.hpp.
#include "inflate/speculative_chunk.hpp"

#include "inflate/block_finder.hpp"

#include <type_traits>

namespace flowdeflate::inflate {
namespace {

// A stored block's header may begin at any of the bits whose padding up to the byte
// boundary is zero, so the finder's candidate can be up to 7 bits early, and the main line
// (which stops only where the previous block really ends) would never meet it.  The block
// after it starts at an exact bit: its end.  Returns that, when @p bit starts a stored
// block that is not the stream's last.
std::optional<std::uint64_t> past_stored_block(DeflateDecoder& decoder, BlockFinder& finder,
                                               std::span<const std::uint8_t> input, std::uint64_t bit) {
    if (finder.is_dynamic_block_start(bit)) return std::nullopt;
    DecodeLimits first_only;
    first_only.stop_bit = bit + 1;
    first_only.max_output = 65535;
    const MarkedChunk block = decoder.decode_marked(input, bit, first_only);
    if (!block.ok() || block.final_block_ended || block.boundaries.size() != 1 ||
        block.boundaries.front().type != BlockType::stored)
        return std::nullopt;
    return block.end_bit;
}

}  // namespace

template <class Chunk>
std::optional<std::uint64_t> speculate(DeflateDecoder& decoder, std::span<const std::uint8_t> input,
                                       std::uint64_t begin_bit, std::uint64_t end_bit, DecodeLimits limits,
                                       Chunk& out) {
    BlockFinder finder(input);
    limits.stop_bit = end_bit;
    // A region of compressed bytes decodes to a few times as much: one allocation, which a
    // reused chunk keeps.
    if (limits.expected_output == 0)
        limits.expected_output = std::min<std::size_t>(limits.max_output, std::size_t((end_bit - begin_bit) / 8) * 4);
    for (std::uint64_t from = begin_bit; from < end_bit;) {
        const std::optional<std::uint64_t> candidate = finder.find(from, end_bit);
        if (!candidate) break;
        std::uint64_t start = *candidate;
        if (const std::optional<std::uint64_t> after = past_stored_block(decoder, finder, input, start)) start = *after;
        if constexpr (std::is_same_v<Chunk, TokenChunk>)
            decoder.decode_tokens(input, start, limits, out);
        else
            decoder.decode_marked(input, start, limits, out);
        if (out.ok() && !out.boundaries.empty()) return start;
        // Asked to stop: the caller decodes the region itself; no point in another candidate.
        if (limits.stop_requested && limits.stop_requested->load(std::memory_order_relaxed)) break;
        from = *candidate + 1;
    }
    return std::nullopt;
}

template std::optional<std::uint64_t> speculate(DeflateDecoder&, std::span<const std::uint8_t>, std::uint64_t,
                                                std::uint64_t, DecodeLimits, TokenChunk&);
template std::optional<std::uint64_t> speculate(DeflateDecoder&, std::span<const std::uint8_t>, std::uint64_t,
                                                std::uint64_t, DecodeLimits, MarkedChunk&);

}  // namespace flowdeflate::inflate
