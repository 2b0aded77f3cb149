// tests/support/test_data.hpp - deterministic test inputs for differential tests and
// benchmarks.
//
// Every generator is a pure function of its arguments: the same (n, seed) gives the same
// bytes on every run and machine (the generators use their own SplitMix64 stream and never
// std::*_distribution, whose output is implementation-defined).  Generators that build a
// stream sequentially return prefixes of each other: text_like(1000, s) is the first 1000
// bytes of text_like(2000, s), which suits size-boundary tests.
//
// real_files() picks real files from /usr/share and /usr/lib (documentation, shared
// libraries, images, compressed archives, man pages, Python sources, ...) by a sorted,
// symlink-free walk, so its choice depends only on the machine's file tree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string_view>
#include <vector>

namespace flowdeflate::testing {

using Bytes = std::vector<std::uint8_t>;

/// SplitMix64: tiny, fast, fully specified.  Used by all generators.
class Rng {
public:
    explicit Rng(std::uint64_t seed) noexcept : state_(seed) {}
    std::uint64_t next() noexcept {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    /// Uniform in [0, n); n == 0 returns 0.
    std::uint64_t below(std::uint64_t n) noexcept {
        if (n == 0) return 0;
        return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
    }
    /// Uniform in [lo, hi] (inclusive).
    std::uint64_t range(std::uint64_t lo, std::uint64_t hi) noexcept {
        return lo + below(hi - lo + 1);
    }
    /// True with probability num/den.
    bool chance(std::uint64_t num, std::uint64_t den) noexcept { return below(den) < num; }

private:
    std::uint64_t state_;
};

/// n zero bytes.
Bytes zeros(std::size_t n);
/// Runs of one byte value (lengths from 1 up to tens of thousands, many longer than 258)
/// interleaved with short repeated patterns of period 2..4 and a little literal noise.
Bytes runs(std::size_t n, std::uint64_t seed = 1);
/// Uniformly random bytes (incompressible: libdeflate emits stored blocks).
Bytes random_bytes(std::size_t n, std::uint64_t seed);
/// English-like prose: Zipf-ish words from a fixed list, capitalised sentences,
/// punctuation, ~72-column lines and blank lines between paragraphs.
Bytes text_like(std::size_t n, std::uint64_t seed);
/// C-like source: functions with identifiers, keywords, numbers, comments, nested braces
/// and four-space indentation.
Bytes source_like(std::size_t n, std::uint64_t seed);
/// i.i.d. symbols from an alphabet of @p alphabet_size letters (clamped to 1..26) starting
/// at 'a', with a mildly skewed (linear) distribution.
Bytes few_symbols(std::size_t n, unsigned alphabet_size, std::uint64_t seed);
/// DNA-like 'ACGT' text: random bases plus copies of earlier stretches with point
/// mutations, broken into 60-column lines.
Bytes dna(std::size_t n, std::uint64_t seed);
/// Little-endian fixed-size records (ids, counters, small floats, short names): typical
/// binary table data.
Bytes binary_records(std::size_t n, std::uint64_t seed);
/// Alternates every 64 KiB between random bytes and highly repetitive data.
Bytes switching(std::size_t n, std::uint64_t seed);
/// Chunks of 8..192 KiB of different kinds (text, source, random, zeros, runs, few-symbol,
/// DNA, binary records) back to back, so that block splitting triggers.
Bytes mixed(std::size_t n, std::uint64_t seed);

/// The generators above as an enumeration, for randomised tests.
enum class Kind { zeros, runs, random, text, source, few_symbols, dna, binary, switching, mixed };
inline constexpr Kind kAllKinds[] = {Kind::zeros, Kind::runs,        Kind::random, Kind::text,
                                     Kind::source, Kind::few_symbols, Kind::dna,    Kind::binary,
                                     Kind::switching, Kind::mixed};
std::string_view kind_name(Kind k) noexcept;
/// Calls the generator for @p k; few_symbols takes its alphabet size (2..8) from the seed.
Bytes generate(Kind k, std::size_t n, std::uint64_t seed);

/// Up to @p max_files varied, readable, non-empty regular files of at most @p max_bytes
/// bytes each from /usr/share and /usr/lib, sorted-walk deterministic, spread over
/// categories (text docs, man pages, shared libraries, images, compressed files, Python
/// sources and bytecode, markup, Perl, locale catalogues, fonts, headers, object files).
/// Returns an empty vector when nothing suitable exists.  Walks about 10^5 entries (well
/// under a second when the tree is cached); cache the result if you call it often.
std::vector<std::filesystem::path> real_files(std::size_t max_files, std::size_t max_bytes);

/// The first @p max_bytes bytes of @p path (all of it by default).  Throws
/// std::runtime_error when the file cannot be opened or read.
Bytes read_file(const std::filesystem::path& path,
                std::size_t max_bytes = std::numeric_limits<std::size_t>::max());

/// A fresh directory under /tmp, removed with everything in it when this goes.
struct TempDir {
    std::filesystem::path path;
    explicit TempDir(const char* tag = "test");
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

}  // namespace flowdeflate::testing
