// tests/support/compare.hpp - readable descriptions of where two compressed streams differ.
//
// Differential tests compare megabytes of output; dumping vectors is useless.  These
// helpers say how long each side is, where the first difference is (also as an offset into
// the raw DEFLATE stream and whether it falls in the gzip/zlib header or trailer) and show a
// few bytes of hex context.  They do not depend on GoogleTest, so benchmarks and tools can
// use them too; tests wrap them in ::testing::AssertionResult.
#pragma once

#include <flowdeflate/flowdeflate.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace flowdeflate::testing {

/// Index of the first byte where @p a and @p b differ, or min(size) when one is a prefix of
/// the other; nullopt when they are equal.
std::optional<std::size_t> first_difference(std::span<const std::uint8_t> a,
                                            std::span<const std::uint8_t> b) noexcept;

/// nullopt when @p ours equals @p reference, otherwise a one-paragraph description such as
///   "compressed outputs differ: ours 1234 bytes, reference 1240 bytes (input 9000 bytes);
///    first difference at byte 567 (DEFLATE stream byte 557): ours 0x1f, reference 0x2e
///    ours[551..583] = ..., reference[551..583] = ..."
/// @p input_size is only reported (pass SIZE_MAX to omit it).
std::optional<std::string> describe_difference(std::span<const std::uint8_t> ours,
                                               std::span<const std::uint8_t> reference,
                                               Format format,
                                               std::size_t input_size = SIZE_MAX);

/// Same for plain (decompressed) data: nullopt when equal, else sizes and first difference.
std::optional<std::string> describe_data_difference(std::span<const std::uint8_t> got,
                                                    std::span<const std::uint8_t> want);

/// Size of the container header that precedes the DEFLATE stream in @p format as
/// libdeflate writes it (gzip 10, zlib 2, deflate 0) and of the trailer (8, 4, 0).
std::size_t header_size(Format format) noexcept;
std::size_t trailer_size(Format format) noexcept;

}  // namespace flowdeflate::testing
