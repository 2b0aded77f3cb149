// tests/support/reference.cpp - loads the reference libdeflate (>= 1.19) with dlopen and
// exposes it through dlsym()'d function pointers.  See reference.hpp for why it is done
// this way (the system libdeflate 1.14 is linked into the same process).
#include "support/reference.hpp"
#include "support/sanitizers.hpp"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1  // RTLD_DEEPBIND, dlmopen, dlinfo
#endif
#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <utility>

#ifndef FLOWDEFLATE_REFERENCE_LIB
#ifdef FLOWDEFLATE_SOURCE_DIR
#define FLOWDEFLATE_REFERENCE_LIB FLOWDEFLATE_SOURCE_DIR "/build/reference/libdeflate.so.0"
#else
#define FLOWDEFLATE_REFERENCE_LIB "build/reference/libdeflate.so.0"
#endif
#endif

// Sanitizer runtimes abort on dlopen(RTLD_DEEPBIND); use a separate namespace there.
#define FLOWDEFLATE_REFERENCE_USE_DLMOPEN FLOWDEFLATE_SANITIZED

namespace flowdeflate::testing {

namespace {

// libdeflate's ABI, with its opaque struct pointers as void*.  LIBDEFLATEAPI is empty on
// x86-64 and aarch64 (force_align_arg_pointer is only used on 32-bit x86).
using AllocCompressorFn = void* (*)(int);
using CompressFn = std::size_t (*)(void*, const void*, std::size_t, void*, std::size_t);
using BoundFn = std::size_t (*)(void*, std::size_t);
using FreeFn = void (*)(void*);
using AllocDecompressorFn = void* (*)();
using DecompressExFn = int (*)(void*, const void*, std::size_t, void*, std::size_t,
                               std::size_t*, std::size_t*);

constexpr int kLibdeflateSuccess = 0;  // enum libdeflate_result LIBDEFLATE_SUCCESS

std::size_t format_index(Format f) {
    switch (f) {
        case Format::deflate: return 0;
        case Format::zlib: return 1;
        case Format::gzip: return 2;
    }
    throw std::invalid_argument("flowdeflate::testing::Reference: unknown Format value");
}

std::string trim(std::string s) {
    const char* ws = " \t\r\n";
    const auto b = s.find_first_not_of(ws);
    if (b == std::string::npos) return {};
    const auto e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

std::optional<std::string> read_stamp(const std::filesystem::path& dir) {
    std::ifstream f(dir / ".done");
    if (!f) return std::nullopt;
    std::stringstream ss;
    ss << f.rdbuf();
    std::string v = trim(ss.str());
    if (v.empty()) return std::nullopt;
    return v;
}

}  // namespace

const char* format_name(Format f) noexcept {
    switch (f) {
        case Format::deflate: return "deflate";
        case Format::zlib: return "zlib";
        case Format::gzip: return "gzip";
    }
    return "?";
}

struct Reference::Impl {
    std::string path;
    void* handle = nullptr;
    const char* mode = "";

    AllocCompressorFn alloc_compressor = nullptr;
    CompressFn compress[3] = {};
    BoundFn bound[3] = {};
    FreeFn free_compressor = nullptr;
    AllocDecompressorFn alloc_decompressor = nullptr;
    DecompressExFn decompress[3] = {};
    FreeFn free_decompressor = nullptr;

    // Pools of idle libdeflate objects.  A caller takes one (or allocates a new one), uses
    // it without holding the lock, and gives it back.
    std::mutex mu;
    std::vector<void*> idle_compressors[kMaxLevel + 1];
    std::vector<void*> idle_decompressors;

    ~Impl() {
        // The library itself is never dlclose()d: other static destructors may still run.
        for (auto& pool : idle_compressors)
            for (void* c : pool) free_compressor(c);
        for (void* d : idle_decompressors) free_decompressor(d);
    }

    void* take_compressor(int level) {
        {
            std::lock_guard lock(mu);
            auto& pool = idle_compressors[level];
            if (!pool.empty()) {
                void* c = pool.back();
                pool.pop_back();
                return c;
            }
        }
        void* c = alloc_compressor(level);
        if (c == nullptr)
            throw std::runtime_error("reference libdeflate_alloc_compressor(" +
                                     std::to_string(level) + ") failed (out of memory?)");
        return c;
    }
    void give_compressor(int level, void* c) {
        std::lock_guard lock(mu);
        idle_compressors[level].push_back(c);
    }
    void* take_decompressor() {
        {
            std::lock_guard lock(mu);
            if (!idle_decompressors.empty()) {
                void* d = idle_decompressors.back();
                idle_decompressors.pop_back();
                return d;
            }
        }
        void* d = alloc_decompressor();
        if (d == nullptr)
            throw std::runtime_error("reference libdeflate_alloc_decompressor() failed");
        return d;
    }
    void give_decompressor(void* d) {
        std::lock_guard lock(mu);
        idle_decompressors.push_back(d);
    }
};

namespace {

struct LoadResult {
    std::unique_ptr<Reference> ref;
    std::string error;
};

template <typename Fn>
Fn must_sym(void* handle, const char* name, const std::string& path, const std::string& lm_name) {
    dlerror();
    void* p = dlsym(handle, name);
    if (p == nullptr) {
        const char* err = dlerror();
        throw ReferenceUnavailable("reference library " + path + " lacks symbol " + name +
                                   (err ? std::string(": ") + err : std::string()) +
                                   " (is it libdeflate >= 1.19?)");
    }
    // Make sure the symbol really lives in the object we loaded, not in the system
    // libdeflate that the product links.
    Dl_info info{};
    if (!lm_name.empty() && dladdr(p, &info) != 0 && info.dli_fname != nullptr &&
        lm_name != info.dli_fname) {
        throw ReferenceUnavailable(std::string("reference symbol ") + name + " resolved to " +
                                   info.dli_fname + " instead of " + lm_name);
    }
    return reinterpret_cast<Fn>(p);
}

}  // namespace

std::string Reference::configured_path() {
    if (const char* env = std::getenv("FLOWDEFLATE_REFERENCE_LIB"); env != nullptr && *env)
        return env;
    return FLOWDEFLATE_REFERENCE_LIB;
}

Reference& Reference::get() {
    static LoadResult loaded = []() -> LoadResult {
        LoadResult r;
        auto impl = std::make_unique<Impl>();
        impl->path = configured_path();
        const std::string& path = impl->path;
        try {
            std::error_code ec;
            if (!std::filesystem::exists(path, ec))
                throw ReferenceUnavailable(
                    "reference libdeflate not found at " + path +
                    "; run scripts/setup (it unpacks libdeflate >= 1.19 under build/reference/)"
                    " or set FLOWDEFLATE_REFERENCE_LIB to a libdeflate.so >= 1.19");
            dlerror();
#if FLOWDEFLATE_REFERENCE_USE_DLMOPEN
            impl->handle = dlmopen(LM_ID_NEWLM, path.c_str(), RTLD_NOW | RTLD_LOCAL);
            impl->mode = "dlmopen(LM_ID_NEWLM)";
#else
            impl->handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
            impl->mode = "dlopen(RTLD_DEEPBIND)";
#endif
            if (impl->handle == nullptr) {
                const char* err = dlerror();
                throw ReferenceUnavailable("cannot load reference libdeflate " + path + ": " +
                                           (err ? err : "unknown dlopen error"));
            }
            std::string lm_name;
            link_map* lm = nullptr;
            if (dlinfo(impl->handle, RTLD_DI_LINKMAP, &lm) == 0 && lm != nullptr &&
                lm->l_name != nullptr)
                lm_name = lm->l_name;

            auto sym = [&]<typename Fn>(Fn& slot, const char* name) {
                slot = must_sym<Fn>(impl->handle, name, path, lm_name);
            };
            sym(impl->alloc_compressor, "libdeflate_alloc_compressor");
            sym(impl->compress[0], "libdeflate_deflate_compress");
            sym(impl->compress[1], "libdeflate_zlib_compress");
            sym(impl->compress[2], "libdeflate_gzip_compress");
            sym(impl->bound[0], "libdeflate_deflate_compress_bound");
            sym(impl->bound[1], "libdeflate_zlib_compress_bound");
            sym(impl->bound[2], "libdeflate_gzip_compress_bound");
            sym(impl->free_compressor, "libdeflate_free_compressor");
            sym(impl->alloc_decompressor, "libdeflate_alloc_decompressor");
            sym(impl->decompress[0], "libdeflate_deflate_decompress_ex");
            sym(impl->decompress[1], "libdeflate_zlib_decompress_ex");
            sym(impl->decompress[2], "libdeflate_gzip_decompress_ex");
            sym(impl->free_decompressor, "libdeflate_free_decompressor");

            // The tests use level 0 (stored blocks only); fail early and clearly if this
            // library rejects it.  This also pre-allocates the first compressor.
            void* c0 = impl->alloc_compressor(0);
            if (c0 == nullptr)
                throw ReferenceUnavailable("reference libdeflate " + path +
                                           " rejects compression level 0 (too old?)");
            impl->give_compressor(0, c0);
            r.ref.reset(new Reference(std::move(impl)));
        } catch (const std::exception& e) {
            r.error = e.what();
        }
        return r;
    }();
    if (!loaded.ref) throw ReferenceUnavailable(loaded.error);
    return *loaded.ref;
}

Reference::Reference(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Reference::~Reference() = default;

const std::string& Reference::path() const noexcept { return impl_->path; }

const char* Reference::load_mode() const noexcept { return impl_->mode; }

std::string Reference::version() const {
    namespace fs = std::filesystem;
    const fs::path p(impl_->path);
    if (auto v = read_stamp(p.parent_path())) return *v;
    std::error_code ec;
    const fs::path real = fs::canonical(p, ec);
    if (!ec)
        if (auto v = read_stamp(real.parent_path())) return *v;
    return "unknown";
}

namespace {

void check_level(int level) {
    if (level < kMinLevel || level > kMaxLevel)
        throw std::invalid_argument("flowdeflate::testing::Reference: level " +
                                    std::to_string(level) + " outside 0..12");
}

// Returns a compressor to its pool when the call ends, also on exceptions.
struct CompressorLease {
    Reference::Impl* impl;
    int level;
    void* c;
    CompressorLease(Reference::Impl* i, int l) : impl(i), level(l), c(i->take_compressor(l)) {}
    ~CompressorLease() { impl->give_compressor(level, c); }
    CompressorLease(const CompressorLease&) = delete;
    CompressorLease& operator=(const CompressorLease&) = delete;
};

}  // namespace

std::vector<std::uint8_t> Reference::compress(std::span<const std::uint8_t> in, int level,
                                              Format f) {
    check_level(level);
    const std::size_t fi = format_index(f);
    static const std::uint8_t kDummy = 0;
    const void* src = in.empty() ? &kDummy : in.data();

    CompressorLease lease(impl_.get(), level);
    void* c = lease.c;
    std::vector<std::uint8_t> out(impl_->bound[fi](c, in.size()));
    const std::size_t n = impl_->compress[fi](c, src, in.size(), out.data(), out.size());
    if (n == 0)
        throw std::runtime_error(std::string("reference libdeflate_") + format_name(f) +
                                 "_compress returned 0 for " + std::to_string(in.size()) +
                                 " bytes at level " + std::to_string(level));
    out.resize(n);
    return out;
}

std::size_t Reference::compress_into(std::span<const std::uint8_t> in, int level, Format f,
                                     std::span<std::uint8_t> out) {
    check_level(level);
    const std::size_t fi = format_index(f);
    static const std::uint8_t kDummyIn = 0;
    std::uint8_t dummy_out = 0;
    const void* src = in.empty() ? &kDummyIn : in.data();
    void* dst = out.empty() ? &dummy_out : out.data();
    CompressorLease lease(impl_.get(), level);
    return impl_->compress[fi](lease.c, src, in.size(), dst, out.size());
}

std::size_t Reference::compress_bound(std::size_t n, Format f) {
    return impl_->bound[format_index(f)](nullptr, n);
}

std::optional<std::vector<std::uint8_t>> Reference::decompress(std::span<const std::uint8_t> in,
                                                               std::size_t expected_size,
                                                               Format f) {
    const std::size_t fi = format_index(f);
    static const std::uint8_t kDummyIn = 0;
    const void* src = in.empty() ? &kDummyIn : in.data();
    std::vector<std::uint8_t> out(expected_size == 0 ? 1 : expected_size);

    void* d = impl_->take_decompressor();
    std::size_t in_used = 0, out_len = 0;
    const int rc = impl_->decompress[fi](d, src, in.size(), out.data(), expected_size, &in_used,
                                         &out_len);
    impl_->give_decompressor(d);
    if (rc != kLibdeflateSuccess || in_used != in.size() || out_len > expected_size)
        return std::nullopt;
    out.resize(out_len);
    return out;
}

}  // namespace flowdeflate::testing
