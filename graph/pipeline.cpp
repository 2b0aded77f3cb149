// pipeline.cpp - see pipeline.hpp.  The whole graph is wired in compress_fd().
#include "graph/pipeline.hpp"

#include <tbb/flow_graph.h>
#include <tbb/task_arena.h>

#include <exception>
#include <memory>
#include <thread>
#include <vector>

#include "core/deflate_compressor.hpp"
#include "graph/chunk_graph.hpp"

namespace flowdeflate::graph {
namespace {

using Bytes = std::vector<std::uint8_t>;
// Flow-graph messages are copied: share the bytes.  The number puts segments back in
// order before Write (a sequencer_node), whatever order the graph delivers them in.
struct Segment {
    std::size_t seq = 0;
    std::shared_ptr<Bytes> bytes;
};
struct InputArriving {};                 // Read -> Compress: the window is filling

// Compress's output: each finished segment leaves through the node's port.
class PortSink : public core::SegmentSink {
public:
    using Ports = tbb::flow::multifunction_node<InputArriving, std::tuple<Segment>>::output_ports_type;
    PortSink(Ports& ports, OutputWriter& writer, const InputWindow& window, const PipelineOptions& options)
        : ports_(ports), writer_(writer), window_(window), options_(options) {}
    void write(Bytes&& segment) override {
        check_cancelled(options_);
        writer_.reserve();  // the bound on output in flight: waits for the writer
        out_bytes_ += segment.size();
        std::get<0>(ports_).try_put(Segment{next_seq_++, std::make_shared<Bytes>(std::move(segment))});
        if (options_.progress) options_.progress(window_.bytes_read(), out_bytes_);
    }
    Bytes buffer(std::size_t size) override { return writer_.buffer(size); }

private:
    Ports& ports_;
    OutputWriter& writer_;
    const InputWindow& window_;
    const PipelineOptions& options_;
    std::size_t next_seq_ = 0;
    std::uint64_t out_bytes_ = 0;
};

}  // namespace

PipelineResult compress_fd(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                           const PipelineOptions& options) {
    options.validate();
    if (options.parallel())
        return compress_fd_parallel(in_fd, in_name, out_fd, out_name, options);
    return compress_fd_sequential(in_fd, in_name, out_fd, out_name, options);
}

PipelineResult compress_fd_sequential(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                                      const PipelineOptions& options) {
    using namespace tbb::flow;
    InputWindow window(in_fd, in_name, options.window);
    OutputWriter writer(out_fd, out_name, options.max_pending_segments);
    core::DeflateCompressor compressor(options.level);
    std::thread reader_thread, writer_thread;
    std::exception_ptr failure;
    PipelineResult result;

    // Two threads whatever the machine: the caller runs the Compress task; the other
    // forwards segments (buffering nodes forward through tasks) into Write.  With one,
    // Compress would wait for room in the writer forever (and the default arena has one
    // thread on a one-core machine).
    tbb::task_arena arena(2);
    arena.execute([&] {
        tbb::flow::graph g;

        // Read: hands the window to its I/O thread, and tells Compress to start at once (it
        // waits inside the window for the bytes it needs).
        using ReadNode = async_node<InputArriving, InputArriving>;
        ReadNode read(g, unlimited, [&](const InputArriving& msg, ReadNode::gateway_type& gateway) {
            gateway.reserve_wait();
            reader_thread = std::thread([&window, &gateway] {
                window.read_loop();
                gateway.release_wait();
            });
            gateway.try_put(msg);
        });

        // Compress: the sequential core over the window; segments go out as they fill.
        using CompressNode = multifunction_node<InputArriving, std::tuple<Segment>>;
        CompressNode compress(g, serial, [&](const InputArriving&, CompressNode::output_ports_type& ports) {
            try {
                PortSink sink(ports, writer, window, options);
                CancellableInput cancellable(window, options);
                result.in_bytes = compressor.compress_stream(cancellable, sink, options.format, options.segment_size);
            } catch (...) {
                failure = std::current_exception();
                window.cancel();
                writer.cancel();
            }
        });

        // Write: queues each segment for its I/O thread (never blocks: the compressor
        // reserved its place); the gateway keeps the graph alive until it is written.
        sequencer_node<Segment> in_order(g, [](const Segment& s) { return s.seq; });
        using WriteNode = async_node<Segment, continue_msg>;
        WriteNode write(g, serial, [&](const Segment& segment, WriteNode::gateway_type& gateway) {
            gateway.reserve_wait();
            writer.push(std::move(*segment.bytes), [&gateway] { gateway.release_wait(); });
        });

        make_edge(read, compress);
        make_edge(output_port<0>(compress), in_order);
        make_edge(in_order, write);

        writer_thread = std::thread([&writer] { writer.write_loop(); });
        read.try_put(InputArriving{});
        g.wait_for_all();  // every segment was pushed, and written (its gateway released)
        if (reader_thread.joinable()) reader_thread.join();
        writer.close();
        writer_thread.join();
    });

    if (failure) std::rethrow_exception(failure);
    if (const std::string e = writer.error(); !e.empty()) throw OutputError(e);
    result.out_bytes = writer.bytes_written();
    return result;
}

}  // namespace flowdeflate::graph
