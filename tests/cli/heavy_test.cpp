// heavy_test.cpp - opt-in checks too slow for every run (set FLOWDEFLATE_HEAVY=1):
// a stream of more than 4 GiB, where the gzip trailer's ISIZE wraps, compressed through
// a pipe must equal libdeflate-gzip's output for the same bytes, and must decompress
// (to the full size, not ISIZE's wrapped one) and test cleanly.  Needs ~5 GB of disk.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "support/test_data.hpp"

namespace {

bool heavy() { return std::getenv("FLOWDEFLATE_HEAVY") != nullptr; }

// Writes @p total bytes of generated data (a 4 MiB block, slightly changed each time)
// to @p fd.
void generate_stream(int fd, std::uint64_t total) {
    std::vector<std::uint8_t> block = flowdeflate::testing::generate(flowdeflate::testing::Kind::mixed, 4 << 20, 3);
    std::uint64_t sent = 0;
    for (std::uint32_t round = 0; sent < total; ++round) {
        block[(round * 7919u) % block.size()] ^= 0xa5;
        const std::size_t n = std::size_t(std::min<std::uint64_t>(block.size(), total - sent));
        std::size_t off = 0;
        while (off < n) {
            const ssize_t w = write(fd, block.data() + off, n - off);
            if (w <= 0) return;
            off += std::size_t(w);
        }
        sent += n;
    }
}

// Runs `sh -c command` with the generated stream on its stdin; returns the exit status.
int run_with_stream(const std::string& command, std::uint64_t total) {
    signal(SIGPIPE, SIG_IGN);  // a failing child must fail the test, not kill it
    FILE* p = popen(command.c_str(), "w");
    if (!p) return -1;
    generate_stream(fileno(p), total);
    const int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Heavy, StreamOver4GiBMatchesReferenceAndRoundTrips) {
    if (!heavy()) GTEST_SKIP() << "set FLOWDEFLATE_HEAVY=1 (compresses 4.5 GiB twice, needs ~5 GB RAM for the reference)";
    const char* bin = std::getenv("FLOWDEFLATE_BINARY");
    ASSERT_NE(bin, nullptr);
    const std::string ref = std::string(FLOWDEFLATE_SOURCE_DIR) + "/build/reference/libdeflate-gzip";
    char dir_tmpl[] = "/tmp/flowdeflate-heavy-XXXXXX";
    const std::string dir = mkdtemp(dir_tmpl);
    const std::uint64_t total = (std::uint64_t(9) << 29) + 12345;  // 4.5 GiB + a bit: ISIZE wraps
    ASSERT_EQ(run_with_stream(std::string(bin) + " -1 -c > " + dir + "/ours.gz", total), 0) << "flowdeflate";
    // libdeflate's gzip cannot take 4.5 GiB from a pipe (it reads stdin into one buffer
    // with a size limit), so it gets the same bytes from a file.
    ASSERT_EQ(run_with_stream("cat > " + dir + "/in", total), 0);
    ASSERT_EQ(std::system((ref + " -1 -c " + dir + "/in > " + dir + "/ref.gz").c_str()), 0) << "libdeflate-gzip";
    std::remove((dir + "/in").c_str());
    EXPECT_EQ(std::system(("cmp " + dir + "/ours.gz " + dir + "/ref.gz").c_str()), 0);
    EXPECT_EQ(std::system((std::string(bin) + " -t " + dir + "/ours.gz").c_str()), 0);
    // Decompress and count: the size must be the full 4.5 GiB, not ISIZE's wrapped value.
    const std::string count = std::string(bin) + " -dc " + dir + "/ours.gz | wc -c";
    FILE* p = popen(count.c_str(), "r");
    ASSERT_NE(p, nullptr);
    unsigned long long n = 0;
    EXPECT_EQ(std::fscanf(p, "%llu", &n), 1);
    pclose(p);
    EXPECT_EQ(n, total);
    std::system(("rm -rf " + dir).c_str());
}

}  // namespace
