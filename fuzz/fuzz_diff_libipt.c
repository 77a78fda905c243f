/* fuzz_diff_libipt: the same bytes through ptcodec's and libipt's packet
   decoders (SPEC.md 1.11). Needs libipt-dev; link with -lipt.

   Oracles:
   - walking the input from offset 0, packet by packet, both decoders give
     the same packets (every field libipt has) or the same error class at
     the same offset, up to the one written allowlist in
     harness/libipt_allowlist.h, which names the reason that ended the walk;
   - told of erratum SKZ84 (SPEC 1.9 rule 6), both read the same packets,
     and ptcodec's corrupt_tma errors are libipt's invalid packets, at the
     same offsets (harness/libipt_allowlist.h, libipt_compare_skz84_walk);
   - syncing forward from offset 0, both find the first PSB at the same
     offset, or both find none.
   libipt gets its own copy with LIBIPT_SLACK bytes after the end (cfg.end
   still at the end): libipt 2.0.5's pt_pkt_sync_forward reads past the end
   of a buffer that ends inside a PSB pattern (found by this target's smoke
   run; the input is corpus/fuzz_diff_libipt/found-libipt-sync-overread),
   and a read past what it was given is libipt's bug, not ptcodec's. */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include <intel-pt.h>
#include "fuzz_helpers.h"
#include "../harness/libipt_allowlist.h"

#define LIBIPT_SLACK 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy;
    libipt_walk w;
    ptc_decoder dec;
    ptc_item it;
    struct pt_config cfg;
    struct pt_packet_decoder *d;
    uint64_t ours = UINT64_MAX, theirs = UINT64_MAX;
    size_t corrupt;
    char why[200];
    if (size == 0 || size > 65536) return 0; /* libipt refuses an empty buffer */

    copy = (uint8_t *)calloc(size + LIBIPT_SLACK, 1);
    FUZZ_ASSERT(copy != NULL, "out of memory");
    memcpy(copy, data, size);
    w = libipt_compare_walk(copy, size);
    FUZZ_ASSERT(!w.mismatch, "ptcodec and libipt differ at %zu after %zu packets: %s", w.at, w.packets, w.why);
    FUZZ_ASSERT(libipt_compare_skz84_walk(copy, size, &corrupt, why, sizeof why), "told of erratum SKZ84: %s", why);

    /* the first PSB: ours is the first item the syncing decoder returns
       (a PSB, or an error inside the PSB+ that starts there), unless that
       is its no_psb report */
    ptc_decoder_init_buffer(&dec, 0, data, size);
    if (ptc_decoder_next(&dec, &it) == PTC_OK && it.error != PTC_ERR_NO_PSB) ours = it.offset;
    pt_config_init(&cfg);
    cfg.begin = copy;
    cfg.end = copy + size;
    d = pt_pkt_alloc_decoder(&cfg);
    FUZZ_ASSERT(d != NULL, "libipt would not decode %zu bytes", size);
    if (pt_pkt_sync_forward(d) >= 0) FUZZ_ASSERT(pt_pkt_get_sync_offset(d, &theirs) >= 0, "no sync offset");
    pt_pkt_free_decoder(d);
    free(copy);
    FUZZ_ASSERT(ours == theirs, "first PSB: ptcodec at %lld, libipt at %lld", ours == UINT64_MAX ? -1LL : (long long)ours,
              theirs == UINT64_MAX ? -1LL : (long long)theirs);
    return 0;
}
