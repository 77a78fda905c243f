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
typedef struct pf_field {
    size_t off, size;   /* within ptc_packet */
    ptc_field_form form;
} pf_field;
#define PF__FIELD(t, member, field, name, form) \
    { offsetof(ptc_packet, u.member.field), sizeof(((ptc_packet *)0)->u.member.field), form },
#define PF__TYPE(t, member, field, name, form) (unsigned char)(t),
static const pf_field pf_fields[] = { PTC_PACKET_FIELD_LIST(PF__FIELD) };
/* each row's type, apart, so that one memchr finds a type's first row */
static const unsigned char pf_field_types[] = { PTC_PACKET_FIELD_LIST(PF__TYPE) };
#undef PF__FIELD
#undef PF__TYPE
#define PF_FIELD_COUNT (sizeof pf_fields / sizeof pf_fields[0])

/* The rows of a type: the index of its first, and how many (0 for a type
   without fields). */
UT_FN size_t pf_rows_of(ptc_packet_type type, size_t *first)
{
    const unsigned char *row = (const unsigned char *)memchr(pf_field_types, type, PF_FIELD_COUNT);
    size_t n = 0;
    *first = row ? (size_t)(row - pf_field_types) : 0;
    while (row && *first + n < PF_FIELD_COUNT && pf_field_types[*first + n] == type) n++;
    return n;
}

UT_FN uint64_t pf_get(const ptc_packet *p, const pf_field *f)
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
UT_FN void pf_set(ptc_packet *p, const pf_field *f, uint64_t v)
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
