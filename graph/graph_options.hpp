// graph_options.hpp - what every graph of this folder is told, and the decisions made from
// it once: the options (the library's, and what only the graph's own callers tune), the
// progress counters watchdogs read, and the parallel graph's sizes with their defaults.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "flowdeflate/options.hpp"
#include "flowdeflate/stats.hpp"
#include "graph/input_window.hpp"

namespace flowdeflate::graph {

/// Progress of a run, for watchdogs (tests fail a run that stops moving, and print this).
/// Every counter only grows; all are updated with relaxed atomics.
struct Probe {
    std::atomic<std::uint64_t> chunks_in{0};         ///< chunk jobs handed to Search
    std::atomic<std::uint64_t> chunks_searched{0};
    std::atomic<std::uint64_t> chunks_resolved{0};
    std::atomic<std::uint64_t> blocks_coded{0};
    std::atomic<std::uint64_t> blocks_assembled{0};
    std::atomic<std::uint64_t> segments_out{0};      ///< output segments handed to the writer
    /// The sum of the counters: it changes while the run makes progress.
    [[nodiscard]] std::uint64_t progress() const;
    /// One line with every counter (and where the graph stands between them).
    [[nodiscard]] std::string dump() const;
};

/// The library's options, and what only the graph's own callers tune.
struct GraphOptions : Options {
    Probe* probe = nullptr;                ///< counters for a watchdog (not owned)
    WindowOptions window{};
    std::size_t segment_size = 1u << 20;   ///< output segment size
    std::size_t max_pending_segments = 4;  ///< segments that may wait for the writer
};

/// What a graph did.
struct GraphResult {
    std::uint64_t in_bytes = 0;
    std::uint64_t out_bytes = 0;
    GraphStats stats{};  ///< the parallel graph's counters, or the optimiser's (levels 10-12)
};

/// Levels 10-12 not told to run sequentially: the parser takes its matches from a
/// ParallelMatchSearch (match_search.hpp) when the call has more than one thread.
[[nodiscard]] bool searches_ahead(const Options& options);

/// The parallel graph's sizes, with the defaults filled in.
struct ParallelShape {
    int threads = 1;
    std::size_t chunk_size = 0;
    int ahead = 0;
    int ring = 0;
    int search_concurrency = 1;
    int code_concurrency = 1;
    /// Input the graph may still need behind what is assembled and ahead of it: the
    /// search window, one block (assembled only once the resolver has seen its end) and
    /// the resolver's look-ahead.
    [[nodiscard]] std::size_t slack() const;
};
/// Validates @p options for the parallel graph of @p threads threads (the arena's:
/// ArenaUse::threads()) and fills in the defaults.
ParallelShape parallel_shape(const GraphOptions& options, int threads);

}  // namespace flowdeflate::graph
