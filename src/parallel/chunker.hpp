// chunker.hpp - cutting the input into chunks for the search.  A chunk is searched on its
// own (its match finder primed from the 32 KiB before it), and its tracks run a little
// past its end (the overlap) so that they meet the next chunk's tracks.
#pragma once

#include <cstddef>
#include <optional>

#include "flowdeflate/core.hpp"
#include "parallel/items.hpp"

namespace flowdeflate::parallel {

/// One chunk of the input as the reader hands it out.
struct ChunkJob {
    std::size_t index = 0;
    const u8* in_begin = nullptr;  ///< first byte of the whole input
    const u8* begin = nullptr;     ///< the chunk: [begin, end)
    const u8* end = nullptr;
    const u8* stop = nullptr;      ///< tracks run to their first step at or past this
    const u8* data_end = nullptr;  ///< input present when the job was made
    bool eof = false;              ///< data_end is the true end of the input
};

/// Bytes the reader must have past a chunk's end before the chunk goes out (unless the
/// input ends first): the tracks' overlap, a match past it, and one block's look-ahead
/// for the resolver (see core/input_stream.hpp).
std::size_t chunk_lookahead(std::size_t chunk_size);
/// How far a chunk's tracks run past its end, so that they meet the next chunk's tracks.
std::size_t chunk_overlap(std::size_t chunk_size);

/// Cuts the input into chunk jobs as it arrives: the one place that decides a job's
/// fields, for every way input comes in (a reader thread, a caller's writes, a buffer).
class Chunker {
public:
    Chunker(const u8* in_begin, std::size_t chunk_size);
    /// The end of the input the next job needs present, unless the input ends before it.
    [[nodiscard]] const u8* need() const { return next_.end + need_bytes(); }
    /// The next job if its input is in: @p present is the end of the input that is there,
    /// @p ended says it is the end of all input.  What every way in calls (a buffer, a
    /// caller's writes, a reader thread): the job sees exactly need() bytes, or the end.
    std::optional<ChunkJob> next_from(const u8* present, bool ended);
    /// The last job (the one that reaches the end of the input) was made.
    [[nodiscard]] bool done() const { return done_; }
    /// The index the next job gets.
    [[nodiscard]] std::size_t index() const { return next_.index; }

private:
    [[nodiscard]] std::size_t need_bytes() const { return chunk_size_ + lookahead_; }
    /// The next job, with the input present up to @p data_end (need(), or the end of the
    /// input when @p eof).
    ChunkJob next(const u8* data_end, bool eof);

    ChunkJob next_;
    std::size_t chunk_size_;
    std::size_t lookahead_;
    bool done_ = false;
};

}  // namespace flowdeflate::parallel
