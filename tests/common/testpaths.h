#pragma once

#include <string>

// Paths of shared fixtures and test data, from compile definitions set by etscope_add_test.
namespace etscope::test {

inline std::string sharedFixture(const std::string &relative)
{
    return std::string(ETSCOPE_SHARED_DIR) + "/fixtures/" + relative;
}

inline std::string testData(const std::string &relative)
{
    return std::string(ETSCOPE_TEST_DATA_DIR) + "/" + relative;
}

} // namespace etscope::test
