/* clockcheck.h - which clock setting a trace contradicts (SPEC.md 3.9).

   When the clock flags items `conflict`, its timing packets do not agree
   with each other under the settings given. The trace itself measures
   most of them, so ptdump can say which one is most likely wrong:
   - the TSC:CTC ratio (CPUID.15H EBX/EAX): between two TSC+TMA pairs the
     crystal edges they name (TSC - FastCounter, at CTC) are the ratio
     apart;
   - MTCFreq: the first MTC after a TMA carries CTC bits [f+7:f] of the
     edge after the TMA's (or the one after that, when an MTC of a PSB+
     went out before its TSC was sampled);
   - nom (with CYC): between two MTCs that each have a CYC right before
     them, the cycles counted span the periods between them at nom/CBR.
   Each is measured only when the trace holds what it needs, and named
   only when the trace disagrees with the setting by more than it could
   by rounding. */
#ifndef PTCODEC_CLOCKCHECK_H
#define PTCODEC_CLOCKCHECK_H

#include "../ptcodec.h"

#include "../harness/util.h"

#include <stdio.h>
#include <string.h>

typedef struct clockcheck_witness {
    /* the first and the last TSC+TMA pair of this stream: its crystal
       edge and CTC; and of an earlier stream of the file, if longer */
    int pairs;
    uint64_t first_edge, last_edge, tsc;
    uint16_t first_ctc, last_ctc;
    int kept_pairs;
    uint64_t kept_first_edge, kept_last_edge;
    uint16_t kept_first_ctc, kept_last_ctc;
    int have_tsc;                     /* a TSC whose TMA may follow */
    /* MTCFreq: votes for each f by the first MTC after a TMA */
    int after_tma;
    uint16_t tma_ctc;
    unsigned votes[16], tmas;
    /* nom: the last MTC with a CYC right before it, and the cycles since */
    int cyc_before, mtc_exact;
    uint8_t mtc_payload, cbr;
    uint64_t cycles;                  /* CYCs since that MTC */
    uint64_t span_cycles, span_periods; /* summed over such MTC pairs at one ratio */
    uint8_t span_cbr;
    /* what the clock said */
    uint64_t timed, conflicts, mtcs;
    uint64_t width_sum, widths;       /* the bounded intervals' widths */
} clockcheck_witness;

UTIL_FN void clockcheck_init(clockcheck_witness *w) { memset(w, 0, sizeof *w); }

/* Another stream of the same recording (a perf.data's next AUX queue):
   nothing measured spans the two, the counts go on. */
UTIL_FN void clockcheck_new_stream(clockcheck_witness *w)
{
    if (w->pairs >= 2 && w->last_edge - w->first_edge > w->kept_last_edge - w->kept_first_edge) {
        w->kept_pairs = w->pairs;
        w->kept_first_edge = w->first_edge;
        w->kept_last_edge = w->last_edge;
        w->kept_first_ctc = w->first_ctc;
        w->kept_last_ctc = w->last_ctc;
    }
    w->pairs = w->have_tsc = w->after_tma = w->cyc_before = w->mtc_exact = 0;
    w->cycles = 0;
    w->cbr = 0;
}

UTIL_FN void clockcheck__tma(clockcheck_witness *w, const ptc_packet *p)
{
    uint64_t edge;
    if (!w->have_tsc || p->u.tma.fc > w->tsc) return;
    edge = w->tsc - p->u.tma.fc;
    if (!w->pairs++) {
        w->first_edge = edge;
        w->first_ctc = p->u.tma.ctc;
    }
    w->last_edge = edge;
    w->last_ctc = p->u.tma.ctc;
    w->after_tma = 1;
    w->tma_ctc = p->u.tma.ctc;
    w->tmas++;
}

/* The first MTC after a TMA votes for every f its payload fits. */
UTIL_FN void clockcheck__mtc_vote(clockcheck_witness *w, uint8_t payload)
{
    unsigned f;
    for (f = 0; f <= 8; f++) {
        unsigned next = ((unsigned)w->tma_ctc >> f) + 1;
        if (payload == (uint8_t)next || payload == (uint8_t)(next + 1)) w->votes[f]++;
    }
    w->after_tma = 0;
}

UTIL_FN void clockcheck__mtc(clockcheck_witness *w, uint8_t payload)
{
    if (w->after_tma) clockcheck__mtc_vote(w, payload);
    if (w->cyc_before && w->mtc_exact && w->cbr && w->cbr == w->span_cbr) {
        w->span_cycles += w->cycles;
        w->span_periods += (uint8_t)(payload - w->mtc_payload) ? (uint8_t)(payload - w->mtc_payload) : 256;
    }
    w->mtc_exact = w->cyc_before;
    w->span_cbr = w->cbr;
    w->mtc_payload = payload;
    w->cycles = 0;
}

/* Every decoded item, in stream order; t its time (NULL: none). */
UTIL_FN void clockcheck_item(clockcheck_witness *w, const ptc_item *it, const ptc_timed_item *t)
{
    const ptc_packet *p = &it->pkt;
    int cyc = 0;
    if (t && t->have_time) {
        w->timed++;
        w->conflicts += t->conflict != 0;
        if (t->tsc_hi != UINT64_MAX) {
            w->width_sum += t->tsc_hi - t->tsc_lo;
            w->widths++;
        }
    }
    if (it->error != PTC_OK) { /* packets lost: no span crosses it */
        w->have_tsc = w->after_tma = w->mtc_exact = 0;
        w->cyc_before = 0;
        return;
    }
    switch (p->type) {
    case PTC_TSC: w->tsc = p->u.tsc.tsc; w->have_tsc = 1; w->after_tma = 0; w->mtc_exact = 0; break;
    case PTC_TMA: clockcheck__tma(w, p); break;
    case PTC_MTC: clockcheck__mtc(w, p->u.mtc.ctc); w->mtcs++; break;
    case PTC_CYC: w->cycles += p->u.cyc.cycles; cyc = 1; break;
    case PTC_CBR: w->cbr = p->u.cbr.ratio; w->mtc_exact = 0; break;
    case PTC_OVF: w->have_tsc = w->after_tma = w->mtc_exact = 0; break;
    default: break;
    }
    if (p->type != PTC_PAD) w->cyc_before = cyc;
}

/* The crystal ticks between the first and the last TSC+TMA pair, and the
   TSC ticks: 0 when there is no such pair, or too little between them to
   measure to 1%. The TMA's CTC is 16 bits: wraps are counted with the
   configured ratio (a trace short enough to have none needs no ratio). */
UTIL_FN int clockcheck__ratio_span(const clockcheck_witness *w, const ptc_clock_config *cc, uint64_t *ctc, uint64_t *ticks)
{
    uint64_t d16, expect;
    int kept = w->kept_pairs >= 2 && (w->pairs < 2 || w->kept_last_edge - w->kept_first_edge > w->last_edge - w->first_edge);
    uint64_t first = kept ? w->kept_first_edge : w->first_edge, last = kept ? w->kept_last_edge : w->last_edge;
    uint16_t first_ctc = kept ? w->kept_first_ctc : w->first_ctc, last_ctc = kept ? w->kept_last_ctc : w->last_ctc;
    if ((kept ? w->kept_pairs : w->pairs) < 2 || last <= first) return 0;
    *ticks = last - first;
    d16 = (uint16_t)(last_ctc - first_ctc);
    expect = cc->trace.ratios.cpuid_15_ebx ? *ticks / cc->trace.ratios.cpuid_15_ebx * cc->trace.ratios.cpuid_15_eax : 0;
    *ctc = d16;
    while (*ctc + 32768 < expect) *ctc += 65536;
    return *ctc >= 100;
}

/* Writes into `out` the setting most likely wrong, with what the trace
   measures instead; 0 when the trace measures nothing that disagrees. */
UTIL_FN int clockcheck_suspect(const clockcheck_witness *w, const ptc_clock_config *cc, char *out, size_t size)
{
    uint64_t ctc, ticks;
    unsigned f, best = 0;
    if (cc->trace.ratios.cpuid_15_eax && clockcheck__ratio_span(w, cc, &ctc, &ticks)) {
        /* 1% apart: |ticks * eax - ctc * ebx| > ctc * ebx / 100 */
        double measured = (double)ticks / (double)ctc, given = (double)cc->trace.ratios.cpuid_15_ebx / (double)cc->trace.ratios.cpuid_15_eax;
        if (measured > given * 1.01 || measured < given * 0.99) {
            snprintf(out, size, "--cpuid-0x15.eax/.ebx %u/%u (%.2f TSC ticks a crystal tick; the TSCs and TMAs measure %.2f)",
                     (unsigned)cc->trace.ratios.cpuid_15_eax, (unsigned)cc->trace.ratios.cpuid_15_ebx, given, measured);
            return 1;
        }
    }
    for (f = 1; f <= 8; f++) if (w->votes[f] > w->votes[best]) best = f;
    if (w->tmas >= 2 && cc->trace.ctl.mtc_freq <= 8 && w->votes[cc->trace.ctl.mtc_freq] * 2 < w->tmas && w->votes[best] * 2 >= w->tmas) {
        snprintf(out, size, "--mtc-freq %u (the first MTC after each TMA fits %u in %u of %u)", (unsigned)cc->trace.ctl.mtc_freq, best,
                 w->votes[best], w->tmas);
        return 1;
    }
    if (cc->trace.ratios.nom_num && cc->trace.ratios.nom_den && cc->trace.ratios.cpuid_15_eax && w->span_cycles >= 1000 && w->span_cbr) {
        /* nom = ticks * CBR / cycles, the ticks those periods span */
        double ticks_span = (double)w->span_periods * (double)(1u << cc->trace.ctl.mtc_freq) * cc->trace.ratios.cpuid_15_ebx / cc->trace.ratios.cpuid_15_eax;
        double measured = ticks_span * w->span_cbr / (double)w->span_cycles;
        double given = (double)cc->trace.ratios.nom_num / (double)cc->trace.ratios.nom_den;
        if (measured > given * 1.02 + 0.5 || measured < given * 0.98 - 0.5) {
            snprintf(out, size, "--nom-freq %.1f (the cycles between MTCs measure %.2f)", given, measured);
            return 1;
        }
    }
    return 0;
}

/* The line ptdump ends a timed run with on stderr when the clock found
   conflicts, into out (NUL-terminated, cut to size); 0 when there were none. */
UTIL_FN int clockcheck_report_line(const clockcheck_witness *w, const ptc_clock_config *cc, char *out, size_t size)
{
    char why[200];
    int n;
    if (!w->conflicts || !size) return 0;
    if (!clockcheck_suspect(w, cc, why, sizeof why)) {
        if ((cc->trace.known & PTC_KNOW_POLICY) && cc->trace.policy.threshold)
            snprintf(why, sizeof why, "--policy (MTCs came later than the policy allows)");
        else
            snprintf(why, sizeof why, "the tolerances (--mtc-jitter, --rate-ppm, --mtc-lost) or the CPU's errata "
                                      "(--cpu): the ratio, MTCFreq and nom the trace measures agree with those given");
    }
    n = snprintf(out, size, "%s: --time: %llu of %llu timed items conflict: the trace's timing packets contradict the "
                            "clock settings; most likely wrong: %s",
                 util_prog, (unsigned long long)w->conflicts, (unsigned long long)w->timed, why);
    return n > 0;
}

/* An erratum that makes the clock leave a kind of packet unused says so,
   with what that costs on this trace, into out; 0 when none does. */
UTIL_FN int clockcheck_errata_line(const clockcheck_witness *w, const ptc_clock_config *cc, char *out, size_t size)
{
    if (!(cc->trace.errata & PTC_ERRATUM_SKZ84) || !cc->trace.ratios.cpuid_15_eax || !w->mtcs || !size) return 0;
    return snprintf(out, size, "%s: --time: erratum skz84 (from --cpu or --errata): the clock uses no TMA, so the %llu "
                               "MTCs of this trace time nothing but what a TSC starts; the intervals average %.1f TSC ticks",
                    util_prog, (unsigned long long)w->mtcs,
                    w->widths ? (double)w->width_sum / (double)w->widths : 0.0) > 0;
}

#endif
