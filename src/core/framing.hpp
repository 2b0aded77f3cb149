// framing.hpp - the gzip (RFC 1952) and zlib (RFC 1950) header and trailer, as
// libdeflate writes them.  Shared by the sequential and the parallel assembly.
#pragma once

#include <cstring>

#include "core/deflate_format.hpp"

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

}  // namespace flowdeflate::core
