// compressor.cpp - the public flowdeflate::Compressor over the core.
#include "core/deflate_compressor.hpp"
#include "flowdeflate/core.hpp"

namespace flowdeflate {

Compressor::Compressor(int level) {
    if (level < kMinLevel || level > kMaxLevel)
        throw Error("flowdeflate: compression level " + std::to_string(level) + " is not in 0..12");
    impl_ = std::make_unique<core::DeflateCompressor>(level);
}
Compressor::~Compressor() = default;
Compressor::Compressor(Compressor&&) noexcept = default;
Compressor& Compressor::operator=(Compressor&&) noexcept = default;

int Compressor::level() const noexcept { return impl_->level(); }

std::size_t Compressor::bound(std::size_t in_size, Format format) noexcept {
    return core::DeflateCompressor::bound(in_size, format);
}

std::size_t Compressor::compress(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, Format format) {
    return impl_->compress(in, out, format);
}

std::vector<std::uint8_t> Compressor::compress(std::span<const std::uint8_t> in, Format format) {
    std::vector<std::uint8_t> out(bound(in.size(), format));
    out.resize(compress(in, out, format));
    return out;
}

const char* version() noexcept { return kVersion; }
const char* reference_version() noexcept { return kReferenceVersion; }

}  // namespace flowdeflate
