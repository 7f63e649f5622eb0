/*
 * schema.c — the JSON Schema validator (see schema.h).
 *
 * A recursive walk of schema and instance together that stops at the
 * first error, keeping its path and message. Where alternatives are tried
 * (anyOf, oneOf) and none fits, the error reported is the one found
 * deepest in the instance: a stream line that is a test_finished with a
 * bad state reports `.test.state`, not "no alternative fits".
 */
#include "cli/schema.h"

#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "results/json_scan.h"

enum { MAX_DEPTH = 4000, SHOWN_VALUE = 60 };

struct document {
    const char *name;
    cJSON *root;
};

struct compiled_pattern {
    const cJSON *pattern; /* the schema's string item */
    regex_t regex;
    bool ok;
};

struct tattle__schemas {
    struct document *documents;
    size_t count;
    struct compiled_pattern *patterns;
    size_t pattern_count;
};

/* ---- Loading ---------------------------------------------------------------
 */

static const char *const known_keywords[] = {"$schema",
                                             "$id",
                                             "$defs",
                                             "$ref",
                                             "$comment",
                                             "title",
                                             "description",
                                             "examples",
                                             "default",
                                             "format",
                                             "deprecated",
                                             "readOnly",
                                             "writeOnly",
                                             "type",
                                             "const",
                                             "enum",
                                             "properties",
                                             "required",
                                             "additionalProperties",
                                             "patternProperties",
                                             "propertyNames",
                                             "items",
                                             "prefixItems",
                                             "contains",
                                             "minItems",
                                             "maxItems",
                                             "uniqueItems",
                                             "minProperties",
                                             "maxProperties",
                                             "minLength",
                                             "maxLength",
                                             "minimum",
                                             "maximum",
                                             "exclusiveMinimum",
                                             "exclusiveMaximum",
                                             "multipleOf",
                                             "pattern",
                                             "allOf",
                                             "anyOf",
                                             "oneOf",
                                             "not",
                                             "if",
                                             "then",
                                             "else"};

static bool known_keyword(const char *name)
{
    for (size_t i = 0; i < sizeof known_keywords / sizeof *known_keywords; i++)
        if (strcmp(known_keywords[i], name) == 0)
            return true;
    return false;
}

/* Checks that `schema` and its subschemas use known keywords only. */
static bool check_keywords(const cJSON *schema, const char *name,
                           struct tattle__buffer *error)
{
    if (cJSON_IsBool(schema))
        return true;
    if (!cJSON_IsObject(schema)) {
        tattle__buffer_printf(
            error, "%s: a schema is neither an object nor a boolean", name);
        return false;
    }
    for (const cJSON *keyword = schema->child; keyword;
         keyword = keyword->next) {
        const char *k = keyword->string;
        if (!known_keyword(k)) {
            tattle__buffer_printf(
                error,
                "%s: the keyword \"%s\" is not one this validator knows "
                "(cli/schema.c)",
                name, k);
            return false;
        }
        bool map = strcmp(k, "properties") == 0 ||
                   strcmp(k, "patternProperties") == 0 ||
                   strcmp(k, "$defs") == 0;
        bool list = strcmp(k, "allOf") == 0 || strcmp(k, "anyOf") == 0 ||
                    strcmp(k, "oneOf") == 0 || strcmp(k, "prefixItems") == 0;
        bool single = strcmp(k, "additionalProperties") == 0 ||
                      strcmp(k, "items") == 0 || strcmp(k, "not") == 0 ||
                      strcmp(k, "if") == 0 || strcmp(k, "then") == 0 ||
                      strcmp(k, "else") == 0 || strcmp(k, "contains") == 0 ||
                      strcmp(k, "propertyNames") == 0;
        if (map || list) {
            for (const cJSON *sub = keyword->child; sub; sub = sub->next)
                if (!check_keywords(sub, name, error))
                    return false;
        } else if (single && !check_keywords(keyword, name, error))
            return false;
    }
    return true;
}

/* ECMA-262 to POSIX extended: '.' matches no newline, \d is [0-9]. */
static char *posix_pattern(const char *pattern)
{
    struct tattle__buffer out = {0};
    bool in_class = false;
    for (const char *p = pattern; *p; p++) {
        if (*p == '\\' && p[1]) {
            if (p[1] == 'd')
                tattle__buffer_append_string(&out, in_class ? "0-9" : "[0-9]");
            else
                tattle__buffer_append(&out, p, 2);
            p++;
            continue;
        }
        if (*p == '[')
            in_class = true;
        else if (*p == ']')
            in_class = false;
        if (*p == '.' && !in_class)
            tattle__buffer_append_string(&out, "[^\n]");
        else
            tattle__buffer_append(&out, p, 1);
    }
    return tattle__buffer_take(&out);
}

static void compile_patterns(struct tattle__schemas *schemas, const cJSON *item)
{
    for (; item; item = item->next) {
        if (item->string && strcmp(item->string, "pattern") == 0 &&
            cJSON_IsString(item)) {
            schemas->patterns = tattle__realloc(schemas->patterns,
                                                (schemas->pattern_count + 1) *
                                                    sizeof *schemas->patterns);
            struct compiled_pattern *compiled =
                &schemas->patterns[schemas->pattern_count++];
            compiled->pattern = item;
            char *posix = posix_pattern(item->valuestring);
            compiled->ok =
                regcomp(&compiled->regex, posix, REG_EXTENDED | REG_NOSUB) == 0;
            free(posix);
        }
        if (item->child)
            compile_patterns(schemas, item->child);
    }
}

struct tattle__schemas *tattle__schemas_load(struct tattle__buffer *error)
{
    struct tattle__schemas *schemas = tattle__calloc(1, sizeof *schemas);
    schemas->documents = tattle__calloc(tattle__embedded_schema_count,
                                        sizeof *schemas->documents);
    for (size_t i = 0; i < tattle__embedded_schema_count; i++) {
        const struct tattle__embedded_schema *embedded =
            &tattle__embedded_schemas[i];
        cJSON *root = cJSON_Parse(embedded->text);
        if (!root) {
            tattle__buffer_printf(error, "%s: the built-in schema is not JSON",
                                  embedded->name);
            tattle__schemas_free(schemas);
            return NULL;
        }
        schemas->documents[schemas->count++] =
            (struct document){embedded->name, root};
        if (!check_keywords(root, embedded->name, error)) {
            tattle__schemas_free(schemas);
            return NULL;
        }
        compile_patterns(schemas, root->child);
    }
    return schemas;
}

void tattle__schemas_free(struct tattle__schemas *schemas)
{
    if (!schemas)
        return;
    for (size_t i = 0; i < schemas->count; i++)
        cJSON_Delete(schemas->documents[i].root);
    for (size_t i = 0; i < schemas->pattern_count; i++)
        if (schemas->patterns[i].ok)
            regfree(&schemas->patterns[i].regex);
    free(schemas->patterns);
    free(schemas->documents);
    free(schemas);
}

static const struct document *
find_document(const struct tattle__schemas *schemas, const char *name,
              size_t length)
{
    for (size_t i = 0; i < schemas->count; i++)
        if (strlen(schemas->documents[i].name) == length &&
            strncmp(schemas->documents[i].name, name, length) == 0)
            return &schemas->documents[i];
    return NULL;
}

bool tattle__schemas_have(const struct tattle__schemas *schemas,
                          const char *name)
{
    return find_document(schemas, name, strlen(name)) != NULL;
}

/* ---- Validating ------------------------------------------------------------
 */

struct path {
    const struct path *parent;
    const char *key; /* NULL: index */
    size_t index;
};

static size_t path_depth(const struct path *path)
{
    size_t depth = 0;
    for (; path; path = path->parent)
        depth++;
    return depth;
}

static void render_path(const struct path *path, struct tattle__buffer *out)
{
    if (!path)
        return;
    render_path(path->parent, out);
    if (!path->key) {
        tattle__buffer_printf(out, "%s[%zu]", path->parent ? "" : ".",
                              path->index);
        return;
    }
    bool plain = *path->key != '\0';
    for (const char *p = path->key; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                *p == '_' || (p != path->key && *p >= '0' && *p <= '9');
    if (plain)
        tattle__buffer_printf(out, ".%s", path->key);
    else {
        cJSON *quoted = cJSON_CreateString(path->key);
        char *printed = quoted ? cJSON_PrintUnformatted(quoted) : NULL;
        tattle__buffer_printf(out, "[%s]", printed ? printed : "\"?\"");
        cJSON_free(printed);
        cJSON_Delete(quoted);
    }
}

struct context {
    struct tattle__schemas *schemas;
    struct tattle__buffer *error; /* NULL: only the verdict is wanted */
    size_t error_depth;
    int depth;
};

static bool fail(struct context *c, const struct path *path, const char *format,
                 ...) TATTLE__PRINTF(3, 4);
static bool fail(struct context *c, const struct path *path, const char *format,
                 ...)
{
    if (!c->error || c->error->length)
        return false;
    render_path(path, c->error);
    if (!c->error->length)
        tattle__buffer_append_string(c->error, ".");
    tattle__buffer_append_string(c->error, ": ");
    va_list args;
    va_start(args, format);
    tattle__buffer_vprintf(c->error, format, args);
    va_end(args);
    c->error_depth = path_depth(path);
    return false;
}

/* A short JSON rendering of a value, for messages. */
static char *shown(const cJSON *item)
{
    char *printed = cJSON_PrintUnformatted(item);
    struct tattle__buffer out = {0};
    if (!printed)
        tattle__buffer_append_string(&out, "?");
    else if (strlen(printed) > SHOWN_VALUE) {
        tattle__buffer_append(&out, printed, SHOWN_VALUE);
        tattle__buffer_append_string(&out, "...");
    } else
        tattle__buffer_append_string(&out, printed);
    cJSON_free(printed);
    return tattle__buffer_take(&out);
}

static bool is_integer(const cJSON *item)
{
    return cJSON_IsNumber(item) && isfinite(item->valuedouble) &&
           item->valuedouble == floor(item->valuedouble);
}

static bool has_type(const cJSON *item, const char *type)
{
    if (strcmp(type, "string") == 0)
        return cJSON_IsString(item);
    if (strcmp(type, "integer") == 0)
        return is_integer(item);
    if (strcmp(type, "number") == 0)
        return cJSON_IsNumber(item);
    if (strcmp(type, "boolean") == 0)
        return cJSON_IsBool(item);
    if (strcmp(type, "null") == 0)
        return cJSON_IsNull(item);
    if (strcmp(type, "array") == 0)
        return cJSON_IsArray(item);
    if (strcmp(type, "object") == 0)
        return cJSON_IsObject(item);
    return false;
}

/* JSON equality as JSON Schema means it (1 equals 1.0; true is not 1). */
static bool json_equal(const cJSON *a, const cJSON *b)
{
    if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
        return a->valuedouble == b->valuedouble;
    if ((a->type & 0xff) != (b->type & 0xff))
        return false;
    if (cJSON_IsString(a))
        return strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsArray(a)) {
        const cJSON *x = a->child, *y = b->child;
        for (; x && y; x = x->next, y = y->next)
            if (!json_equal(x, y))
                return false;
        return !x && !y;
    }
    if (cJSON_IsObject(a)) {
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
            return false;
        for (const cJSON *x = a->child; x; x = x->next) {
            const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, x->string);
            if (!y || !json_equal(x, y))
                return false;
        }
        return true;
    }
    return true;
}

static size_t utf8_length(const char *text)
{
    size_t n = 0;
    for (; *text; text++)
        n += ((unsigned char)*text & 0xc0) != 0x80;
    return n;
}

static bool pattern_matches(struct context *c, const cJSON *pattern,
                            const char *text)
{
    for (size_t i = 0; i < c->schemas->pattern_count; i++) {
        struct compiled_pattern *compiled = &c->schemas->patterns[i];
        if (compiled->pattern != pattern)
            continue;
        if (!compiled->ok)
            return false;
        if (regexec(&compiled->regex, text, 0, NULL, 0) == 0)
            return true;
        /* Python's `$` also matches before a final newline (the reference
         * validator of the tests is python-jsonschema). */
        size_t length = strlen(text);
        if (length && text[length - 1] == '\n') {
            char *cut = tattle__strdup(text);
            cut[length - 1] = '\0';
            bool matched = regexec(&compiled->regex, cut, 0, NULL, 0) == 0;
            free(cut);
            return matched;
        }
        return false;
    }
    return false;
}

static bool validate(struct context *c, const struct document *document,
                     const cJSON *schema, const cJSON *instance,
                     const struct path *path);

/* Follows a $ref: "#/json/pointer" in this document, or "name.json#/..." in
 * another built-in schema. */
static bool follow_ref(struct context *c, const struct document *document,
                       const char *ref, const cJSON *instance,
                       const struct path *path)
{
    const char *hash = strchr(ref, '#');
    size_t name_length = hash ? (size_t)(hash - ref) : strlen(ref);
    if (name_length) {
        const char *slash = memrchr(ref, '/', name_length);
        const char *name = slash ? slash + 1 : ref;
        document =
            find_document(c->schemas, name, (size_t)(ref + name_length - name));
        if (!document)
            return fail(c, path,
                        "the schema refers to %s, which is not built in", ref);
    }
    const cJSON *target = document->root;
    const char *pointer = hash ? hash + 1 : "";
    while (*pointer == '/' && target) {
        pointer++;
        size_t length = strcspn(pointer, "/");
        struct tattle__buffer token = {0};
        for (size_t i = 0; i < length; i++) {
            if (pointer[i] == '~' && i + 1 < length &&
                (pointer[i + 1] == '0' || pointer[i + 1] == '1')) {
                tattle__buffer_append_string(&token,
                                             pointer[i + 1] == '0' ? "~" : "/");
                i++;
            } else
                tattle__buffer_append(&token, &pointer[i], 1);
        }
        target = cJSON_IsArray(target)
                     ? cJSON_GetArrayItem(target,
                                          atoi(token.data ? token.data : "0"))
                     : cJSON_GetObjectItemCaseSensitive(
                           target, token.data ? token.data : "");
        tattle__buffer_release(&token);
        pointer += length;
    }
    if (!target || *pointer)
        return fail(c, path, "the schema's reference %s leads nowhere", ref);
    return validate(c, document, target, instance, path);
}

/* Tries `schema` without reporting; returns the verdict, and when invalid
 * the error and its depth in *error / *depth (when not NULL). */
static bool try_schema(struct context *c, const struct document *document,
                       const cJSON *schema, const cJSON *instance,
                       const struct path *path, struct tattle__buffer *error,
                       size_t *depth)
{
    struct context quiet = {c->schemas, error, 0, c->depth};
    bool ok = validate(&quiet, document, schema, instance, path);
    if (depth)
        *depth = quiet.error_depth;
    return ok;
}

static bool validate_alternatives(struct context *c,
                                  const struct document *document,
                                  const cJSON *list, const cJSON *instance,
                                  const struct path *path, bool exactly_one)
{
    size_t matches = 0, best_depth = 0;
    struct tattle__buffer best = {0};
    for (const cJSON *sub = list->child; sub; sub = sub->next) {
        struct tattle__buffer error = {0};
        size_t depth = 0;
        if (try_schema(c, document, sub, instance, path,
                       c->error ? &error : NULL, &depth))
            matches++;
        else if (error.length && (!best.length || depth > best_depth)) {
            tattle__buffer_release(&best);
            best = error;
            best_depth = depth;
            error = (struct tattle__buffer){0};
        }
        tattle__buffer_release(&error);
        if (!exactly_one && matches)
            break;
    }
    bool ok = exactly_one ? matches == 1 : matches > 0;
    if (!ok && c->error && !c->error->length) {
        if (matches > 1)
            fail(c, path,
                 "valid against %zu of the oneOf alternatives (exactly one "
                 "allowed)",
                 matches);
        else if (best.length) {
            tattle__buffer_append(c->error, best.data, best.length);
            c->error_depth = best_depth;
        } else
            fail(c, path, "valid against none of the alternatives");
    }
    tattle__buffer_release(&best);
    return ok;
}

static bool validate_object(struct context *c, const struct document *document,
                            const cJSON *schema, const cJSON *instance,
                            const struct path *path)
{
    const cJSON *required =
        cJSON_GetObjectItemCaseSensitive(schema, "required");
    for (const cJSON *name = required ? required->child : NULL; name;
         name = name->next)
        if (cJSON_IsString(name) &&
            !cJSON_GetObjectItemCaseSensitive(instance, name->valuestring))
            return fail(c, path, "missing the required member \"%s\"",
                        name->valuestring);
    const cJSON *properties =
        cJSON_GetObjectItemCaseSensitive(schema, "properties");
    const cJSON *patterns =
        cJSON_GetObjectItemCaseSensitive(schema, "patternProperties");
    const cJSON *additional =
        cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties");
    const cJSON *names =
        cJSON_GetObjectItemCaseSensitive(schema, "propertyNames");
    const cJSON *min =
        cJSON_GetObjectItemCaseSensitive(schema, "minProperties");
    const cJSON *max =
        cJSON_GetObjectItemCaseSensitive(schema, "maxProperties");
    int count = cJSON_GetArraySize(instance);
    if (cJSON_IsNumber(min) && count < min->valuedouble)
        return fail(c, path, "has %d members, fewer than %g", count,
                    min->valuedouble);
    if (cJSON_IsNumber(max) && count > max->valuedouble)
        return fail(c, path, "has %d members, more than %g", count,
                    max->valuedouble);
    for (const cJSON *member = instance->child; member; member = member->next) {
        struct path here = {path, member->string, 0};
        if (names) {
            cJSON *name = cJSON_CreateString(member->string);
            bool ok = try_schema(c, document, names, name, path, NULL, NULL);
            cJSON_Delete(name);
            if (!ok)
                return fail(c, path, "the member name \"%s\" is not allowed",
                            member->string);
        }
        bool matched = false;
        const cJSON *sub =
            properties
                ? cJSON_GetObjectItemCaseSensitive(properties, member->string)
                : NULL;
        if (sub) {
            matched = true;
            if (!validate(c, document, sub, member, &here))
                return false;
        }
        for (const cJSON *pattern = patterns ? patterns->child : NULL; pattern;
             pattern = pattern->next) {
            /* Patterns of patternProperties are matched as regular
             * expressions compiled on the fly (rare). */
            char *posix = posix_pattern(pattern->string);
            regex_t regex;
            bool compiled =
                regcomp(&regex, posix, REG_EXTENDED | REG_NOSUB) == 0;
            bool applies =
                compiled && regexec(&regex, member->string, 0, NULL, 0) == 0;
            if (compiled)
                regfree(&regex);
            free(posix);
            if (applies) {
                matched = true;
                if (!validate(c, document, pattern, member, &here))
                    return false;
            }
        }
        if (!matched && additional) {
            if (cJSON_IsFalse(additional))
                return fail(c, path,
                            "has the member \"%s\", which is not allowed here",
                            member->string);
            if (!validate(c, document, additional, member, &here))
                return false;
        }
    }
    return true;
}

static bool validate_array(struct context *c, const struct document *document,
                           const cJSON *schema, const cJSON *instance,
                           const struct path *path)
{
    int count = cJSON_GetArraySize(instance);
    const cJSON *min = cJSON_GetObjectItemCaseSensitive(schema, "minItems");
    const cJSON *max = cJSON_GetObjectItemCaseSensitive(schema, "maxItems");
    if (cJSON_IsNumber(min) && count < min->valuedouble)
        return fail(c, path, "has %d item%s, fewer than %g", count,
                    count == 1 ? "" : "s", min->valuedouble);
    if (cJSON_IsNumber(max) && count > max->valuedouble)
        return fail(c, path, "has %d items, more than %g", count,
                    max->valuedouble);
    const cJSON *prefix =
        cJSON_GetObjectItemCaseSensitive(schema, "prefixItems");
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(schema, "items");
    int prefix_count = prefix ? cJSON_GetArraySize(prefix) : 0;
    int index = 0;
    for (const cJSON *item = instance->child; item;
         item = item->next, index++) {
        struct path here = {path, NULL, (size_t)index};
        const cJSON *sub =
            index < prefix_count ? cJSON_GetArrayItem(prefix, index) : items;
        if (sub && !validate(c, document, sub, item, &here))
            return false;
    }
    const cJSON *unique =
        cJSON_GetObjectItemCaseSensitive(schema, "uniqueItems");
    if (cJSON_IsTrue(unique)) {
        int i = 0;
        for (const cJSON *a = instance->child; a; a = a->next, i++) {
            int j = i + 1;
            for (const cJSON *b = a->next; b; b = b->next, j++)
                if (json_equal(a, b))
                    return fail(
                        c, path,
                        "items %d and %d are equal (items must be unique)", i,
                        j);
        }
    }
    const cJSON *contains =
        cJSON_GetObjectItemCaseSensitive(schema, "contains");
    if (contains) {
        bool found = false;
        index = 0;
        for (const cJSON *item = instance->child; item && !found;
             item = item->next, index++) {
            struct path here = {path, NULL, (size_t)index};
            found = try_schema(c, document, contains, item, &here, NULL, NULL);
        }
        if (!found)
            return fail(c, path, "has no item that fits its 'contains' schema");
    }
    return true;
}

static bool validate(struct context *c, const struct document *document,
                     const cJSON *schema, const cJSON *instance,
                     const struct path *path)
{
    if (cJSON_IsTrue(schema))
        return true;
    if (cJSON_IsFalse(schema))
        return fail(c, path, "nothing is allowed here");
    if (++c->depth > MAX_DEPTH) {
        c->depth--;
        return fail(c, path, "the schema nests too deeply");
    }
    bool ok = false;
    const cJSON *keyword;
    if ((keyword = cJSON_GetObjectItemCaseSensitive(schema, "$ref")) &&
        cJSON_IsString(keyword) &&
        !follow_ref(c, document, keyword->valuestring, instance, path))
        goto done;
    if ((keyword = cJSON_GetObjectItemCaseSensitive(schema, "type"))) {
        bool fits = false;
        if (cJSON_IsString(keyword))
            fits = has_type(instance, keyword->valuestring);
        for (const cJSON *t = cJSON_IsArray(keyword) ? keyword->child : NULL;
             t && !fits; t = t->next)
            fits = cJSON_IsString(t) && has_type(instance, t->valuestring);
        if (!fits) {
            struct tattle__buffer wanted = {0};
            if (cJSON_IsString(keyword))
                tattle__buffer_append_string(&wanted, keyword->valuestring);
            for (const cJSON *t = cJSON_IsArray(keyword) ? keyword->child
                                                         : NULL;
                 t; t = t->next)
                tattle__buffer_printf(&wanted, "%s%s",
                                      wanted.length ? " or " : "",
                                      cJSON_IsString(t) ? t->valuestring : "?");
            fail(c, path, "expected %s, found %s",
                 wanted.data ? wanted.data : "?",
                 tattle__json_describe(instance));
            tattle__buffer_release(&wanted);
            goto done;
        }
    }
    if ((keyword = cJSON_GetObjectItemCaseSensitive(schema, "const")) &&
        !json_equal(keyword, instance)) {
        char *want = shown(keyword), *got = shown(instance);
        fail(c, path, "must be %s, found %s", want, got);
        free(want);
        free(got);
        goto done;
    }
    if ((keyword = cJSON_GetObjectItemCaseSensitive(schema, "enum"))) {
        bool found = false;
        for (const cJSON *value = keyword->child; value && !found;
             value = value->next)
            found = json_equal(value, instance);
        if (!found) {
            char *want = shown(keyword), *got = shown(instance);
            fail(c, path, "%s is not one of %s", got, want);
            free(want);
            free(got);
            goto done;
        }
    }
    if (cJSON_IsObject(instance) &&
        !validate_object(c, document, schema, instance, path))
        goto done;
    if (cJSON_IsArray(instance) &&
        !validate_array(c, document, schema, instance, path))
        goto done;
    if (cJSON_IsString(instance)) {
        const cJSON *min =
            cJSON_GetObjectItemCaseSensitive(schema, "minLength");
        const cJSON *max =
            cJSON_GetObjectItemCaseSensitive(schema, "maxLength");
        const cJSON *pattern =
            cJSON_GetObjectItemCaseSensitive(schema, "pattern");
        size_t length = utf8_length(instance->valuestring);
        if (cJSON_IsNumber(min) && (double)length < min->valuedouble) {
            fail(c, path, "is shorter than %g characters", min->valuedouble);
            goto done;
        }
        if (cJSON_IsNumber(max) && (double)length > max->valuedouble) {
            fail(c, path, "is longer than %g characters", max->valuedouble);
            goto done;
        }
        if (cJSON_IsString(pattern) &&
            !pattern_matches(c, pattern, instance->valuestring)) {
            char *got = shown(instance);
            fail(c, path, "%s does not match the pattern %s", got,
                 pattern->valuestring);
            free(got);
            goto done;
        }
    }
    if (cJSON_IsNumber(instance)) {
        double value = instance->valuedouble;
        const cJSON *k;
        if ((k = cJSON_GetObjectItemCaseSensitive(schema, "minimum")) &&
            cJSON_IsNumber(k) && value < k->valuedouble) {
            fail(c, path, "%.17g is less than the minimum %.17g", value,
                 k->valuedouble);
            goto done;
        }
        if ((k = cJSON_GetObjectItemCaseSensitive(schema, "maximum")) &&
            cJSON_IsNumber(k) && value > k->valuedouble) {
            fail(c, path, "%.17g is more than the maximum %.17g", value,
                 k->valuedouble);
            goto done;
        }
        if ((k = cJSON_GetObjectItemCaseSensitive(schema,
                                                  "exclusiveMinimum")) &&
            cJSON_IsNumber(k) && value <= k->valuedouble) {
            fail(c, path, "%.17g is not more than %.17g", value,
                 k->valuedouble);
            goto done;
        }
        if ((k = cJSON_GetObjectItemCaseSensitive(schema,
                                                  "exclusiveMaximum")) &&
            cJSON_IsNumber(k) && value >= k->valuedouble) {
            fail(c, path, "%.17g is not less than %.17g", value,
                 k->valuedouble);
            goto done;
        }
        if ((k = cJSON_GetObjectItemCaseSensitive(schema, "multipleOf")) &&
            cJSON_IsNumber(k) && k->valuedouble > 0 &&
            fmod(value, k->valuedouble) != 0) {
            fail(c, path, "%.17g is not a multiple of %.17g", value,
                 k->valuedouble);
            goto done;
        }
    }
    if ((keyword = cJSON_GetObjectItemCaseSensitive(schema, "allOf")))
        for (const cJSON *sub = keyword->child; sub; sub = sub->next)
            if (!validate(c, document, sub, instance, path))
                goto done;
    if ((keyword = cJSON_GetObjectItemCaseSensitive(schema, "anyOf")) &&
        !validate_alternatives(c, document, keyword, instance, path, false))
        goto done;
    if ((keyword = cJSON_GetObjectItemCaseSensitive(schema, "oneOf")) &&
        !validate_alternatives(c, document, keyword, instance, path, true))
        goto done;
    if ((keyword = cJSON_GetObjectItemCaseSensitive(schema, "not")) &&
        try_schema(c, document, keyword, instance, path, NULL, NULL)) {
        char *rule = shown(keyword);
        fail(c, path, "must not fit %s", rule);
        free(rule);
        goto done;
    }
    if ((keyword = cJSON_GetObjectItemCaseSensitive(schema, "if"))) {
        bool condition =
            try_schema(c, document, keyword, instance, path, NULL, NULL);
        const cJSON *branch = cJSON_GetObjectItemCaseSensitive(
            schema, condition ? "then" : "else");
        if (branch && !validate(c, document, branch, instance, path))
            goto done;
    }
    ok = true;
done:
    c->depth--;
    return ok;
}

bool tattle__schemas_validate(struct tattle__schemas *schemas, const char *name,
                              const cJSON *instance,
                              struct tattle__buffer *error)
{
    const struct document *document =
        find_document(schemas, name, strlen(name));
    if (!document) {
        tattle__buffer_printf(error, "no built-in schema named %s", name);
        return false;
    }
    struct context c = {schemas, error, 0, 0};
    return validate(&c, document, document->root, instance, NULL);
}
