// markers.hpp - symbols that stand for bytes of a window not known yet.
//
// Decoding a DEFLATE stream from the middle (Knespel & Brunst, "Rapidgzip", HPDC 2023;
// pugz before it) meets back-references into the 32 KiB that precede the start, which
// another worker has not decoded yet.  Instead of waiting, the decoder writes 16-bit
// symbols: 0-255 are bytes, and a value >= kFirstMarker is a marker naming one byte of
// the unknown window:
//
//     marker = kFirstMarker + i,  i in [0, 32768): window byte i, where the window is the
//                                 32 KiB that end just before the chunk's first byte
//                                 (i = 32767 is the byte immediately before it).
//
// A match that copies markers copies the markers, so the marked output says, for every
// position, either its byte or which window byte it will be.  When the window becomes
// known, resolve_markers() replaces each marker by its byte in one pass, which is cheap
// next to decoding and runs in parallel with everything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace flowdeflate::inflate {

inline constexpr std::size_t kWindowSize = 32768;
inline constexpr std::uint16_t kFirstMarker = 32768;

[[nodiscard]] constexpr bool is_marker(std::uint16_t symbol) noexcept { return symbol >= kFirstMarker; }
/// The marker for byte @p window_index (0..32767) of the unknown window.
[[nodiscard]] constexpr std::uint16_t marker_for(std::size_t window_index) noexcept {
    return std::uint16_t(kFirstMarker + window_index);
}

/// Writes the bytes of @p marked into @p out (same size), with each marker replaced by its
/// byte of @p window: the bytes that precede the chunk, the last of them just before it.
/// A window shorter than 32 KiB (the chunk starts within 32 KiB of the stream's start) is
/// aligned at its end.  Returns false, with @p out unspecified, when a marker names a byte
/// before the window's start or the sizes differ.  @p out may start where @p marked does
/// (resolving in place: the bytes then fill the front half of the symbols' storage).
bool resolve_markers(std::span<const std::uint16_t> marked, std::span<const std::uint8_t> window,
                     std::span<std::uint8_t> out) noexcept;

/// Index just past the last marker in @p symbols, or 0 when there is none.
[[nodiscard]] std::size_t end_of_last_marker(std::span<const std::uint16_t> symbols) noexcept;

}  // namespace flowdeflate::inflate
