#include <flowdeflate/flowdeflate.hpp>
#include <cstdio>

int main() {
    std::vector<std::uint8_t> data(10'000'000, 'x');       // any bytes
    flowdeflate::Options options;                           // level 6, gzip, all cores
    options.level = 9;
    const auto gz = flowdeflate::compress(data, options);   // = libdeflate-gzip -9's bytes
    std::printf("%zu -> %zu bytes\n", data.size(), gz.size());
    return flowdeflate::decompress(gz) == data ? 0 : 1;
}
