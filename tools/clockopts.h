/* clockopts.h - the clock's settings as ptdump and ptnav take them on the
   command line (SPEC.md 1.10, 4.4): libipt's names for the trace's
   configuration (--mtc-freq, --nom-freq, --cpuid-0x15.eax, .ebx), the
   CYC threshold and the cycle counter's width, the real-clock tolerances, and the recording
   CPU (--cpu F/M[/S]) or its errata by name. They apply over what the
   trace's own configuration says. */
#ifndef PTCODEC_CLOCKOPTS_H
#define PTCODEC_CLOCKOPTS_H

#include "../ptcodec.h"

#include "../harness/util.h"

/* " skl168 skz84 ...": every erratum's name */
#define CLOCKOPT_ERRATUM_NAME_(e, bit, name, what) " " name
#define CLOCKOPT_ERRATA_NAMES PTC_ERRATA_LIST(CLOCKOPT_ERRATUM_NAME_)

/* The numeric options, their flags and largest values (indices: CLOCKOPT_*). */
enum { CLOCKOPT_MTC_FREQ, CLOCKOPT_NOM_FREQ, CLOCKOPT_EAX, CLOCKOPT_EBX, CLOCKOPT_CYC_THRESH, CLOCKOPT_CYC_BITS, CLOCKOPT_MTC_JITTER, CLOCKOPT_RATE_PPM, CLOCKOPT_MTC_LOST,
       CLOCKOPT_NUMS };
static const struct { const char *name; uint64_t max; } clockopt_nums[CLOCKOPT_NUMS] = {
    { "--mtc-freq", 15 }, { "--nom-freq", 255 }, { "--cpuid-0x15.eax", 0xFFFFFFFFu },
    { "--cpuid-0x15.ebx", 0xFFFFFFFFu }, { "--cyc-thresh", 15 }, { "--cyc-bits", 64 }, { "--mtc-jitter", 255 },
    { "--rate-ppm", 999999 }, { "--mtc-lost", 255 }
};

typedef struct clock_options {
    uint64_t numv[CLOCKOPT_NUMS];
    int numset[CLOCKOPT_NUMS];
    uint32_t errata;
    int cpu_known;      /* --cpu F/M or --errata: errata holds all the CPU has */
    int policy_unknown; /* ptdump --policy unknown */
} clock_options;

/* --cpu FAMILY/MODEL[/STEPPING] -> the errata that CPU has. */
UTIL_FN int clockopt_parse_cpu(const char *text, uint32_t *errata)
{
    uint64_t v[3] = { 0, 0, 0 };
    size_t k = 0;
    const char *p = text;
    while (k < 3) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (!util_parse_u64_n(p, n, 255, &v[k])) break;
        k++;
        if (!slash) break;
        p = slash + 1;
        if (k == 3) k = 4; /* a fourth part */
    }
    if (k < 2 || k > 3) {
        fprintf(stderr, "%s: --cpu: '%s' is not FAMILY/MODEL[/STEPPING]\n", util_prog, text);
        return 0;
    }
    *errata |= ptc_errata_for_cpu((unsigned)v[0], (unsigned)v[1], (unsigned)v[2]);
    return 1;
}

/* --errata NAME,NAME,... */
UTIL_FN int clockopt_parse_errata(const char *text, uint32_t *errata)
{
    char name[32];
    while (*text) {
        size_t n = strcspn(text, ",");
        uint32_t e = 0;
        if (n < sizeof name) {
            memcpy(name, text, n);
            name[n] = 0;
            e = ptc_erratum_from_name(name);
        }
        if (!e) {
            fprintf(stderr, "%s: --errata: unknown erratum '%.*s' (known:" CLOCKOPT_ERRATA_NAMES ")\n", util_prog, (int)n, text);
            return 0;
        }
        *errata |= e;
        text += n + (text[n] == ',');
    }
    return 1;
}

/* Takes argv[*i] if it is one of these options (and its value, moving *i
   on): 1; 0 when it is not one (--cpu N, a queue, is the tool's); -1 when
   it is but its value is wrong, having said so. */
UTIL_FN int clockopt_take(clock_options *o, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    size_t k;
    for (k = 0; k < CLOCKOPT_NUMS && strcmp(a, clockopt_nums[k].name) != 0; k++) {}
    if (k == CLOCKOPT_NUMS && strcmp(a, "--errata") != 0 && (strcmp(a, "--cpu") != 0 || *i + 1 >= argc || !strchr(argv[*i + 1], '/')))
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n", util_prog, a);
        return -1;
    }
    ++*i;
    if (k < CLOCKOPT_NUMS) {
        if (!util_parse_u64(clockopt_nums[k].name, argv[*i], clockopt_nums[k].max, &o->numv[k])) return -1;
        if (k == CLOCKOPT_CYC_BITS && o->numv[k] == 0) { /* (the library reads 0 as 64: a user means no such thing) */
            fprintf(stderr, "%s: --cyc-bits: the cycle counter is 1 to 64 bits wide, got 0\n", util_prog);
            return -1;
        }
        o->numset[k] = 1;
        return 1;
    }
    if (!(a[2] == 'c' ? clockopt_parse_cpu(argv[*i], &o->errata) : clockopt_parse_errata(argv[*i], &o->errata))) return -1;
    o->cpu_known = 1;
    return 1;
}

/* Whether the trace's clock settings were given (else only TSCs time it). */
UTIL_FN int clockopt_has_clock(const clock_options *o)
{
    return o->numset[CLOCKOPT_MTC_FREQ] || o->numset[CLOCKOPT_NOM_FREQ] || o->numset[CLOCKOPT_EAX] || o->numset[CLOCKOPT_EBX];
}

UTIL_FN void clockopt_apply(ptc_clock_config *cc, const clock_options *o)
{
    if (o->numset[CLOCKOPT_MTC_FREQ]) {
        cc->trace.ctl.mtc_freq = (uint8_t)o->numv[CLOCKOPT_MTC_FREQ];
        cc->trace.known |= PTC_KNOW_MTC_FREQ;
    }
    if (o->numset[CLOCKOPT_NOM_FREQ]) {
        cc->trace.ratios.nom_num = o->numv[CLOCKOPT_NOM_FREQ];
        cc->trace.ratios.nom_den = 1;
        cc->trace.ratios.nom_exact = 0;
    }
    if (o->numset[CLOCKOPT_EAX]) cc->trace.ratios.cpuid_15_eax = (uint32_t)o->numv[CLOCKOPT_EAX];
    if (o->numset[CLOCKOPT_EBX]) cc->trace.ratios.cpuid_15_ebx = (uint32_t)o->numv[CLOCKOPT_EBX];
    if (o->numset[CLOCKOPT_CYC_THRESH]) {
        cc->trace.ctl.cyc_en = 1;
        cc->trace.ctl.cyc_thresh = (uint8_t)o->numv[CLOCKOPT_CYC_THRESH];
        cc->trace.known |= PTC_KNOW_CYC_EN | PTC_KNOW_CYC_THRESH;
    }
    if (o->numset[CLOCKOPT_CYC_BITS]) cc->trace.cyc_bits = (uint8_t)o->numv[CLOCKOPT_CYC_BITS];
    if (o->numset[CLOCKOPT_MTC_JITTER]) cc->real.mtc_jitter = (uint8_t)o->numv[CLOCKOPT_MTC_JITTER];
    if (o->numset[CLOCKOPT_RATE_PPM]) cc->real.rate_ppm = (uint32_t)o->numv[CLOCKOPT_RATE_PPM];
    if (o->numset[CLOCKOPT_MTC_LOST]) cc->real.mtc_lost = (uint8_t)o->numv[CLOCKOPT_MTC_LOST];
    if (o->policy_unknown) cc->trace.known &= ~(uint32_t)PTC_KNOW_POLICY;
    cc->trace.errata |= o->errata;
}

#endif
