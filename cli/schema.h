/*
 * schema.h — a JSON Schema (draft 2020-12) validator for the schemas the
 * project writes, and the schemas built into the command.
 *
 * It knows the keywords schemas/ uses: type, const, enum, properties,
 * required, additionalProperties, patternProperties, propertyNames, items,
 * prefixItems, contains, minItems, maxItems, uniqueItems, minProperties,
 * maxProperties, minLength, maxLength, minimum, maximum, exclusiveMinimum,
 * exclusiveMaximum, multipleOf, pattern (ECMA-262 written for POSIX
 * extended expressions: the patterns of schemas/ mean the same in both),
 * allOf, anyOf, oneOf, not, if/then/else and $ref (to "#/..." and to
 * another built-in schema by file name, "report.schema.json#/$defs/test");
 * format and annotations are ignored. A schema that uses any other keyword
 * is refused when loaded, so adding a schema that needs more says so at
 * once (tests/cli checks every built-in schema loads).
 */
#ifndef TATTLE_CLI_SCHEMA_H
#define TATTLE_CLI_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/buffer.h"

/** One schema file built into the command (generated schemas_embedded.c). */
struct tattle__embedded_schema {
    const char *name; /* "report.schema.json" */
    const char *text;
};
extern const struct tattle__embedded_schema tattle__embedded_schemas[];
extern const size_t tattle__embedded_schema_count;

struct tattle__schemas;

/** Parses every built-in schema. Returns the set, or NULL with a message
 * in `error` (a schema that is not JSON, or uses an unknown keyword). */
struct tattle__schemas *tattle__schemas_load(struct tattle__buffer *error);
void tattle__schemas_free(struct tattle__schemas *schemas);

/** True when a built-in schema has this file name. */
bool tattle__schemas_have(const struct tattle__schemas *schemas,
                          const char *name);

/** Validates `instance` against the built-in schema `name`. Returns true
 * when valid; otherwise false, with the first error ("PATH: what", PATH a
 * jq-style path such as .tests[3].state, "." for the top) in `error`. */
bool tattle__schemas_validate(struct tattle__schemas *schemas, const char *name,
                              const cJSON *instance,
                              struct tattle__buffer *error);

#endif /* TATTLE_CLI_SCHEMA_H */
