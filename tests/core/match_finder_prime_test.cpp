// match_finder_prime_test.cpp - the binary-tree match finder of levels 10-12, primed
// from the 32 KiB before a position, reports exactly the matches that the finder which
// saw the whole input reports, at every later position.
//
// The near-optimal parser searches every position except those covered by a match of at
// least nice_len, and that choice depends only on the data, so its match finding is a
// pure function of the input: it can be split into chunks and run anywhere once primed.
// The loop below makes the same calls as NearOptimalParser::parse().
//
// Also: the hash-chain finder's search_past() (the history track's branches) finds at a
// position, later, exactly what a search there found at the time, or says it cannot.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "core/bt_match_finder.hpp"
#include "core/hc_match_finder.hpp"
#include "core/parsed_block.hpp"
#include "support/test_data.hpp"

namespace flowdeflate::core {
namespace {

struct Found {
    std::size_t pos;
    std::vector<LzMatch> matches;  // empty: skipped or no match
    bool searched;
};

// Runs the parser's search/skip pattern from @p start (the finder already primed there,
// with @p skip positions still to skip) to @p stop, recording every position.
// @p form, if given, chooses the root step's form before each position (the finder's own
// choice otherwise).
std::vector<Found> run_finder(BtMatchFinder& mf, const u8* begin, const u8* start, const u8* stop, const u8* end,
                              const LevelParams& params, u32 next_hashes[2], u32 skip,
                              const std::function<bool(std::size_t)>& form = {}) {
    std::vector<Found> out;
    std::vector<LzMatch> buf(kMaxMatchLen + 1);
    u32 max_len = kMaxMatchLen, nice_len = std::min(params.nice_match_length, kMaxMatchLen);
    for (const u8* in_next = start; in_next < stop; ++in_next) {
        mf.slide_if_needed(in_next);
        if (form) mf.set_flat_root_step(form(std::size_t(in_next - begin)));
        adjust_max_and_nice_len(max_len, nice_len, std::size_t(end - in_next));
        Found f{std::size_t(in_next - begin), {}, skip == 0};
        if (max_len >= BtMatchFinder::kRequiredBytes) {
            if (skip) {
                mf.skip_byte(in_next, nice_len, params.max_search_depth, next_hashes);
            } else {
                LzMatch* e = mf.get_matches(in_next, max_len, nice_len, params.max_search_depth, next_hashes,
                                            buf.data());
                f.matches.assign(buf.data(), e);
            }
        }
        if (skip) {
            --skip;
        } else if (!f.matches.empty()) {
            const u32 best = f.matches.back().length;
            if (best >= kMinMatchLen && best >= nice_len) skip = best - 1;
        }
        out.push_back(std::move(f));
    }
    return out;
}

class BtPrime : public ::testing::TestWithParam<int> {};

TEST_P(BtPrime, PrimedFinderReportsTheSameMatches) {
    const LevelParams params = LevelParams::for_level(GetParam());
    for (testing::Kind kind : {testing::Kind::text, testing::Kind::binary, testing::Kind::runs,
                               testing::Kind::switching, testing::Kind::dna}) {
        SCOPED_TRACE(std::string(testing::kind_name(kind)));
        const testing::Bytes data = testing::generate(kind, 200000, 77 + GetParam());
        const u8* begin = data.data();
        const u8* end = begin + data.size();
        auto whole = std::make_unique<BtMatchFinder>();
        whole->init(begin);
        u32 h[2] = {0, 0};
        const std::vector<Found> all = run_finder(*whole, begin, begin, end, end, params, h, 0);

        for (std::size_t p : {std::size_t(1), std::size_t(4096), std::size_t(kWindowSize - 1),
                              std::size_t(kWindowSize), std::size_t(kWindowSize + 1), std::size_t(3 * kWindowSize - 2),
                              std::size_t(100000), std::size_t(150001)}) {
            SCOPED_TRACE(::testing::Message() << "primed at " << p);
            // Positions still to skip at p, and the base the finder has there.
            u32 skip = 0;
            for (std::size_t q = p; q-- > 0;) {
                if (all[q].searched) {
                    const u32 best = all[q].matches.empty() ? 0 : all[q].matches.back().length;
                    const u32 nice = std::min<u32>(params.nice_match_length, kMaxMatchLen);
                    if (best >= kMinMatchLen && best >= nice && q + best > p) skip = u32(q + best - p);
                    break;
                }
            }
            const u8* base = begin + (p / kWindowSize) * kWindowSize;
            if (p % kWindowSize == 0 && p != 0) base -= kWindowSize;  // slides on arrival, not before
            auto primed = std::make_unique<BtMatchFinder>();
            u32 ph[2];
            primed->prime(begin, base, begin + p, params.nice_match_length, params.max_search_depth, ph);
            const std::size_t stop = std::min(data.size(), p + 60000);
            const std::vector<Found> part = run_finder(*primed, begin, begin + p, begin + stop, end, params, ph, skip);
            for (std::size_t i = 0; i < part.size(); ++i) {
                const Found& want = all[p + i];
                const Found& got = part[i];
                ASSERT_EQ(got.searched, want.searched) << "position " << want.pos;
                ASSERT_EQ(got.matches.size(), want.matches.size()) << "position " << want.pos;
                for (std::size_t m = 0; m < want.matches.size(); ++m) {
                    ASSERT_EQ(got.matches[m].length, want.matches[m].length) << "position " << want.pos;
                    ASSERT_EQ(got.matches[m].offset, want.matches[m].offset) << "position " << want.pos;
                }
            }
        }
    }
}

// The root step's two forms (BtMatchFinder::advance: plain branches, or flat indices and
// masks where roots are coin tosses) leave the same trees: every later search reports the
// same matches whichever form ran at each earlier position.  Incompressible stretches
// (where the finder itself goes flat) beside compressible ones, roots in and out of the
// window, first bytes that match and that do not, on both sides; and the finders' tables
// (a digest after every quarter window) are the same.
TEST_P(BtPrime, BothRootStepFormsFindTheSameMatches) {
    // The level's depth; at level 10 also depths 1 and 2, where the walk ends at the
    // root's step or right below it (the flat form decides the root's step and the walk's
    // end at once).
    const LevelParams level_params = LevelParams::for_level(GetParam());
    std::vector<u32> depths{level_params.max_search_depth};
    if (GetParam() == 10) depths.insert(depths.end(), {1u, 2u});
    for (const u32 depth : depths)
    for (testing::Kind kind : {testing::Kind::random, testing::Kind::text, testing::Kind::binary, testing::Kind::mixed,
                               testing::Kind::switching, testing::Kind::zeros}) {
        SCOPED_TRACE(::testing::Message() << testing::kind_name(kind) << ", depth " << depth);
        LevelParams params = level_params;
        params.max_search_depth = depth;
        const testing::Bytes data = testing::generate(kind, 160000, 91 + GetParam());
        const u8* begin = data.data();
        const u8* end = begin + data.size();
        struct Run {
            std::vector<Found> found;
            std::vector<u64> tables;  // the finder's table digest after each piece
        };
        auto run = [&](const std::function<bool(std::size_t)>& form, bool* went_flat) {
            auto mf = std::make_unique<BtMatchFinder>();
            mf->init(begin);
            u32 h[2] = {0, 0};
            bool flat = false;
            Run r;
            std::vector<Found>& found = r.found;
            // In pieces, to see which form the finder chose by itself.
            for (const u8* p = begin; p < end; p += kWindowSize / 4) {
                const u8* stop = std::min(end, p + kWindowSize / 4);
                std::vector<Found> part = run_finder(*mf, begin, p, stop, end, params, h, 0, form);
                r.tables.push_back(mf->table_digest());
                flat |= mf->flat_root_step();
                // Positions inside a long match are skipped by the parser: skipping is
                // decided within run_finder's piece only; the next piece searches on.
                found.insert(found.end(), part.begin(), part.end());
            }
            if (went_flat) *went_flat = flat;
            return r;
        };
        bool went_flat = false;
        const Run plain_run = run([](std::size_t) { return false; }, nullptr);
        const Run flat_run = run([](std::size_t) { return true; }, nullptr);
        std::mt19937 rng(5);
        const Run mixed_run = run([&](std::size_t) { return (rng() & 1) != 0; }, nullptr);
        const Run own_run = run({}, &went_flat);
        for (const Run* other : {&flat_run, &mixed_run, &own_run}) {
            ASSERT_EQ(other->tables.size(), plain_run.tables.size());
            for (std::size_t i = 0; i < plain_run.tables.size(); ++i)
                ASSERT_EQ(other->tables[i], plain_run.tables[i]) << "tables after piece " << i;
        }
        const std::vector<Found>& plain = plain_run.found;
        const std::vector<Found>& flat = flat_run.found;
        const std::vector<Found>& mixed = mixed_run.found;
        const std::vector<Found>& own = own_run.found;
        // The finder's own choice, at the level's depth (at depth 1 every search ends
        // at its first step, and any input may go flat).
        if (kind == testing::Kind::random && depth == level_params.max_search_depth) {
            EXPECT_TRUE(went_flat) << "incompressible input keeps the plain form";
        }
        if (kind == testing::Kind::zeros && depth == level_params.max_search_depth) {
            EXPECT_FALSE(went_flat) << "runs of one byte took the flat form";
        }
        for (const auto* other : {&flat, &mixed, &own}) {
            ASSERT_EQ(other->size(), plain.size());
            for (std::size_t i = 0; i < plain.size(); ++i) {
                const Found& want = plain[i];
                const Found& got = (*other)[i];
                ASSERT_EQ(got.matches.size(), want.matches.size()) << "position " << want.pos;
                for (std::size_t m = 0; m < want.matches.size(); ++m) {
                    ASSERT_EQ(got.matches[m].length, want.matches[m].length) << "position " << want.pos;
                    ASSERT_EQ(got.matches[m].offset, want.matches[m].offset) << "position " << want.pos;
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(NearOptimalLevels, BtPrime, ::testing::Values(10, 11, 12),
                         [](const ::testing::TestParamInfo<int>& i) { return "Level" + std::to_string(i.param); });

// Every position searched (search_shared()) and then inserted with the log search_past()
// reads; at each position, the searches of the positions up to 300 bytes back are run again
// with search_past() and must give what they gave at their time, whenever it answers.
TEST(HcSearchPast, FindsWhatTheSearchFoundAtTheTime) {
    for (testing::Kind kind : {testing::Kind::text, testing::Kind::binary, testing::Kind::runs,
                               testing::Kind::few_symbols, testing::Kind::switching}) {
        SCOPED_TRACE(std::string(testing::kind_name(kind)));
        const testing::Bytes data = testing::generate(kind, 3 * kWindowSize + 5000, 91);
        const u8* begin = data.data();
        const u8* end = begin + data.size() - 2 * kMaxMatchLen;
        auto mf = std::make_unique<HcMatchFinder>();
        mf->init(begin);
        u32 h[2] = {0, 0};
        std::vector<HcMatchFinder::SharedMatch> then(data.size());
        std::size_t answered = 0, asked = 0;
        for (const u8* q = begin; q < end; ++q) {
            mf->prepare(q);
            for (u32 depth : {24u, 6u}) {  // full and quarter depth: each from its own walk
                const std::size_t i = std::size_t(q - begin);
                mf->search_shared(q, kMaxMatchLen, 65, depth, h, then[i]);
                for (std::size_t back = 0; back <= 300 && back < i; back += 1 + back / 8) {
                    const u8* p = q - back;
                    HcMatchFinder::SharedMatch want;
                    if (back == 0) {
                        want = then[i];
                    } else {
                        // then[] holds the full-depth search of earlier positions.
                        if (depth != 24u) continue;
                        want = then[i - back];
                    }
                    HcMatchFinder::SharedMatch got;
                    ++asked;
                    if (!mf->search_past(p, q, kMaxMatchLen, 65, depth, got)) continue;
                    ++answered;
                    ASSERT_EQ(got.node3_valid, want.node3_valid) << "at " << (p - begin) << " from " << i;
                    ASSERT_EQ(got.match3, want.match3) << "at " << (p - begin) << " from " << i;
                    if (want.match3) {
                        ASSERT_EQ(got.offset3, want.offset3) << "at " << (p - begin);
                    }
                    ASSERT_EQ(got.chain_len, want.chain_len) << "at " << (p - begin) << " from " << i;
                    if (want.chain_len) {
                        ASSERT_EQ(got.chain_offset, want.chain_offset) << "at " << (p - begin);
                    }
                }
                if (depth == 24u) continue;
                mf->search_shared(q, kMaxMatchLen, 65, 24u, h, then[i]);  // keep the full-depth one
            }
            mf->skip_bytes<true>(q, begin + data.size(), 1, h);
        }
        // It gives up only past a slide, or where the window's far end was overwritten.
        EXPECT_GT(answered, asked / 2) << answered << " of " << asked;
    }
}

// The hash-chain search's two forms (HcMatchFinder::search: plain branches, or flat masks
// where buckets are coin tosses) find the same match.  Four finders take the same
// positions, searched with the lazy parser's best_len values (2-5, and a match's length)
// and depths, or with step masks (longest_match_shared, with and without branches), or
// skipped; one plain, one flat, one flipped at random per position, one on its own
// choice; their lengths and offsets (all of SharedMatch) must agree everywhere, and the
// step each min_len makes from a shared search must be longest_match()'s.
TEST(HcForms, BothSearchFormsFindTheSameMatch) {
    for (testing::Kind kind : {testing::Kind::random, testing::Kind::text, testing::Kind::binary,
                               testing::Kind::mixed, testing::Kind::switching, testing::Kind::zeros}) {
        SCOPED_TRACE(std::string(testing::kind_name(kind)));
        const testing::Bytes data = testing::generate(kind, 5 * kWindowSize + 777, 23);
        const u8* begin = data.data();
        const u8* in_end = begin + data.size();
        const u8* end = in_end - 2 * kMaxMatchLen;
        constexpr int kPlain = 0, kFlat = 1, kFlipped = 2, kOwn = 3;
        std::unique_ptr<HcMatchFinder> mf[4];
        u32 h[4][2] = {};
        for (auto& f : mf) {
            f = std::make_unique<HcMatchFinder>();
            f->init(begin);
        }
        std::mt19937 rng(7);
        bool own_went_flat = false;
        std::size_t walked = 0;
        std::size_t unwalked_checked = 0;
        for (const u8* q = begin; q < end;) {
            mf[kPlain]->set_flat_search(false);
            mf[kFlat]->set_flat_search(true);
            mf[kFlipped]->set_flat_search((rng() & 1) != 0);
            const u32 r = rng();
            if (r % 64 == 0) {  // a match's positions, inserted without a search
                const u32 count = 1 + (r >> 8) % 16;
                for (int i = 0; i < 4; ++i) mf[i]->skip_bytes(q, in_end, count, h[i]);
                q += count;
                continue;
            }
            // Mostly a step's first search (min_len - 1: 2 or 3), else a held match (4-6).
            const u32 sel = (r >> 4) % 8;
            const u32 best_len = sel < 6 ? 2 + (sel & 1) : sel - 2 + (r >> 20) % 2;
            // The lazy parsers' depths, and 1 and 2, where a chain ends by depth alone.
            static constexpr u32 kDepths[8] = {24, 24, 24, 6, 6, 1, 2, 24};
            const u32 depth = kDepths[(r >> 12) % 8];
            if ((r >> 16) % 3 == 0) {  // a step's first search with step masks (the tracks')
                const bool branching = ((r >> 22) & 1) != 0;
                HcMatchFinder::SharedMatch found[4];
                for (int i = 0; i < 4; ++i) {
                    if (branching)
                        mf[i]->longest_match_shared<true>(q, kMaxMatchLen, 65, depth, h[i], found[i]);
                    else
                        mf[i]->longest_match_shared(q, kMaxMatchLen, 65, depth, h[i], found[i]);
                }
                own_went_flat |= mf[kOwn]->flat_search();
                for (int i = 1; i < 4; ++i) {
                    const auto& a = found[kPlain];
                    const auto& b = found[i];
                    ASSERT_EQ(b.node3_valid, a.node3_valid) << "form " << i << " at " << (q - begin);
                    ASSERT_EQ(b.match3, a.match3) << "form " << i << " at " << (q - begin);
                    ASSERT_EQ(b.offset3, a.offset3) << "form " << i << " at " << (q - begin);
                    ASSERT_EQ(b.chain_len, a.chain_len) << "form " << i << " at " << (q - begin);
                    ASSERT_EQ(b.chain_offset, a.chain_offset) << "form " << i << " at " << (q - begin);
                }
                // Where the search found no node3 (no position with the 3-byte hash in the
                // window) and walked no chain, no position in the window shares the first 3 bytes, so the walk
                // that longest_match() makes for best_len >= 4 could find nothing either
                // (SharedMatch::step() says a literal for every min_len there).  Checked by
                // brute force at the first few hundred such positions of each kind.
                if (!found[kPlain].node3_valid && unwalked_checked < 300) {
                    ++unwalked_checked;
                    const u8* const from = q - std::min<std::ptrdiff_t>(q - begin, kWindowSize - 1);
                    for (const u8* c = from; c < q; ++c)
                        ASSERT_FALSE(c[0] == q[0] && c[1] == q[1] && c[2] == q[2])
                            << "a 3-byte match " << (q - c) << " back at " << (q - begin) << " with no node3";
                }
                // The step each min_len makes from it, and its mask.
                for (u32 m = 3; m <= 9; ++m)
                    for (u32 far3 : {4096u, 8192u}) {
                        u32 offset = 0, mask = 0;
                        const u32 len = found[kPlain].step(m, far3, offset, [&](u32 k) { mask = k; });
                        // What the step must be, from longest_match()'s rules.
                        u32 want_offset = 0;
                        u32 want = found[kPlain].result(m - 1, want_offset);
                        if (want < m || (want == 3 && want_offset > far3)) want = 0;
                        ASSERT_EQ(len, want) << "min_len " << m << " at " << (q - begin);
                        if (want) {
                            ASSERT_EQ(offset, want_offset) << "min_len " << m << " at " << (q - begin);
                        }
                        ASSERT_TRUE(mask & (1u << (m - 3))) << "min_len " << m << " at " << (q - begin);
                        if (!found[kPlain].node3_valid) {
                            EXPECT_EQ(mask, HcMatchFinder::kAllMinLens) << "at " << (q - begin);
                        }
                    }
                ++q;
                continue;
            }
            u32 len[4], offset[4] = {};
            for (int i = 0; i < 4; ++i)
                len[i] = mf[i]->longest_match(q, best_len, kMaxMatchLen, 65, depth, h[i], offset[i]);
            own_went_flat |= mf[kOwn]->flat_search();
            walked += len[kPlain] >= 4;
            for (int i = 1; i < 4; ++i) {
                ASSERT_EQ(len[i], len[kPlain]) << "form " << i << " at " << (q - begin) << ", best_len " << best_len;
                ASSERT_EQ(offset[i], offset[kPlain]) << "form " << i << " at " << (q - begin);
            }
            ++q;
        }
        // (Whether the own-choice finder went flat here depends on the mix above: about
        // 16.3K of its searches per window end early on random input, against a threshold
        // of 16,384.  HcForms.TheFinderChoosesItsForm checks the choice itself.)
        (void)own_went_flat;
        if (kind == testing::Kind::random) {
            EXPECT_GT(unwalked_checked, std::size_t(100)) << "too few searches without node3 to check";
        }
        if (kind == testing::Kind::text || kind == testing::Kind::zeros) {
            EXPECT_GT(walked, std::size_t(1000)) << "too few chain matches to compare";
        }
    }
}

// The finder's own choice of form (choose_flat(), at each slide), where the parser's
// step searches every position: incompressible input goes flat by the second window and
// stays flat; text and runs of one byte stay plain.  Searches as a lazy step's first one
// (best_len 2, the lazy levels' depth), with now and then a match's positions skipped.
TEST(HcForms, TheFinderChoosesItsForm) {
    for (testing::Kind kind : {testing::Kind::random, testing::Kind::text, testing::Kind::zeros}) {
        SCOPED_TRACE(std::string(testing::kind_name(kind)));
        const testing::Bytes data = testing::generate(kind, 4 * kWindowSize, 29);
        const u8* begin = data.data();
        const u8* in_end = begin + data.size();
        auto mf = std::make_unique<HcMatchFinder>();
        mf->init(begin);
        u32 h[2] = {};
        std::vector<bool> flat_in_window;
        for (const u8* q = begin; q < in_end - 2 * kMaxMatchLen;) {
            const std::size_t window = std::size_t(q - begin) / kWindowSize;
            if (window >= flat_in_window.size()) flat_in_window.push_back(mf->flat_search());
            u32 offset = 0;
            const u32 len = mf->longest_match(q, 2, kMaxMatchLen, 65, 24, h, offset);
            if (len >= 4) {  // the parser would skip the match's other positions
                mf->skip_bytes(q + 1, in_end, len - 1, h);
                q += len;
            } else {
                ++q;
            }
        }
        ASSERT_EQ(flat_in_window.size(), 4u);
        EXPECT_FALSE(flat_in_window[0]) << "a fresh finder starts plain";
        for (std::size_t w = 2; w < flat_in_window.size(); ++w) {
            if (kind == testing::Kind::random)
                EXPECT_TRUE(flat_in_window[w]) << "window " << w << ": incompressible input kept the plain form";
            else
                EXPECT_FALSE(flat_in_window[w]) << "window " << w << ": compressible input took the flat form";
        }
    }
}

}  // namespace
}  // namespace flowdeflate::core
