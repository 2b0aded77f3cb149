// chunk_graph.cpp - see chunk_graph.hpp.  The nodes are wired in ChunkGraph's constructor.
#include "graph/chunk_graph.hpp"

#include <tbb/task_arena.h>

#include "core/clock.hpp"
#include "core/levels.hpp"
#include "parallel/assembler.hpp"
#include "parallel/encoder.hpp"
#include "parallel/pool.hpp"
#include "parallel/searcher.hpp"

namespace flowdeflate::graph {

namespace {

using TracksMsg = std::shared_ptr<const parallel::ChunkTracks>;
using BlockMsg = std::shared_ptr<const parallel::ResolvedBlock>;
using CodedMsg = std::shared_ptr<const parallel::CodedBlock>;

using core::now_ns;
using core::thread_cpu_ns;

}  // namespace

struct ChunkGraph::Nodes {
    using ResolveNode = tbb::flow::multifunction_node<TracksMsg, std::tuple<BlockMsg, tbb::flow::continue_msg>>;
    using AssembleNode = tbb::flow::multifunction_node<CodedMsg, std::tuple<tbb::flow::continue_msg>>;

    const GraphOptions& options;
    ParallelShape shape;
    Failure& failure;
    Hooks hooks;
    // Who writes what: the serial nodes' state belongs to their node (one body at a time,
    // in order); what crosses threads is said on each field.
    parallel::Assembler assembler;                      // Assemble's
    using Searchers = parallel::StatePool<parallel::ChunkSearcher, kMaxLevel + 1>;
    using Encoders = parallel::StatePool<parallel::Encoder, 1>;
    parallel::Resolver resolver;                              // Resolve's
    // One per Search / Code thread, taken from the process's pools and given back when the
    // graph goes (pool.hpp: StatePool).
    tbb::enumerable_thread_specific<Searchers::Handle> searchers;
    tbb::enumerable_thread_specific<Encoders::Handle> encoders;
    std::mutex plan_mutex;
    parallel::TrackPlan plan;  // under plan_mutex: Resolve writes it after each chunk, Search copies it
    const std::uint8_t* in_begin = nullptr;  // Resolve's, from the first job
    std::atomic<bool> finished{false};       // Assemble sets it, the caller reads it once idle

    // Counters.  Atomics: added to by the parallel nodes, read once the graph is idle.
    std::atomic<std::uint64_t> search_ns{0}, code_ns{0}, tracks_searched{0};
    std::atomic<std::size_t> blocks_out{0};  // Resolve adds, Assemble takes away
    std::atomic<std::uint64_t> ring_full_since{0}, ring_full_ns{0};
    // The serial nodes' own counters: Assemble's and Resolve's.
    std::uint64_t assemble_ns = 0, resolver_wait_ns = 0, last_resolved_ns = 0;
    std::vector<std::uint32_t> chunk_search_us, chunk_resolve_us;  // Resolve's
    std::vector<std::int16_t> chunk_worker;                         // Resolve's

    tbb::flow::queue_node<parallel::ChunkJob> chunk_queue;
    tbb::flow::limiter_node<parallel::ChunkJob> search_window;
    tbb::flow::function_node<parallel::ChunkJob, TracksMsg> search;
    tbb::flow::sequencer_node<TracksMsg> chunk_order;
    ResolveNode resolve;
    tbb::flow::queue_node<BlockMsg> block_queue;
    tbb::flow::limiter_node<BlockMsg> block_ring;
    tbb::flow::function_node<BlockMsg, CodedMsg> code;
    tbb::flow::sequencer_node<CodedMsg> block_order;
    AssembleNode assemble;
    // Resolve, Code and Assemble run before any waiting Search task: a resolved chunk's
    // items stay alive until its blocks are coded, so a Code backlog behind the searches
    // kept up to 12 item buffers of megabytes alive at -p2 (search window 6).  With the
    // priority, peak memory falls and time does not move (docs/notes/io-and-memory.md).
    static constexpr tbb::flow::node_priority_t kDownstream = 1;

    Nodes(tbb::flow::graph& g, const GraphOptions& o, const ParallelShape& s, core::SegmentedOutput& out,
          Failure& f, Hooks h)
        : options(o),
          shape(s),
          failure(f),
          hooks(std::move(h)),
          assembler(out, o.format, o.level),
          resolver(o.level, o.tracks, s.search_concurrency),
          plan(resolver.plan()),
          chunk_queue(g),
          search_window(g, std::size_t(s.ahead)),
          search(g, std::size_t(s.search_concurrency), [this](const parallel::ChunkJob& job) { return search_body(job); }),
          chunk_order(g, [](const TracksMsg& t) { return t->job.index; }),
          resolve(g, tbb::flow::serial,
                  [this](const TracksMsg& t, ResolveNode::output_ports_type& ports) { resolve_body(t, ports); },
                  kDownstream),
          block_queue(g),
          block_ring(g, std::size_t(s.ring)),
          code(g, std::size_t(s.code_concurrency), [this](const BlockMsg& b) { return code_body(b); }, kDownstream),
          block_order(g, [](const CodedMsg& c) { return c->index; }),
          assemble(g, tbb::flow::serial,
                   [this](const CodedMsg& c, AssembleNode::output_ports_type& ports) { assemble_body(c, ports); },
                   kDownstream) {
        using tbb::flow::make_edge;
        using tbb::flow::output_port;
        try {
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
        } catch (...) {
            // Out of memory while wiring: an edge made may have spawned a forward task on
            // its node; let it run while the nodes still exist.
            g.wait_for_all();
            throw;
        }
    }

    Searchers::Handle take_searcher() const {
        return Searchers::instance().take(std::size_t(options.level),
                                          [&] { return std::make_unique<parallel::ChunkSearcher>(options.level); });
    }
    static Encoders::Handle take_encoder() {
        return Encoders::instance().take(0, [] { return std::make_unique<parallel::Encoder>(); });
    }

    // Search: the tracks of one chunk, on any worker.  After a failure, messages still
    // flow (empty), so that the limiters and sequencers drain.
    TracksMsg search_body(const parallel::ChunkJob& job) {
        if (!failure.failed()) {
            try {
                check_cancelled(options);
                auto& searcher = searchers.local();
                if (!searcher) searcher = take_searcher();
                parallel::TrackPlan p;
                {
                    std::lock_guard lock(plan_mutex);
                    p = plan;
                }
                auto tracks = searcher->search(job, p);
                tracks->worker = tbb::this_task_arena::current_thread_index();
                if (options.probe) ++options.probe->chunks_searched;
                search_ns += tracks->search_ns;
                tracks_searched += tracks->tracks.size();
                return TracksMsg(std::move(tracks));
            } catch (...) {
                failure.fail(std::current_exception());
            }
        }
        return std::make_shared<parallel::ChunkTracks>(parallel::ChunkTracks{job, {}, 0});
    }

    // Resolve: serial, in chunk order; frees a place in the search window per chunk.
    void resolve_body(const TracksMsg& tracks, ResolveNode::output_ports_type& ports) {
        const std::uint64_t t0 = now_ns();
        if (last_resolved_ns != 0) resolver_wait_ns += t0 - last_resolved_ns;
        chunk_search_us.push_back(std::uint32_t(tracks->search_ns / 1000));
        chunk_worker.push_back(std::int16_t(tracks->worker));
        const std::uint64_t resolved_before = resolver.stats().resolve_ns;
        if (!failure.failed()) {
            try {
                if (!in_begin) in_begin = tracks->job.in_begin;
                resolver.resolve(tracks, [&](std::unique_ptr<parallel::ResolvedBlock> block) {
                    if (++blocks_out == std::size_t(shape.ring)) ring_full_since = now_ns();
                    std::get<0>(ports).try_put(BlockMsg(std::move(block)));
                });
                std::lock_guard lock(plan_mutex);
                plan = resolver.plan();
            } catch (...) {
                failure.fail(std::current_exception());
            }
        }
        chunk_resolve_us.push_back(std::uint32_t((resolver.stats().resolve_ns - resolved_before) / 1000));
        std::get<1>(ports).try_put(tbb::flow::continue_msg());
        if (options.probe) ++options.probe->chunks_resolved;
        if (hooks.resolved) hooks.resolved();
        last_resolved_ns = now_ns();
    }

    // Code: Huffman codes and bits of a block, on any worker.
    // As Search does, it fails the run rather than throw: an exception out of a node body
    // would leave the limiters and sequencers undrained (and the Read node's gateway to a
    // graph being torn down).
    CodedMsg code_body(const BlockMsg& block) {
        auto coded = std::make_shared<parallel::CodedBlock>();
        coded->index = block->index;
        if (failure.failed()) return coded;
        try {
            const std::uint64_t t0 = thread_cpu_ns();
            auto& encoder = encoders.local();
            if (!encoder) encoder = take_encoder();
            encoder->encode(*block, *coded);
            code_ns += thread_cpu_ns() - t0;
            if (options.probe) ++options.probe->blocks_coded;
        } catch (...) {
            failure.fail(std::current_exception());
        }
        return coded;
    }

    // Assemble: serial, in block order; frees the block's place in the ring.
    void assemble_body(const CodedMsg& coded, AssembleNode::output_ports_type& ports) {
        if (!failure.failed()) {
            const std::uint64_t t0 = thread_cpu_ns();
            try {
                assembler.append(*coded);
                if (coded->is_final) {
                    assembler.finish();
                    finished = true;
                }
                if (hooks.assembled)
                    hooks.assembled(std::size_t(coded->data.data() + coded->data.size() - in_begin));
            } catch (...) {
                failure.fail(std::current_exception());
            }
            assemble_ns += thread_cpu_ns() - t0;
        }
        if (blocks_out-- == std::size_t(shape.ring)) ring_full_ns += now_ns() - ring_full_since;
        if (options.probe) ++options.probe->blocks_assembled;
        std::get<0>(ports).try_put(tbb::flow::continue_msg());
    }
};

ChunkGraph::ChunkGraph(tbb::flow::graph& g, const GraphOptions& options, const ParallelShape& shape,
                       core::SegmentedOutput& out, Failure& failure, Hooks hooks)
    : nodes_(std::make_unique<Nodes>(g, options, shape, out, failure, std::move(hooks))) {}

ChunkGraph::~ChunkGraph() = default;

tbb::flow::receiver<parallel::ChunkJob>& ChunkGraph::input() { return nodes_->chunk_queue; }

std::uint64_t ChunkGraph::in_bytes() const { return nodes_->assembler.in_bytes(); }

bool ChunkGraph::finished() const { return nodes_->finished; }

void ChunkGraph::collect(GraphStats& stats) const {
    const Nodes& n = *nodes_;
    stats.parallel = true;
    stats.threads = n.shape.threads;
    stats.chunk_size = n.shape.chunk_size;
    stats.ahead = n.shape.ahead;
    stats.ring = n.shape.ring;
    stats.resolver = n.resolver.stats();
    stats.search_ns = n.search_ns;
    stats.code_ns = n.code_ns;
    stats.assemble_ns = n.assemble_ns;
    stats.resolver_wait_ns = n.resolver_wait_ns;
    stats.ring_full_ns = n.ring_full_ns;
    stats.tracks_searched = n.tracks_searched;
    stats.chunk_search_us = n.chunk_search_us;
    stats.chunk_worker = n.chunk_worker;
    stats.chunk_resolve_us = n.chunk_resolve_us;
}

}  // namespace flowdeflate::graph
