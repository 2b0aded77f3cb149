// speculative_chunk.hpp - a worker's part of parallel decompression: find a block start in
// its stretch of the compressed stream and decode from there without the window.
//
// The stream is cut into regions of a fixed number of compressed bytes.  The worker for a
// region asks the BlockFinder for candidates in it, in order, and decodes from each into
// LZ77 tokens (DeflateDecoder::decode_tokens: no window needed, back-references are kept as
// they are) or marked symbols (decode_marked) until one decodes without an error up to the first block boundary at or after
// the region's end, or to the end of the final block.  A false candidate fails quickly on nearly all data; one that happens to
// decode is still harmless, because the main line uses a chunk only after ISA-L, decoding
// the true stream, has stopped between two blocks exactly at the chunk's start (see
// isal_line.hpp): from a true boundary, the chunk is the true decoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "inflate/deflate_decoder.hpp"

namespace flowdeflate::inflate {

/// Decodes region [@p begin_bit, @p end_bit) of @p input as described above into @p out
/// (its buffers reused: a caller that recycles chunks page-faults nothing once they are
/// large enough); returns the block boundary where decoding started, or nullopt when no
/// candidate in the region decodes.  @p limits: max_output bounds a candidate's output (a
/// false one must not run away with memory); expected_output sizes the buffers (0: four
/// times the region's bytes); first_block_decoded, when set, receives each candidate's
/// start once its first block has decoded (usually the start returned, well before the
/// region is done; a candidate that fails later is replaced by the next one that gets that
/// far); stop_requested, when it turns true, ends the chunk at its next block boundary (a
/// shorter chunk, still returned) or ends the search.  Its stop_bit is replaced by @p end_bit.
/// @p out is a TokenChunk (tokens) or a MarkedChunk (marked symbols, then bytes).
template <class Chunk>
[[nodiscard]] std::optional<std::uint64_t> speculate(DeflateDecoder& decoder, std::span<const std::uint8_t> input,
                                                     std::uint64_t begin_bit, std::uint64_t end_bit,
                                                     DecodeLimits limits, Chunk& out);

}  // namespace flowdeflate::inflate
