// failure.cpp - see failure.hpp.
#include "graph/failure.hpp"

namespace flowdeflate::graph {

void Failure::fail(std::exception_ptr e) {
    {
        std::lock_guard lock(mutex_);
        if (first_) return;
        first_ = e;
        failed_ = true;
    }
    if (on_fail_) on_fail_();
}

void Failure::rethrow() const {
    std::lock_guard lock(mutex_);
    if (first_) std::rethrow_exception(first_);
}

void check_cancelled(const Options& options) {
    if (options.stop.stop_requested() || (options.context && options.context->is_group_execution_cancelled()))
        throw Cancelled("compression was cancelled");
}

}  // namespace flowdeflate::graph
