// threads_test.cpp - the thread count a call runs on (graph/threads.hpp): the cgroup CPU
// quota read from mountinfo/cgroup texts and quota files (v1 and v2, nested cgroups,
// namespaced mounts, no quota), and thread_count()'s order of precedence.
#include <gtest/gtest.h>

#include <sched.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "graph/arena.hpp"
#include "graph/pinning.hpp"
#include "graph/threads.hpp"

namespace flowdeflate::graph {
namespace {

// A file system of first lines, by path.
struct Files {
    std::map<std::string, std::string> lines;
    std::optional<std::string> operator()(const std::string& path) const {
        const auto it = lines.find(path);
        if (it == lines.end()) return std::nullopt;
        return it->second;
    }
};

constexpr const char* kV2Mount = "41 31 0:38 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n";
constexpr const char* kV1Mounts =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:9 - cgroup cgroup rw,cpu,cpuacct\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n";

TEST(Threads, CgroupV2QuotaIsReadFromTheProcessesCgroup) {
    const Files files{{{"/sys/fs/cgroup/app/cpu.max", "150000 100000"}, {"/sys/fs/cgroup/cpu.max", "max 100000"}}};
    const auto limit = cgroup_cpu_limit(kV2Mount, "0::/app\n", files);
    ASSERT_TRUE(limit);
    EXPECT_DOUBLE_EQ(*limit, 1.5);
}

TEST(Threads, CgroupV2NoQuotaIsNone) {
    const Files files{{{"/sys/fs/cgroup/app/cpu.max", "max 100000"}}};
    EXPECT_FALSE(cgroup_cpu_limit(kV2Mount, "0::/app\n", files));
    EXPECT_FALSE(cgroup_cpu_limit(kV2Mount, "0::/app\n", Files{}));  // no cpu controller files
}

TEST(Threads, TheSmallestQuotaOnThePathToTheRootWins) {
    const Files files{{{"/sys/fs/cgroup/a/b/cpu.max", "400000 100000"},
                       {"/sys/fs/cgroup/a/cpu.max", "100000 100000"},
                       {"/sys/fs/cgroup/cpu.max", "800000 100000"}}};
    const auto limit = cgroup_cpu_limit(kV2Mount, "0::/a/b\n", files);
    ASSERT_TRUE(limit);
    EXPECT_DOUBLE_EQ(*limit, 1.0);
}

TEST(Threads, CgroupV1QuotaAndPeriod) {
    const std::string cgroup = "4:memory:/docker/x\n3:cpu,cpuacct:/docker/x\n0::/\n";
    const Files files{{{"/sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_quota_us", "50000"},
                       {"/sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000"},
                       {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1"},
                       {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000"}}};
    const auto limit = cgroup_cpu_limit(kV1Mounts, cgroup, files);
    ASSERT_TRUE(limit);
    EXPECT_DOUBLE_EQ(*limit, 0.5);
}

TEST(Threads, CgroupV1UnlimitedIsNone) {
    const Files files{{{"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1"},
                       {"/sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000"}}};
    EXPECT_FALSE(cgroup_cpu_limit(kV1Mounts, "3:cpu,cpuacct:/\n", files));
}

TEST(Threads, ANamespacedMountIsTheProcessesOwnCgroup) {
    // Inside a container the mount's root is the container's cgroup: the quota lies at
    // the mount point itself, whatever /proc/self/cgroup says.
    const std::string mount = "41 31 0:38 /docker/x /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
    const Files files{{{"/sys/fs/cgroup/cpu.max", "200000 100000"}}};
    for (const char* cgroup : {"0::/docker/x\n", "0::/\n"}) {
        const auto limit = cgroup_cpu_limit(mount, cgroup, files);
        ASSERT_TRUE(limit) << cgroup;
        EXPECT_DOUBLE_EQ(*limit, 2.0);
    }
}

TEST(Threads, NoCgroupMountsIsNone) {
    EXPECT_FALSE(cgroup_cpu_limit("", "", Files{}));
    EXPECT_FALSE(cgroup_cpu_limit("garbage without a separator\n", "0::/\n", Files{}));
}

TEST(Threads, AvailableCoresIsAtLeastOneAndAtMostTheAffinity) {
    EXPECT_GE(available_cores(), 1);
    EXPECT_LE(available_cores(), tbb::info::default_concurrency());
}

TEST(Threads, ThreadCountPrefersTheArenaThenTheOption) {
    Options o;
    EXPECT_EQ(thread_count(o), available_cores());
    o.threads = 7;
    EXPECT_EQ(thread_count(o), 7);
    tbb::task_arena arena(3);
    o.arena = &arena;
    EXPECT_EQ(thread_count(o), 3);
    // From a task of an arena the application sized, that arena's concurrency.
    const int cores = tbb::info::default_concurrency();
    tbb::task_arena mine(cores == 5 ? 6 : 5);
    mine.execute([&] { EXPECT_EQ(thread_count(Options{}), mine.max_concurrency()); });
}

// The CPUs a thread may run on.
std::set<int> allowed_cpus() {
    cpu_set_t mask;
    CPU_ZERO(&mask);
    EXPECT_EQ(sched_getaffinity(0, sizeof mask, &mask), 0);
    std::set<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &mask)) cpus.insert(c);
    return cpus;
}

// Each thread of a pinned arena runs on a CPU of its own: the caller on the one it was on,
// each worker that joins on another; the caller's mask comes back at the end.  Only a run
// on every CPU of the mask is pinned: with more threads or fewer, nothing is.
TEST(Pinning, EachThreadOnACpuOfItsOwnAndTheCallerGetsItsMaskBack) {
    const std::set<int> before = allowed_cpus();
    for (const int threads : {2, int(before.size()), int(before.size()) + 1, int(before.size()) - 1}) {
        if (threads < 2) continue;
        SCOPED_TRACE(std::to_string(threads) + " threads, " + std::to_string(before.size()) + " CPUs");
        std::optional<AllowParallelism> allow;
        if (threads > tbb::info::default_concurrency()) allow.emplace(std::size_t(threads));
        tbb::task_arena arena(threads);
        initialize_arena(arena);
        std::mutex mutex;
        std::map<int, std::set<int>> cpus_of_slot;  // the masks seen by each slot's thread
        std::set<int> caller_mask;
        {
            const PinnedThreads pinned(arena, true);
            const bool pins = std::size_t(threads) == before.size();
            EXPECT_EQ(pinned.cpus().size(), pins ? before.size() : 0u);
            caller_mask = allowed_cpus();
            std::atomic<int> started{0};
            arena.execute([&] {
                tbb::parallel_for(0, threads * 8, [&](int) {
                    pinned.here();
                    // Hold each task until every thread could have joined.
                    started.fetch_add(1);
                    for (int spin = 0; spin < 200000 && started.load() < threads; ++spin) {
                    }
                    const std::set<int> mine = allowed_cpus();
                    std::lock_guard lock(mutex);
                    cpus_of_slot[tbb::this_task_arena::current_thread_index()].insert(mine.begin(), mine.end());
                });
            });
            if (pins) {
                EXPECT_EQ(caller_mask.size(), 1u) << "the caller is not pinned";
                std::set<int> used;
                for (const auto& [slot, cpus] : cpus_of_slot) {
                    EXPECT_EQ(cpus.size(), 1u) << "slot " << slot << " ran unpinned";
                    EXPECT_TRUE(used.insert(*cpus.begin()).second) << "slot " << slot << " shares its CPU";
                }
            } else {
                EXPECT_EQ(caller_mask, before);
            }
        }
        EXPECT_EQ(allowed_cpus(), before) << "the caller's mask did not come back";
    }
}

}  // namespace
}  // namespace flowdeflate::graph
