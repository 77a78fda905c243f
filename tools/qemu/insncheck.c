/* insncheck - the proof of the QEMU plugin: libipt's instruction flow
   decoder (not ptcodec) reconstructs the executed instructions from the
   trace the model wrote and the code image the plugin saved, and they
   must be exactly the instructions the plugin logged, one for one.

     insncheck TRACE CODE.json INSNS [--retirements OUT]

   TRACE is a trace (prog.pt or prog.pt.tN), CODE.json the plugin's code
   image index (prog.pt.code.json; its "file" is found beside it), INSNS
   the instruction log (insns=FILE). Prints how many instructions agree;
   exit status 0 when all do and libipt decoded to the end without an
   error, 1 on the first difference or decoder error (with its place), 2
   when an input cannot be read.

   --retirements OUT writes, in stream order, the retirements (SPEC.md
   4.1) libipt's flow implies, one a line, for checking ptcodec's
   navigation against: "tnt 0|1" for a conditional branch (its outcome),
   "ret IP" for a near RET (a taken TNT bit when compressed, else a TIP to
   IP), "tip IP" for an indirect JMP or CALL. */
#define _POSIX_C_SOURCE 200809L
#include <intel-pt.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/util.h"
#define PTCODEC_IMPLEMENTATION
#define PTCODEC_STATIC
#include "../../ptcodec.h"

/* The decimal number after "key": in text at or after p, or 0 if none. */
static int json_u64(const char *p, const char *key, uint64_t *v)
{
    const char *at = strstr(p, key);
    size_t n;
    if (!at) return 0;
    at += strlen(key);
    n = strspn(at, "0123456789");
    return util_parse_digits(at, n, 10, UINT64_MAX, v);
}

/* Adds every range of the code image index to image, through a section
   cache (each file section mapped once, not at every instruction). */
static int load_image(struct pt_image *image, struct pt_image_section_cache *iscache, const char *index_path)
{
    size_t len, dir_len;
    char *text = (char *)util_read_file(index_path, &len), *p, file[4096];
    const char *slash = strrchr(index_path, '/'), *name, *name_end;
    int ranges = 0;
    if (!text) return -1;
    name = strstr(text, "\"file\":\"");
    name_end = name ? strchr(name + 8, '"') : NULL;
    dir_len = slash ? (size_t)(slash - index_path + 1) : 0;
    if (!name || !name_end || dir_len + (size_t)(name_end - name - 8) >= sizeof file) {
        free(text);
        return -1;
    }
    memcpy(file, index_path, dir_len);
    memcpy(file + dir_len, name + 8, (size_t)(name_end - name - 8));
    file[dir_len + (size_t)(name_end - name - 8)] = 0;
    for (p = strstr(text, "{\"vaddr\":"); p; p = strstr(p + 1, "{\"vaddr\":")) {
        uint64_t vaddr, size, offset;
        int isid;
        if (!json_u64(p, "\"vaddr\":", &vaddr) || !json_u64(p, "\"size\":", &size) ||
            !json_u64(p, "\"offset\":", &offset) ||
            (isid = pt_iscache_add_file(iscache, file, offset, size, vaddr)) < 0 ||
            pt_image_add_cached(image, iscache, isid, NULL) < 0) {
            free(text);
            return -1;
        }
        ranges++;
    }
    free(text);
    return ranges;
}

typedef struct expect {
    FILE *f;
    uint64_t index;   /* instructions compared so far */
    uint64_t recent[4];
} expect;

/* The next logged address; 0 at the end of the log (or at a line that is
   not one hex number). */
static int next_logged(expect *e, uint64_t *ip)
{
    char line[64];
    if (!fgets(line, sizeof line, e->f)) return 0;
    return util_parse_digits(line, strcspn(line, "\n"), 16, UINT64_MAX, ip);
}

/* The retirement of the instruction before the current one, now that
   where it went (next_ip) is known. */
typedef struct retirements {
    FILE *f;
    struct pt_insn last;
    int have_last;
} retirements;

static void retirement_of_last(retirements *r, uint64_t next_ip)
{
    const struct pt_insn *in = &r->last;
    if (!r->f || !r->have_last) return;
    r->have_last = 0;
    if (in->iclass == ptic_cond_jump) fprintf(r->f, "tnt %d\n", next_ip != in->ip + in->size);
    else if (in->iclass == ptic_return) fprintf(r->f, "ret %" PRIx64 "\n", next_ip);
    else if (in->iclass == ptic_jump || in->iclass == ptic_call) {
        /* only indirect ones make a packet (libipt keeps is_direct to
           itself): ptcodec's x86 decoder reads the bytes */
        ptc_x86_insn x;
        if (ptc_x86_decode(in->raw, in->size, PTC_X86_64, in->ip, &x) == PTC_OK &&
            (x.iclass == PTC_X86_JMP_IND || x.iclass == PTC_X86_CALL_IND))
            fprintf(r->f, "tip %" PRIx64 "\n", next_ip);
    }
}

static void print_recent(const expect *e)
{
    uint64_t k, first = e->index > 4 ? e->index - 4 : 0;
    for (k = first; k < e->index; k++) fprintf(stderr, "    #%" PRIu64 ": %" PRIx64 "\n", k, e->recent[k % 4]);
}

int main(int argc, char **argv)
{
    struct pt_config config;
    struct pt_insn_decoder *dec;
    struct pt_image_section_cache *iscache;
    size_t len;
    uint8_t *trace;
    expect e;
    int status, failed = 0, images;
    uint64_t want;
    util_prog = "insncheck";
    retirements ret;
    memset(&ret, 0, sizeof ret);
    if (argc == 6 && strcmp(argv[4], "--retirements") == 0) {
        ret.f = fopen(argv[5], "w");
        if (!ret.f) {
            fprintf(stderr, "insncheck: cannot write %s\n", argv[5]);
            return 2;
        }
    } else if (argc != 4) {
        fprintf(stderr, "usage: insncheck TRACE CODE.json INSNS [--retirements OUT]\n");
        return 2;
    }
    trace = util_read_file(argv[1], &len);
    memset(&e, 0, sizeof e);
    e.f = fopen(argv[3], "r");
    if (!trace || !e.f) {
        fprintf(stderr, "insncheck: cannot read %s\n", trace ? argv[3] : argv[1]);
        return 2;
    }
    pt_config_init(&config);
    config.begin = trace;
    config.end = trace + len;
    dec = pt_insn_alloc_decoder(&config);
    iscache = pt_iscache_alloc(NULL);
    if (iscache) pt_iscache_set_limit(iscache, UINT64_C(1) << 32);
    images = dec && iscache ? load_image(pt_insn_get_image(dec), iscache, argv[2]) : -1;
    if (images <= 0) {
        fprintf(stderr, "insncheck: cannot load the code image %s\n", argv[2]);
        return 2;
    }
    for (status = pt_insn_sync_forward(dec); status >= 0 && !failed;) {
        struct pt_insn insn;
        while (status >= 0 && (status & pts_event_pending)) {
            struct pt_event ev;
            status = pt_insn_event(dec, &ev, sizeof ev);
        }
        if (status < 0) break;
        status = pt_insn_next(dec, &insn, sizeof insn);
        if (status < 0) break;
        if (!next_logged(&e, &want)) {
            fprintf(stderr, "insncheck: libipt decoded %" PRIx64 " after the log's last instruction (#%" PRIu64 ")\n",
                    insn.ip, e.index);
            failed = 1;
        } else if (insn.ip != want) {
            fprintf(stderr, "insncheck: instruction #%" PRIu64 ": libipt decoded %" PRIx64 ", the program ran %" PRIx64
                            "; before it:\n", e.index, insn.ip, want);
            print_recent(&e);
            failed = 1;
        } else {
            e.recent[e.index % 4] = want;
            e.index++;
            retirement_of_last(&ret, insn.ip);
            ret.last = insn;
            ret.have_last = 1;
        }
    }
    if (!failed && status < 0 && status != -pte_eos) {
        uint64_t off = 0;
        pt_insn_get_offset(dec, &off);
        fprintf(stderr, "insncheck: libipt stopped at trace offset %" PRIu64 " after %" PRIu64 " instructions: %s\n", off,
                e.index, pt_errstr(pt_errcode(status)));
        print_recent(&e);
        failed = 1;
    }
    if (!failed && next_logged(&e, &want)) {
        fprintf(stderr, "insncheck: the trace ends after %" PRIu64 " instructions, the log goes on with %" PRIx64 "\n",
                e.index, want);
        failed = 1;
    }
    printf("%s: %" PRIu64 " instructions %s\n", argv[1], e.index, failed ? "agree before the first difference" : "agree");
    pt_insn_free_decoder(dec);
    pt_iscache_free(iscache);
    if (ret.f && fclose(ret.f) != 0) failed = 1;
    free(trace);
    fclose(e.f);
    return failed;
}
