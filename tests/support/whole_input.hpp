// tests/support/whole_input.hpp - a buffer seen as a core::InputStream that has ended:
// every byte present from the start (the graph's input windows fill as they read).
#pragma once

#include <span>

#include "core/input_stream.hpp"

namespace flowdeflate::testing {

class WholeInput final : public core::InputStream {
public:
    explicit WholeInput(std::span<const core::u8> in) : in_(in) {}
    const core::u8* begin() const override { return in_.data(); }
    const core::u8* ensure(const core::u8* /*need*/) override { return in_.data() + in_.size(); }
    void release_before(const core::u8* /*p*/) override {}

private:
    std::span<const core::u8> in_;
};

}  // namespace flowdeflate::testing
