// flowdeflate/core.hpp - the compressor core's public surface: formats, levels, the
// vocabulary every call speaks (Bytes, Sink, Result), the error type, and a one-thread
// Compressor that needs no TBB.
//
// flowdeflate writes, byte for byte, the DEFLATE / zlib / gzip streams that libdeflate
// (1.19 and newer) writes at the same compression level.  The parallel and streaming calls
// are in compress.hpp; flowdeflate.hpp includes everything.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <vector>

namespace flowdeflate {

/// Container around the DEFLATE stream.
enum class Format {
    deflate,  ///< raw DEFLATE (RFC 1951)
    zlib,     ///< zlib wrapper (RFC 1950), Adler-32 trailer
    gzip,     ///< gzip wrapper (RFC 1952) exactly as libdeflate writes it
};

/// Which tracks a chunk's speculative search parses (the parallel graph, levels 1-9).
enum class Tracks {
    automatic,  ///< the history track; after a min-length miss, branches for the recent min
                ///< lengths (until 8 chunks resolve without a miss) while the resolver is the
                ///< bottleneck
    history,    ///< the history track only (least search work, most repairs)
    all,        ///< the history track and its branches for the two most recent min lengths:
                ///< where one of them makes another step, its parse until it meets the track
                ///< again (fewest repairs, +18-35% search at level 6)
};

inline constexpr int kMinLevel = 0;
inline constexpr int kMaxLevel = 12;
/// The smallest chunk (Options::chunk_size) the parallel search takes: a chunk's tracks
/// run up to 4 KiB past its end, and the chunk must hold more than its own overlap.
inline constexpr std::size_t kMinChunkSize = 4096;
inline constexpr int kDefaultLevel = 6;

// ---- the calls' vocabulary ----------------------------------------------------------------

using Bytes = std::vector<std::uint8_t>;
/// Receives output in order; the span is valid only during the call.
using Sink = std::function<void(std::span<const std::uint8_t>)>;

/// A Sink that copies into an output iterator (for example std::back_inserter(v)).
template <class OutputIt>
Sink iterator_sink(OutputIt it) {
    return [it](std::span<const std::uint8_t> bytes) mutable { it = std::copy(bytes.begin(), bytes.end(), it); };
}

/// What a call did.
struct Result {
    std::uint64_t in_bytes = 0;
    std::uint64_t out_bytes = 0;
};

/// Every failure the library reports is a flowdeflate::Error (or derived from it): invalid
/// options, unreadable input, a failed write, corrupt compressed data.  what() is a
/// message for a person, naming the file where there is one.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The caller cancelled the call (its stop token or its task_group_context).
class Cancelled : public Error {
public:
    using Error::Error;
};

namespace core { class DeflateCompressor; }

/// A reusable one-shot compressor for one level.  It owns all scratch memory (allocated
/// once, in the constructor), so repeated calls allocate nothing per block.  Not
/// thread-safe: use one object per thread.
class Compressor {
public:
    explicit Compressor(int level);
    ~Compressor();
    Compressor(Compressor&&) noexcept;
    Compressor& operator=(Compressor&&) noexcept;
    Compressor(const Compressor&) = delete;
    Compressor& operator=(const Compressor&) = delete;

    [[nodiscard]] int level() const noexcept;

    /// Worst-case compressed size of @p in_size bytes in @p format (same bound as
    /// libdeflate's *_compress_bound()).
    [[nodiscard]] static std::size_t bound(std::size_t in_size, Format format) noexcept;

    /// Compresses @p in into @p out.  Returns the number of bytes written, or 0 when the
    /// output does not fit in @p out (as libdeflate does).
    std::size_t compress(std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                         Format format = Format::gzip);

    /// Compresses @p in into a new vector sized exactly to the output.
    [[nodiscard]] std::vector<std::uint8_t> compress(std::span<const std::uint8_t> in,
                                                     Format format = Format::gzip);

private:
    std::unique_ptr<core::DeflateCompressor> impl_;
};

/// The libdeflate version whose output this library reproduces.
inline constexpr const char* kReferenceVersion = "1.19+ (tested against 1.23)";
/// This header's version (the library's own is version()).
inline constexpr const char* kVersion = "0.1.0";

/// The version of the library linked in ("0.1.0").
[[nodiscard]] const char* version() noexcept;
/// The libdeflate versions whose output the linked library reproduces byte for byte.
[[nodiscard]] const char* reference_version() noexcept;

}  // namespace flowdeflate
