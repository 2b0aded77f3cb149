// crc_combine.hpp - the CRC-32 of two pieces joined, from each piece's CRC-32 and the
// second's length, so that pieces checked on different threads give the whole member's
// check value without a pass over its bytes.
//
// CRC-32 (reflected, polynomial 0xEDB88320) is linear over GF(2): crc(A || B) =
// crc(A) * x^(8 |B|) mod P  xor  crc(B).  x^(8n) mod P is built from the squares
// x^(2^k) mod P (32 entries, made once), one multiplication per set bit of n.
#pragma once

#include <array>
#include <cstdint>

namespace flowdeflate::inflate {

namespace crc_detail {

inline constexpr std::uint32_t kPoly = 0xedb88320u;

// a * b mod P, both in the reflected order (bit 31 holds x^0).
constexpr std::uint32_t multiply(std::uint32_t a, std::uint32_t b) noexcept {
    std::uint32_t product = 0;
    for (std::uint32_t m = 1u << 31; m != 0; m >>= 1) {
        if (a & m) product ^= b;
        b = (b & 1) ? (b >> 1) ^ kPoly : b >> 1;  // b * x
    }
    return product;
}

// x^(2^k) mod P for k = 0..31.
constexpr std::array<std::uint32_t, 32> make_squares() noexcept {
    std::array<std::uint32_t, 32> t{};
    t[0] = 1u << 30;  // x^1
    for (int k = 1; k < 32; ++k) t[k] = multiply(t[k - 1], t[k - 1]);
    return t;
}

inline constexpr std::array<std::uint32_t, 32> kSquares = make_squares();

// x^(8 n) mod P.
constexpr std::uint32_t x_to_8n(std::uint64_t n) noexcept {
    std::uint32_t p = 1u << 31;  // x^0
    for (unsigned k = 3; n != 0; n >>= 1, ++k)
        if (n & 1) p = multiply(kSquares[k & 31], p);
    return p;
}

}  // namespace crc_detail

/// The CRC-32 of A followed by B, from crc(A), crc(B) and B's length in bytes.
constexpr std::uint32_t crc32_combine(std::uint32_t crc_a, std::uint32_t crc_b, std::uint64_t length_b) noexcept {
    return crc_detail::multiply(crc_detail::x_to_8n(length_b), crc_a) ^ crc_b;
}

}  // namespace flowdeflate::inflate
