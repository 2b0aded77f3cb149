// stream_inflater.cpp - see stream_inflater.hpp.
#include "inflate/stream_inflater.hpp"

#include <isa-l/igzip_lib.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "inflate/gzip_header.hpp"
#include "io/raw_buffer.hpp"

namespace flowdeflate::inflate {
namespace {

// What ISA-L checks after the DEFLATE data: the gzip trailer (CRC-32, ISIZE) or the zlib
// one (Adler-32); nothing for raw DEFLATE.
std::uint32_t trailer_check(Format f) {
    return f == Format::gzip ? ISAL_GZIP_NO_HDR_VER : f == Format::zlib ? ISAL_ZLIB_NO_HDR_VER : ISAL_DEFLATE;
}

}  // namespace

struct StreamInflater::State {
    enum class Phase { header, body, ended };
    Phase phase = Phase::header;
    GzipHeaderParser gzip;
    int zlib_first = -1;  // the zlib header's first byte, once seen
    // Neither is zeroed (isal_inflate_init() sets what ISA-L reads; the output piece is
    // written before it is read): ~100 pages a small file would fault in for nothing.
    inflate_state isal;
    io::RawBuffer out{kOutputPiece};
    std::vector<std::uint8_t> pending;  // bytes read past a stream's end from an earlier piece
};

// (for_overwrite: make_unique<State>() would value-initialise, zeroing the 87 KB of ISA-L's
// state first, which the comment in State says is not needed.)
StreamInflater::StreamInflater(Format format) : format_(format), state_(std::make_unique_for_overwrite<State>()) {
    isal_inflate_init(&state_->isal);
    if (format_ == Format::deflate) start_body();
}

StreamInflater::~StreamInflater() = default;

void StreamInflater::start_body() {
    State& s = *state_;
    isal_inflate_reset(&s.isal);
    s.isal.crc_flag = trailer_check(format_);
    s.phase = State::Phase::body;
}

void StreamInflater::feed(std::span<const std::uint8_t> in, const Sink& sink) {
    in_bytes_ += in.size();
    while (!in.empty()) {
        std::size_t used = 0;
        used = step(in, sink);
        in = in.subspan(used);
    }
}

std::size_t StreamInflater::step(std::span<const std::uint8_t> in, const Sink& sink) {
    State& s = *state_;
    while (!s.pending.empty()) {  // rare: at most 8 bytes, only after a stream's end
        const std::vector<std::uint8_t> pending = std::exchange(s.pending, {});
        for (std::span<const std::uint8_t> p(pending); !p.empty();) p = p.subspan(step(p, sink));
    }
    if (in.empty()) return 0;
    switch (s.phase) {
        case State::Phase::header: return header(in);
        case State::Phase::body: return body(in, sink);
        case State::Phase::ended: break;
    }
    throw Error("trailing data after the end of the stream");
}

// Reads header bytes until the header ends (then the body starts) or the input does.
std::size_t StreamInflater::header(std::span<const std::uint8_t> in) {
    State& s = *state_;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (format_ == Format::zlib) {
            if (s.zlib_first < 0) {
                s.zlib_first = in[i];
                continue;
            }
            if (!zlib_header_ok(std::uint8_t(s.zlib_first), in[i])) throw_corrupt(format_, members_);
            start_body();
            return i + 1;
        }
        switch (s.gzip.feed(in[i])) {
            case HeaderStatus::need_more: break;
            case HeaderStatus::invalid: throw_corrupt(format_, members_);
            case HeaderStatus::done: start_body(); return i + 1;
        }
    }
    return in.size();
}

// Decodes until the input is used up or the member ends; returns the input used.
std::size_t StreamInflater::body(std::span<const std::uint8_t> in, const Sink& sink) {
    State& s = *state_;
    inflate_state& z = s.isal;
    // ISA-L counts input in 32 bits; a larger piece is fed in parts by feed()'s loop.
    const std::size_t given = std::min<std::size_t>(in.size(), std::numeric_limits<std::uint32_t>::max() / 2);
    z.next_in = const_cast<std::uint8_t*>(in.data());
    z.avail_in = std::uint32_t(given);
    for (;;) {
        z.next_out = s.out.data();
        z.avail_out = std::uint32_t(s.out.size());
        const std::uint32_t avail_in = z.avail_in;
        const int r = isal_inflate(&z);
        const std::size_t produced = s.out.size() - z.avail_out;
        // What was decoded before an error (a member's last bytes before its CRC-32 is
        // found wrong) is written first, as the parallel decoders do.
        if (produced) {
            out_bytes_ += produced;
            sink({s.out.data(), produced});
        }
        // An error, or a call that neither read nor wrote (which would loop for ever).
        if (r < 0 || (produced == 0 && z.avail_in == avail_in && avail_in != 0 && z.block_state != ISAL_BLOCK_FINISH))
            throw_corrupt(format_, members_);
        if (z.block_state == ISAL_BLOCK_FINISH) {
            // ISA-L may have read whole bytes past the end into its bit buffer (the zlib
            // trailer, raw DEFLATE): those are the input's next bytes, to be read again.
            const std::size_t used = given - z.avail_in, held = std::size_t(z.read_in_length) / 8;
            for (std::size_t i = 0; i < held; ++i) s.pending.push_back(std::uint8_t(z.read_in >> (z.read_in_length % 8 + 8 * i)));
            z.read_in = 0;
            z.read_in_length = 0;
            const std::size_t back = std::min(held, used);
            s.pending.erase(s.pending.end() - std::ptrdiff_t(back), s.pending.end());
            ++members_;
            if (format_ == Format::gzip) {
                s.gzip.reset();
                s.phase = State::Phase::header;
            } else {
                s.phase = State::Phase::ended;
            }
            return used - back;
        }
        if (z.avail_out != 0 && z.avail_in == 0) return given;
    }
}

void StreamInflater::finish(const Sink& sink) {
    State& s = *state_;
    // ISA-L may hold the last bytes of a trailer until it is called once more.
    if (s.phase == State::Phase::body) body({}, sink);
    if (!s.pending.empty()) step({}, sink);
    const bool between_members = s.phase == State::Phase::header && s.gzip.seen() == 0 && s.zlib_first < 0;
    if (s.phase == State::Phase::ended || (format_ == Format::gzip && members_ > 0 && between_members)) return;
    if (members_ == 0 && in_bytes_ == 0) throw Error(std::string("not in ") + format_name(format_) + " format (empty input)");
    throw_corrupt(format_, members_);
}

}  // namespace flowdeflate::inflate
