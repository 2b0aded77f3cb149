// isal_line.cpp - see isal_line.hpp.
#include "inflate/isal_line.hpp"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <vector>

#include "flowdeflate/core.hpp"

namespace flowdeflate::inflate {

struct IsalLine::State {
    // Not zeroed: isal_inflate_init() sets what ISA-L reads before writing (87 KB, most of
    // it tables; zeroing it and a piece buffer nobody used was a page fault per 4 KiB of a
    // fresh line on every span an index decodes).
    inflate_state z;
    std::span<const std::uint8_t> input;
    std::vector<std::uint8_t> out;  // the line's own piece buffer, made when first needed
    std::span<std::uint8_t> into;  // output_into()'s buffer
    std::size_t into_used = 0;
};

IsalLine::IsalLine() : s_(std::make_unique_for_overwrite<State>()) { isal_inflate_init(&s_->z); }
IsalLine::~IsalLine() = default;

void IsalLine::start(std::span<const std::uint8_t> input, std::uint64_t bit, std::span<const std::uint8_t> window) {
    inflate_state& z = s_->z;
    s_->input = input;
    isal_inflate_reset(&z);
    z.crc_flag = ISAL_DEFLATE;
    if (!window.empty()) {
        const std::size_t n = std::min<std::size_t>(window.size(), IGZIP_HIST_SIZE);
        if (isal_inflate_set_dict(&z, const_cast<std::uint8_t*>(window.data() + window.size() - n), std::uint32_t(n)) !=
            COMP_OK)
            throw Error("ISA-L refused a window");
    }
    // The bits of the first byte from `bit` on go into ISA-L's bit buffer, as if it had
    // read that byte itself; the rest of the input follows from the next byte.
    const std::size_t byte = std::size_t(bit / 8);
    const unsigned skip = unsigned(bit % 8);
    if (skip != 0 && byte < input.size()) {
        z.read_in = std::uint64_t(input[byte]) >> skip;
        z.read_in_length = int(8 - skip);
        z.next_in = const_cast<std::uint8_t*>(input.data() + byte + 1);
    } else {
        z.next_in = const_cast<std::uint8_t*>(input.data() + std::min(byte, input.size()));
    }
    z.avail_in = 0;
}

void IsalLine::run(std::size_t byte_limit, Emit emit, void* context) {
    inflate_state& z = s_->z;
    const std::uint8_t* base = s_->input.data();
    const std::size_t limit = std::min(byte_limit, s_->input.size());
    for (;;) {
        const std::size_t at = std::size_t(z.next_in - base) + z.avail_in;
        // ISA-L counts input in 32 bits: give it at most 1 GiB at a time.
        if (z.avail_in == 0 && at < limit) z.avail_in = std::uint32_t(std::min<std::size_t>(limit - at, 1u << 30));
        const bool into = !s_->into.empty();
        if (!into && s_->out.empty()) s_->out.resize(kOutputPiece);
        std::uint8_t* const out = into ? s_->into.data() + s_->into_used : s_->out.data();
        // (Pieces of kOutputPiece into the caller's buffer too: what emit does with a
        // piece, a CRC-32, then reads it from the cache.)
        const std::size_t room = std::min(into ? s_->into.size() - s_->into_used : s_->out.size(), kOutputPiece);
        if (room == 0) return;  // output_into()'s buffer is full
        z.next_out = out;
        z.avail_out = std::uint32_t(room);
        const std::uint32_t avail_in = z.avail_in;
        const int r = isal_inflate(&z);
        const std::size_t produced = room - z.avail_out;
        if (into) s_->into_used += produced;
        // What was decoded before an error is handed over first: every decoder of the
        // project writes the same bytes before it reports damage.
        if (produced) emit(context, {out, produced});
        if (r < 0) throw Error("invalid compressed data");
        if (z.block_state == ISAL_BLOCK_FINISH) return;
        const std::size_t now = std::size_t(z.next_in - base) + z.avail_in;
        if (z.avail_out != 0 && z.avail_in == 0 && now >= limit) return;
        if (produced == 0 && z.avail_in == avail_in && avail_in != 0) throw Error("invalid compressed data");
    }
}

void IsalLine::output_into(std::span<std::uint8_t> buffer) noexcept {
    s_->into = buffer;
    s_->into_used = 0;
}

bool IsalLine::output_full() const noexcept { return !s_->into.empty() && s_->into_used == s_->into.size(); }

bool IsalLine::stopped_at(std::uint64_t boundary) const noexcept {
    const inflate_state& z = s_->z;
    return (z.block_state == ISAL_BLOCK_NEW_HDR || z.block_state == ISAL_BLOCK_HDR) && z.avail_in == 0 &&
           z.tmp_out_valid == z.tmp_out_processed && bit_position() == boundary;
}

bool IsalLine::ended() const noexcept { return s_->z.block_state == ISAL_BLOCK_FINISH; }

std::uint64_t IsalLine::bit_position() const noexcept {
    const inflate_state& z = s_->z;
    const std::uint64_t consumed = std::uint64_t(z.next_in - s_->input.data());
    return consumed * 8 - std::uint64_t(z.read_in_length) - 8 * std::uint64_t(z.tmp_in_size);
}

std::size_t IsalLine::end_byte() const noexcept {
    // At the end ISA-L has dropped the final byte's padding bits; whole bytes it read ahead
    // are still in its bit buffer.
    const inflate_state& z = s_->z;
    return std::size_t(z.next_in - s_->input.data()) - std::size_t(z.read_in_length / 8);
}

}  // namespace flowdeflate::inflate
