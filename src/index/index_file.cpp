// index_file.cpp - the two on-disk index formats (flowdeflate/index.hpp).
//
// Both store a point as (in, bits): `in` the first whole byte after the boundary, `bits`
// how many high bits of byte in - 1 belong to the block (zlib's "unused bits" once it has
// stopped there), so a point at bit P is in = ceil(P / 8), bits = (8 - P % 8) % 8, and
// P = 8 in - bits.  Layouts as gztool 1.5 and indexed_gzip 1.7 write and read them:
//
// gztool (.gzi), every integer big-endian:
//   u64 0, "gzipindx" (v0) | "gzipindX" + u32 line-ending kind (v1, with line numbers),
//   u64 points, u64 points (equal once the index is complete),
//   per point: u64 out, u64 in, u32 bits, u32 window bytes W, W bytes: the window as a zlib
//              stream (empty: no window), [v1: u64 line number],
//   u64 uncompressed size, [v1: u64 lines].
//   We write v0 (gztool reads both); no point past the last block (gztool would start an
//   extraction of the file's end there and fail).
// indexed_gzip (GZIDX), every integer little-endian:
//   "GZIDX", u8 version (1; 0 before indexed_gzip 1.6), u8 flags, u64 compressed size (the
//   file's exact size: the importer refuses any other), u64 uncompressed size, u32 spacing,
//   u32 window size (32768), u32 points,
//   per point: u64 compressed offset, u64 uncompressed offset, u8 bits, [v1: u8 has window],
//   then the windows of the points that have one, window-size bytes each, raw; a shorter
//   history (near a member's start) right-aligned behind zeros.
//   A point without a window is a member's start (v0: the first point only).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "flowdeflate/compress.hpp"
#include "flowdeflate/index.hpp"
#include "io/fd.hpp"
#include "io/fd_io.hpp"
#include "io/file_output.hpp"
#include "index/windows.hpp"

namespace flowdeflate {
namespace {

constexpr char kGztoolMagic[] = "gzipindx";    // v0; v1 ends in 'X'
constexpr char kIndexedGzipMagic[] = "GZIDX";
constexpr std::uint32_t kIndexedGzipWindow = 32768;
constexpr std::size_t kGztoolHeader = 16;
constexpr std::size_t kIndexedGzipHeader = 35;

[[noreturn]] void bad_index(const std::string& what) { throw IndexError("invalid index: " + what); }

// ---- writing ---------------------------------------------------------------------------

class Writer {
public:
    explicit Writer(bool big_endian) : big_(big_endian) {}
    void bytes(const void* p, std::size_t n) {
        if (n == 0) return;
        const auto* b = static_cast<const std::uint8_t*>(p);
        out_.insert(out_.end(), b, b + n);
    }
    void u8(std::uint8_t v) { out_.push_back(v); }
    void u32(std::uint32_t v) { integer(v, 4); }
    void u64(std::uint64_t v) { integer(v, 8); }
    Bytes take() { return std::move(out_); }

private:
    void integer(std::uint64_t v, int n) {
        for (int i = 0; i < n; ++i) out_.push_back(std::uint8_t(v >> 8 * (big_ ? n - 1 - i : i)));
    }
    bool big_;
    Bytes out_;
};

std::uint64_t byte_of(const SeekPoint& p) { return (p.compressed_bit + 7) / 8; }
std::uint8_t bits_of(const SeekPoint& p) { return std::uint8_t((8 - p.compressed_bit % 8) % 8); }

Bytes write_gztool(const Index& index) {
    Writer w(true);
    w.u64(0);
    w.bytes(kGztoolMagic, 8);
    w.u64(index.points.size());
    w.u64(index.points.size());
    Compressor zlib(6);  // gztool's own choice (any level reads back)
    for (const SeekPoint& p : index.points) {
        w.u64(p.uncompressed);
        w.u64(byte_of(p));
        w.u32(bits_of(p));
        if (!p.packed_window.empty()) {  // (as read from a gztool index)
            w.u32(std::uint32_t(p.packed_window.size()));
            w.bytes(p.packed_window.data(), p.packed_window.size());
            continue;
        }
        if (p.window.empty()) {
            w.u32(0);
            continue;
        }
        const Bytes packed = zlib.compress(p.window, Format::zlib);
        w.u32(std::uint32_t(packed.size()));
        w.bytes(packed.data(), packed.size());
    }
    w.u64(index.uncompressed_size);
    return w.take();
}

Bytes write_indexed_gzip(const Index& index) {
    Writer w(false);
    w.bytes(kIndexedGzipMagic, 5);
    w.u8(1);
    w.u8(0);
    w.u64(index.compressed_size);
    w.u64(index.uncompressed_size);
    // The importer wants spacing >= the window size; it only guides indexed_gzip's own
    // further points.
    std::uint64_t spacing = kDefaultIndexSpan;
    if (index.points.size() > 1) spacing = index.points[1].uncompressed - index.points[0].uncompressed;
    w.u32(std::uint32_t(std::clamp<std::uint64_t>(spacing, 2 * kIndexedGzipWindow, UINT32_MAX)));
    w.u32(kIndexedGzipWindow);
    if (index.points.size() > UINT32_MAX) throw Error("index has too many points for indexed_gzip's format");
    w.u32(std::uint32_t(index.points.size()));
    // Packed windows (as read from a gztool index) inflated: whether a point has a window
    // is decided by its bytes.
    std::vector<Bytes> inflated(index.points.size());
    {
        index::WindowInflater inflater;
        for (std::size_t i = 0; i < index.points.size(); ++i)
            if (!index.points[i].packed_window.empty()) inflater.inflate(index.points[i].packed_window, inflated[i], i);
    }
    const auto window = [&](std::size_t i) -> std::span<const std::uint8_t> {
        return index.points[i].packed_window.empty() ? std::span<const std::uint8_t>(index.points[i].window)
                                                     : std::span<const std::uint8_t>(inflated[i]);
    };
    // A point with bits > 0 is primed only when it has a window (indexed_gzip): only a
    // member's start (byte-aligned, nothing before it) goes without.
    const auto windowless = [&](std::size_t i) { return window(i).empty() && bits_of(index.points[i]) == 0; };
    for (std::size_t i = 0; i < index.points.size(); ++i) {
        const SeekPoint& p = index.points[i];
        w.u64(byte_of(p));
        w.u64(p.uncompressed);
        w.u8(bits_of(p));
        w.u8(windowless(i) ? 0 : 1);
    }
    const Bytes zeros(kIndexedGzipWindow, 0);
    for (std::size_t i = 0; i < index.points.size(); ++i) {
        if (windowless(i)) continue;
        w.bytes(zeros.data(), kIndexedGzipWindow - window(i).size());
        w.bytes(window(i).data(), window(i).size());
    }
    return w.take();
}

// ---- reading ---------------------------------------------------------------------------

class Reader {
public:
    Reader(std::span<const std::uint8_t> in, bool big_endian) : in_(in), big_(big_endian) {}
    std::span<const std::uint8_t> bytes(std::uint64_t n, const char* what) {
        if (n > in_.size() - pos_) bad_index(std::string("truncated (in ") + what + ")");
        const auto s = in_.subspan(pos_, std::size_t(n));
        pos_ += std::size_t(n);
        return s;
    }
    std::uint8_t u8(const char* what) { return bytes(1, what)[0]; }
    std::uint32_t u32(const char* what) { return std::uint32_t(integer(4, what)); }
    std::uint64_t u64(const char* what) { return integer(8, what); }
    [[nodiscard]] std::size_t left() const { return in_.size() - pos_; }

private:
    std::uint64_t integer(int n, const char* what) {
        const auto b = bytes(std::uint64_t(n), what);
        std::uint64_t v = 0;
        for (int i = 0; i < n; ++i) v |= std::uint64_t(b[std::size_t(i)]) << 8 * (big_ ? n - 1 - i : i);
        return v;
    }
    std::span<const std::uint8_t> in_;
    bool big_;
    std::size_t pos_ = 0;
};

std::uint64_t point_bit(std::uint64_t byte, std::uint32_t bits, std::size_t i) {
    if (bits > 7) bad_index("point " + std::to_string(i) + " has " + std::to_string(bits) + " bits (at most 7)");
    if (byte == 0 && bits != 0) bad_index("point " + std::to_string(i) + " lies before the file");
    return 8 * byte - bits;
}

void check_order(const Index& index) {
    for (std::size_t i = 1; i < index.points.size(); ++i) {
        const SeekPoint &a = index.points[i - 1], &b = index.points[i];
        if (b.compressed_bit <= a.compressed_bit || b.uncompressed < a.uncompressed)
            bad_index("points " + std::to_string(i - 1) + " and " + std::to_string(i) + " are out of order");
    }
    for (std::size_t i = 0; i < index.points.size(); ++i)
        if (index.points[i].uncompressed > index.uncompressed_size && index.uncompressed_size != 0)
            bad_index("point " + std::to_string(i) + " lies past the uncompressed size");
}

Index read_gztool(std::span<const std::uint8_t> in, IndexWindows windows) {
    Reader r(in, true);
    r.bytes(8, "header");
    const bool lines = r.bytes(8, "header")[7] == 'X';
    if (lines) r.u32("header");
    const std::uint64_t have = r.u64("header"), size = r.u64("header");
    if (have != size) bad_index("gztool index is incomplete (" + std::to_string(have) + " of " +
                                (size == UINT64_MAX ? std::string("?") : std::to_string(size)) + " points)");
    Index index;
    const bool inflated = windows == IndexWindows::inflated;
    std::optional<index::WindowInflater> inflater;
    if (inflated) inflater.emplace();
    for (std::uint64_t i = 0; i < have; ++i) {
        SeekPoint p;
        p.uncompressed = r.u64("a point");
        const std::uint64_t byte = r.u64("a point");
        const std::uint32_t bits = r.u32("a point");
        p.compressed_bit = point_bit(byte, bits, std::size_t(i));
        const std::uint32_t packed = r.u32("a point");
        if (packed) {
            const std::span<const std::uint8_t> zlib = r.bytes(packed, "a window");
            if (inflated)
                inflater->inflate(zlib, p.window, std::size_t(i));
            else
                p.packed_window.assign(zlib.begin(), zlib.end());
        }
        if (lines) r.u64("a point");
        index.points.push_back(std::move(p));
    }
    index.uncompressed_size = r.u64("the uncompressed size");
    index.complete = true;  // (gztool does not store the compressed size: 0)
    check_order(index);
    return index;
}

Index read_indexed_gzip(std::span<const std::uint8_t> in) {
    Reader r(in, false);
    r.bytes(5, "header");
    const std::uint8_t version = r.u8("header");
    if (version > 1) bad_index("indexed_gzip index version " + std::to_string(version) + " (this program reads 0 and 1)");
    r.u8("header");
    Index index;
    index.compressed_size = r.u64("header");
    index.uncompressed_size = r.u64("header");
    r.u32("header");  // spacing
    const std::uint32_t window = r.u32("header");
    if (window < kIndexedGzipWindow) bad_index("indexed_gzip window size " + std::to_string(window) + " (at least 32768)");
    const std::uint32_t n = r.u32("header");
    std::vector<bool> has_window;
    for (std::uint32_t i = 0; i < n; ++i) {
        SeekPoint p;
        const std::uint64_t byte = r.u64("a point");
        p.uncompressed = r.u64("a point");
        const std::uint8_t bits = r.u8("a point");
        p.compressed_bit = point_bit(byte, bits, i);
        has_window.push_back(version >= 1 ? r.u8("a point") != 0 : i != 0);
        if (!has_window.back() && bits != 0) bad_index("point " + std::to_string(i) + " has bits but no window");
        index.points.push_back(std::move(p));
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        if (!has_window[i]) continue;
        const auto w = r.bytes(window, "a window").last(kWindowSize);
        // A window as long as the uncompressed data before the point, at most 32 KiB
        // (the zeros in front of a shorter history are not data).
        const std::size_t len = std::size_t(std::min<std::uint64_t>(kWindowSize, index.points[i].uncompressed));
        index.points[i].window.assign(w.end() - std::ptrdiff_t(len), w.end());
    }
    // indexed_gzip ends with a point at the end of the file (past the last trailer): no
    // block starts there.
    while (!index.points.empty() && index.compressed_size != 0 &&
           index.points.back().compressed_bit >= 8 * index.compressed_size)
        index.points.pop_back();
    index.complete = true;
    check_order(index);
    return index;
}

}  // namespace

Bytes write_index(const Index& index, IndexFormat format) {
    if (!index.complete) throw Error("the index is not complete (the compression or decompression did not finish)");
    return format == IndexFormat::gztool ? write_gztool(index) : write_indexed_gzip(index);
}

Index read_index(std::span<const std::uint8_t> bytes, IndexWindows windows) {
    if (bytes.size() >= kGztoolHeader && std::all_of(bytes.begin(), bytes.begin() + 8, [](auto b) { return b == 0; }) &&
        (std::memcmp(bytes.data() + 8, kGztoolMagic, 8) == 0 || std::memcmp(bytes.data() + 8, "gzipindX", 8) == 0))
        return read_gztool(bytes, windows);
    if (bytes.size() >= 5 && std::memcmp(bytes.data(), kIndexedGzipMagic, 5) == 0) {
        if (bytes.size() < kIndexedGzipHeader) bad_index("truncated (in header)");
        return read_indexed_gzip(bytes);
    }
    bad_index("neither a gztool index (.gzi) nor an indexed_gzip one (GZIDX)");
}

void write_index_file(const Index& index, IndexFormat format, const std::filesystem::path& path) {
    const Bytes bytes = write_index(index, format);
    io::FileOutput out(path, 0666);
    if (!io::write_all(out.fd(), bytes.data(), bytes.size())) throw Error(io::write_error_text(path.string()));
    out.commit();
}

Index read_index_file(const std::filesystem::path& path, IndexWindows windows) {
    io::Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) throw Error(path.string() + ": " + std::strerror(errno));
    Bytes bytes;
    if (!io::read_all(fd.get(), bytes)) throw Error(io::read_error_text(path.string()));
    try {
        return read_index(bytes, windows);
    } catch (const Error& e) {
        throw IndexError(path.string() + ": " + e.what());
    }
}

}  // namespace flowdeflate
