// graph_options.cpp - see graph_options.hpp.
#include "graph/graph_options.hpp"

#include "core/levels.hpp"
#include "parallel/chunker.hpp"

namespace flowdeflate::graph {

std::uint64_t Probe::progress() const {
    return chunks_in + chunks_searched + chunks_resolved + blocks_coded + blocks_assembled + segments_out;
}

std::string Probe::dump() const {
    return "chunks in " + std::to_string(chunks_in) + ", searched " + std::to_string(chunks_searched) +
           ", resolved " + std::to_string(chunks_resolved) + "; blocks coded " + std::to_string(blocks_coded) +
           ", assembled " + std::to_string(blocks_assembled) + "; output segments " + std::to_string(segments_out);
}

bool searches_ahead(const Options& options) {
    return !options.sequential && core::LevelParams::for_level(options.level).parser == core::ParserKind::near_optimal;
}

std::size_t ParallelShape::slack() const {
    return (std::size_t(ahead) + 3) * chunk_size + core::kSoftMaxBlockLength + core::kMinBlockLength +
           parallel::chunk_lookahead(chunk_size);
}

ParallelShape parallel_shape(const GraphOptions& options, int threads) {
    options.validate();
    if (!core::level_is_parallel(options.level)) throw Error("the parallel graph covers levels 1-9");
    ParallelShape s;
    s.threads = threads;
    s.chunk_size = options.chunk();
    s.ahead = options.ahead > 0 ? options.ahead : s.threads + 4;
    s.ring = options.ring;
    s.search_concurrency = options.search_concurrency > 0 ? options.search_concurrency : s.threads;
    s.code_concurrency = options.code_concurrency > 0 ? options.code_concurrency : s.threads;
    return s;
}

}  // namespace flowdeflate::graph
