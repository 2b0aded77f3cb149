// indexed_inflate.hpp - decompression of a gzip file with its index, on several cores.
//
// An index's seek points cut the file into spans that decode independently: ISA-L
// started at a point with its window (index::SpanDecoder), stopped exactly at the next.
// A parallel pipeline decodes spans on `threads` threads, at most threads + 1 of them
// live, and they go out in order: the span in front streams (its decoder writes each piece
// as ISA-L makes it), spans decoded ahead keep pooled pieces until their turn.  Each gzip
// member's CRC-32 and size are checked in order from the spans' pieces (CRC-32 combined, no
// second pass over the bytes), after its bytes.  What the index claims is checked as the
// spans decode: no byte past a span's stated size goes out, each span ends at the next
// point's bit with the next point's uncompressed offset, and its last bytes are the next
// point's window; a mismatch is an error naming the point.
#pragma once

#include <cstdint>
#include <span>

#include "flowdeflate/core.hpp"
#include "flowdeflate/index.hpp"
#include "flowdeflate/stats.hpp"

namespace flowdeflate::graph {

/// Decompresses the gzip file @p in with @p index on @p threads threads to @p sink.
/// Throws Error when the index does not fit the file or the data is corrupt.
/// @p stats (if given) gets the spans and the CPU time of their decoding (workers_ns) and of
/// the checks and writing in order (main_line_ns).  @p release_input: @p in is a private
/// file mapping whose pages may be given back behind the writer (memory then does not grow
/// with the file).  @p pin_threads: each thread on a CPU of its own (pinning.hpp).
Result indexed_gunzip(std::span<const std::uint8_t> in, const Index& index, const Sink& sink, int threads,
                      DecompressStats* stats = nullptr, bool release_input = false, bool pin_threads = false);

/// Writes the uncompressed bytes [@p offset, @p offset + @p length) of the gzip file
/// @p in to @p sink (fewer where the data ends first), decoding from the last seek point
/// at or before @p offset to the range's end (a piece of 256 KiB past it at most; the
/// index checked as far as that).  A range over several spans decodes them on @p threads
/// threads, in order as indexed_gunzip() does; the same bytes, checks and errors on any
/// thread count.  Returns the bytes written.  @p stats (if given): as indexed_gunzip()'s, for
/// the spans decoded on several threads; @p pin_threads, @p release_input: as there.
std::uint64_t read_range(std::span<const std::uint8_t> in, const Index& index, std::uint64_t offset,
                         std::uint64_t length, const Sink& sink, int threads = 1, bool pin_threads = false,
                         DecompressStats* stats = nullptr, bool release_input = false);

}  // namespace flowdeflate::graph
