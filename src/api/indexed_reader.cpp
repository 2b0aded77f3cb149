// indexed_reader.cpp - IndexedReader (flowdeflate/index.hpp): the file mapped once, each
// read decoded from the last seek point before it, or from where the read before it
// stopped.
//
// The reader keeps one span's decoding in progress (index::SpanCursor) with the last piece
// it decoded: a read inside that piece is a copy, one at or after its end in the same span
// goes on decoding from there, anything else starts a new cursor at the last point before
// it.  So a file read in small pieces one after another is decoded once, as indexed_gzip's
// reader does, instead of once per read from its point (32 times over for 64 KiB reads
// with a point every 4 MiB).  A read made while another thread's holds the cursor decodes
// on its own from its point (graph::read_range()), as every read did before.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

#include "flowdeflate/index.hpp"
#include "graph/indexed_inflate.hpp"
#include "index/index_decoders.hpp"
#include "io/fd.hpp"

namespace flowdeflate {

namespace {

using u8 = std::uint8_t;

// Takes a cursor's output one room at a time: each run() fills the piece once.
class PieceReceiver final : public index::SpanReceiver {
public:
    explicit PieceReceiver(std::span<u8> piece) : piece_(piece) {}
    std::span<u8> room() override { return piece_; }
    void bytes(std::span<const u8> b) override { filled += b.size(); }
    void piece(const index::MemberPiece&) override {}
    [[nodiscard]] bool satisfied() const override { return true; }
    std::size_t filled = 0;

private:
    std::span<u8> piece_;
};

}  // namespace

struct IndexedReader::Impl {
    static constexpr std::size_t kPiece = std::size_t(1) << 18;

    Index index;
    void* map = nullptr;
    std::size_t size = 0;
    // The cursor's decoder: one per cursor, so that the windows a cursor took are let go
    // with it (SharedWindows keeps a window until both of its spans have used it).
    std::optional<index::SpanDecoder> decoder;
    // The decoding kept between reads, under `mutex`: the cursor, and its last piece,
    // which holds the data's bytes [piece_at, piece_at + piece_size).
    std::mutex mutex;
    std::unique_ptr<index::SpanCursor> cursor;
    std::unique_ptr<u8[]> piece;
    std::uint64_t piece_at = 0;
    std::size_t piece_size = 0;

    [[nodiscard]] std::span<const u8> bytes() const { return {static_cast<const u8*>(map), size}; }
    ~Impl() {
        cursor.reset();  // (reads the mapping)
        decoder.reset();
        if (map) ::munmap(map, size);
    }

    // read_at() through the cursor (the mutex held).
    std::size_t read_kept(std::uint64_t offset, std::span<u8> out) {
        if (!piece) piece = std::make_unique_for_overwrite<u8[]>(kPiece);
        std::size_t done = 0;
        while (done < out.size()) {
            const std::uint64_t at = offset + done;
            if (at >= piece_at && at - piece_at < piece_size) {
                const std::size_t from = std::size_t(at - piece_at);
                const std::size_t n = std::min(piece_size - from, out.size() - done);
                std::memcpy(out.data() + done, piece.get() + from, n);
                done += n;
                continue;
            }
            // The last point at or before `at`.
            const auto after = std::upper_bound(index.points.begin(), index.points.end(), at,
                                                [](std::uint64_t o, const SeekPoint& p) { return o < p.uncompressed; });
            const std::size_t span = std::size_t(after - index.points.begin()) - 1;
            if (cursor && cursor->span() == span && cursor->done() && at >= cursor->position()) break;  // the data's end
            // (A cursor left at its span's end without being run once more is dropped here
            // with the span's last checks, where the next point starts, unmade: a range does
            // the same, and the next span checks its own start.)
            if (!cursor || cursor->span() != span || cursor->done() || at < cursor->position()) {
                cursor.reset();
                piece_size = 0;
                decoder.emplace(bytes(), index);
                cursor = std::make_unique<index::SpanCursor>(*decoder, span);
            }
            PieceReceiver receiver({piece.get(), kPiece});
            piece_at = cursor->position();
            piece_size = 0;
            try {
                cursor->run(receiver);
            } catch (...) {
                cursor.reset();
                throw;
            }
            piece_size = receiver.filled;
            if (piece_size == 0) break;  // the data's end
        }
        return done;
    }
};

IndexedReader::IndexedReader(const std::filesystem::path& gz, Index index) : impl_(std::make_unique<Impl>()) {
    impl_->index = std::move(index);
    io::Fd fd(::open(gz.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat st {};
    if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) throw Error(gz.string() + ": " + std::strerror(errno));
    if (!S_ISREG(st.st_mode) || st.st_size == 0) throw Error(gz.string() + ": not a gzip file");
    impl_->size = std::size_t(st.st_size);
    void* map = ::mmap(nullptr, impl_->size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (map == MAP_FAILED) throw Error(gz.string() + ": " + std::strerror(errno));
    impl_->map = map;
    index::check_index_fits(impl_->index, impl_->bytes());
}

IndexedReader::IndexedReader(const std::filesystem::path& gz, const std::filesystem::path& index_file)
    : IndexedReader(gz, read_index_file(index_file, IndexWindows::packed)) {}

IndexedReader::~IndexedReader() = default;
IndexedReader::IndexedReader(IndexedReader&&) noexcept = default;
IndexedReader& IndexedReader::operator=(IndexedReader&&) noexcept = default;

std::uint64_t IndexedReader::size() const noexcept { return impl_->index.uncompressed_size; }

std::size_t IndexedReader::read_at(std::uint64_t offset, std::span<std::uint8_t> out) const {
    if (std::unique_lock kept(impl_->mutex, std::try_to_lock); kept.owns_lock()) return impl_->read_kept(offset, out);
    std::size_t done = 0;
    graph::read_range(impl_->bytes(), impl_->index, offset, out.size(), [&](std::span<const std::uint8_t> b) {
        std::memcpy(out.data() + done, b.data(), b.size());
        done += b.size();
    });
    return done;
}

}  // namespace flowdeflate
