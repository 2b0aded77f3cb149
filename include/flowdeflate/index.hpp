// flowdeflate/index.hpp - seek points: places in a gzip file where decoding can start
// without what came before, so that any stretch of the uncompressed data can be read
// without decoding the file up to it, and a file can be decoded on many cores.
//
// A seek point is a DEFLATE block boundary: the bit where a block's header starts, the
// number of uncompressed bytes before it, and the (up to) 32 KiB of uncompressed data
// before it that the block's matches may refer to.  The compressor records them while it
// compresses (Options::index), at no change to the compressed bytes; the decompressor can
// record them from any gzip file.  On disk an index is gztool's format (the default) or
// indexed_gzip's; both are read back by read_index().
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "flowdeflate/core.hpp"

namespace flowdeflate {

/// An index that cannot be read, or does not fit the file it is used with.
class IndexError : public Error {
public:
    using Error::Error;
};

/// DEFLATE's window: the most a match may reach back.
inline constexpr std::size_t kWindowSize = 32768;
/// Uncompressed bytes between two seek points unless told otherwise (Options::index_span):
/// indexed_gzip's default; a 32 KiB window per 4 MiB (gztool compresses them) is under 1%
/// of the data, and a file of 40 MB has spans for 8 cores.
inline constexpr std::uint64_t kDefaultIndexSpan = std::uint64_t(4) << 20;

struct SeekPoint {
    /// The bit where the block's header starts, counted from the file's first byte (bit 0
    /// is the least significant bit of byte 0, as DEFLATE counts).
    std::uint64_t compressed_bit = 0;
    /// Uncompressed bytes before the point (of every gzip member before it too).
    std::uint64_t uncompressed = 0;
    /// The uncompressed bytes just before the point, at most kWindowSize: fewer only near
    /// the start of a gzip member, whose matches cannot reach further back.
    Bytes window;
    /// The same bytes as a zlib stream, as a gztool index stores them, where read_index()
    /// was asked to leave them so (IndexWindows::packed; `window` is then empty): decoding
    /// inflates a point's window when it starts there, so an index opens at once however
    /// many points it has.  Empty otherwise.
    Bytes packed_window;
};

/// Receives seek points in order, then the sizes of the whole file.
class IndexSink {
public:
    virtual ~IndexSink() = default;
    virtual void point(SeekPoint&& point) = 0;
    virtual void finish(std::uint64_t compressed_size, std::uint64_t uncompressed_size) = 0;
};

/// An index held in memory: what a compression or decompression call records into, and
/// what read_index() gives back.
struct Index final : IndexSink {
    std::vector<SeekPoint> points;
    std::uint64_t compressed_size = 0;    ///< the gzip file's size in bytes
    std::uint64_t uncompressed_size = 0;  ///< the data's size (all members)
    bool complete = false;                ///< finish() was called (the sizes are known)

    void point(SeekPoint&& p) override { points.push_back(std::move(p)); }
    void finish(std::uint64_t compressed, std::uint64_t uncompressed) override {
        compressed_size = compressed;
        uncompressed_size = uncompressed;
        complete = true;
    }
};

enum class IndexFormat {
    gztool,        ///< gztool's .gzi ("gzipindx"), read by gztool -I
    indexed_gzip,  ///< indexed_gzip's export format ("GZIDX"), read by IndexedGzipFile(index_file=)
};

/// How read_index() gives the windows of a gztool index (zlib streams there).
enum class IndexWindows {
    inflated,  ///< in SeekPoint::window, every one inflated as the index is read
    packed,    ///< in SeekPoint::packed_window, inflated only where decoding starts or
               ///< checks a point (a damaged one is then an IndexError at that point)
};

/// The index file's bytes in @p format.  Throws Error when the index is not complete.
Bytes write_index(const Index& index, IndexFormat format);
/// Reads an index in either format (told apart by its first bytes).  Throws Error naming
/// the problem: not an index, an unknown version, truncated, inconsistent.
Index read_index(std::span<const std::uint8_t> bytes, IndexWindows windows = IndexWindows::inflated);
/// write_index() to a file (written whole, then renamed into place) and read_index() of
/// a file.
void write_index_file(const Index& index, IndexFormat format, const std::filesystem::path& path);
Index read_index_file(const std::filesystem::path& path, IndexWindows windows = IndexWindows::inflated);

/// Random access to a gzip file through its index: any stretch of the data, decoded from
/// the last seek point before it, or from where an earlier read stopped when it starts at
/// or after that in the same span: a file read in pieces one after another is decoded
/// once, and so are up to four such readers taking turns.  The file is mapped (not read)
/// when opened; the index must fit it (IndexError otherwise: its first point, its sizes).
/// read_at() may be called from several threads at once.
class IndexedReader {
public:
    IndexedReader(const std::filesystem::path& gz, Index index);
    /// Opens @p gz with the index file @p index_file (either format; read_index_file() with
    /// IndexWindows::packed: its windows are inflated as reads need them, so an index of
    /// many points opens at once).
    IndexedReader(const std::filesystem::path& gz, const std::filesystem::path& index_file);
    ~IndexedReader();
    IndexedReader(IndexedReader&&) noexcept;
    IndexedReader& operator=(IndexedReader&&) noexcept;

    /// The uncompressed size (all members).
    [[nodiscard]] std::uint64_t size() const noexcept;
    /// Copies the data from @p offset into @p out; returns the bytes copied (fewer only at
    /// the data's end: none from size() on, when the index states a size).  Throws
    /// IndexError where the index and the file disagree, as far as the read decodes.
    std::size_t read_at(std::uint64_t offset, std::span<std::uint8_t> out) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace flowdeflate
