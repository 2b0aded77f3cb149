// parallel_line.hpp - decompression of any gzip file on several cores: the policy.
//
// The method follows rapidgzip (Knespel & Brunst, HPDC 2023): workers jump into the
// compressed stream, find a block start (BlockFinder) and decode their region without
// the 32 KiB window before it (speculative_chunk.hpp).  One *main line* walks the stream
// in order.  It decodes with ISA-L, the fastest decoder there is, the regions no worker
// has; whenever it reaches a region a worker has, it stops at that stretch's first block
// boundary (exactly: IsalLine checks it; the worker says where as soon as its first block
// has decoded), completes the stretch from the window it holds, and starts ISA-L again
// after it.  A worker still decoding when the line gets there is asked to stop at its next
// block end (a takeover): the line takes that shorter stretch and decodes the rest of the
// region itself, rather than wait.  A region no worker has started is taken back.  How
// many regions the line decodes between two of the workers' follows the measured speeds,
// so that a worker's region is done about when the line gets there.  The output is the
// in-order decoding of the true stream whatever the timing: a stretch is used only from an
// exact boundary, and a false block-start candidate cannot change a byte.
//
// Two forms of a worker's stretch, chosen per run (ParallelLineOptions::form):
//   - LZ77 tokens (DeflateDecoder::decode_tokens): the line replays them against its window
//     (the copies alone, a fifth of decoding) and writes the bytes.  The least work in all,
//     so the fastest on few cores; but every byte passes the line, which bounds the speed-up
//     near 4-5 however many workers there are.
//   - 16-bit symbols with markers for the unknown window (decode_marked): the line only
//     resolves the stretch's last 32 KiB into its window (the next stretch's history) and
//     hands the stretch on; a worker resolves the rest, computes its CRC-32 (combined in
//     order, crc_combine.hpp), and the line writes it.  More work per byte (the resolution
//     pass), none of it on the line: what many cores need.
// The line writes in order and checks each member's CRC-32 and size; the bytes before a
// CRC error are the member's, as the one-thread decoder writes them.
//
// Nothing here knows TBB: the tasks run on a RegionRunner (graph/parallel_inflate.hpp runs
// them on a flow graph's nodes in their own arena).  Memory: at most `threads` slots live
// (being decoded, waiting for the line, or being completed); a stretch ends at the first
// block boundary past its output limit (8 MiB of tokens; marked symbols within a budget
// shared by the slots, the regions cut to fit it); data of 1000:1 is the line's alone; the
// input's pages are released behind the line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "flowdeflate/core.hpp"

namespace flowdeflate::inflate {

struct ParallelLineStats {
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
    bool markers = false;             ///< the stretches were marked symbols (else tokens)
    std::uint64_t main_line_ns = 0;   ///< the main line's CPU time, all of it
    std::uint64_t own_decode_ns = 0;  ///< of which decoding regions no worker had (ISA-L)
    std::uint64_t workers_ns = 0;     ///< the workers' CPU time, all together
};

struct ParallelLineOptions {
    int threads = 2;  ///< the main line and threads - 1 workers (at least one)
    /// Compressed bytes per region (a worker's share): large enough that finding a block
    /// start and decoding the first marked 32 KiB are a small part of a worker's time,
    /// small enough that a 2-core run of a 10 MB file still has regions to share.
    std::size_t region_bytes = std::size_t(512) << 10;
    enum class Form { automatic, tokens, markers };
    /// The stretches' form; automatic: tokens below kMarkersFromThreads threads, markers
    /// from there on (docs/DESIGN.md, "Decompression").
    Form form = Form::automatic;
    static constexpr int kMarkersFromThreads = 4;
    /// Pages of the input (a private file mapping) are released behind the main line.
    bool release_input = false;
    /// The main line waits for a worker's region instead of decoding it itself (tests:
    /// every region a worker decodes is then used, whatever the machine's load).
    bool wait_for_workers = false;
};

/// Where the regions' tasks run: other threads than the caller's.
class RegionRunner {
public:
    virtual ~RegionRunner() = default;
    /// Runs @p task (decoding a region: at most `threads - 1` at once) on a worker.
    virtual void decode(std::function<void()> task) = 0;
    /// Runs @p task (completing a stretch: short) on a worker, before regions still queued.
    virtual void complete(std::function<void()> task) = 0;
    /// Returns once every task given has run; the calling thread may run some itself.
    virtual void wait() = 0;
};

/// A gzip file of @p compressed_size bytes whose last trailer says @p isize: true when it is
/// as large as its data (stored blocks, or data compressed before), which one thread copies
/// through at memory speed: workers would add copies, not speed (measured on 131 MB of
/// stored blocks: -p2 0.033-0.038 s, one thread 0.026-0.029).
[[nodiscard]] constexpr bool looks_stored(std::uint64_t compressed_size, std::uint32_t isize) noexcept {
    return compressed_size != 0 && double(isize) >= 0.9 * double(compressed_size) &&
           double(isize) < 1.05 * double(compressed_size);
}

/// Decompresses the gzip stream @p input (every member), handing the output to @p sink in
/// order, the regions' tasks run by @p runner.  Throws Error as decompress().
Result parallel_gunzip(std::span<const std::uint8_t> input, const Sink& sink, const ParallelLineOptions& options,
                       RegionRunner& runner, ParallelLineStats* stats = nullptr);

}  // namespace flowdeflate::inflate
