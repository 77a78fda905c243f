/* util.h - what every tool, test, fuzz driver and benchmark of ptcodec
   needs from its host, in one place: a helper-function marker, an
   "unused" macro, a whole-file reader and a strict number parser. It does
   not need ptcodec.h; the library itself needs none of it. */
#ifndef PTCODEC_UTIL_H
#define PTCODEC_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A helper defined in a header: each includer uses only some of them. */
#if defined(__GNUC__) || defined(__clang__)
#define UTIL_FN static __attribute__((unused))
#else
#define UTIL_FN static
#endif

/* A parameter a callback must take but does not need. */
#define UTIL_UNUSED(x) ((void)(x))

/* The program's name in messages ("ptdump"); a tool sets it first thing. */
static const char *util_prog = "ptcodec";

/* Reads what is left of f into a new buffer with a NUL after its *len
   bytes, so text can be used as a string. NULL when reading fails or
   memory runs out (errno says which); nothing leaks either way. The
   caller frees the buffer; f stays open. */
UTIL_FN unsigned char *util_read_stream(FILE *f, size_t *len)
{
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    *len = 0;
    for (;;) {
        size_t got;
        if (cap - n < 2) { /* room for more bytes and the NUL */
            size_t ncap = cap ? cap * 2 : (size_t)1 << 16;
            unsigned char *nb = ncap > cap ? (unsigned char *)realloc(buf, ncap) : NULL;
            if (!nb) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = nb;
            cap = ncap;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        free(buf);
        if (!errno) errno = EIO;
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* The next at most cap bytes of f, for a reader that streams its input
   instead of reading it whole: 0 at its end or on an error (ferror(f)
   tells which). */
UTIL_FN size_t util_read_chunk(FILE *f, void *buf, size_t cap) { return fread(buf, 1, cap, f); }

/* The first n bytes of the file at `path` into buf: 1 when it has them
   (never standard input: nothing read from it is lost). */
UTIL_FN int util_read_head(const char *path, void *buf, size_t n)
{
    FILE *f = strcmp(path, "-") == 0 ? NULL : fopen(path, "rb");
    int ok;
    if (!f) return 0;
    ok = fread(buf, 1, n, f) == n;
    fclose(f);
    return ok;
}

/* All of the file at `path` ("-": standard input), as util_read_stream. */
UTIL_FN unsigned char *util_read_file(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    unsigned char *buf;
    int err;
    *len = 0;
    if (!f) return NULL;
    buf = util_read_stream(f, len);
    err = errno;
    if (f != stdin) fclose(f);
    errno = err;
    return buf;
}

/* Parses text[0, n) as digits in `base` (10 or 16) into a number from 0
   to max. Returns 1 with *out set, or 0 with *out untouched when there
   are no digits, any other character (a sign, white space, a suffix), or
   a value that overflows or exceeds max. */
UTIL_FN int util_parse_digits(const char *text, size_t n, unsigned base, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    size_t i;
    if (!text || n == 0) return 0;
    for (i = 0; i < n; i++) {
        unsigned d;
        char ch = text[i];
        if (ch >= '0' && ch <= '9') d = (unsigned)(ch - '0');
        else if (base == 16 && ch >= 'a' && ch <= 'f') d = (unsigned)(ch - 'a' + 10);
        else if (base == 16 && ch >= 'A' && ch <= 'F') d = (unsigned)(ch - 'A' + 10);
        else return 0;
        if (v > (UINT64_MAX - d) / base) return 0;
        v = v * base + d;
    }
    if (v > max) return 0;
    *out = v;
    return 1;
}

/* A number as users write it: decimal, or hex after 0x. */
UTIL_FN int util_parse_u64_n(const char *text, size_t n, uint64_t max, uint64_t *out)
{
    if (text && n > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
        return util_parse_digits(text + 2, n - 2, 16, max, out);
    return util_parse_digits(text, n, 10, max, out);
}

/* `option` is one of `known`, a NULL-ended list. */
UTIL_FN int util_is_one_of(const char *option, const char *const *known)
{
    for (; *known; known++)
        if (strcmp(option, *known) == 0) return 1;
    return 0;
}

/* An option given last with no value: "needs a value" when the tool has
   it (one of `known`), else "unknown option". Returns 2, the exit status
   of bad usage. */
UTIL_FN int util_no_value(const char *option, const char *const *known, const char *usage)
{
    if (util_is_one_of(option, known)) fprintf(stderr, "%s: %s needs a value\n%s", util_prog, option, usage);
    else fprintf(stderr, "%s: unknown option %s\n%s", util_prog, option, usage);
    return 2;
}

/* The same for a whole string, saying what is wrong on standard error,
   with the option or key it was given for (`what`). */
UTIL_FN int util_parse_u64(const char *what, const char *text, uint64_t max, uint64_t *out)
{
    if (text && util_parse_u64_n(text, strlen(text), max, out)) return 1;
    fprintf(stderr, "%s: %s: '%s' is not a whole number from 0 to %llu\n", util_prog, what, text ? text : "",
            (unsigned long long)max);
    return 0;
}

#endif
