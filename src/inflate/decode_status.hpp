// decode_status.hpp - how decoding a DEFLATE stream can end.
//
// Every way invalid or truncated data can stop the decoder has its own value, so that a
// test can check that each error path is reached and a caller (verifying a block-finder
// candidate, for example) can tell "not a block" from "ran out of input".
#pragma once

#include <cstdint>
#include <string_view>

namespace flowdeflate::inflate {

enum class DecodeStatus : std::uint8_t {
    ok,                     // stopped at stop_bit or after the final block
    invalid_block_type,     // BTYPE = 11
    invalid_stored_length,  // a stored block's LEN is not the complement of its NLEN
    invalid_precode,        // the code-length code is not a valid code
    invalid_code_lengths,   // a repeat with nothing to repeat, or more lengths than declared
    invalid_litlen_code,    // the literal/length lengths are not a valid code
    invalid_distance_code,  // the distance lengths are not a valid code
    distance_too_far,       // a back-reference before the start of what may be referenced
    truncated,              // the input ends inside a block
    output_limit,           // more output than DecodeLimits::max_output allows
};

constexpr std::string_view to_string(DecodeStatus status) noexcept {
    switch (status) {
    case DecodeStatus::ok: return "ok";
    case DecodeStatus::invalid_block_type: return "invalid block type";
    case DecodeStatus::invalid_stored_length: return "stored block length does not match its complement";
    case DecodeStatus::invalid_precode: return "invalid code-length code";
    case DecodeStatus::invalid_code_lengths: return "invalid run of code lengths";
    case DecodeStatus::invalid_litlen_code: return "invalid literal/length code";
    case DecodeStatus::invalid_distance_code: return "invalid distance code";
    case DecodeStatus::distance_too_far: return "distance reaches before the available history";
    case DecodeStatus::truncated: return "input ends inside a block";
    case DecodeStatus::output_limit: return "output limit reached";
    }
    return "unknown";
}

}  // namespace flowdeflate::inflate
