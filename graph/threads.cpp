// threads.cpp - see threads.hpp.
#include "graph/threads.hpp"

#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

namespace flowdeflate::graph {
namespace {

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    for (std::size_t at = 0;;) {
        const std::size_t next = s.find(sep, at);
        parts.push_back(s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
        if (next == std::string_view::npos) return parts;
        at = next + 1;
    }
}

bool has_token(std::string_view list, std::string_view token) {
    for (std::string_view t : split(list, ','))
        if (t == token) return true;
    return false;
}

std::optional<double> number(std::string_view s) {
    try {
        std::size_t used = 0;
        const double v = std::stod(std::string(s), &used);
        if (used == 0 || !(v > 0)) return std::nullopt;
        return v;
    } catch (...) {
        return std::nullopt;
    }
}

// The process's path in the hierarchy a line of /proc/self/cgroup names: v2's "0::/path",
// or the v1 line whose controllers include "cpu".
std::optional<std::string> cgroup_path(std::string_view cgroup, bool v2) {
    for (std::string_view line : split(cgroup, '\n')) {
        const std::size_t c1 = line.find(':'), c2 = c1 == std::string_view::npos ? c1 : line.find(':', c1 + 1);
        if (c2 == std::string_view::npos) continue;
        const std::string_view controllers = line.substr(c1 + 1, c2 - c1 - 1);
        if (v2 ? line.substr(0, c1) == "0" && controllers.empty() : has_token(controllers, "cpu"))
            return std::string(line.substr(c2 + 1));
    }
    return std::nullopt;
}

// The quota one cgroup directory sets, in CPUs.
std::optional<double> quota_in(const std::string& dir, bool v2,
                               const std::function<std::optional<std::string>(const std::string&)>& read_file) {
    if (v2) {
        const std::optional<std::string> max = read_file(dir + "/cpu.max");  // "max 100000" or "150000 100000"
        if (!max) return std::nullopt;
        const std::vector<std::string_view> f = split(*max, ' ');
        if (f.size() < 2 || f[0] == "max") return std::nullopt;
        const auto quota = number(f[0]), period = number(f[1]);
        if (!quota || !period) return std::nullopt;
        return *quota / *period;
    }
    const std::optional<std::string> q = read_file(dir + "/cpu.cfs_quota_us");  // -1: none
    const std::optional<std::string> p = read_file(dir + "/cpu.cfs_period_us");
    if (!q || !p) return std::nullopt;
    const auto quota = number(*q), period = number(*p);
    if (!quota || !period) return std::nullopt;
    return *quota / *period;
}

std::optional<std::string> first_line(const std::string& path) {
    std::ifstream f(path);
    std::string line;
    if (!f || !std::getline(f, line)) return std::nullopt;
    return line;
}

std::string whole(const char* path) {
    std::ifstream f(path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace

std::optional<double> cgroup_cpu_limit(std::string_view mountinfo, std::string_view cgroup,
                                       const std::function<std::optional<std::string>(const std::string&)>& read_file) {
    std::optional<double> limit;
    for (std::string_view line : split(mountinfo, '\n')) {
        // "ID PARENT MAJ:MIN ROOT MOUNT-POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER-OPTIONS"
        const std::size_t dash = line.find(" - ");
        if (dash == std::string_view::npos) continue;
        const std::vector<std::string_view> left = split(line.substr(0, dash), ' ');
        const std::vector<std::string_view> right = split(line.substr(dash + 3), ' ');
        if (left.size() < 5 || right.size() < 3) continue;
        const bool v2 = right[0] == "cgroup2";
        if (!v2 && !(right[0] == "cgroup" && has_token(right[2], "cpu"))) continue;
        const std::optional<std::string> path = cgroup_path(cgroup, v2);
        if (!path) continue;
        // The mount shows the hierarchy from ROOT down; a path outside it (a cgroup
        // namespace) means the mount point is the process's own cgroup.
        const std::string root(left[3]), mount(left[4]);
        std::string rel;
        if (root == "/")
            rel = *path;
        else if (path->compare(0, root.size(), root) == 0 && (path->size() == root.size() || (*path)[root.size()] == '/'))
            rel = path->substr(root.size());
        if (rel == "/") rel.clear();
        for (std::string dir = mount + rel;;) {
            if (const std::optional<double> q = quota_in(dir, v2, read_file)) limit = std::min(limit.value_or(*q), *q);
            if (dir.size() <= mount.size()) break;
            dir.erase(dir.rfind('/'));
        }
    }
    return limit;
}

int available_cores() {
    static const int cores = [] {
        const int affinity = std::max(1, tbb::info::default_concurrency());
        const std::optional<double> quota =
            cgroup_cpu_limit(whole("/proc/self/mountinfo"), whole("/proc/self/cgroup"), first_line);
        if (!quota) return affinity;
        return std::clamp(int(std::ceil(*quota - 1e-9)), 1, affinity);
    }();
    return cores;
}

int thread_count(const Options& options) {
    if (options.arena) return options.arena->max_concurrency();
    if (options.threads > 0) return options.threads;
    if (tbb::this_task_arena::current_thread_index() != tbb::task_arena::not_initialized) {
        const int here = tbb::this_task_arena::max_concurrency();
        if (here != tbb::info::default_concurrency()) return here;
    }
    return available_cores();
}

}  // namespace flowdeflate::graph
