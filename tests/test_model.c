/* Parts 5 and 2: the hardware model, MTC suppression and the policy checker. */
#define _POSIX_C_SOURCE 200809L
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "testlib.h"
#include "../harness/pktgen.h"
#include "../tools/modelcfg.h"
#include "../tools/workloads.h"
#include "../harness/modelrec.h"

#include <string.h>

__extension__ typedef unsigned __int128 u128;

/* ---- capture: everything a model run produces (harness/modelrec.h) ------ */

typedef modelrec_trace cap;

static int run_workload(const ptc_model_config *cfg, int wi, uint64_t cycles, uint64_t seed, cap *c, ptc_model *m)
{
    ptc_model_sink s = modelrec_start(c, 0);
    if (ptc_model_init(m, cfg, &s) != PTC_OK) return 0;
    workload_run_workload(wi, m, cycles, seed);
    return 1;
}

static int run_scenario(const char *text, cap *c, ptc_model *m)
{
    ptc_model_config base;
    ptc_model_sink s = modelrec_start(c, 0);
    workload_scenario sc;
    ptc_model_config_default(&base);
    if (!workload_run_scenario(text, &base, &s, m, &sc)) {
        CHECK(0, "scenario: %s", sc.error);
        return 0;
    }
    return 1;
}

static int same_time(const ptc_exact_tsc *a, const ptc_exact_tsc *b)
{
    return a->tsc == b->tsc && (u128)a->num * b->den == (u128)b->num * a->den;
}

/* ---- 5.1 clocks ---------------------------------------------------------- */

/* The exact TSC computed independently: ART advances art_hz/(ratio*1e8)
   per cycle; track it as a fraction with a growing common denominator. */
typedef struct ref_clock { u128 num, den; } ref_clock; /* ART = num/den */

static void ref_add_cycles(ref_clock *r, uint64_t cycles, uint32_t art_hz, unsigned ratio)
{
    u128 d = (u128)ratio * 100000000u, n = (u128)cycles * art_hz;
    /* r + n/d */
    r->num = r->num * d + n * r->den;
    r->den = r->den * d;
    { /* reduce */
        u128 a = r->num, b = r->den;
        while (b) { u128 t = a % b; a = b; b = t; }
        if (a > 1) { r->num /= a; r->den /= a; }
    }
}

static void check_tsc(const ptc_model *m, const ref_clock *r, uint64_t art0, const char *what)
{
    /* TSC = K + (art0 + num/den) * ebx / eax */
    ptc_exact_tsc t = ptc_model_now(m);
    u128 eax = m->cfg.trace.ratios.cpuid_15_eax, ebx = m->cfg.trace.ratios.cpuid_15_ebx;
    u128 tn = ((u128)art0 * r->den + r->num) * ebx, td = r->den * eax;
    u128 want_int = m->cfg.tsc_offset + tn / td, want_frac_num = tn % td;
    CHECK(t.tsc == (uint64_t)want_int, "%s: tsc %llu, want %llu", what, (unsigned long long)t.tsc,
          (unsigned long long)want_int);
    CHECK(t.num < t.den && (u128)t.num * td == want_frac_num * t.den, "%s: fraction %llu/%llu", what,
          (unsigned long long)t.num, (unsigned long long)t.den);
}

static void clocks_are_exact(void)
{
    static const struct { uint32_t art, eax, ebx; } clocks[] = {
        { 24000000, 2, 200 }, { 25000000, 3, 250 }, { 19200000, 7, 625 }, { 38400000, 1, 50 }, { 100000000, 1, 1 }
    };
    static const uint8_t ratios[] = { 30, 7, 36, 13, 24, 1, 255 };
    size_t c, i;
    for (c = 0; c < sizeof clocks / sizeof clocks[0]; c++) {
        ptc_model_config cfg;
        ptc_model m;
        ref_clock r;
        pktgen_rng rng = pktgen_seed(c + 1);
        unsigned ratio;
        char what[64];
        ptc_model_config_default(&cfg);
        cfg.art_hz = clocks[c].art;
        cfg.trace.ratios.cpuid_15_eax = clocks[c].eax;
        cfg.trace.ratios.cpuid_15_ebx = clocks[c].ebx;
        cfg.art_start = 12345;
        CHECK(ptc_model_init(&m, &cfg, NULL) == PTC_OK, "clock %zu: %s", c, ptc_model_error_field(&m));
        r.num = 0;
        r.den = 1;
        ratio = cfg.core_ratio;
        for (i = 0; i < 200; i++) {
            uint64_t n = pktgen_range(&rng, 0, i % 7 == 0 ? UINT64_C(1) << 34 : 5000);
            ptc_model_idle(&m, n);
            ref_add_cycles(&r, n, cfg.art_hz, ratio);
            snprintf(what, sizeof what, "clock %zu step %zu", c, i);
            check_tsc(&m, &r, cfg.art_start, what);
            if (i % 20 == 19) {
                uint8_t nr = ratios[(i / 20) % sizeof ratios];
                CHECK(ptc_model_set_ratio(&m, 0, nr) == PTC_OK, "%s: ratio %u", what, nr);
                ratio = nr;
            }
        }
    }
}

static void no_drift_over_long_runs(void)
{
    ptc_model_config cfg;
    ptc_model m;
    ref_clock r;
    int i;
    ptc_model_config_default(&cfg);
    cfg.trace.ratios.cpuid_15_eax = 3;
    cfg.trace.ratios.cpuid_15_ebx = 250; /* a TSC:ART ratio that does not divide evenly */
    cfg.core_ratio = 37;
    CHECK(ptc_model_init(&m, &cfg, NULL) == PTC_OK);
    r.num = 0;
    r.den = 1;
    for (i = 0; i < 1000; i++) { /* 10^15 cycles: days of run time */
        ptc_model_idle(&m, UINT64_C(1000000000000));
        ref_add_cycles(&r, UINT64_C(1000000000000), cfg.art_hz, 37);
    }
    check_tsc(&m, &r, 0, "after 10^15 cycles");
    CHECK(m.cycle == UINT64_C(1000000000000000));
}

static void fast_counter_and_mtc_payloads_match_the_clock(void)
{
    ptc_model_config cfg;
    ptc_model m;
    cap c;
    size_t i, n_tma = 0, n_mtc = 0;
    ptc_model_config_default(&cfg);
    cfg.trace.ratios.cpuid_15_eax = 3;
    cfg.trace.ratios.cpuid_15_ebx = 301;
    cfg.trace.ctl.mtc_freq = 0;
    cfg.trace.ctl.psb_freq = 0;
    CHECK(run_workload(&cfg, 5 /* dvfs: TSC+TMA at every ratio change */, 4000000, 3, &c, &m));
    for (i = 0; i < c.nt; i++) {
        const ptc_truth *t = &c.t[i];
        if (t->fate != PTC_FATE_EMITTED) continue;
        if (t->pkt.type == PTC_MTC) {
            n_mtc++;
            CHECK(t->pkt.u.mtc.ctc == (uint8_t)(t->art >> cfg.trace.ctl.mtc_freq) && (t->art & ((1u << cfg.trace.ctl.mtc_freq) - 1)) == 0,
                  "MTC %u at ART %llu", t->pkt.u.mtc.ctc, (unsigned long long)t->art);
        }
        if (t->pkt.type == PTC_TSC) {
            CHECK(t->pkt.u.tsc.tsc == (t->time.tsc & ((UINT64_C(1) << 56) - 1)), "TSC packet is not the true TSC");
        }
        if (t->pkt.type == PTC_TMA) {
            /* TSC - FC is the TSC at the last ART edge: K + floor(ART * ebx / eax) */
            u128 edge = cfg.tsc_offset + (u128)t->art * cfg.trace.ratios.cpuid_15_ebx / cfg.trace.ratios.cpuid_15_eax;
            n_tma++;
            CHECK(t->pkt.u.tma.ctc == (uint16_t)t->art, "TMA CTC");
            CHECK(t->time.tsc - t->pkt.u.tma.fc == (uint64_t)edge, "TSC - FC = %llu, edge %llu",
                  (unsigned long long)(t->time.tsc - t->pkt.u.tma.fc), (unsigned long long)edge);
        }
    }
    CHECK(n_tma > 10 && n_mtc > 1000, "%zu TMAs, %zu MTCs", n_tma, n_mtc);
    modelrec_free(&c);
}

/* ---- 5.1 real clocks: MTCs out 0..mtc_jitter cycles after their edges ------- */

/* The ART tick of each emitted MTC's edge is known from its payload; the
   cycle it went out, from its truth. With jitter J, the delay from the
   edge is 0..J cycles, and not always 0. */
static void mtc_jitter_delays_mtcs_within_its_bound(void)
{
    ptc_model_config cfg;
    ptc_model m;
    cap c;
    char err[200];
    size_t i, mtcs = 0, late = 0;
    uint64_t per_cycle_num, per_cycle_den;
    ptc_model_config_default(&cfg);
    CHECK(modelcfg_set_list(&cfg, "mtc_freq=0,mtc_jitter=20,jitter_seed=77", err, sizeof err), "%s", err);
    CHECK(run_workload(&cfg, 0, 400000, 5, &c, &m));
    /* ART ticks per core cycle: art_hz / (ratio * 1e8) */
    per_cycle_num = cfg.art_hz;
    per_cycle_den = (uint64_t)cfg.core_ratio * 100000000u;
    for (i = 0; i < c.nt; i++) {
        const ptc_truth *t = &c.t[i];
        uint64_t edge_art, edge_cycle;
        if (t->pkt.type != PTC_MTC || t->fate != PTC_FATE_EMITTED) continue;
        /* the latest ART tick at or before t->art whose low 8 bits are the payload */
        edge_art = t->art - (uint8_t)(t->art - t->pkt.u.mtc.ctc);
        /* the first cycle by whose end the ART had reached it (art_start is 0) */
        edge_cycle = (edge_art * per_cycle_den + per_cycle_num - 1) / per_cycle_num;
        CHECK(t->cycle >= edge_cycle && t->cycle - edge_cycle <= 21, "MTC %02x at cycle %llu, edge at %llu",
              t->pkt.u.mtc.ctc, (unsigned long long)t->cycle, (unsigned long long)edge_cycle);
        mtcs++;
        late += t->cycle > edge_cycle + 1;
    }
    CHECK(mtcs > 1000 && late > mtcs / 4, "%zu MTCs, %zu late", mtcs, late);
    modelrec_free(&c);
}

/* With mtc_lost N, some MTCs the policy lets out are lost: the truth
   records them as dropped, never more than N in a row, and each edge has
   one MTC record (emitted, suppressed or dropped) in ART order. */
static void mtc_lost_drops_at_most_n_in_a_row(void)
{
    ptc_model_config cfg;
    ptc_model m;
    cap c;
    char err[200];
    size_t i, emitted = 0, lost = 0, run = 0, longest = 0;
    uint64_t last_edge = 0;
    int have_edge = 0;
    ptc_model_config_default(&cfg);
    CHECK(modelcfg_set_list(&cfg, "mtc_freq=0,mtc_lost=2,jitter_seed=9", err, sizeof err), "%s", err);
    memset(&cfg.trace.policy, 0, sizeof cfg.trace.policy); /* every MTC due: each one may be lost */
    CHECK(run_workload(&cfg, 0, 400000, 5, &c, &m));
    for (i = 0; i < c.nt; i++) {
        const ptc_truth *t = &c.t[i];
        uint64_t edge;
        if (t->pkt.type != PTC_MTC) continue;
        edge = t->art - (uint8_t)(t->art - t->pkt.u.mtc.ctc);
        CHECK(!have_edge || edge == last_edge + 1, "MTC edge %llu after %llu", (unsigned long long)edge,
              (unsigned long long)last_edge);
        have_edge = 1;
        last_edge = edge;
        if (t->fate == PTC_FATE_DROPPED) {
            lost++;
            if (++run > longest) longest = run;
        } else {
            CHECK(t->fate == PTC_FATE_EMITTED, "MTC suppressed with the policy off");
            emitted++;
            run = 0;
        }
    }
    CHECK(longest <= 2 && longest >= 1 && lost > emitted / 10 && lost < emitted / 2, "%zu lost of %zu, %zu in a row",
          lost, lost + emitted, longest);
    modelrec_free(&c);
}

/* With psb_early_tsc every PSB+ whose MTC edge was near carries that MTC
   ahead of its TSC and TMA, sampled in the cycle before the edge: the
   TMA's CTC is one short of the MTC's edge, the TSC below the MTC's true
   time; and the TSC still goes out at the edge (its truth). Without the
   setting no PSB+ holds an MTC. */
static void psb_early_tsc_writes_the_skylake_order(void)
{
    static const char *settings[] = { "mtc_freq=0,psb_early_tsc=255", "mtc_freq=0" };
    size_t k;
    for (k = 0; k < 2; k++) {
        ptc_model_config cfg;
        ptc_model m;
        cap c;
        char err[200];
        size_t i, psbs = 0, early = 0;
        int in_psb = 0;
        const ptc_truth *mtc = NULL;
        ptc_model_config_default(&cfg);
        CHECK(modelcfg_set_list(&cfg, settings[k], err, sizeof err), "%s", err);
        CHECK(run_workload(&cfg, 0, 2000000, 3, &c, &m));
        for (i = 0; i < c.nt; i++) {
            const ptc_truth *t = &c.t[i];
            if (t->fate != PTC_FATE_EMITTED) continue;
            if (t->pkt.type == PTC_PSB) { in_psb = 1; psbs++; mtc = NULL; }
            if (t->pkt.type == PTC_PSBEND) in_psb = 0;
            if (!in_psb) continue;
            if (t->pkt.type == PTC_MTC) mtc = t;
            if (t->pkt.type == PTC_TSC && mtc) {
                early++;
                CHECK(t->pkt.u.tsc.tsc < mtc->time.tsc || (t->pkt.u.tsc.tsc == mtc->time.tsc && mtc->time.num),
                      "TSC %llx not before its MTC's edge %llx", (unsigned long long)t->pkt.u.tsc.tsc,
                      (unsigned long long)mtc->time.tsc);
                CHECK(same_time(&t->time, &mtc->time), "the TSC went out with its MTC");
            }
            if (t->pkt.type == PTC_TMA && mtc)
                CHECK((uint16_t)(t->pkt.u.tma.ctc + 1) == (uint16_t)(mtc->art & 0xFFFF), "TMA CTC %x, MTC edge %llx",
                      t->pkt.u.tma.ctc, (unsigned long long)mtc->art);
        }
        if (k == 0) CHECK(psbs > 20 && early > psbs / 2, "%zu of %zu PSB+ with an MTC ahead of the TSC", early, psbs);
        else CHECK(early == 0, "%zu PSB+ with an MTC without the setting", early);
        modelrec_free(&c);
    }
}

/* ---- 5.2 fast-forward equals stepping every cycle ----------------------------- */

static int captures_equal(const cap *a, const cap *b, char *why, size_t wlen)
{
    size_t i;
    if (a->len != b->len || memcmp(a->bytes, b->bytes, a->len) != 0) {
        snprintf(why, wlen, "streams differ (%zu vs %zu bytes)", a->len, b->len);
        return 0;
    }
    if (a->nt != b->nt) { snprintf(why, wlen, "%zu vs %zu packet records", a->nt, b->nt); return 0; }
    for (i = 0; i < a->nt; i++) {
        const ptc_truth *x = &a->t[i], *y = &b->t[i];
        if (!ptc_packet_equal(&x->pkt, &y->pkt) || x->offset != y->offset || x->cycle != y->cycle ||
            x->art != y->art || x->fate != y->fate || !same_time(&x->time, &y->time)) {
            snprintf(why, wlen, "packet record %zu (%s at cycle %llu vs %llu) differs", i,
                     ptc_packet_type_name(x->pkt.type), (unsigned long long)x->cycle, (unsigned long long)y->cycle);
            return 0;
        }
    }
    if (a->nev != b->nev) { snprintf(why, wlen, "%zu vs %zu events", a->nev, b->nev); return 0; }
    for (i = 0; i < a->nev; i++)
        if (a->ev[i].cycle != b->ev[i].cycle || a->ev[i].offset != b->ev[i].offset ||
            a->ev[i].traced != b->ev[i].traced || !same_time(&a->ev[i].time, &b->ev[i].time)) {
            snprintf(why, wlen, "event %zu differs", i);
            return 0;
        }
    return 1;
}

static void fast_forward_equals_single_step(void)
{
    static const char *settings[] = {
        "", "cyc_en=1,cyc_thresh=0", "cyc_en=1,cyc_thresh=3,cyc_bits=6", "mtc_freq=0,cyc_en=1,cyc_thresh=1",
        "mtc_freq=9,psb_freq=1", "fifo_bytes=256,drain_bytes=1,drain_cycles=4,cyc_en=1,cyc_bits=5",
        "long_tnt=1,cyc_en=1,cyc_thresh=5,core_ratio=13,cpuid_0x15_eax=3,cpuid_0x15_ebx=250",
        "mtc_jitter=9,jitter_seed=3,cyc_en=1,cyc_thresh=0", "mtc_jitter=40,jitter_seed=11,mtc_freq=0",
        "mtc_lost=3,mtc_jitter=6,jitter_seed=21,mtc_freq=0,cyc_en=1,cyc_thresh=2",
        "rate_ppm=100000,mtc_freq=0,cyc_en=1,cyc_thresh=0", "rate_ppm=3000,core_ratio=13,cpuid_0x15_eax=3,cpuid_0x15_ebx=250",
        "psb_early_tsc=255,mtc_freq=0,cyc_en=1,cyc_thresh=0,mtc_jitter=3,jitter_seed=5", "psb_early_tsc=60,rate_ppm=20000,mtc_lost=1",
        "skl168=1,cyc_en=1,cyc_thresh=1,psb_freq=0,mtc_jitter=2",
        "skd007=1,fifo_bytes=128,drain_bytes=1,drain_cycles=8,cyc_en=1,cyc_thresh=0,jitter_seed=4"
    };
    static const char *policies[] = { "off", "seed", "threshold=3,resume_value=0", "threshold=1,resume_after=7,min_burst=3" };
    int wi;
    size_t s, p;
    for (wi = 0; wi < WORKLOAD_COUNT; wi++)
        for (s = 0; s < sizeof settings / sizeof settings[0]; s++)
            for (p = 0; p < sizeof policies / sizeof policies[0]; p += 1 + (wi + s) % 2) {
                ptc_model_config cfg;
                ptc_model m1, m2;
                cap c1, c2;
                char err[200], why[200];
                if ((wi + s + p / 2) % TESTLIB_GRID_STRIDE) continue;
                ptc_model_config_default(&cfg);
                workload_configure(wi, &cfg);
                CHECK(modelcfg_policy(&cfg.trace.policy, policies[p], err, sizeof err));
                if (*settings[s]) CHECK(modelcfg_set_list(&cfg, settings[s], err, sizeof err), "%s", err);
                CHECK(run_workload(&cfg, wi, 400000, s + 10 * p, &c1, &m1));
                cfg.reference_stepping = 1;
                CHECK(run_workload(&cfg, wi, 400000, s + 10 * p, &c2, &m2));
                CHECK(c1.nt > 10, "%s: nothing generated", workload_names[wi]);
                CHECK(captures_equal(&c1, &c2, why, sizeof why), "%s [%s] policy %s: %s", workload_names[wi], settings[s],
                      policies[p], why);
                modelrec_free(&c1);
                modelrec_free(&c2);
            }
}

/* Erratum SKZ84 (skz84, SPEC 5.1): only TMAs written in a VMX guest go out
   corrupt, about half of them; each has its reserved byte set and one
   bogus byte after it, and decodes with PTC_DECODE_SKZ84 as a corrupt_tma
   error that the next packet follows. Fast-forward writes the same. */
static void skz84_corrupts_tmas_in_a_guest(void)
{
    static const char *settings[] = { "skz84=1,psb_freq=0,jitter_seed=5",
                                      "skz84=1,psb_freq=0,cyc_en=1,cyc_thresh=0,fifo_bytes=512,drain_bytes=1,drain_cycles=5" };
    size_t s, corrupt = 0, whole = 0;
    for (s = 0; s < sizeof settings / sizeof settings[0]; s++) {
        ptc_model_config cfg;
        ptc_model m1, m2;
        ptc_model_sink k1, k2;
        cap c1, c2;
        char err[200], why[200];
        ptc_decoder dec;
        ptc_item it;
        size_t i = 0;
        ptc_model_config_default(&cfg);
        CHECK(modelcfg_set_list(&cfg, settings[s], err, sizeof err), "%s", err);
        k1 = modelrec_start(&c1, 1);
        k2 = modelrec_start(&c2, 1);
        CHECK(ptc_model_init(&m1, &cfg, &k1) == PTC_OK);
        workload_run_in_guest(&m1, 6000000, s + 1);
        cfg.reference_stepping = 1;
        CHECK(ptc_model_init(&m2, &cfg, &k2) == PTC_OK);
        workload_run_in_guest(&m2, 6000000, s + 1);
        CHECK(captures_equal(&c1, &c2, why, sizeof why), "[%s]: %s", settings[s], why);
        ptc_decoder_init_buffer(&dec, modelrec_decode_flags(&cfg), c1.bytes, c1.len);
        while (ptc_decoder_next(&dec, &it) == PTC_OK && i < c1.nt) {
            const ptc_truth *t = &c1.t[i++];
            CHECK(modelrec_item_is(t, &it), "[%s]: item at %llu (%s) is not the model's %s", settings[s],
                  (unsigned long long)it.offset, ptc_status_name(it.error), ptc_packet_type_name(t->pkt.type));
            if (t->pkt.type == PTC_TMA) whole += t->fate == PTC_FATE_EMITTED;
            if (t->fate != PTC_FATE_CORRUPT) continue;
            corrupt++;
            CHECK(t->pkt.type == PTC_TMA && c1.bytes[t->offset] == PTC_OP_EXT && c1.bytes[t->offset + 1] == PTC_EXT_TMA &&
                      c1.bytes[t->offset + 4] != 0,
                  "[%s]: the corrupt packet at %llu is no TMA with its reserved byte set", settings[s],
                  (unsigned long long)t->offset);
            CHECK(i == c1.nt || c1.t[i].offset == t->offset + 8, "[%s]: no bogus byte after the TMA at %llu",
                  settings[s], (unsigned long long)t->offset);
        }
        CHECK(i == c1.nt && ptc_decoder_next(&dec, &it) == PTC_END, "[%s]: %zu of %zu packets decoded", settings[s], i,
              c1.nt);
        modelrec_free(&c1);
        modelrec_free(&c2);
        /* out of a guest, no TMA is touched */
        k1 = modelrec_start(&c1, 1);
        CHECK(ptc_model_init(&m1, &cfg, &k1) == PTC_OK);
        workload_run_workload(0, &m1, 3000000, 1);
        for (i = 0; i < c1.nt; i++)
            CHECK(c1.t[i].fate != PTC_FATE_CORRUPT, "[%s]: a corrupt TMA outside a guest", settings[s]);
        modelrec_free(&c1);
    }
    CHECK(corrupt > 10 && whole > 10, "%zu corrupt and %zu whole TMAs", corrupt, whole);
    printf("# erratum SKZ84: %zu TMAs corrupt, %zu whole, in runs mostly in a guest\n", corrupt, whole);
}

/* ---- 2.1 the seed's FIG. 5A-5F as scenarios ------------------------------------- */

/* The packets of a run as a compact string: M emitted MTC, s suppressed
   MTC, N a non-timing packet (PSB+ and the start left out). */
static void timeline(const cap *c, char *out, size_t cap_)
{
    size_t i, n = 0;
    int started = 0;
    for (i = 0; i < c->nt && n + 2 < cap_; i++) {
        const ptc_truth *t = &c->t[i];
        char ch;
        if (t->pkt.type == PTC_TIP_PGE) { started = 1; continue; }
        if (!started) continue;
        if (t->pkt.type == PTC_MTC) ch = t->fate == PTC_FATE_SUPPRESSED ? 's' : 'M';
        else if (!ptc_packet_is_ntp(t->pkt.type)) continue;
        else ch = 'N';
        out[n++] = ch;
    }
    out[n] = 0;
}

static void fig5(const char *name, const char *scenario, const char *want)
{
    cap c;
    ptc_model m;
    char got[1024];
    if (!run_scenario(scenario, &c, &m)) return;
    timeline(&c, got, sizeof got);
    CHECK(strcmp(got, want) == 0, "%s:\n    got  %s\n    want %s", name, got, want);
    modelrec_free(&c);
}

static void seed_fig5_timelines(void)
{
    char want[1024], scen[512];
    int i;
    /* 5A: non-timing packets keep coming: nothing is suppressed */
    fig5("5A", "policy threshold=2\nstart 0x401000\n"
               "idle-mtc 1\nindirect 0x401000 0x402000\nidle-mtc 1\nindirect 0x402000 0x401000\n"
               "idle-mtc 1\nindirect 0x401000 0x402000\nidle-mtc 1\nstop\n",
         "MNMNMNMN");
    /* 5B: threshold 2: two MTCs with nothing between, then suppression */
    fig5("5B", "policy threshold=2\nstart 0x401000\nidle-mtc 6\nstop\n", "MMssssN");
    /* 5C: a non-timing packet resumes MTCs */
    fig5("5C", "policy threshold=2\nstart 0x401000\nidle-mtc 4\nindirect 0x401000 0x402000\nidle-mtc 3\nstop\n",
         "MMssNMMsN");
    /* 5D: resume after 255 suppressed, then suppress again after two */
    strcpy(want, "MM");
    for (i = 0; i < 255; i++) strcat(want, "s");
    strcat(want, "MMssN");
    fig5("5D", "policy threshold=2,resume_after=255\nstart 0x401000\nidle-mtc 261\nstop\n", want);
    /* 5E: threshold 3 */
    fig5("5E", "policy threshold=3,resume_after=255\nstart 0x401000\nidle-mtc 5\nstop\n", "MMMssN");
    /* 5F: resume whenever the payload is 0, no counter; then three more
       (threshold 3) before suppressing again. ART starts so that the first
       MTC has payload 250 (mtc_freq 3). */
    snprintf(scen, sizeof scen, "set art_start=%u\npolicy threshold=3,resume_after=0,resume_value=0\n"
             "start 0x401000\nidle-mtc 12\nstop\n", 249u << 3);
    fig5("5F", scen, "MMMsssMMMsssN"); /* 250 251 252 | 253 254 255 | 0 1 2 | 3 4 5 */
}

/* ---- 5.2 CYC ------------------------------------------------------------ */

/* Every CYC carries the cycles since the previous one (or since TraceEn);
   the counter wraps only during an overflow. A CYC cut by erratum SKD007
   counted them too (the truth has its whole count), and its first byte is
   in the stream. */
static void cyc_values_sum_to_true_cycles(void)
{
    static const char *settings[] = { "cyc_en=1,cyc_thresh=0", "cyc_en=1,cyc_thresh=4", "cyc_en=1,cyc_thresh=9,cyc_bits=8",
                                      "cyc_en=1,cyc_thresh=2,fifo_bytes=200,drain_bytes=1,drain_cycles=6,cyc_bits=10",
                                      "cyc_en=1,cyc_thresh=0,fifo_bytes=128,drain_bytes=1,drain_cycles=8,skd007=1" };
    size_t cut = 0;
    int wi;
    size_t s;
    for (wi = 0; wi < WORKLOAD_COUNT; wi++)
        for (s = 0; s < sizeof settings / sizeof settings[0]; s++) {
            ptc_model_config cfg;
            ptc_model m;
            cap c;
            char err[200];
            size_t i, n = 0;
            uint64_t last = 0;
            int overflowed = 0;
            ptc_model_config_default(&cfg);
            workload_configure(wi, &cfg);
            CHECK(modelcfg_set_list(&cfg, settings[s], err, sizeof err), "%s", err);
            CHECK(run_workload(&cfg, wi, 1500000, 7, &c, &m));
            for (i = 0; i < c.nt; i++) {
                const ptc_truth *t = &c.t[i];
                if (t->fate == PTC_FATE_DROPPED) overflowed = 1;
                if (t->fate == PTC_FATE_DROPPED && t->pkt.type == PTC_CYC) last = t->cycle; /* it counted them, then was lost */
                if (!modelrec_in_stream(t) || t->pkt.type != PTC_CYC) continue;
                n++;
                if (t->fate == PTC_FATE_CUT) {
                    uint8_t whole[PTC_MAX_PACKET_SIZE];
                    size_t w = 0;
                    cut++;
                    CHECK(ptc_encode_packet(&t->pkt, whole, sizeof whole, &w) == PTC_OK && w > 1 &&
                              c.bytes[t->offset] == whole[0] && c.bytes[t->offset + 1] == PTC_OP_EXT &&
                              c.bytes[t->offset + 2] == PTC_EXT_OVF,
                          "%s: the cut CYC at %llu is not its first byte and an OVF", workload_names[wi],
                          (unsigned long long)t->offset);
                }
                if (overflowed)
                    CHECK(t->pkt.u.cyc.cycles == ((t->cycle - last) & ((UINT64_C(1) << cfg.trace.cyc_bits) - 1)),
                          "%s [%s]: CYC after overflow at %llu", workload_names[wi], settings[s], (unsigned long long)t->offset);
                else
                    CHECK(t->pkt.u.cyc.cycles == t->cycle - last, "%s [%s]: CYC %llu at cycle %llu, last at %llu",
                          workload_names[wi], settings[s], (unsigned long long)t->pkt.u.cyc.cycles,
                          (unsigned long long)t->cycle, (unsigned long long)last);
                CHECK(t->pkt.u.cyc.cycles >= 1 && t->pkt.u.cyc.cycles < (UINT64_C(1) << cfg.trace.cyc_bits), "CYC range");
                last = t->cycle;
                overflowed = 0;
            }
            CHECK(n > 10, "%s [%s]: %zu CYCs", workload_names[wi], settings[s], n);
            modelrec_free(&c);
        }
    CHECK(cut > 20, "skd007 cut %zu CYCs", cut);
}

/* With threshold 0 every eligible packet is preceded by a CYC unless a CYC
   was already sent in the same cycle; and the first branch of a TNT gets
   its CYC when it retires. */
static void cyc_precedes_eligible_packets(void)
{
    ptc_model_config cfg;
    ptc_model m;
    cap c;
    size_t i, checked = 0;
    uint64_t last_cyc_cycle = UINT64_MAX;
    ptc_model_config_default(&cfg);
    cfg.trace.ctl.cyc_en = 1;
    cfg.trace.ctl.cyc_thresh = 0;
    CHECK(run_workload(&cfg, 0, 300000, 1, &c, &m));
    for (i = 0; i < c.nt; i++) {
        const ptc_truth *t = &c.t[i];
        if (t->fate != PTC_FATE_EMITTED) continue;
        if (t->pkt.type == PTC_CYC) { last_cyc_cycle = t->cycle; continue; }
        if (ptc_packet_is_cyc_eligible(t->pkt.type)) {
            CHECK(last_cyc_cycle == t->cycle || t->cycle == 0, "%s at cycle %llu without a CYC",
                  ptc_packet_type_name(t->pkt.type), (unsigned long long)t->cycle);
            checked++;
        }
    }
    CHECK(checked > 1000);
    modelrec_free(&c);
}

/* ---- 5.2 PSB+ and stream structure ------------------------------------------ */

static void psb_every_period(void)
{
    ptc_model_config cfg;
    ptc_model m;
    cap c;
    size_t i, npsb = 0;
    uint64_t last = 0, period;
    ptc_model_config_default(&cfg);
    cfg.trace.ctl.psb_freq = 1;
    cfg.trace.ctl.cyc_en = 1;
    period = UINT64_C(2048) << cfg.trace.ctl.psb_freq;
    CHECK(run_workload(&cfg, 0, 2000000, 2, &c, &m));
    for (i = 0; i < c.nt; i++) {
        const ptc_truth *t = &c.t[i];
        if (t->fate != PTC_FATE_EMITTED || t->pkt.type != PTC_PSB) continue;
        if (npsb++) CHECK(t->offset - last >= period && t->offset - last < period + 200, "PSB gap %llu",
                          (unsigned long long)(t->offset - last));
        last = t->offset;
    }
    CHECK(npsb > 20, "%zu PSBs", npsb);
    modelrec_free(&c);
}

/* ---- 5.3: every workload under every policy: valid streams, truth lines up ---- */

static void decode_all(const cap *c, ptc_item **items, size_t *n)
{
    ptc_decoder d;
    ptc_item it;
    size_t capn = 0;
    *items = NULL;
    *n = 0;
    ptc_decoder_init_buffer(&d, 0, c->bytes, c->len);
    while (ptc_decoder_next(&d, &it) == PTC_OK) modelrec_push((void **)items, n, &capn, &it, sizeof it);
}

/* The control-flow packets of a scenario after its start, as text: TNT
   bits ("TNT:1101", oldest first), TIPs, FUPs and TIP.PGE/PGD with their
   IPs ("TIP:401005"; "PGD:-" when suppressed), MODE.TSX ("TSX:in", "out",
   "abort"), PIP ("PIP:CR3/NR") and VMCS. */
static void flow_text(const char *scenario, char *out, size_t cap_)
{
    cap c;
    ptc_model m;
    ptc_item *items;
    size_t n, i, len = 0;
    int started = 0;
    out[0] = 0;
    if (!run_scenario(scenario, &c, &m)) return;
    decode_all(&c, &items, &n);
    for (i = 0; i < n && len + 40 < cap_; i++) {
        const ptc_item *it = &items[i];
        const char *name = NULL;
        switch (it->pkt.type) {
        case PTC_TIP: name = "TIP"; break;
        case PTC_FUP: name = "FUP"; break;
        case PTC_TIP_PGE: name = "PGE"; break;
        case PTC_TIP_PGD: name = "PGD"; break;
        case PTC_MODE_TSX:
            len += (size_t)snprintf(out + len, cap_ - len, " TSX:%s",
                                    it->pkt.u.mode_tsx.abrt ? "abort" : it->pkt.u.mode_tsx.intx ? "in" : "out");
            continue;
        case PTC_PIP:
            if (started)
                len += (size_t)snprintf(out + len, cap_ - len, " PIP:%llx/%u", (unsigned long long)it->pkt.u.pip.cr3,
                                        it->pkt.u.pip.nr);
            continue;
        case PTC_VMCS:
            if (started) len += (size_t)snprintf(out + len, cap_ - len, " VMCS:%llx", (unsigned long long)it->pkt.u.vmcs.base);
            continue;
        case PTC_TNT8: case PTC_TNT64: {
            unsigned b;
            len += (size_t)snprintf(out + len, cap_ - len, " TNT:");
            for (b = it->pkt.u.tnt.count; b-- > 0;) out[len++] = (char)('0' + ((it->pkt.u.tnt.bits >> b) & 1));
            out[len] = 0;
            continue;
        }
        default: continue;
        }
        if (it->pkt.type == PTC_TIP_PGE) started = 1;
        if (!started || (it->pkt.type == PTC_FUP && !it->ip_known)) continue;
        if (it->ip_known) len += (size_t)snprintf(out + len, cap_ - len, " %s:%llx", name, (unsigned long long)it->ip);
        else len += (size_t)snprintf(out + len, cap_ - len, " %s:-", name);
    }
    free(items);
    modelrec_free(&c);
}

static void flow_is(const char *name, const char *scenario, const char *want)
{
    char got[2048];
    flow_text(scenario, got, sizeof got);
    CHECK(strcmp(got, want) == 0, "%s:\n    got  '%s'\n    want '%s'", name, got, want);
}

/* TSX (SDM 36.2.8.1, Table 36-27): MODE.TSX and a FUP with the XBEGIN's or
   XEND's IP; an abort's MODE.TSX, FUP where it happened, TIP to the
   fallback; MODE.TSX in a PSB+ inside a transaction. VMX: VMCS at VMPTRLD,
   PIP with NR at a VM entry before its TIP (or TIP.PGD when the guest is
   not traced), FUP, PIP and TIP (or TIP.PGE) at a VM exit. */
static void tsx_and_vmx_packets(void)
{
    ptc_model_config cfg;
    ptc_model m;
    cap c;
    flow_is("a committed transaction", "start 0x1000\ntsx-begin 0x1000\ntsx-commit 0x1010\nstop\n",
            " PGE:1000 TSX:in FUP:1000 TSX:out FUP:1010 PGD:-");
    flow_is("an aborted one", "start 0x1000\ntsx-begin 0x1000\ntsx-abort 0x1017 0x1040\nstop\n",
            " PGE:1000 TSX:in FUP:1000 TSX:abort FUP:1017 TIP:1040 PGD:-");
    flow_is("an abort out of the filter", "set filter=0x1000-0x1030\nstart 0x1000\ntsx-begin 0x1000\n"
            "tsx-abort 0x1017 0x1040\nstop\n", " PGE:1000 TSX:in FUP:1000 TSX:abort FUP:1017 PGD:1040");
    flow_is("a PSB+ inside a transaction restates it",
            "set psb_freq=0\nstart 0x1000\ntsx-begin 0x1000\nidle-mtc 1100\ntsx-commit 0x1010\nstop\n",
            " PGE:1000 TSX:in FUP:1000 TSX:in FUP:1000 TSX:out FUP:1010 PGD:-");
    flow_is("a traced guest", "set os=1\nstart 0x1000\nvmptrld 0x1000 0x3000\nvmentry 0x1008 0x2000 0x7000\n"
            "vmexit 0x2001 0x1010 0x5000\nstop\n",
            " PGE:1000 VMCS:3000 PIP:7000/1 TIP:2000 FUP:2001 PIP:5000/0 TIP:1010 PGD:-");
    flow_is("a guest not traced", "set os=1\nstart 0x1000\nvmptrld 0x1000 0x3000\nvmentry 0x1008 0x2000 0x7000 untraced\n"
            "idle 100\nvmexit 0x2001 0x1010 0x5000\nstop\n",
            " PGE:1000 VMCS:3000 PIP:7000/1 PGD:2000 PIP:5000/0 PGE:1010 PGD:-");
    /* what cannot happen is refused, and nothing is written for it */
    ptc_model_config_default(&cfg);
    {
        ptc_model_sink sink = modelrec_start(&c, 0);
        CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
    }
    ptc_model_start(&m, 0x1000);
    CHECK(ptc_model_tsx(&m, PTC_TSX_COMMIT, 0x1000, 0) == PTC_ERR_BAD_STATE);
    CHECK(ptc_model_tsx(&m, (ptc_tsx_event)9, 0x1000, 0) == PTC_ERR_RANGE);
    CHECK(ptc_model_vm_entry(&m, 0x1000, 0x2000, 0x7000, 1) == PTC_ERR_BAD_STATE, "no VMCS loaded");
    CHECK(ptc_model_vm_exit(&m, 0x1000, 0x2000, 0x7000) == PTC_ERR_BAD_STATE, "not in a guest");
    CHECK(ptc_model_vmptrld(&m, 0x1000, 0x3001) == PTC_ERR_RANGE, "unaligned VMCS");
    CHECK(ptc_model_tsx(&m, PTC_TSX_BEGIN, 0x1000, 0) == PTC_OK);
    CHECK(ptc_model_tsx(&m, PTC_TSX_BEGIN, 0x1000, 0) == PTC_ERR_BAD_STATE, "nested");
    modelrec_free(&c);
}

/* RET compression (SDM 36.4.2.2): a RET to the next IP of the newest CALL
   traced since the last PSB is a taken TNT bit; anything else a TIP. */
static void ret_compression_follows_the_sdm(void)
{
    char scen[8192];
    size_t len;
    int i;
    flow_is("a matching RET is one taken bit",
            "start 0x1000\ncall 0x1000 0x2000 0x1005\nret 0x2000 0x1005\nstop\n", " PGE:1000 TNT:1 PGD:-");
    flow_is("DisRETC: a TIP", "set dis_retc=1\nstart 0x1000\ncall 0x1000 0x2000 0x1005\nret 0x2000 0x1005\nstop\n",
            " PGE:1000 TIP:1005 PGD:-");
    flow_is("an indirect CALL is a TIP, and its RET compressed",
            "start 0x1000\nicall 0x1000 0x2000 0x1003\nret 0x2000 0x1003\nstop\n", " PGE:1000 TIP:2000 TNT:1 PGD:-");
    flow_is("a RET elsewhere is a TIP and takes its CALL off the stack all the same",
            "start 0x1000\ncall 0x1000 0x2000 0x1005\ncall 0x2000 0x2100 0x2005\nret 0x2100 0x3000\n"
            "ret 0x3000 0x2005\nret 0x2005 0x1005\nstop\n",
 " PGE:1000 TIP:3000 TIP:2005 TIP:1005 PGD:-");
    flow_is("a zero-length CALL is not remembered",
            "start 0x1000\ncall 0x1000 0x1005 0x1005\nret 0x1005 0x1005\nstop\n", " PGE:1000 TIP:1005 PGD:-");
    flow_is("RETs and branches share a TNT, oldest first",
            "start 0x1000\ncall 0x1000 0x2000 0x1005\nbranch 0x2000 0x2010 not\nret 0x2010 0x1005\n"
            "branch 0x1005 0x1000 taken\nstop\n", " PGE:1000 TNT:011 PGD:-");
    flow_is("a CALL that leaves the filter is not remembered",
            "set filter=0x1000-0x1800\nstart 0x1000\ncall 0x1000 0x2000 0x1005\nret 0x2000 0x1005\nstop\n",
            " PGE:1000 PGD:2000 PGE:1005 PGD:-");
    flow_is("a signal into the kernel: FUP and TIP.PGD, back with TIP.PGE",
            "start 0x1000\ninterrupt 0x1010 0xffffffff81000000 0\nprivilege 0xffffffff81000100 0x5000 3\nstop\n",
            " PGE:1000 FUP:1010 PGD:- PGE:5000 PGD:-");
    /* 65 nested CALLs: the stack keeps the newest 64, so the outermost RET
       is a TIP */
    len = (size_t)snprintf(scen, sizeof scen, "start 0x1000\n");
    for (i = 0; i < 65; i++)
        len += (size_t)snprintf(scen + len, sizeof scen - len, "call 0x%x 0x%x 0x%x\n", 0x1000 + i * 16, 0x1010 + i * 16,
                                0x1005 + i * 16);
    for (i = 64; i >= 0; i--)
        len += (size_t)snprintf(scen + len, sizeof scen - len, "ret 0x%x 0x%x\n", 0x9000 + i, 0x1005 + i * 16);
    snprintf(scen + len, sizeof scen - len, "stop\n");
    {
        char got[2048], want[2048];
        size_t w = (size_t)snprintf(want, sizeof want, " PGE:1000");
        for (i = 0; i < 10; i++) w += (size_t)snprintf(want + w, sizeof want - w, " TNT:111111");
        snprintf(want + w, sizeof want - w, " TNT:1111 TIP:1005 PGD:-");
        flow_text(scen, got, sizeof got);
        CHECK(strcmp(got, want) == 0, "65 CALLs:\n    got  '%s'\n    want '%s'", got, want);
    }
    /* a PSB between a CALL and its RET: the RET is a TIP */
    flow_is("no RET compressed against a CALL before the last PSB",
            "set psb_freq=0\nstart 0x1000\ncall 0x1000 0x2000 0x1005\nidle-mtc 1100\nret 0x2000 0x1005\nstop\n",
            " PGE:1000 FUP:2000 TIP:1005 PGD:-"); /* the FUP: PSB+ at 0x2000 */
}

static void every_workload_and_policy(void)
{
    static const char *policies[] = { "off", "seed", "threshold=3,resume_value=0,resume_after=0",
                                      "threshold=1,resume_after=10,min_burst=4", "threshold=5,resume_value=128,resume_after=200" };
    int wi;
    size_t p;
    for (wi = 0; wi < WORKLOAD_COUNT; wi++)
        for (p = 0; p < sizeof policies / sizeof policies[0]; p++) {
            ptc_model_config cfg;
            ptc_model m;
            cap c;
            ptc_item *items;
            size_t n, i, k = 0, errors = 0, viol = 0;
            ptc_checker chk;
            char err[200];
            ptc_model_config_default(&cfg);
            workload_configure(wi, &cfg);
            cfg.trace.ctl.cyc_en = (uint8_t)(p & 1);
            CHECK(modelcfg_policy(&cfg.trace.policy, policies[p], err, sizeof err), "%s", err);
            CHECK(run_workload(&cfg, wi, 3000000, p + 1, &c, &m), "%s: %s", workload_names[wi], ptc_model_error_field(&m));
            decode_all(&c, &items, &n);
            ptc_checker_init(&chk, &cfg.trace.policy);
            for (i = 0; i < n; i++) {
                int v;
                if (items[i].error != PTC_OK) { errors++; continue; }
                v = ptc_checker_packet(&chk, &items[i].pkt);
                if (v != PTC_RULE_NONE && viol++ < 3)
                    CHECK(0, "%s/%s: %s at %llu", workload_names[wi], policies[p], ptc_rule_name((ptc_rule)v),
                          (unsigned long long)items[i].offset);
            }
            CHECK(errors == 0, "%s/%s: %zu decode errors", workload_names[wi], policies[p], errors);
            /* every emitted packet of the truth is the decoded item at its offset */
            for (i = 0; i < c.nt; i++) {
                if (c.t[i].fate != PTC_FATE_EMITTED) continue;
                if (k >= n || items[k].offset != c.t[i].offset || !ptc_packet_equal(&items[k].pkt, &c.t[i].pkt)) {
                    CHECK(0, "%s/%s: truth record %zu (%s at %llu) is not decoded item %zu", workload_names[wi], policies[p], i,
                          ptc_packet_type_name(c.t[i].pkt.type), (unsigned long long)c.t[i].offset, k);
                    break;
                }
                k++;
            }
            CHECK(k == n, "%s/%s: %zu items, %zu emitted in the truth", workload_names[wi], policies[p], n, k);
            free(items);
            modelrec_free(&c);
        }
}

/* The decoder's reconstructed IPs are the targets the workload jumped to:
   IP compression in the model and decompression in the decoder agree. */
static void decoded_ips_are_the_workload_targets(void)
{
    ptc_model_config cfg;
    ptc_model m;
    cap c;
    ptc_item *items;
    size_t n, i, k = 0, compared = 0;
    ptc_model_config_default(&cfg);
    cfg.trace.ctl.psb_freq = 0;
    CHECK(run_workload(&cfg, 0, 2000000, 5, &c, &m));
    decode_all(&c, &items, &n);
    for (i = 0; i < c.nev; i++) {
        const ptc_event_truth *e = &c.ev[i];
        /* the events whose last packet is a TIP to their target */
        if ((e->kind != PTC_EV_INDIRECT && e->kind != PTC_EV_INTERRUPT && e->kind != PTC_EV_MODE) || !e->traced) continue;
        while (k < n && items[k].pkt.type != PTC_TIP) k++;
        if (k == n) break;
        CHECK(items[k].ip_known && items[k].ip == e->target, "TIP %zu: decoded %llx, jumped to %llx", compared,
              (unsigned long long)items[k].ip, (unsigned long long)e->target);
        k++;
        compared++;
    }
    CHECK(compared > 1000, "%zu TIPs", compared);
    free(items);
    modelrec_free(&c);
}

/* IPs whose upper bits are not a sign extension (non-canonical, as a
   simulator may feed): the model compresses them with IPBytes 100b (upper
   16 bits shared with the last IP) or 110b (full), and they decode back. */
static void non_canonical_ips_round_trip(void)
{
    static const uint64_t targets[] = {
        UINT64_C(0x8000000000001000), UINT64_C(0x8000123400000000), /* 100b: same top 16 bits */
        UINT64_C(0x1234000000002000),                                /* 110b: full */
        UINT64_C(0x0000000000401000)
    };
    ptc_model_config cfg;
    ptc_model m;
    cap c;
    ptc_model_sink sink = modelrec_start(&c, 0);
    ptc_item *items;
    size_t n, i, k = 0, t;
    int seen48 = 0, seenfull = 0;
    ptc_model_config_default(&cfg);
    CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
    ptc_model_start(&m, 0x401000);
    for (t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        ptc_model_idle(&m, 100);
        ptc_model_jump(&m, t ? targets[t - 1] : 0x401000, targets[t], 1);
    }
    ptc_model_stop(&m);
    decode_all(&c, &items, &n);
    for (t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        while (k < n && items[k].pkt.type != PTC_TIP) k++;
        CHECK(k < n, "TIP %zu missing", t);
        if (k == n) break;
        CHECK(items[k].ip_known && items[k].ip == targets[t], "TIP %zu: %llx, jumped to %llx", t,
              (unsigned long long)items[k].ip, (unsigned long long)targets[t]);
        seen48 |= items[k].pkt.u.ip.ipc == PTC_IPC_UPDATE_48;
        seenfull |= items[k].pkt.u.ip.ipc == PTC_IPC_FULL;
        k++;
    }
    CHECK(seen48 && seenfull, "IPBytes 100b %d, 110b %d", seen48, seenfull);
    for (i = 0; i < n; i++) CHECK(items[i].error == PTC_OK);
    free(items);
    modelrec_free(&c);
}

/* The TSC:core ratio the model reports is tsc_hz / (ratio * 100 MHz) in
   lowest terms, and follows ratio changes. */
static void tsc_per_cycle_is_exact(void)
{
    ptc_model_config cfg;
    ptc_model m;
    cap c;
    ptc_model_sink sink = modelrec_start(&c, 0);
    uint64_t num, den;
    ptc_model_config_default(&cfg);
    cfg.art_hz = 25000000;
    cfg.trace.ratios.cpuid_15_eax = 3;
    cfg.trace.ratios.cpuid_15_ebx = 250;
    cfg.core_ratio = 36;
    CHECK(ptc_model_init(&m, &cfg, &sink) == PTC_OK);
    ptc_model_start(&m, 0x401000);
    /* TSC = 25 MHz * 250 / 3; core = 3.6 GHz: 6250/10800 = 125/216 */
    ptc_model_tsc_per_cycle(&m, &num, &den);
    CHECK(num == 125 && den == 216, "%llu/%llu", (unsigned long long)num, (unsigned long long)den);
    ptc_model_set_ratio(&m, 0x401000, 20); /* 2 GHz: 6250/6000 = 25/24 */
    ptc_model_tsc_per_cycle(&m, &num, &den);
    CHECK(num == 25 && den == 24, "%llu/%llu", (unsigned long long)num, (unsigned long long)den);
    ptc_model_stop(&m);
    modelrec_free(&c);
}

/* Gaps between MTCs never exceed what the 8-bit payload recovers: at most
   255 suppressed in a row, so consecutive emitted MTCs are at most 256
   periods apart (SPEC 2.1). */
static void suppressed_runs_are_recoverable(void)
{
    static const char *policies[] = { "seed", "threshold=3,resume_value=0,resume_after=0", "threshold=1,resume_after=255" };
    size_t p;
    for (p = 0; p < 3; p++) {
        ptc_model_config cfg;
        ptc_model m;
        cap c;
        char err[100];
        size_t i;
        unsigned run = 0, longest = 0;
        ptc_model_config_default(&cfg);
        workload_configure(2, &cfg);
        CHECK(modelcfg_policy(&cfg.trace.policy, policies[p], err, sizeof err));
        CHECK(run_workload(&cfg, 2, 20000000, 9, &c, &m));
        for (i = 0; i < c.nt; i++) {
            if (c.t[i].pkt.type != PTC_MTC) continue;
            if (c.t[i].fate == PTC_FATE_SUPPRESSED) { run++; if (run > longest) longest = run; }
            else run = 0;
        }
        CHECK(longest <= 255 && longest >= 200, "%s: longest suppressed run %u", policies[p], longest);
        modelrec_free(&c);
    }
}

/* ---- 2.2 the checker catches streams that break the policy ----------------------- */

static int check_seq(const char *policy, const char *seq)
{
    /* seq: hex MTC payloads and 'N' for a non-timing packet, space separated */
    ptc_mtc_policy pol;
    ptc_checker c;
    char err[100];
    const char *p = seq;
    int worst = PTC_RULE_NONE;
    modelcfg_policy(&pol, policy, err, sizeof err);
    ptc_checker_init(&c, &pol);
    while (*p) {
        ptc_packet pkt;
        unsigned v;
        int used;
        memset(&pkt, 0, sizeof pkt);
        while (*p == ' ') p++;
        if (!*p) break;
        if (*p == 'N') { pkt.type = PTC_TIP; p++; }
        else if (sscanf(p, "%x%n", &v, &used) == 1) { pkt.type = PTC_MTC; pkt.u.mtc.ctc = (uint8_t)v; p += used; }
        else break;
        {
            int x = ptc_checker_packet(&c, &pkt);
            if (x != PTC_RULE_NONE && worst == PTC_RULE_NONE) worst = x;
        }
    }
    return worst;
}

static void checker_catches_violations(void)
{
    CHECK(check_seq("seed", "1 2 N 3 4") == PTC_RULE_NONE);
    CHECK(check_seq("seed", "1 2 5 6") == PTC_RULE_EARLY_RESUME, "resumed without a reason");
    CHECK(check_seq("seed", "1 3") == PTC_RULE_MISSING_MTC, "a gap before the threshold");
    CHECK(check_seq("off", "1 2 3 5") == PTC_RULE_MISSING_MTC, "no policy: no gaps");
    CHECK(check_seq("seed", "1 2 3") == PTC_RULE_MTC_NOT_SUPPRESSED, "a third MTC at threshold 2");
    /* 255 suppressed (payloads 12 .. 266): the next one has the same payload as the last */
    CHECK(check_seq("seed", "10 11 11 12") == PTC_RULE_NONE, "255 suppressed, then the burst");
    CHECK(check_seq("seed", "10 11 11 12 13") == PTC_RULE_MTC_NOT_SUPPRESSED);
    CHECK(check_seq("seed", "10 11 10 11") == PTC_RULE_EARLY_RESUME, "254 suppressed is not 255");
    CHECK(check_seq("threshold=2,resume_after=10", "1 2 d e") == PTC_RULE_NONE);
    CHECK(check_seq("threshold=2,resume_after=10", "1 2 f") == PTC_RULE_GAP_TOO_LONG);
    CHECK(check_seq("threshold=2,resume_after=10", "1 2 a") == PTC_RULE_EARLY_RESUME);
    CHECK(check_seq("threshold=2,resume_after=0,resume_value=0", "fe ff 0 1") == PTC_RULE_NONE,
          "resume on payload 0 right away");
    CHECK(check_seq("threshold=2,resume_after=0,resume_value=0", "fa fb 1") == PTC_RULE_LATE_RESUME,
          "suppressed through payload 0");
    CHECK(check_seq("threshold=2,resume_after=0,resume_value=0", "fa fb 0 1 2") == PTC_RULE_MTC_NOT_SUPPRESSED);
    CHECK(check_seq("threshold=2,resume_after=0,resume_value=0,min_burst=3", "fa fb 0 1 2") == PTC_RULE_NONE,
          "min_burst 3 after a resume");
}

/* The policy checker's rules are rows of the conformance catalogue: each
   named, with its severity, source and text, once (PTC_MTC_RULE_LIST). */
static void policy_rules_are_catalogue_rows(void)
{
    int rows = 0;
#define ROW(e, n, sev, src, text)                                                                             \
    CHECK(e > PTC_RULE_NONE && e < PTC_RULE_COUNT && strcmp(ptc_rule_name(e), n) == 0 &&                      \
          ptc_rule_severity(e) == sev && strcmp(ptc_rule_sdm(e), src) == 0 && strcmp(ptc_rule_text(e), text) == 0, \
          "%s", n);                                                                                            \
    CHECK(ptc_rule_from_name(n) == e, "%s", n);                                                                \
    rows++;
    PTC_MTC_RULE_LIST(ROW)
#undef ROW
    CHECK(rows == 5, "%d rows", rows);
}

/* The checker on real model output, and on the same output with one MTC
   removed or one added: it must object. */
static void checker_catches_mutated_model_streams(void)
{
    ptc_model_config cfg;
    ptc_model m;
    cap c;
    ptc_item *items;
    size_t n, i, mutations = 0, caught = 0;
    char err[100];
    ptc_model_config_default(&cfg);
    workload_configure(2, &cfg);
    CHECK(modelcfg_policy(&cfg.trace.policy, "seed", err, sizeof err));
    CHECK(run_workload(&cfg, 2, 40000000, 4, &c, &m));
    decode_all(&c, &items, &n);
    for (i = 0; i + 1 < n && mutations < 400; i++) {
        size_t j;
        ptc_checker chk;
        int found = 0, drop;
        ptc_packet extra;
        if (items[i].pkt.type != PTC_MTC || items[i + 1].pkt.type != PTC_MTC) continue;
        /* Two mutations: drop an MTC that continues a run (drop), or add an
           MTC where the stream skips periods (suppression was active). */
        drop = i > 0 && items[i - 1].pkt.type == PTC_MTC;
        extra = items[i].pkt;
        extra.u.mtc.ctc = (uint8_t)(items[i].pkt.u.mtc.ctc + 1);
        if (!drop && extra.u.mtc.ctc == items[i + 1].pkt.u.mtc.ctc) continue; /* no skipped period to fill */
        /* Dropping the MTC before a 256-period gap (equal payloads) leaves a
           stream that is valid modulo 256: no payload-only check can see it
           (SPEC 2.2), so it is not a mutation the checker must catch. */
        if (drop && items[i].pkt.u.mtc.ctc == items[i + 1].pkt.u.mtc.ctc) continue;
        mutations++;
        ptc_checker_init(&chk, &cfg.trace.policy);
        for (j = 0; j < n; j++) {
            if (j == i && drop) continue;
            if (ptc_checker_packet(&chk, &items[j].pkt) != PTC_RULE_NONE) found = 1;
            if (j == i && !drop && ptc_checker_packet(&chk, &extra) != PTC_RULE_NONE) found = 1;
        }
        caught += found;
    }
    CHECK(mutations > 50 && caught == mutations, "%zu of %zu mutations caught", caught, mutations);
    free(items);
    modelrec_free(&c);
}

/* ---- 5.1 configuration checks ------------------------------------------------- */

/* Sets the field a key of MODELCFG_FIELDS names to v, unchecked
   (truncated to the field's type); 0 for no such key. */
static int set_unchecked(ptc_model_config *cfg, const char *key, uint64_t v)
{
#define MODELCFG_FIELD(k, field, least, most) \
    if (strcmp(key, k) == 0) { cfg->field = v; return 1; }
    MODELCFG_FIELDS
#undef MODELCFG_FIELD
    return 0;
}

/* Every field's range: the value past each end refused by the model with
   the field's key, and by the configuration text with its range; the ends
   themselves accepted by the text. The trace's fields have the ranges
   every part takes (PTC_TRACE_CONFIG_FIELDS): the model's narrower ones
   are bad_configurations_are_named's. */
static void every_field_range_is_held(void)
{
    size_t fields = 0;
#define MODELCFG_FIELD(k, field, least, most)                                                                \
    {                                                                                                        \
        ptc_model_config cfg;                                                                                \
        ptc_model m;                                                                                         \
        char err[200], set[100];                                                                             \
        fields++;                                                                                            \
        ptc_model_config_default(&cfg);                                                                      \
        if ((uint64_t)(least) > 0) {                                                                         \
            CHECK(set_unchecked(&cfg, k, (uint64_t)(least) - 1));                                            \
            CHECK(ptc_model_init(&m, &cfg, NULL) == PTC_ERR_BAD_CONFIG && strcmp(ptc_model_error_field(&m), k) == 0, \
                  "%s below %llu", k, (unsigned long long)(least));                                          \
            snprintf(set, sizeof set, "%s=%llu", k, (unsigned long long)(least) - 1);                        \
            CHECK(!modelcfg_set_list(&cfg, set, err, sizeof err) && strstr(err, "must be a whole number from"), "%s", set); \
        }                                                                                                    \
        ptc_model_config_default(&cfg);                                                                      \
        snprintf(set, sizeof set, "%s=%llu", k, (unsigned long long)(most));                                 \
        CHECK(modelcfg_set_list(&cfg, set, err, sizeof err), "%s: %s", set, err);                            \
        if ((uint64_t)(most) < UINT64_MAX) {                                                                 \
            snprintf(set, sizeof set, "%s=%llu", k, (unsigned long long)(most) + 1);                         \
            CHECK(!modelcfg_set_list(&cfg, set, err, sizeof err) && strstr(err, k), "%s accepted", set);     \
            CHECK(set_unchecked(&cfg, k, (uint64_t)(most) + 1));                                             \
            CHECK((uint64_t)(most) + 1 != (uint64_t)(cfg.field) ||                                           \
                      (ptc_model_init(&m, &cfg, NULL) == PTC_ERR_BAD_CONFIG &&                               \
                       strcmp(ptc_model_error_field(&m), k) == 0),                                           \
                  "%s above %llu", k, (unsigned long long)(most));                                           \
        }                                                                                                    \
    }
    MODELCFG_FIELDS
#undef MODELCFG_FIELD
    CHECK(fields >= 36, "%zu fields", fields);
}

/* The defaults ptc_model_config_default sets are the tables'. */
static void defaults_are_the_tables(void)
{
    ptc_model_config cfg;
    ptc_model_config_default(&cfg);
#define X(k, field, least, most, dflt) CHECK(cfg.field == (dflt), "%s's default", k);
    PTC_MODEL_CONFIG_FIELDS(X)
#undef X
#define X(field, value) CHECK(cfg.trace.field == (value), "trace.%s's default", #field);
    PTC_MODEL_TRACE_DEFAULTS(X)
#undef X
    CHECK(cfg.trace.ctl.cyc_en == 0 && cfg.trace.filters.count == 0 && cfg.trace.errata == 0, "the rest is 0");
}

/* The errata the model imitates are bits of cfg.trace.errata, given by name in
   the configuration text; any other erratum is refused by the model. */
static void errata_are_bits(void)
{
    ptc_model_config cfg;
    ptc_model m;
    char err[200], set[64];
    size_t n = 0;
#define E(k, bit)                                                                                         \
    ptc_model_config_default(&cfg);                                                                      \
    snprintf(set, sizeof set, "%s=1", k);                                                                \
    CHECK(modelcfg_set_list(&cfg, set, err, sizeof err) && cfg.trace.errata == (uint32_t)(bit), "%s: %s", set, err); \
    CHECK(ptc_model_init(&m, &cfg, NULL) == PTC_OK, "%s refused", set);                                  \
    snprintf(set, sizeof set, "%s=0", k);                                                                \
    CHECK(modelcfg_set_list(&cfg, set, err, sizeof err) && cfg.trace.errata == 0, "%s", set);                        \
    snprintf(set, sizeof set, "%s=2", k);                                                                \
    CHECK(!modelcfg_set_list(&cfg, set, err, sizeof err), "%s accepted", set);                                 \
    CHECK(strcmp(ptc_erratum_name((uint32_t)(bit)), k) == 0, "%s is the erratum's name", k);             \
    n++;
    PTC_MODEL_ERRATA(E)
#undef E
    CHECK(n == 3);
    ptc_model_config_default(&cfg);
    cfg.trace.errata = PTC_ERRATUM_BDM70; /* one the model does not imitate */
    CHECK(ptc_model_init(&m, &cfg, NULL) == PTC_ERR_BAD_CONFIG && strcmp(ptc_model_error_field(&m), "errata") == 0);
}

static void bad_configurations_are_named(void)
{
    static const struct { const char *set, *field; } bad[] = {
        { "cpuid_0x15_eax=1,cpuid_0x15_ebx=600", "cpuid_0x15_ebx" }, { "fifo_bytes=64", "fifo_bytes" },
        { "filter=10-5", "filter" },
        /* what the model narrows of the trace's ranges */
        { "cpuid_0x15_eax=0,cpuid_0x15_ebx=0", "cpuid_0x15_eax" }, { "cyc_bits=1", "cyc_bits" }, { "cyc_bits=33", "cyc_bits" }
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ptc_model_config cfg;
        ptc_model m;
        char err[100];
        ptc_model_config_default(&cfg);
        if (!modelcfg_set_list(&cfg, bad[i].set, err, sizeof err)) { CHECK(0, "%s: %s", bad[i].set, err); continue; }
        CHECK(ptc_model_init(&m, &cfg, NULL) == PTC_ERR_BAD_CONFIG, "%s accepted", bad[i].set);
        CHECK(strcmp(bad[i].field, ptc_model_error_field(&m)) == 0, "%s: blamed %s", bad[i].set,
              ptc_model_error_field(&m));
    }
    {
        ptc_model_config cfg;
        ptc_model m;
        ptc_model_config_default(&cfg);
        cfg.trace.policy.threshold = 2; /* suppression without any resume bound */
        CHECK(ptc_model_init(&m, &cfg, NULL) == PTC_ERR_BAD_CONFIG && strcmp(ptc_model_error_field(&m), "policy.resume") == 0);
        cfg.trace.policy.resume_after = 5;
        cfg.trace.policy.min_burst = 1;
        CHECK(ptc_model_init(&m, &cfg, NULL) == PTC_ERR_BAD_CONFIG && strcmp(ptc_model_error_field(&m), "policy.min_burst") == 0);
    }
    {
        /* ratios whose common multiple is too large for exact time: refused, not rounded */
        ptc_model_config cfg;
        ptc_model m;
        static const uint8_t primes[] = { 251, 241, 239, 233, 229, 227, 223, 211, 199, 197 };
        size_t k;
        ptc_status st = PTC_OK;
        ptc_model_config_default(&cfg);
        CHECK(ptc_model_init(&m, &cfg, NULL) == PTC_OK);
        for (k = 0; k < sizeof primes && st == PTC_OK; k++) st = ptc_model_set_ratio(&m, 0, primes[k]);
        CHECK(st == PTC_ERR_INEXACT, "a ratio history with a huge common multiple was accepted");
    }
}

/* ---- 5.2 sleep ------------------------------------------------------------------ */

static void sleep_stops_the_core_clock(void)
{
    cap c;
    ptc_model m;
    size_t i;
    const ptc_truth *pwre = NULL, *tsc = NULL, *cyc = NULL;
    /* threshold 13 (4096 cycles): no CYC before the MWAIT after 3000 cycles,
       so the wake CYC carries them */
    if (!run_scenario("set pwr_evt_en=1,cyc_en=1,cyc_thresh=13\nstart 0x401000\nidle 3000\n"
                      "sleep 0x401010 6 240000\nidle 10\nstop\n", &c, &m)) return;
    for (i = 0; i < c.nt; i++) {
        const ptc_truth *t = &c.t[i];
        if (t->pkt.type == PTC_PWRE) pwre = t;
        if (pwre && t->pkt.type == PTC_CYC && !cyc) cyc = t;
        if (pwre && t->pkt.type == PTC_TSC && !tsc) tsc = t;
    }
    CHECK(pwre && tsc && cyc, "sleep packets missing");
    if (pwre && tsc && cyc) {
        /* the clock stopped: same cycle, 240000 ART ticks (10 ms at 24 MHz) later;
           3000 cycles at ratio 30 are 24 ART ticks */
        CHECK(pwre->cycle == 3000 && tsc->cycle == 3000 && tsc->art == 24 + 240000, "cycle %llu art %llu",
              (unsigned long long)tsc->cycle, (unsigned long long)tsc->art);
        CHECK(cyc->pkt.u.cyc.cycles == 3000 && cyc < tsc, "the wake CYC carries the cycles before the sleep");
    }
    modelrec_free(&c);
}

int main(void)
{
    RUN(clocks_are_exact);
    RUN(no_drift_over_long_runs);
    RUN(fast_counter_and_mtc_payloads_match_the_clock);
    RUN(fast_forward_equals_single_step);
    RUN(mtc_jitter_delays_mtcs_within_its_bound);
    RUN(mtc_lost_drops_at_most_n_in_a_row);
    RUN(psb_early_tsc_writes_the_skylake_order);
    RUN(skz84_corrupts_tmas_in_a_guest);
    RUN(seed_fig5_timelines);
    RUN(cyc_values_sum_to_true_cycles);
    RUN(cyc_precedes_eligible_packets);
    RUN(psb_every_period);
    RUN(every_workload_and_policy);
    RUN(decoded_ips_are_the_workload_targets);
    RUN(non_canonical_ips_round_trip);
    RUN(tsc_per_cycle_is_exact);
    RUN(suppressed_runs_are_recoverable);
    RUN(checker_catches_violations);
    RUN(policy_rules_are_catalogue_rows);
    RUN(checker_catches_mutated_model_streams);
    RUN(every_field_range_is_held);
    RUN(defaults_are_the_tables);
    RUN(errata_are_bits);
    RUN(bad_configurations_are_named);
    RUN(sleep_stops_the_core_clock);
    RUN(ret_compression_follows_the_sdm);
    RUN(tsx_and_vmx_packets);
    TESTLIB_EXIT();
}
