/*
 * assertions.c — the checking functions behind the assertion macros.
 *
 * Each check compares its already-evaluated operands; on failure it renders
 * both values (integers by signedness, floating point to the shortest exact
 * form, pointers, strings as escaped literals, memory as a hex window around
 * the first difference), formats the optional user message, records the
 * failure in the test's result slot, and for fatal assertions leaves the
 * current phase. A death check compares how its child ended (death.c)
 * with the ending it expected.
 */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tattle/tattle.h>

#include "runner/test_process/child.h"
#include "runner/test_process/death.h"
#include "runner/test_process/slot_write.h"
#include "base/buffer.h"
#include "base/text.h"

enum { RENDER_LIMIT = 4096, MEMORY_WINDOW = 16 };

struct tattle_value tattle__value_signed(intmax_t v)
{
    return (struct tattle_value){.kind = TATTLE_VALUE_SIGNED, .u.as_signed = v};
}

struct tattle_value tattle__value_unsigned(uintmax_t v)
{
    return (struct tattle_value){.kind = TATTLE_VALUE_UNSIGNED,
                                 .u.as_unsigned = v};
}

struct tattle_value tattle__value_floating(long double v)
{
    return (struct tattle_value){.kind = TATTLE_VALUE_FLOATING,
                                 .u.as_floating = v};
}

struct tattle_value tattle__value_pointer(const void *v)
{
    return (struct tattle_value){.kind = TATTLE_VALUE_POINTER,
                                 .u.as_pointer = v};
}

struct tattle_value tattle__value_bool(_Bool v)
{
    return (struct tattle_value){.kind = TATTLE_VALUE_BOOL, .u.as_unsigned = v};
}

struct tattle_value tattle__value_char(char v)
{
    return (struct tattle_value){.kind = TATTLE_VALUE_CHAR, .u.as_signed = v};
}

static void render_floating(struct tattle__buffer *out, long double v)
{
    if (isnan(v)) {
        tattle__buffer_append_string(out, signbit(v) ? "-nan" : "nan");
        return;
    }
    if ((long double)(double)v == v) {
        /* The shortest form that reads back as the same double. */
        char text[64];
        for (int precision = 1; precision <= 17; precision++) {
            snprintf(text, sizeof text, "%.*g", precision, (double)v);
            if (strtod(text, NULL) == (double)v)
                break;
        }
        tattle__buffer_append_string(out, text);
        return;
    }
    tattle__buffer_printf(out, "%.*Lg", LDBL_DECIMAL_DIG, v);
}

void tattle__value_render(struct tattle__buffer *out, struct tattle_value value)
{
    switch (value.kind) {
    case TATTLE_VALUE_SIGNED:
        tattle__buffer_printf(out, "%jd", value.u.as_signed);
        break;
    case TATTLE_VALUE_UNSIGNED:
        tattle__buffer_printf(out, "%ju", value.u.as_unsigned);
        break;
    case TATTLE_VALUE_FLOATING:
        render_floating(out, value.u.as_floating);
        break;
    case TATTLE_VALUE_POINTER:
        if (value.u.as_pointer)
            tattle__buffer_printf(out, "%p", value.u.as_pointer);
        else
            tattle__buffer_append_string(out, "NULL");
        break;
    case TATTLE_VALUE_BOOL:
        tattle__buffer_append_string(out,
                                     value.u.as_unsigned ? "true" : "false");
        break;
    case TATTLE_VALUE_CHAR: {
        unsigned char c = (unsigned char)value.u.as_signed;
        if (c >= 0x20 && c < 0x7f && c != '\'' && c != '\\')
            tattle__buffer_printf(out, "'%c' (%d)", c, (int)value.u.as_signed);
        else
            tattle__buffer_printf(out, "'\\x%02x' (%d)", c,
                                  (int)value.u.as_signed);
        break;
    }
    }
}

/* Renders a string as a C literal, escaping quotes, backslashes and
 * control bytes, bounded to RENDER_LIMIT bytes of input. */
static void render_string(struct tattle__buffer *out, const char *text)
{
    if (!text) {
        tattle__buffer_append_string(out, "NULL");
        return;
    }
    size_t length = strlen(text);
    size_t shown = length > RENDER_LIMIT ? RENDER_LIMIT : length;
    tattle__buffer_append(out, "\"", 1);
    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)text[i];
        switch (c) {
        case '"':
            tattle__buffer_append_string(out, "\\\"");
            break;
        case '\\':
            tattle__buffer_append_string(out, "\\\\");
            break;
        case '\n':
            tattle__buffer_append_string(out, "\\n");
            break;
        case '\t':
            tattle__buffer_append_string(out, "\\t");
            break;
        case '\r':
            tattle__buffer_append_string(out, "\\r");
            break;
        default:
            if (c < 0x20 || c == 0x7f)
                tattle__buffer_printf(out, "\\x%02x", c);
            else
                tattle__buffer_append(out, &text[i], 1);
        }
    }
    tattle__buffer_append(out, "\"", 1);
    if (shown < length)
        tattle__buffer_printf(out, "... (%zu bytes)", length);
}

static bool is_signed_kind(enum tattle_value_kind kind)
{
    return kind == TATTLE_VALUE_SIGNED || kind == TATTLE_VALUE_CHAR;
}

static long double as_long_double(struct tattle_value v)
{
    switch (v.kind) {
    case TATTLE_VALUE_FLOATING:
        return v.u.as_floating;
    case TATTLE_VALUE_SIGNED:
    case TATTLE_VALUE_CHAR:
        return (long double)v.u.as_signed;
    case TATTLE_VALUE_POINTER:
        return (long double)(uintptr_t)v.u.as_pointer;
    case TATTLE_VALUE_UNSIGNED:
    case TATTLE_VALUE_BOOL:
        return (long double)v.u.as_unsigned;
    }
    return 0;
}

/* The value of a non-negative integer or pointer operand. */
static uintmax_t as_magnitude(struct tattle_value v)
{
    if (is_signed_kind(v.kind))
        return (uintmax_t)v.u.as_signed;
    if (v.kind == TATTLE_VALUE_POINTER)
        return (uintptr_t)v.u.as_pointer;
    return v.u.as_unsigned;
}

/* Compares mathematically, whatever the operands' types: -1 < 1u holds.
 * Returns -1, 0 or 1, or 2 when unordered (a NaN: only != holds). */
static int compare_values(struct tattle_value a, struct tattle_value b)
{
    if (a.kind == TATTLE_VALUE_FLOATING || b.kind == TATTLE_VALUE_FLOATING) {
        long double x = as_long_double(a), y = as_long_double(b);
        if (isnan(x) || isnan(y))
            return 2;
        return (x > y) - (x < y);
    }
    bool a_negative = is_signed_kind(a.kind) && a.u.as_signed < 0;
    bool b_negative = is_signed_kind(b.kind) && b.u.as_signed < 0;
    if (a_negative && b_negative)
        return (a.u.as_signed > b.u.as_signed) -
               (a.u.as_signed < b.u.as_signed);
    if (a_negative != b_negative)
        return a_negative ? -1 : 1;
    uintmax_t x = as_magnitude(a), y = as_magnitude(b);
    return (x > y) - (x < y);
}

static bool comparison_holds(enum tattle_comparison comparison, int order)
{
    if (order == 2)
        return comparison == TATTLE_CMP_NE;
    switch (comparison) {
    case TATTLE_CMP_EQ:
        return order == 0;
    case TATTLE_CMP_NE:
        return order != 0;
    case TATTLE_CMP_LT:
        return order < 0;
    case TATTLE_CMP_LE:
        return order <= 0;
    case TATTLE_CMP_GT:
        return order > 0;
    case TATTLE_CMP_GE:
        return order >= 0;
    }
    return false;
}

static const char *comparison_operator(enum tattle_comparison comparison)
{
    static const char *const operators[] = {"==", "!=", "<", "<=", ">", ">="};
    return operators[comparison];
}

/* Splits the arguments as written ("a, b, \"msg %d\", x") at top-level
 * commas into `count` parts; the last part keeps the rest. */
static void split_operands(const char *expr, struct tattle__buffer *parts,
                           size_t count)
{
    int depth = 0;
    size_t part = 0;
    bool in_string = false;
    for (const char *p = expr; *p; p++) {
        char c = *p;
        if (in_string) {
            if (c == '\\' && p[1])
                tattle__buffer_append(&parts[part], p++, 2);
            else {
                if (c == '"' || c == '\'')
                    in_string = false;
                tattle__buffer_append(&parts[part], p, 1);
            }
            continue;
        }
        if (c == '"' || c == '\'')
            in_string = true;
        if (c == '(' || c == '[' || c == '{')
            depth++;
        if (c == ')' || c == ']' || c == '}')
            depth--;
        if (c == ',' && depth == 0 && part + 1 < count) {
            part++;
            while (p[1] == ' ')
                p++;
            continue;
        }
        tattle__buffer_append(&parts[part], p, 1);
    }
    for (size_t i = 0; i < count; i++)
        if (!parts[i].data)
            tattle__buffer_append_string(&parts[i], "");
}

/* The expression of an assertion: its operands as written, without the
 * message. Returns a malloc'd string. */
static char *site_expression(const struct tattle_assert_site *site)
{
    if (site->operands <= 0)
        return tattle__strdup("");
    struct tattle__buffer parts[4] = {{0}, {0}, {0}, {0}};
    size_t count = (size_t)site->operands;
    split_operands(site->written, parts, count + 1);
    struct tattle__buffer expression = {0};
    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            tattle__buffer_append_string(&expression, ", ");
        tattle__buffer_append_string(&expression, parts[i].data);
    }
    for (size_t i = 0; i <= count; i++)
        tattle__buffer_release(&parts[i]);
    return tattle__buffer_take(&expression);
}

/* What a failed assertion shows: both values rendered (empty when not
 * applicable) and the message used when the user gave none. */
struct failure_texts {
    struct tattle__buffer left, right, message;
};

/* Records the failure (the user's message, formatted, or the default
 * one), frees the texts, leaves the phase when the assertion is fatal, and
 * returns 0: what a check returns when it does not hold. */
static int report_failure(const struct tattle_assert_site *site,
                          struct failure_texts *texts, const char *format,
                          va_list args) TATTLE__PRINTF(3, 0);

static int report_failure(const struct tattle_assert_site *site,
                          struct failure_texts *texts, const char *format,
                          va_list args)
{
    struct tattle__buffer message = {0};
    if (format && *format)
        tattle__buffer_vprintf(&message, format, args);
    else
        tattle__buffer_append_string(
            &message, texts->message.data ? texts->message.data : "");
    char *expression = site_expression(site);
    struct tattle__slot_failure failure = {
        .kind = TATTLE_FAILURE_ASSERTION,
        .message = message.data,
        .file = site->file,
        .line = site->line,
        .macro = site->macro,
        .expr = expression,
        .left = texts->left.data,
        .right = texts->right.data,
    };
    struct tattle__slot *slot = tattle__child_slot();
    if (slot) {
        tattle__slot_add_failure(slot, &failure);
    } else {
        fprintf(stderr, "%s:%d: %s(%s) failed outside a test: %s\n", site->file,
                site->line, site->macro, expression, failure.message);
    }
    tattle__buffer_release(&message);
    tattle__buffer_release(&texts->left);
    tattle__buffer_release(&texts->right);
    tattle__buffer_release(&texts->message);
    free(expression);
    if (site->fatal)
        tattle__child_leave_phase();
    return 0;
}

/* The tail every check shares once it failed: report with the user's
 * optional message. */
#define FAIL_WITH(site, texts, format)                                         \
    do {                                                                       \
        va_list args_;                                                         \
        va_start(args_, format);                                               \
        report_failure(site, texts, format, args_);                            \
        va_end(args_);                                                         \
        return 0;                                                              \
    } while (0)

/* The check behind both comparison entry points. */
static int check_comparison(const struct tattle_assert_site *site,
                            enum tattle_comparison comparison,
                            struct tattle_value left, struct tattle_value right,
                            const char *format, va_list args)
    TATTLE__PRINTF(5, 0);

static int check_comparison(const struct tattle_assert_site *site,
                            enum tattle_comparison comparison,
                            struct tattle_value left, struct tattle_value right,
                            const char *format, va_list args)
{
    if (comparison_holds(comparison, compare_values(left, right)))
        return 1;
    struct failure_texts texts = {0};
    struct tattle__buffer operands[3] = {{0}, {0}, {0}};
    tattle__value_render(&texts.left, left);
    tattle__value_render(&texts.right, right);
    split_operands(site->written, operands, 3);
    tattle__buffer_printf(&texts.message, "expected %s %s %s, got %s vs %s",
                          operands[0].data, comparison_operator(comparison),
                          operands[1].data, texts.left.data, texts.right.data);
    for (int i = 0; i < 3; i++)
        tattle__buffer_release(&operands[i]);
    return report_failure(site, &texts, format, args);
}

int tattle__check_compare(const struct tattle_assert_site *site,
                          enum tattle_comparison comparison,
                          const struct tattle_value *left_value,
                          const struct tattle_value *right_value,
                          const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int holds = check_comparison(site, comparison, *left_value, *right_value,
                                 format, args);
    va_end(args);
    return holds;
}

/* Reads one operand of tattle__check_operands() as its kind says it was
 * passed (after the default argument promotions). */
static struct tattle_value operand_read(va_list *args, int kind)
{
    switch (kind) {
    case TATTLE__OPERAND_INT:
        return tattle__value_signed(va_arg(*args, int));
    case TATTLE__OPERAND_UNSIGNED_SMALL:
        return tattle__value_unsigned((uintmax_t)va_arg(*args, int));
    case TATTLE__OPERAND_BOOL:
        return tattle__value_bool(va_arg(*args, int) != 0);
    case TATTLE__OPERAND_CHAR:
        return tattle__value_char((char)va_arg(*args, int));
    case TATTLE__OPERAND_LONG:
        return tattle__value_signed(va_arg(*args, long));
    case TATTLE__OPERAND_LONG_LONG:
        return tattle__value_signed(va_arg(*args, long long));
    case TATTLE__OPERAND_UNSIGNED:
        return tattle__value_unsigned(va_arg(*args, unsigned));
    case TATTLE__OPERAND_UNSIGNED_LONG:
        return tattle__value_unsigned(va_arg(*args, unsigned long));
    case TATTLE__OPERAND_UNSIGNED_LONG_LONG:
        return tattle__value_unsigned(va_arg(*args, unsigned long long));
    case TATTLE__OPERAND_DOUBLE:
        return tattle__value_floating(va_arg(*args, double));
    case TATTLE__OPERAND_LONG_DOUBLE:
        return tattle__value_floating(va_arg(*args, long double));
    default:
        return tattle__value_pointer(va_arg(*args, const void *));
    }
}

int tattle__check_operands(const struct tattle_assert_site *site,
                           int descriptor, ...)
{
    va_list args;
    va_start(args, descriptor);
    struct tattle_value left = operand_read(&args, descriptor >> 4 & 15);
    struct tattle_value right = operand_read(&args, descriptor >> 8 & 15);
    const char *format =
        descriptor >> 12 & 1 ? va_arg(args, const char *) : NULL;
    /* The message's format comes through the variadic arguments, so it
     * is no literal here; the assertion macro checked it against its
     * arguments where it was written. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    int holds =
        check_comparison(site, (enum tattle_comparison)(descriptor & 15), left,
                         right, format, args);
#pragma GCC diagnostic pop
    va_end(args);
    return holds;
}

int tattle__check_true(const struct tattle_assert_site *site, int holds,
                       const char *format, ...)
{
    if (holds)
        return 1;
    struct failure_texts texts = {0};
    char *expression = site_expression(site);
    tattle__buffer_printf(&texts.message, "expected %s to be true", expression);
    free(expression);
    tattle__buffer_append_string(&texts.left, "false");
    FAIL_WITH(site, &texts, format);
}

int tattle__check_string(const struct tattle_assert_site *site, int want_equal,
                         const char *left, const char *right,
                         const char *format, ...)
{
    bool equal = (left == NULL || right == NULL) ? left == right
                                                 : strcmp(left, right) == 0;
    if (equal == (want_equal != 0))
        return 1;
    struct failure_texts texts = {0};
    render_string(&texts.left, left);
    render_string(&texts.right, right);
    if (want_equal && left && right) {
        size_t i = 0;
        while (left[i] && left[i] == right[i])
            i++;
        tattle__buffer_printf(&texts.message,
                              "expected equal strings, they differ at byte %zu",
                              i);
    } else {
        tattle__buffer_append_string(&texts.message,
                                     want_equal ? "expected equal strings"
                                                : "expected different strings");
    }
    FAIL_WITH(site, &texts, format);
}

static void render_memory_window(struct tattle__buffer *out,
                                 const unsigned char *bytes, size_t start,
                                 size_t end)
{
    tattle__buffer_printf(out, "[%zu..%zu)", start, end);
    for (size_t i = start; i < end; i++)
        tattle__buffer_printf(out, " %02x", bytes[i]);
}

int tattle__check_memory(const struct tattle_assert_site *site,
                         const void *left, const void *right, size_t size,
                         const char *format, ...)
{
    if (size == 0 || (left && right && memcmp(left, right, size) == 0))
        return 1;
    struct failure_texts texts = {0};
    if (!left || !right) {
        tattle__value_render(&texts.left, tattle__value_pointer(left));
        tattle__value_render(&texts.right, tattle__value_pointer(right));
        tattle__buffer_printf(&texts.message,
                              "cannot compare %zu bytes with NULL", size);
    } else {
        const unsigned char *a = left, *b = right;
        size_t first = 0;
        while (a[first] == b[first])
            first++;
        size_t start =
            first >= MEMORY_WINDOW / 2 ? first - MEMORY_WINDOW / 2 : 0;
        size_t end =
            start + MEMORY_WINDOW < size ? start + MEMORY_WINDOW : size;
        render_memory_window(&texts.left, a, start, end);
        render_memory_window(&texts.right, b, start, end);
        tattle__buffer_printf(
            &texts.message, "memory differs at offset %zu of %zu: %02x vs %02x",
            first, size, a[first], b[first]);
    }
    FAIL_WITH(site, &texts, format);
}

int tattle__check_null(const struct tattle_assert_site *site, int want_null,
                       const void *pointer, const char *format, ...)
{
    if ((pointer == NULL) == (want_null != 0))
        return 1;
    struct failure_texts texts = {0};
    tattle__value_render(&texts.left, tattle__value_pointer(pointer));
    tattle__buffer_append_string(&texts.right, "NULL");
    char *expression = site_expression(site);
    if (want_null)
        tattle__buffer_printf(&texts.message, "expected %s to be NULL, got %s",
                              expression, texts.left.data);
    else
        tattle__buffer_printf(&texts.message, "expected %s not to be NULL",
                              expression);
    free(expression);
    FAIL_WITH(site, &texts, format);
}

int tattle__check_near(const struct tattle_assert_site *site, long double left,
                       long double right, long double epsilon,
                       const char *format, ...)
{
    long double difference = fabsl(left - right);
    if (difference <= epsilon)
        return 1;
    struct failure_texts texts = {0};
    struct tattle__buffer difference_text = {0}, epsilon_text = {0};
    render_floating(&texts.left, left);
    render_floating(&texts.right, right);
    render_floating(&difference_text, difference);
    render_floating(&epsilon_text, epsilon);
    tattle__buffer_printf(
        &texts.message,
        "expected values within %s of each other, they differ by %s",
        epsilon_text.data, difference_text.data);
    tattle__buffer_release(&difference_text);
    tattle__buffer_release(&epsilon_text);
    FAIL_WITH(site, &texts, format);
}

/* "killed by SIGABRT (Aborted)", "exited with status 3", ... */
static void describe_ending(struct tattle__buffer *out,
                            enum tattle__death_ended how, int value)
{
    char name[16];
    switch (how) {
    case TATTLE__ENDED_NOT_STARTED:
        tattle__buffer_printf(out, "could not be started (%s)",
                              strerror(value));
        break;
    case TATTLE__ENDED_BY_SIGNAL:
        tattle__buffer_printf(out, "killed by %s (%s)",
                              tattle__signal_name(value, name),
                              strsignal(value));
        break;
    case TATTLE__ENDED_BY_EXIT:
        tattle__buffer_printf(out, "exited with status %d", value);
        break;
    case TATTLE__ENDED_RETURNED:
        tattle__buffer_append_string(out, "returned without dying");
        break;
    }
}

int tattle__check_death(const struct tattle_assert_site *site,
                        struct tattle__death *death,
                        enum tattle__death_kind kind, int expected,
                        const char *format, ...)
{
    struct tattle__death_ending ending;
    tattle__death_wait(death, &ending);
    enum tattle__death_ended wanted = kind == TATTLE__DEATH_BY_SIGNAL
                                          ? TATTLE__ENDED_BY_SIGNAL
                                          : TATTLE__ENDED_BY_EXIT;
    if (ending.how == wanted && ending.value == expected)
        return 1;
    struct failure_texts texts = {0};
    describe_ending(&texts.left, ending.how, ending.value);
    describe_ending(&texts.right, wanted, expected);
    struct tattle__buffer parts[2] = {{0}, {0}}; /* the statement, the rest */
    split_operands(site->written, parts, 2);
    tattle__buffer_printf(&texts.message, "`%s` ended: %s; expected: %s",
                          parts[0].data, texts.left.data, texts.right.data);
    if (ending.stderr_length > 0)
        tattle__buffer_printf(&texts.message, "; its stderr ended with:\n%s",
                              ending.stderr_tail);
    tattle__buffer_release(&parts[0]);
    tattle__buffer_release(&parts[1]);
    FAIL_WITH(site, &texts, format);
}

void tattle__fail_now(const char *file, int line, const char *format, ...)
{
    static const struct tattle_assert_site fail_site_template = {
        "FAIL", "", NULL, 0, 1, 0};
    struct tattle_assert_site site = fail_site_template;
    site.file = file;
    site.line = line;
    struct failure_texts texts = {0};
    tattle__buffer_append_string(&texts.message, "FAIL() called");
    va_list args;
    va_start(args, format);
    report_failure(&site, &texts, format, args);
    va_end(args);
    tattle__child_leave_phase();
}

void tattle__skip_now(const char *file, int line, const char *format, ...)
{
    struct tattle__buffer reason = {0};
    va_list args;
    va_start(args, format);
    tattle__buffer_vprintf(&reason, format, args);
    va_end(args);
    struct tattle__slot *slot = tattle__child_slot();
    if (slot)
        tattle__slot_add_skip(slot, reason.data ? reason.data : "", file, line);
    tattle__buffer_release(&reason);
    tattle__child_leave_phase();
}
