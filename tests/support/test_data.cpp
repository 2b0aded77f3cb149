// tests/support/test_data.cpp - deterministic test-input generators and the real-file
// picker.  See test_data.hpp.
#include "support/test_data.hpp"

#include <cstdlib>

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace flowdeflate::testing {

namespace fs = std::filesystem;

namespace {

std::uint64_t derive(std::uint64_t seed, std::uint64_t i) {
    Rng r(seed ^ (0xD1B54A32D192ED03ull * (i + 1)));
    return r.next();
}

// Appends to a byte vector until it holds n bytes; generators loop `while (w.more())`.
class Writer {
public:
    explicit Writer(std::size_t n) : n_(n) { out_.reserve(n + 256); }
    bool more() const noexcept { return out_.size() < n_; }
    void put(char c) { out_.push_back(static_cast<std::uint8_t>(c)); }
    void byte(std::uint8_t b) { out_.push_back(b); }
    void put(std::string_view s) { out_.insert(out_.end(), s.begin(), s.end()); }
    void fill(std::uint8_t b, std::size_t count) { out_.insert(out_.end(), count, b); }
    std::size_t size() const noexcept { return out_.size(); }
    Bytes& raw() noexcept { return out_; }
    Bytes finish() {
        out_.resize(n_);
        return std::move(out_);
    }

private:
    std::size_t n_;
    Bytes out_;
};

constexpr std::string_view kWords[] = {
    "the", "of", "and", "to", "a", "in", "is", "that", "it", "was", "for", "on", "are", "as",
    "with", "his", "they", "at", "be", "this", "from", "have", "or", "by", "one", "had", "not",
    "but", "what", "all", "were", "when", "we", "there", "can", "an", "your", "which", "their",
    "said", "if", "do", "will", "each", "about", "how", "up", "out", "them", "then", "she",
    "many", "some", "so", "these", "would", "other", "into", "has", "more", "her", "two", "like",
    "him", "see", "time", "could", "no", "make", "than", "first", "been", "its", "who", "now",
    "people", "my", "made", "over", "did", "down", "only", "way", "find", "use", "may", "water",
    "long", "little", "very", "after", "words", "called", "just", "where", "most", "know",
    "get", "through", "back", "much", "before", "go", "good", "new", "write", "our", "used",
    "me", "man", "too", "any", "day", "same", "right", "look", "think", "also", "around",
    "another", "came", "come", "work", "three", "word", "must", "because", "does", "part",
    "even", "place", "well", "such", "here", "take", "why", "things", "help", "put", "years",
    "different", "away", "again", "off", "went", "old", "number", "great", "tell", "men", "say",
    "small", "every", "found", "still", "between", "name", "should", "home", "big", "give",
    "air", "line", "set", "own", "under", "read", "last", "never", "us", "left", "end", "along",
    "while", "might", "next", "sound", "below", "saw", "something", "thought", "both", "few",
    "those", "always", "looked", "show", "large", "often", "together", "asked", "house",
    "world", "going", "want", "school", "important", "until", "form", "food", "keep",
    "children", "feet", "land", "side", "without", "boy", "once", "animals", "life", "enough",
    "took", "sometimes", "four", "head", "above", "kind", "began", "almost", "live", "page",
    "got", "earth", "need", "far", "hand", "high", "year", "mother", "light", "parts",
    "country", "father", "let", "night", "following", "picture", "being", "study", "second",
    "eyes", "soon", "times", "story", "boys", "since", "white", "days", "ever", "paper", "hard",
    "near", "sentence", "better", "best", "across", "during", "today", "others", "however",
    "sure", "means", "knew", "try", "told", "young", "miles", "sun", "ways", "thing", "whole",
    "hear", "example", "heard", "several", "change", "answer", "room", "sea", "against", "top",
    "turned", "learn", "point", "city", "play", "toward", "five", "using", "himself", "usually",
    "compression", "algorithm", "dictionary", "Huffman", "literal", "window", "stream",
    "mountain", "extraordinary", "nevertheless", "characteristically", "notwithstanding"};
constexpr std::size_t kWordCount = sizeof(kWords) / sizeof(kWords[0]);

// Zipf-like index: small indices (common words) are much more likely.
std::size_t zipf(Rng& r, std::size_t m) {
    const std::size_t a = r.below(m);
    return r.below(a + 1);
}

std::string make_identifier(Rng& r) {
    static constexpr std::string_view syll[] = {
        "get", "set", "buf", "len", "idx", "node", "hash", "match", "bit", "sym", "tab", "cur",
        "next", "prev", "pos", "block", "freq", "code", "count", "item", "list", "key", "val",
        "ptr", "size", "state", "flag", "init", "free", "alloc", "read", "write", "out", "in"};
    constexpr std::size_t ns = sizeof(syll) / sizeof(syll[0]);
    std::string s(syll[r.below(ns)]);
    const int parts = static_cast<int>(r.range(0, 2));
    for (int i = 0; i < parts; ++i) {
        s += '_';
        s += syll[r.below(ns)];
    }
    if (r.chance(1, 5)) s += std::to_string(r.below(16));
    return s;
}

void le16(Writer& w, std::uint16_t v) {
    w.byte(static_cast<std::uint8_t>(v));
    w.byte(static_cast<std::uint8_t>(v >> 8));
}
void le32(Writer& w, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) w.byte(static_cast<std::uint8_t>(v >> (8 * i)));
}

}  // namespace

Bytes zeros(std::size_t n) { return Bytes(n, 0); }

Bytes runs(std::size_t n, std::uint64_t seed) {
    Rng r(seed);
    Writer w(n);
    while (w.more()) {
        const std::uint64_t action = r.below(100);
        if (action < 60) {
            std::uint8_t v;
            switch (r.below(4)) {
                case 0: v = 0; break;
                case 1: v = 0xFF; break;
                case 2: v = ' '; break;
                default: v = static_cast<std::uint8_t>(r.next()); break;
            }
            std::size_t len;
            const std::uint64_t k = r.below(100);
            if (k < 25) len = r.range(1, 16);
            else if (k < 50) len = r.range(17, 258);
            else if (k < 85) len = r.range(259, 4096);
            else len = r.range(4097, 40000);
            w.fill(v, len);
        } else if (action < 85) {
            const std::size_t period = r.range(2, 4);
            std::uint8_t pat[4];
            for (auto& b : pat) b = static_cast<std::uint8_t>(r.next());
            const std::size_t len = r.range(10, 3000);
            for (std::size_t i = 0; i < len; ++i) w.byte(pat[i % period]);
        } else {
            const std::size_t len = r.range(1, 32);
            for (std::size_t i = 0; i < len; ++i) w.byte(static_cast<std::uint8_t>(r.next()));
        }
    }
    return w.finish();
}

Bytes random_bytes(std::size_t n, std::uint64_t seed) {
    Rng r(seed);
    Bytes out(n);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i, v >>= 8) {
        if (i % 8 == 0) v = r.next();
        out[i] = static_cast<std::uint8_t>(v);
    }
    return out;
}

Bytes text_like(std::size_t n, std::uint64_t seed) {
    Rng r(seed);
    Writer w(n);
    std::size_t col = 0;
    while (w.more()) {
        const int sentences = static_cast<int>(r.range(2, 8));
        for (int s = 0; s < sentences && w.more(); ++s) {
            const int words = static_cast<int>(r.range(4, 22));
            const bool quoted = r.chance(1, 12);
            for (int i = 0; i < words; ++i) {
                std::string word;
                if (r.chance(1, 40)) word = std::to_string(r.below(r.chance(1, 2) ? 100 : 100000));
                else word = std::string(kWords[zipf(r, kWordCount)]);
                if (i == 0 && word[0] >= 'a' && word[0] <= 'z') word[0] = static_cast<char>(word[0] - 32);
                if (i == 0 && quoted) word = "\"" + word;
                if (i == words - 1) {
                    const std::uint64_t p = r.below(20);
                    word += p < 15 ? "." : p < 18 ? "?" : "!";
                    if (quoted) word += "\"";
                } else if (r.chance(1, 9)) {
                    word += r.chance(1, 6) ? ";" : ",";
                } else if (r.chance(1, 60)) {
                    word = "(" + word + ")";
                }
                if (col > 0 && col + 1 + word.size() > 72) {
                    w.put('\n');
                    col = 0;
                } else if (col > 0) {
                    w.put(' ');
                    ++col;
                }
                w.put(word);
                col += word.size();
            }
        }
        w.put("\n\n");
        col = 0;
    }
    return w.finish();
}

Bytes source_like(std::size_t n, std::uint64_t seed) {
    Rng r(seed);
    std::vector<std::string> idents;
    for (int i = 0; i < 160; ++i) idents.push_back(make_identifier(r));
    static constexpr std::string_view types[] = {"int", "unsigned", "size_t", "uint32_t",
                                                 "const char *", "struct node *", "bool",
                                                 "uint8_t *", "double", "long"};
    static constexpr std::string_view ops[] = {" + ", " - ", " * ", " & ", " | ", " << ",
                                               " >> ", " ^ ", " % "};
    static constexpr std::string_view cmps[] = {" < ", " > ", " == ", " != ", " <= ", " >= "};
    auto id = [&]() -> const std::string& { return idents[zipf(r, idents.size())]; };
    auto expr = [&]() {
        std::string e = id();
        const int terms = static_cast<int>(r.below(3));
        for (int i = 0; i < terms; ++i) {
            e += ops[r.below(std::size(ops))];
            e += r.chance(1, 3) ? std::to_string(r.below(r.chance(1, 2) ? 16 : 65536)) : id();
        }
        if (r.chance(1, 5)) e = id() + "(" + e + ")";
        if (r.chance(1, 6)) e = id() + "->" + id() + "[" + e + "]";
        return e;
    };

    Writer w(n);
    auto indent = [&](int depth) {
        for (int i = 0; i < depth; ++i) w.put("    ");
    };
    // Emits one statement at @p depth; compound statements recurse.
    auto stmt = [&](auto& self, int depth) -> void {
        const std::uint64_t k = r.below(100);
        indent(depth);
        if (k < 30 || depth >= 4) {
            w.put(id());
            w.put(r.chance(1, 4) ? " += " : " = ");
            w.put(expr());
            w.put(";\n");
        } else if (k < 45) {
            w.put(id());
            w.put("(");
            w.put(expr());
            w.put(", ");
            w.put(id());
            w.put(");\n");
        } else if (k < 65) {
            w.put("if (");
            w.put(expr());
            w.put(cmps[r.below(std::size(cmps))]);
            w.put(expr());
            w.put(") {\n");
            const int m = static_cast<int>(r.range(1, 3));
            for (int i = 0; i < m; ++i) self(self, depth + 1);
            indent(depth);
            if (r.chance(1, 3)) {
                w.put("} else {\n");
                self(self, depth + 1);
                indent(depth);
            }
            w.put("}\n");
        } else if (k < 78) {
            const std::string& v = id();
            w.put("for (");
            w.put(v);
            w.put(" = 0; ");
            w.put(v);
            w.put(" < ");
            w.put(expr());
            w.put("; ");
            w.put(v);
            w.put("++) {\n");
            const int m = static_cast<int>(r.range(1, 4));
            for (int i = 0; i < m; ++i) self(self, depth + 1);
            indent(depth);
            w.put("}\n");
        } else if (k < 85) {
            w.put("while (");
            w.put(expr());
            w.put(") {\n");
            self(self, depth + 1);
            indent(depth);
            w.put("}\n");
        } else if (k < 93) {
            w.put("/* ");
            const int words = static_cast<int>(r.range(3, 10));
            for (int i = 0; i < words; ++i) {
                if (i) w.put(' ');
                w.put(kWords[zipf(r, kWordCount)]);
            }
            w.put(" */\n");
        } else {
            w.put("return ");
            w.put(expr());
            w.put(";\n");
        }
    };

    w.put("#include <stddef.h>\n#include <stdint.h>\n\n");
    while (w.more()) {
        if (r.chance(1, 3)) {
            w.put("/*\n * ");
            w.put(id());
            w.put(" - ");
            const int words = static_cast<int>(r.range(5, 14));
            for (int i = 0; i < words; ++i) {
                if (i) w.put(' ');
                w.put(kWords[zipf(r, kWordCount)]);
            }
            w.put(".\n */\n");
        }
        w.put(r.chance(1, 2) ? "static " : "");
        w.put(types[r.below(std::size(types))]);
        w.put(" ");
        w.put(id());
        w.put("(");
        const int params = static_cast<int>(r.range(0, 4));
        for (int i = 0; i < params; ++i) {
            if (i) w.put(", ");
            w.put(types[r.below(std::size(types))]);
            w.put(" ");
            w.put(id());
        }
        if (params == 0) w.put("void");
        w.put(")\n{\n");
        const int locals = static_cast<int>(r.range(0, 3));
        for (int i = 0; i < locals; ++i) {
            indent(1);
            w.put(types[r.below(std::size(types))]);
            w.put(" ");
            w.put(id());
            w.put(";\n");
        }
        if (locals) w.put("\n");
        const int body = static_cast<int>(r.range(2, 9));
        for (int i = 0; i < body; ++i) stmt(stmt, 1);
        w.put("}\n\n");
    }
    return w.finish();
}

Bytes few_symbols(std::size_t n, unsigned alphabet_size, std::uint64_t seed) {
    const unsigned k = std::clamp(alphabet_size, 1u, 26u);
    const std::uint64_t total = static_cast<std::uint64_t>(k) * (k + 1) / 2;  // weights k..1
    std::array<std::uint8_t, 351> table{};  // total <= 26*27/2 = 351
    std::size_t t = 0;
    for (unsigned i = 0; i < k; ++i)
        for (unsigned j = 0; j < k - i; ++j) table[t++] = static_cast<std::uint8_t>('a' + i);
    Rng r(seed);
    Bytes out(n);
    for (auto& b : out) b = table[r.below(total)];
    return out;
}

Bytes dna(std::size_t n, std::uint64_t seed) {
    static constexpr char bases[4] = {'A', 'C', 'G', 'T'};
    Rng r(seed);
    const std::size_t nbases = n - n / 61 + 1;
    std::string seq;
    seq.reserve(nbases + 2048);
    while (seq.size() < nbases) {
        if (seq.size() > 1000 && r.chance(3, 10)) {
            const std::size_t len = r.range(50, 2000);
            const std::size_t back = std::min<std::size_t>(seq.size(), r.range(len, 200000));
            const std::size_t from = seq.size() - back;
            for (std::size_t i = 0; i < len; ++i) {
                char c = seq[from + i];
                if (r.chance(1, 50)) c = bases[r.below(4)];
                seq.push_back(c);
            }
        } else {
            const std::size_t len = r.range(50, 1000);
            for (std::size_t i = 0; i < len; ++i) seq.push_back(bases[r.below(4)]);
        }
    }
    Writer w(n);
    for (std::size_t i = 0; w.more(); i += 60) {
        w.put(std::string_view(seq).substr(i, 60));
        w.put('\n');
    }
    return w.finish();
}

Bytes binary_records(std::size_t n, std::uint64_t seed) {
    static constexpr std::string_view names[] = {"alpha", "beta", "gamma", "delta", "epsilon",
                                                 "zeta", "eta", "theta", "iota", "kappa",
                                                 "lambda", "mu"};
    Rng r(seed);
    Writer w(n);
    std::uint32_t id = static_cast<std::uint32_t>(r.below(1000));
    std::uint32_t ts = 1700000000u + static_cast<std::uint32_t>(r.below(1000000));
    float value = 100.0f;
    while (w.more()) {  // 32-byte records
        id += r.chance(1, 10) ? static_cast<std::uint32_t>(r.range(2, 50)) : 1;
        ts += static_cast<std::uint32_t>(r.below(1000));
        value += static_cast<float>(static_cast<int>(r.below(201)) - 100) / 64.0f;
        std::uint32_t vbits;
        std::memcpy(&vbits, &value, 4);
        le32(w, id);
        le32(w, ts);
        le16(w, static_cast<std::uint16_t>(r.below(16)));
        le16(w, static_cast<std::uint16_t>(r.chance(1, 8) ? 0x8001 : 0x0001));
        le32(w, vbits);
        le32(w, static_cast<std::uint32_t>(r.below(r.chance(1, 4) ? 100000 : 256)));
        const std::string_view name = names[zipf(r, std::size(names))];
        char buf[12] = {};
        std::memcpy(buf, name.data(), std::min<std::size_t>(name.size(), sizeof buf));
        w.put(std::string_view(buf, sizeof buf));
    }
    return w.finish();
}

Bytes switching(std::size_t n, std::uint64_t seed) {
    constexpr std::size_t kSegment = 64 * 1024;
    Writer w(n);
    for (std::uint64_t seg = 0; w.more(); ++seg) {
        const std::uint64_t s = derive(seed, seg);
        if (seg % 2 == 0) {
            const Bytes b = random_bytes(kSegment, s);
            w.raw().insert(w.raw().end(), b.begin(), b.end());
        } else {
            Rng r(s);
            std::string phrase(r.range(4, 64), ' ');
            for (char& c : phrase) c = static_cast<char>('a' + r.below(26));
            for (std::size_t i = 0; i < kSegment; ++i) {
                char c = phrase[i % phrase.size()];
                if (r.chance(1, 200)) c = static_cast<char>(r.next());
                w.put(c);
            }
        }
    }
    return w.finish();
}

Bytes mixed(std::size_t n, std::uint64_t seed) {
    static constexpr Kind kinds[] = {Kind::text,        Kind::source, Kind::random,
                                     Kind::zeros,       Kind::runs,   Kind::few_symbols,
                                     Kind::dna,         Kind::binary};
    Rng r(seed);
    Writer w(n);
    std::size_t last = std::size(kinds);
    for (std::uint64_t chunk = 0; w.more(); ++chunk) {
        std::size_t k;
        do k = r.below(std::size(kinds));
        while (k == last);
        last = k;
        const std::size_t len = r.range(8 * 1024, 192 * 1024);
        const Bytes b = generate(kinds[k], len, derive(seed, chunk));
        w.raw().insert(w.raw().end(), b.begin(), b.end());
    }
    return w.finish();
}

std::string_view kind_name(Kind k) noexcept {
    switch (k) {
        case Kind::zeros: return "zeros";
        case Kind::runs: return "runs";
        case Kind::random: return "random";
        case Kind::text: return "text";
        case Kind::source: return "source";
        case Kind::few_symbols: return "few_symbols";
        case Kind::dna: return "dna";
        case Kind::binary: return "binary";
        case Kind::switching: return "switching";
        case Kind::mixed: return "mixed";
    }
    return "?";
}

Bytes generate(Kind k, std::size_t n, std::uint64_t seed) {
    switch (k) {
        case Kind::zeros: return zeros(n);
        case Kind::runs: return runs(n, seed);
        case Kind::random: return random_bytes(n, seed);
        case Kind::text: return text_like(n, seed);
        case Kind::source: return source_like(n, seed);
        case Kind::few_symbols: return few_symbols(n, 2 + static_cast<unsigned>(seed % 7), seed);
        case Kind::dna: return dna(n, seed);
        case Kind::binary: return binary_records(n, seed);
        case Kind::switching: return switching(n, seed);
        case Kind::mixed: return mixed(n, seed);
    }
    throw std::invalid_argument("flowdeflate::testing::generate: unknown Kind");
}

// ---- real files ------------------------------------------------------------------------

namespace {

enum Category : int {
    kText, kSharedLib, kMan, kImage, kCompressed, kPython, kMarkup, kPyc, kLocale, kFont,
    kPerl, kHeader, kObject, kCategoryCount, kNone = -1
};

std::string lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}

bool one_of(const std::string& ext, std::initializer_list<std::string_view> list) {
    return std::find(list.begin(), list.end(), std::string_view(ext)) != list.end();
}

int categorize(const fs::path& p) {
    const std::string name = lower(p.filename().string());
    const std::string ext = lower(p.extension().string());
    const std::string full = p.string();
    if (full.find("/man/") != std::string::npos && full.rfind("/usr/share/man/", 0) == 0 &&
        ext == ".gz")
        return kMan;
    if (name.find(".so.") != std::string::npos || ext == ".so") return kSharedLib;
    if (one_of(ext, {".gz", ".xz", ".bz2", ".zst", ".zip", ".jar", ".lz4", ".lzma", ".tgz", ".7z"}))
        return kCompressed;
    if (one_of(ext, {".txt", ".md", ".rst"})) return kText;
    if (full.rfind("/usr/share/doc/", 0) == 0 &&
        (ext.empty() || name.rfind("readme", 0) == 0 || name == "copyright" ||
         name.rfind("changelog", 0) == 0 || name.rfind("news", 0) == 0))
        return kText;
    if (one_of(ext, {".png", ".jpg", ".jpeg", ".gif", ".ico", ".bmp", ".tif", ".tiff",
                     ".webp", ".xpm", ".svg"}))
        return kImage;
    if (ext == ".py") return kPython;
    if (ext == ".pyc") return kPyc;
    if (one_of(ext, {".html", ".htm", ".xml", ".json", ".yaml", ".yml", ".css", ".js"}))
        return kMarkup;
    if (ext == ".mo") return kLocale;
    if (one_of(ext, {".ttf", ".otf", ".pfb", ".pcf", ".woff", ".afm"})) return kFont;
    if (one_of(ext, {".pl", ".pm"})) return kPerl;
    if (one_of(ext, {".h", ".hpp", ".inc"})) return kHeader;
    if (one_of(ext, {".a", ".o"})) return kObject;
    return kNone;
}

struct Walk {
    std::size_t max_bytes = 0;
    std::size_t visited = 0;
    static constexpr std::size_t kMaxVisited = 600000;
    static constexpr int kMaxDepth = 16;
    struct Candidate {
        fs::path path;
        std::uintmax_t size;
    };
    std::vector<Candidate> buckets[kCategoryCount];

    void dir(const fs::path& d, int depth) {
        if (depth > kMaxDepth || visited >= kMaxVisited) return;
        std::error_code ec;
        fs::directory_iterator it(d, fs::directory_options::skip_permission_denied, ec);
        if (ec) return;
        std::vector<fs::directory_entry> entries;
        for (const fs::directory_iterator end; it != end; it.increment(ec)) {
            if (ec) break;
            entries.push_back(*it);
            if (++visited >= kMaxVisited) break;
        }
        std::sort(entries.begin(), entries.end(),
                  [](const auto& a, const auto& b) { return a.path() < b.path(); });
        for (const auto& e : entries) {
            if (e.is_symlink(ec) || ec) continue;
            if (e.is_directory(ec) && !ec) {
                dir(e.path(), depth + 1);
                continue;
            }
            if (!e.is_regular_file(ec) || ec) continue;
            const int cat = categorize(e.path());
            if (cat == kNone) continue;
            const auto size = e.file_size(ec);
            if (ec || size == 0 || size > max_bytes) continue;
            buckets[cat].push_back({e.path(), size});
        }
    }
};

bool readable(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    char c;
    return f && f.read(&c, 1) && f.gcount() == 1;
}

}  // namespace

std::vector<fs::path> real_files(std::size_t max_files, std::size_t max_bytes) {
    std::vector<fs::path> result;
    if (max_files == 0 || max_bytes == 0) return result;
    Walk walk;
    walk.max_bytes = max_bytes;
    for (const char* root : {"/usr/share", "/usr/lib"}) walk.dir(root, 0);

    // Round-robin quota over the non-empty categories, then evenly spaced picks inside each
    // (sorted) category so that the picks come from many directories.
    std::size_t quota[kCategoryCount] = {};
    for (std::size_t left = max_files;;) {
        bool any = false;
        for (int c = 0; c < kCategoryCount && left > 0; ++c) {
            if (quota[c] < walk.buckets[c].size()) {
                ++quota[c];
                --left;
                any = true;
            }
        }
        if (!any || left == 0) break;
    }
    // Every other pick of a category comes from its "large" files (>= 32 KiB) when it has
    // any, so the selection is not dominated by the many tiny files.
    constexpr std::uintmax_t kLarge = 32 * 1024;
    std::vector<std::vector<fs::path>> picks(kCategoryCount);
    for (int c = 0; c < kCategoryCount; ++c) {
        const auto& b = walk.buckets[c];
        std::vector<std::size_t> all, large;
        for (std::size_t k = 0; k < b.size(); ++k) {
            all.push_back(k);
            if (b[k].size >= kLarge) large.push_back(k);
        }
        std::vector<bool> used(b.size(), false);
        const std::size_t n_large = large.empty() ? 0 : (quota[c] + 1) / 2;
        const std::size_t n_any = quota[c] - n_large;
        // Picks evenly spaced candidates of @p from (first readable unused one at or after
        // each spaced position).
        auto pick = [&](const std::vector<std::size_t>& from, std::size_t count,
                        std::vector<fs::path>& out) {
            const std::size_t m = from.size();
            for (std::size_t i = 0; i < count; ++i) {
                const std::size_t start = (2 * i + 1) * m / (2 * count);
                for (std::size_t j = 0; j < m; ++j) {
                    const std::size_t k = from[(start + j) % m];
                    if (used[k]) continue;
                    used[k] = true;
                    if (readable(b[k].path)) {
                        out.push_back(b[k].path);
                        break;
                    }
                }
            }
        };
        std::vector<fs::path> big, any;
        pick(large, n_large, big);
        pick(all, n_any, any);
        for (std::size_t i = 0; i < std::max(big.size(), any.size()); ++i) {
            if (i < big.size()) picks[c].push_back(big[i]);
            if (i < any.size()) picks[c].push_back(any[i]);
        }
    }
    // Interleave categories so that any prefix of the result is varied.
    for (std::size_t i = 0; result.size() < max_files; ++i) {
        bool any = false;
        for (int c = 0; c < kCategoryCount; ++c) {
            if (i < picks[c].size()) {
                result.push_back(picks[c][i]);
                any = true;
            }
        }
        if (!any) break;
    }
    if (result.size() > max_files) result.resize(max_files);
    return result;
}

Bytes read_file(const fs::path& path, std::size_t max_bytes) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open " + path.string());
    Bytes out;
    constexpr std::size_t kChunk = 1 << 16;
    while (out.size() < max_bytes) {
        const std::size_t want = std::min(kChunk, max_bytes - out.size());
        const std::size_t old = out.size();
        out.resize(old + want);
        f.read(reinterpret_cast<char*>(out.data() + old), static_cast<std::streamsize>(want));
        const auto got = static_cast<std::size_t>(f.gcount());
        out.resize(old + got);
        if (got < want) {
            if (f.bad()) throw std::runtime_error("error reading " + path.string());
            break;
        }
    }
    return out;
}

TempDir::TempDir(const char* tag) {
    std::string tmpl = std::string("/tmp/flowdeflate-") + tag + "-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
}

TempDir::~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
}

}  // namespace flowdeflate::testing
