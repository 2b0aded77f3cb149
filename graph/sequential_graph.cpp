// sequential_graph.cpp - the sequential graph over file descriptors (fd_graphs.hpp), wired
// in compress_fd_sequential(), and compress_fd(), which chooses the graph.
#include "graph/fd_graphs.hpp"

#include <tbb/flow_graph.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "core/deflate_compressor.hpp"
#include "graph/arena.hpp"
#include "graph/failure.hpp"
#include "graph/io_thread.hpp"
#include "graph/match_search.hpp"
#include "graph/output_writer.hpp"
#include "graph/threads.hpp"

namespace flowdeflate::graph {
namespace {

using Bytes = core::SegmentBuffer;
// Flow-graph messages are copied: share the bytes.  The number puts segments back in
// order before Write (a sequencer_node), whatever order the graph delivers them in.
struct Segment {
    std::size_t seq = 0;
    std::shared_ptr<Bytes> bytes;
};
struct InputArriving {};                 // Read -> Compress: the window is filling

// Compress's output: each finished segment leaves through the node's port (numbered, for
// the sequencer in front of Write).
class PortSink final : public WriterSink {
public:
    using Ports = tbb::flow::multifunction_node<InputArriving, std::tuple<Segment>>::output_ports_type;
    PortSink(Ports& ports, OutputWriter& writer, const InputWindow& window, const GraphOptions& options)
        : WriterSink(writer, window, options), ports_(ports) {}

private:
    void hand_off(Bytes&& segment) override {
        std::get<0>(ports_).try_put(Segment{next_seq_++, std::make_shared<Bytes>(std::move(segment))});
    }
    Ports& ports_;
    std::size_t next_seq_ = 0;
};

}  // namespace

GraphResult compress_fd(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                        const GraphOptions& options) {
    options.validate();
    if (options.parallel())
        return compress_fd_parallel(in_fd, in_name, out_fd, out_name, options);
    return compress_fd_sequential(in_fd, in_name, out_fd, out_name, options);
}

GraphResult compress_fd_sequential(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                                   const GraphOptions& options) {
    using namespace tbb::flow;
    InputWindow window(in_fd, in_name, options.window);
    OutputWriter writer(out_fd, out_name, options.max_pending_segments);
    core::DeflateCompressor compressor(options.level);
    std::exception_ptr failure;
    GraphResult result;

    // Two threads whatever the machine: the caller runs the Compress task; the other
    // forwards segments (buffering nodes forward through tasks) into Write.  With one,
    // Compress would wait for room in the writer forever (and the default arena has one
    // thread on a one-core machine).  Levels 10-12 with more threads: the others search
    // ahead of the parser (match_search.hpp), and forward segments between chunks.
    const int search_threads = searches_ahead(options) ? thread_count(options) : 1;
    Options arena_options = options;
    arena_options.arena = nullptr;
    arena_options.threads = std::max(2, search_threads);
    ArenaUse arena_use(arena_options);  // past the core count too, when asked
    tbb::task_arena& arena = arena_use.get();
    // The I/O threads start before the graph: a failure to make one is a clean error.
    IoThread writer_thread, reader_thread;
    writer_thread.start("writer", [&] { writer.cancel(); writer.close(); }, [&writer] { writer.write_loop(); });
    reader_thread.start("reader", [&] { window.cancel(); }, [&window] { window.read_loop(); });
    arena.execute([&] {
        tbb::flow::graph g;

        // Read: its I/O thread (started above) fills the window; Compress starts at once
        // and waits inside the window for the bytes it needs.
        broadcast_node<InputArriving> read(g);

        // Compress: the sequential core over the window; segments go out as they fill.
        using CompressNode = multifunction_node<InputArriving, std::tuple<Segment>>;
        CompressNode compress(g, serial, [&](const InputArriving&, CompressNode::output_ports_type& ports) {
            const auto stop_io = [&] {
                window.cancel();  // (wakes a search task waiting for input, and the reader)
                writer.cancel();
            };
            CancellableInput cancellable(window, options);
            PortSink sink(ports, writer, window, options);
            try {
                result.in_bytes = compress_with_search(compressor, cancellable, sink, options, arena, search_threads,
                                                       stop_io, &result.stats.optimiser);
            } catch (...) {
                failure = std::current_exception();  // (compress_with_search() ran stop_io first)
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

        read.try_put(InputArriving{});
        g.wait_for_all();  // every segment was pushed, and written (its gateway released)
    });
    if (failure) window.cancel();  // else the reader ends by itself at the end of input
    reader_thread.join();
    writer.close();
    writer_thread.join();

    if (failure) std::rethrow_exception(failure);
    if (const std::string e = writer.error(); !e.empty()) throw OutputError(e);
    result.out_bytes = writer.bytes_written();
    return result;
}

}  // namespace flowdeflate::graph
