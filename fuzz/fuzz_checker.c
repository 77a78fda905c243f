/* fuzz_checker: the policy checker (SPEC.md 2.2) accepts every stream the
   model writes and catches streams that break a rule.

   The input's last bytes choose the model's configuration and policy (as
   in fuzz_model), then a mutation and where to make it; the rest is the
   workload program. The model's stream must pass the checker. Then one
   MTC of the stream is changed so that, by the rules of SPEC.md 2.2, the
   stream breaks its policy at a known MTC, and the checker must report
   its first violation exactly there. "Chained" below means two MTCs with
   only timing packets between them, so that the rules relate them.

   - insert: A and B chained with k >= 1 edges between them: an MTC at
     edge A+1 is inserted before B. Those edges were suppressed, so
     suppression was due after A; A+1 is not the resume value (that would
     have made the original gap a late resume): mtc_not_suppressed at the
     new MTC.
   - drop: A, B, C chained and fewer than 255 edges between A and C: B is
     removed. If suppression was not due after A, C shows missing edges;
     if it was, B was a resume (by value: now a late resume; by count: now
     a gap longer than the counter allows): a violation at C.
   - shift: A and B chained with no edge between them: B's payload is
     moved one edge on. Suppression not due: missing_mtc; due: B passed
     only as the resume value, which is now skipped: late_resume. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_modelrun.h"

#include <string.h>

enum { MUT_INSERT, MUT_DROP, MUT_SHIFT, MUT_COUNT };
enum { MAX_MTC = 1 << 14 };

typedef struct mtc_at {
    size_t off;    /* byte offset of the MTC */
    uint8_t ctc;   /* payload */
    int chained;   /* the previous MTC is chained to this one */
} mtc_at;

/* The checker over a whole byte stream: the offset of the first violation
   (UINT64_MAX for none) and its kind. */
static uint64_t first_violation(const ptc_mtc_policy *pol, const uint8_t *b, size_t n, ptc_violation *kind)
{
    ptc_checker chk;
    ptc_decoder dec;
    ptc_item it;
    ptc_checker_init(&chk, pol);
    ptc_decoder_init_buffer(&dec, 0, b, n);
    while (ptc_decoder_next(&dec, &it) == PTC_OK) {
        FZ_ASSERT(it.error == PTC_OK, "stream does not decode: %s at %llu", ptc_status_name(it.error),
                  (unsigned long long)it.offset);
        *kind = ptc_checker_packet(&chk, &it.pkt);
        if (*kind != PTC_VIOL_NONE) return it.offset;
    }
    return UINT64_MAX;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static mtc_at mtc[MAX_MTC];
    fz_input in;
    ptc_model_config cfg;
    mr_trace rec;
    ptc_decoder dec;
    ptc_item it;
    ptc_violation kind = PTC_VIOL_NONE;
    uint8_t *mut;
    static size_t cand[MAX_MTC];
    size_t nm = 0, nc = 0, i, b, len;
    uint64_t expect_at, got;
    int chain_open = 0;
    unsigned what, pick;
    if (size > 4096) return 0;
    in.data = data;
    in.size = size;
    fz_model_config(&in, &cfg);
    cfg.mtc_lost = 0; /* lost MTCs (an erratum) break the policy on purpose: not here */
    cfg.skd007 = 0;   /* and a cut CYC decodes as two CYCs without the erratum's decoder flag, */
    cfg.skz84 = 0;    /* a corrupt TMA as a reserved error and a bogus packet */
    what = fz_take(&in, 0, MUT_COUNT - 1);
    pick = fz_take(&in, 0, 0xFFFF);
    fz_model_run(&cfg, in.data, in.size, &rec);

    got = first_violation(&cfg.policy, rec.bytes, rec.len, &kind);
    FZ_ASSERT(got == UINT64_MAX, "the model's own stream breaks its policy: %s at %llu", ptc_violation_name(kind),
              (unsigned long long)got);

    /* the MTCs, and which are chained to the one before */
    ptc_decoder_init_buffer(&dec, 0, rec.bytes, rec.len);
    while (ptc_decoder_next(&dec, &it) == PTC_OK && nm < MAX_MTC) {
        if (it.pkt.type != PTC_MTC) {
            if (!(it.pkt.type == PTC_CYC || it.pkt.type == PTC_TSC || it.pkt.type == PTC_TMA || it.pkt.type == PTC_PAD))
                chain_open = 0;
            continue;
        }
        mtc[nm].off = (size_t)it.offset;
        mtc[nm].ctc = it.pkt.u.mtc.ctc;
        mtc[nm].chained = chain_open;
        chain_open = 1;
        nm++;
    }
    /* candidates: the index of B */
    for (i = 1; i < nm; i++) {
        unsigned gap = (uint8_t)(mtc[i].ctc - mtc[i - 1].ctc);
        if (!mtc[i].chained) continue;
        if (gap == 0) gap = 256;
        if (what == MUT_INSERT && gap >= 2) cand[nc++] = i;
        if (what == MUT_SHIFT && gap == 1) cand[nc++] = i;
        if (what == MUT_DROP && i + 1 < nm && mtc[i + 1].chained) {
            unsigned gap2 = (uint8_t)(mtc[i + 1].ctc - mtc[i].ctc);
            if (gap2 == 0) gap2 = 256;
            if (gap + gap2 < 256) cand[nc++] = i;
        }
    }
    if (!nc) { mr_free(&rec); return 0; }
    b = cand[pick % nc];

    mut = (uint8_t *)malloc(rec.len + 2);
    FZ_ASSERT(mut != NULL, "out of memory");
    switch (what) {
    case MUT_INSERT: /* the missing edge A+1 as an MTC just before B */
        memcpy(mut, rec.bytes, mtc[b].off);
        mut[mtc[b].off] = 0x59;
        mut[mtc[b].off + 1] = (uint8_t)(mtc[b - 1].ctc + 1);
        memcpy(mut + mtc[b].off + 2, rec.bytes + mtc[b].off, rec.len - mtc[b].off);
        len = rec.len + 2;
        expect_at = mtc[b].off;
        break;
    case MUT_DROP: /* B's two bytes removed; C moves back by two */
        memcpy(mut, rec.bytes, mtc[b].off);
        memcpy(mut + mtc[b].off, rec.bytes + mtc[b].off + 2, rec.len - mtc[b].off - 2);
        len = rec.len - 2;
        expect_at = mtc[b + 1].off - 2;
        break;
    default: /* MUT_SHIFT */
        memcpy(mut, rec.bytes, rec.len);
        mut[mtc[b].off + 1] = (uint8_t)(mtc[b].ctc + 1);
        len = rec.len;
        expect_at = mtc[b].off;
        break;
    }
    got = first_violation(&cfg.policy, mut, len, &kind);
    FZ_ASSERT(got == expect_at, "mutation %u of the MTC at %zu: first violation at %lld (%s), expected at %llu",
              what, mtc[b].off, got == UINT64_MAX ? -1LL : (long long)got, ptc_violation_name(kind),
              (unsigned long long)expect_at);
    FZ_ASSERT(what != MUT_INSERT || kind == PTC_VIOL_NOT_SUPPRESSED, "inserted edge reported as %s",
              ptc_violation_name(kind));
    free(mut);
    mr_free(&rec);
    return 0;
}
