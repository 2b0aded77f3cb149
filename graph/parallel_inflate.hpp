// parallel_inflate.hpp - decompression of any gzip file on several cores.
//
// The method follows rapidgzip (Knespel & Brunst, HPDC 2023): workers jump into the
// compressed stream and find a block start (BlockFinder).  What differs is what they
// produce and who joins the pieces.  A worker decodes its region into LZ77 tokens
// (DeflateDecoder::decode_tokens: literals and (length, distance) pairs, no copies), which
// need no window at all, instead of bytes with markers for the unknown window that a
// second pass must resolve.  One *main line* decodes the stream in order with ISA-L, the
// fastest decoder available, and whenever it reaches a region a worker has, it stops at
// that stretch's first block boundary (exactly: IsalLine checks it; the worker says where
// as soon as its first block has decoded), replays the tokens against the window it has
// (the copies alone: a fraction of decoding), writes the bytes and starts ISA-L again after
// them.  A worker still decoding when the line gets there is asked to stop at its next
// block end (a takeover): the line replays that shorter stretch and decodes the rest of the
// region itself, rather than wait.  A region no worker has started yet is taken
// back and decoded by the main line.  How many regions the main line decodes between two
// of the workers' follows the measured speeds, so that a worker's region is done about
// when the main line gets there.  The output is the in-order decoding of the true stream
// whatever the timing: a stretch is used only from an exact boundary, and a false
// block-start candidate cannot change a byte.
//
// Workers are a flow graph's function_node (concurrency threads - 1) on their own arena;
// the main line runs on the calling thread, which also writes (the sink) and checks each
// member's CRC-32 and ISIZE.  Bounds: at most `threads - 1` regions in decoding and a few
// decoded regions waiting, each at most kMaxRegionOutput symbols, and the input's pages
// are released behind the main line, so memory does not grow with the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "flowdeflate/core.hpp"

namespace flowdeflate::graph {

struct ParallelInflateStats {
    std::uint64_t regions = 0;        ///< regions of the compressed stream
    std::uint64_t speculated = 0;     ///< regions given to a worker
    std::uint64_t used = 0;           ///< worker stretches written
    std::uint64_t failed_stops = 0;   ///< stretches the main line could not stop at (not used)
    std::uint64_t worker_output = 0;  ///< bytes written from workers' stretches
    std::uint64_t cancelled = 0;      ///< regions the main line took back (no worker had started)
    std::uint64_t takeovers = 0;      ///< stretches the worker was asked to end early (the line caught up)
    std::uint64_t waits = 0;          ///< times the main line waited for a worker to finish
    double wait_seconds = 0;          ///< the main line's time waiting for workers
    std::uint64_t gap = 0;            ///< regions the main line decodes between the workers' (last)
    std::uint64_t main_line_ns = 0;   ///< the main line's CPU time (decoding, replay, CRC-32, writing)
    std::uint64_t workers_ns = 0;     ///< the workers' CPU time, all together
};

struct ParallelInflateOptions {
    int threads = 2;  ///< the main line and threads - 1 workers (at least one)
    /// Compressed bytes per region (a worker's share): large enough that finding a block
    /// start and decoding the first marked 32 KiB are a small part of a worker's time,
    /// small enough that a 2-core run of a 10 MB file still has regions to share.
    std::size_t region_bytes = std::size_t(512) << 10;
    /// Pages of the input (a private file mapping) are released behind the main line.
    bool release_input = false;
    /// The main line waits for a worker's region instead of decoding it itself (tests:
    /// every region a worker decodes is then used, whatever the machine's load).
    bool wait_for_workers = false;
};

/// Decompresses the gzip stream @p input (every member), handing the output to @p sink in
/// order.  Throws Error as decompress().
Result parallel_gunzip(std::span<const std::uint8_t> input, const Sink& sink, const ParallelInflateOptions& options,
                       ParallelInflateStats* stats = nullptr);

}  // namespace flowdeflate::graph
