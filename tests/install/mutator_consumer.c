/* A fuzzing harness's view of the installed mutator and differential
   template: ptcodec.h, then <ptcodec/ptmutator.h> and <ptcodec/ptdiff.h>,
   from the include directory alone (tests/test_install.sh). Mutates a PSB
   a hundred times. */
#define PTCODEC_IMPLEMENTATION
#include <ptcodec.h>
#include <ptcodec/ptmutator.h>
#include <ptcodec/ptdiff.h>

#include <stdio.h>

static ptm_mutator m;

int main(void)
{
    uint8_t buf[256];
    size_t n = 0, i;
    ptc_packet psb;
    memset(&psb, 0, sizeof psb);
    psb.type = PTC_PSB;
    ptm_init(&m, 1);
    for (i = 0; i < 100; i++) {
        if (ptc_encode_packet(&psb, buf, sizeof buf, &n) != PTC_OK) return 1;
        n = ptm_mutate(&m, buf, n, sizeof buf, NULL, 0);
        if (n > sizeof buf) return 1;
    }
    printf("%s\n", ptm_op_name(m.last_op));
    return 0;
}
