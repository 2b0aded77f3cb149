// large_array.hpp - uninitialised arrays of many MiB, on transparent huge pages where the
// kernel offers them.
//
// Parallel decompression keeps a few buffers of several MiB per worker (a stretch's
// marked symbols, its plain bytes, its resolved bytes).  Touching them the first time costs
// a page fault per 4 KiB: measured, about 10,000 faults and a third of the run's time on a
// 50 MB file with two threads.  Arrays of 2 MiB and more are therefore aligned to 2 MiB and
// marked MADV_HUGEPAGE (Debian's default THP mode is "madvise"), so they fault once per
// 2 MiB; the buffers are reused, so this is paid once per run.  Smaller arrays come from
// the ordinary heap.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>

namespace flowdeflate::inflate {

template <class T>
class LargeArray {
public:
    LargeArray() = default;
    explicit LargeArray(std::size_t n) : data_(allocate(n)), size_(n) {}

    [[nodiscard]] T* get() const noexcept { return data_.get(); }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    explicit operator bool() const noexcept { return bool(data_); }

private:
    static constexpr std::size_t kHugePage = std::size_t(2) << 20;
    struct Free {
        void operator()(T* p) const noexcept { std::free(p); }
    };

    static T* allocate(std::size_t n) {
        const std::size_t bytes = n * sizeof(T);
        void* p = nullptr;
        if (bytes >= kHugePage) {
            const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
            p = std::aligned_alloc(kHugePage, rounded);
            if (p) ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: fine if refused
        } else {
            p = std::malloc(bytes ? bytes : 1);
        }
        if (!p) throw std::bad_alloc();
        return static_cast<T*>(p);
    }

    std::unique_ptr<T, Free> data_;
    std::size_t size_ = 0;
};

}  // namespace flowdeflate::inflate
