/*
 * tattle.h — writing tests with tattle.
 *
 * This is the header a test file includes. It declares tests and suites
 * (registered automatically before main(), so there is no hand-kept list),
 * the assertion macros (fatal ASSERT_*, non-fatal EXPECT_*, each with an
 * optional trailing printf-style message), tattle_on_exit() and
 * tattle_main(). Every macro exists with a TATTLE_ prefix; the short names
 * are aliases that `#define TATTLE_NO_SHORT_NAMES` turns off. The header
 * compiles without a warning under -std=c11 -Wall -Wextra -Wpedantic, and
 * as C++17 under -Wall -Wextra: TEST and SUITE options are designated
 * initializers, standard from C++20 on, where they must be written in the
 * order the option structs declare them. In C++ the type-generic
 * assertion values come from overloads instead of _Generic.
 */
#ifndef TATTLE_TATTLE_H
#define TATTLE_TATTLE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TATTLE_VERSION "0.1.0"

#if defined(TATTLE_BUILDING) && defined(__GNUC__)
#define TATTLE_API __attribute__((visibility("default")))
#else
#define TATTLE_API
#endif

#if defined(__GNUC__)
#define TATTLE__PRINTF(fmt_index, args_index)                                  \
    __attribute__((format(printf, fmt_index, args_index)))
#define TATTLE__NORETURN __attribute__((noreturn))
#else
#define TATTLE__PRINTF(fmt_index, args_index)
#define TATTLE__NORETURN
#endif

/* In C++ every option field has a default, so a designated initializer
 * that names only some of them leaves the others zero without a
 * -Wmissing-field-initializers warning; in C the omitted fields are zero
 * anyway. */
#ifdef __cplusplus
#define TATTLE__DEFAULT(value) = value
#else
#define TATTLE__DEFAULT(value)
#endif

/* Says that a pointer parameter is only looked at, never dereferenced, so
 * GCC does not warn when a test passes fresh malloc() memory to it. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define TATTLE__NOT_DEREFERENCED(index) __attribute__((access(none, index)))
#else
#define TATTLE__NOT_DEREFERENCED(index)
#endif

/* ------------------------------------------------------------------------ */
/* Tests and suites                                                          */

/** A fixture without state: runs in the test's process before (setup) or
 * after (teardown) the test body. */
typedef void (*tattle_fixture_fn)(void);

/** Which signature a fixture option holds. A setup is `void fn(void)` or
 * `void *fn(void)` (its pointer is the fixture, read by tattle_fixture());
 * a teardown is `void fn(void)` or `void fn(void *)` (it receives the
 * fixture). In C++ the option's type records which one was given, and the
 * runner calls it exactly so. In C one option field cannot take both
 * function types without a diagnostic, so `.setup = fn` stores the
 * function's address alone (TEST and SUITE declare their records inside
 * __extension__, which keeps -Wpedantic quiet about a function's address
 * in a `const void *`) and the signature stays unknown: the runner then
 * calls a setup as `void *fn(void)` and a teardown as `void fn(void *)`.
 * For a fixture of the other signature that call is undefined in ISO C;
 * on the System V x86-64 and AArch64 ABIs it is harmless (an ignored
 * argument register, a return register nobody reads unless the test
 * calls tattle_fixture()). `.setup_signature = TATTLE_FIXTURE_PLAIN`
 * (or `_WITH_STATE`) next to `.setup` says it exactly. */
enum tattle_fixture_signature {
    TATTLE_FIXTURE_UNKNOWN = 0,
    TATTLE_FIXTURE_PLAIN = 1,      /* void fn(void) */
    TATTLE_FIXTURE_WITH_STATE = 2, /* void *fn(void) or void fn(void *) */
};

#ifdef __cplusplus
/* A setup option in C++: converts from either signature, remembering
 * which. Same layout as the C fields `setup` and `setup_signature`. */
struct tattle_setup_fixture {
    const void *function = nullptr;
    intptr_t signature = TATTLE_FIXTURE_UNKNOWN;
    constexpr tattle_setup_fixture()
    {
    }
    constexpr tattle_setup_fixture(decltype(nullptr))
    {
    }
    tattle_setup_fixture(void (*plain)(void))
        : function(reinterpret_cast<const void *>(plain)),
          signature(TATTLE_FIXTURE_PLAIN)
    {
    }
    tattle_setup_fixture(void *(*with_state)(void))
        : function(reinterpret_cast<const void *>(with_state)),
          signature(TATTLE_FIXTURE_WITH_STATE)
    {
    }
};
/* A teardown option in C++, as tattle_setup_fixture. */
struct tattle_teardown_fixture {
    const void *function = nullptr;
    intptr_t signature = TATTLE_FIXTURE_UNKNOWN;
    constexpr tattle_teardown_fixture()
    {
    }
    constexpr tattle_teardown_fixture(decltype(nullptr))
    {
    }
    tattle_teardown_fixture(void (*plain)(void))
        : function(reinterpret_cast<const void *>(plain)),
          signature(TATTLE_FIXTURE_PLAIN)
    {
    }
    tattle_teardown_fixture(void (*with_state)(void *))
        : function(reinterpret_cast<const void *>(with_state)),
          signature(TATTLE_FIXTURE_WITH_STATE)
    {
    }
};
#define TATTLE__FIXTURE_OPTION(role_)                                          \
    struct tattle_##role_##_fixture role_ = tattle_##role_##_fixture();
#else
#define TATTLE__FIXTURE_OPTION(role_)                                          \
    const void *role_;                                                         \
    intptr_t role_##_signature;
#endif

/** The optional fields of TEST(suite, name, ...), given as designated
 * initializers. A zero field means "not set": the suite, the configuration
 * file or the command line decides. */
struct tattle_test_options {
    /* Set (to 0) first by TEST()'s C initializer, so that the initializer
     * is never empty whatever options follow; leave it 0. */
    int reserved TATTLE__DEFAULT(0);
    /* Space-separated words; a word may be word:value. */
    const char *tags TATTLE__DEFAULT(0);
    /* 0: the run's default. */
    long timeout_ms TATTLE__DEFAULT(0);
    /* Non-NULL: the test is skipped with this reason. */
    const char *skip TATTLE__DEFAULT(0);
    /* void fn(void) or void *fn(void); see enum tattle_fixture_signature.
     * (C also has .setup_signature and .teardown_signature.) */
    TATTLE__FIXTURE_OPTION(setup)
    /* void fn(void) or void fn(void *), given the setup's pointer. */
    TATTLE__FIXTURE_OPTION(teardown)
    /* Events kept by the flight recorder. */
    int trace_cap TATTLE__DEFAULT(0);
    /* Events recorded at most. */
    int trace_budget TATTLE__DEFAULT(0);
    /* Non-zero: the test passes only if its process is killed by this
     * signal (after setup); any other ending fails it. */
    int expect_signal TATTLE__DEFAULT(0);
    /* Non-zero: the test passes only if its process exits with this status
     * (1 to 255, after setup); any other ending fails it. */
    int expect_exit TATTLE__DEFAULT(0);
};

/** The optional fields of SUITE(name, ...). */
struct tattle_suite_options {
    /* As in struct tattle_test_options: keeps SUITE()'s initializer
     * non-empty; leave it 0. */
    int reserved TATTLE__DEFAULT(0);
    /* Applied to every test of the suite. */
    const char *tags TATTLE__DEFAULT(0);
    /* Run in each test's process around the test's own fixtures; the
     * signatures are a test's (tattle_suite_fixture() reads the pointer). */
    TATTLE__FIXTURE_OPTION(setup)
    TATTLE__FIXTURE_OPTION(teardown)
    /* Run once per suite, in the process the suite's tests are forked
     * from: each test starts from its own copy of what before_all left
     * (memory and descriptors; not threads). after_all runs there after
     * the suite's last test. A failing before_all fails every test of the
     * suite with an error naming it. */
    tattle_fixture_fn before_all TATTLE__DEFAULT(0);
    tattle_fixture_fn after_all TATTLE__DEFAULT(0);
};

/** One registered test. Instances are static and const, created by
 * TEST(): read-only data costs a forked test process nothing, however many
 * tests a binary holds. */
struct tattle_test {
    const char *suite;
    const char *name;
    const char *file;
    int line;
    void (*body)(void);
    struct tattle_test_options options;
};

/** One registered suite. Instances are static and const, created by
 * SUITE(). */
struct tattle_suite {
    const char *name;
    const char *file;
    int line;
    struct tattle_suite_options options;
};

/** Adds a test to the registry (TEST() records are registered from their
 * section, see tattle__registration). The registry keeps the pointer; the
 * test must outlive the run. */
TATTLE_API void tattle_test_register(const struct tattle_test *test);
/** Adds a suite to the registry (called by SUITE()). */
TATTLE_API void tattle_suite_register(const struct tattle_suite *suite);

/* Registration without a function per test: TEST() and TEST_P() each put
 * one tattle__registration in the section "tattle_tests", which the linker
 * gathers, in link order, between __start_tattle_tests and
 * __stop_tattle_tests of each executable or shared object. One
 * constructor per translation unit (below) hands that range to
 * tattle__register_section(), which registers the range once, in order
 * (a TEST_P through tattle_test_register_params()), and skips zero
 * entries. The records are read from the section at registration, before
 * main(); a C++ record whose options need a constructor is read later,
 * when the run starts. */
struct tattle_params;
struct tattle__registration {
    const struct tattle_test *test;
    const struct tattle_params *params; /* NULL: a TEST */
};
TATTLE_API void
tattle__register_section(const struct tattle__registration *first,
                         const struct tattle__registration *end);
#if defined(__has_attribute)
#if __has_attribute(retain)
/* Kept under --gc-sections by linkers that collect __start_ sections. */
#define TATTLE__RETAIN retain,
#endif
#endif
#ifndef TATTLE__RETAIN
#define TATTLE__RETAIN
#endif
#define TATTLE__REGISTRATION(suite_, name_, params_)                           \
    __attribute__((                                                            \
        TATTLE__RETAIN used, section("tattle_tests"),                          \
        aligned(sizeof(struct tattle__registration)))) static const struct     \
        tattle__registration tattle__registration__##suite_##__##name_ = {     \
            &tattle__test__##suite_##__##name_, params_}
/* Every file that includes a tattle header gets the constructor; weak
 * references let one that is linked without libtattle (a reporter plugin,
 * the preload library) and one without tests link as well. */
#ifndef TATTLE_BUILDING
extern const struct tattle__registration __start_tattle_tests[]
    __attribute__((weak, visibility("hidden")));
extern const struct tattle__registration __stop_tattle_tests[]
    __attribute__((weak, visibility("hidden")));
TATTLE_API void
tattle__register_section(const struct tattle__registration *first,
                         const struct tattle__registration *end)
    __attribute__((weak));
/* Not instrumented: a program built with -finstrument-functions sees
 * its own calls in its hooks, not tattle's registration. */
__attribute__((constructor, no_instrument_function)) static void
tattle__register_unit(void)
{
    if (tattle__register_section)
        tattle__register_section(__start_tattle_tests, __stop_tattle_tests);
}
#endif

#define TATTLE__CAT_(a, b) a##b
#define TATTLE__CAT(a, b) TATTLE__CAT_(a, b)

/* TEST(suite, name, ...): the trailing empty argument keeps the variadic
 * part non-empty, so a TEST without options is valid ISO C. The options'
 * initializer starts with a designator in C (an empty list is not C11); in
 * C++ it holds the user's designators alone (C++20 does not mix them with
 * positional values), and is empty without options. */
#ifdef __cplusplus
#define TATTLE__OPTIONS(...)                                                   \
    {                                                                          \
        __VA_ARGS__                                                            \
    }
#else
#define TATTLE__OPTIONS(...)                                                   \
    {                                                                          \
        .reserved = 0, __VA_ARGS__                                             \
    }
#endif
#define TATTLE_TEST(...) TATTLE__TEST(__VA_ARGS__, )
#define TATTLE__TEST(suite_, name_, ...)                                       \
    static void tattle__body__##suite_##__##name_(void);                       \
    __extension__ static const struct tattle_test                              \
        tattle__test__##suite_##__##name_ = {                                  \
            #suite_,                                                           \
            #name_,                                                            \
            __FILE__,                                                          \
            __LINE__,                                                          \
            tattle__body__##suite_##__##name_,                                 \
            TATTLE__OPTIONS(__VA_ARGS__)};                                     \
    TATTLE__REGISTRATION(suite_, name_, 0);                                    \
    static void tattle__body__##suite_##__##name_(void)

/* ---- Parameterized tests ---- */

/** How the runner renders a parameter's value in reports: integers,
 * floating point, booleans and strings by value; anything else (a struct,
 * a char) by its source text. */
enum tattle_param_kind {
    TATTLE_PARAM_OTHER = 0,
    TATTLE_PARAM_SIGNED,
    TATTLE_PARAM_UNSIGNED,
    TATTLE_PARAM_FLOATING,
    TATTLE_PARAM_BOOL,
    TATTLE_PARAM_STRING
};

/** The values of one TEST_P, created by the macro (static and const). */
struct tattle_params {
    const void *values; /* an array of `count` values of `size` bytes */
    size_t size;
    size_t count;
    enum tattle_param_kind kind;
    const char *source; /* the values as written, comma-separated */
};

/** Registers one test per value of `params` (TEST_P()'s record is
 * registered so from its section), with ids suite/name[0], suite/name[1], ...
 * Both records must outlive the run. */
TATTLE_API void tattle_test_register_params(const struct tattle_test *test,
                                            const struct tattle_params *params);

/** The running parameterized test's value (a pointer into the TEST_P's
 * array); NULL outside one. PARAM(type) reads it as `type`. */
TATTLE_API const void *tattle_param(void);

#ifdef __cplusplus
} /* extern "C" */
#include <type_traits>
/* C++ picks a parameter's kind from its type, as C does with _Generic. */
template <typename T> constexpr tattle_param_kind tattle__param_kind_of()
{
    typedef typename std::remove_cv<T>::type type;
    return std::is_same<type, bool>::value   ? TATTLE_PARAM_BOOL
           : std::is_same<type, char>::value ? TATTLE_PARAM_OTHER
           : std::is_same<type, const char *>::value ||
                   std::is_same<type, char *>::value
               ? TATTLE_PARAM_STRING
           : std::is_integral<type>::value && std::is_signed<type>::value
               ? TATTLE_PARAM_SIGNED
           : std::is_integral<type>::value       ? TATTLE_PARAM_UNSIGNED
           : std::is_floating_point<type>::value ? TATTLE_PARAM_FLOATING
                                                 : TATTLE_PARAM_OTHER;
}
extern "C" {
#define TATTLE__PARAM_KIND(type_, values_) tattle__param_kind_of<type_>()
#else
#define TATTLE__PARAM_KIND(type_, values_)                                     \
    _Generic((values_)[0], _Bool                                               \
             : TATTLE_PARAM_BOOL, signed char                                  \
             : TATTLE_PARAM_SIGNED, short                                      \
             : TATTLE_PARAM_SIGNED, int                                        \
             : TATTLE_PARAM_SIGNED, long                                       \
             : TATTLE_PARAM_SIGNED, long long                                  \
             : TATTLE_PARAM_SIGNED, unsigned char                              \
             : TATTLE_PARAM_UNSIGNED, unsigned short                           \
             : TATTLE_PARAM_UNSIGNED, unsigned int                             \
             : TATTLE_PARAM_UNSIGNED, unsigned long                            \
             : TATTLE_PARAM_UNSIGNED, unsigned long long                       \
             : TATTLE_PARAM_UNSIGNED, float                                    \
             : TATTLE_PARAM_FLOATING, double                                   \
             : TATTLE_PARAM_FLOATING, long double                              \
             : TATTLE_PARAM_FLOATING, char *                                   \
             : TATTLE_PARAM_STRING, const char *                               \
             : TATTLE_PARAM_STRING, default                                    \
             : TATTLE_PARAM_OTHER)
#endif

/* TEST_P(suite, name, type, values...): the values become one static
 * array (`{ __VA_ARGS__ }` rejoins a struct's designated initializers
 * that the preprocessor split at their commas), and the test is
 * registered once per value. `type const` (not `const type`) keeps a
 * pointer type such as `const char *` from gaining a second const. */
#define TATTLE_TEST_P(suite_, name_, type_, ...)                               \
    static void tattle__body__##suite_##__##name_(void);                       \
    static type_ const tattle__values__##suite_##__##name_[] = {__VA_ARGS__};  \
    static const struct tattle_params tattle__params__##suite_##__##name_ = {  \
        tattle__values__##suite_##__##name_, sizeof(type_),                    \
        sizeof tattle__values__##suite_##__##name_ /                           \
            sizeof tattle__values__##suite_##__##name_[0],                     \
        TATTLE__PARAM_KIND(type_, tattle__values__##suite_##__##name_),        \
        #__VA_ARGS__};                                                         \
    __extension__ static const struct tattle_test                              \
        tattle__test__##suite_##__##name_ = {                                  \
            #suite_,                                                           \
            #name_,                                                            \
            __FILE__,                                                          \
            __LINE__,                                                          \
            tattle__body__##suite_##__##name_,                                 \
            TATTLE__OPTIONS()};                                                \
    TATTLE__REGISTRATION(suite_, name_, &tattle__params__##suite_##__##name_); \
    static void tattle__body__##suite_##__##name_(void)

/** The running parameterized test's value as `type_` (the TEST_P's type). */
#define TATTLE_PARAM(type_) (*(type_ const *)tattle_param())

#define TATTLE_SUITE(...) TATTLE__SUITE(__VA_ARGS__, )
#define TATTLE__SUITE(name_, ...)                                              \
    __extension__ static const struct tattle_suite tattle__suite__##name_ = {  \
        #name_, __FILE__, __LINE__, TATTLE__OPTIONS(__VA_ARGS__)};             \
    __attribute__((constructor)) static void tattle__register_suite__##name_(  \
        void)                                                                  \
    {                                                                          \
        tattle_suite_register(&tattle__suite__##name_);                        \
    }                                                                          \
    struct tattle__suite_semicolon_##name_

/* ------------------------------------------------------------------------ */
/* Values captured by assertions                                             */

enum tattle_value_kind {
    TATTLE_VALUE_SIGNED,
    TATTLE_VALUE_UNSIGNED,
    TATTLE_VALUE_FLOATING,
    TATTLE_VALUE_POINTER,
    TATTLE_VALUE_BOOL,
    TATTLE_VALUE_CHAR
};

/** An operand of a comparison, captured once with its type's category.
 * (A struct, not a union: GCC notes a psABI change for unions holding a
 * long double in every user file that passes one.) */
struct tattle_value {
    enum tattle_value_kind kind;
    struct {
        intmax_t as_signed;
        uintmax_t as_unsigned;
        long double as_floating;
        const void *as_pointer;
    } u;
};

TATTLE_API struct tattle_value tattle__value_signed(intmax_t v);
TATTLE_API struct tattle_value tattle__value_unsigned(uintmax_t v);
TATTLE_API struct tattle_value tattle__value_floating(long double v);
TATTLE_API struct tattle_value tattle__value_pointer(const void *v)
    TATTLE__NOT_DEREFERENCED(1);
#ifdef __cplusplus
TATTLE_API struct tattle_value tattle__value_bool(bool v);
#else
TATTLE_API struct tattle_value tattle__value_bool(_Bool v);
#endif
TATTLE_API struct tattle_value tattle__value_char(char v);

#ifdef __cplusplus
#define TATTLE__VALUE(x) tattle__value_of(x)
#else
#define TATTLE__VALUE(x)                                                       \
    _Generic((x), _Bool                                                        \
             : tattle__value_bool, char                                        \
             : tattle__value_char, signed char                                 \
             : tattle__value_signed, short                                     \
             : tattle__value_signed, int                                       \
             : tattle__value_signed, long                                      \
             : tattle__value_signed, long long                                 \
             : tattle__value_signed, unsigned char                             \
             : tattle__value_unsigned, unsigned short                          \
             : tattle__value_unsigned, unsigned int                            \
             : tattle__value_unsigned, unsigned long                           \
             : tattle__value_unsigned, unsigned long long                      \
             : tattle__value_unsigned, float                                   \
             : tattle__value_floating, double                                  \
             : tattle__value_floating, long double                             \
             : tattle__value_floating, default                                 \
             : tattle__value_pointer)(x)
#endif

enum tattle_comparison {
    TATTLE_CMP_EQ,
    TATTLE_CMP_NE,
    TATTLE_CMP_LT,
    TATTLE_CMP_LE,
    TATTLE_CMP_GT,
    TATTLE_CMP_GE
};

/** Where an assertion stands in the source, and what it says. */
struct tattle_assert_site {
    const char *macro;   /* "ASSERT_EQ" */
    const char *written; /* the arguments as written, message included */
    const char *file;
    int line;
    int fatal;    /* ASSERT_* (1) or EXPECT_* (0) */
    int operands; /* how many leading arguments form the expression */
};

/* The checking functions return nonzero when the assertion holds. A failed
 * fatal assertion does not return (the test body is left). The trailing
 * format is the user's optional message, NULL when absent. */
TATTLE_API int tattle__check_compare(const struct tattle_assert_site *site,
                                     enum tattle_comparison comparison,
                                     const struct tattle_value *left,
                                     const struct tattle_value *right,
                                     const char *format, ...)
    TATTLE__PRINTF(5, 6);
#ifndef __cplusplus
/** How a comparison's operand travels through tattle__check_operands()'s
 * variadic arguments (after the default argument promotions) and how it
 * is rendered. */
enum tattle__operand_kind {
    TATTLE__OPERAND_INT = 1,        /* int, and signed types promoted to it */
    TATTLE__OPERAND_UNSIGNED_SMALL, /* unsigned char, unsigned short: int */
    TATTLE__OPERAND_BOOL,           /* _Bool, promoted to int */
    TATTLE__OPERAND_CHAR,           /* char, promoted to int */
    TATTLE__OPERAND_LONG,
    TATTLE__OPERAND_LONG_LONG,
    TATTLE__OPERAND_UNSIGNED,
    TATTLE__OPERAND_UNSIGNED_LONG,
    TATTLE__OPERAND_UNSIGNED_LONG_LONG,
    TATTLE__OPERAND_DOUBLE, /* float and double */
    TATTLE__OPERAND_LONG_DOUBLE,
    TATTLE__OPERAND_POINTER /* any other type: an address */
};
/* Never defined nor called: inside sizeof, the one chosen for an operand
 * takes it as tattle__value_* would (a struct does not compile, a
 * pointer from an integer warns), and the size of what its result points
 * to is the operand's kind. One _Generic per operand gives both. */
#define TATTLE__KIND_CHECK(kind_, parameter_)                                  \
    char(*tattle__compared_as_##kind_(parameter_))[TATTLE__OPERAND_##kind_]
TATTLE__KIND_CHECK(INT, intmax_t);
TATTLE__KIND_CHECK(UNSIGNED_SMALL, uintmax_t);
TATTLE__KIND_CHECK(BOOL, _Bool);
TATTLE__KIND_CHECK(CHAR, char);
TATTLE__KIND_CHECK(LONG, intmax_t);
TATTLE__KIND_CHECK(LONG_LONG, intmax_t);
TATTLE__KIND_CHECK(UNSIGNED, uintmax_t);
TATTLE__KIND_CHECK(UNSIGNED_LONG, uintmax_t);
TATTLE__KIND_CHECK(UNSIGNED_LONG_LONG, uintmax_t);
TATTLE__KIND_CHECK(DOUBLE, long double);
TATTLE__KIND_CHECK(LONG_DOUBLE, long double);
TATTLE__KIND_CHECK(POINTER, const void *) TATTLE__NOT_DEREFERENCED(1);
#define TATTLE__OPERAND_KIND(x)                                                \
    sizeof(*_Generic((x), _Bool                                                \
                     : tattle__compared_as_BOOL, char                          \
                     : tattle__compared_as_CHAR, signed char                   \
                     : tattle__compared_as_INT, short                          \
                     : tattle__compared_as_INT, int                            \
                     : tattle__compared_as_INT, long                           \
                     : tattle__compared_as_LONG, long long                     \
                     : tattle__compared_as_LONG_LONG, unsigned char            \
                     : tattle__compared_as_UNSIGNED_SMALL, unsigned short      \
                     : tattle__compared_as_UNSIGNED_SMALL, unsigned int        \
                     : tattle__compared_as_UNSIGNED, unsigned long             \
                     : tattle__compared_as_UNSIGNED_LONG, unsigned long long   \
                     : tattle__compared_as_UNSIGNED_LONG_LONG, float           \
                     : tattle__compared_as_DOUBLE, double                      \
                     : tattle__compared_as_DOUBLE, long double                 \
                     : tattle__compared_as_LONG_DOUBLE, default                \
                     : tattle__compared_as_POINTER)(x))
/* The descriptor: the comparison, each operand's kind, whether a format
 * (and its arguments) follows the operands. */
#define TATTLE__OPERANDS(cmp_, left_kind_, right_kind_, has_message_)          \
    ((int)(cmp_) | (int)(left_kind_) << 4 | (int)(right_kind_) << 8 |          \
     (has_message_) << 12)
/** tattle__check_compare() for C: `descriptor` is TATTLE__OPERANDS(); the
 * two operands follow it, then, when it says so, the format and its
 * arguments. */
TATTLE_API int tattle__check_operands(const struct tattle_assert_site *site,
                                      int descriptor, ...);
/* Never defined nor called: gives the message of a comparison, inside
 * sizeof, printf's format checks. */
int tattle__format_check(const char *format, ...) TATTLE__PRINTF(1, 2);
#endif
TATTLE_API int tattle__check_true(const struct tattle_assert_site *site,
                                  int holds, const char *format, ...)
    TATTLE__PRINTF(3, 4);
TATTLE_API int tattle__check_string(const struct tattle_assert_site *site,
                                    int want_equal, const char *left,
                                    const char *right, const char *format, ...)
    TATTLE__PRINTF(5, 6);
TATTLE_API int tattle__check_memory(const struct tattle_assert_site *site,
                                    const void *left, const void *right,
                                    size_t size, const char *format, ...)
    TATTLE__PRINTF(5, 6);
TATTLE_API int tattle__check_null(const struct tattle_assert_site *site,
                                  int want_null, const void *pointer,
                                  const char *format, ...) TATTLE__PRINTF(4, 5)
    TATTLE__NOT_DEREFERENCED(3);
TATTLE_API int tattle__check_near(const struct tattle_assert_site *site,
                                  long double left, long double right,
                                  long double epsilon, const char *format, ...)
    TATTLE__PRINTF(5, 6);
/* A death check: the statement runs in a child forked from the test
 * process, whose stderr the parent keeps the end of. */
enum tattle__death_kind { TATTLE__DEATH_BY_SIGNAL, TATTLE__DEATH_BY_EXIT };
struct tattle__death {
    int pid;         /* the child; -1 when fork failed */
    int stderr_fd;   /* read end of the child's stderr */
    int returned_fd; /* read end: one byte when the statement returned */
    int error;       /* errno of a failed pipe or fork */
};
/* Forks the child: returns nonzero in the child, which then runs the
 * statement and calls tattle__death_returned(). */
TATTLE_API int tattle__death_fork(struct tattle__death *death);
TATTLE_API TATTLE__NORETURN void
tattle__death_returned(struct tattle__death *death);
/* Waits for the child and checks how it ended against `expected`. */
TATTLE_API int tattle__check_death(const struct tattle_assert_site *site,
                                   struct tattle__death *death,
                                   enum tattle__death_kind kind, int expected,
                                   const char *format, ...)
    TATTLE__PRINTF(5, 6);
TATTLE_API TATTLE__NORETURN void tattle__fail_now(const char *file, int line,
                                                  const char *format, ...)
    TATTLE__PRINTF(3, 4);
TATTLE_API TATTLE__NORETURN void tattle__skip_now(const char *file, int line,
                                                  const char *format, ...)
    TATTLE__PRINTF(3, 4);

/* Argument counting: picks the _NOMSG or _MSG form of a macro, so that the
 * message stays optional without an empty variadic list (invalid in C11). */
#define TATTLE__ARG_22(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, \
                       _14, _15, _16, _17, _18, _19, _20, _21, N, ...)         \
    N
#define TATTLE__MSG_AFTER_1(...)                                               \
    TATTLE__ARG_22(__VA_ARGS__, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG,   \
                   MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG,      \
                   NOMSG, ERROR, ERROR)
#define TATTLE__MSG_AFTER_2(...)                                               \
    TATTLE__ARG_22(__VA_ARGS__, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG,   \
                   MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG, NOMSG,    \
                   ERROR, ERROR)
#define TATTLE__MSG_AFTER_3(...)                                               \
    TATTLE__ARG_22(__VA_ARGS__, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG,   \
                   MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG, MSG, NOMSG, ERROR,  \
                   ERROR, ERROR)

/* The arguments are stringified by the public macro, before expansion, so
 * ASSERT(WIFEXITED(s)) reads as written; the message is cut off at run
 * time, at the top-level comma after the operands. */
#define TATTLE__SITE(macro_, fatal_, written_, operands_)                      \
    static const struct tattle_assert_site tattle__site = {                    \
        macro_, written_, __FILE__, __LINE__, fatal_, operands_}

/* Each check is written once, in its _MSG form; the _NOMSG form passes a
 * NULL format (no message) to it. */

/* Comparisons: ASSERT_EQ(a, b [, fmt, ...]) and friends. Operands are
 * evaluated once, left to right. In C they travel as the variadic
 * arguments of one call, each with the code of its type
 * (TATTLE__OPERAND_KIND) in the call's descriptor, which keeps an
 * assertion as cheap to compile as a call; the code is found by one
 * _Generic per operand whose unevaluated call gives the operand the
 * diagnostics tattle__value_* would (a struct does not compile), and a
 * sizeof gives the message printf's checks, without evaluating anything.
 * In C++ the operands become tattle_values. */
#define TATTLE__COMPARE(macro_, fatal_, cmp_, written_, ...)                   \
    TATTLE__CAT(TATTLE__COMPARE_, TATTLE__MSG_AFTER_2(__VA_ARGS__))            \
    (macro_, fatal_, cmp_, written_, __VA_ARGS__)
#ifdef __cplusplus
#define TATTLE__COMPARE_NOMSG(macro_, fatal_, cmp_, written_, a_, b_)          \
    TATTLE__COMPARE_MSG(macro_, fatal_, cmp_, written_, a_, b_, NULL)
#define TATTLE__COMPARE_MSG(macro_, fatal_, cmp_, written_, a_, b_, ...)       \
    do {                                                                       \
        TATTLE__SITE(macro_, fatal_, written_, 2);                             \
        const struct tattle_value tattle__left = TATTLE__VALUE(a_);            \
        const struct tattle_value tattle__right = TATTLE__VALUE(b_);           \
        tattle__check_compare(&tattle__site, cmp_, &tattle__left,              \
                              &tattle__right, __VA_ARGS__);                    \
    } while (0)
#else
/* The operands are evaluated left to right, into variables of their
 * promoted types (`0 ? 0 :` turns a bit-field, an array or a function
 * into a value). Then the call's start: the _MSG form adds the message
 * before closing it. */
#define TATTLE__COMPARE_OPERANDS(cmp_, a_, b_, has_message_)                   \
    __extension__ __auto_type tattle__left = 0 ? 0 : (a_);                     \
    __extension__ __auto_type tattle__right = 0 ? 0 : (b_);                    \
    tattle__check_operands(                                                    \
        &tattle__site,                                                         \
        TATTLE__OPERANDS(cmp_, TATTLE__OPERAND_KIND(a_),                       \
                         TATTLE__OPERAND_KIND(b_), has_message_),              \
        tattle__left, tattle__right
#define TATTLE__COMPARE_NOMSG(macro_, fatal_, cmp_, written_, a_, b_)          \
    do {                                                                       \
        TATTLE__SITE(macro_, fatal_, written_, 2);                             \
        TATTLE__COMPARE_OPERANDS(cmp_, a_, b_, 0));                            \
    } while (0)
#define TATTLE__COMPARE_MSG(macro_, fatal_, cmp_, written_, a_, b_, ...)       \
    do {                                                                       \
        TATTLE__SITE(macro_, fatal_, written_, 2);                             \
        (void)sizeof(tattle__format_check(__VA_ARGS__));                       \
        TATTLE__COMPARE_OPERANDS(cmp_, a_, b_, 1), __VA_ARGS__);               \
    } while (0)
#endif

/* One-operand truth checks: ASSERT(cond [, fmt, ...]). */
#define TATTLE__TRUTH(macro_, fatal_, written_, ...)                           \
    TATTLE__CAT(TATTLE__TRUTH_, TATTLE__MSG_AFTER_1(__VA_ARGS__))              \
    (macro_, fatal_, written_, __VA_ARGS__)
#define TATTLE__TRUTH_NOMSG(macro_, fatal_, written_, cond_)                   \
    TATTLE__TRUTH_MSG(macro_, fatal_, written_, cond_, NULL)
#define TATTLE__TRUTH_MSG(macro_, fatal_, written_, cond_, ...)                \
    do {                                                                       \
        TATTLE__SITE(macro_, fatal_, written_, 1);                             \
        tattle__check_true(&tattle__site, (cond_) ? 1 : 0, __VA_ARGS__);       \
    } while (0)

/* Strings: ASSERT_STR_EQ(a, b [, fmt, ...]). */
#define TATTLE__STRING(macro_, fatal_, equal_, written_, ...)                  \
    TATTLE__CAT(TATTLE__STRING_, TATTLE__MSG_AFTER_2(__VA_ARGS__))             \
    (macro_, fatal_, equal_, written_, __VA_ARGS__)
#define TATTLE__STRING_NOMSG(macro_, fatal_, equal_, written_, a_, b_)         \
    TATTLE__STRING_MSG(macro_, fatal_, equal_, written_, a_, b_, NULL)
#define TATTLE__STRING_MSG(macro_, fatal_, equal_, written_, a_, b_, ...)      \
    do {                                                                       \
        TATTLE__SITE(macro_, fatal_, written_, 2);                             \
        tattle__check_string(&tattle__site, equal_, (a_), (b_), __VA_ARGS__);  \
    } while (0)

/* Memory: ASSERT_MEM_EQ(a, b, n [, fmt, ...]). */
#define TATTLE__MEMORY(macro_, fatal_, written_, ...)                          \
    TATTLE__CAT(TATTLE__MEMORY_, TATTLE__MSG_AFTER_3(__VA_ARGS__))             \
    (macro_, fatal_, written_, __VA_ARGS__)
#define TATTLE__MEMORY_NOMSG(macro_, fatal_, written_, a_, b_, n_)             \
    TATTLE__MEMORY_MSG(macro_, fatal_, written_, a_, b_, n_, NULL)
#define TATTLE__MEMORY_MSG(macro_, fatal_, written_, a_, b_, n_, ...)          \
    do {                                                                       \
        TATTLE__SITE(macro_, fatal_, written_, 3);                             \
        tattle__check_memory(&tattle__site, (a_), (b_), (n_), __VA_ARGS__);    \
    } while (0)

/* Null checks: ASSERT_NULL(p [, fmt, ...]). */
#define TATTLE__NULLNESS(macro_, fatal_, want_, written_, ...)                 \
    TATTLE__CAT(TATTLE__NULLNESS_, TATTLE__MSG_AFTER_1(__VA_ARGS__))           \
    (macro_, fatal_, want_, written_, __VA_ARGS__)
#define TATTLE__NULLNESS_NOMSG(macro_, fatal_, want_, written_, p_)            \
    TATTLE__NULLNESS_MSG(macro_, fatal_, want_, written_, p_, NULL)
#define TATTLE__NULLNESS_MSG(macro_, fatal_, want_, written_, p_, ...)         \
    do {                                                                       \
        TATTLE__SITE(macro_, fatal_, written_, 1);                             \
        tattle__check_null(&tattle__site, want_, (const void *)(p_),           \
                           __VA_ARGS__);                                       \
    } while (0)

/* Nearness: ASSERT_NEAR(a, b, eps [, fmt, ...]). */
#define TATTLE__NEARNESS(macro_, fatal_, written_, ...)                        \
    TATTLE__CAT(TATTLE__NEARNESS_, TATTLE__MSG_AFTER_3(__VA_ARGS__))           \
    (macro_, fatal_, written_, __VA_ARGS__)
#define TATTLE__NEARNESS_NOMSG(macro_, fatal_, written_, a_, b_, eps_)         \
    TATTLE__NEARNESS_MSG(macro_, fatal_, written_, a_, b_, eps_, NULL)
#define TATTLE__NEARNESS_MSG(macro_, fatal_, written_, a_, b_, eps_, ...)      \
    do {                                                                       \
        TATTLE__SITE(macro_, fatal_, written_, 3);                             \
        tattle__check_near(&tattle__site, (a_), (b_), (eps_), __VA_ARGS__);    \
    } while (0)

/* Deaths: ASSERT_SIGNAL(statement, SIGNUM [, fmt, ...]) and
 * ASSERT_EXIT(statement, CODE [, fmt, ...]). The statement runs in a
 * forked child only; the test process goes on to the check. */
#define TATTLE__DEATH(macro_, fatal_, kind_, written_, ...)                    \
    TATTLE__CAT(TATTLE__DEATH_, TATTLE__MSG_AFTER_2(__VA_ARGS__))              \
    (macro_, fatal_, kind_, written_, __VA_ARGS__)
#define TATTLE__DEATH_NOMSG(macro_, fatal_, kind_, written_, statement_,       \
                            expected_)                                         \
    TATTLE__DEATH_MSG(macro_, fatal_, kind_, written_, statement_, expected_,  \
                      NULL)
#define TATTLE__DEATH_MSG(macro_, fatal_, kind_, written_, statement_,         \
                          expected_, ...)                                      \
    do {                                                                       \
        TATTLE__SITE(macro_, fatal_, written_, 2);                             \
        struct tattle__death tattle__death;                                    \
        if (tattle__death_fork(&tattle__death)) {                              \
            statement_;                                                        \
            tattle__death_returned(&tattle__death);                            \
        }                                                                      \
        tattle__check_death(&tattle__site, &tattle__death, kind_, (expected_), \
                            __VA_ARGS__);                                      \
    } while (0)

/* ------------------------------------------------------------------------ */
/* The assertion macros                                                      */

#define TATTLE_ASSERT(...) TATTLE__TRUTH("ASSERT", 1, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT(...) TATTLE__TRUTH("EXPECT", 0, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_EQ(...)                                                  \
    TATTLE__COMPARE("ASSERT_EQ", 1, TATTLE_CMP_EQ, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_NE(...)                                                  \
    TATTLE__COMPARE("ASSERT_NE", 1, TATTLE_CMP_NE, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_LT(...)                                                  \
    TATTLE__COMPARE("ASSERT_LT", 1, TATTLE_CMP_LT, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_LE(...)                                                  \
    TATTLE__COMPARE("ASSERT_LE", 1, TATTLE_CMP_LE, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_GT(...)                                                  \
    TATTLE__COMPARE("ASSERT_GT", 1, TATTLE_CMP_GT, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_GE(...)                                                  \
    TATTLE__COMPARE("ASSERT_GE", 1, TATTLE_CMP_GE, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_EQ(...)                                                  \
    TATTLE__COMPARE("EXPECT_EQ", 0, TATTLE_CMP_EQ, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_NE(...)                                                  \
    TATTLE__COMPARE("EXPECT_NE", 0, TATTLE_CMP_NE, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_LT(...)                                                  \
    TATTLE__COMPARE("EXPECT_LT", 0, TATTLE_CMP_LT, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_LE(...)                                                  \
    TATTLE__COMPARE("EXPECT_LE", 0, TATTLE_CMP_LE, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_GT(...)                                                  \
    TATTLE__COMPARE("EXPECT_GT", 0, TATTLE_CMP_GT, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_GE(...)                                                  \
    TATTLE__COMPARE("EXPECT_GE", 0, TATTLE_CMP_GE, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_STR_EQ(...)                                              \
    TATTLE__STRING("ASSERT_STR_EQ", 1, 1, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_STR_NE(...)                                              \
    TATTLE__STRING("ASSERT_STR_NE", 1, 0, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_STR_EQ(...)                                              \
    TATTLE__STRING("EXPECT_STR_EQ", 0, 1, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_STR_NE(...)                                              \
    TATTLE__STRING("EXPECT_STR_NE", 0, 0, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_MEM_EQ(...)                                              \
    TATTLE__MEMORY("ASSERT_MEM_EQ", 1, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_MEM_EQ(...)                                              \
    TATTLE__MEMORY("EXPECT_MEM_EQ", 0, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_NULL(...)                                                \
    TATTLE__NULLNESS("ASSERT_NULL", 1, 1, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_NOT_NULL(...)                                            \
    TATTLE__NULLNESS("ASSERT_NOT_NULL", 1, 0, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_NULL(...)                                                \
    TATTLE__NULLNESS("EXPECT_NULL", 0, 1, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_NOT_NULL(...)                                            \
    TATTLE__NULLNESS("EXPECT_NOT_NULL", 0, 0, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_NEAR(...)                                                \
    TATTLE__NEARNESS("ASSERT_NEAR", 1, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_EXPECT_NEAR(...)                                                \
    TATTLE__NEARNESS("EXPECT_NEAR", 0, #__VA_ARGS__, __VA_ARGS__)
#define TATTLE_ASSERT_SIGNAL(...)                                              \
    TATTLE__DEATH("ASSERT_SIGNAL", 1, TATTLE__DEATH_BY_SIGNAL, #__VA_ARGS__,   \
                  __VA_ARGS__)
#define TATTLE_EXPECT_SIGNAL(...)                                              \
    TATTLE__DEATH("EXPECT_SIGNAL", 0, TATTLE__DEATH_BY_SIGNAL, #__VA_ARGS__,   \
                  __VA_ARGS__)
#define TATTLE_ASSERT_EXIT(...)                                                \
    TATTLE__DEATH("ASSERT_EXIT", 1, TATTLE__DEATH_BY_EXIT, #__VA_ARGS__,       \
                  __VA_ARGS__)
#define TATTLE_EXPECT_EXIT(...)                                                \
    TATTLE__DEATH("EXPECT_EXIT", 0, TATTLE__DEATH_BY_EXIT, #__VA_ARGS__,       \
                  __VA_ARGS__)
#define TATTLE_FAIL(...) tattle__fail_now(__FILE__, __LINE__, __VA_ARGS__)
#define TATTLE_SKIP(...) tattle__skip_now(__FILE__, __LINE__, __VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* Fixtures, on-exit callbacks and the entry point                           */

/** The pointer the test's setup returned, or, when the test has no setup,
 * the one its suite's setup returned; NULL outside a test, or when the
 * setup that ran returns nothing (in C, see enum tattle_fixture_signature:
 * a `void fn(void)` setup leaves the value undefined). The fixture stays
 * the caller's: the teardown receives it and frees what it must. */
TATTLE_API void *tattle_fixture(void);

/** The pointer the suite's setup returned (NULL as tattle_fixture()). */
TATTLE_API void *tattle_suite_fixture(void);

/** Registers fn(ctx) to run after the test body and its teardown, also after
 * a failed assertion; callbacks run in LIFO order. The caller keeps
 * ownership of ctx. Returns 0, or a negative errno-style code. */
TATTLE_API int tattle_on_exit(void (*fn)(void *ctx), void *ctx);

/** Runs the registered tests as the command line asks. Returns the process
 * exit status: 0 all passed, 1 a test failed, 2 usage error, 3 internal
 * error or interrupted. */
TATTLE_API int tattle_main(int argc, char **argv);

/** `tattle run [options] -- COMMAND [ARGS...]`, for the tattle command:
 * argv[0] is that command, argv[1] "run". Runs COMMAND as one test under
 * the runner and returns tattle_main()'s exit status; not for test code. */
TATTLE_API int tattle__run_command_main(int argc, char **argv);

/* Error codes                                                               */

/** The name of a code a tattle function returned: "EINVAL" for -EINVAL,
 * "OK" for 0, "UNKNOWN" for a code tattle never returns. The string is
 * static. */
TATTLE_API const char *tattle_error_name(int code);

/** A one-line message for a code a tattle function returned ("invalid
 * argument" for -EINVAL; "success" for 0, "unknown error" for a code
 * tattle never returns). The string is static. */
TATTLE_API const char *tattle_error_message(int code);

#ifdef __cplusplus
} /* extern "C" */

/* C++ has no _Generic: overloads pick the value's category the way the C
 * selection does (bool, char, signed and unsigned integers, floating
 * point, pointers; an enumeration by its underlying type). */
#include <cstddef>
#include <type_traits>

#define TATTLE__VALUE_OF(type_, make_)                                         \
    inline tattle_value tattle__value_of(type_ v)                              \
    {                                                                          \
        return make_(v);                                                       \
    }
TATTLE__VALUE_OF(bool, tattle__value_bool)
TATTLE__VALUE_OF(char, tattle__value_char)
TATTLE__VALUE_OF(signed char, tattle__value_signed)
TATTLE__VALUE_OF(short, tattle__value_signed)
TATTLE__VALUE_OF(int, tattle__value_signed)
TATTLE__VALUE_OF(long, tattle__value_signed)
TATTLE__VALUE_OF(long long, tattle__value_signed)
TATTLE__VALUE_OF(unsigned char, tattle__value_unsigned)
TATTLE__VALUE_OF(unsigned short, tattle__value_unsigned)
TATTLE__VALUE_OF(unsigned int, tattle__value_unsigned)
TATTLE__VALUE_OF(unsigned long, tattle__value_unsigned)
TATTLE__VALUE_OF(unsigned long long, tattle__value_unsigned)
TATTLE__VALUE_OF(float, tattle__value_floating)
TATTLE__VALUE_OF(double, tattle__value_floating)
TATTLE__VALUE_OF(long double, tattle__value_floating)
#undef TATTLE__VALUE_OF
inline tattle_value tattle__value_of(std::nullptr_t)
{
    return tattle__value_pointer(nullptr);
}
template <typename T> inline tattle_value tattle__value_of(T *pointer)
{
    return tattle__value_pointer(
        const_cast<const void *>(static_cast<const volatile void *>(pointer)));
}
template <typename R, typename... A>
inline tattle_value tattle__value_of(R (*function)(A...))
{
    return tattle__value_pointer(reinterpret_cast<const void *>(function));
}
template <typename E,
          typename std::enable_if<std::is_enum<E>::value, int>::type = 0>
inline tattle_value tattle__value_of(E v)
{
    typedef typename std::underlying_type<E>::type underlying;
    return tattle__value_of(static_cast<underlying>(v));
}

extern "C" {
#endif

#ifndef TATTLE_NO_SHORT_NAMES
#define TEST TATTLE_TEST
#define TEST_P TATTLE_TEST_P
#define PARAM TATTLE_PARAM
#define SUITE TATTLE_SUITE
#define ASSERT TATTLE_ASSERT
#define EXPECT TATTLE_EXPECT
#define ASSERT_EQ TATTLE_ASSERT_EQ
#define ASSERT_NE TATTLE_ASSERT_NE
#define ASSERT_LT TATTLE_ASSERT_LT
#define ASSERT_LE TATTLE_ASSERT_LE
#define ASSERT_GT TATTLE_ASSERT_GT
#define ASSERT_GE TATTLE_ASSERT_GE
#define EXPECT_EQ TATTLE_EXPECT_EQ
#define EXPECT_NE TATTLE_EXPECT_NE
#define EXPECT_LT TATTLE_EXPECT_LT
#define EXPECT_LE TATTLE_EXPECT_LE
#define EXPECT_GT TATTLE_EXPECT_GT
#define EXPECT_GE TATTLE_EXPECT_GE
#define ASSERT_STR_EQ TATTLE_ASSERT_STR_EQ
#define ASSERT_STR_NE TATTLE_ASSERT_STR_NE
#define EXPECT_STR_EQ TATTLE_EXPECT_STR_EQ
#define EXPECT_STR_NE TATTLE_EXPECT_STR_NE
#define ASSERT_MEM_EQ TATTLE_ASSERT_MEM_EQ
#define EXPECT_MEM_EQ TATTLE_EXPECT_MEM_EQ
#define ASSERT_NULL TATTLE_ASSERT_NULL
#define ASSERT_NOT_NULL TATTLE_ASSERT_NOT_NULL
#define EXPECT_NULL TATTLE_EXPECT_NULL
#define EXPECT_NOT_NULL TATTLE_EXPECT_NOT_NULL
#define ASSERT_NEAR TATTLE_ASSERT_NEAR
#define EXPECT_NEAR TATTLE_EXPECT_NEAR
#define ASSERT_SIGNAL TATTLE_ASSERT_SIGNAL
#define EXPECT_SIGNAL TATTLE_EXPECT_SIGNAL
#define ASSERT_EXIT TATTLE_ASSERT_EXIT
#define EXPECT_EXIT TATTLE_EXPECT_EXIT
#define FAIL TATTLE_FAIL
#define SKIP TATTLE_SKIP
#endif

#ifdef __cplusplus
}
#endif

#endif /* TATTLE_TATTLE_H */
