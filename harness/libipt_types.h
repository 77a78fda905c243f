/* libipt_types.h - ptcodec's packet types and libipt's, both ways, and
   what libipt's packet decoder said as ptdiff.h's classes, for
   every libipt this project builds against (Debian's 2.0.5 and 2.2 from
   ../shared/reference): the one table of the pairs. Used by
   harness/libipt_allowlist.h (2.0.5) and fuzz/fuzz_libipt22.c (2.2).
   Link with libipt. */
#ifndef PTCODEC_LIBIPT_TYPES_H
#define PTCODEC_LIBIPT_TYPES_H

#include "../ptcodec.h"
#include <intel-pt.h>

#include "util.h"
#include "ptdiff.h"

/* The pairs libipt has (CFE and EVD came with 2.1, TRIG with 2.2). Both
   MODE packets are libipt's ppt_mode, told apart by its leaf. */
#if LIBIPT_VERSION >= 0x201
#define LIBIPT_TYPES_2_1(X) X(PTC_CFE, ppt_cfe) X(PTC_EVD, ppt_evd)
#else
#define LIBIPT_TYPES_2_1(X)
#endif
#if LIBIPT_VERSION >= 0x202
#define LIBIPT_TYPES_2_2(X) X(PTC_TRIG, ppt_trig)
#else
#define LIBIPT_TYPES_2_2(X)
#endif
#define LIBIPT_TYPES(X) \
    X(PTC_PAD, ppt_pad) X(PTC_PSB, ppt_psb) X(PTC_PSBEND, ppt_psbend) \
    X(PTC_TNT8, ppt_tnt_8) X(PTC_TNT64, ppt_tnt_64) \
    X(PTC_TIP, ppt_tip) X(PTC_TIP_PGE, ppt_tip_pge) X(PTC_TIP_PGD, ppt_tip_pgd) X(PTC_FUP, ppt_fup) \
    X(PTC_MODE_EXEC, ppt_mode) X(PTC_MODE_TSX, ppt_mode) \
    X(PTC_PIP, ppt_pip) X(PTC_VMCS, ppt_vmcs) X(PTC_OVF, ppt_ovf) \
    X(PTC_TSC, ppt_tsc) X(PTC_TMA, ppt_tma) X(PTC_MTC, ppt_mtc) X(PTC_CYC, ppt_cyc) X(PTC_CBR, ppt_cbr) \
    X(PTC_MNT, ppt_mnt) X(PTC_PTW, ppt_ptw) X(PTC_EXSTOP, ppt_exstop) X(PTC_MWAIT, ppt_mwait) \
    X(PTC_PWRE, ppt_pwre) X(PTC_PWRX, ppt_pwrx) X(PTC_STOP, ppt_stop) \
    LIBIPT_TYPES_2_1(X) LIBIPT_TYPES_2_2(X)

/* libipt's type for ours (ppt_invalid when libipt has none). */
UTIL_FN enum pt_packet_type libipt_type(ptc_packet_type t)
{
    switch (t) {
#define LIBIPT_X(ours, theirs) case ours: return theirs;
    LIBIPT_TYPES(LIBIPT_X)
#undef LIBIPT_X
    default: return ppt_invalid;
    }
}

/* Our type for a libipt packet (PTC_NONE when ptcodec has none). */
UTIL_FN ptc_packet_type libipt_ptc_type(const struct pt_packet *p)
{
    if (p->type == ppt_mode) return p->payload.mode.leaf == pt_mol_exec ? PTC_MODE_EXEC : PTC_MODE_TSX;
#define LIBIPT_X(ours, theirs) if (p->type == theirs) return ours;
    LIBIPT_TYPES(LIBIPT_X)
#undef LIBIPT_X
    return PTC_NONE;
}

/* What libipt's packet decoder said, as ptdiff.h's classes (ptcodec's
   statuses map through ptdiff_said_of_status): the two must agree. */
UTIL_FN ptdiff_said libipt_said_of_libipt(int rc)
{
    if (rc >= 0) return PTDIFF_PACKET;
    if (rc == -pte_eos) return PTDIFF_TRUNCATED;
    if (rc == -pte_bad_opc || rc == -pte_bad_packet) return PTDIFF_MALFORMED;
    return PTDIFF_OTHER;
}

#endif
