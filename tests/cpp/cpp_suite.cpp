/*
 * cpp_suite.cpp — tattle used from C++17: the suite shared with C (see
 * shared_suite.c), compiled as C++, and what only C++ has: nullptr, bool
 * literals, scoped enumerations, references, templates and lambdas as
 * operands, std::string through c_str(), TEST_P over C strings, and an
 * exception that escapes a test. Built with -std=c++17 -Wall -Wextra -Wpedantic
 * -Werror; run by test_cpp.py through the real runner.
 */
#include "shared_suite.c"

#include <stdexcept>
#include <string>

namespace
{

enum class colour : unsigned char { red = 1, green = 2 };

template <typename T> T twice(T value)
{
    return value + value;
}

int helper(int value)
{
    return value;
}

} // namespace

TEST(cpp, cpp_operands_hold)
{
    int *nothing = nullptr;
    ASSERT_EQ(nothing, nullptr);
    ASSERT_NULL(nothing);
    ASSERT_NULL(nullptr, "a nullptr literal");
    ASSERT_EQ(true, !false);
    ASSERT_EQ(colour::red, colour::red);
    const long five = 5;
    const long &reference = five;
    ASSERT_EQ(reference, 5L);
    ASSERT_EQ(twice(21), 42);
    ASSERT_NEAR(twice(0.25), 0.5, 1e-12);
    auto square = [](int x) { return x * x; };
    ASSERT_EQ(square(7), 49, "a lambda %s", "too");
    ASSERT_EQ(&helper, &helper);
    std::string name = "tattle";
    ASSERT_STR_EQ(name.c_str(), "tattle");
    ASSERT_MEM_EQ(name.data(), "tat", 3);
    ASSERT_EQ(name.size(), static_cast<size_t>(6));
}

TEST(cpp, fails_cpp_operands)
{
    EXPECT_EQ(false, true);
    EXPECT_EQ(colour::red, colour::green);
    std::string name = "tattle";
    EXPECT_STR_EQ(name.c_str(), "tattled");
    int value = 7;
    int *pointer = &value;
    EXPECT_EQ(pointer, nullptr);
}

TEST_P(cpp, param_from_cpp, const char *, "one", "three")
{
    std::string word = PARAM(const char *);
    ASSERT_EQ(word.size() % 2, static_cast<size_t>(1));
}

TEST(cpp, exception_escaping_the_body_is_a_crash)
{
    throw std::runtime_error("nobody catches this");
}
