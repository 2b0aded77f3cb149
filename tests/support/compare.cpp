// tests/support/compare.cpp - see compare.hpp.
#include "support/compare.hpp"

#include <algorithm>
#include <cstdio>

namespace flowdeflate::testing {

namespace {

std::string hex_window(std::span<const std::uint8_t> v, std::size_t from, std::size_t to) {
    std::string s;
    to = std::min(to, v.size());
    char buf[4];
    for (std::size_t i = from; i < to; ++i) {
        std::snprintf(buf, sizeof buf, "%02x", v[i]);
        if (i > from) s += ' ';
        s += buf;
    }
    if (from >= to) s = "(none)";
    return s;
}

std::string byte_or_end(std::span<const std::uint8_t> v, std::size_t i) {
    if (i >= v.size()) return "<end>";
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", v[i]);
    return buf;
}

}  // namespace

std::size_t header_size(Format format) noexcept {
    switch (format) {
        case Format::gzip: return 10;
        case Format::zlib: return 2;
        case Format::deflate: return 0;
    }
    return 0;
}

std::size_t trailer_size(Format format) noexcept {
    switch (format) {
        case Format::gzip: return 8;
        case Format::zlib: return 4;
        case Format::deflate: return 0;
    }
    return 0;
}

std::optional<std::size_t> first_difference(std::span<const std::uint8_t> a,
                                            std::span<const std::uint8_t> b) noexcept {
    const std::size_t n = std::min(a.size(), b.size());
    const auto m = std::mismatch(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(n), b.begin());
    const auto i = static_cast<std::size_t>(m.first - a.begin());
    if (i < n) return i;
    if (a.size() == b.size()) return std::nullopt;
    return n;
}

std::optional<std::string> describe_difference(std::span<const std::uint8_t> ours,
                                               std::span<const std::uint8_t> reference,
                                               Format format, std::size_t input_size) {
    const auto d = first_difference(ours, reference);
    if (!d) return std::nullopt;
    const std::size_t i = *d;
    std::string s = "compressed outputs differ: ours " + std::to_string(ours.size()) +
                    " bytes, reference " + std::to_string(reference.size()) + " bytes";
    if (input_size != SIZE_MAX) s += " (input " + std::to_string(input_size) + " bytes)";
    s += "; first difference at byte " + std::to_string(i);
    const std::size_t hs = header_size(format), ts = trailer_size(format);
    if (i < hs) {
        s += " (in the " + std::string(format == Format::gzip ? "gzip" : "zlib") + " header)";
    } else if (ts && reference.size() >= hs + ts && i >= reference.size() - ts &&
               ours.size() == reference.size()) {
        s += " (in the trailer checksum/size: the DEFLATE streams are identical)";
    } else if (hs) {
        s += " (DEFLATE stream byte " + std::to_string(i - hs) + ")";
    }
    s += ": ours " + byte_or_end(ours, i) + ", reference " + byte_or_end(reference, i);
    if (i == std::min(ours.size(), reference.size()))
        s += ours.size() < reference.size() ? " [ours is a prefix of the reference]"
                                            : " [the reference is a prefix of ours]";
    const std::size_t from = i >= 8 ? i - 8 : 0, to = i + 24;
    s += "\n  ours[" + std::to_string(from) + "..]      = " + hex_window(ours, from, to);
    s += "\n  reference[" + std::to_string(from) + "..] = " + hex_window(reference, from, to);
    return s;
}

std::optional<std::string> describe_data_difference(std::span<const std::uint8_t> got,
                                                    std::span<const std::uint8_t> want) {
    const auto d = first_difference(got, want);
    if (!d) return std::nullopt;
    const std::size_t i = *d;
    std::string s = "data differs: got " + std::to_string(got.size()) + " bytes, want " +
                    std::to_string(want.size()) + " bytes; first difference at byte " +
                    std::to_string(i) + ": got " + byte_or_end(got, i) + ", want " +
                    byte_or_end(want, i);
    const std::size_t from = i >= 8 ? i - 8 : 0, to = i + 24;
    s += "\n  got[" + std::to_string(from) + "..]  = " + hex_window(got, from, to);
    s += "\n  want[" + std::to_string(from) + "..] = " + hex_window(want, from, to);
    return s;
}

}  // namespace flowdeflate::testing
