/* A program that uses ptcodec from its DLL: with PTCODEC_DLL and without
   the implementation, every function is imported (tests/test_windows.sh). */
#include "../../ptcodec.h"

#include <string.h>

int main(void)
{
    static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
    ptc_packet p;
    if (ptc_decode_packet(psb, sizeof psb, PTC_BLOCK_NONE, &p) != PTC_OK || p.size != 16) return 1;
    return strcmp(ptc_version(), PTCODEC_VERSION_STRING) == 0 ? 0 : 1;
}
