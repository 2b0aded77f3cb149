// compress.cpp - the library's compression calls (include/flowdeflate/compress.hpp) over
// the core (sequential levels) and the graph's ChunkGraph (parallel levels).
//
// Three ways in, one graph:
//   - a buffer: every chunk job is known at once; they all go into the graph, which the
//     limiters keep within the search window and the ring;
//   - a stream object: write() copies into a fed reservation window and puts in the jobs
//     whose bytes (and look-ahead) are present; when the window is full, the caller's
//     thread waits for the graph inside the arena (helping it) until the graph is idle,
//     which frees everything but the last block's history.  No thread is created and no
//     worker ever blocks, whatever the arena's concurrency;
//   - a file descriptor (compress_fd(), which compress_file() and the command line use):
//     an input that fits one chunk as a buffer (read whole, compressed on the calling
//     thread); else the graph with reader and writer I/O threads
//     (graph/pipeline.hpp), or, given an arena, a stream object fed by the calling thread.
// Sequential levels (0, 10-12, or Options::sequential) run the core: on the calling
// thread for a buffer, and as one arena task that waits for write() for a stream.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tbb/flow_graph.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <optional>

#include "api/compressor_pool.hpp"
#include "core/deflate_compressor.hpp"
#include "flowdeflate/compress.hpp"
#include "graph/arena.hpp"
#include "graph/chunk_graph.hpp"
#include "graph/match_search.hpp"
#include "graph/pipeline.hpp"
#include "io/fd.hpp"
#include "io/fd_io.hpp"
#include "io/raw_buffer.hpp"
#include "io/fd_sink.hpp"
#include "io/file_output.hpp"
#include "parallel/pool.hpp"

namespace flowdeflate {
namespace {

using core::u8;

graph::PipelineOptions pipeline_options(const Options& o) {
    o.validate();
    graph::PipelineOptions p;
    static_cast<Options&>(p) = o;
    return p;
}

// The output side of every call: a user Sink behind the core's SegmentSink, with the
// progress callback and cancellation checked once per segment.
class UserSink final : public core::SegmentSink {
public:
    UserSink(const Sink& sink, const Options& options, std::function<std::uint64_t()> in_bytes)
        : sink_(sink), options_(options), in_bytes_(std::move(in_bytes)) {}
    ~UserSink() override { Segments::instance().give(std::move(spare_)); }
    UserSink(const UserSink&) = delete;
    UserSink& operator=(const UserSink&) = delete;
    void write(core::SegmentBuffer&& segment) override {
        graph::check_cancelled(options_);
        sink_(std::span<const u8>(segment.data(), segment.size()));
        out_bytes_ += segment.size();
        if (options_.progress) options_.progress(in_bytes_(), out_bytes_);
        spare_ = std::move(segment);
    }
    void recycle(core::SegmentBuffer&& b) override { spare_ = std::move(b); }
    core::SegmentBuffer buffer(std::size_t size) override {
        return core::with_room(spare_.capacity() ? std::move(spare_) : Segments::instance().take(), size);
    }
    [[nodiscard]] std::uint64_t out_bytes() const { return out_bytes_.load(std::memory_order_relaxed); }

private:
    // Segments (1.5 MiB) kept across calls: allocated per call, they came from the
    // allocator's heaps once glibc's mmap threshold had risen past them, and thousands of
    // calls left 10-20 MiB of those heaps free but resident (tests/api/long_run_test.cpp).
    using Segments = parallel::SegmentPool;

    const Sink& sink_;
    const Options& options_;
    std::function<std::uint64_t()> in_bytes_;
    std::atomic<std::uint64_t> out_bytes_{0};
    core::SegmentBuffer spare_;
};

// A whole buffer seen as a stream (the sequential core's streaming entry).
class MemoryInput final : public core::InputStream {
public:
    explicit MemoryInput(std::span<const u8> in) : in_(in) {}
    const u8* begin() const override { return in_.data(); }
    const u8* ensure(const u8* need) override {
        const std::size_t want = std::size_t(std::max<std::ptrdiff_t>(need - in_.data(), 0));
        furthest_ = std::max(furthest_.load(), std::min(want, in_.size()));
        return in_.data() + in_.size();
    }
    void release_before(const u8*) override {}
    [[nodiscard]] std::uint64_t consumed() const { return furthest_; }

private:
    std::span<const u8> in_;
    std::atomic<std::size_t> furthest_{0};
};

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

[[nodiscard]] bool runs_direct(std::size_t size, const graph::PipelineOptions& po) { return size <= po.chunk(); }

// The direct call: @p into(bound) gives the output span to compress into (at least
// bound bytes, or the caller's own span); then @p deliver(n) takes the n bytes written.
template <class Into, class Deliver>
Result compress_direct(std::span<const u8> in, const graph::PipelineOptions& po, Into&& into, Deliver&& deliver) {
    graph::check_cancelled(po);
    api::CompressorPool::Lease lease(api::CompressorPool::instance(), po.level);
    const std::span<u8> out = into(lease, core::DeflateCompressor::bound(in.size(), po.format));
    const std::size_t n = lease.compressor().compress(in, out, po.format);
    deliver(n);
    if (po.progress && n != 0) po.progress(in.size(), n);
    return Result{in.size(), n};
}

}  // namespace

Result compress(std::span<const std::uint8_t> in, const Sink& sink, const Options& options) {
    const graph::PipelineOptions po = pipeline_options(options);
    if (runs_direct(in.size(), po)) {
        std::span<u8> out;
        return compress_direct(
            in, po, [&](api::CompressorPool::Lease& lease, std::size_t bound) { return out = lease.scratch(bound); },
            [&](std::size_t n) { sink(out.first(n)); });
    }
    graph::check_cancelled(po);
    Result result;
    if (!po.parallel()) {
        MemoryInput input(in);
        UserSink user(sink, po, [&] { return input.consumed(); });
        api::CompressorPool::Lease lease(api::CompressorPool::instance(), po.level);
        graph::CancellableInput cancellable(input, po);
        if (graph::searches_ahead(po)) {
            // Levels 10-12: the match search runs on the arena's other threads.
            graph::ArenaUse arena(po, graph::ArenaUse::Reuse::shared);
            if (arena.threads() > 1) {
                arena.run_isolated([&] {
                    graph::ParallelMatchSearch search(lease.compressor().params(), cancellable, arena.get(),
                                                      arena.threads(), po);
                    result.in_bytes =
                        lease.compressor().compress_stream(cancellable, user, po.format, po.segment_size, &search);
                });
                result.out_bytes = user.out_bytes();
                return result;
            }
        }
        result.in_bytes = lease.compressor().compress_stream(cancellable, user, po.format);
        result.out_bytes = user.out_bytes();
        return result;
    }
    graph::ArenaUse arena(po, graph::ArenaUse::Reuse::shared);
    const graph::ParallelShape shape = graph::parallel_shape(po, arena.threads());
    graph::Failure failure;
    std::unique_ptr<graph::ChunkGraph> chunks;
    UserSink user(sink, po, [&] { return chunks->in_bytes(); });
    core::SegmentedOutput output(user, po.segment_size);
    arena.run_isolated([&] {
        tbb::flow::graph g;
        chunks = std::make_unique<graph::ChunkGraph>(g, po, shape, output, failure, graph::ChunkGraph::Hooks{});
        parallel::Chunker chunker(in.data(), shape.chunk_size);
        const u8* const end = in.data() + in.size();
        do chunks->input().try_put(*chunker.next_from(end, true));
        while (!chunker.done());
        g.wait_for_all();
        result.in_bytes = chunks->in_bytes();
        chunks.reset();
    });
    failure.rethrow();
    result.out_bytes = user.out_bytes();
    return result;
}

Result compress(std::span<const std::uint8_t> in, Bytes& out, const Options& options) {
    const graph::PipelineOptions po = pipeline_options(options);
    if (runs_direct(in.size(), po)) {
        const std::size_t old = out.size();
        return compress_direct(
            in, po,
            [&](api::CompressorPool::Lease&, std::size_t bound) {
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
    const graph::PipelineOptions po = pipeline_options(options);
    if (runs_direct(in.size(), po)) {
        // Straight into the caller's buffer: the core says 0 when it does not fit.
        return compress_direct(in, po, [&](api::CompressorPool::Lease&, std::size_t) { return out; },
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
//
// Two cases behind one interface, chosen once when the stream is made.  Both copy
// write()'s bytes into a fed InputWindow; they differ in who takes them out and in how
// write() makes room when the window is full:
//   - Parallel (levels 1-9): the graph lives as long as the stream; write() puts in every
//     chunk job whose bytes are present, and helps the graph until it is idle for room;
//   - Sequential (0, 10-12, Options::sequential): the core pulls its input
//     (InputStream::ensure()), so it runs as one arena task, and write() waits for room.

struct StreamCompressor::Impl {
    class Parallel;
    class Sequential;

    /// @p in_bytes: the input the output delivered so far stands for (for progress).
    Impl(const graph::PipelineOptions& options, Sink s, std::function<std::uint64_t()> in_bytes)
        : po(options), sink(std::move(s)), arena(po), window("(stream)", po.window), user(sink, po, std::move(in_bytes)) {}
    virtual ~Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    void write(std::span<const u8> data) {
        if (finished) throw Error("StreamCompressor: write() after finish()");
        graph::check_cancelled(po);
        feed(data);
    }

    Result finish() {
        if (finished) throw Error("StreamCompressor: finish() called twice");
        finished = true;
        window.end_input();
        Result r;
        r.in_bytes = finish_input();
        r.out_bytes = user.out_bytes();
        return r;
    }

    graph::PipelineOptions po;
    Sink sink;
    graph::ArenaUse arena;
    graph::InputWindow window;
    UserSink user;
    std::uint64_t written = 0;  // input taken by write()
    bool finished = false;

protected:
    /// Copies all of @p data into the window, making room as the case does.
    virtual void feed(std::span<const u8> data) = 0;
    /// Delivers the rest of the output after the input has ended; returns the input size.
    virtual std::uint64_t finish_input() = 0;
};

class StreamCompressor::Impl::Parallel final : public StreamCompressor::Impl {
public:
    Parallel(const graph::PipelineOptions& options, Sink s)
        : Impl(options, std::move(s), [this] { return chunks_->in_bytes(); }),
          shape_(graph::parallel_shape(po, arena.threads())),
          capacity_(shape_.slack() + core::kWindowSize + po.window.release_step),
          output_(user, po.segment_size),
          chunker_(window.begin(), shape_.chunk_size) {
        arena.get().execute([&] {
            g_ = std::make_unique<tbb::flow::graph>();
            chunks_ = std::make_unique<graph::ChunkGraph>(
                *g_, po, shape_, output_, failure_,
                graph::ChunkGraph::Hooks{{}, [this](std::size_t done) { window.release_behind(done); }});
        });
    }

    ~Parallel() override {
        // Let the graph run dry; an abandoned stream fails it first, so that it drains fast.
        if (!finished) failure_.fail(std::make_exception_ptr(Cancelled("the stream was abandoned")));
        arena.get().execute([&] {
            g_->wait_for_all();
            chunks_.reset();
            g_.reset();
        });
    }

private:
    void feed(std::span<const u8> data) override {
        bool drained = false;  // the graph went idle since the window last took bytes
        while (!data.empty()) {
            const std::size_t n = window.append(data.data(), data.size(), capacity_);
            data = data.subspan(n);
            written += n;
            submit();
            if (n == 0) {
                if (drained) throw Error("StreamCompressor: the input window did not drain (a bug)");
                drain();
            }
            drained = n == 0;
        }
        failure_.rethrow();
    }

    std::uint64_t finish_input() override {
        submit();
        drain();
        if (!chunks_->finished()) throw Error("StreamCompressor: the stream did not finish (a bug)");
        return chunks_->in_bytes();
    }

    // Puts in every job whose input is present.
    void submit() {
        const u8* present = window.present_end();
        const bool ended = window.ended();
        while (!chunker_.done()) {
            const std::optional<parallel::ChunkJob> job = chunker_.next_from(present, ended);
            if (!job) break;
            arena.get().execute([&] { chunks_->input().try_put(*job); });
        }
    }

    // Helps the graph until it is idle, which frees all input but the last block's history.
    void drain() {
        arena.get().execute([&] { g_->wait_for_all(); });
        failure_.rethrow();
    }

    const graph::ParallelShape shape_;
    const std::size_t capacity_;  // input the window may hold
    core::SegmentedOutput output_;
    parallel::Chunker chunker_;
    graph::Failure failure_;
    std::unique_ptr<tbb::flow::graph> g_;  // made inside the arena
    std::unique_ptr<graph::ChunkGraph> chunks_;
};

class StreamCompressor::Impl::Sequential final : public StreamCompressor::Impl {
public:
    Sequential(const graph::PipelineOptions& options, Sink s)
        : Impl(options, std::move(s), [this] { return window.bytes_read(); }),
          capacity_(core::kWindowSize + core::kStreamLookahead + core::kSoftMaxBlockLength + po.window.release_step +
                    po.window.ahead),
          compressor_(po.level) {
        // enqueue(): runs even on an arena whose only slot the caller holds.
        arena.get().enqueue([this] { run(); });
    }

    ~Sequential() override {
        window.cancel();
        wait_task();
    }

private:
    void run() {
        std::exception_ptr error;
        try {
            graph::CancellableInput cancellable(window, po);
            compressor_.compress_stream(cancellable, user, po.format, po.segment_size);
        } catch (...) {
            error = std::current_exception();
            window.cancel();  // wakes a write() waiting for room
        }
        std::lock_guard lock(mutex_);
        task_error_ = error;
        task_done_ = true;
        done_cv_.notify_all();
    }

    void feed(std::span<const u8> data) override {
        while (!data.empty()) {
            std::size_t n = 0;
            try {
                n = window.append(data.data(), data.size(), capacity_);
            } catch (...) {
                check_task();  // the compressor's own error first
                throw;
            }
            data = data.subspan(n);
            written += n;
            if (n == 0) {
                window.wait_for_room(capacity_);
                check_task();
            }
        }
        check_task();
    }

    std::uint64_t finish_input() override {
        wait_task();
        check_task();
        return written;
    }

    void wait_task() {
        std::unique_lock lock(mutex_);
        done_cv_.wait(lock, [&] { return task_done_; });
    }

    void check_task() {
        std::lock_guard lock(mutex_);
        if (task_error_) std::rethrow_exception(task_error_);
    }

    const std::size_t capacity_;  // input the window may hold
    core::DeflateCompressor compressor_;
    std::mutex mutex_;
    std::condition_variable done_cv_;
    bool task_done_ = false;
    std::exception_ptr task_error_;
};

StreamCompressor::StreamCompressor(const Options& options, Sink sink) {
    const graph::PipelineOptions po = pipeline_options(options);
    if (po.parallel())
        impl_ = std::make_unique<Impl::Parallel>(po, std::move(sink));
    else
        impl_ = std::make_unique<Impl::Sequential>(po, std::move(sink));
}
StreamCompressor::~StreamCompressor() = default;

void StreamCompressor::write(std::span<const std::uint8_t> data) { impl_->write(data); }
Result StreamCompressor::finish() { return impl_->finish(); }
std::uint64_t StreamCompressor::in_bytes() const noexcept { return impl_->written; }
std::uint64_t StreamCompressor::out_bytes() const noexcept { return impl_->user.out_bytes(); }

// ---- file descriptors and files -----------------------------------------------------------

namespace {

// An input that fits one chunk runs the direct call too (see "one-shot" above): read whole
// into memory, compressed on this thread, written in one go.  The graph's arena, its reader
// and writer threads and their windows cost a process ~6 ms and every further file ~0.8 ms,
// ten times libdeflate's gzip on a small file (docs/PERFORMANCE.md, "Small files").
//   - A regular file is tried when fstat() says it fits; one that grew past the chunk since
//     is read again from where it began (nothing else was read: nullopt).
//   - A pipe's size is known only at its end: up to a chunk and a byte are read first.  A
//     longer input keeps those bytes in @p ahead and returns nullopt: the graph's window
//     takes them first (WindowOptions::prefix), then reads on.
std::optional<Result> compress_small_input(int in_fd, const std::string& in_name, int out_fd,
                                           const std::string& out_name, const graph::PipelineOptions& po,
                                           io::RawBuffer& ahead) {
    // Read ahead at most kMaxDirectProbe of a pipe: with --chunk 1G the probe would hold a
    // gigabyte before the graph started (and beside its window).
    constexpr std::size_t kMaxDirectProbe = std::size_t(4) << 20;
    // Below this a file's few pages come from the allocator's heap (reused, no mapping).
    constexpr std::size_t kPopulateFrom = std::size_t(64) << 10;
    const std::size_t limit = std::min(po.chunk(), kMaxDirectProbe);
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
        [&](api::CompressorPool::Lease& lease, std::size_t bound) { return coded = lease.scratch(bound); },
        [&](std::size_t size) { out(coded.first(size)); });
}

}  // namespace

Result compress_fd(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                   const Options& options, GraphStats* stats) {
    const graph::PipelineOptions po = pipeline_options(options);
    graph::check_cancelled(po);
    if (stats) *stats = {};
    io::RawBuffer ahead;  // what the small-input check read of a longer pipe
    if (const std::optional<Result> small = compress_small_input(in_fd, in_name, out_fd, out_name, po, ahead)) {
        if (stats) stats->direct = true;
        return *small;
    }
    if (!po.arena) {
        graph::PipelineOptions with_ahead = po;
        with_ahead.window.prefix = ahead.span();
        const graph::PipelineResult r = graph::compress_fd(in_fd, in_name, out_fd, out_name, with_ahead);
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
