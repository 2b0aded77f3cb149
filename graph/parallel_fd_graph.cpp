// parallel_fd_graph.cpp - the parallel graph over file descriptors (fd_graphs.hpp), wired
// in compress_fd_parallel() below:
//
//   Read (reader + chunker I/O threads) ─► ChunkGraph (chunk_graph.hpp:
//   Search ─► Resolve ─► Code ─► Assemble) ─► Write (writer I/O thread)
//
// - Read runs on two I/O threads: the input window's reader (pread/read into the
//   reservation window) and the chunker, which hands out chunk k once its bytes and a
//   block's look-ahead are in, and only while k is less than `ahead` (+1) chunks past the
//   chunk the resolver waits for, so the reader never reads what the search window cannot use.
// - Assemble frees input behind the bit stream and hands full 1 MiB segments to the
//   writer's I/O thread.  A bounded number of segments may wait for it; when that many are
//   waiting, Assemble waits (the output is the bottleneck then).
#include <tbb/flow_graph.h>

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>

#include "core/clock.hpp"
#include "parallel/chunker.hpp"
#include "graph/arena.hpp"
#include "graph/chunk_graph.hpp"
#include "graph/fd_graphs.hpp"
#include "graph/io_thread.hpp"
#include "graph/output_writer.hpp"

namespace flowdeflate::graph {
namespace {

using core::now_ns;

// Lets the chunker hand out chunk k only while k < resolved + limit (the search window)
// and while the chunk starts less than `slack` bytes past what assembly has finished:
// input is freed only behind assembly, so this bounds memory when coding, assembly or
// the writer lag.  The slack holds the search window, one block (a block is assembled
// only once the resolver has seen its end, up to 310 KB after its start) and the
// look-ahead the resolver needs.
class ChunkGate {
public:
    explicit ChunkGate(const ParallelShape& shape)
        : limit_(std::size_t(shape.ahead) + 1), chunk_size_(shape.chunk_size), slack_(shape.slack()) {}
    bool wait_for(std::size_t k) {
        std::unique_lock lock(mutex_);
        waiting_for_ = k;
        cv_.wait(lock, [&] { return open(k) || cancelled_; });
        waiting_for_ = kNobody;
        return !cancelled_;
    }
    void assembled_up_to(std::size_t bytes) {
        std::lock_guard lock(mutex_);
        assembled_ = bytes;
        wake_if_open();
    }
    void resolved_one() {
        std::lock_guard lock(mutex_);
        ++resolved_;
        wake_if_open();
    }
    void cancel() {
        std::lock_guard lock(mutex_);
        cancelled_ = true;
        cv_.notify_all();
    }

private:
    static constexpr std::size_t kNobody = SIZE_MAX;
    [[nodiscard]] bool open(std::size_t k) const { return k < resolved_ + limit_ && k * chunk_size_ < assembled_ + slack_; }
    // Only a change that lets the waiting chunker go wakes it: assembly moves on after
    // every block, and a wake-up per block cost a context switch each (perf: 4,500 per
    // run of a 129 MB file with one worker, against 600 for --sequential).
    void wake_if_open() {
        if (waiting_for_ != kNobody && open(waiting_for_)) cv_.notify_one();
    }

    std::mutex mutex_;
    std::condition_variable cv_;
    std::size_t limit_;
    std::size_t chunk_size_;
    std::size_t slack_;
    std::size_t resolved_ = 0;
    std::size_t assembled_ = 0;
    std::size_t waiting_for_ = kNobody;
    bool cancelled_ = false;
};

}  // namespace

GraphResult compress_fd_parallel(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                                 const GraphOptions& options) {
    using namespace tbb::flow;
    ArenaUse arena(options);
    const ParallelShape shape = parallel_shape(options, arena.threads());
    const std::uint64_t t_start = now_ns();

    // The chunker asks for what the search window can use; the reader need not run far
    // past that (the sequential graph's 8 MiB would only add memory here).
    WindowOptions window_options = options.window;
    window_options.read_ahead = std::min(window_options.read_ahead, std::max<std::size_t>(shape.chunk_size, 1u << 20));
    InputWindow window(in_fd, in_name, window_options);
    OutputWriter writer(out_fd, out_name, options.max_pending_segments);
    WriterSink sink(writer, window, options);
    core::SegmentedOutput output(sink, options.segment_size);
    output.record_seek_points(options.index, options.index_span);
    ChunkGate gate(shape);
    Failure failure([&] {
        gate.cancel();
        window.cancel();
        writer.cancel();
    });
    const auto fail = [&](std::exception_ptr e) { failure.fail(e); };
    GraphResult result;
    std::unique_ptr<ChunkGraph> chunks;

    // The I/O threads start before the graph: a failure to make one is a clean error.
    IoThread writer_thread, reader_thread, chunker_thread;
    writer_thread.start("writer", [&] { writer.cancel(); writer.close(); }, [&writer] { writer.write_loop(); });
    reader_thread.start("reader", [&] { window.cancel(); }, [&window] { window.read_loop(); });
    arena.get().execute([&] {
        tbb::flow::graph g;
        chunks = std::make_unique<ChunkGraph>(
            g, options, shape, output, failure,
            ChunkGraph::Hooks{[&] { gate.resolved_one(); },
                              [&](std::size_t done) {
                                  window.release_behind(done);
                                  gate.assembled_up_to(done);
                              }});

        // Read: the reader fills the window; the chunker hands out chunks as their bytes
        // arrive, within the search window.
        using ReadNode = async_node<continue_msg, parallel::ChunkJob>;
        ReadNode read(g, serial, [&](const continue_msg&, ReadNode::gateway_type& gateway) {
            gateway.reserve_wait();
            try {
                chunker_thread.start("chunker", [&] { gate.cancel(); }, [&, &gateway = gateway] {
                try {
                    parallel::Chunker chunker(window.begin(), shape.chunk_size);
                    while (!chunker.done() && gate.wait_for(chunker.index())) {
                        check_cancelled(options);
                        const std::uint8_t* data_end = window.ensure(chunker.need());
                        gateway.try_put(*chunker.next_from(data_end, data_end < chunker.need()));
                        if (options.probe) ++options.probe->chunks_in;
                    }
                } catch (...) {
                    fail(std::current_exception());
                }
                gateway.release_wait();
            });
            } catch (...) {
                fail(std::current_exception());
                gateway.release_wait();
            }
        });
        make_edge(read, chunks->input());

        read.try_put(continue_msg());
        g.wait_for_all();
        if (!failure.failed()) chunks->collect(result.stats);
        result.in_bytes = chunks->in_bytes();
        chunks.reset();  // its nodes belong to g
    });
    chunker_thread.join();
    if (failure.failed()) window.cancel();  // else the reader ends by itself at the end of input
    reader_thread.join();
    if (!failure.failed()) {
        try {
            window.check();
        } catch (...) {
            fail(std::current_exception());
        }
    }
    writer.close();
    writer_thread.join();

    failure.rethrow();
    if (const std::string e = writer.error(); !e.empty()) throw OutputError(e);
    result.stats.wall_ns = now_ns() - t_start;
    result.out_bytes = writer.bytes_written();
    return result;
}

}  // namespace flowdeflate::graph
