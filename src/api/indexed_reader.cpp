// indexed_reader.cpp - IndexedReader (flowdeflate/index.hpp): the file mapped once, each
// read decoded from the last seek point before it (graph::read_range()).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "flowdeflate/index.hpp"
#include "graph/indexed_inflate.hpp"
#include "index/index_decoders.hpp"
#include "io/fd.hpp"

namespace flowdeflate {

struct IndexedReader::Impl {
    Index index;
    void* map = nullptr;
    std::size_t size = 0;
    [[nodiscard]] std::span<const std::uint8_t> bytes() const { return {static_cast<const std::uint8_t*>(map), size}; }
    ~Impl() {
        if (map) ::munmap(map, size);
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
    std::size_t done = 0;
    graph::read_range(impl_->bytes(), impl_->index, offset, out.size(), [&](std::span<const std::uint8_t> b) {
        std::memcpy(out.data() + done, b.data(), b.size());
        done += b.size();
    });
    return done;
}

}  // namespace flowdeflate
