// parallel_pipeline.cpp - the parallel graph (pictures 3-8 of the case study), wired in
// compress_fd_parallel() below:
//
//   Read ─► queue ─► limiter(ahead) ─► Search ─► sequencer ─► Resolve ─► queue ─► limiter(ring) ─► Code
//                        ▲             (workers)   (chunk #)    (serial)                 ▲           (workers)
//                        └────── a chunk is resolved ──────────────┘                      │              │
//                                                                                          │          sequencer
//                                                                                          │          (block #)
//                                                                                          │              ▼
//                                                    Write ◄── segments ── Assemble ───────┴── a block is assembled
//                                                 (I/O thread)              (serial)
//
// - Read runs on two I/O threads: the input window's reader (pread/read into the
//   reservation window) and the chunker, which hands out chunk k once its bytes and a
//   block's look-ahead are in, and only while k is less than `ahead` (+1) chunks past the
//   chunk the resolver waits for, so the reader never reads what the search window cannot use.
// - limiter(ahead) keeps chunks searched at most `ahead` places past the resolver;
//   limiter(ring) keeps at most `ring` resolved blocks between Resolve and Assemble.
// - Search and Code run on the arena's workers (node concurrency = threads by default);
//   Resolve and Assemble are serial nodes, in order thanks to the sequencers.
// - Assemble frees input behind the bit stream and hands full 1 MiB segments to the
//   writer's I/O thread.  A bounded number of segments may wait for it; when that many are
//   waiting, Assemble waits (the output is the bottleneck then).
//
// The feedback: after each chunk the resolver publishes its track plan (core::Resolver::
// plan()), which the next searches use.
#include <tbb/enumerable_thread_specific.h>
#include <tbb/flow_graph.h>
#include <tbb/global_control.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "core/parallel.hpp"
#include "graph/pipeline.hpp"

namespace flowdeflate::graph {
namespace {

using TracksMsg = std::shared_ptr<const core::ChunkTracks>;
using BlockMsg = std::shared_ptr<const core::ResolvedBlock>;
using CodedMsg = std::shared_ptr<const core::CodedBlock>;
using Bytes = std::vector<std::uint8_t>;

std::uint64_t now_ns() {
    return std::uint64_t(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

// Assemble's segments go straight to the writer's I/O thread.
class WriterSink final : public core::SegmentSink {
public:
    WriterSink(OutputWriter& writer, const InputWindow& window, const PipelineOptions& options)
        : writer_(writer), window_(window), options_(options) {}
    void write(Bytes&& segment) override {
        writer_.reserve();  // bounds the output waiting for the writer
        out_bytes_ += segment.size();
        writer_.push(std::move(segment), [] {});
        if (options_.progress) options_.progress(window_.bytes_read(), out_bytes_);
    }
    Bytes buffer(std::size_t size) override { return writer_.buffer(size); }

private:
    OutputWriter& writer_;
    const InputWindow& window_;
    const PipelineOptions& options_;
    std::uint64_t out_bytes_ = 0;
};

// Lets the chunker hand out chunk k only while k < resolved + limit (the search window)
// and while the chunk starts less than `slack` bytes past what assembly has finished:
// input is freed only behind assembly, so this bounds memory when coding, assembly or
// the writer lag.  The slack holds the search window, one block (a block is assembled
// only once the resolver has seen its end, up to 310 KB after its start) and the
// look-ahead the resolver needs.
class ChunkGate {
public:
    ChunkGate(std::size_t limit, std::size_t chunk_size)
        : limit_(limit),
          chunk_size_(chunk_size),
          slack_((limit + 2) * chunk_size + core::kSoftMaxBlockLength + core::kMinBlockLength +
                 core::chunk_lookahead(chunk_size)) {}
    bool wait_for(std::size_t k) {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return (k < resolved_ + limit_ && k * chunk_size_ < assembled_ + slack_) || cancelled_; });
        return !cancelled_;
    }
    void assembled_up_to(std::size_t bytes) {
        std::lock_guard lock(mutex_);
        assembled_ = bytes;
        cv_.notify_all();
    }
    void resolved_one() {
        std::lock_guard lock(mutex_);
        ++resolved_;
        cv_.notify_all();
    }
    void cancel() {
        std::lock_guard lock(mutex_);
        cancelled_ = true;
        cv_.notify_all();
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::size_t limit_;
    std::size_t chunk_size_;
    std::size_t slack_;
    std::size_t resolved_ = 0;
    std::size_t assembled_ = 0;
    bool cancelled_ = false;
};

}  // namespace

PipelineResult compress_fd_parallel(int in_fd, const std::string& in_name, int out_fd, const std::string& out_name,
                                    const PipelineOptions& options) {
    using namespace tbb::flow;
    if (!core::level_is_parallel(options.level)) throw std::invalid_argument("the parallel graph covers levels 1-9");
    if (options.chunk_size < core::kMinChunkSize) throw std::invalid_argument("chunk size must be at least 4096");
    const int threads = options.threads > 0 ? options.threads : tbb::info::default_concurrency();
    const std::size_t chunk_size = options.chunk_size;
    const int ahead = options.ahead > 0 ? options.ahead : threads + 4;
    const int ring = options.ring > 0 ? options.ring : 4096;
    const int search_concurrency = options.search_concurrency > 0 ? options.search_concurrency : threads;
    const int code_concurrency = options.code_concurrency > 0 ? options.code_concurrency : threads;
    const std::size_t lookahead = core::chunk_lookahead(chunk_size);
    const std::uint64_t t_start = now_ns();

    // The chunker asks for what the search window can use; the reader need not run far
    // past that (the sequential graph's 8 MiB would only add memory here).
    WindowOptions window_options = options.window;
    window_options.ahead = std::min(window_options.ahead, std::max<std::size_t>(chunk_size, 1u << 20));
    InputWindow window(in_fd, in_name, window_options);
    OutputWriter writer(out_fd, out_name, options.max_pending_segments);
    WriterSink sink(writer, window, options);
    core::SegmentedOutput output(sink, options.segment_size);
    core::StreamAssembler assembler(output, options.format, options.level);
    core::Resolver resolver(options.level, options.tracks, search_concurrency);
    ChunkGate gate(std::size_t(ahead) + 1, chunk_size);
    tbb::enumerable_thread_specific<std::unique_ptr<core::ChunkSearcher>> searchers;
    tbb::enumerable_thread_specific<std::unique_ptr<core::BlockEncoder>> encoders;

    std::mutex plan_mutex;
    core::TrackPlan plan = resolver.plan();

    PipelineResult result;
    PipelineStats& stats = result.stats;
    stats.parallel = true;
    stats.threads = threads;
    stats.chunk_size = chunk_size;
    stats.ahead = ahead;
    stats.ring = ring;
    std::atomic<std::uint64_t> search_ns{0}, code_ns{0}, tracks_searched{0};
    // Blocks between Resolve and Assemble, and how long there were `ring` or more of them
    // (the ring was full: later blocks waited in front of it).
    std::atomic<std::size_t> blocks_out{0};
    std::atomic<std::uint64_t> ring_full_since{0}, ring_full_ns{0};
    std::uint64_t last_resolved_ns = 0;

    std::mutex failure_mutex;
    std::exception_ptr failure;
    std::atomic<bool> failed{false};
    const auto fail = [&](std::exception_ptr e) {
        {
            std::lock_guard lock(failure_mutex);
            if (!failure) failure = e;
        }
        failed = true;
        gate.cancel();
        window.cancel();
        writer.cancel();
    };

    std::thread reader_thread, chunker_thread, writer_thread;
    // More threads than cores is allowed (tests oversubscribe on purpose); TBB caps its
    // workers at the number of cores unless told otherwise.
    std::optional<tbb::global_control> allow_more;
    if (threads > tbb::info::default_concurrency())
        allow_more.emplace(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
    tbb::task_arena arena(threads);
    arena.execute([&] {
        tbb::flow::graph g;

        // Read: the reader fills the window; the chunker hands out chunks as their bytes
        // arrive, within the search window.
        using ReadNode = async_node<continue_msg, core::ChunkJob>;
        ReadNode read(g, serial, [&](const continue_msg&, ReadNode::gateway_type& gateway) {
            gateway.reserve_wait();
            reader_thread = std::thread([&window] { window.read_loop(); });
            chunker_thread = std::thread([&, &gateway = gateway] {
                try {
                    core::ChunkJob job;
                    job.in_begin = window.begin();
                    job.end = job.in_begin;
                    do {
                        if (!gate.wait_for(job.index)) break;
                        job.begin = job.end;
                        const std::uint8_t* need = job.begin + chunk_size + lookahead;
                        job.data_end = window.ensure(need);
                        job.eof = job.data_end < need;
                        job.end = std::min(job.begin + chunk_size, job.data_end);
                        job.stop = std::min(job.end + core::chunk_overlap(chunk_size), job.data_end);
                        gateway.try_put(job);
                        job.index++;
                    } while (!(job.eof && job.end == job.data_end));
                } catch (...) {
                    fail(std::current_exception());
                }
                gateway.release_wait();
            });
        });

        queue_node<core::ChunkJob> chunk_queue(g);
        limiter_node<core::ChunkJob> search_window(g, std::size_t(ahead));

        // Search: tracks of one chunk, on any worker.
        function_node<core::ChunkJob, TracksMsg> search(g, std::size_t(search_concurrency),
                                                         [&](const core::ChunkJob& job) -> TracksMsg {
            if (failed) return std::make_shared<core::ChunkTracks>(core::ChunkTracks{job, {}, 0});
            try {
                auto& searcher = searchers.local();
                if (!searcher) searcher = std::make_unique<core::ChunkSearcher>(options.level);
                core::TrackPlan p;
                {
                    std::lock_guard lock(plan_mutex);
                    p = plan;
                }
                auto tracks = searcher->search(job, p);
                search_ns += tracks->search_ns;
                tracks_searched += tracks->tracks.size();
                return TracksMsg(std::move(tracks));
            } catch (...) {
                fail(std::current_exception());
                return std::make_shared<core::ChunkTracks>(core::ChunkTracks{job, {}, 0});
            }
        });
        sequencer_node<TracksMsg> chunk_order(g, [](const TracksMsg& t) { return t->job.index; });

        // Resolve: serial, in chunk order; frees a place in the search window per chunk.
        using ResolveNode = multifunction_node<TracksMsg, std::tuple<BlockMsg, continue_msg>>;
        ResolveNode resolve(g, serial, [&](const TracksMsg& tracks, ResolveNode::output_ports_type& ports) {
            const std::uint64_t t0 = now_ns();
            if (last_resolved_ns != 0) stats.resolver_wait_ns += t0 - last_resolved_ns;
            stats.chunk_search_us.push_back(std::uint32_t(tracks->search_ns / 1000));
            if (!failed) {
                try {
                    resolver.resolve(tracks, [&](std::unique_ptr<core::ResolvedBlock> block) {
                        if (++blocks_out == std::size_t(ring)) ring_full_since = now_ns();
                        std::get<0>(ports).try_put(BlockMsg(std::move(block)));
                    });
                    std::lock_guard lock(plan_mutex);
                    plan = resolver.plan();
                } catch (...) {
                    fail(std::current_exception());
                }
            }
            std::get<1>(ports).try_put(continue_msg());
            gate.resolved_one();
            last_resolved_ns = now_ns();
        });

        queue_node<BlockMsg> block_queue(g);
        limiter_node<BlockMsg> block_ring(g, std::size_t(ring));

        // Code: Huffman codes and bits of a block, on any worker.
        function_node<BlockMsg, CodedMsg> code(g, std::size_t(code_concurrency), [&](const BlockMsg& block) {
            auto coded = std::make_shared<core::CodedBlock>();
            coded->index = block->index;
            if (failed) return CodedMsg(std::move(coded));
            const std::uint64_t t0 = now_ns();
            auto& encoder = encoders.local();
            if (!encoder) encoder = std::make_unique<core::BlockEncoder>();
            encoder->encode(*block, *coded);
            code_ns += now_ns() - t0;
            return CodedMsg(std::move(coded));
        });
        sequencer_node<CodedMsg> block_order(g, [](const CodedMsg& c) { return c->index; });

        // Assemble: serial, in block order; frees the block's place in the ring.
        using AssembleNode = multifunction_node<CodedMsg, std::tuple<continue_msg>>;
        AssembleNode assemble(g, serial, [&](const CodedMsg& coded, AssembleNode::output_ports_type& ports) {
            if (!failed) {
                const std::uint64_t t0 = now_ns();
                try {
                    assembler.append(*coded);
                    const std::size_t done = std::size_t(coded->data.data() + coded->data.size() - window.begin());
                    if (done > core::kWindowSize) window.release_before(window.begin() + (done - core::kWindowSize));
                    gate.assembled_up_to(done);
                    if (coded->is_final) assembler.finish();
                } catch (...) {
                    fail(std::current_exception());
                }
                stats.assemble_ns += now_ns() - t0;
            }
            if (blocks_out-- == std::size_t(ring)) ring_full_ns += now_ns() - ring_full_since;
            std::get<0>(ports).try_put(continue_msg());
        });

        make_edge(read, chunk_queue);
        make_edge(chunk_queue, search_window);
        make_edge(search_window, search);
        make_edge(search, chunk_order);
        make_edge(chunk_order, resolve);
        make_edge(output_port<1>(resolve), search_window.decrementer());
        make_edge(output_port<0>(resolve), block_queue);
        make_edge(block_queue, block_ring);
        make_edge(block_ring, code);
        make_edge(code, block_order);
        make_edge(block_order, assemble);
        make_edge(output_port<0>(assemble), block_ring.decrementer());

        writer_thread = std::thread([&writer] { writer.write_loop(); });
        read.try_put(continue_msg());
        g.wait_for_all();
    });
    if (chunker_thread.joinable()) chunker_thread.join();
    if (failed) window.cancel();  // else the reader ends by itself at the end of input
    if (reader_thread.joinable()) reader_thread.join();
    if (!failed) {
        try {
            window.check();
        } catch (...) {
            fail(std::current_exception());
        }
    }
    writer.close();
    if (writer_thread.joinable()) writer_thread.join();

    if (failure) std::rethrow_exception(failure);
    if (const std::string e = writer.error(); !e.empty()) throw OutputError(e);
    stats.resolver = resolver.stats();
    stats.search_ns = search_ns;
    stats.code_ns = code_ns;
    stats.tracks_searched = tracks_searched;
    stats.ring_full_ns = ring_full_ns;
    stats.wall_ns = now_ns() - t_start;
    result.in_bytes = assembler.in_bytes();
    result.out_bytes = writer.bytes_written();
    return result;
}

}  // namespace flowdeflate::graph
