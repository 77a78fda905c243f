/* gen_model_seeds: seeds for the model-driven fuzz targets (fuzz_model,
   fuzz_clock, fuzz_checker), one per standard workload and suppression
   policy kind. Their input is a workload program with the settings in its
   last bytes (fuzz_modelrun.h); this tool writes a program shaped like the
   workload and then searches, with fuzz_model_config itself, for last bytes
   that give the settings the workload needs and the policy wanted, so the
   seeds follow that function wherever it goes.
   usage: gen_model_seeds DIR   (writes DIR/seed-<workload>-<policy>) */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "fuzz_modelrun.h"

#include <stdio.h>

enum { PROGRAM = 480, TAIL = 32 }; /* settings take at most 27 bytes */

/* Events (op % 15, see modelprog_play in harness/modelprog.h) each workload is made of, and how
   often, as characters from '0': idle 0-2, branch 3, jump 4, indirect jump
   5, interrupt 6, ptwrite 7, cr3 / privilege 8, mode/ratio 9, sleep ':',
   CALL ';', RET '<', TSX '=', VMX '>'. */
static const struct {
    const char *name;
    const char *ops; /* drawn uniformly */
    int filter, ptw, pwr, fifo;
} workloads[] = {
    { "dense", "33333333340", 0, 0, 0, 0 },
    { "sparse", "2222223", 0, 0, 0, 0 },
    { "filtered", "22233444", 1, 0, 0, 0 },
    { "ptwrite", "0777773", 0, 1, 0, 0 },
    { "idle", "0033:::", 0, 0, 1, 0 },
    { "dvfs", "033339999", 0, 0, 0, 0 },
    { "mixed", "0123456789:;<=>", 0, 1, 1, 1 },
    { "calls", "0033;;;<<<<58", 0, 0, 0, 0 },
    { "tsx-vmx", "0033;<==>>>", 0, 0, 0, 0 },
};

static const char *const policies[] = { "off", "seed", "resume-value", "resume-count", "long-burst" };

static int policy_is(int k, const ptc_mtc_policy *p)
{
    switch (k) {
    case 0: return p->threshold == 0;
    case 1: return p->threshold == 2 && !p->resume_on_value && p->resume_after == 255 && p->min_burst == 2;
    case 2: return p->threshold >= 1 && p->resume_on_value && !p->resume_after;
    case 3: return p->threshold >= 1 && !p->resume_on_value && p->resume_after >= 1 && p->resume_after <= 16;
    default: return p->threshold >= 1 && p->min_burst >= 5;
    }
}

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint8_t next_byte(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint8_t)(rng >> 32);
}

int main(int argc, char **argv)
{
    uint8_t buf[PROGRAM + TAIL];
    size_t w, k, i;
    if (argc != 2) {
        fprintf(stderr, "usage: gen_model_seeds DIR\n");
        return 2;
    }
    for (w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
        size_t nops = strlen(workloads[w].ops);
        for (i = 0; i < PROGRAM; i += 2) {
            buf[i] = (uint8_t)((workloads[w].ops[next_byte() % nops] - '0') + 15 * (next_byte() % 17));
            buf[i + 1] = next_byte();
        }
        for (k = 0; k < sizeof policies / sizeof policies[0]; k++) {
            unsigned long tries;
            for (tries = 0; tries < 10000000ul; tries++) {
                fuzz_input in;
                ptc_model_config cfg;
                for (i = PROGRAM; i < sizeof buf; i++) buf[i] = next_byte();
                in.data = buf;
                in.size = sizeof buf;
                fuzz_model_config(&in, &cfg);
                if (policy_is((int)k, &cfg.trace.policy) && (cfg.trace.filters.count != 0) == workloads[w].filter &&
                    cfg.trace.ctl.ptw_en >= workloads[w].ptw && cfg.trace.ctl.pwr_evt_en >= workloads[w].pwr &&
                    (cfg.fifo_bytes != 0) == workloads[w].fifo)
                    break;
            }
            if (tries == 10000000ul) {
                fprintf(stderr, "gen_model_seeds: no settings found for %s under %s\n", workloads[w].name, policies[k]);
                return 1;
            }
            {
                char path[512];
                FILE *f;
                snprintf(path, sizeof path, "%s/seed-%s-%s", argv[1], workloads[w].name, policies[k]);
                f = fopen(path, "wb");
                if (!f || fwrite(buf, 1, sizeof buf, f) != sizeof buf || fclose(f) != 0) {
                    fprintf(stderr, "gen_model_seeds: cannot write %s\n", path);
                    return 1;
                }
            }
        }
    }
    return 0;
}
