/* fuzz_libipt22_time: libipt 2.2's decoders with time - the query decoder
   and the event decoder - held to the true time of the packets of a stream
   ptcodec's model writes: the worked example of harness/ptdiff.h's time
   comparison (fuzz/README.md, "Fuzzing your decoder"). Built from
   ../shared/reference/libipt-2.2.tar.gz with the fuzzer's instrumentation
   and ASan+UBSan (make fuzz-libipt22).

   The input is a model program, as fuzz_clock's: the configuration and the
   suppression policy from its last bytes (fuzz_modelrun.h), the rest the
   workload, played by ptdiff.h's ptdiff_model_run. libipt is told what Linux perf records of such a
   trace (mtc_freq, the CPUID 0x15 ratio, nom rounded as the MSR holds it)
   and nothing about suppression or errata; the model writes neither
   SKD007's cut CYCs nor SKZ84's corrupt TMAs, which libipt would have to
   be told of. Each decoder's times are tied to their packets as
   bench/timecmp.c ties the query decoder's (harness/libipt_times.h).

   Oracles, for each decoder: the sanitizers; it answers at most a few
   times per byte (a hang otherwise); every time it gives belongs to a
   packet of the stream (else the mapping, ours, is wrong); and no time
   goes back unless news came first (ptdiff.h's ptdiff_time_news: a TSC, TMA,
   MTC, CYC, CBR, OVF or PSB at or after the packet of the time before it).
   libipt corrects its estimate from CYCs at the next MTC, and may go back
   then: 34 of the 3 564 inputs of fuzz_clock's and fuzz_events' corpora
   do so in the query decoder, all after news. No tolerance holds its
   error: told nothing of MTC suppression, it is off by up to millions of
   ticks by design (bench/timecmp.c, SPEC 3.10), so ptdiff_compare_times gets
   UINT64_MAX and the errors are counted, not judged. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include <intel-pt.h>
#include "fuzz_modelrun.h"
#include "../harness/ptdiff.h"
#include "../harness/libipt_times.h"

#include <stdlib.h>
#include <string.h>

/* libipt's decoders as ptdiff.h's timed decoders: open() runs one to the
   end and keeps its times, next() hands them out. */
typedef struct lx22_timed {
    ptc_item *items;
    ptdiff_time *times;
    size_t n, ntimes, next;
    libipt_times_walk walk;
} lx22_timed;

static void lx22_time(void *user, size_t k, uint64_t tsc)
{
    lx22_timed *s = (lx22_timed *)user;
    if (k == SIZE_MAX || s->ntimes == s->n) return; /* (an answer with no packet of its own) */
    s->times[s->ntimes].offset = s->items[k].offset;
    s->times[s->ntimes].tsc = tsc;
    s->ntimes++;
}

/* What perf records of the clocks, and hands libipt. */
static void lx22_clocks(struct pt_config *cfg, const ptc_clock_config *cc)
{
    cfg->mtc_freq = cc->trace.ctl.mtc_freq;
    cfg->nom_freq = (uint8_t)(cc->trace.ratios.nom_den ? (cc->trace.ratios.nom_num + cc->trace.ratios.nom_den / 2) / cc->trace.ratios.nom_den : 0);
    cfg->cpuid_0x15_eax = cc->trace.ratios.cpuid_15_eax;
    cfg->cpuid_0x15_ebx = cc->trace.ratios.cpuid_15_ebx;
}

typedef int (*lx22_walker)(const struct pt_config *, const ptc_item *, size_t, size_t, libipt_times_time_fn, void *, libipt_times_walk *);

static void *lx22_open_with(lx22_walker walk, const char *what, const uint8_t *buf, size_t len, const ptc_clock_config *cc)
{
    lx22_timed *s = (lx22_timed *)calloc(1, sizeof *s);
    ptc_decoder dec;
    struct pt_config cfg;
    size_t max_answers = 8 * len + 1000; /* (six branches a byte at most, one answer a packet otherwise) */
    FUZZ_ASSERT(s != NULL, "out of memory");
    s->items = (ptc_item *)malloc((len + 1) * sizeof *s->items);
    s->times = (ptdiff_time *)malloc((len + 1) * sizeof *s->times);
    FUZZ_ASSERT(s->items && s->times, "out of memory");
    ptc_decoder_init_buffer(&dec, 0, buf, len);
    while (s->n < len && ptc_decoder_next(&dec, &s->items[s->n]) == PTC_OK) s->n++;
    pt_config_init(&cfg);
    cfg.begin = (uint8_t *)(uintptr_t)buf;
    cfg.end = (uint8_t *)(uintptr_t)buf + len;
    lx22_clocks(&cfg, cc);
    FUZZ_ASSERT(walk(&cfg, s->items, s->n, max_answers, lx22_time, s, &s->walk), "libipt's %s would not start", what);
    FUZZ_ASSERT(s->walk.answers < max_answers, "the %s answered %zu times on %zu bytes", what, s->walk.answers, len);
    return s;
}

static void *lx22_query_open(const uint8_t *buf, size_t len, const ptc_clock_config *cc)
{
    return lx22_open_with(libipt_times_query_times, "query decoder", buf, len, cc);
}

static void *lx22_event_open(const uint8_t *buf, size_t len, const ptc_clock_config *cc)
{
    return lx22_open_with(libipt_times_event_times, "event decoder", buf, len, cc);
}

static int lx22_next(void *self, ptdiff_time *t)
{
    lx22_timed *s = (lx22_timed *)self;
    if (s->next == s->ntimes) return 0;
    *t = s->times[s->next++];
    return 1;
}

static void lx22_close(void *self)
{
    lx22_timed *s = (lx22_timed *)self;
    free(s->items);
    free(s->times);
    free(s);
}

static const ptdiff_timed_decoder lx22_timed_decoders[] = {
    { "libipt 2.2's query decoder", lx22_query_open, lx22_next, lx22_close },
    { "libipt 2.2's event decoder", lx22_event_open, lx22_next, lx22_close },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t stream[1 << 20];
    static ptdiff_time truth[1 << 17];
    ptdiff_model_stream s = { stream, sizeof stream, 0, truth, sizeof truth / sizeof truth[0], 0, 0 };
    fuzz_input in = { data, size };
    ptc_model_config cfg;
    ptc_clock_config cc;
    ptc_status st;
    size_t i;
    ptdiff_time_result res;
    char why[400];
    if (size > 4096) return 0;
    fuzz_model_config(&in, &cfg);
    cfg.trace.errata &= ~(uint32_t)(PTC_ERRATUM_SKD007 | PTC_ERRATUM_SKZ84); /* (libipt would have to be told) */
    st = ptdiff_model_run(&cfg, in.data, in.size, 300000, &s);
    FUZZ_ASSERT(st == PTC_OK, "the model refused its configuration: %s", ptc_status_name(st));
    FUZZ_ASSERT(!s.cut, "the stream outgrew %zu bytes or %zu packets", s.cap, s.truth_cap);
    if (s.len == 0) return 0;
    ptc_clock_config_from_model(&cc, &cfg);
    for (i = 0; i < sizeof lx22_timed_decoders / sizeof lx22_timed_decoders[0]; i++) {
        const ptdiff_timed_decoder *dec = &lx22_timed_decoders[i];
        FUZZ_ASSERT(ptdiff_compare_times(dec, s.bytes, s.len, &cc, s.truth, s.ntruth, UINT64_MAX, &res), "%s refused", dec->name);
        ptdiff_describe_times(dec, &res, why, sizeof why);
        FUZZ_ASSERT(res.stray == 0 && res.back == 0, "%s", why);
    }
    return 0;
}
