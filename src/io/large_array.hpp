// large_array.hpp - uninitialised arrays of many MiB, on transparent huge pages where the
// kernel offers them.
//
// Parallel decompression keeps a few buffers of several MiB per worker (a stretch's
// marked symbols, its plain bytes, its resolved bytes).  Touching them the first time costs
// a page fault per 4 KiB: measured, about 10,000 faults and a third of the run's time on a
// 50 MB file with two threads.  Arrays of 2 MiB and more are therefore aligned to 2 MiB and
// marked MADV_HUGEPAGE (Debian's default THP mode is "madvise"), so they fault once per
// 2 MiB; the buffers are reused, so this is paid once per run.  They are mapped and
// unmapped directly (see allocate()), so memory freed is memory given back.  Smaller arrays
// come from the ordinary heap.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>

#include "io/aligned_map.hpp"

namespace flowdeflate::io {

/// A transparent huge page (x86-64).
inline constexpr std::size_t kHugePage = std::size_t(2) << 20;
/// @p bytes rounded up to whole huge pages.
[[nodiscard]] constexpr std::size_t whole_huge_pages(std::size_t bytes) {
    return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}

template <class T>
class LargeArray {
public:
    LargeArray() = default;
    explicit LargeArray(std::size_t n) : data_(allocate(n)), size_(n) {}

    [[nodiscard]] T* get() const noexcept { return data_.get(); }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    explicit operator bool() const noexcept { return bool(data_); }
    /// The pages the array lies on: huge pages where it is mapped, else the heap's 4 KiB
    /// (what to give back in whole units with madvise).
    [[nodiscard]] std::size_t page_size() const noexcept { return data_.get_deleter().mapped ? kHugePage : 4096; }
    /// Gives back the whole pages (page_size()) that lie entirely at or past element
    /// @p first, so that a reused array keeps resident what its last use wrote rather than
    /// the most any use did; their contents are lost.  A mapped array is released to the
    /// end of its mapping (2 MiB-aligned and whole huge pages long); one from the heap to
    /// the last whole page inside it.
    void release_from(std::size_t first) noexcept {
        if (!data_) return;
        const std::uintptr_t page = page_size();
        const auto base = reinterpret_cast<std::uintptr_t>(data_.get());
        const std::size_t mapped = data_.get_deleter().mapped;
        const std::uintptr_t from = (base + first * sizeof(T) + page - 1) & ~(page - 1);
        const std::uintptr_t to = (base + (mapped != 0 ? mapped : size_ * sizeof(T))) & ~(page - 1);
        if (to > from) ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED);
    }

private:
    // Mapped bytes (a multiple of kHugePage), or 0 for an array from the heap.
    struct Free {
        std::size_t mapped = 0;
        void operator()(T* p) const noexcept {
            if (mapped != 0)
                ::munmap(p, mapped);
            else
                std::free(p);
        }
    };
    using Pointer = std::unique_ptr<T, Free>;

    static Pointer allocate(std::size_t n) {
        const std::size_t bytes = n * sizeof(T);
        if (bytes < kHugePage) {
            void* p = std::malloc(bytes ? bytes : 1);
            if (!p) throw std::bad_alloc();
            return Pointer(static_cast<T*>(p));
        }
        // Mapped, not from malloc: glibc raises its mmap threshold to the size of each
        // mapped block it frees (up to 32 MiB), after which buffers of this size come from
        // its arenas and stay resident once freed (measured: -d -p2 of a 1.3 GB file peaked
        // at 106-139 MiB, 30 MiB with the threshold fixed).  A mapping goes back to the
        // kernel when the array is freed.  Over-mapped by one huge page, then trimmed to a
        // 2 MiB-aligned range, so that the kernel can back it with huge pages.
        const std::size_t rounded = whole_huge_pages(bytes);
        void* p = io::map_aligned(rounded, kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS);
        if (!p) throw std::bad_alloc();
        ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: fine if refused
        return Pointer(static_cast<T*>(p), Free{rounded});
    }

    Pointer data_;
    std::size_t size_ = 0;
};

}  // namespace flowdeflate::io
