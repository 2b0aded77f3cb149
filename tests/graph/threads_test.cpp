// threads_test.cpp - the thread count a call runs on (graph/threads.hpp): the cgroup CPU
// quota read from mountinfo/cgroup texts and quota files (v1 and v2, nested cgroups,
// namespaced mounts, no quota), and thread_count()'s order of precedence.
#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include <map>
#include <optional>
#include <string>

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

}  // namespace
}  // namespace flowdeflate::graph
