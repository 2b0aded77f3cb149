// fuzz_decompress.cpp - libFuzzer target: decompression of arbitrary bytes in every format
// (flowdeflate::decompress, the command line's -d/-t path).  It must return the data or
// throw flowdeflate::Error; never crash, hang or run away with memory.  When it succeeds,
// compressing the result and decompressing that must give it back.
#include <cstdint>
#include <span>

#include "flowdeflate/flowdeflate.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::uint8_t> in(data, size);
    for (const auto format : {flowdeflate::Format::gzip, flowdeflate::Format::zlib, flowdeflate::Format::deflate}) {
        try {
            const auto out = flowdeflate::decompress(in, format);
            flowdeflate::Options o;
            o.format = format;
            o.level = 1;
            o.threads = 1;
            if (flowdeflate::decompress(flowdeflate::compress(out, o), format) != out) __builtin_trap();
        } catch (const flowdeflate::Error&) {
        }
    }
    return 0;
}
