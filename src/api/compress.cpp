// compress.cpp - the library's compression calls (include/flowdeflate/compress.hpp): a thin
// adapter that validates the options, compresses an input of one chunk directly on the
// calling thread, and hands everything else to the graphs (graph/call_graphs.hpp for
// buffers and streams, graph/fd_graphs.hpp for file descriptors).
//
// A file descriptor (compress_fd(), which compress_file() and the command line use): an
// input that fits one chunk is read whole and compressed directly; else the fd graphs with
// their reader and writer I/O threads, or, given an arena, a stream fed by the calling
// thread.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "core/deflate_compressor.hpp"
#include "flowdeflate/compress.hpp"
#include "graph/call_graphs.hpp"
#include "graph/failure.hpp"
#include "graph/fd_graphs.hpp"
#include "io/fd.hpp"
#include "io/fd_io.hpp"
#include "io/fd_sink.hpp"
#include "io/file_output.hpp"
#include "io/raw_buffer.hpp"
#include "parallel/compressor_pool.hpp"

namespace flowdeflate {
namespace {

using core::u8;

graph::GraphOptions graph_options(const Options& o) {
    o.validate();
    graph::GraphOptions g;
    static_cast<Options&>(g) = o;
    return g;
}

// Thrown by a sink that has no room; compress(in, span out) turns it into 0.
struct NoRoom {};

}  // namespace

// ---- one-shot ------------------------------------------------------------------------------
//
// An input that fits one chunk is searched as one chunk: nothing could run beside the
// resolver, so the graph would add only its arena, its tasks and its 1 MiB segments.  Its
// bytes are the sequential core's (both are libdeflate's), so such a call (and a
// sequential level's, up to the same size) runs a pooled core compressor on the calling
// thread, straight into a buffer of the right size: no arena, no thread, no segment.

namespace {

// (A call that records seek points takes the graphs, whose output knows every block.)
[[nodiscard]] bool runs_direct(std::size_t size, const graph::GraphOptions& po) {
    return size <= po.chunk() && po.index == nullptr;
}

// The direct call: @p into(bound) gives the output span to compress into (at least
// bound bytes, or the caller's own span); then @p deliver(n) takes the n bytes written.
template <class Into, class Deliver>
Result compress_direct(std::span<const u8> in, const graph::GraphOptions& po, Into&& into, Deliver&& deliver) {
    graph::check_cancelled(po);
    parallel::CompressorPool::Lease lease(parallel::CompressorPool::instance(), po.level);
    const std::span<u8> out = into(lease, core::DeflateCompressor::bound(in.size(), po.format));
    const std::size_t n = lease.compressor().compress(in, out, po.format);
    deliver(n);
    if (po.progress && n != 0) po.progress(in.size(), n);
    return Result{in.size(), n};
}

}  // namespace

Result compress(std::span<const std::uint8_t> in, const Sink& sink, const Options& options) {
    const graph::GraphOptions po = graph_options(options);
    if (runs_direct(in.size(), po)) {
        std::span<u8> out;
        return compress_direct(
            in, po, [&](parallel::CompressorPool::Lease& lease, std::size_t bound) { return out = lease.scratch(bound); },
            [&](std::size_t n) { sink(out.first(n)); });
    }
    return graph::compress_buffer(in, sink, po);
}

Result compress(std::span<const std::uint8_t> in, Bytes& out, const Options& options) {
    const graph::GraphOptions po = graph_options(options);
    if (runs_direct(in.size(), po)) {
        const std::size_t old = out.size();
        return compress_direct(
            in, po,
            [&](parallel::CompressorPool::Lease&, std::size_t bound) {
                out.resize(old + bound);
                return std::span(out).subspan(old);
            },
            [&](std::size_t n) { out.resize(old + n); });
    }
    return compress(in, Sink([&out](std::span<const std::uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); }),
                    options);
}

Bytes compress(std::span<const std::uint8_t> in, const Options& options) {
    Bytes out;
    compress(in, out, options);
    return out;
}

std::size_t compress(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, const Options& options) {
    const graph::GraphOptions po = graph_options(options);
    if (runs_direct(in.size(), po)) {
        // Straight into the caller's buffer: the core says 0 when it does not fit.
        return compress_direct(in, po, [&](parallel::CompressorPool::Lease&, std::size_t) { return out; },
                               [](std::size_t) {})
            .out_bytes;
    }
    std::size_t used = 0;
    try {
        compress(in,
                 Sink([&](std::span<const std::uint8_t> b) {
                     if (b.size() > out.size() - used) throw NoRoom{};
                     std::memcpy(out.data() + used, b.data(), b.size());
                     used += b.size();
                 }),
                 options);
    } catch (const NoRoom&) {
        return 0;
    }
    return used;
}

// ---- streaming -----------------------------------------------------------------------------

struct StreamCompressor::Impl {
    std::unique_ptr<graph::StreamGraph> graph;
};

StreamCompressor::StreamCompressor(const Options& options, Sink sink)
    : impl_(std::make_unique<Impl>(Impl{graph::StreamGraph::make(graph_options(options), std::move(sink))})) {}
StreamCompressor::~StreamCompressor() = default;

void StreamCompressor::write(std::span<const std::uint8_t> data) { impl_->graph->write(data); }
Result StreamCompressor::finish() { return impl_->graph->finish(); }
std::uint64_t StreamCompressor::in_bytes() const noexcept { return impl_->graph->in_bytes(); }
std::uint64_t StreamCompressor::out_bytes() const noexcept { return impl_->graph->out_bytes(); }

// ---- file descriptors and files -----------------------------------------------------------

namespace {

// An input that fits one chunk runs the direct call too (see "one-shot" above): read whole
// into memory, compressed on this thread, written in one go.  The graph's arena, its reader
// and writer threads and their windows cost a process ~6 ms and every further file ~0.8 ms,
// ten times libdeflate's gzip on a small file (docs/notes/io-and-memory.md, "Small files and the process floor").
//   - A regular file is tried when fstat() says it fits; one that grew past the chunk since
//     is read again from where it began (nothing else was read: nullopt).
//   - A pipe's size is known only at its end: up to a chunk and a byte are read first.  A
//     longer input keeps those bytes in @p ahead and returns nullopt: the graph's window
//     takes them first (WindowOptions::prefix), then reads on.
std::optional<Result> compress_small_input(int in_fd, const std::string& in_name, int out_fd,
                                           const std::string& out_name, const graph::GraphOptions& po,
                                           io::RawBuffer& ahead) {
    // Read ahead at most kMaxDirectProbe of a pipe: with --chunk 1G the probe would hold a
    // gigabyte before the graph started (and beside its window).
    constexpr std::size_t kMaxDirectProbe = std::size_t(4) << 20;
    // Below this a file's few pages come from the allocator's heap (reused, no mapping).
    constexpr std::size_t kPopulateFrom = std::size_t(64) << 10;
    const std::size_t limit = std::min(po.chunk(), kMaxDirectProbe);
    if (po.index) return std::nullopt;  // (see runs_direct())
    struct stat st {};
    if (::fstat(in_fd, &st) != 0) return std::nullopt;  // (the graph says why)
    const int flags = ::fcntl(in_fd, F_GETFL);
    if (flags < 0 || (flags & O_DIRECT)) return std::nullopt;  // (O_DIRECT wants aligned buffers: the graph's)
    // A regular file of size 0 may have contents all the same (/proc, /sys, FUSE): it is
    // read like a pipe, as the graph's window reads it, never twice.
    const bool regular = S_ISREG(st.st_mode) && st.st_size > 0;
    off_t start = 0;
    std::size_t room = limit + 1;  // a byte more: an input that has it goes to the graph after all
    if (regular) {
        start = ::lseek(in_fd, 0, SEEK_CUR);
        if (start < 0) return std::nullopt;
        const std::uint64_t left = std::uint64_t(st.st_size) - std::min<std::uint64_t>(std::uint64_t(start), st.st_size);
        if (left > limit) return std::nullopt;
        room = std::size_t(left) + 1;  // (what it holds: a file that grew since goes to the graph)
    }
    // A regular file fills its buffer (but for its last byte): its pages are made at once.
    io::RawBuffer in = regular && room >= kPopulateFrom ? io::RawBuffer::populated(room) : io::RawBuffer(room);
    const ssize_t n = io::read_full(in_fd, in.span());
    if (n < 0) throw Error(io::read_error_text(in_name));
    if (std::size_t(n) == room) {
        if (!regular)
            ahead = std::move(in);
        else if (const off_t back = ::lseek(in_fd, start, SEEK_SET); back != start)
            throw Error(io::read_error_text(in_name, back < 0 ? std::strerror(errno) : "cannot seek back"));
        return std::nullopt;
    }
    std::span<u8> coded;
    const Sink out = io::gzip_fd_sink(out_fd, out_name);  // the graph writer's words
    return compress_direct(
        std::span<const u8>(in.data(), std::size_t(n)), po,
        [&](parallel::CompressorPool::Lease& lease, std::size_t bound) { return coded = lease.scratch(bound); },
        [&](std::size_t size) { out(coded.first(size)); });
}

}  // namespace

Result compress_fd(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                   const Options& options, GraphStats* stats) {
    const graph::GraphOptions po = graph_options(options);
    graph::check_cancelled(po);
    if (stats) *stats = {};
    io::RawBuffer ahead;  // what the small-input check read of a longer pipe
    if (const std::optional<Result> small = compress_small_input(in_fd, in_name, out_fd, out_name, po, ahead)) {
        if (stats) stats->direct = true;
        return *small;
    }
    if (!po.arena) {
        graph::GraphOptions with_ahead = po;
        with_ahead.window.prefix = ahead.span();
        const graph::GraphResult r = graph::compress_fd(in_fd, in_name, out_fd, out_name, with_ahead);
        if (stats) *stats = r.stats;
        return {r.in_bytes, r.out_bytes};
    }
    // No threads of our own: this thread reads, the arena compresses and writes.
    StreamCompressor stream(po, io::fd_sink(out_fd, out_name));
    if (ahead.size()) stream.write(ahead.span());
    const io::RawBuffer buf(1u << 20);
    if (!io::read_pieces(in_fd, buf.span(), [&](std::span<const u8> piece) { stream.write(piece); }))
        throw Error(io::read_error_text(in_name));
    return stream.finish();
}

Result compress_file(const std::filesystem::path& in, const std::filesystem::path& out, const Options& options) {
    options.validate();
    graph::check_cancelled(options);
    io::Fd in_fd(::open(in.c_str(), O_RDONLY | O_CLOEXEC));
    if (in_fd.get() < 0) throw Error(in.string() + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(in_fd.get(), &st) != 0) throw Error(in.string() + ": " + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) throw Error(in.string() + ": is a directory");
    io::FileOutput output(out, st.st_mode & 07777);
    const Result result = compress_fd(in_fd.get(), in.string(), output.fd(), out.string(), options);
    output.commit();
    return result;
}

}  // namespace flowdeflate
