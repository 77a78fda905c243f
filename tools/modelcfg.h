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
#include <string.h>

#include "util.h"
#include "jsonread.h"

/* The plain number fields, their keys and ranges: ptcodec.h's
   PTC_MODEL_CONFIG_FIELDS(X(key, field, least, most, default)). */

/* The next token of *cursor up to one of delims (plain C99: no strtok_r). */
UT_FN char *mc_token(char **cursor, const char *delims)
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
UT_FN int mc_number(const char *s, uint64_t *v)
{
    return s && ut_parse_u64_n(s, strcspn(s, ", "), UINT64_MAX, v);
}

/* Whether least <= v <= most (a function: no comparison is always true). */
UT_FN int mc_in_range(uint64_t v, uint64_t least, uint64_t most) { return v >= least && v <= most; }

/* Sets the plain integer field named key: 1, or 0 with err when v is outside
   its range, or -1 with err when no field has that name. */
UT_FN int mc_set_number(ptc_model_config *c, const char *key, uint64_t v, char *err, size_t errlen)
{
#define MC_X(k, fld, least, most, dflt) \
    if (strcmp(key, k) == 0) { \
        if (!mc_in_range(v, least, most)) { \
            snprintf(err, errlen, "%s must be a whole number from %llu to %llu", k, (unsigned long long)(least), \
                     (unsigned long long)(most)); \
            return 0; \
        } \
        c->fld = v; \
        return 1; \
    }
    PTC_MODEL_CONFIG_FIELDS(MC_X)
#undef MC_X
#define MC_E(k, bit) \
    if (strcmp(key, k) == 0) { \
        if (v > 1) { snprintf(err, errlen, "%s must be a whole number from 0 to 1", k); return 0; } \
        c->errata = v ? c->errata | (uint32_t)(bit) : c->errata & ~(uint32_t)(bit); \
        return 1; \
    }
    PTC_MODEL_ERRATA(MC_E)
#undef MC_E
    if (strcmp(key, "nom_freq") == 0 || strcmp(key, "ring_written") == 0)
        snprintf(err, errlen, "%s is not a setting: the configuration file gives it for decoders (%s)", key,
                 key[0] == 'n' ? "set art_hz, cpuid_0x15_eax and cpuid_0x15_ebx" : "set by --snapshot");
    else snprintf(err, errlen, "unknown setting '%s'", key);
    return -1;
}

/* The largest value of the plain integer field named key. */
UT_FN uint64_t mc_field_max(const char *key)
{
#define MC_X(k, fld, least, most, dflt) \
    if (strcmp(key, k) == 0) return (uint64_t)(most);
    PTC_MODEL_CONFIG_FIELDS(MC_X)
#undef MC_X
#define MC_E(k, bit) \
    if (strcmp(key, k) == 0) return 1;
    PTC_MODEL_ERRATA(MC_E)
#undef MC_E
    return UINT64_MAX;
}

/* Sets one configuration key. Returns 0 and says why in err when the key or
   value is wrong. "filter" takes LO-HI and adds a range. */
UT_FN int mc_set(ptc_model_config *c, const char *key, const char *val, char *err, size_t errlen)
{
    uint64_t v;
    if (strcmp(key, "filter") == 0) {
        const char *dash = strchr(val, '-');
        uint64_t lo = 0, hi = 0;
        if (!dash || !ut_parse_u64_n(val, (size_t)(dash - val), UINT64_MAX, &lo) || !mc_number(dash + 1, &hi) ||
            c->nfilters >= 4) {
            snprintf(err, errlen, "filter wants LO-HI (at most 4 ranges), got '%s'", val);
            return 0;
        }
        c->filter_lo[c->nfilters] = lo;
        c->filter_hi[c->nfilters] = hi;
        c->nfilters++;
        return 1;
    }
    if (strcmp(key, "nofilter") == 0) { c->nfilters = 0; return 1; }
    if (!mc_number(val, &v)) {
        snprintf(err, errlen, "%s wants a number, got '%s'", key, val);
        return 0;
    }
    return mc_set_number(c, key, v, err, errlen) > 0;
}

/* Applies "k=v,k=v,..." (or space separated). */
UT_FN int mc_set_list(ptc_model_config *c, const char *list, char *err, size_t errlen)
{
    char buf[1024], *p, *cur = buf;
    snprintf(buf, sizeof buf, "%s", list);
    while ((p = mc_token(&cur, ", ")) != NULL) {
        char *eq = strchr(p, '=');
        if (!eq) { snprintf(err, errlen, "'%s' is not key=value", p); return 0; }
        *eq = 0;
        if (!mc_set(c, p, eq + 1, err, errlen)) return 0;
    }
    return 1;
}

/* Workload event kinds by name (ptc_event_kind; index 0 unused). */
static const char *const mc_event_names[] = { "", "branch", "jump", "indirect", "interrupt", "ptwrite", "cr3",
                                              "mode", "sleep", "ratio", "privilege", "call", "ret",
                                              "tsx", "vmx" };

UT_FN const char *mc_event_name(int kind)
{
    return kind > 0 && (size_t)kind < sizeof mc_event_names / sizeof mc_event_names[0] ? mc_event_names[kind] : "event";
}

/* The truth as JSON lines (SPEC 5.6, ptsim --truth): a packet written (or
   cut to its first byte: "cut":true; or written corrupt with a bogus byte
   after it: "corrupt":true), or suppressed or lost; */
UT_FN void mc_truth_packet(FILE *f, const ptc_truth *t)
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
UT_FN void mc_truth_event(FILE *f, const ptc_event_truth *e)
{
    fprintf(f, "{\"event\":\"%s\",\"index\":%llu,\"thread\":%u,\"cpl\":%u,\"cycle\":%llu,\"tsc\":%llu,\"ip\":\"0x%llx\","
               "\"target\":\"0x%llx\",\"taken\":%s,\"traced\":%s,\"off\":%llu}\n",
            mc_event_name(e->kind), (unsigned long long)e->index, e->thread, e->cpl, (unsigned long long)e->cycle,
            (unsigned long long)e->time.tsc, (unsigned long long)e->ip, (unsigned long long)e->target,
            e->taken ? "true" : "false", e->traced ? "true" : "false", (unsigned long long)e->offset);
}

/* a retirement (SPEC 4.1). */
UT_FN void mc_truth_retire(FILE *f, const ptc_retire_truth *r)
{
    fprintf(f, "{\"retire\":%llu,\"cycle\":%llu,\"off\":%llu,\"tsc\":%llu}\n", (unsigned long long)r->index,
            (unsigned long long)r->cycle, (unsigned long long)r->offset, (unsigned long long)r->time.tsc);
}

/* A counter (SPEC 5.8): "EVENT[,key=value...]" with keys outcome (1 taken,
   2 not taken, 0 both), threads (a bit mask, 0 every thread), usr, os
   (default 1 and 1), pebs, start. */
UT_FN int mc_counter(ptc_counter_config *c, const char *spec, char *err, size_t errlen)
{
    char buf[256], *t, *cur = buf;
    size_t k;
    memset(c, 0, sizeof *c);
    c->usr = c->os = 1;
    if (strlen(spec) >= sizeof buf) { snprintf(err, errlen, "counter: longer than %zu characters", sizeof buf - 1); return 0; }
    memcpy(buf, spec, strlen(spec) + 1);
    t = mc_token(&cur, ",");
    for (k = 1; t && k < sizeof mc_event_names / sizeof mc_event_names[0]; k++)
        if (strcmp(t, mc_event_names[k]) == 0) c->event = (uint8_t)k;
    if (!c->event) { snprintf(err, errlen, "counter: '%s' is not an event (branch, indirect, privilege, ...)", t ? t : ""); return 0; }
    while ((t = mc_token(&cur, ",")) != NULL) {
        char *eq = strchr(t, '=');
        uint64_t v;
        if (!eq || !mc_number(eq + 1, &v)) { snprintf(err, errlen, "counter: '%s' is not key=number", t); return 0; }
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
UT_FN int mc_policy(ptc_mtc_policy *p, const char *spec, char *err, size_t errlen)
{
    char buf[512], *t, *cur = buf;
    ptc_mtc_policy_default(p);
    if (strcmp(spec, "off") == 0) { p->threshold = 0; return 1; }
    if (strcmp(spec, "seed") == 0 || strcmp(spec, "default") == 0) return 1;
    snprintf(buf, sizeof buf, "%s", spec);
    while ((t = mc_token(&cur, ",")) != NULL) {
        char *eq = strchr(t, '=');
        uint64_t v;
        if (!eq || !mc_number(eq + 1, &v)) { snprintf(err, errlen, "policy: '%s' is not key=number", t); return 0; }
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
UT_FN uint8_t *mc_policy_field(ptc_mtc_policy *p, const char *key)
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
UT_FN void mc_write_json(FILE *f, const ptc_model_config *c, const uint64_t *ring_written)
{
    unsigned i;
    fprintf(f, "{\"mtc_freq\":%u,\"cpuid_0x15_eax\":%u,\"cpuid_0x15_ebx\":%u,\"nom_freq\":%u,",
            c->mtc_freq, c->cpuid_15_eax, c->cpuid_15_ebx, ptc_model_nom_freq(c));
#define MC_X(k, fld, least, most, dflt) \
    if (strcmp(k, "mtc_freq") && strcmp(k, "cpuid_0x15_eax") && strcmp(k, "cpuid_0x15_ebx")) \
        fprintf(f, "\"%s\":%llu,", k, (unsigned long long)c->fld);
    PTC_MODEL_CONFIG_FIELDS(MC_X)
#undef MC_X
#define MC_E(k, bit) fprintf(f, "\"%s\":%u,", k, (c->errata & (bit)) ? 1u : 0u);
    PTC_MODEL_ERRATA(MC_E)
#undef MC_E
    if (ring_written) fprintf(f, "\"ring_written\":%llu,", (unsigned long long)*ring_written);
    fprintf(f, "\"filters\":[");
    for (i = 0; i < c->nfilters; i++)
        fprintf(f, "%s[%llu,%llu]", i ? "," : "", (unsigned long long)c->filter_lo[i], (unsigned long long)c->filter_hi[i]);
    fprintf(f, "],\"policy\":{\"threshold\":%u,\"resume_on_value\":%u,\"resume_value\":%u,\"resume_after\":%u,"
               "\"min_burst\":%u}}\n",
            c->policy.threshold, c->policy.resume_on_value, c->policy.resume_value, c->policy.resume_after,
            c->policy.min_burst);
}

/* The keys a configuration file may have (SPEC 5.6): the plain fields,
   then those read otherwise; and the keys of its "policy" object. */
static const char *const mc_json_keys[] = {
#define MC_X(k, fld, least, most, dflt) k,
    PTC_MODEL_CONFIG_FIELDS(MC_X)
#undef MC_X
#define MC_E(k, bit) k,
    PTC_MODEL_ERRATA(MC_E)
#undef MC_E
    "nom_freq", "ring_written", "filters", "policy"
};
static const char *const mc_json_policy_keys[] = { "threshold", "resume_on_value", "resume_value", "resume_after",
                                                   "min_burst" };

/* The index of key in names[0, n), or n. */
UT_FN size_t mc_key_index(const char *const *names, size_t n, const char *key)
{
    size_t i = 0;
    while (i < n && strcmp(names[i], key) != 0) i++;
    return i;
}

/* The next key of an object whose keys are names[0, n): 1 with *index
   set, or 0 at the object's end or on an unknown or repeated key (which
   stops the reader). *seen has a bit per key already read. */
UT_FN int mc_json_key(jr_reader *r, int *first, const char *const *names, size_t n, uint64_t *seen, size_t *index)
{
    char key[64];
    const char *at;
    if (!jr_next(r, '}', first)) return 0;
    jr_peek(r);
    at = r->p;
    if (!jr_string(r, key, sizeof key) || !jr_take(r, ':', "':' after a key")) return 0;
    *index = mc_key_index(names, n, key);
    if (*index < n && !(*seen >> *index & 1)) {
        *seen |= (uint64_t)1 << *index;
        return 1;
    }
    r->p = at;
    return jr_fail(r, *index == n ? "unknown key \"%s\"" : "\"%s\" is given twice", key);
}

/* "filters": [[lo, hi], ...], at most four ranges. */
UT_FN int mc_json_filters(jr_reader *r, ptc_model_config *c)
{
    int first = 1;
    if (!jr_open(r, '[', "filters")) return 0;
    while (jr_next(r, ']', &first)) {
        int inner = 1;
        uint64_t range[2];
        unsigned k;
        if (c->nfilters == 4) return jr_fail(r, "filters has at most 4 ranges");
        if (!jr_open(r, '[', "a filter")) return 0;
        for (k = 0; k < 2; k++)
            if (!jr_next(r, ']', &inner) || !jr_u64(r, "a filter's bound", UINT64_MAX, &range[k]))
                return jr_fail(r, "a filter is [lo, hi]");
        if (jr_next(r, ']', &inner)) return jr_fail(r, "a filter is [lo, hi]");
        c->filter_lo[c->nfilters] = range[0];
        c->filter_hi[c->nfilters] = range[1];
        c->nfilters++;
    }
    return !jr_failed(r);
}

/* "policy": {"threshold": N, ...}, each from 0 to 255. */
UT_FN int mc_json_policy(jr_reader *r, ptc_mtc_policy *p)
{
    const size_t n = sizeof mc_json_policy_keys / sizeof mc_json_policy_keys[0];
    int first = 1;
    uint64_t seen = 0, v;
    size_t i;
    if (!jr_open(r, '{', "policy")) return 0;
    while (mc_json_key(r, &first, mc_json_policy_keys, n, &seen, &i) &&
           jr_u64(r, mc_json_policy_keys[i], 255, &v))
        *mc_policy_field(p, mc_json_policy_keys[i]) = (uint8_t)v;
    return !jr_failed(r);
}

/* One top-level value: the key's reader, then the field's own limit. */
UT_FN void mc_json_value(jr_reader *r, const char *key, ptc_model_config *c, uint64_t *ring_written,
                         uint64_t *nom_freq)
{
    const char *at = jr_peek(r) >= 0 ? r->p : r->end;
    char why[128];
    uint64_t v;
    if (strcmp(key, "filters") == 0) mc_json_filters(r, c);
    else if (strcmp(key, "policy") == 0) mc_json_policy(r, &c->policy);
    else if (strcmp(key, "nom_freq") == 0) jr_u64(r, key, 255, nom_freq);
    else if (strcmp(key, "ring_written") == 0) jr_u64(r, key, UINT64_MAX, ring_written);
    else if (jr_u64(r, key, mc_field_max(key), &v) && mc_set_number(c, key, v, why, sizeof why) <= 0) {
        r->p = at;
        jr_fail(r, "%s", why);
    }
}

/* After reading: what the model would refuse, and a nom_freq that is not
   the one the configuration gives (it is derived, written for decoders). */
UT_FN int mc_json_check(const ptc_model_config *c, uint64_t nom_freq, char *err, size_t errlen)
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

/* Reads a configuration as mc_write_json writes it: one JSON object, keys
   in any order, each at most once; a key left out keeps the default of
   ptc_model_config_default (no filters, the seed's policy). An unknown key,
   a value of the wrong type or out of its range, and broken JSON are
   refused with the line, column and key in err. *ring_written gets the
   file's ring_written, or UINT64_MAX when it has none (NULL: ignored). */
UT_FN int mc_read_json(const char *text, size_t n, ptc_model_config *c, uint64_t *ring_written, char *err,
                       size_t errlen)
{
    const size_t nkeys = sizeof mc_json_keys / sizeof mc_json_keys[0];
    jr_reader r;
    int first = 1;
    uint64_t seen = 0, ring = UINT64_MAX, nom_freq = UINT64_MAX;
    size_t i;
    ptc_model_config_default(c);
    jr_init(&r, text, n);
    jr_open(&r, '{', "the configuration");
    while (mc_json_key(&r, &first, mc_json_keys, nkeys, &seen, &i)) mc_json_value(&r, mc_json_keys[i], c, &ring, &nom_freq);
    if (!jr_finish(&r)) {
        snprintf(err, errlen, "%s", r.err);
        return 0;
    }
    if (ring_written) *ring_written = ring;
    return mc_json_check(c, nom_freq, err, errlen);
}

/* Reads the configuration file at path (what ptsim writes beside a trace);
   see mc_read_json. */
UT_FN int mc_read_json_file(const char *path, ptc_model_config *c, uint64_t *ring_written, char *err, size_t errlen)
{
    size_t n;
    char *text = (char *)ut_read_file(path, &n);
    int ok;
    if (!text) {
        snprintf(err, errlen, "%s", strerror(errno));
        return 0;
    }
    ok = mc_read_json(text, n, c, ring_written, err, errlen);
    free(text);
    return ok;
}

#endif
