/* A program of a user who installed ptcodec: it finds the header through
   pkg-config or CMake, not through the source tree, and uses it. */
#define PTCODEC_IMPLEMENTATION
#include <ptcodec.h>

#include <stdio.h>
#include <string.h>

int main(void)
{
    static const unsigned char psb_and_tip[] = {
        0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
        0x2d, 0x34, 0x12 /* TIP, IPBytes 1: IP[15:0] = 0x1234 */
    };
    ptc_decoder dec;
    ptc_item it;
    int n = 0, tip = 0;
    ptc_decoder_init_buffer(&dec, 0, psb_and_tip, sizeof psb_and_tip);
    while (ptc_decoder_next(&dec, &it) == PTC_OK) {
        n++;
        if (it.error == PTC_OK && it.pkt.type == PTC_TIP && it.ip == 0x1234) tip = 1;
    }
    if (n != 2 || !tip || strcmp(ptc_version(), PTCODEC_VERSION_STRING) != 0) {
        printf("consumer: decoded %d items, tip %d: wrong\n", n, tip);
        return 1;
    }
    printf("consumer: ptcodec %s decodes\n", ptc_version());
    return 0;
}
