// options.cpp - Options::validate(): the one place that says what each option allows
// (the command line reports these messages as they are).
#include <string>

#include "flowdeflate/options.hpp"

#include "core/levels.hpp"

namespace flowdeflate {

namespace {
constexpr int kMaxThreads = 4096;
constexpr std::size_t kMaxChunk = std::size_t(1) << 30;
constexpr int kMaxAhead = 1 << 16;
constexpr int kMaxRing = 1 << 20;

void check(bool ok, const std::string& message) {
    if (!ok) throw Error(message);
}
}  // namespace

bool Options::parallel() const noexcept { return !sequential && core::level_is_parallel(level); }

void Options::validate() const {
    check(level >= kMinLevel && level <= kMaxLevel,
          "compression level " + std::to_string(level) + " is not allowed (0..12)");
    check(format == Format::gzip || format == Format::zlib || format == Format::deflate,
          "unknown format (gzip, zlib or deflate)");
    check(threads >= 0 && threads <= kMaxThreads,
          "thread count " + std::to_string(threads) + " is not allowed (1.." + std::to_string(kMaxThreads) +
              ", or 0 for all cores)");
    check(chunk_size >= 4096 && chunk_size <= kMaxChunk,
          "chunk size " + std::to_string(chunk_size) + " is not allowed (4096 bytes .. 1 GiB)");
    check(ahead >= 0 && ahead <= kMaxAhead,
          "--ahead " + std::to_string(ahead) + " is not allowed (1.." + std::to_string(kMaxAhead) +
              ", or 0 for threads + 4)");
    check(ring >= 1 && ring <= kMaxRing,
          "--ring " + std::to_string(ring) + " is not allowed (1.." + std::to_string(kMaxRing) + ")");
    check(tracks == Tracks::automatic || tracks == Tracks::history || tracks == Tracks::all,
          "unknown track mode (auto, history or all)");
    check(search_concurrency >= 0 && search_concurrency <= kMaxThreads,
          "search concurrency " + std::to_string(search_concurrency) + " is not allowed (1.." +
              std::to_string(kMaxThreads) + ", or 0 for the thread count)");
    check(code_concurrency >= 0 && code_concurrency <= kMaxThreads,
          "code concurrency " + std::to_string(code_concurrency) + " is not allowed (1.." +
              std::to_string(kMaxThreads) + ", or 0 for the thread count)");
}

}  // namespace flowdeflate
