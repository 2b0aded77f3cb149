// assembler.hpp - Assemble: the serial stage that appends coded blocks at the real bit
// offset, in order, decides stored blocks there (their cost depends on the offset), and
// frames the stream (gzip/zlib header, check value and trailer).
#pragma once

#include <cstdint>
#include <span>

#include "core/bit_writer.hpp"
#include "core/segmented_output.hpp"
#include "flowdeflate/core.hpp"
#include "parallel/encoder.hpp"

namespace flowdeflate::parallel {

/// Appends coded blocks in order and frames the stream (gzip/zlib header and trailer).
class StreamAssembler {
public:
    StreamAssembler(SegmentedOutput& out, Format format, int level);
    void append(const CodedBlock& block);
    /// Codes @p block with @p encoder straight at the stream's bit offset (and decides a
    /// stored block there), as the sequential compressor does.
    void append(const ResolvedBlock& block, BlockEncoder& encoder);
    /// Writes the trailer and the last partial segment.
    void finish();
    [[nodiscard]] std::uint64_t in_bytes() const { return size_; }

private:
    void account(std::span<const u8> data);  // the check value and size, after a block
    SegmentedOutput& out_;
    Format format_;
    u32 crc_ = 0, adler_ = 1;
    std::uint64_t size_ = 0;
};

/// Appends @p nbits bits from @p bits (which has 8 readable bytes of slack) to @p w.
void append_bits(BitWriter& w, const u8* bits, std::size_t nbits);

}  // namespace flowdeflate::parallel
