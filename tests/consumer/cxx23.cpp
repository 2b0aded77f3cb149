// cxx23.cpp - a C++23 program that uses flowdeflate: the package must not pull it back to
// C++20 (no -std in the pkg-config Cflags; the CMake target asks for cxx_std_20 as a
// minimum only).  Built by scripts/check-install with CMake and with pkg-config.
#include <flowdeflate/flowdeflate.hpp>

#include <cstdio>

static_assert(__cplusplus > 202002L, "this consumer is compiled as C++23, and must stay so");

int main() {
    const std::vector<std::uint8_t> data(100'000, 'y');
    const auto gz = flowdeflate::compress(data);
    std::printf("C++23 consumer: %zu -> %zu bytes\n", data.size(), gz.size());
    return flowdeflate::decompress(gz) == data ? 0 : 1;
}
