// assembler.hpp - Assemble: the serial stage that appends coded blocks at the real bit
// offset, in order, decides stored blocks there (their cost depends on the offset), and
// frames the stream (gzip/zlib header, check value and trailer).
#pragma once

#include <cstdint>
#include <span>

#include "core/bit_writer.hpp"
#include "core/framing.hpp"
#include "core/segmented_output.hpp"
#include "flowdeflate/core.hpp"
#include "parallel/encoder.hpp"

namespace flowdeflate::parallel {

/// Appends coded blocks in order and frames the stream (gzip/zlib header and trailer).
class Assembler {
public:
    Assembler(SegmentedOutput& out, Format format, int level);
    /// Appends @p block at the stream's bit offset (place_block(): stored when cheaper there).
    void append(const CodedBlock& block);
    /// Writes the trailer and the last partial segment.
    void finish();
    [[nodiscard]] std::uint64_t in_bytes() const { return framing_.size(); }

private:
    void account(std::span<const u8> data);  // the check value and size, after a block
    SegmentedOutput& out_;
    Framing framing_;
};

/// Appends @p nbits bits from @p bits (which has 8 readable bytes of slack) to @p w.
void append_bits(BitWriter& w, const u8* bits, std::size_t nbits);

}  // namespace flowdeflate::parallel
