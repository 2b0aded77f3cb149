// flowdeflate/stats.hpp - what one run of the parallel graph did: how the input was cut
// and resolved, and what each node cost.  No call needs these; they are for tuning and
// for the scaling model (the command line's -v prints them, --stats writes them for
// scripts/bench threads and scaling).  compress_fd() fills them.
//
// How to read them: Search parses each chunk ahead along one or more tracks; the serial
// Resolve follows the track that fits where the previous chunk ended and parses a stretch
// itself (a repair) where none does.  docs/DESIGN.md, "The parallel graph", says more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace flowdeflate {

/// The resolver's counters.
struct ResolverStats {
    std::uint64_t chunks = 0;
    std::uint64_t blocks = 0;
    std::uint64_t steps_followed = 0;   ///< steps taken from tracks and branches (level 1: not the literals of a stride passed whole)
    std::uint64_t syncs = 0;            ///< times the resolver (re)joined a track
    std::uint64_t branches = 0;         ///< ... of them onto a branch
    std::uint64_t repairs = 0;          ///< stretches the resolver parsed itself
    std::uint64_t repair_bytes = 0;
    std::uint64_t repairs_min_len = 0;  ///< repairs where a track stood at the position, with another min length
    std::uint64_t repairs_phase = 0;    ///< repairs where no track had a step at the position
    std::uint64_t branched_chunks = 0;  ///< chunks searched with branches for other min lengths
    std::uint64_t masked_chunks = 0;    ///< chunks searched with step masks
    std::uint64_t resolve_ns = 0;       ///< the resolver's own CPU time, emitting blocks excluded
};

/// Levels 10-12 with more than one thread: the match search ahead of the optimiser.
struct OptimiserStats {
    bool ran = false;  ///< the search ran ahead; when false, nothing else was filled
    int threads = 1;
    std::size_t chunk_size = 0;
    int ahead = 0;
    std::uint64_t chunks = 0;
    std::uint64_t searched_by_optimiser = 0;  ///< chunks no task had started when the optimiser came
    std::uint64_t waits = 0;                  ///< times the optimiser waited for a running search
    std::uint64_t wait_ns = 0;                ///< and for how long (wall time)
    std::uint64_t search_ns = 0;              ///< all chunk searches (CPU time)
    std::uint64_t optimiser_ns = 0;           ///< the optimiser's thread, its own searches excluded (CPU time):
                                              ///< the serial part (optimisation, coding, CRC)
    std::uint64_t wall_ns = 0;
    /// The min-cost paths in parts (core/path_split.hpp): passes over blocks long enough to
    /// split and their positions (split or not: a pass is split only when some thread is
    /// idle), the passes split and their parts, the parts other threads guessed and the optimiser
    /// took, and guesses that did not agree.
    std::uint64_t path_passes = 0, path_positions = 0, path_split = 0, path_parts = 0, path_taken = 0,
                  path_disagreed = 0;
    std::uint64_t path_ns = 0;  ///< the optimiser's time in those passes (in optimiser_ns; steady clock for
                                ///< the passes not split, CPU time for the split ones)
    std::uint64_t path_guess_ns = 0;  ///< the other threads' guesses (CPU time)
    std::uint32_t path_min_part = 0;  ///< no part is shorter (positions)
    const char* min_cost_path = "";  ///< the optimiser's inner loop: "avx512", "avx2" or "scalar"
};

/// What a run of the parallel graph did.
struct GraphStats {
    bool parallel = false;  ///< the parallel graph ran; when false, nothing else was filled
    /// The input fit one chunk and was compressed on the calling thread (no graph ran).
    bool direct = false;
    int threads = 1;
    std::size_t chunk_size = 0;
    int ahead = 0;
    int ring = 0;
    ResolverStats resolver{};
    // Node costs are CPU time of the threads that ran the bodies; waits, stalls and
    // wall_ns are wall time.
    std::uint64_t search_ns = 0;         ///< all Search bodies together
    std::uint64_t code_ns = 0;           ///< all Code bodies together
    std::uint64_t assemble_ns = 0;       ///< all Assemble bodies together
    std::uint64_t resolver_wait_ns = 0;  ///< the resolver's next chunk was not searched yet
    std::uint64_t ring_full_ns = 0;      ///< the block ring was full (blocks waited in front of it)
    std::uint64_t wall_ns = 0;
    std::uint64_t tracks_searched = 0;            ///< tracks over all chunks
    std::vector<std::uint32_t> chunk_search_us;   ///< per chunk, in order
    /// Per chunk, in order: the arena slot of the thread that searched it (-1: none).  With
    /// chunk_search_us it shows one worker's searches costing more than another's: on a
    /// shared machine, a core slowed by its neighbours.
    std::vector<std::int16_t> chunk_worker;
    std::vector<std::uint32_t> chunk_resolve_us;  ///< the resolver's own time per chunk, in order
    OptimiserStats optimiser{};                   ///< levels 10-12 (the parallel graph did not run)
};

/// What a decompression did (DecompressOptions::stats; the command line's -d --stats).  The
/// serial share of a parallel run is main_line_ns / (main_line_ns + workers_ns).
struct DecompressStats {
    /// "stream" (one thread), "parallel" (a main line and speculating workers), "indexed"
    /// (the spans of an index), "recording" (recording an index), "range".
    const char* decoder = "stream";
    int threads = 1;
    std::uint64_t regions = 0;          ///< parallel: regions of the compressed stream; indexed: spans
    std::uint64_t worker_regions = 0;   ///< regions whose output a worker decoded (indexed: every span)
    std::uint64_t worker_bytes = 0;     ///< output decoded by workers
    std::uint64_t main_line_bytes = 0;  ///< output decoded by the thread that writes in order
    /// CPU time of the thread that works in order (the one-thread decoders: all of it;
    /// parallel: joining the workers' stretches, checking and writing): the serial part.
    std::uint64_t main_line_ns = 0;
    /// parallel: CPU time of that thread decoding regions no worker had (ISA-L), which it
    /// does only while the workers are busy: parallel work, not in main_line_ns.
    std::uint64_t main_line_decode_ns = 0;
    std::uint64_t workers_ns = 0;       ///< CPU time of the workers' decoding, all together
    std::uint64_t wall_ns = 0;
};

}  // namespace flowdeflate
