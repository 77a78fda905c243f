/* Translation unit 1 of the compile test: holds the implementation. */
#define PTCODEC_IMPLEMENTATION
#include "../../ptcodec.h"

int tu_other(void);

int main(void)
{
    ptc_packet p;
    uint8_t buf[PTC_MAX_PACKET_SIZE];
    size_t n = 0;
    p.type = PTC_PSB;
    p.size = 0;
    if (ptc_encode_packet(&p, buf, sizeof buf, &n) != PTC_OK || n != 16) return 1;
    return tu_other() == 16 ? 0 : 1;
}
