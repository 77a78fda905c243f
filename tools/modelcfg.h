/* modelcfg.h - the model's configuration as text: one table of key names,
   used by ptsim's --set, by scenario files, by the out.pt.json that ptsim
   writes and by ptdump --config that reads it (SPEC.md 5.6); and the
   model's truth as the JSON lines ptsim --truth and the QEMU plugin write.
   It includes what it needs. */
#ifndef PTCODEC_MODELCFG_H
#define PTCODEC_MODELCFG_H

#include "../ptcodec.h"

#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "../harness/util.h"

/* ---- the JSON reader ---------------------------------------------------- */
/* A strict reader for the small JSON documents the tools take
   (the configuration ptsim and the QEMU plugin write beside a trace, SPEC.md
   5.6). It builds no tree: the caller walks the document in the order it
   comes, asking for the next key of an object or the next item of an array
   and reading each value with the reader of the type it expects. Anything
   RFC 8259 does not allow, and any value of another type than the caller
   asked for, stops the reader with the line, the column and the reason in
   r->err; every later call then fails too, so a caller may check once at
   the end of a step. Numbers are whole and unsigned (all the tools need):
   a sign, a fraction or an exponent is refused, not rounded. */


typedef struct json_reader {
    const char *text; /* the document, for the line and column of an error */
    const char *p;    /* the next character to read */
    const char *end;  /* one past the last character */
    char err[200];    /* why reading stopped; empty while it goes on */
} json_reader;

UTIL_FN void json_init(json_reader *r, const char *text, size_t n)
{
    r->text = r->p = text;
    r->end = text + n;
    r->err[0] = 0;
}

UTIL_FN int json_failed(const json_reader *r) { return r->err[0] != 0; }

/* Stops the reader at r->p with a reason; the first reason is kept.
   Returns 0 so a reader can `return json_fail(...)`. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
UTIL_FN int json_fail(json_reader *r, const char *fmt, ...)
{
    unsigned line = 1, col = 1;
    const char *q;
    size_t n;
    va_list ap;
    if (json_failed(r)) return 0;
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
UTIL_FN int json_peek(json_reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
    return r->p < r->end ? (unsigned char)*r->p : -1;
}

/* What a value that starts with c is, for "X must be a number, not ...". */
UTIL_FN const char *json_kind(int c)
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
UTIL_FN int json_take(json_reader *r, char c, const char *expected)
{
    if (json_failed(r)) return 0;
    if (json_peek(r) != (unsigned char)c) return json_fail(r, "expected %s, found %s", expected, json_kind(json_peek(r)));
    r->p++;
    return 1;
}

UTIL_FN int json_hex4(const char *p)
{
    int i;
    for (i = 0; i < 4; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f') || (p[i] >= 'A' && p[i] <= 'F'))) return 0;
    return 1;
}

/* A string into out (cap bytes with its NUL). The tools' strings are short
   ASCII names: a longer one is refused; an escape is checked and kept as
   written, and a byte above 0x7F is kept, so such a name matches no key. */
UTIL_FN int json_string(json_reader *r, char *out, size_t cap)
{
    size_t n = 0;
    if (!json_take(r, '"', "a string")) return 0;
    for (;;) {
        const char *start = r->p;
        size_t len = 1;
        if (r->p >= r->end) return json_fail(r, "a string is not closed");
        if ((unsigned char)*r->p < 0x20) return json_fail(r, "a control character inside a string");
        if (*r->p == '"') { r->p++; break; }
        if (*r->p == '\\') {
            if (r->end - r->p < 2 || !strchr("\"\\/bfnrtu", r->p[1]) || r->p[1] == 0)
                return json_fail(r, "a string has an escape JSON does not have");
            len = r->p[1] == 'u' ? 6 : 2;
            if (len == 6 && (r->end - r->p < 6 || !json_hex4(r->p + 2)))
                return json_fail(r, "\\u wants four hex digits");
        }
        if (n + len >= cap) return json_fail(r, "a string longer than %u characters", (unsigned)cap - 1);
        memcpy(out + n, start, len);
        n += len;
        r->p += len;
    }
    out[n] = 0;
    return 1;
}

/* A whole number from 0 to max for the value named `what`. */
UTIL_FN int json_u64(json_reader *r, const char *what, uint64_t max, uint64_t *v)
{
    const char *start;
    int c = json_peek(r);
    if (json_failed(r)) return 0;
    if (c < '0' || c > '9') return json_fail(r, "%s must be a whole number from 0 to %llu, not %s", what,
                                           (unsigned long long)max, json_kind(c));
    start = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    if (r->p < r->end && (*r->p == '.' || *r->p == 'e' || *r->p == 'E'))
        return json_fail(r, "%s must be a whole number, not a fraction or an exponent", what);
    if (*start == '0' && r->p - start > 1) {
        r->p = start;
        return json_fail(r, "%s: JSON numbers have no leading zero", what);
    }
    if (!util_parse_digits(start, (size_t)(r->p - start), 10, max, v)) {
        r->p = start;
        return json_fail(r, "%s must be a whole number from 0 to %llu", what, (unsigned long long)max);
    }
    return 1;
}

/* Objects and arrays: json_open(r, '{', ...) takes the opening bracket; then
   json_next(r, '}', &first) says 1 while another member follows (taking the
   comma between), 0 after the closing bracket or on an error. */
UTIL_FN int json_open(json_reader *r, char bracket, const char *what)
{
    if (json_failed(r)) return 0;
    if (json_peek(r) != (unsigned char)bracket)
        return json_fail(r, "%s must be %s, not %s", what, json_kind(bracket), json_kind(json_peek(r)));
    r->p++;
    return 1;
}

UTIL_FN int json_next(json_reader *r, char close, int *first)
{
    int c = json_peek(r);
    if (json_failed(r)) return 0;
    if (c == (unsigned char)close && *first) { r->p++; return 0; }
    if (!*first) {
        if (c == (unsigned char)close) { r->p++; return 0; }
        if (c != ',') return json_fail(r, "expected ',' or '%c', found %s", close, json_kind(c));
        r->p++;
        if (json_peek(r) == (unsigned char)close) return json_fail(r, "a comma before '%c'", close);
    }
    *first = 0;
    return 1;
}

/* The next member's key of an object (and its colon): 1, or 0 at the end. */
UTIL_FN int json_key(json_reader *r, int *first, char *key, size_t cap)
{
    if (!json_next(r, '}', first)) return 0;
    return json_string(r, key, cap) && json_take(r, ':', "':' after a key");
}

/* Nothing but white space may follow the document. */
UTIL_FN int json_finish(json_reader *r)
{
    if (json_failed(r)) return 0;
    if (json_peek(r) != -1) return json_fail(r, "text after the end of the document");
    return 1;
}

/* ---- the configuration ------------------------------------------------- */

/* Every plain number field of a model's configuration, its key and its
   range, as MODELCFG_FIELDS expands MODELCFG_FIELD(key, field, least,
   most): its trace's (ptcodec.h's PTC_TRACE_CONFIG_FIELDS; ptc_model_init
   narrows a few), then its own (PTC_MODEL_CONFIG_FIELDS). A user defines
   MODELCFG_FIELD, expands MODELCFG_FIELDS and undefines it again. */
#define MODELCFG_TRACE_FIELD(k, fld, least, most) MODELCFG_FIELD(k, trace.fld, least, most)
#define MODELCFG_MODEL_FIELD(k, fld, least, most, dflt) MODELCFG_FIELD(k, fld, least, most)
#define MODELCFG_FIELDS PTC_TRACE_CONFIG_FIELDS(MODELCFG_TRACE_FIELD) PTC_MODEL_CONFIG_FIELDS(MODELCFG_MODEL_FIELD)

/* The next token of *cursor up to one of delims (plain C99: no strtok_r). */
UTIL_FN char *modelcfg_token(char **cursor, const char *delims)
{
    char *start = *cursor + strspn(*cursor, delims), *end;
    if (!*start) { *cursor = start; return NULL; }
    end = start + strcspn(start, delims);
    if (*end) *end++ = 0;
    *cursor = end;
    return start;
}

/* A number (decimal or 0x hex) that ends at the end of s or at a ',' or
   ' ' (the separators of the lists it comes from); 0 on anything else,
   overflow included. */
UTIL_FN int modelcfg_number(const char *s, uint64_t *v)
{
    return s && util_parse_u64_n(s, strcspn(s, ", "), UINT64_MAX, v);
}

/* Whether least <= v <= most (a function: no comparison is always true). */
UTIL_FN int modelcfg_in_range(uint64_t v, uint64_t least, uint64_t most) { return v >= least && v <= most; }

/* Sets the plain integer field named key: 1, or 0 with err when v is outside
   its range, or -1 with err when no field has that name. */
UTIL_FN int modelcfg_set_number(ptc_model_config *c, const char *key, uint64_t v, char *err, size_t errlen)
{
#define MODELCFG_FIELD(k, fld, least, most) \
    if (strcmp(key, k) == 0) { \
        if (!modelcfg_in_range(v, least, most)) { \
            snprintf(err, errlen, "%s must be a whole number from %llu to %llu", k, (unsigned long long)(least), \
                     (unsigned long long)(most)); \
            return 0; \
        } \
        c->fld = v; \
        return 1; \
    }
    MODELCFG_FIELDS
#undef MODELCFG_FIELD
#define MODELCFG_E(k, bit) \
    if (strcmp(key, k) == 0) { \
        if (v > 1) { snprintf(err, errlen, "%s must be a whole number from 0 to 1", k); return 0; } \
        c->trace.errata = v ? c->trace.errata | (uint32_t)(bit) : c->trace.errata & ~(uint32_t)(bit); \
        return 1; \
    }
    PTC_MODEL_ERRATA(MODELCFG_E)
#undef MODELCFG_E
    if (strcmp(key, "nom_freq") == 0 || strcmp(key, "ring_written") == 0)
        snprintf(err, errlen, "%s is not a setting: the configuration file gives it for decoders (%s)", key,
                 key[0] == 'n' ? "set art_hz, cpuid_0x15_eax and cpuid_0x15_ebx" : "set by --snapshot");
    else snprintf(err, errlen, "unknown setting '%s'", key);
    return -1;
}

/* The largest value of the plain integer field named key. */
UTIL_FN uint64_t modelcfg_field_max(const char *key)
{
#define MODELCFG_FIELD(k, fld, least, most) \
    if (strcmp(key, k) == 0) return (uint64_t)(most);
    MODELCFG_FIELDS
#undef MODELCFG_FIELD
#define MODELCFG_E(k, bit) \
    if (strcmp(key, k) == 0) return 1;
    PTC_MODEL_ERRATA(MODELCFG_E)
#undef MODELCFG_E
    return UINT64_MAX;
}

/* Sets one configuration key. Returns 0 and says why in err when the key or
   value is wrong. "filter" takes LO-HI and adds a range. */
UTIL_FN int modelcfg_set(ptc_model_config *c, const char *key, const char *val, char *err, size_t errlen)
{
    uint64_t v;
    if (strcmp(key, "filter") == 0) {
        const char *dash = strchr(val, '-');
        uint64_t lo = 0, hi = 0;
        if (!dash || !util_parse_u64_n(val, (size_t)(dash - val), UINT64_MAX, &lo) || !modelcfg_number(dash + 1, &hi) ||
            c->trace.filters.count >= 4) {
            snprintf(err, errlen, "filter wants LO-HI (at most 4 ranges), got '%s'", val);
            return 0;
        }
        c->trace.filters.lo[c->trace.filters.count] = lo;
        c->trace.filters.hi[c->trace.filters.count] = hi;
        c->trace.filters.count++;
        return 1;
    }
    if (strcmp(key, "nofilter") == 0) { c->trace.filters.count = 0; return 1; }
    if (!modelcfg_number(val, &v)) {
        snprintf(err, errlen, "%s wants a number, got '%s'", key, val);
        return 0;
    }
    return modelcfg_set_number(c, key, v, err, errlen) > 0;
}

/* Applies "k=v,k=v,..." (or space separated). */
UTIL_FN int modelcfg_set_list(ptc_model_config *c, const char *list, char *err, size_t errlen)
{
    char buf[1024], *p, *cur = buf;
    snprintf(buf, sizeof buf, "%s", list);
    while ((p = modelcfg_token(&cur, ", ")) != NULL) {
        char *eq = strchr(p, '=');
        if (!eq) { snprintf(err, errlen, "'%s' is not key=value", p); return 0; }
        *eq = 0;
        if (!modelcfg_set(c, p, eq + 1, err, errlen)) return 0;
    }
    return 1;
}

/* Workload event kinds by name (ptc_event_kind; index 0 unused). */
static const char *const modelcfg_event_names[] = { "", "branch", "jump", "indirect", "interrupt", "ptwrite", "cr3",
                                              "mode", "sleep", "ratio", "privilege", "call", "ret",
                                              "tsx", "vmx" };

UTIL_FN const char *modelcfg_event_name(int kind)
{
    return kind > 0 && (size_t)kind < sizeof modelcfg_event_names / sizeof modelcfg_event_names[0] ? modelcfg_event_names[kind] : "event";
}

/* The truth as JSON lines (SPEC 5.6, ptsim --truth): a packet written (or
   cut to its first byte: "cut":true; or written corrupt with a bogus byte
   after it: "corrupt":true), or suppressed or lost; */
UTIL_FN void modelcfg_truth_packet(FILE *f, const ptc_truth *t)
{
    if (t->fate == PTC_FATE_EMITTED || t->fate == PTC_FATE_CUT || t->fate == PTC_FATE_CORRUPT)
        fprintf(f, "{\"off\":%llu,\"type\":\"%s\",%s\"cycle\":%llu,\"tsc\":%llu,\"tsc_frac\":\"%llu/%llu\",\"art\":%llu}\n",
                (unsigned long long)t->offset, ptc_packet_type_name(t->pkt.type),
                t->fate == PTC_FATE_CUT ? "\"cut\":true," : t->fate == PTC_FATE_CORRUPT ? "\"corrupt\":true," : "",
                (unsigned long long)t->cycle,
                (unsigned long long)t->time.tsc, (unsigned long long)t->time.num, (unsigned long long)t->time.den,
                (unsigned long long)t->art);
    else
        fprintf(f, "{\"%s\":\"%s\",\"at_off\":%llu,\"cycle\":%llu,\"tsc\":%llu,\"art\":%llu}\n",
                t->fate == PTC_FATE_SUPPRESSED ? "suppressed" : "dropped", ptc_packet_type_name(t->pkt.type),
                (unsigned long long)t->offset, (unsigned long long)t->cycle, (unsigned long long)t->time.tsc,
                (unsigned long long)t->art);
}

/* a workload event; */
UTIL_FN void modelcfg_truth_event(FILE *f, const ptc_event_truth *e)
{
    fprintf(f, "{\"event\":\"%s\",\"index\":%llu,\"thread\":%u,\"cpl\":%u,\"cycle\":%llu,\"tsc\":%llu,\"ip\":\"0x%llx\","
               "\"target\":\"0x%llx\",\"taken\":%s,\"traced\":%s,\"off\":%llu}\n",
            modelcfg_event_name(e->kind), (unsigned long long)e->index, e->thread, e->cpl, (unsigned long long)e->cycle,
            (unsigned long long)e->time.tsc, (unsigned long long)e->ip, (unsigned long long)e->target,
            e->taken ? "true" : "false", e->traced ? "true" : "false", (unsigned long long)e->offset);
}

/* a retirement (SPEC 4.1). */
UTIL_FN void modelcfg_truth_retire(FILE *f, const ptc_retire_truth *r)
{
    fprintf(f, "{\"retire\":%llu,\"cycle\":%llu,\"off\":%llu,\"tsc\":%llu}\n", (unsigned long long)r->index,
            (unsigned long long)r->cycle, (unsigned long long)r->offset, (unsigned long long)r->time.tsc);
}

/* A counter (SPEC 5.8): "EVENT[,key=value...]" with keys outcome (1 taken,
   2 not taken, 0 both), threads (a bit mask, 0 every thread), usr, os
   (default 1 and 1), pebs, start. */
UTIL_FN int modelcfg_counter(ptc_counter_config *c, const char *spec, char *err, size_t errlen)
{
    char buf[256], *t, *cur = buf;
    size_t k;
    memset(c, 0, sizeof *c);
    c->usr = c->os = 1;
    if (strlen(spec) >= sizeof buf) { snprintf(err, errlen, "counter: longer than %zu characters", sizeof buf - 1); return 0; }
    memcpy(buf, spec, strlen(spec) + 1);
    t = modelcfg_token(&cur, ",");
    for (k = 1; t && k < sizeof modelcfg_event_names / sizeof modelcfg_event_names[0]; k++)
        if (strcmp(t, modelcfg_event_names[k]) == 0) c->event = (uint8_t)k;
    if (!c->event) { snprintf(err, errlen, "counter: '%s' is not an event (branch, indirect, privilege, ...)", t ? t : ""); return 0; }
    while ((t = modelcfg_token(&cur, ",")) != NULL) {
        char *eq = strchr(t, '=');
        uint64_t v;
        if (!eq || !modelcfg_number(eq + 1, &v)) { snprintf(err, errlen, "counter: '%s' is not key=number", t); return 0; }
        *eq = 0;
        if (strcmp(t, "outcome") == 0 && v <= 3) c->outcome = (uint8_t)v;
        else if (strcmp(t, "threads") == 0 && v <= 255) c->threads = (uint8_t)v;
        else if (strcmp(t, "usr") == 0 && v <= 1) c->usr = (uint8_t)v;
        else if (strcmp(t, "os") == 0 && v <= 1) c->os = (uint8_t)v;
        else if (strcmp(t, "pebs") == 0 && v <= 1) c->pebs = (uint8_t)v;
        else if (strcmp(t, "start") == 0 && !(v >> PTC_COUNTER_BITS)) c->start = v;
        else { snprintf(err, errlen, "counter: unknown key or value out of range: %s", t); return 0; }
    }
    return 1;
}

/* --policy: "off", "seed" (the seed's default), or key=value pairs on top of
   the seed's default: threshold, resume_value, resume_after, min_burst. */
UTIL_FN int modelcfg_policy(ptc_mtc_policy *p, const char *spec, char *err, size_t errlen)
{
    char buf[512], *t, *cur = buf;
    ptc_mtc_policy_default(p);
    if (strcmp(spec, "off") == 0) { p->threshold = 0; return 1; }
    if (strcmp(spec, "seed") == 0 || strcmp(spec, "default") == 0) return 1;
    snprintf(buf, sizeof buf, "%s", spec);
    while ((t = modelcfg_token(&cur, ",")) != NULL) {
        char *eq = strchr(t, '=');
        uint64_t v;
        if (!eq || !modelcfg_number(eq + 1, &v)) { snprintf(err, errlen, "policy: '%s' is not key=number", t); return 0; }
        *eq = 0;
        if (strcmp(t, "threshold") == 0 && v <= 255) p->threshold = (uint8_t)v;
        else if (strcmp(t, "resume_value") == 0 && v <= 255) { p->resume_on_value = 1; p->resume_value = (uint8_t)v; }
        else if (strcmp(t, "resume_after") == 0 && v <= 255) p->resume_after = (uint8_t)v;
        else if (strcmp(t, "min_burst") == 0 && v <= 255) p->min_burst = (uint8_t)v;
        else { snprintf(err, errlen, "policy: unknown key or value out of range: %s", t); return 0; }
    }
    return 1;
}

/* The policy field a configuration file's "policy" object names, or NULL. */
UTIL_FN uint8_t *modelcfg_policy_field(ptc_mtc_policy *p, const char *key)
{
    if (strcmp(key, "threshold") == 0) return &p->threshold;
    if (strcmp(key, "resume_on_value") == 0) return &p->resume_on_value;
    if (strcmp(key, "resume_value") == 0) return &p->resume_value;
    if (strcmp(key, "resume_after") == 0) return &p->resume_after;
    if (strcmp(key, "min_burst") == 0) return &p->min_burst;
    return NULL;
}

/* The configuration as one JSON object; ring_written (NULL: none) says the
   trace is a snapshot ring's buffer that this many bytes went into
   (SPEC 4.5). */
UTIL_FN void modelcfg_write_json(FILE *f, const ptc_model_config *c, const uint64_t *ring_written)
{
    unsigned i;
    fprintf(f, "{\"mtc_freq\":%u,\"cpuid_0x15_eax\":%u,\"cpuid_0x15_ebx\":%u,\"nom_freq\":%u,",
            c->trace.ctl.mtc_freq, c->trace.ratios.cpuid_15_eax, c->trace.ratios.cpuid_15_ebx, ptc_model_nom_freq(c));
#define MODELCFG_FIELD(k, fld, least, most) \
    if (strcmp(k, "mtc_freq") && strcmp(k, "cpuid_0x15_eax") && strcmp(k, "cpuid_0x15_ebx")) \
        fprintf(f, "\"%s\":%llu,", k, (unsigned long long)c->fld);
    MODELCFG_FIELDS
#undef MODELCFG_FIELD
#define MODELCFG_E(k, bit) fprintf(f, "\"%s\":%u,", k, (c->trace.errata & (bit)) ? 1u : 0u);
    PTC_MODEL_ERRATA(MODELCFG_E)
#undef MODELCFG_E
    if (ring_written) fprintf(f, "\"ring_written\":%llu,", (unsigned long long)*ring_written);
    fprintf(f, "\"filters\":[");
    for (i = 0; i < c->trace.filters.count; i++)
        fprintf(f, "%s[%llu,%llu]", i ? "," : "", (unsigned long long)c->trace.filters.lo[i], (unsigned long long)c->trace.filters.hi[i]);
    fprintf(f, "],\"policy\":{\"threshold\":%u,\"resume_on_value\":%u,\"resume_value\":%u,\"resume_after\":%u,"
               "\"min_burst\":%u}}\n",
            c->trace.policy.threshold, c->trace.policy.resume_on_value, c->trace.policy.resume_value, c->trace.policy.resume_after,
            c->trace.policy.min_burst);
}

/* The keys a configuration file may have (SPEC 5.6): the plain fields,
   then those read otherwise; and the keys of its "policy" object. */
static const char *const modelcfg_json_keys[] = {
#define MODELCFG_FIELD(k, fld, least, most) k,
    MODELCFG_FIELDS
#undef MODELCFG_FIELD
#define MODELCFG_E(k, bit) k,
    PTC_MODEL_ERRATA(MODELCFG_E)
#undef MODELCFG_E
    "nom_freq", "ring_written", "filters", "policy"
};
static const char *const modelcfg_json_policy_keys[] = { "threshold", "resume_on_value", "resume_value", "resume_after",
                                                   "min_burst" };

/* The index of key in names[0, n), or n. */
UTIL_FN size_t modelcfg_key_index(const char *const *names, size_t n, const char *key)
{
    size_t i = 0;
    while (i < n && strcmp(names[i], key) != 0) i++;
    return i;
}

/* The next key of an object whose keys are names[0, n): 1 with *index
   set, or 0 at the object's end or on an unknown or repeated key (which
   stops the reader). *seen has a bit per key already read. */
UTIL_FN int modelcfg_json_key(json_reader *r, int *first, const char *const *names, size_t n, uint64_t *seen, size_t *index)
{
    char key[64];
    const char *at;
    if (!json_next(r, '}', first)) return 0;
    json_peek(r);
    at = r->p;
    if (!json_string(r, key, sizeof key) || !json_take(r, ':', "':' after a key")) return 0;
    *index = modelcfg_key_index(names, n, key);
    if (*index < n && !(*seen >> *index & 1)) {
        *seen |= (uint64_t)1 << *index;
        return 1;
    }
    r->p = at;
    return json_fail(r, *index == n ? "unknown key \"%s\"" : "\"%s\" is given twice", key);
}

/* "filters": [[lo, hi], ...], at most four ranges. */
UTIL_FN int modelcfg_json_filters(json_reader *r, ptc_model_config *c)
{
    int first = 1;
    if (!json_open(r, '[', "filters")) return 0;
    while (json_next(r, ']', &first)) {
        int inner = 1;
        uint64_t range[2];
        unsigned k;
        if (c->trace.filters.count == 4) return json_fail(r, "filters has at most 4 ranges");
        if (!json_open(r, '[', "a filter")) return 0;
        for (k = 0; k < 2; k++)
            if (!json_next(r, ']', &inner) || !json_u64(r, "a filter's bound", UINT64_MAX, &range[k]))
                return json_fail(r, "a filter is [lo, hi]");
        if (json_next(r, ']', &inner)) return json_fail(r, "a filter is [lo, hi]");
        c->trace.filters.lo[c->trace.filters.count] = range[0];
        c->trace.filters.hi[c->trace.filters.count] = range[1];
        c->trace.filters.count++;
    }
    return !json_failed(r);
}

/* "policy": {"threshold": N, ...}, each from 0 to 255. */
UTIL_FN int modelcfg_json_policy(json_reader *r, ptc_mtc_policy *p)
{
    const size_t n = sizeof modelcfg_json_policy_keys / sizeof modelcfg_json_policy_keys[0];
    int first = 1;
    uint64_t seen = 0, v;
    size_t i;
    if (!json_open(r, '{', "policy")) return 0;
    while (modelcfg_json_key(r, &first, modelcfg_json_policy_keys, n, &seen, &i) &&
           json_u64(r, modelcfg_json_policy_keys[i], 255, &v))
        *modelcfg_policy_field(p, modelcfg_json_policy_keys[i]) = (uint8_t)v;
    return !json_failed(r);
}

/* One top-level value: the key's reader, then the field's own limit. */
UTIL_FN void modelcfg_json_value(json_reader *r, const char *key, ptc_model_config *c, uint64_t *ring_written,
                         uint64_t *nom_freq)
{
    const char *at = json_peek(r) >= 0 ? r->p : r->end;
    char why[128];
    uint64_t v;
    if (strcmp(key, "filters") == 0) modelcfg_json_filters(r, c);
    else if (strcmp(key, "policy") == 0) modelcfg_json_policy(r, &c->trace.policy);
    else if (strcmp(key, "nom_freq") == 0) json_u64(r, key, 255, nom_freq);
    else if (strcmp(key, "ring_written") == 0) json_u64(r, key, UINT64_MAX, ring_written);
    else if (json_u64(r, key, modelcfg_field_max(key), &v) && modelcfg_set_number(c, key, v, why, sizeof why) <= 0) {
        r->p = at;
        json_fail(r, "%s", why);
    }
}

/* After reading: what the model would refuse, and a nom_freq that is not
   the one the configuration gives (it is derived, written for decoders). */
UTIL_FN int modelcfg_json_check(const ptc_model_config *c, uint64_t nom_freq, char *err, size_t errlen)
{
    ptc_model *m = (ptc_model *)malloc(sizeof *m);
    ptc_status st;
    if (!m) { snprintf(err, errlen, "out of memory"); return 0; }
    st = ptc_model_init(m, c, NULL);
    if (st != PTC_OK) snprintf(err, errlen, "the model refuses this %s (SPEC 5.6 gives the ranges)", st == PTC_ERR_BAD_CONFIG ? m->error_field : ptc_status_name(st));
    else if (nom_freq != UINT64_MAX && nom_freq != ptc_model_nom_freq(c))
        snprintf(err, errlen, "nom_freq is %llu, but art_hz and cpuid_0x15 give %u (leave it out, or make it agree)",
                 (unsigned long long)nom_freq, ptc_model_nom_freq(c));
    free(m);
    return st == PTC_OK && (nom_freq == UINT64_MAX || nom_freq == ptc_model_nom_freq(c));
}

/* Reads a configuration as modelcfg_write_json writes it: one JSON object, keys
   in any order, each at most once; a key left out keeps the default of
   ptc_model_config_default (no filters, the seed's policy). An unknown key,
   a value of the wrong type or out of its range, and broken JSON are
   refused with the line, column and key in err. *ring_written gets the
   file's ring_written, or UINT64_MAX when it has none (NULL: ignored). */
UTIL_FN int modelcfg_read_json(const char *text, size_t n, ptc_model_config *c, uint64_t *ring_written, char *err,
                       size_t errlen)
{
    const size_t nkeys = sizeof modelcfg_json_keys / sizeof modelcfg_json_keys[0];
    json_reader r;
    int first = 1;
    uint64_t seen = 0, ring = UINT64_MAX, nom_freq = UINT64_MAX;
    size_t i;
    ptc_model_config_default(c);
    json_init(&r, text, n);
    json_open(&r, '{', "the configuration");
    while (modelcfg_json_key(&r, &first, modelcfg_json_keys, nkeys, &seen, &i)) modelcfg_json_value(&r, modelcfg_json_keys[i], c, &ring, &nom_freq);
    if (!json_finish(&r)) {
        snprintf(err, errlen, "%s", r.err);
        return 0;
    }
    if (ring_written) *ring_written = ring;
    return modelcfg_json_check(c, nom_freq, err, errlen);
}

/* Reads the configuration file at path (what ptsim writes beside a trace);
   see modelcfg_read_json. */
UTIL_FN int modelcfg_read_json_file(const char *path, ptc_model_config *c, uint64_t *ring_written, char *err, size_t errlen)
{
    size_t n;
    char *text = (char *)util_read_file(path, &n);
    int ok;
    if (!text) {
        snprintf(err, errlen, "%s", strerror(errno));
        return 0;
    }
    ok = modelcfg_read_json(text, n, c, ring_written, err, errlen);
    free(text);
    return ok;
}

#endif
