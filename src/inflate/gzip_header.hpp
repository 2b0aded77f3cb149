// gzip_header.hpp - the gzip and zlib member headers, read a byte at a time.
//
// A streaming decoder sees a header in whatever pieces the input arrives in, so the parser
// is a small state machine fed one byte at a time: it stores nothing but counters, whatever
// the length of the name, comment or extra field.  It accepts exactly what libdeflate's
// libdeflate_gzip_decompress_ex() and libdeflate_zlib_decompress_ex() accept (RFC 1952 /
// RFC 1950):
//   gzip: ID1 ID2 = 1f 8b, CM = 8, no reserved FLG bit; MTIME, XFL and OS are skipped; the
//         optional extra field, name, comment and header CRC are skipped, the header CRC
//         is not checked (libdeflate does not check it either).
//   zlib: CMF/FLG divisible by 31, CM = 8, CINFO <= 7 (a 32 KiB window), no preset
//         dictionary.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "flowdeflate/core.hpp"

namespace flowdeflate::inflate {

enum class HeaderStatus { need_more, done, invalid };

class GzipHeaderParser {
public:
    HeaderStatus feed(std::uint8_t b) {
        const std::uint64_t i = seen_++;
        switch (stage_) {
            case Stage::fixed: return fixed_byte(i, b);
            case Stage::extra_len:
                count_ |= std::uint32_t(b) << (8 * (i - kFixedSize));
                if (i == kFixedSize) return HeaderStatus::need_more;
                return count_ == 0 ? enter(after_extra()) : enter(Stage::extra);
            case Stage::extra: return --count_ == 0 ? enter(after_extra()) : HeaderStatus::need_more;
            case Stage::name: return b == 0 ? enter(after_name()) : HeaderStatus::need_more;
            case Stage::comment: return b == 0 ? enter(after_comment()) : HeaderStatus::need_more;
            case Stage::header_crc: return --count_ == 0 ? enter(Stage::done) : HeaderStatus::need_more;
            case Stage::done: break;
        }
        return HeaderStatus::done;
    }
    /// Bytes of this header seen so far (0: nothing of a member has arrived).
    [[nodiscard]] std::uint64_t seen() const noexcept { return seen_; }
    void reset() { *this = GzipHeaderParser{}; }

private:
    // The optional parts, in the order RFC 1952 stores them.
    enum class Stage { fixed, extra_len, extra, name, comment, header_crc, done };
    static constexpr std::uint8_t kHeaderCrc = 0x02, kExtra = 0x04, kName = 0x08, kComment = 0x10, kReserved = 0xe0;
    static constexpr std::uint64_t kFixedSize = 10;

    HeaderStatus fixed_byte(std::uint64_t i, std::uint8_t b) {
        if ((i == 0 && b != 0x1f) || (i == 1 && b != 0x8b) || (i == 2 && b != 8)) return HeaderStatus::invalid;
        if (i == 3) {
            if (b & kReserved) return HeaderStatus::invalid;
            flags_ = b;
        }
        if (i + 1 < kFixedSize) return HeaderStatus::need_more;
        return enter((flags_ & kExtra) ? Stage::extra_len : after_extra());
    }
    [[nodiscard]] Stage after_extra() const { return (flags_ & kName) ? Stage::name : after_name(); }
    [[nodiscard]] Stage after_name() const { return (flags_ & kComment) ? Stage::comment : after_comment(); }
    [[nodiscard]] Stage after_comment() const { return (flags_ & kHeaderCrc) ? Stage::header_crc : Stage::done; }
    HeaderStatus enter(Stage s) {
        stage_ = s;
        if (s == Stage::header_crc) count_ = 2;  // the extra field's count_ carries over
        return s == Stage::done ? HeaderStatus::done : HeaderStatus::need_more;
    }

    Stage stage_ = Stage::fixed;
    std::uint8_t flags_ = 0;
    std::uint32_t count_ = 0;
    std::uint64_t seen_ = 0;
};

inline const char* format_name(Format f) { return f == Format::gzip ? "gzip" : f == Format::zlib ? "zlib" : "DEFLATE"; }

/// The error for data that is not a valid stream of format @p f, after @p members whole
/// members (streams) were decoded: one wording for every decoder.
[[noreturn]] inline void throw_corrupt(Format f, std::uint64_t members) {
    if (members != 0) throw Error("corrupt or truncated data after member end");
    throw Error(std::string("not in ") + format_name(f) + " format, or corrupt or truncated");
}

/// The byte after the gzip member header that starts at @p pos of @p in (the member's
/// DEFLATE data); throws as throw_corrupt() when there is none.
inline std::size_t gzip_header_end(std::span<const std::uint8_t> in, std::size_t pos, std::uint64_t members) {
    GzipHeaderParser header;
    for (std::size_t i = pos; i < in.size(); ++i) switch (header.feed(in[i])) {
            case HeaderStatus::need_more: break;
            case HeaderStatus::invalid: throw_corrupt(Format::gzip, members);
            case HeaderStatus::done: return i + 1;
        }
    throw_corrupt(Format::gzip, members);
}

/// The two bytes of a zlib header, checked as libdeflate checks them.
inline bool zlib_header_ok(std::uint8_t cmf, std::uint8_t flg) {
    const unsigned hdr = unsigned(cmf) << 8 | flg;
    return hdr % 31 == 0 && (cmf & 0x0f) == 8 && (cmf >> 4) <= 7 && !(flg & 0x20);
}

}  // namespace flowdeflate::inflate
