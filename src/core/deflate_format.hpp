// deflate_format.hpp - the constants and symbol tables of the DEFLATE format (RFC 1951),
// and the few build-time parameters of libdeflate's compressor that decide output bits.
//
// Every value here is a fact our output depends on: changing one changes the bytes we
// write and breaks identity with libdeflate.  The tables are generated at compile time
// from the format's definition rather than typed in, so they cannot disagree with it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace flowdeflate::core {

using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using s16 = std::int16_t;
using s32 = std::int32_t;

// ---- the format ---------------------------------------------------------------------
inline constexpr u32 kWindowOrder = 15;
inline constexpr u32 kWindowSize = 1u << kWindowOrder;  // 32 KiB of history
inline constexpr u32 kMinMatchLen = 3;
inline constexpr u32 kMaxMatchLen = 258;
inline constexpr u32 kNumLiterals = 256;
inline constexpr u32 kEndOfBlock = 256;
inline constexpr u32 kFirstLenSym = 257;
inline constexpr u32 kNumLitlenSyms = 288;
inline constexpr u32 kNumOffsetSyms = 32;
inline constexpr u32 kNumPrecodeSyms = 19;
inline constexpr u32 kNumLengthSlots = 29;
inline constexpr u32 kNumOffsetSlots = 30;
inline constexpr u32 kMaxCodewordLen = 15;
inline constexpr u32 kMaxPreCodewordLen = 7;
inline constexpr u32 kMaxExtraLengthBits = 5;
inline constexpr u32 kMaxExtraOffsetBits = 13;
inline constexpr u32 kMaxStoredLen = 65535;

enum class BlockType : u32 { stored = 0, static_huffman = 1, dynamic_huffman = 2 };

// ---- libdeflate's compressor parameters (they decide bits, so they are facts too) ----
// Shortest block the splitter will end (the final block may be shorter).
inline constexpr u32 kMinBlockLength = 5000;
// Blocks are ended around this length by the greedy/lazy/near-optimal parsers.
inline constexpr u32 kSoftMaxBlockLength = 300000;
// Sequence store: at most this many matches per block (greedy/lazy).
inline constexpr u32 kSeqStoreLength = 50000;
// Level 1 uses fixed-size blocks and a smaller sequence store.
inline constexpr u32 kFastSoftMaxBlockLength = 65535;
inline constexpr u32 kFastSeqStoreLength = 8192;
// libdeflate caps literal/length codewords at 14 bits (4 literals fit one flush).
inline constexpr u32 kMaxLitlenCodewordLen = 14;
inline constexpr u32 kMaxOffsetCodewordLen = kMaxCodewordLen;
// Largest block any parser produces.
inline constexpr u32 kMaxBlockLength =
    std::max(kSoftMaxBlockLength + kMinBlockLength - 1, kSoftMaxBlockLength + 1 + kMaxMatchLen);

// ---- symbol tables --------------------------------------------------------------------
inline constexpr std::array<u32, kNumLengthSlots> kLengthSlotBase = {
    3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
    31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
inline constexpr std::array<u8, kNumLengthSlots> kExtraLengthBits = {
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
inline constexpr std::array<u32, kNumOffsetSlots> kOffsetSlotBase = {
    1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
    193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
inline constexpr std::array<u8, kNumOffsetSlots> kExtraOffsetBits = {
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
inline constexpr std::array<u8, kNumPrecodeSyms> kPrecodeLensPermutation = {
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
inline constexpr std::array<u8, kNumPrecodeSyms> kExtraPrecodeBits = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7};

// length (0..258) -> length slot
inline constexpr auto kLengthSlot = [] {
    std::array<u8, kMaxMatchLen + 1> t{};
    for (u32 slot = 0; slot < kNumLengthSlots; ++slot) {
        const u32 end = slot + 1 < kNumLengthSlots ? kLengthSlotBase[slot + 1] : kMaxMatchLen + 1;
        for (u32 len = kLengthSlotBase[slot]; len < end && len <= kMaxMatchLen; ++len) t[len] = u8(slot);
    }
    t[kMaxMatchLen] = kNumLengthSlots - 1;  // 258 has its own slot
    return t;
}();

// (offset - 1) -> offset slot, for offsets 1..256; larger offsets reuse it (see below).
inline constexpr auto kSmallOffsetSlot = [] {
    std::array<u8, 256> t{};
    for (u32 slot = 0; slot < kNumOffsetSlots; ++slot)
        for (u32 off = kOffsetSlotBase[slot]; off < kOffsetSlotBase[slot] + (1u << kExtraOffsetBits[slot]); ++off)
            if (off <= 256) t[off - 1] = u8(slot);
    return t;
}();

// Offset slot of 1 <= offset <= 32768.  Slots 16..29 are slots 2..15 scaled by 128, so
// one 256-entry table serves both halves.
[[gnu::always_inline]] inline u32 offset_slot(u32 offset) {
    const u32 n = (256 - offset) >> 29;  // 0 for offset <= 256, else 7
    return kSmallOffsetSlot[(offset - 1) >> n] + (n << 1);
}

}  // namespace flowdeflate::core
