// stream_inflater.hpp - gzip, zlib and raw DEFLATE decompression in bounded memory, for
// input that arrives in pieces of any size.
//
// The DEFLATE decoding is ISA-L's isal_inflate() (Debian libisal-dev), chosen by
// measurement over libdeflate's decoder, which needs the whole member in memory and its
// whole output at once, and over zlib's inflate(), which streams at about half the speed
// (docs/notes/decompression.md, "Why ISA-L").  ISA-L keeps the 32 KiB window itself, so the output
// goes straight from a fixed buffer to the sink: memory is that buffer, the input piece and
// ISA-L's state (about 100 KiB), whatever the size of the stream.
//
// The framing is ours, so that what is accepted is what libdeflate's gzip accepts: headers
// are read by GzipHeaderParser/zlib_header_ok (gzip_header.hpp); ISA-L checks the CRC-32
// and ISIZE (gzip) or Adler-32 (zlib) that follow the DEFLATE data.  A gzip stream is any
// number of members, each complete; anything after the last member that is not a whole
// member is an error, as in libdeflate's gzip.  zlib and raw DEFLATE hold one stream, and
// data after it is an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "flowdeflate/core.hpp"

namespace flowdeflate::inflate {

class StreamInflater {
public:
    /// Output is delivered in pieces of at most this size.
    static constexpr std::size_t kOutputPiece = std::size_t(1) << 18;

    explicit StreamInflater(Format format);
    ~StreamInflater();
    StreamInflater(const StreamInflater&) = delete;
    StreamInflater& operator=(const StreamInflater&) = delete;

    /// Decodes @p in, handing the output to @p sink.  Throws Error for data that is not in
    /// the format, corrupt, or (zlib, raw) followed by more data.
    void feed(std::span<const std::uint8_t> in, const Sink& sink);
    /// Ends the input; throws Error when it ended inside a member (truncated) or held none.
    void finish(const Sink& sink);

    [[nodiscard]] std::uint64_t in_bytes() const noexcept { return in_bytes_; }
    [[nodiscard]] std::uint64_t out_bytes() const noexcept { return out_bytes_; }
    /// Whole members (streams) decoded so far.
    [[nodiscard]] std::uint64_t members() const noexcept { return members_; }

private:
    struct State;
    std::size_t step(std::span<const std::uint8_t> in, const Sink& sink);
    std::size_t header(std::span<const std::uint8_t> in);
    std::size_t body(std::span<const std::uint8_t> in, const Sink& sink);
    void start_body();

    Format format_;
    std::unique_ptr<State> state_;
    std::uint64_t in_bytes_ = 0, out_bytes_ = 0, members_ = 0;
};

}  // namespace flowdeflate::inflate
