// failure.hpp - how a run stops: its first failure (and what to stop when it happens),
// and the caller's cancellation (Options::stop, Options::context), checked where a graph
// asks for input or hands on output.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <mutex>

#include "core/input_stream.hpp"
#include "flowdeflate/options.hpp"

namespace flowdeflate::graph {

/// The first failure of a run, and what to stop when it happens.  Thread-safe.
class Failure {
public:
    explicit Failure(std::function<void()> on_fail = {}) : on_fail_(std::move(on_fail)) {}
    void fail(std::exception_ptr e);
    [[nodiscard]] bool failed() const { return failed_.load(std::memory_order_relaxed); }
    /// Throws the first failure, if any.
    void rethrow() const;

private:
    std::function<void()> on_fail_;
    mutable std::mutex mutex_;
    std::exception_ptr first_;
    std::atomic<bool> failed_{false};
};

/// Throws flowdeflate::Cancelled when the options' stop token or context asks to stop.
void check_cancelled(const Options& options);

/// The sequential compressor's input with the cancellation check added: it asks for
/// input at every block start, so a cancelled call stops within one block.
class CancellableInput final : public core::InputStream {
public:
    CancellableInput(core::InputStream& in, const Options& options) : in_(in), options_(options) {}
    const std::uint8_t* begin() const override { return in_.begin(); }
    const std::uint8_t* ensure(const std::uint8_t* need) override {
        check_cancelled(options_);
        return in_.ensure(need);
    }
    void release_before(const std::uint8_t* p) override { in_.release_before(p); }

private:
    core::InputStream& in_;
    const Options& options_;
};

}  // namespace flowdeflate::graph
