// large_array_test.cpp - LargeArray: huge-page alignment, and memory freed is memory given
// back to the kernel (the parallel decoder's buffers grow and are freed over a long run;
// kept by the allocator, they once took -d -p2 of a 1.3 GB file to 139 MiB).
#include "io/large_array.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>

namespace {

using flowdeflate::io::LargeArray;

constexpr std::size_t MiB = std::size_t(1) << 20;

// This process's resident memory in bytes (/proc/self/statm, second field, in pages).
std::size_t resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::size_t size = 0, resident = 0;
    statm >> size >> resident;
    return resident * std::size_t(::sysconf(_SC_PAGESIZE));
}

TEST(LargeArray, LargeArraysAreHugePageAligned) {
    const LargeArray<std::uint8_t> big(3 * MiB + 5);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.get()) % (2 * MiB), 0u);
    const LargeArray<std::uint32_t> small(1000);
    ASSERT_NE(small.get(), nullptr);
    EXPECT_EQ(small.size(), 1000u);
    // What madvise may give back in whole units: a mapped array's huge pages, the heap's 4 KiB.
    EXPECT_EQ(big.page_size(), 2 * MiB);
    EXPECT_EQ(small.page_size(), 4096u);
}

TEST(LargeArray, FreedMemoryGoesBackToTheKernel) {
    // glibc raises its mmap threshold to the size of a mapped block it frees (up to 32
    // MiB); an allocator-backed array of 20 MiB would then come from its arenas and stay
    // resident after being freed.
    {
        const LargeArray<std::uint8_t> first(30 * MiB);
        std::memset(first.get(), 1, 30 * MiB);
    }
    const std::size_t before = resident_bytes();
    {
        const LargeArray<std::uint8_t> a(20 * MiB);
        std::memset(a.get(), 2, 20 * MiB);
        EXPECT_GE(resident_bytes(), before + 16 * MiB) << "the array was not touched?";
    }
    EXPECT_LT(resident_bytes(), before + 4 * MiB) << "a freed 20 MiB array stayed resident";
}

}  // namespace
