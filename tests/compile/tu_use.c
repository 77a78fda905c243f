/* Translation unit 2 of the compile test: only uses the API. With
   PTCODEC_STATIC it carries its own private copy of the implementation. */
#ifdef PTCODEC_STATIC
#define PTCODEC_IMPLEMENTATION
#endif
#include "../../ptcodec.h"

int tu_other(void);

int tu_other(void)
{
    static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
    ptc_packet p;
    if (ptc_decode_packet(psb, sizeof psb, PTC_BLOCK_NONE, &p) != PTC_OK) return -1;
#ifndef PTCODEC_NO_FLOW
    {   /* part 9 too, where it is in: a JMP rel8 to itself */
        static const uint8_t jmp[2] = { 0xEB, 0xFE };
        ptc_x86_insn in;
        if (ptc_x86_decode(jmp, sizeof jmp, PTC_X86_64, 0x1000, &in) != PTC_OK || in.target != 0x1000) return -1;
    }
#endif
    return p.size;
}
