// output_writer.hpp - the output side of the file-descriptor graphs: a writer on its own
// I/O thread with a bounded queue of segments, and the sink that feeds it.
//
// The compressor hands over finished segments (1 MiB by default) and goes on; the writer
// writes them in order and frees (recycles) them.  At most `max_pending` segments wait,
// so a slow disk holds the compressor back instead of letting memory grow.  Reading has
// its own thread too: one I/O thread for both would let an extending write stall reads.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/segmented_output.hpp"
#include "flowdeflate/core.hpp"
#include "graph/graph_options.hpp"

namespace flowdeflate::graph {

/// A write failed (disk full, broken pipe...).  The message is for the user.
class OutputError : public Error {
public:
    using Error::Error;
};

class OutputWriter {
public:
    OutputWriter(int fd, std::string name, std::size_t max_pending);

    /// Waits until fewer than max_pending segments are in flight and takes a place for
    /// one more.  Called by the compressor before it sends a segment into the graph, so a
    /// slow writer holds back the compressor, however the graph schedules the Write node.
    /// Throws OutputError after a failed write.
    void reserve();
    /// Queues @p segment (after reserve()); @p done runs on the writer thread once it is
    /// written or dropped.  Never blocks.
    void push(core::SegmentBuffer&& segment, std::function<void()> done);
    /// A buffer of @p size bytes (contents unspecified), recycled from written segments
    /// when possible.
    core::SegmentBuffer buffer(std::size_t size);
    /// No more segments: the writer finishes what is queued and returns.
    void close();
    /// Stops writing; queued segments are dropped (their callbacks still run).
    void cancel();
    /// The writer thread's body.
    void write_loop();

    [[nodiscard]] std::uint64_t bytes_written() const;
    /// The first write error, or "" when all went well.
    [[nodiscard]] std::string error() const;

private:
    struct Item {
        core::SegmentBuffer data;
        std::function<void()> done;
    };

    int fd_;
    std::string name_;
    std::size_t max_pending_;
    mutable std::mutex mutex_;
    std::condition_variable work_cv_, room_cv_;
    std::deque<Item> queue_;
    std::vector<core::SegmentBuffer> free_;
    std::size_t in_flight_ = 0;  // reserved and not yet written
    bool closed_ = false, cancelled_ = false;
    std::string error_;
    std::uint64_t written_ = 0;
};

/// Output segments to the writer's I/O thread, for both fd graphs: checks cancellation,
/// counts for the probe, waits for room in the writer (the bound on output in flight),
/// hands the segment on and reports progress (input read from @p window).  hand_off()
/// sends it to the writer; the sequential graph sends it through its Write node instead.
class WriterSink : public core::SegmentSink {
public:
    WriterSink(OutputWriter& writer, const InputWindow& window, const GraphOptions& options)
        : writer_(writer), window_(window), options_(options) {}
    void write(core::SegmentBuffer&& segment) final;
    core::SegmentBuffer buffer(std::size_t size) override { return writer_.buffer(size); }

protected:
    virtual void hand_off(core::SegmentBuffer&& segment) { writer_.push(std::move(segment), [] {}); }

private:
    OutputWriter& writer_;
    const InputWindow& window_;
    const GraphOptions& options_;
    std::uint64_t out_bytes_ = 0;
};

}  // namespace flowdeflate::graph
