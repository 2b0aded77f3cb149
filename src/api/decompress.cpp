// decompress.cpp - decompression through libdeflate's decompressor, for the library and
// the command line (-d, -t).  A gzip file is decoded member by member; the output buffer
// starts at a guess (the member's ISIZE when it is plausible) and doubles until the member
// fits, because ISIZE is the size modulo 2^32 and means nothing above 4 GiB.
#include <fcntl.h>
#include <libdeflate.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "flowdeflate/compress.hpp"
#include "io/fd.hpp"
#include "io/fd_io.hpp"
#include "io/fd_sink.hpp"
#include "io/file_output.hpp"

namespace flowdeflate {
namespace {

struct FreeDecompressor {
    void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

const char* format_name(Format f) {
    return f == Format::gzip ? "gzip" : f == Format::zlib ? "zlib" : "DEFLATE";
}

// One member (gzip) or the whole stream (zlib, raw DEFLATE).
libdeflate_result decode(libdeflate_decompressor* d, Format f, const std::uint8_t* in, std::size_t n,
                         std::uint8_t* out, std::size_t avail, std::size_t* used, std::size_t* produced) {
    switch (f) {
        case Format::gzip: return libdeflate_gzip_decompress_ex(d, in, n, out, avail, used, produced);
        case Format::zlib: return libdeflate_zlib_decompress_ex(d, in, n, out, avail, used, produced);
        case Format::deflate: return libdeflate_deflate_decompress_ex(d, in, n, out, avail, used, produced);
    }
    return LIBDEFLATE_BAD_DATA;
}

}  // namespace

Result decompress(std::span<const std::uint8_t> in, const Sink& sink, Format format) {
    const std::size_t n = in.size();
    const std::size_t min_size = format == Format::gzip ? 18 : format == Format::zlib ? 6 : 1;
    if (n < min_size) throw Error(std::string("not in ") + format_name(format) + " format (too short)");
    std::unique_ptr<libdeflate_decompressor, FreeDecompressor> d(libdeflate_alloc_decompressor());
    if (!d) throw Error("out of memory");
    Bytes out;
    Result result;
    std::size_t pos = 0;
    while (pos < n) {
        std::size_t guess = 0;
        if (format == Format::gzip) {
            const std::uint8_t* tail = in.data() + n - 4;
            guess = std::size_t(tail[0]) | std::size_t(tail[1]) << 8 | std::size_t(tail[2]) << 16 |
                    std::size_t(tail[3]) << 24;
        }
        // DEFLATE expands at most 1032:1, so a larger size is damage, not a hint.
        const std::size_t most = (n - pos) * 1032 + 1024;
        if (guess > most) guess = (n - pos) * 4;
        guess = std::max<std::size_t>({guess, std::min((n - pos) * 4, most), 1 << 16});
        if (out.size() < guess) out.resize(guess);
        for (;;) {
            std::size_t used = 0, produced = 0;
            const libdeflate_result r = decode(d.get(), format, in.data() + pos, n - pos, out.data(), out.size(), &used, &produced);
            if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
                if (out.size() > (std::size_t(1) << 62)) throw Error("member too large");
                out.resize(out.size() * 2);
                continue;
            }
            if (r != LIBDEFLATE_SUCCESS)
                throw Error(pos == 0 ? std::string("not in ") + format_name(format) + " format, or corrupt or truncated"
                                     : "corrupt or truncated data after member end");
            sink({out.data(), produced});
            result.out_bytes += produced;
            pos += used;
            break;
        }
        // zlib and raw DEFLATE hold one stream; what follows it is not ours to decode.
        if (format != Format::gzip && pos < n) throw Error("trailing data after the end of the stream");
    }
    result.in_bytes = n;
    return result;
}

Bytes decompress(std::span<const std::uint8_t> in, Format format) {
    Bytes out;
    decompress(in, iterator_sink(std::back_inserter(out)), format);
    return out;
}

Result decompress_file(const std::filesystem::path& in, const std::filesystem::path& out, Format format) {
    io::Fd fd(::open(in.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) throw Error(in.string() + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw Error(in.string() + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw Error(in.string() + ": not a regular file");
    Bytes data;
    if (!io::read_all(fd.get(), data)) throw Error(in.string() + ": read error: " + std::strerror(errno));
    io::FileOutput output(out, st.st_mode & 07777);
    Result r;
    try {
        r = decompress(data, io::fd_sink(output.fd(), out.string()), format);
    } catch (const io::WriteError&) {
        throw;
    } catch (const Error& e) {
        throw Error(in.string() + ": " + e.what());
    }
    output.commit();
    return r;
}

}  // namespace flowdeflate
