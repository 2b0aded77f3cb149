// flowdeflate/compress.hpp - compression and decompression calls for applications.
//
// Every call writes exactly what libdeflate writes at the same level and format, whatever
// the threads, chunk size, windows or write sizes.  Errors are exceptions derived from
// flowdeflate::Error (core.hpp); a cancelled call throws flowdeflate::Cancelled.  There is
// no global state: independent calls may run concurrently from any threads.
//
// Threads: with Options::arena set, a call runs its graph on that arena and creates no
// thread; otherwise it makes an arena of Options::threads.  Sinks are called in order, one
// call at a time, from whichever thread assembles the stream (a worker of the arena, or
// the calling thread); a sink may throw, which fails the call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "flowdeflate/index.hpp"
#include "flowdeflate/options.hpp"
#include "flowdeflate/stats.hpp"

namespace flowdeflate {

// ---- one-shot compression ---------------------------------------------------------------

/// Compresses @p in and returns the whole output.
[[nodiscard]] Bytes compress(std::span<const std::uint8_t> in, const Options& options = {});
/// Compresses @p in and appends the output to @p out (a growing buffer).
Result compress(std::span<const std::uint8_t> in, Bytes& out, const Options& options = {});
/// Compresses @p in into @p out; returns the size written, or 0 when it does not fit (as
/// libdeflate's *_compress() do).  Compressor::bound() gives a size that always fits.
std::size_t compress(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, const Options& options = {});
/// Compresses @p in and hands the output to @p sink in segments of about 1 MiB.
Result compress(std::span<const std::uint8_t> in, const Sink& sink, const Options& options = {});

/// Compresses the file @p in into the file @p out (replaced if it exists).  The output is
/// written to a temporary file beside it and renamed only when complete: after an error
/// or a cancellation there is no partial output, and @p in is never modified.  Memory is
/// bounded by the window, not by the file.
Result compress_file(const std::filesystem::path& in, const std::filesystem::path& out, const Options& options = {});

/// Compresses everything readable from the file descriptor @p in_fd (a file, a pipe) into
/// @p out_fd; messages name them @p in_name and @p out_name.  Neither is closed; both are
/// read and written from where they stand.  An input that fits one chunk
/// (Options::chunk(); a pipe is read that far to know) is compressed on the calling
/// thread, as the one-shot calls do (no thread, no arena).  Otherwise, without
/// Options::arena the call reads and
/// writes on two I/O threads of its own, so a blocked read or write never holds a worker;
/// with one, the calling thread reads and the arena compresses and writes.  Memory is
/// bounded by the window, not by the input.  @p stats,
/// when given, receives the parallel graph's counters (its `parallel` stays false when
/// the parallel graph did not run on I/O threads).
Result compress_fd(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                   const Options& options = {}, GraphStats* stats = nullptr);

// ---- streaming ----------------------------------------------------------------------------

/// Compresses input given piece by piece.  write() any number of times, then finish().
/// The output is byte-identical to compress() of the concatenated input, whatever the
/// write sizes; memory is bounded by the window (a few chunks), not by the input.
/// write() may wait until the graph has room, and may call the sink before returning.
/// Not thread-safe: one writer at a time.  Destroying an unfinished stream abandons it.
class StreamCompressor {
public:
    StreamCompressor(const Options& options, Sink sink);
    ~StreamCompressor();
    StreamCompressor(const StreamCompressor&) = delete;
    StreamCompressor& operator=(const StreamCompressor&) = delete;

    void write(std::span<const std::uint8_t> data);
    /// Ends the input and delivers the rest of the output; returns the totals.
    Result finish();
    /// Input written and output delivered so far.
    [[nodiscard]] std::uint64_t in_bytes() const noexcept;
    [[nodiscard]] std::uint64_t out_bytes() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// ---- decompression -------------------------------------------------------------------------
//
// gzip (every member of a multi-member file), zlib or raw DEFLATE, decoded as the data
// arrives, in bounded memory (a 256 KiB output piece and the decoder's 32 KiB window),
// whatever the size of the stream.  What is accepted is what libdeflate's gzip accepts:
// each gzip member's CRC-32 and ISIZE and the zlib Adler-32 are checked; data that is not
// in the format, corrupt, truncated, or followed by anything but another whole gzip member
// throws flowdeflate::Error.  Output already handed to the sink before an error stays
// delivered (the calls that write files remove their output instead).

/// Decompresses @p in and hands the output to @p sink in order.
Result decompress(std::span<const std::uint8_t> in, const Sink& sink, Format format = Format::gzip);
[[nodiscard]] Bytes decompress(std::span<const std::uint8_t> in, Format format = Format::gzip);
/// Decompresses everything readable from @p in_fd (a file, a pipe; not closed) into @p sink;
/// messages name the input @p in_name.  A gzip regular file is decoded on @p threads
/// threads (0: all cores, at most 8; see docs/DESIGN.md, "Decompression"): the output is
/// the same, and memory stays bounded (one thread: about 6 MiB, 11 with map_input; two: 20-30 MiB; about 5 MiB
/// more per thread; not growing with the file).  Pipes, zlib and raw DEFLATE, and files under 1 MiB decode on the calling thread.
/// On several threads a regular file is mapped, not read: if another process truncates it
/// meanwhile, reading it raises SIGBUS.
Result decompress_fd(int in_fd, const std::string& in_name, const Sink& sink, Format format = Format::gzip,
                     int threads = 1);
/// What decompress_fd() may be told: the format and threads, and: seek points to record
/// (any gzip file), or an index to decode with (index.hpp).
struct DecompressOptions {
    Format format = Format::gzip;
    /// 0: all cores, at most 8; 1: the calling thread only.
    int threads = 1;
    /// Records seek points every index_span bytes while decoding (a gzip regular file; one
    /// thread, the block-level decoder, which sees every block boundary).  Not owned.
    IndexSink* export_index = nullptr;
    std::uint64_t index_span = kDefaultIndexSpan;
    /// Decodes with this index (a gzip regular file): the spans between its points on
    /// `threads` threads, each checked against the index (IndexError when it does not fit)
    /// and every member's CRC-32 and size.  Not owned.
    const Index* import_index = nullptr;
    /// With import_index: only the uncompressed bytes [range_offset, range_offset +
    /// range_length), decoded from the last point before them up to their end, the spans
    /// of a range over several points on `threads` threads (no CRC-32 check: the members
    /// are not decoded whole; the index is checked as far as the decoding goes, the same on
    /// any thread count).
    bool range = false;
    std::uint64_t range_offset = 0;
    std::uint64_t range_length = 0;
    /// Filled with what the call did, when given (stats.hpp).  Not owned.
    DecompressStats* stats = nullptr;
    /// With as many threads as the calling thread's affinity mask has CPUs: the calling
    /// thread is kept on its CPU for the call and each of oneTBB's worker threads that
    /// runs one of its tasks is put on a CPU of its own, where it stays after the call (for a program that
    /// owns its threads: the command line sets it).  Where the kernel puts a
    /// woken thread on its waker's CPU, hand-overs between the threads otherwise wait for a
    /// scheduler tick (docs/DESIGN.md, "Decompression").
    bool pin_threads = false;
    /// A regular file of 1 MiB or more is mapped and decoded from the mapping on one thread
    /// too (no copy out of the page cache: the Linux source .tar.xz's .gz of stored blocks
    /// 26 -> 21 ms), its pages given back behind the decoder.  Several threads always map it.
    /// A mapped file that another process truncates meanwhile raises SIGBUS, as it does in
    /// libdeflate's gzip, which maps its input too: for a program that handles it (the
    /// command line sets it, and says so before it dies).  A read error of the device (EIO)
    /// raises SIGBUS too, and a file that grows meanwhile is decoded to its size at the start.
    bool map_input = false;
};
Result decompress_fd(int in_fd, const std::string& in_name, const Sink& sink, const DecompressOptions& options);

/// Decompresses the file @p in into the file @p out (replaced if it exists), through a
/// temporary file as compress_file() does: after an error there is no partial output.
Result decompress_file(const std::filesystem::path& in, const std::filesystem::path& out, Format format = Format::gzip);

/// Decompresses input given piece by piece: write() any number of times, then finish(),
/// which throws if the input ended inside a member.  The sink is called from write() and
/// finish(), on the calling thread.  Not thread-safe: one writer at a time.
class StreamDecompressor {
public:
    explicit StreamDecompressor(Sink sink, Format format = Format::gzip);
    ~StreamDecompressor();
    StreamDecompressor(const StreamDecompressor&) = delete;
    StreamDecompressor& operator=(const StreamDecompressor&) = delete;

    void write(std::span<const std::uint8_t> data);
    /// Ends the input; returns the totals.
    Result finish();
    [[nodiscard]] std::uint64_t in_bytes() const noexcept;
    [[nodiscard]] std::uint64_t out_bytes() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace flowdeflate
