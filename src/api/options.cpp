// options.cpp - Options::validate(): the one place that says what each option allows.
// Messages name the Options field, since a library caller sets fields, not flags; the
// command line checks its flags against the same bounds (options.hpp) and names its flags.
#include <string>

#include "flowdeflate/options.hpp"

#include "core/levels.hpp"
#include "graph/threads.hpp"

namespace flowdeflate {

namespace {
void check(bool ok, const char* field, const std::string& value, const std::string& allowed) {
    if (!ok) throw Error(std::string("Options::") + field + " " + value + " is not allowed (" + allowed + ")");
}
}  // namespace

// One thread with automatic tracks goes to the sequential compressor: nothing could run
// beside the resolver, which would then parse every step itself, as the sequential
// compressor does, plus the graph's hand-offs.  The thread count is the one the call will
// run on (graph::thread_count()).  Other track modes keep the parallel graph with one
// thread: they search ahead, which is what they are for.
bool Options::parallel() const noexcept {
    if (sequential || !core::level_is_parallel(level)) return false;
    if (tracks != Tracks::automatic) return true;
    return graph::thread_count(*this) > 1;
}

std::size_t Options::chunk() const noexcept {
    if (chunk_size != 0) return chunk_size;
    // Levels 10-12: the near-optimal parser's search ahead (graph/match_search.hpp).
    const bool near_optimal = core::LevelParams::for_level(level).parser == core::ParserKind::near_optimal;
    return near_optimal ? std::size_t(512) << 10 : std::size_t(1) << 20;
}

void Options::validate() const {
    using std::to_string;
    check(level >= kMinLevel && level <= kMaxLevel, "level", to_string(level),
          to_string(kMinLevel) + ".." + to_string(kMaxLevel));
    check(format == Format::gzip || format == Format::zlib || format == Format::deflate, "format",
          to_string(int(format)), "Format::gzip, zlib or deflate");
    check(threads >= 0 && threads <= kMaxThreads, "threads", to_string(threads),
          "1.." + to_string(kMaxThreads) + ", or 0 for all cores");
    check(chunk_size == 0 || (chunk_size >= kMinChunkSize && chunk_size <= kMaxChunkSize), "chunk_size",
          to_string(chunk_size), to_string(kMinChunkSize) + " bytes .. 1 GiB, or 0 for the level's default");
    check(ahead >= 0 && ahead <= kMaxAhead, "ahead", to_string(ahead),
          "1.." + to_string(kMaxAhead) + ", or 0 for threads + 4");
    check(ring >= 1 && ring <= kMaxRing, "ring", to_string(ring), "1.." + to_string(kMaxRing));
    check(tracks == Tracks::automatic || tracks == Tracks::history || tracks == Tracks::all, "tracks",
          to_string(int(tracks)), "Tracks::automatic, history or all");
    check(search_concurrency >= 0 && search_concurrency <= kMaxThreads, "search_concurrency",
          to_string(search_concurrency), "1.." + to_string(kMaxThreads) + ", or 0 for the thread count");
    check(code_concurrency >= 0 && code_concurrency <= kMaxThreads, "code_concurrency",
          to_string(code_concurrency), "1.." + to_string(kMaxThreads) + ", or 0 for the thread count");
}

}  // namespace flowdeflate
