/* fuzz_model: the hardware model under fuzz-chosen settings and workloads
   (SPEC.md part 2).

   The input's last bytes choose the configuration and the suppression
   policy; the rest is a program of workload events (idle, branches, jumps,
   interrupts, PTWRITE, CR3, mode and ratio changes, sleeps). Oracles:
   - jumping from event to event gives the same bytes and the same truth as
     stepping every cycle;
   - the stream decodes without an error, and every emitted packet of the
     truth is the decoded packet at its offset;
   - the policy checker finds no violation. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_helpers.h"

#include <string.h>

typedef struct fz_rec {
    uint8_t *bytes;
    size_t len, cap;
    ptc_truth *t;
    size_t nt, capt;
} fz_rec;

static void rec_packet(void *user, const uint8_t *bytes, size_t len, const ptc_truth *t)
{
    fz_rec *r = (fz_rec *)user;
    if (r->len + len > r->cap) {
        r->cap = (r->len + len) * 2 + 4096;
        r->bytes = (uint8_t *)realloc(r->bytes, r->cap);
        FZ_ASSERT(r->bytes != NULL, "out of memory");
    }
    memcpy(r->bytes + r->len, bytes, len);
    r->len += len;
    if (r->nt == r->capt) {
        r->capt = r->capt * 2 + 1024;
        r->t = (ptc_truth *)realloc(r->t, r->capt * sizeof *r->t);
        FZ_ASSERT(r->t != NULL, "out of memory");
    }
    r->t[r->nt++] = *t;
}

static const uint8_t ratios[] = { 12, 16, 20, 24, 30, 36, 40 };
static const struct { uint32_t art, eax, ebx; } clocks[] = {
    { 24000000, 2, 200 }, { 25000000, 3, 250 }, { 19200000, 7, 625 }, { 38400000, 1, 50 }
};

/* Runs the event program `prog` on a model with cfg; records into r. */
static void run(const ptc_model_config *cfg, const uint8_t *prog, size_t n, fz_rec *r)
{
    ptc_model m;
    ptc_model_sink sink;
    uint64_t ip = 0x401000, budget = 300000; /* cycles: keeps single stepping quick */
    size_t i = 0;
    sink.user = r;
    sink.packet = rec_packet;
    sink.event = NULL;
    FZ_ASSERT(ptc_model_init(&m, cfg, &sink) == PTC_OK, "config rejected: %s", ptc_model_error_field(&m));
    ptc_model_start(&m, ip);
    while (i + 2 <= n) {
        uint8_t op = prog[i], arg = prog[i + 1];
        uint64_t target = 0x401000 + ((uint64_t)arg << 4) + (op & 0x80 ? 0x100000 : 0); /* some inside a filter, some not */
        i += 2;
        switch (op % 11) {
        case 0: case 1: case 2: { /* idle */
            uint64_t c = (uint64_t)arg * (op % 3 == 2 ? 211 : 7) + 1;
            if (c > budget) c = budget;
            budget -= c;
            ptc_model_idle(&m, c);
            break;
        }
        case 3: ptc_model_branch(&m, ip, (arg & 1) ? target : ip + 2, arg & 1); ip = (arg & 1) ? target : ip + 2; break;
        case 4: ptc_model_jump(&m, ip, target, 0); ip = target; break;
        case 5: ptc_model_jump(&m, ip, target, 1); ip = target; break;
        case 6: ptc_model_interrupt(&m, ip, UINT64_C(0x7f0000001000) + arg); ip = UINT64_C(0x7f0000001000) + arg; break;
        case 7: ptc_model_ptwrite(&m, ip, (uint64_t)arg * 0x0101010101ULL, (arg & 1) ? 8 : 4); break;
        case 8: ptc_model_cr3(&m, ip, (uint64_t)arg << 12); break;
        case 9:
            if (arg & 1) ptc_model_mode(&m, ip, target, arg & 2 ? 1 : 0, arg & 2 ? 0 : 1);
            else ptc_model_set_ratio(&m, ip, ratios[arg % sizeof ratios]);
            break;
        default: ptc_model_sleep(&m, ip, arg & 1, arg, 1, (uint8_t)(1 + arg % 7), (uint64_t)arg * 37, arg & 2); break;
        }
    }
    ptc_model_stop(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_input in;
    ptc_model_config cfg;
    fz_rec a, b;
    ptc_decoder dec;
    ptc_checker chk;
    ptc_item it;
    size_t k = 0, c;
    if (size > 4096) return 0;
    in.data = data;
    in.size = size;
    ptc_model_config_default(&cfg);
    c = fz_take(&in, 0, 3);
    cfg.art_hz = clocks[c].art;
    cfg.cpuid_15_eax = clocks[c].eax;
    cfg.cpuid_15_ebx = clocks[c].ebx;
    cfg.core_ratio = ratios[fz_take(&in, 0, sizeof ratios - 1)];
    cfg.mtc_freq = (uint8_t)fz_take(&in, 0, 10);
    cfg.cyc_en = (uint8_t)fz_take(&in, 0, 1);
    cfg.cyc_thresh = (uint8_t)fz_take(&in, 0, 12);
    cfg.cyc_bits = (uint8_t)fz_take(&in, 4, 16);
    cfg.psb_freq = (uint8_t)fz_take(&in, 0, 2);
    cfg.long_tnt = (uint8_t)fz_take(&in, 0, 1);
    cfg.pwr_evt_en = (uint8_t)fz_take(&in, 0, 1);
    cfg.ptw_en = (uint8_t)fz_take(&in, 0, 1);
    cfg.fup_on_ptw = (uint8_t)fz_take(&in, 0, 1);
    cfg.os = (uint8_t)fz_take(&in, 0, 1);
    cfg.art_start = fz_take(&in, 0, 0xFFFFF);
    if (fz_take(&in, 0, 1)) {
        cfg.nfilters = 1;
        cfg.filter_lo[0] = 0x401000;
        cfg.filter_hi[0] = 0x402000;
    }
    if (fz_take(&in, 0, 1)) {
        cfg.fifo_bytes = fz_take(&in, 128, 4096);
        cfg.drain_bytes = fz_take(&in, 1, 4);
        cfg.drain_cycles = fz_take(&in, 1, 16);
    }
    cfg.policy.threshold = (uint8_t)fz_take(&in, 0, 5);
    cfg.policy.resume_on_value = (uint8_t)fz_take(&in, 0, 1);
    cfg.policy.resume_value = (uint8_t)fz_take(&in, 0, 255);
    cfg.policy.resume_after = (uint8_t)fz_take(&in, 0, 255);
    cfg.policy.min_burst = (uint8_t)fz_take(&in, 2, 6);
    if (cfg.policy.threshold && !cfg.policy.resume_after && !cfg.policy.resume_on_value) cfg.policy.resume_after = 255;

    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    run(&cfg, in.data, in.size, &a);
    cfg.reference_stepping = 1;
    run(&cfg, in.data, in.size, &b);
    FZ_ASSERT(a.len == b.len && memcmp(a.bytes, b.bytes, a.len) == 0, "fast-forward and stepping wrote different bytes");
    FZ_ASSERT(a.nt == b.nt, "fast-forward and stepping generated %zu and %zu packets", a.nt, b.nt);
    for (c = 0; c < a.nt; c++)
        FZ_ASSERT(a.t[c].cycle == b.t[c].cycle && a.t[c].art == b.t[c].art && a.t[c].fate == b.t[c].fate &&
                      a.t[c].time.tsc == b.t[c].time.tsc && a.t[c].offset == b.t[c].offset,
                  "truth record %zu (%s) differs", c, ptc_packet_type_name(a.t[c].pkt.type));

    ptc_checker_init(&chk, &cfg.policy);
    ptc_decoder_init_buffer(&dec, 0, a.bytes, a.len);
    while (ptc_decoder_next(&dec, &it) == PTC_OK) {
        ptc_violation v;
        FZ_ASSERT(it.error == PTC_OK, "model output does not decode: %s at %llu", ptc_status_name(it.error),
                  (unsigned long long)it.offset);
        while (k < a.nt && a.t[k].fate != PTC_FATE_EMITTED) k++;
        FZ_ASSERT(k < a.nt && a.t[k].offset == it.offset && ptc_packet_equal(&a.t[k].pkt, &it.pkt),
                  "decoded %s at %llu is not the model's packet", ptc_packet_type_name(it.pkt.type),
                  (unsigned long long)it.offset);
        k++;
        v = ptc_checker_packet(&chk, &it.pkt);
        FZ_ASSERT(v == PTC_VIOL_NONE, "policy checker: %s at %llu", ptc_violation_name(v), (unsigned long long)it.offset);
    }
    free(a.bytes);
    free(a.t);
    free(b.bytes);
    free(b.t);
    return 0;
}
