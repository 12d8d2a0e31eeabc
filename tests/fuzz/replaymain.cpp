// Runs a fuzz target's LLVMFuzzerTestOneInput once on every file given on the command line
// (directories are walked recursively). Used by the normal test suite to replay the committed
// regression inputs and the seed corpus without libFuzzer, so it works with gcc too.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <sys/resource.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);

namespace fs = std::filesystem;

// Resource limits are part of robustness: no input may make the reader allocate this much.
static long rssLimitKb()
{
    const char *env = std::getenv("ETSCOPE_REPLAY_RSS_LIMIT_MB");
    return (env ? std::atol(env) : 768) * 1024;
}

static long peakRssKb()
{
    rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static bool replay(const fs::path &file)
{
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "%s: cannot open\n", file.c_str());
        return false;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Copy into an exactly sized heap block so ASan catches reads past the end.
    std::vector<std::uint8_t> exact(bytes.begin(), bytes.end());
    const long before = peakRssKb();
    LLVMFuzzerTestOneInput(exact.data(), exact.size());
    const long after = peakRssKb();
    if (after > rssLimitKb() && after > before) {
        std::fprintf(
            stderr, "%s: peak RSS grew to %ld MB (limit %ld MB)\n", file.c_str(), after / 1024, rssLimitKb() / 1024);
        return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    std::size_t count = 0;
    bool ok = true;
    for (int i = 1; i < argc; ++i) {
        const fs::path p(argv[i]);
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            std::vector<fs::path> files;
            for (const auto &e : fs::recursive_directory_iterator(p, ec))
                if (e.is_regular_file() && e.path().filename().string()[0] != '.')
                    files.push_back(e.path());
            std::sort(files.begin(), files.end());
            for (const auto &f : files) {
                ok = replay(f) && ok;
                ++count;
            }
        } else if (fs::exists(p, ec)) {
            ok = replay(p) && ok;
            ++count;
        } else {
            std::fprintf(stderr, "%s: no such file or directory\n", argv[i]);
            ok = false;
        }
    }
    // Surviving every input is the test; a crash or sanitizer report fails it.
    std::printf("replayed %zu inputs\n", count);
    return ok && count > 0 ? 0 : 1;
}
