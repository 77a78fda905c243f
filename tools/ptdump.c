/* ptdump - print the packets of a raw Intel PT trace (SPEC.md 1.10). */
#define PTCODEC_IMPLEMENTATION
#include "../ptcodec.h"
#include "dumpfmt.h"

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
    "  --help      this text\n"
    "\n"
    "Exit status: 0 decoded without errors, 1 the input had errors,\n"
    "2 bad usage or unreadable input. Output format: SPEC.md section 1.10.\n";

enum { CHUNK = 65536 };

int main(int argc, char **argv)
{
    static unsigned char chunk[CHUNK];
    static char line[512];
    static char outbuf[1 << 16];
    const char *path = NULL;
    unsigned flags = 0;
    int jsonl = 0, errors = 0, i, eof = 0;
    FILE *in;
    ptc_decoder dec;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--no-sync") == 0) flags |= PTC_DECODE_NO_SYNC;
        else if (strcmp(argv[i], "--jsonl") == 0) jsonl = 1;
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
