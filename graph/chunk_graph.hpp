// chunk_graph.hpp - the compute part of the parallel graph, shared by every way input
// comes in and output goes out (a file through I/O threads, a caller's buffer, a caller's
// writes to a stream object):
//
//   input() ─► queue ─► limiter(ahead) ─► Search ─► sequencer ─► Resolve ─► queue ─► limiter(ring) ─► Code
//                          ▲             (workers)   (chunk #)    (serial)                 ▲           (workers)
//                          └────── a chunk is resolved ──────────────┘                      │              │
//                                                                                            │          sequencer
//                                                                                            │          (block #)
//                                                                                            │              ▼
//                                                         segments ◄── Assemble ─────────────┴── a block is assembled
//                                                                     (serial)
//
// The caller puts parallel::ChunkJobs (made by parallel::Chunker) into input(), in any order, and
// waits for the graph.  Assemble writes segments to the caller's SegmentedOutput and says,
// through the hooks, how far the input is done with, so the caller can free it.
#pragma once

#include <tbb/enumerable_thread_specific.h>
#include <tbb/flow_graph.h>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>

#include "core/input_stream.hpp"
#include "core/segmented_output.hpp"
#include "graph/pipeline.hpp"
#include "parallel/chunker.hpp"
#include "parallel/resolver.hpp"

namespace flowdeflate::graph {

/// The first failure of a run, and what to stop when it happens.  Thread-safe.
class Failure {
public:
    explicit Failure(std::function<void()> on_fail = {}) : on_fail_(std::move(on_fail)) {}
    void fail(std::exception_ptr e);
    [[nodiscard]] bool failed() const { return failed_.load(std::memory_order_relaxed); }
    /// Throws the first failure, if any.
    void rethrow() const;

private:
    std::function<void()> on_fail_;
    mutable std::mutex mutex_;
    std::exception_ptr first_;
    std::atomic<bool> failed_{false};
};

/// Throws flowdeflate::Cancelled when the options' stop token or context asks to stop.
void check_cancelled(const Options& options);

/// The sequential compressor's input with the cancellation check added: it asks for
/// input at every block start, so a cancelled call stops within one block.
class CancellableInput final : public core::InputStream {
public:
    CancellableInput(core::InputStream& in, const Options& options) : in_(in), options_(options) {}
    const std::uint8_t* begin() const override { return in_.begin(); }
    const std::uint8_t* ensure(const std::uint8_t* need) override {
        check_cancelled(options_);
        return in_.ensure(need);
    }
    void release_before(const std::uint8_t* p) override { in_.release_before(p); }

private:
    core::InputStream& in_;
    const Options& options_;
};

/// Output segments to the writer's I/O thread, for both fd graphs: checks cancellation,
/// counts for the probe, waits for room in the writer (the bound on output in flight),
/// hands the segment on and reports progress.  hand_off() sends it to the writer; the
/// sequential graph sends it through its Write node instead.
class WriterSink : public core::SegmentSink {
public:
    WriterSink(OutputWriter& writer, const InputWindow& window, const PipelineOptions& options)
        : writer_(writer), window_(window), options_(options) {}
    void write(core::SegmentBuffer&& segment) final {
        check_cancelled(options_);
        if (options_.probe) ++options_.probe->segments_out;
        writer_.reserve();
        out_bytes_ += segment.size();
        hand_off(std::move(segment));
        if (options_.progress) options_.progress(window_.bytes_read(), out_bytes_);
    }
    core::SegmentBuffer buffer(std::size_t size) override { return writer_.buffer(size); }

protected:
    virtual void hand_off(core::SegmentBuffer&& segment) { writer_.push(std::move(segment), [] {}); }

private:
    OutputWriter& writer_;
    const InputWindow& window_;
    const PipelineOptions& options_;
    std::uint64_t out_bytes_ = 0;
};

/// The parallel graph's sizes, with the defaults filled in.
struct ParallelShape {
    int threads = 1;
    std::size_t chunk_size = 0;
    int ahead = 0;
    int ring = 0;
    int search_concurrency = 1;
    int code_concurrency = 1;
    /// One thread: nothing runs beside the serial nodes, so Code leaves the coding to
    /// Assemble, at the real bit offset.  (With automatic tracks a one-thread call does not
    /// get here: Options::parallel() sends it to the sequential compressor.)
    [[nodiscard]] bool one_worker() const { return threads == 1; }
    /// Input the graph may still need behind what is assembled and ahead of it: the
    /// search window, one block (assembled only once the resolver has seen its end) and
    /// the resolver's look-ahead.
    [[nodiscard]] std::size_t slack() const;
};
/// Validates @p options for the parallel graph; @p arena_threads (> 0) overrides threads.
ParallelShape parallel_shape(const PipelineOptions& options, int arena_threads = 0);

class ChunkGraph {
public:
    struct Hooks {
        std::function<void()> resolved;                   ///< a chunk was resolved
        std::function<void(std::size_t done)> assembled;  ///< input [0, done) is assembled
    };

    /// Builds the nodes in @p g (made inside the arena that will run it); output goes to
    /// @p out.  The input's first byte comes with the jobs (ChunkJob::in_begin).
    ChunkGraph(tbb::flow::graph& g, const PipelineOptions& options, const ParallelShape& shape,
               core::SegmentedOutput& out, Failure& failure, Hooks hooks);
    ~ChunkGraph();
    ChunkGraph(const ChunkGraph&) = delete;
    ChunkGraph& operator=(const ChunkGraph&) = delete;

    /// Where chunk jobs go in.
    tbb::flow::receiver<parallel::ChunkJob>& input();
    /// Input bytes assembled so far (once the last block is assembled: the input size).
    [[nodiscard]] std::uint64_t in_bytes() const;
    /// The final block was assembled and the stream finished.
    [[nodiscard]] bool finished() const;
    /// Counters for -v / --stats (call after the graph is idle).
    void collect(GraphStats& stats) const;

private:
    struct Nodes;
    std::unique_ptr<Nodes> nodes_;
};

}  // namespace flowdeflate::graph
