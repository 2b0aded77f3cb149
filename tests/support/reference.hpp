// tests/support/reference.hpp - the in-process reference compressor (libdeflate >= 1.19).
//
// flowdeflate must write exactly the bytes libdeflate 1.19+ writes.  Tests and benchmarks
// compare against the reference libdeflate that scripts/setup unpacks under
// build/reference/ (Debian 13's 1.23 on a Debian 12 machine).
//
// Why dlopen: the product links the SYSTEM libdeflate (1.14 on Debian 12) for CRC-32 and
// decompression, and both libraries export the same symbol names and even the same SONAME
// (libdeflate.so.0).  The reference is therefore loaded with
//     dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)
// and used only through dlsym()'d function pointers.  RTLD_DEEPBIND matters: the
// reference's own internal calls (libdeflate_gzip_compress -> libdeflate_deflate_compress,
// libdeflate_crc32, ...) go through its PLT, and without DEEPBIND they would bind to the
// already-loaded system 1.14 library.  Sanitizer runtimes refuse RTLD_DEEPBIND, so in
// ASan/TSan/MSan builds the library is loaded into a fresh link-map namespace with
// dlmopen(LM_ID_NEWLM, ...) instead, which isolates it just as well.
//
// Never include <libdeflate.h> to call the reference: those declarations are the system
// library's.
//
// The library path is, in order: the environment variable FLOWDEFLATE_REFERENCE_LIB, else
// the compile-time definition FLOWDEFLATE_REFERENCE_LIB (set by CMake to
// ${FLOWDEFLATE_REFERENCE_DIR}/libdeflate.so.0), else build/reference/libdeflate.so.0
// under FLOWDEFLATE_SOURCE_DIR.
//
// All member functions are thread-safe.  Compressors (one per level) and decompressors are
// kept in small pools, so concurrent callers never share one libdeflate object and never
// wait for each other beyond a pool lock.
#pragma once

#include <flowdeflate/flowdeflate.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace flowdeflate::testing {

/// Thrown by Reference::get() when the reference library cannot be loaded or lacks a
/// required symbol.  The message names the path tried and how to fix it.
class ReferenceUnavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class Reference {
public:
    /// The process-wide reference, loaded on first use.  Throws ReferenceUnavailable (on
    /// every call, with the same message) when loading failed.
    static Reference& get();

    /// The path get() loads (or loaded): $FLOWDEFLATE_REFERENCE_LIB, else the compiled-in
    /// default.
    static std::string configured_path();

    /// The path actually loaded.
    [[nodiscard]] const std::string& path() const noexcept;

    /// The reference's version.  libdeflate's .so has no version function (the version
    /// exists only as LIBDEFLATE_VERSION_STRING in its header), so this reads the stamp
    /// file "<dir>/.done" that scripts/setup writes next to libdeflate.so.0 (it holds the
    /// Debian package version, e.g. "1.23-2").  The directory of the path as given is
    /// tried first, then that of the symlink-resolved path.  Returns "unknown" when no
    /// stamp exists (for example when scripts/setup found a new-enough system libdeflate
    /// and only symlinked it).
    [[nodiscard]] std::string version() const;

    /// How the library was isolated: "dlopen(RTLD_DEEPBIND)" or "dlmopen(LM_ID_NEWLM)".
    [[nodiscard]] const char* load_mode() const noexcept;

    /// Compresses @p in at @p level (0..12; 0 = stored blocks only) in format @p f, exactly
    /// as libdeflate_{deflate,zlib,gzip}_compress does.  Throws std::invalid_argument for a
    /// bad level and std::runtime_error if libdeflate fails (it cannot, given the bound).
    [[nodiscard]] std::vector<std::uint8_t> compress(std::span<const std::uint8_t> in, int level,
                                                     Format f);

    /// Compresses into @p out, whatever its capacity, exactly as libdeflate does: returns
    /// the number of bytes written, or 0 when the output does not fit (libdeflate then
    /// leaves unspecified bytes in @p out).  For testing the "output buffer too small"
    /// behaviour.
    std::size_t compress_into(std::span<const std::uint8_t> in, int level, Format f,
                              std::span<std::uint8_t> out);

    /// libdeflate_{deflate,zlib,gzip}_compress_bound(NULL, n): the level-independent bound
    /// of libdeflate >= 1.19.
    [[nodiscard]] std::size_t compress_bound(std::size_t n, Format f);

    /// Decompresses @p in with libdeflate_{deflate,zlib,gzip}_decompress_ex into a buffer
    /// of @p expected_size bytes.  Returns nullopt when the stream is invalid, when it
    /// decodes to more than @p expected_size bytes, or when it does not consume all of
    /// @p in (trailing bytes are an error here).  Otherwise returns the decoded bytes,
    /// which may be fewer than @p expected_size; callers compare them with the original.
    /// Only a single gzip member is decoded.
    [[nodiscard]] std::optional<std::vector<std::uint8_t>>
    decompress(std::span<const std::uint8_t> in, std::size_t expected_size, Format f);

    Reference(const Reference&) = delete;
    Reference& operator=(const Reference&) = delete;
    ~Reference();

    struct Impl;

private:
    explicit Reference(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// "deflate", "zlib" or "gzip".
const char* format_name(Format f) noexcept;

}  // namespace flowdeflate::testing
