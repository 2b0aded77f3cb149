// indexed_reader.cpp - IndexedReader (flowdeflate/index.hpp): the file mapped once, each
// read decoded from the last seek point before it, or from where the read before it
// stopped.
//
// The reader keeps up to four spans' decodings in progress (index::SpanCursor), each with
// the last piece it decoded: a read inside a piece is a copy, one at or after a cursor's
// position in its span goes on decoding from there, anything else restarts the free
// decoding used least recently at the last point before it.  So a file read in small
// pieces one after another is decoded once, as indexed_gzip's reader does, instead of once
// per read from its point (32 times over for 64 KiB reads with a point every 4 MiB), and
// so are up to four such readers taking turns or reading from threads at once.  A read
// that finds every kept decoding busy decodes on its own from its point
// (graph::read_range()).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

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

// One decoding kept between reads: a cursor and its last piece, which holds the data's
// bytes [piece_at, piece_at + piece_size).  Used under its mutex.
class Kept {
public:
    static constexpr std::size_t kPiece = std::size_t(1) << 18;

    std::mutex mutex;
    std::atomic<std::uint64_t> used{0};  // when it last served a read (the reader's clock)

    /// Whether its piece holds offset @p at of the data.
    [[nodiscard]] bool holds(std::uint64_t at) const { return at >= piece_at_ && at - piece_at_ < piece_size_; }
    /// Where its cursor is, when a read from @p at (in span @p span) can go on from it.
    [[nodiscard]] std::optional<std::uint64_t> goes_on_to(std::uint64_t at, std::size_t span) const {
        if (!cursor_ || cursor_->span() != span || at < cursor_->position()) return std::nullopt;
        return cursor_->position();  // (a cursor done at the data's end: the read is empty)
    }

    std::size_t read(std::span<const u8> in, const Index& index, std::uint64_t offset, std::span<u8> out) {
        if (!piece_) piece_ = std::make_unique_for_overwrite<u8[]>(kPiece);
        std::size_t done = 0;
        while (done < out.size()) {
            const std::uint64_t at = offset + done;
            if (holds(at)) {
                const std::size_t from = std::size_t(at - piece_at_);
                const std::size_t n = std::min(piece_size_ - from, out.size() - done);
                std::memcpy(out.data() + done, piece_.get() + from, n);
                done += n;
                continue;
            }
            const std::size_t span = index::span_at(index, at);
            const bool goes_on = goes_on_to(at, span).has_value();
            if (goes_on && cursor_->done()) break;  // the data's end
            // (A cursor left at its span's end without being run once more is dropped here
            // with the span's last checks, where the next point starts, unmade: a range does
            // the same, and the next span checks its own start.)
            if (!goes_on) {
                cursor_.reset();
                piece_size_ = 0;
                decoder_.emplace(in, index);
                cursor_ = std::make_unique<index::SpanCursor>(*decoder_, span);
            }
            PieceReceiver receiver({piece_.get(), kPiece});
            piece_at_ = cursor_->position();
            piece_size_ = 0;
            try {
                cursor_->run(receiver);
            } catch (...) {
                cursor_.reset();
                throw;
            }
            piece_size_ = receiver.filled;
            if (piece_size_ == 0) break;  // the data's end
        }
        return done;
    }

    /// Lets go of the decoding (before the mapping it reads).
    void clear() noexcept {
        cursor_.reset();
        decoder_.reset();
    }

private:
    // The cursor's decoder: one per cursor, so that the windows a cursor took are let go
    // with it (SharedWindows keeps a window until both of its spans have used it).
    std::optional<index::SpanDecoder> decoder_;
    std::unique_ptr<index::SpanCursor> cursor_;
    std::unique_ptr<u8[]> piece_;
    std::uint64_t piece_at_ = 0;
    std::size_t piece_size_ = 0;
};

}  // namespace

struct IndexedReader::Impl {
    // Decodings kept: as many readers one after another, in one thread or several, as
    // there are go on from where they stopped.
    static constexpr std::size_t kKept = 4;

    Index index;
    void* map = nullptr;
    std::size_t size = 0;
    std::array<Kept, kKept> kept;
    std::atomic<std::uint64_t> clock{0};

    [[nodiscard]] std::span<const u8> bytes() const { return {static_cast<const u8*>(map), size}; }
    ~Impl() {
        for (Kept& k : kept) k.clear();
        if (map) ::munmap(map, size);
    }

    std::size_t read(std::uint64_t offset, std::span<u8> out) {
        if (index.uncompressed_size != 0 && offset >= index.uncompressed_size) return 0;  // (size(): the data's end)
        const std::uint64_t now = clock.fetch_add(1, std::memory_order_relaxed) + 1;
        const auto with = [&](Kept& k) {
            k.used.store(now, std::memory_order_relaxed);
            return k.read(bytes(), index, offset, out);
        };
        // A kept decoding whose piece holds the offset; else the one whose cursor is
        // nearest before it in its span (readers taking turns in one span each keep theirs).
        const std::size_t span = index::span_at(index, offset);
        Kept* nearest = nullptr;
        std::uint64_t nearest_at = 0;
        for (Kept& k : kept) {
            std::unique_lock lock(k.mutex, std::try_to_lock);
            if (!lock.owns_lock()) continue;
            if (k.holds(offset)) return with(k);
            if (const auto at = k.goes_on_to(offset, span); at && (!nearest || *at > nearest_at)) {
                nearest = &k;
                nearest_at = *at;
            }
        }
        if (nearest)
            if (std::unique_lock lock(nearest->mutex, std::try_to_lock);
                lock.owns_lock() && (nearest->holds(offset) || nearest->goes_on_to(offset, span)))
                return with(*nearest);
        // Else the free one used least recently starts again (by a snapshot of the times:
        // other reads change them meanwhile).
        std::array<std::pair<std::uint64_t, Kept*>, kKept> by_use;
        for (std::size_t i = 0; i < kKept; ++i) by_use[i] = {kept[i].used.load(std::memory_order_relaxed), &kept[i]};
        std::sort(by_use.begin(), by_use.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (const auto& [_, k] : by_use)
            if (std::unique_lock lock(k->mutex, std::try_to_lock); lock.owns_lock()) return with(*k);
        // Every one busy (more threads reading than kept decodings): this read decodes on
        // its own from its point.
        std::size_t done = 0;
        graph::read_range(bytes(), index, offset, out.size(), [&](std::span<const u8> b) {
            std::memcpy(out.data() + done, b.data(), b.size());
            done += b.size();
        });
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
    return impl_->read(offset, out);
}

}  // namespace flowdeflate
