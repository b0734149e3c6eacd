/* schema.h: whether a JSON value matches a JSON Schema, in the subset strict structured outputs allow. */
#ifndef MC_SCHEMA_H
#define MC_SCHEMA_H

#include <stddef.h>

#include <cJSON.h>

/*
 * Check value against schema with the keywords of OpenAI's strict mode:
 * type (a name, or an array of names: "null" among them makes it
 * nullable), properties, required, additionalProperties (false, true or a
 * schema), items, enum, const, anyOf, and $ref to "#" or a JSON pointer
 * into the schema ("#/$defs/NAME", "#/definitions/NAME"). Other keywords
 * (description, format, minimum, ...) are not checked. "integer" is a
 * number without a fraction.
 *
 * 0 when it matches; -1 at the first mismatch, in document order, with
 * its place in the value as a JSON pointer in ptr ("" for the value
 * itself, "/items/0/name" below it) and what is wrong in why ("expected
 * string, got number"). A $ref that names nothing, or that leads round
 * to itself without descending into the value, is a mismatch too, said.
 */
int mc_schema_check(const cJSON *schema, const cJSON *value, char *ptr, size_t ptrsz,
    char *why, size_t whysz);

#endif
