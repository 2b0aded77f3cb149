// framing.hpp - the gzip (RFC 1952) and zlib (RFC 1950) header, check value and trailer,
// as libdeflate writes them: Framing is the one piece that writes them, for the
// sequential compressor (whole buffers and streams) and the parallel graph's Assemble.
#pragma once

#include <libdeflate.h>

#include <cstdint>
#include <cstring>
#include <span>

#include "core/deflate_format.hpp"
#include "flowdeflate/core.hpp"

namespace flowdeflate::core {
inline constexpr std::size_t kGzipHeaderSize = 10;
inline constexpr std::size_t kGzipFooterSize = 8;
inline constexpr std::size_t kZlibHeaderSize = 2;
inline constexpr std::size_t kZlibFooterSize = 4;

// ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL OS=255 (unknown), as libdeflate writes them.
inline void gzip_header(int level, u8 out[kGzipHeaderSize]) {
    const u8 xfl = level < 2 ? 4 : level >= 8 ? 2 : 0;
    const u8 header[kGzipHeaderSize] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 0xff};
    std::memcpy(out, header, kGzipHeaderSize);
}

inline void zlib_header(int level, u8 out[kZlibHeaderSize]) {
    const u32 level_hint = level < 2 ? 0 : level < 6 ? 1 : level < 8 ? 2 : 3;
    u32 hdr = (8u << 8) | (7u << 12) | (level_hint << 6);
    hdr |= 31 - (hdr % 31);
    out[0] = u8(hdr >> 8);
    out[1] = u8(hdr);
}

inline void put_be32(u8* p, u32 v) {
    p[0] = u8(v >> 24);
    p[1] = u8(v >> 16);
    p[2] = u8(v >> 8);
    p[3] = u8(v);
}

inline void put_le32(u8* p, u32 v) {
    p[0] = u8(v);
    p[1] = u8(v >> 8);
    p[2] = u8(v >> 16);
    p[3] = u8(v >> 24);
}

/// The gzip trailer's fields as they are read back (the decompressor's side of put_le32).
inline u32 get_le32(const u8* p) { return u32(p[0]) | u32(p[1]) << 8 | u32(p[2]) << 16 | u32(p[3]) << 24; }

/// A stream's framing: its header, the running check value and size of what it frames
/// (CRC-32 and ISIZE for gzip, Adler-32 for zlib), and its trailer.  Raw DEFLATE has none.
class Framing {
public:
    static constexpr std::size_t kMaxSize = kGzipHeaderSize;  ///< the longest header or trailer

    Framing(Format format, int level) : format_(format), level_(level) {}

    /// Header plus trailer bytes for @p format.
    [[nodiscard]] static constexpr std::size_t overhead(Format format) {
        return format == Format::gzip   ? kGzipHeaderSize + kGzipFooterSize
               : format == Format::zlib ? kZlibHeaderSize + kZlibFooterSize
                                        : 0;
    }
    [[nodiscard]] std::size_t header_size() const {
        return format_ == Format::gzip ? kGzipHeaderSize : format_ == Format::zlib ? kZlibHeaderSize : 0;
    }

    /// Writes the header to @p out (kMaxSize bytes of room); returns its size.
    std::size_t header(u8* out) const {
        if (format_ == Format::gzip) gzip_header(level_, out);
        if (format_ == Format::zlib) zlib_header(level_, out);
        return header_size();
    }
    /// Adds @p data, the next input the stream holds, to the check value and size.
    void account(std::span<const u8> data) {
        if (format_ == Format::gzip)
            crc_ = u32(libdeflate_crc32(crc_, data.data(), data.size()));
        else if (format_ == Format::zlib)
            adler_ = u32(libdeflate_adler32(adler_, data.data(), data.size()));
        size_ += data.size();
    }
    /// Writes the trailer for everything accounted to @p out (kMaxSize bytes of room);
    /// returns its size.
    std::size_t trailer(u8* out) const {
        if (format_ == Format::gzip) {
            put_le32(out, crc_);
            put_le32(out + 4, u32(size_));  // ISIZE: the size modulo 2^32
            return kGzipFooterSize;
        }
        if (format_ == Format::zlib) {
            put_be32(out, adler_);
            return kZlibFooterSize;
        }
        return 0;
    }
    /// The input accounted so far.
    [[nodiscard]] std::uint64_t size() const { return size_; }

private:
    Format format_;
    int level_;
    u32 crc_ = 0, adler_ = 1;
    std::uint64_t size_ = 0;
};

}  // namespace flowdeflate::core
