// chunker.cpp - see chunker.hpp.
#include "parallel/chunker.hpp"

#include <algorithm>
#include <string>

#include "core/input_stream.hpp"
#include "flowdeflate/core.hpp"

namespace flowdeflate::parallel {

std::size_t chunk_overlap(std::size_t chunk_size) { return std::clamp<std::size_t>(chunk_size / 16, 512, 4096); }

std::size_t chunk_lookahead(std::size_t chunk_size) {
    return chunk_overlap(chunk_size) + 2 * kMaxMatchLen + kStreamLookahead;
}

Chunker::Chunker(const u8* in_begin, std::size_t chunk_size)
    : chunk_size_(chunk_size), lookahead_(chunk_lookahead(chunk_size)) {
    if (chunk_size < kMinChunkSize)
        throw Error("chunk size must be at least " + std::to_string(kMinChunkSize) + " bytes");
    next_.in_begin = in_begin;
    next_.end = in_begin;
}

ChunkJob Chunker::next(const u8* data_end, bool eof) {
    ChunkJob job = next_;
    job.begin = next_.end;
    job.data_end = data_end;
    job.eof = eof;
    // Offsets by sizes, never past data_end: an empty buffer's pointers may be null.
    job.end = job.begin + std::min(chunk_size_, std::size_t(data_end - job.begin));
    job.stop = job.end + std::min(chunk_overlap(chunk_size_), std::size_t(data_end - job.end));
    done_ = eof && job.end == data_end;
    next_.index = job.index + 1;
    next_.end = job.end;
    return job;
}

std::optional<ChunkJob> Chunker::next_from(const u8* present, bool ended) {
    const std::size_t have = std::size_t(present - next_.end);
    if (ended && have <= need_bytes()) return next(present, true);
    if (have < need_bytes()) return std::nullopt;
    return next(need(), false);
}

}  // namespace flowdeflate::parallel
