/* ptfields.h - PTC_PACKET_FIELD_LIST as data: where each field of a
   ptc_packet lies, so that a tool reads or sets a field without knowing
   its type's layout (ptdump's JSON lines, the mutator's field operator).
   It includes what it needs. */
#ifndef PTCODEC_PTFIELDS_H
#define PTCODEC_PTFIELDS_H

#include "../ptcodec.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util.h"

/* One row a field, in PTC_PACKET_FIELD_LIST's order, which keeps a type's
   rows together. */
typedef struct ptfields_field {
    size_t off, size;   /* within ptc_packet */
    ptc_field_form form;
} ptfields_field;
#define PTFIELDS__FIELD(t, member, field, name, form) \
    { offsetof(ptc_packet, u.member.field), sizeof(((ptc_packet *)0)->u.member.field), form },
#define PTFIELDS__TYPE(t, member, field, name, form) (unsigned char)(t),
static const ptfields_field ptfields_fields[] = { PTC_PACKET_FIELD_LIST(PTFIELDS__FIELD) };
/* each row's type, apart, so that one memchr finds a type's first row */
static const unsigned char ptfields_field_types[] = { PTC_PACKET_FIELD_LIST(PTFIELDS__TYPE) };
#undef PTFIELDS__FIELD
#undef PTFIELDS__TYPE
#define PTFIELDS_FIELD_COUNT (sizeof ptfields_fields / sizeof ptfields_fields[0])

/* The rows of a type: the index of its first, and how many (0 for a type
   without fields). */
UTIL_FN size_t ptfields_rows_of(ptc_packet_type type, size_t *first)
{
    const unsigned char *row = (const unsigned char *)memchr(ptfields_field_types, type, PTFIELDS_FIELD_COUNT);
    size_t n = 0;
    *first = row ? (size_t)(row - ptfields_field_types) : 0;
    while (row && *first + n < PTFIELDS_FIELD_COUNT && ptfields_field_types[*first + n] == type) n++;
    return n;
}

UTIL_FN uint64_t ptfields_get(const ptc_packet *p, const ptfields_field *f)
{
    const unsigned char *at = (const unsigned char *)p + f->off;
    uint8_t v8;
    uint16_t v16;
    uint32_t v32;
    uint64_t v64;
    switch (f->size) {
    case 1: memcpy(&v8, at, 1); return v8;
    case 2: memcpy(&v16, at, 2); return v16;
    case 4: memcpy(&v32, at, 4); return v32;
    default: memcpy(&v64, at, 8); return v64;
    }
}

/* Stores v cut to the field's width. */
UTIL_FN void ptfields_set(ptc_packet *p, const ptfields_field *f, uint64_t v)
{
    unsigned char *at = (unsigned char *)p + f->off;
    uint8_t v8 = (uint8_t)v;
    uint16_t v16 = (uint16_t)v;
    uint32_t v32 = (uint32_t)v;
    switch (f->size) {
    case 1: memcpy(at, &v8, 1); break;
    case 2: memcpy(at, &v16, 2); break;
    case 4: memcpy(at, &v32, 4); break;
    default: memcpy(at, &v, 8); break;
    }
}

#endif
