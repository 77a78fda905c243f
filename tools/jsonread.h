/* jsonread.h - a strict reader for the small JSON documents the tools take
   (the configuration ptsim and the QEMU plugin write beside a trace, SPEC.md
   5.6). It builds no tree: the caller walks the document in the order it
   comes, asking for the next key of an object or the next item of an array
   and reading each value with the reader of the type it expects. Anything
   RFC 8259 does not allow, and any value of another type than the caller
   asked for, stops the reader with the line, the column and the reason in
   r->err; every later call then fails too, so a caller may check once at
   the end of a step. Numbers are whole and unsigned (all the tools need):
   a sign, a fraction or an exponent is refused, not rounded. Needs util.h. */
#ifndef PTCODEC_JSONREAD_H
#define PTCODEC_JSONREAD_H

#include <stdarg.h>

#include "util.h"

typedef struct jr_reader {
    const char *text; /* the document, for the line and column of an error */
    const char *p;    /* the next character to read */
    const char *end;  /* one past the last character */
    char err[200];    /* why reading stopped; empty while it goes on */
} jr_reader;

UT_FN void jr_init(jr_reader *r, const char *text, size_t n)
{
    r->text = r->p = text;
    r->end = text + n;
    r->err[0] = 0;
}

UT_FN int jr_failed(const jr_reader *r) { return r->err[0] != 0; }

/* Stops the reader at r->p with a reason; the first reason is kept.
   Returns 0 so a reader can `return jr_fail(...)`. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
UT_FN int jr_fail(jr_reader *r, const char *fmt, ...)
{
    unsigned line = 1, col = 1;
    const char *q;
    size_t n;
    va_list ap;
    if (jr_failed(r)) return 0;
    for (q = r->text; q < r->p; q++) {
        if (*q == '\n') { line++; col = 1; }
        else col++;
    }
    n = (size_t)snprintf(r->err, sizeof r->err, "line %u, column %u: ", line, col);
    va_start(ap, fmt);
    if (n < sizeof r->err) vsnprintf(r->err + n, sizeof r->err - n, fmt, ap);
    va_end(ap);
    return 0;
}

/* The next character after white space, or -1 at the end. */
UT_FN int jr_peek(jr_reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
    return r->p < r->end ? (unsigned char)*r->p : -1;
}

/* What a value that starts with c is, for "X must be a number, not ...". */
UT_FN const char *jr_kind(int c)
{
    switch (c) {
    case '"': return "a string";
    case '{': return "an object";
    case '[': return "an array";
    case 't': case 'f': return "true or false";
    case 'n': return "null";
    case '-': return "a negative number";
    case -1: return "the end of the text";
    default: return c >= '0' && c <= '9' ? "a number" : "not JSON";
    }
}

/* Takes the character c (after white space) or stops with "expected". */
UT_FN int jr_take(jr_reader *r, char c, const char *expected)
{
    if (jr_failed(r)) return 0;
    if (jr_peek(r) != (unsigned char)c) return jr_fail(r, "expected %s, found %s", expected, jr_kind(jr_peek(r)));
    r->p++;
    return 1;
}

UT_FN int jr_hex4(const char *p)
{
    int i;
    for (i = 0; i < 4; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f') || (p[i] >= 'A' && p[i] <= 'F'))) return 0;
    return 1;
}

/* A string into out (cap bytes with its NUL). The tools' strings are short
   ASCII names: a longer one is refused; an escape is checked and kept as
   written, and a byte above 0x7F is kept, so such a name matches no key. */
UT_FN int jr_string(jr_reader *r, char *out, size_t cap)
{
    size_t n = 0;
    if (!jr_take(r, '"', "a string")) return 0;
    for (;;) {
        const char *start = r->p;
        size_t len = 1;
        if (r->p >= r->end) return jr_fail(r, "a string is not closed");
        if ((unsigned char)*r->p < 0x20) return jr_fail(r, "a control character inside a string");
        if (*r->p == '"') { r->p++; break; }
        if (*r->p == '\\') {
            if (r->end - r->p < 2 || !strchr("\"\\/bfnrtu", r->p[1]) || r->p[1] == 0)
                return jr_fail(r, "a string has an escape JSON does not have");
            len = r->p[1] == 'u' ? 6 : 2;
            if (len == 6 && (r->end - r->p < 6 || !jr_hex4(r->p + 2)))
                return jr_fail(r, "\\u wants four hex digits");
        }
        if (n + len >= cap) return jr_fail(r, "a string longer than %u characters", (unsigned)cap - 1);
        memcpy(out + n, start, len);
        n += len;
        r->p += len;
    }
    out[n] = 0;
    return 1;
}

/* A whole number from 0 to max for the value named `what`. */
UT_FN int jr_u64(jr_reader *r, const char *what, uint64_t max, uint64_t *v)
{
    const char *start;
    int c = jr_peek(r);
    if (jr_failed(r)) return 0;
    if (c < '0' || c > '9') return jr_fail(r, "%s must be a whole number from 0 to %llu, not %s", what,
                                           (unsigned long long)max, jr_kind(c));
    start = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    if (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E'))
        return jr_fail(r, "%s must be a whole number, not a fraction or an exponent", what);
    if (*start == '0' && r->p - start > 1) {
        r->p = start;
        return jr_fail(r, "%s: JSON numbers have no leading zero", what);
    }
    if (!ut_parse_digits(start, (size_t)(r->p - start), 10, max, v)) {
        r->p = start;
        return jr_fail(r, "%s must be a whole number from 0 to %llu", what, (unsigned long long)max);
    }
    return 1;
}

/* Objects and arrays: jr_open(r, '{', ...) takes the opening bracket; then
   jr_next(r, '}', &first) says 1 while another member follows (taking the
   comma between), 0 after the closing bracket or on an error. */
UT_FN int jr_open(jr_reader *r, char bracket, const char *what)
{
    if (jr_failed(r)) return 0;
    if (jr_peek(r) != (unsigned char)bracket)
        return jr_fail(r, "%s must be %s, not %s", what, jr_kind(bracket), jr_kind(jr_peek(r)));
    r->p++;
    return 1;
}

UT_FN int jr_next(jr_reader *r, char close, int *first)
{
    int c = jr_peek(r);
    if (jr_failed(r)) return 0;
    if (c == (unsigned char)close && *first) { r->p++; return 0; }
    if (!*first) {
        if (c == (unsigned char)close) { r->p++; return 0; }
        if (c != ',') return jr_fail(r, "expected ',' or '%c', found %s", close, jr_kind(c));
        r->p++;
        if (jr_peek(r) == (unsigned char)close) return jr_fail(r, "a comma before '%c'", close);
    }
    *first = 0;
    return 1;
}

/* The next member's key of an object (and its colon): 1, or 0 at the end. */
UT_FN int jr_key(jr_reader *r, int *first, char *key, size_t cap)
{
    if (!jr_next(r, '}', first)) return 0;
    return jr_string(r, key, cap) && jr_take(r, ':', "':' after a key");
}

/* Nothing but white space may follow the document. */
UT_FN int jr_finish(jr_reader *r)
{
    if (jr_failed(r)) return 0;
    if (jr_peek(r) != -1) return jr_fail(r, "text after the end of the document");
    return 1;
}

#endif
