// fuzz_compress.cpp - libFuzzer target: flowdeflate's output against the live reference
// libdeflate (>= 1.19) on arbitrary input, sequential and parallel.
//
// The first two bytes choose the case: level 0-12, format, sequential or parallel, the
// chunk size (4, 8, 12 or 16 KiB, so that small inputs still span several chunks), and
// threads (1-3; levels 10-12 with more than one search ahead of the optimiser once the
// input is longer than a chunk).  The rest is the data.  Any difference traps (a crash
// for libFuzzer).
#include <cstdint>
#include <cstdio>
#include <span>

#include "flowdeflate/flowdeflate.hpp"
#include "support/reference.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 2) return 0;
    const std::uint8_t a = data[0], b = data[1];
    const std::span<const std::uint8_t> in(data + 2, size - 2);
    flowdeflate::Options o;
    o.level = a % 13;
    o.format = flowdeflate::Format((a / 13) % 3);
    o.sequential = (b & 1) != 0;
    o.chunk_size = 4096 * (1 + ((b >> 1) & 3));
    o.threads = 1 + (b >> 3) % 3;
    const auto ours = flowdeflate::compress(in, o);
    const auto want = flowdeflate::testing::Reference::get().compress(in, o.level, o.format);
    if (ours != want) {
        std::fprintf(stderr, "fuzz_compress: output differs: level %d format %d sequential %d chunk %zu threads %d, %zu bytes in\n",
                     o.level, int(o.format), int(o.sequential), o.chunk_size, o.threads, in.size());
        __builtin_trap();
    }
    return 0;
}
