// tests/support/core_streams.hpp - the core's stream ends for tests: a buffer seen as a
// core::InputStream that has ended (every byte present from the start; the graph's input
// windows fill as they read), and a SegmentSink that collects the output and the size of
// each segment.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "core/input_stream.hpp"
#include "core/segmented_output.hpp"

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

class CollectSegments final : public core::SegmentSink {
public:
    void write(core::SegmentBuffer&& segment) override {
        sizes.push_back(segment.size());
        bytes.insert(bytes.end(), segment.data(), segment.data() + segment.size());
    }
    std::vector<core::u8> bytes;
    std::vector<std::size_t> sizes;
};

}  // namespace flowdeflate::testing
