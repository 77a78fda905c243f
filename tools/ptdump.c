/* ptdump - print the packets of a raw Intel PT trace (SPEC.md 1.10). */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "dumpfmt.h"
#include "modelcfg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: ptdump [options] FILE\n"
    "Print every packet of the raw Intel PT trace FILE (- for standard input).\n"
    "\n"
    "  --no-sync   decode from the first byte instead of the first PSB\n"
    "  --jsonl     one JSON object per line instead of libipt-style text\n"
    "  --check     check MTC suppression against a policy (SPEC.md 2.5) and\n"
    "              report each violation; the policy comes from --config or --policy\n"
    "  --config F  the configuration ptsim wrote beside the trace (OUT.pt.json)\n"
    "  --policy P  off, seed, or key=value,... as for ptsim --policy\n"
    "  --help      this text\n"
    "\n"
    "Exit status: 0 decoded without errors (or violations), 1 the input had\n"
    "errors or violations, 2 bad usage or unreadable input. Output format:\n"
    "SPEC.md section 1.10.\n";

enum { CHUNK = 65536 };

int main(int argc, char **argv)
{
    static unsigned char chunk[CHUNK];
    static char line[512];
    static char outbuf[1 << 16];
    const char *path = NULL, *config = NULL, *policy = NULL;
    unsigned flags = 0;
    int jsonl = 0, errors = 0, i, eof = 0, check = 0;
    FILE *in;
    ptc_decoder dec;
    ptc_checker checker;
    ptc_model_config cfg;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-sync") == 0) flags |= PTC_DECODE_NO_SYNC;
        else if (strcmp(argv[i], "--jsonl") == 0) jsonl = 1;
        else if (strcmp(argv[i], "--check") == 0) check = 1;
        else if ((strcmp(argv[i], "--config") == 0 || strcmp(argv[i], "--policy") == 0) && i + 1 < argc) {
            if (argv[i][2] == 'c') config = argv[++i]; else policy = argv[++i];
        }
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (argv[i][0] == '-' && argv[i][1] != 0) {
            fprintf(stderr, "ptdump: unknown option %s\n%s", argv[i], usage);
            return 2;
        } else if (path) {
            fprintf(stderr, "ptdump: more than one FILE\n%s", usage);
            return 2;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        fprintf(stderr, "ptdump: no FILE given\n%s", usage);
        return 2;
    }
    ptc_model_config_default(&cfg);
    if (config) {
        char text[4096], err[200];
        FILE *cf = fopen(config, "rb");
        size_t n = cf ? fread(text, 1, sizeof text - 1, cf) : 0;
        if (cf) fclose(cf);
        text[n] = 0;
        if (!cf || !mc_read_json(text, &cfg, err, sizeof err)) {
            fprintf(stderr, "ptdump: cannot use %s: %s\n", config, cf ? err : strerror(errno));
            return 2;
        }
    }
    if (policy) {
        char err[200];
        if (!mc_policy(&cfg.policy, policy, err, sizeof err)) { fprintf(stderr, "ptdump: --policy: %s\n", err); return 2; }
    }
    if (check && !config && !policy) {
        fprintf(stderr, "ptdump: --check needs --config or --policy\n");
        return 2;
    }
    ptc_checker_init(&checker, &cfg.policy);
    in = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!in) {
        fprintf(stderr, "ptdump: cannot open %s: %s\n", path, strerror(errno));
        return 2;
    }
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    ptc_decoder_init(&dec, flags, 0);
    for (;;) {
        ptc_item it;
        ptc_status st = ptc_decoder_next(&dec, &it);
        if (st == PTC_OK) {
            df_buf b;
            b.s = line; b.cap = sizeof line; b.len = 0;
            line[0] = 0;
            if (jsonl) df_json(&b, &it); else df_text(&b, &it);
            fputs(line, stdout);
            fputc('\n', stdout);
            errors += it.error != PTC_OK;
            if (check && it.error == PTC_OK) {
                ptc_violation v = ptc_checker_packet(&checker, &it.pkt);
                if (v != PTC_VIOL_NONE) {
                    errors++;
                    if (jsonl)
                        printf("{\"off\":%llu,\"violation\":\"%s\",\"msg\":\"%s\"}\n", (unsigned long long)it.offset,
                               ptc_violation_name(v), ptc_violation_message(v));
                    else
                        printf("[%llx: policy violation: %s (%s)]\n", (unsigned long long)it.offset,
                               ptc_violation_message(v), ptc_violation_name(v));
                }
            }
        } else if (st == PTC_NEED_INPUT) {
            size_t n = eof ? 0 : fread(chunk, 1, sizeof chunk, in);
            if (n == 0) {
                if (ferror(in)) {
                    fprintf(stderr, "ptdump: read error on %s\n", path);
                    return 2;
                }
                eof = 1;
                ptc_decoder_finish(&dec);
            } else {
                (void)ptc_decoder_feed(&dec, chunk, n);
            }
        } else {
            break; /* PTC_END */
        }
    }
    if (in != stdin) fclose(in);
    if (fflush(stdout) != 0) return 2;
    return errors ? 1 : 0;
}
