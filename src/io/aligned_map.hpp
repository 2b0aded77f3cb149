// aligned_map.hpp - anonymous mappings that start on a given boundary (2 MiB: huge pages,
// whole page tables), for the large arrays of decompression and the input window.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>

namespace flowdeflate::io {

/// mmap(nullptr, @p bytes, @p prot, @p flags, -1, 0) at an address that is a multiple of
/// @p align (a power of 2 and a multiple of the page size; @p bytes a multiple of the page
/// size): maps @p align more, then unmaps the slack before and after.  Unmap the result
/// with munmap(p, bytes).  nullptr (errno set) where mmap fails.
inline void* map_aligned(std::size_t bytes, std::size_t align, int prot, int flags) {
    void* raw = ::mmap(nullptr, bytes + align, prot, flags, -1, 0);
    if (raw == MAP_FAILED) return nullptr;
    const auto at = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = (at + align - 1) & ~std::uintptr_t(align - 1);
    if (aligned > at) ::munmap(raw, aligned - at);
    if (const std::size_t tail = at + align - aligned; tail > 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
    return reinterpret_cast<void*>(aligned);
}

}  // namespace flowdeflate::io
