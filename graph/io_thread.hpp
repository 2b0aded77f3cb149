// io_thread.hpp - an I/O thread of the file-descriptor graphs (reader, chunker, writer),
// started before the graph so that a failure to create one is a clean error
// (flowdeflate::Error) and not an exception inside a running graph.
#pragma once

#include <functional>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "flowdeflate/core.hpp"

namespace flowdeflate::graph {

/// An I/O thread that is stopped and joined whatever happens: if it is still running when
/// this goes (an exception on the way out), `stop` runs first, then the join.
class IoThread {
public:
    IoThread() = default;
    /// Starts @p body; throws flowdeflate::Error naming @p what when no thread can be made.
    template <class Body>
    void start(const char* what, std::function<void()> stop, Body&& body) {
        stop_ = std::move(stop);
        try {
            thread_ = std::thread(std::forward<Body>(body));
        } catch (const std::system_error& e) {
            throw Error(std::string("cannot start the ") + what + " thread: " + e.what());
        }
    }
    void join() {
        if (thread_.joinable()) thread_.join();
    }
    ~IoThread() {
        if (thread_.joinable()) {
            if (stop_) stop_();
            thread_.join();
        }
    }
    IoThread(const IoThread&) = delete;
    IoThread& operator=(const IoThread&) = delete;

private:
    std::function<void()> stop_;
    std::thread thread_;
};

}  // namespace flowdeflate::graph
