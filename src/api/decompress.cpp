// decompress.cpp - the library's decompression calls (and the command line's -d and -t):
// every one feeds a StreamInflater (src/inflate), so memory stays bounded whatever the
// size of the stream or of its members.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>

#include "flowdeflate/compress.hpp"
#include "core/clock.hpp"
#include "core/framing.hpp"
#include "graph/indexed_inflate.hpp"
#include "graph/parallel_inflate.hpp"
#include "graph/threads.hpp"
#include "index/index_decoders.hpp"
#include "inflate/stream_inflater.hpp"
#include "io/fd.hpp"
#include "io/fd_io.hpp"
#include "io/raw_buffer.hpp"
#include "io/release_behind.hpp"
#include "io/fd_sink.hpp"
#include "io/file_output.hpp"

namespace flowdeflate {
namespace {

// Below this a file decodes on one thread: with fewer than two regions (see
// src/inflate/parallel_line.cpp) no worker would get one.
constexpr off_t kParallelMinBytes = off_t(1) << 20;
// decompress_fd()'s threads when given 0.
constexpr int kDefaultThreads = 8;

// Reads @p fd to its end in pieces of @p piece bytes, feeding @p inflater.
void feed_fd(inflate::StreamInflater& inflater, int fd, const std::string& name, const Sink& sink, std::size_t piece) {
    const io::RawBuffer buf(piece);
    if (!io::read_pieces(fd, buf.span(), [&](std::span<const std::uint8_t> piece) { inflater.feed(piece, sink); }))
        throw Error(io::read_error_text(name));
    inflater.finish(sink);
}

// The file's last trailer says its data is about its size (inflate::looks_stored): the
// one-thread decoder takes it.
bool stored_data(int fd, off_t size, off_t at) {
    std::uint8_t isize[4];
    if (size - at < 4 || ::pread(fd, isize, 4, size - 4) != 4) return false;
    return inflate::looks_stored(std::uint64_t(size - at), core::get_le32(isize));
}

// Maps the regular file @p fd of @p size bytes and calls @p f with its bytes from @p at;
// then the file offset is at its end.  False (nothing called) when it cannot be mapped.
template <class F>
bool with_mapping(int fd, off_t size, off_t at, F&& f) {
    if (size == at) {  // (an empty mapping is refused)
        f(std::span<const std::uint8_t>());
        return true;
    }
    void* map = ::mmap(nullptr, std::size_t(size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) return false;
    struct Unmap {
        void* p;
        std::size_t n;
        ~Unmap() { ::munmap(p, n); }
    } unmap{map, std::size_t(size)};
    f(std::span<const std::uint8_t>(static_cast<const std::uint8_t*>(map), std::size_t(size)).subspan(std::size_t(at)));
    ::lseek(fd, 0, SEEK_END);
    return true;
}

}  // namespace

Result decompress(std::span<const std::uint8_t> in, const Sink& sink, Format format) {
    inflate::StreamInflater inflater(format);
    inflater.feed(in, sink);
    inflater.finish(sink);
    return {inflater.in_bytes(), inflater.out_bytes()};
}

Bytes decompress(std::span<const std::uint8_t> in, Format format) {
    Bytes out;
    // Whole pieces appended (a back_inserter pushed each byte on its own: about a
    // nanosecond a byte, a second per gigabyte; and each seek-index window read).
    decompress(in, [&](std::span<const std::uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); }, format);
    return out;
}

Result decompress_fd(int in_fd, const std::string& in_name, const Sink& sink, Format format, int threads) {
    DecompressOptions d;
    d.format = format;
    d.threads = threads;
    return decompress_fd(in_fd, in_name, sink, d);
}

namespace {

// An index made or used (DecompressOptions): the file mapped whole.
Result decompress_indexed(int in_fd, const std::string& in_name, const Sink& sink, const DecompressOptions& options,
                          int threads, DecompressStats& stats) {
    if (options.format != Format::gzip) throw Error("an index is for gzip files only");
    if (options.range && !options.import_index) throw Error("a range is read with an index (import_index)");
    struct stat st {};
    const off_t at = ::fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode) ? ::lseek(in_fd, 0, SEEK_CUR) : -1;
    if (at < 0 || st.st_size < at) throw Error(in_name + ": an index is made or used for a regular file, not a pipe");
    Result r;
    const bool mapped = with_mapping(in_fd, st.st_size, at, [&](std::span<const std::uint8_t> all) {
        if (options.import_index && options.range) {
            r.in_bytes = all.size();
            r.out_bytes = graph::read_range(all, *options.import_index, options.range_offset, options.range_length, sink,
                                            threads, options.pin_threads, &stats, true);
        } else if (options.import_index) {
            r = graph::indexed_gunzip(all, *options.import_index, sink, threads, &stats, true, options.pin_threads);
        } else {
            stats.decoder = "recording";
            r = index::gunzip_recording(all, sink, *options.export_index, options.index_span);
        }
    });
    if (!mapped) throw Error(io::read_error_text(in_name));
    return r;
}

}  // namespace

Result decompress_fd(int in_fd, const std::string& in_name, const Sink& sink, const DecompressOptions& options) {
    DecompressStats local;
    DecompressStats& stats = options.stats ? *options.stats : local;
    stats = {};
    const std::uint64_t wall0 = core::now_ns(), cpu0 = core::thread_cpu_ns();
    const auto done = [&](Result r) {
        if (stats.wall_ns == 0) stats.wall_ns = core::now_ns() - wall0;
        if (stats.main_line_ns == 0 && stats.workers_ns == 0) {
            stats.main_line_ns = core::thread_cpu_ns() - cpu0;
            stats.main_line_bytes = r.out_bytes;
        }
        return r;
    };
    // 0: all cores, at most kDefaultThreads: each worker's live region costs memory, and the
    // regions shrink as workers are added, to a floor (docs/DESIGN.md, "Decompression");
    // more must be asked for.
    // (Asked only for a file the parallel decoder would take: the first question starts
    // oneTBB, which probes for libraries and costs a small file ~1 ms.)
    int threads = options.threads;
    const auto parallel = [&] {
        if (threads == 0) threads = std::min(graph::available_cores(), kDefaultThreads);
        return threads > 1;
    };
    if (options.export_index || options.import_index) {
        if (options.import_index) parallel();
        return done(decompress_indexed(in_fd, in_name, sink, options, std::max(threads, 1), stats));
    }
    struct stat st {};
    const off_t at = ::fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode) ? ::lseek(in_fd, 0, SEEK_CUR) : -1;
    const bool known = at >= 0 && st.st_size >= at;  // a regular file, st_size - at bytes left
    if (threads != 1 && options.format == Format::gzip && known) {
        if (st.st_size - at >= kParallelMinBytes && !stored_data(in_fd, st.st_size, at) && parallel()) {
            std::optional<Result> r;
            graph::ParallelInflateStats ps;
            if (with_mapping(in_fd, st.st_size, at, [&](std::span<const std::uint8_t> all) {
                    graph::ParallelInflateOptions po;
                    po.threads = threads;
                    po.release_input = true;
                    r = graph::parallel_gunzip(all, sink, po, &ps, options.pin_threads);
                })) {
                stats.decoder = "parallel";
                stats.threads = threads;
                stats.regions = ps.regions;
                stats.worker_regions = ps.used;
                stats.worker_bytes = ps.worker_output;
                stats.main_line_bytes = r->out_bytes - ps.worker_output;
                stats.main_line_ns = ps.main_line_ns - std::min(ps.main_line_ns, ps.own_decode_ns);
                stats.main_line_decode_ns = ps.own_decode_ns;
                stats.workers_ns = ps.workers_ns;
                return done(*r);
            }
        }
    }
    // A megabyte at a time, or what a smaller regular file holds (and a byte to see its end
    // without another read): a megabyte per small file, allocated and given back each call,
    // made the allocator return and fault in its pages every time.
    constexpr std::size_t kPiece = std::size_t(1) << 20;
    const std::size_t piece = known ? std::clamp<std::size_t>(std::size_t(st.st_size - at) + 1, 4096, kPiece) : kPiece;
    inflate::StreamInflater inflater(options.format);
    if (options.map_input && known && st.st_size - at >= kParallelMinBytes &&
        with_mapping(in_fd, st.st_size, at, [&](std::span<const std::uint8_t> all) {
            io::ReleaseBehind release(all, true);
            for (std::size_t o = 0; o < all.size(); o += kPiece) {
                inflater.feed(all.subspan(o, std::min(kPiece, all.size() - o)), sink);
                release.upto(o);
            }
            inflater.finish(sink);
        }))
        return done({inflater.in_bytes(), inflater.out_bytes()});
    feed_fd(inflater, in_fd, in_name, sink, piece);
    return done({inflater.in_bytes(), inflater.out_bytes()});
}

Result decompress_file(const std::filesystem::path& in, const std::filesystem::path& out, Format format) {
    io::Fd fd(::open(in.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) throw Error(in.string() + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw Error(in.string() + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw Error(in.string() + ": not a regular file");
    io::FileOutput output(out, st.st_mode & 07777);
    Result r;
    try {
        r = decompress_fd(fd.get(), in.string(), io::fd_sink(output.fd(), out.string()), format);
    } catch (const io::WriteError&) {
        throw;
    } catch (const Error& e) {
        const std::string what = e.what();
        if (what.starts_with(in.string() + ":")) throw;
        throw Error(in.string() + ": " + what);
    }
    output.commit();
    return r;
}

// ---- streaming ----------------------------------------------------------------------------

struct StreamDecompressor::Impl {
    Impl(Sink s, Format f) : sink(std::move(s)), inflater(f) {}
    Sink sink;
    inflate::StreamInflater inflater;
};

StreamDecompressor::StreamDecompressor(Sink sink, Format format)
    : impl_(std::make_unique<Impl>(std::move(sink), format)) {}
StreamDecompressor::~StreamDecompressor() = default;

void StreamDecompressor::write(std::span<const std::uint8_t> data) { impl_->inflater.feed(data, impl_->sink); }

Result StreamDecompressor::finish() {
    impl_->inflater.finish(impl_->sink);
    return {in_bytes(), out_bytes()};
}

std::uint64_t StreamDecompressor::in_bytes() const noexcept { return impl_->inflater.in_bytes(); }
std::uint64_t StreamDecompressor::out_bytes() const noexcept { return impl_->inflater.out_bytes(); }

}  // namespace flowdeflate
