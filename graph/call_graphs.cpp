// call_graphs.cpp - see call_graphs.hpp.
#include "graph/call_graphs.hpp"

#include <tbb/flow_graph.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>

#include "core/deflate_compressor.hpp"
#include "graph/arena.hpp"
#include "graph/chunk_graph.hpp"
#include "graph/failure.hpp"
#include "graph/input_window.hpp"
#include "graph/match_search.hpp"
#include "parallel/chunker.hpp"
#include "parallel/compressor_pool.hpp"
#include "parallel/pool.hpp"

namespace flowdeflate::graph {
namespace {

using core::u8;

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
        check_cancelled(options_);
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

// Levels 0 and 10-12 over a buffer: the core on this thread, the search ahead (10-12) on
// the arena's other threads.
Result compress_buffer_sequential(std::span<const u8> in, const Sink& sink, const GraphOptions& po) {
    MemoryInput input(in);
    UserSink user(sink, po, [&] { return input.consumed(); });
    CancellableInput cancellable(input, po);
    parallel::CompressorPool::Lease lease(parallel::CompressorPool::instance(), po.level);
    core::DeflateCompressor& compressor = lease.compressor();
    Result result;
    if (searches_ahead(po)) {
        ArenaUse arena(po, ArenaUse::Reuse::shared);
        if (arena.threads() > 1) {
            arena.run_isolated([&] {
                result.in_bytes = compress_with_search(compressor, cancellable, user, po, arena.get(), arena.threads());
            });
            result.out_bytes = user.out_bytes();
            return result;
        }
    }
    result.in_bytes =
        compressor.compress_stream(cancellable, user, po.format, po.segment_size, nullptr, po.index, po.index_span);
    result.out_bytes = user.out_bytes();
    return result;
}

}  // namespace

Result compress_buffer(std::span<const std::uint8_t> in, const Sink& sink, const GraphOptions& po) {
    check_cancelled(po);
    if (!po.parallel()) return compress_buffer_sequential(in, sink, po);
    ArenaUse arena(po, ArenaUse::Reuse::shared);
    const ParallelShape shape = parallel_shape(po, arena.threads());
    Failure failure;
    std::unique_ptr<ChunkGraph> chunks;
    UserSink user(sink, po, [&] { return chunks->in_bytes(); });
    core::SegmentedOutput output(user, po.segment_size);
    output.record_seek_points(po.index, po.index_span);
    Result result;
    arena.run_isolated([&] {
        tbb::flow::graph g;
        chunks = std::make_unique<ChunkGraph>(g, po, shape, output, failure, ChunkGraph::Hooks{});
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

// ---- streams -------------------------------------------------------------------------------
//
// Both graphs copy write()'s bytes into a fed InputWindow; they differ in who takes them
// out and in how write() makes room when the window is full (call_graphs.hpp).

namespace {

class StreamBase : public StreamGraph {
public:
    /// @p in_bytes: the input the output delivered so far stands for (for progress).
    StreamBase(const GraphOptions& options, Sink s, std::function<std::uint64_t()> in_bytes)
        : po(options), sink(std::move(s)), arena(po), window("(stream)", po.window), user(sink, po, std::move(in_bytes)) {}

    void write(std::span<const u8> data) final {
        if (finished) throw Error("StreamCompressor: write() after finish()");
        check_cancelled(po);
        feed(data);
    }

    Result finish() final {
        if (finished) throw Error("StreamCompressor: finish() called twice");
        finished = true;
        window.end_input();
        Result r;
        r.in_bytes = finish_input();
        r.out_bytes = user.out_bytes();
        return r;
    }

    [[nodiscard]] std::uint64_t in_bytes() const noexcept final { return written; }
    [[nodiscard]] std::uint64_t out_bytes() const noexcept final { return user.out_bytes(); }

protected:
    /// Copies all of @p data into the window, making room as the graph does.
    virtual void feed(std::span<const u8> data) = 0;
    /// Delivers the rest of the output after the input has ended; returns the input size.
    virtual std::uint64_t finish_input() = 0;

    GraphOptions po;
    Sink sink;
    ArenaUse arena;
    InputWindow window;
    UserSink user;
    std::uint64_t written = 0;  // input taken by write()
    bool finished = false;
};

class ParallelStream final : public StreamBase {
public:
    ParallelStream(const GraphOptions& options, Sink s)
        : StreamBase(options, std::move(s), [this] { return chunks_->in_bytes(); }),
          shape_(parallel_shape(po, arena.threads())),
          capacity_(shape_.slack() + core::kWindowSize + po.window.release_step),
          output_(user, po.segment_size),
          chunker_(window.begin(), shape_.chunk_size) {
        output_.record_seek_points(po.index, po.index_span);
        arena.get().execute([&] {
            g_ = std::make_unique<tbb::flow::graph>();
            chunks_ = std::make_unique<ChunkGraph>(
                *g_, po, shape_, output_, failure_,
                ChunkGraph::Hooks{{}, [this](std::size_t done) { window.release_behind(done); }});
        });
    }

    ~ParallelStream() override {
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

    const ParallelShape shape_;
    const std::size_t capacity_;  // input the window may hold
    core::SegmentedOutput output_;
    parallel::Chunker chunker_;
    Failure failure_;
    std::unique_ptr<tbb::flow::graph> g_;  // made inside the arena
    std::unique_ptr<ChunkGraph> chunks_;
};

class SequentialStream final : public StreamBase {
public:
    SequentialStream(const GraphOptions& options, Sink s)
        : StreamBase(options, std::move(s), [this] { return window.bytes_read(); }),
          capacity_(core::kWindowSize + core::kStreamLookahead + core::kSoftMaxBlockLength + po.window.release_step +
                    po.window.read_ahead),
          compressor_(po.level) {
        // enqueue(): runs even on an arena whose only slot the caller holds.
        arena.get().enqueue([this] { run(); });
    }

    ~SequentialStream() override {
        window.cancel();
        wait_task();
    }

private:
    void run() {
        std::exception_ptr error;
        try {
            CancellableInput cancellable(window, po);
            compressor_.compress_stream(cancellable, user, po.format, po.segment_size, nullptr, po.index,
                                        po.index_span);
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

}  // namespace

std::unique_ptr<StreamGraph> StreamGraph::make(const GraphOptions& options, Sink sink) {
    if (options.parallel()) return std::make_unique<ParallelStream>(options, std::move(sink));
    return std::make_unique<SequentialStream>(options, std::move(sink));
}

}  // namespace flowdeflate::graph
