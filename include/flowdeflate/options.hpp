// flowdeflate/options.hpp - what a compression call may be told.
//
// One value type for every call (one-shot, file, stream, graph node) and for the command
// line.  The defaults are the tuned ones (docs/DESIGN.md says why each is what it is).
// validate() rejects what cannot work, with a message that says what is allowed; every
// call validates before it starts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stop_token>

#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "flowdeflate/core.hpp"
#include "flowdeflate/index.hpp"

namespace flowdeflate {

/// The bounds Options::validate() enforces (levels kMinLevel..kMaxLevel and kMinChunkSize
/// are in core.hpp).  The command line checks its flags against them too, so that its
/// messages name its flags.
inline constexpr int kMaxThreads = 4096;  ///< also for search_concurrency and code_concurrency
inline constexpr std::size_t kMaxChunkSize = std::size_t(1) << 30;
inline constexpr int kMaxAhead = 1 << 16;
inline constexpr int kMaxRing = 1 << 20;

struct Options {
    /// 0 (stored) .. 12; 6 is libdeflate's default.
    int level = kDefaultLevel;
    Format format = Format::gzip;

    /// One compressor on one thread.  Otherwise levels 1-9 run the parallel graph, and
    /// levels 10-12 search matches on the other threads ahead of their one optimiser
    /// (calls of more than one chunk); level 0 always stores on one thread.  The output
    /// is the same either way.
    bool sequential = false;
    /// Worker threads when no arena is given (0: all cores).  More than the cores is allowed.
    int threads = 0;
    /// Run on the caller's arena: the call then creates no threads of its own
    /// (compress_fd() and compress_file() read on the calling thread and write on the
    /// arena's workers; without an arena they use two I/O threads; an input that fits one
    /// chunk they compress on the calling thread either way).  Not owned.
    tbb::task_arena* arena = nullptr;

    /// Input per Search task, kMinChunkSize (4 KiB) .. kMaxChunkSize (1 GiB), or 0 for
    /// the level's default (chunk()).
    std::size_t chunk_size = 0;
    /// Chunks searched ahead of the resolver (0: threads + 4).
    int ahead = 0;
    /// Resolved blocks waiting for Code and Assemble.
    int ring = 4096;
    Tracks tracks = Tracks::automatic;
    /// Search and Code node concurrency (0: threads).
    int search_concurrency = 0;
    int code_concurrency = 0;

    /// Cancellation: either stops the call, which then throws flowdeflate::Cancelled and
    /// leaves nothing half-written behind (file calls remove their temporary output).
    std::stop_token stop;
    tbb::task_group_context* context = nullptr;

    /// Seek points for random access (index.hpp): when set, the call hands it a point at
    /// the first block and at the first block boundary index_span or more uncompressed
    /// bytes after the last, then the sizes (finish()), on one thread at a time.  The
    /// compressed bytes are the same with or without.  Not owned.
    IndexSink* index = nullptr;
    std::uint64_t index_span = kDefaultIndexSpan;

    /// Called in order, on one thread at a time, with the input bytes consumed and the
    /// output bytes produced so far (after each output segment of about 1 MiB).
    std::function<void(std::uint64_t in, std::uint64_t out)> progress;

    /// Throws flowdeflate::Error naming the first invalid field (as "Options::ring") and
    /// what it allows.
    void validate() const;
    /// True when the call will run the parallel graph: levels 1-9, not sequential, and
    /// more than one thread unless tracks other than automatic are asked for (one thread
    /// runs the sequential compressor, which writes the same bytes).
    [[nodiscard]] bool parallel() const noexcept;
    /// The input per Search task: chunk_size, or when 0 the level's default: 1 MiB, and
    /// 512 KiB at levels 10-12, whose optimiser, the serial part, has the last chunk to
    /// itself (docs/notes/levels-10-12.md, "Chunks of 512 KiB by default").
    [[nodiscard]] std::size_t chunk() const noexcept;
};

}  // namespace flowdeflate
