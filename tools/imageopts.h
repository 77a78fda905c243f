/* imageopts.h - the memory image options of ptdump --insn, --blocks and
   --coverage (SPEC 9.4):
   --image FILE:ADDR, --elf FILE[:BASE], --pagecache PREFIX, in the order
   given (a later one replaces what it overlaps). The files are read
   whole and kept for the image's life; a file that cannot be read or
   used is refused by name. And what else the flow decoder is told of the
   trace: --filter LO-HI, the IP filter ranges it was recorded with. */
#ifndef PTCODEC_IMAGEOPTS_H
#define PTCODEC_IMAGEOPTS_H

#include "../ptcodec.h"
#include "../harness/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enough for a page cache of 16384 pages that follow no other page. */
#define IMAGEOPTS_MAX_SECTIONS 16384
#define IMAGEOPTS_MAX_FILES 64

typedef struct image_options {
    ptc_image image;
    ptc_image_section sections[IMAGEOPTS_MAX_SECTIONS];
    unsigned char *files[IMAGEOPTS_MAX_FILES];
    size_t nfiles, given;
    ptc_ip_filters filters; /* --filter's */
} image_options;

#define IMAGEOPTS_USAGE \
    "  the code, for --insn, --blocks and --coverage:\n" \
    "  --image FILE:ADDR  FILE's bytes are the code at ADDR\n" \
    "  --elf FILE[:BASE]  FILE's PT_LOAD segments at their addresses, or moved\n" \
    "              so that the lowest starts at BASE, as ptxed --elf\n" \
    "  --pagecache PREFIX  libxdc's page cache PREFIX.addr and PREFIX.dump (the\n" \
    "              QEMU plugin writes OUT.code.addr and .dump)\n" \
    "  --filter LO-HI  the trace was recorded with this IP filter range, [LO, HI)\n" \
    "              (up to 4); with --cpu F/M or --errata skl014, a TIP.PGD\n" \
    "              without its IP binds to the direct branch that leaves them\n"

UTIL_FN void imageopts_init(image_options *o)
{
    memset(o, 0, sizeof *o);
    ptc_image_init(&o->image, o->sections, IMAGEOPTS_MAX_SECTIONS);
}

/* The whole of path, kept until imageopts_free; NULL (said) when it cannot
   be read. */
UTIL_FN unsigned char *imageopts_file(image_options *o, const char *option, const char *path, size_t *n)
{
    unsigned char *b;
    if (o->nfiles == IMAGEOPTS_MAX_FILES) {
        fprintf(stderr, "%s: %s %s: more than %d image files\n", util_prog, option, path, IMAGEOPTS_MAX_FILES);
        return NULL;
    }
    b = util_read_file(path, n);
    if (!b) {
        fprintf(stderr, "%s: %s: cannot read %s\n", util_prog, option, path);
        return NULL;
    }
    o->files[o->nfiles++] = b;
    return b;
}

UTIL_FN int imageopts_status(const char *option, const char *what, ptc_status st)
{
    if (st == PTC_OK) return 1;
    fprintf(stderr, "%s: %s %s: %s (%s)\n", util_prog, option, what, ptc_status_name(st), ptc_status_message(st));
    return 0;
}

/* FILE:NUMBER split at the last colon; the number is required when
   `need` is set, else the whole text may be the file. */
UTIL_FN int imageopts_split(const char *option, char *text, int need, uint64_t *number, int *has)
{
    char *colon = strrchr(text, ':');
    *has = 0;
    if (!colon || colon[1] == 0) {
        if (!need) return 1;
        fprintf(stderr, "%s: %s %s: FILE:ADDR, the address missing\n", util_prog, option, text);
        return 0;
    }
    *colon = 0;
    *has = 1;
    return util_parse_u64(option, colon + 1, UINT64_MAX, number);
}

/* --filter LO-HI: one more range, [LO, HI) with LO < HI, at most 4. */
UTIL_FN int imageopts_filter(image_options *o, const char *text)
{
    const char *dash = strchr(text, '-');
    uint64_t lo, hi;
    if (!dash || !util_parse_u64_n(text, (size_t)(dash - text), UINT64_MAX, &lo) ||
        !util_parse_u64_n(dash + 1, strlen(dash + 1), UINT64_MAX, &hi) || lo >= hi) {
        fprintf(stderr, "%s: --filter: '%s' is not LO-HI with LO below HI\n", util_prog, text);
        return 0;
    }
    if (o->filters.count == 4) {
        fprintf(stderr, "%s: --filter %s: Intel PT has at most 4 filter ranges\n", util_prog, text);
        return 0;
    }
    o->filters.lo[o->filters.count] = lo;
    o->filters.hi[o->filters.count] = hi;
    o->filters.count++;
    return 1;
}

/* Takes argv[*i] when it is an image option or --filter: 1 taken, 0 not
   one, -1 refused (said on standard error). */
UTIL_FN int imageopts_take(image_options *o, int argc, char **argv, int *i)
{
    const char *opt = argv[*i];
    char arg[4096], path[4200];
    uint64_t number = 0;
    int has;
    size_t n, m;
    unsigned char *b, *d;
    if (strcmp(opt, "--image") != 0 && strcmp(opt, "--elf") != 0 && strcmp(opt, "--pagecache") != 0 &&
        strcmp(opt, "--filter") != 0)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: %s needs a value\n", util_prog, opt);
        return -1;
    }
    if (strcmp(opt, "--filter") == 0) return imageopts_filter(o, argv[++*i]) ? 1 : -1;
    if (strlen(argv[++*i]) >= sizeof arg) {
        fprintf(stderr, "%s: %s: the path is too long\n", util_prog, opt);
        return -1;
    }
    strcpy(arg, argv[*i]);
    o->given++;
    if (strcmp(opt, "--pagecache") == 0) {
        snprintf(path, sizeof path, "%s.addr", arg);
        if (!(b = imageopts_file(o, opt, path, &n))) return -1;
        snprintf(path, sizeof path, "%s.dump", arg);
        if (!(d = imageopts_file(o, opt, path, &m))) return -1;
        return imageopts_status(opt, arg, ptc_image_add_pagecache(&o->image, b, n, d, m)) ? 1 : -1;
    }
    if (!imageopts_split(opt, arg, strcmp(opt, "--image") == 0, &number, &has)) return -1;
    if (!(b = imageopts_file(o, opt, arg, &n))) return -1;
    if (strcmp(opt, "--elf") == 0) return imageopts_status(opt, arg, ptc_image_add_elf(&o->image, b, n, number)) ? 1 : -1;
    return imageopts_status(opt, arg, ptc_image_add(&o->image, number, b, n)) ? 1 : -1;
}

UTIL_FN void imageopts_free(image_options *o)
{
    size_t k;
    for (k = 0; k < o->nfiles; k++) free(o->files[k]);
    o->nfiles = 0;
}

#endif
