/* ptdump - print the packets of a raw Intel PT trace (SPEC.md 1.10), with
   their times (3.9) when asked, or check it against the SDM's rules (7.4). */
#define _POSIX_C_SOURCE 200809L /* mmap, sysconf: -j (dump_parallel) */
#define PTCODEC_IMPLEMENTATION
#include "imageopts.h"
#include "../ptcodec.h"
#include "dumpfmt.h"
#include "modelcfg.h"
#include "perfaux.h"
#include "clockopts.h"
#include "clockcheck.h"
#include "progress.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* the help, in two literals (C99's limit is 4095 characters), joined in
   usage at the start of main */
static const char usage_head[] =
    "usage: ptdump [options] FILE\n"
    "Print every packet of the raw Intel PT trace FILE (- for standard input),\n"
    "or of every AUX queue of FILE when it is a perf.data (SPEC.md part 6; on\n"
    "standard input too, as perf record -o - writes it): one trace per queue,\n"
    "its settings (--time needs none) from the file.\n"
    "\n"
    "  --no-sync   decode from the first byte instead of the first PSB\n"
    "  --jsonl     one JSON object per line instead of libipt-style text\n"
    "  --time      the time of every packet: a point estimate and an interval\n"
    "              [lo, hi] that holds the true TSC (SPEC.md part 3); conflicts\n"
    "              end the run with a line on stderr naming the setting most\n"
    "              likely wrong\n"
    "  --events    only the events: every packet but PAD, MTC, CYC, TSC and TMA,\n"
    "              and the errors; with --time on a raw trace, timed by the\n"
    "              events decoder (SPEC.md 3.13), faster than the full clock\n"
    "  --check     check the trace against every packet-generation rule of the\n"
    "              SDM (SPEC.md part 7): one line per finding instead of packets.\n"
    "              Needs no settings; --config, --policy, --cpu F/M, --errata and a\n"
    "              perf.data's recorded settings tighten it, and the clock's\n"
    "              (--mtc-freq, --nom-freq, --cpuid-0x15.*, --cyc-thresh) add the\n"
    "              time rules\n"
    "  --stats     no packets: how many of each type and their bytes, the decode\n"
    "              errors, the PSBs and (with --time) the time the trace spans\n"
    "              and its conflicts\n"
    "  --rules     list the rules --check holds a trace to, and exit\n";
static char usage[sizeof usage_head + 4096];
static const char usage_tail[] =
    "  --insn      the instructions the trace ran (SPEC.md 9.4), from the code\n"
    "              the image options below give, or a perf.data's MMAP records:\n"
    "              one IP a line (as libipt's ptxed prints them without\n"
    "              disassembly), a line per error\n"
    "  --blocks    the same lines, decoded a basic block at a time through a\n"
    "              block cache (SPEC.md 9.3)\n"
    "  --coverage MAP  write the trace's edges to the file MAP, a byte a slot as\n"
    "              AFL's (SPEC.md 9.5): from the flow with the image options,\n"
    "              else from the packets alone; says how many\n"
    "  --map-size N  MAP's size in bytes, a power of two (default 65536)\n"
    IMAGEOPTS_USAGE
    "  -j N        decode a raw trace file on N threads (1 to 256; default: the\n"
    "              cores); the output is the same. --time and --check, standard\n"
    "              input and small files use two: one decodes, one prints\n"
    "  --config F  the configuration ptsim wrote beside the trace (OUT.pt.json);\n"
    "              with ring_written in it, FILE is a snapshot ring (SPEC 4.5)\n"
    "  --policy P  the trace's MTC suppression: off, seed (Intel's patent's, SPEC.md\n"
    "              2.1), or key=value,... as for\n"
    "              ptsim --policy; unknown (time only) assumes no policy. Default:\n"
    "              the --config's, else off (hardware that follows the SDM)\n"
    "  the trace's configuration, by libipt's names (override --config):\n"
    "  --mtc-freq N --nom-freq N --cpuid-0x15.eax N --cpuid-0x15.ebx N\n"
    "  --cyc-thresh N  the CYC threshold (0..15, IA32_RTIT_CTL.CycThresh; default:\n"
    "              unknown, bounded by the CYCs seen; --config and a perf.data give it)\n"
    "  --cyc-bits N  width of the cycle counter, 1 to 64 (default 32)\n"
    "  --mtc-jitter N  an MTC goes out up to N core cycles after its edge\n"
    "              (default 4 for hardware, the model's setting with --config)\n"
    "  --rate-ppm N  the core clock wobbles up to N ppm against the ART\n"
    "              (default 5000 for hardware, 0 with --config)\n"
    "  --mtc-lost N  up to N MTCs in a row may be lost (errata; default 1 for\n"
    "              hardware, 0 with --config)\n"
    "  --cpu F/M[/S]  the recording CPU's family/model[/stepping] (decimal, or\n"
    "              0x hex), as libipt's --cpu: selects the errata the clock and the\n"
    "              decoder allow for (SPEC 3.12; a perf.data's CPUID without it)\n"
    "  --cpu N     a perf.data: only the queue of cpu N (or idx N, per-thread)\n"
    "  --sideband  a perf.data: each queue's COMM, MMAP, ITRACE_START and SWITCH\n"
    "              records among its packets, by time with --time (else after its\n"
    "              header line)\n"
    "  --errata E,...  errata by name, in addition:" CLOCKOPT_ERRATA_NAMES "\n"
    "  --help      this text\n"
    "\n"
    "Exit status: 0 decoded without errors, 1 the input had errors, 2 bad\n"
    "usage or unreadable input. With --check: 0 no violation and no malformed\n"
    "packet, 1 some (a packet cut by the end of the input is neither). Output\n"
    "format: SPEC.md sections 1.10, 3.9 and 7.4.\n";

enum { CHUNK = 65536 };

/* --stats: what the trace holds, in place of its packets */
typedef struct dump_stats {
    uint64_t packets[PTC_PACKET_TYPE_COUNT], bytes[PTC_PACKET_TYPE_COUNT];
    uint64_t timed, first_tsc, last_tsc; /* the items with a time, the first and last */
} dump_stats;

typedef struct printer {
    int jsonl, check, errors;
    int stats;
    dump_stats st;
    /* --check: the checker of the trace being read, with the settings it
       starts from, and what it found */
    ptc_conform conform;
    ptc_conform_config conf;
    uint64_t packets, by_severity[PTC_SEVERITY_COUNT], malformed;
    /* --sideband: the file's sideband records, the queue they are shown for,
       the next one not shown, and perf's time conversion */
    int sideband;
    const perfaux_side *side;
    size_t nside, next_side;
    const perf_chunk *queue;
    ptc_perf_pt_info info;
    int perf_time;         /* a perf.data with its time conversion: --time also in perf's ns */
    char tag[96];          /* --jsonl of a perf.data: the queue's fields, on every line */
    int events;            /* --events: the events only (ptc_events_is_event) */
    /* --time: what the trace measures of the clock settings, and the
       conflicts, for the line on stderr at the end (tools/clockcheck.h) */
    int time_check;
    clockcheck_witness ck;
    ptc_clock_config clockcheck_cc;
    char line[640];
    /* what goes to stdout, written a block at a time (out_flush): one
       fwrite per line was a fifth of the listing's time. With -j, a
       worker's printer gathers its segments' text in mem instead. */
    char out[1 << 16];
    size_t out_len;
    struct text_buf *mem;
} printer;

/* Text kept in memory; failed once it could not grow. */
typedef struct text_buf { char *s; size_t len, cap; int failed; } text_buf;

static void text_append(text_buf *t, const char *s, size_t n)
{
    if (t->failed) return;
    if (n > t->cap - t->len) {
        size_t cap = t->cap ? t->cap : 1 << 20;
        char *grown;
        while (n > cap - t->len) cap *= 2;
        grown = (char *)realloc(t->s, cap);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->s = grown;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
}

/* n bytes to where this printer's output goes: stdout, or with -j a
   worker's text */
static void out_sink(printer *pr, const char *s, size_t n)
{
    if (pr->mem) text_append(pr->mem, s, n);
    else fwrite(s, 1, n, stdout);
}

static void out_flush(printer *pr)
{
    if (pr->out_len) out_sink(pr, pr->out, pr->out_len);
    pr->out_len = 0;
}

static void out_write(printer *pr, const char *s, size_t n)
{
    if (n > sizeof pr->out - pr->out_len) out_flush(pr);
    if (n > sizeof pr->out) {
        out_sink(pr, s, n);
        return;
    }
    memcpy(pr->out + pr->out_len, s, n);
    pr->out_len += n;
}

static void out_printf(printer *pr, const char *fmt, ...)
{
    char t[1024], *long_line;
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof t) {
        out_write(pr, t, (size_t)n);
        return;
    }
    long_line = (char *)malloc((size_t)n + 1); /* longer than t: formatted again */
    if (!long_line) {
        if (pr->mem) pr->mem->failed = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(long_line, (size_t)n + 1, fmt, ap);
    va_end(ap);
    out_write(pr, long_line, (size_t)n);
    free(long_line);
}

/* --sideband: the queue's sideband records up to perf time `until`
   (UINT64_MAX: all that are left). */
static void print_sideband(printer *pr, uint64_t until)
{
    for (; pr->next_side < pr->nside; pr->next_side++) {
        const perfaux_side *e = &pr->side[pr->next_side];
        if (e->have_time && e->time > until) break;
        if (!perfaux_side_of_queue(e, pr->queue)) continue;
        if (pr->jsonl) {
            dumpfmt_buf b;
            b.s = pr->line; b.cap = sizeof pr->line; b.len = 0;
            dumpfmt_printf(&b, "{%s,\"sideband_time\":%llu", pr->tag, (unsigned long long)e->time);
            dumpfmt_json_string(&b, "sideband", e->text); /* (file names and comms come from the file) */
            out_printf(pr, "%s}\n", pr->line);
        } else {
            out_printf(pr, "[sideband %llu: %s]\n", (unsigned long long)e->time, e->text);
        }
    }
}

/* The line built in pr->line (len bytes) out, with a perf.data queue's
   fields first in a JSON object. */
static void emit_line(printer *pr, size_t len)
{
    size_t from = 0;
    if (pr->jsonl && pr->tag[0] && pr->line[0] == '{') {
        out_write(pr, "{", 1);
        out_write(pr, pr->tag, strlen(pr->tag));
        out_write(pr, ",", 1);
        from = 1;
    }
    pr->line[len++] = '\n'; /* (in the NUL's place: a dumpfmt_buf's len stays below its cap) */
    out_write(pr, pr->line + from, len - from);
}

/* An item's line is built where it goes: at the end of the output block,
   with room for the longest line (flushed first when there is none), so
   that it is not copied there after. Only a perf.data queue's JSON, whose
   fields go in front, is built in pr->line and copied by emit_line. */
static void line_begin(printer *pr, dumpfmt_buf *b)
{
    if (pr->jsonl && pr->tag[0]) {
        b->s = pr->line;
    } else {
        if (sizeof pr->out - pr->out_len < sizeof pr->line) out_flush(pr);
        b->s = pr->out + pr->out_len;
    }
    b->cap = sizeof pr->line;
    b->len = 0;
    b->s[0] = 0;
}

static void line_end(printer *pr, dumpfmt_buf *b)
{
    if (b->s == pr->line) {
        emit_line(pr, b->len);
        return;
    }
    b->s[b->len] = '\n'; /* (in the NUL's place: a dumpfmt_buf's len stays below its cap) */
    pr->out_len += b->len + 1;
}

/* A finding's line (SPEC 7.4): "%016llx  %-10s  %-18s  [%s]  %s", the
   offset, severity, rule, SDM section and text, and " (erratum E)" */
static void finding_text(dumpfmt_buf *b, const ptc_finding *f)
{
    dumpfmt_hex(b, f->offset, 16);
    dumpfmt_put(b, "  ", 2);
    dumpfmt_str_padded(b, ptc_severity_name(f->severity), 10);
    dumpfmt_put(b, "  ", 2);
    dumpfmt_str_padded(b, ptc_rule_name(f->rule), 18);
    dumpfmt_put(b, "  [", 3);
    dumpfmt_str(b, ptc_rule_sdm(f->rule));
    dumpfmt_put(b, "]  ", 3);
    dumpfmt_str(b, ptc_rule_text(f->rule));
    if (f->erratum) {
        dumpfmt_put(b, " (erratum ", 10);
        dumpfmt_str(b, ptc_erratum_name(f->erratum));
        dumpfmt_put(b, ")", 1);
    }
}

/* and as JSON: {"off","rule","severity","sdm","msg"[,"erratum"]} (a
   perf.data queue's fields go in front, as on every line) */
static void finding_json(dumpfmt_buf *b, const ptc_finding *f)
{
    dumpfmt_put(b, "{\"off\":", 7);
    dumpfmt_dec(b, f->offset);
    dumpfmt_put(b, ",\"rule\":\"", 9);
    dumpfmt_str(b, ptc_rule_name(f->rule));
    dumpfmt_put(b, "\",\"severity\":\"", 14);
    dumpfmt_str(b, ptc_severity_name(f->severity));
    dumpfmt_put(b, "\",\"sdm\":\"", 9);
    dumpfmt_str(b, ptc_rule_sdm(f->rule));
    dumpfmt_put(b, "\",\"msg\":\"", 9);
    dumpfmt_str(b, ptc_rule_text(f->rule));
    if (f->erratum) {
        dumpfmt_put(b, "\",\"erratum\":\"", 13);
        dumpfmt_str(b, ptc_erratum_name(f->erratum));
    }
    dumpfmt_put(b, "\"}", 2);
}

/* --check: whether the options give the time rules a clock (SPEC 7.3.5):
   its settings, or --cyc-thresh alone for where CYCs go. */
static int check_has_clock(const clock_options *o) { return clockopt_has_clock(o) || o->numset[CLOCKOPT_CYC_THRESH]; }

/* --check's configuration (SPEC 7.4): what the base (the perf.data's or
   --config's) says, then the options. With clock settings (given, or the
   base's), the clock's trace and tolerances turn the time rules on; a
   policy --policy gives is held whether MTCs may be lost or not; --cpu and
   --errata name the CPU. */
static void check_config(ptc_conform_config *conf, const ptc_clock_config *cc, int with_clock, int policy_given,
                         const clock_options *o)
{
    if (with_clock) {
        conf->trace = cc->trace;
        conf->real = cc->real;
    }
    if (policy_given) {
        conf->trace.known |= PTC_KNOW_POLICY;
        conf->trace.policy = cc->trace.policy;
        conf->real.mtc_lost = 0;
    }
    if (o->policy_unknown) conf->trace.known &= ~(uint32_t)PTC_KNOW_POLICY;
    conf->trace.errata |= o->errata;
    if (o->cpu_known) conf->trace.known |= PTC_KNOW_CPU;
}

/* --check: the rules an item breaks, a line each (SPEC 7.4). A decode
   error is printed as without --check. */
static void check_item(printer *pr, const ptc_item *it)
{
    ptc_finding f[PTC_CONFORM_MAX_FINDINGS];
    size_t n = ptc_conform_item(&pr->conform, it, f), i;
    dumpfmt_buf b;
    if (it->error != PTC_OK) {
        b.s = pr->line; b.cap = sizeof pr->line; b.len = 0;
        if (pr->jsonl) dumpfmt_json(&b, it); else dumpfmt_text(&b, it);
        emit_line(pr, b.len);
        /* neither a cut trace nor an erratum's damage is malformed (SPEC 7.4) */
        pr->malformed += it->error != PTC_ERR_TRUNCATED && it->error != PTC_ERR_CUT_CYC && it->error != PTC_ERR_CORRUPT_TMA;
        return;
    }
    pr->packets++;
    for (i = 0; i < n; i++) {
        pr->by_severity[f[i].severity]++;
        line_begin(pr, &b);
        if (pr->jsonl) finding_json(&b, &f[i]); else finding_text(&b, &f[i]);
        line_end(pr, &b);
    }
}

/* --check: the closing line, and the exit status it makes. */
static int check_summary(printer *pr)
{
    unsigned long long v = pr->by_severity[PTC_SEV_VIOLATION], s = pr->by_severity[PTC_SEV_SUSPICIOUS],
                       e = pr->by_severity[PTC_SEV_ERRATUM], m = pr->malformed;
    if (pr->jsonl)
        out_printf(pr, "{\"packets\":%llu,\"violation\":%llu,\"suspicious\":%llu,\"erratum\":%llu,\"malformed\":%llu}\n",
               (unsigned long long)pr->packets, v, s, e, m);
    else
        out_printf(pr, "[check: %llu packets; %llu violations, %llu suspicious, %llu explained by errata; %llu malformed packets]\n",
               (unsigned long long)pr->packets, v, s, e, m);
    return v || m ? 1 : 0;
}

/* --stats: one item counted. */
static void stats_item(printer *pr, const ptc_item *it, const ptc_timed_item *t)
{
    dump_stats *d = &pr->st;
    if (it->error != PTC_OK) pr->errors++;
    else if ((unsigned)it->pkt.type < PTC_PACKET_TYPE_COUNT) {
        d->packets[it->pkt.type]++;
        d->bytes[it->pkt.type] += it->pkt.size;
    }
    if (t && t->have_time) {
        if (!d->timed++) d->first_tsc = t->tsc;
        d->last_tsc = t->tsc;
    }
}

/* --stats: the summary, a line per packet type present, then the totals. */
static int stats_summary(printer *pr)
{
    const dump_stats *d = &pr->st;
    unsigned long long packets = 0, bytes = 0;
    int k;
    if (!pr->jsonl) out_printf(pr, "%-12s %12s %14s\n", "type", "packets", "bytes");
    for (k = 1; k < PTC_PACKET_TYPE_COUNT; k++) {
        if (!d->packets[k]) continue;
        packets += d->packets[k];
        bytes += d->bytes[k];
        if (pr->jsonl)
            out_printf(pr, "{\"type\":\"%s\",\"packets\":%llu,\"bytes\":%llu}\n", ptc_packet_type_name((ptc_packet_type)k),
                   (unsigned long long)d->packets[k], (unsigned long long)d->bytes[k]);
        else
            out_printf(pr, "%-12s %12llu %14llu\n", ptc_packet_type_name((ptc_packet_type)k), (unsigned long long)d->packets[k],
                   (unsigned long long)d->bytes[k]);
    }
    if (pr->jsonl) {
        out_printf(pr, "{\"packets\":%llu,\"bytes\":%llu,\"errors\":%d,\"psb\":%llu", packets, bytes, pr->errors,
               (unsigned long long)d->packets[PTC_PSB]);
        if (d->timed) out_printf(pr, ",\"time_first\":\"0x%llx\",\"time_last\":\"0x%llx\",\"conflicts\":%llu",
                             (unsigned long long)d->first_tsc, (unsigned long long)d->last_tsc,
                             (unsigned long long)pr->ck.conflicts);
        out_printf(pr, "}\n");
    } else {
        out_printf(pr, "[stats: %llu packets, %llu bytes, %d decode errors, %llu PSBs", packets, bytes, pr->errors,
               (unsigned long long)d->packets[PTC_PSB]);
        if (d->timed) out_printf(pr, "; time %llx to %llx, %llu ticks, %llu conflicts", (unsigned long long)d->first_tsc,
                             (unsigned long long)d->last_tsc, (unsigned long long)(d->last_tsc - d->first_tsc),
                             (unsigned long long)pr->ck.conflicts);
        out_printf(pr, "]\n");
    }
    return pr->errors ? 1 : 0;
}

/* --time's last word on stderr, after the output: the conflicts and the
   setting the trace most likely contradicts, and what an erratum costs
   (SPEC 3.9). */
static void settings_report(const printer *pr, const ptc_clock_config *cc)
{
    char line[512];
    fflush(stdout);
    if (clockcheck_report_line(&pr->ck, cc, line, sizeof line)) fprintf(stderr, "%s\n", line);
    if (clockcheck_errata_line(&pr->ck, cc, line, sizeof line)) fprintf(stderr, "%s\n", line);
}

/* What the run ends with: --check's and --stats's summaries, and the exit
   status (1: a violation, or a decode error). */
static int finish_output(printer *pr)
{
    /* (with --check, errors are the file's: a perf.data cut short or
       holding no trace is not a clean trace either) */
    if (pr->check) return check_summary(pr) || pr->errors ? 1 : 0;
    if (pr->stats) return stats_summary(pr);
    return pr->errors ? 1 : 0;
}

/* One item out: its line (with its time, when there is one), or with
   --check the rules it breaks, or with --stats nothing but its count. */
static void print_item(printer *pr, const ptc_item *it, const ptc_timed_item *t)
{
    dumpfmt_buf b;
    if (pr->time_check) clockcheck_item(&pr->ck, it, t);
    if (pr->events && !ptc_events_is_event(it)) return;
    if (pr->check) {
        check_item(pr, it);
        return;
    }
    if (pr->stats) {
        stats_item(pr, it, t);
        return;
    }
    if (pr->sideband && t && t->have_time) print_sideband(pr, ptc_perf_tsc_to_ns(&pr->info, t->tsc));
    line_begin(pr, &b);
    if (pr->jsonl) dumpfmt_json(&b, it); else dumpfmt_text(&b, it);
    if (t) { if (pr->jsonl) dumpfmt_time_json(&b, t); else dumpfmt_time_text(&b, t); }
    if (t && t->have_time && pr->perf_time) { /* perf's time base, to match a perf script line */
        uint64_t ns = ptc_perf_tsc_to_ns(&pr->info, t->tsc);
        if (pr->jsonl && b.len && b.s[b.len - 1] == '}') b.len--, dumpfmt_printf(&b, ",\"perf_ns\":%llu}", (unsigned long long)ns);
        else if (!pr->jsonl) dumpfmt_printf(&b, " perf %llu.%09llu", (unsigned long long)(ns / 1000000000u),
                                       (unsigned long long)(ns % 1000000000u));
    }
    line_end(pr, &b);
    pr->errors += it->error != PTC_OK;
}

/* Where decoded items go: printed (print_sink, user a printer), or with
   -j handed to the printing thread (pipe_sink). t: the item's time with
   --time, else NULL. */
typedef void (*item_sink)(void *user, const ptc_item *it, const ptc_timed_item *t);

static void print_sink(void *pr, const ptc_item *it, const ptc_timed_item *t) { print_item((printer *)pr, it, t); }

static void drain_clock(ptc_clock *clk, item_sink sink, void *user)
{
    ptc_timed_item t;
    while (ptc_clock_pop(clk, &t) == PTC_OK) sink(user, &t.item, &t);
}

/* A decoded item: to the sink now, or through the clock with --time. */
static void take_item(ptc_clock *clk, int timed, const ptc_item *it, item_sink sink, void *user)
{
    if (!timed) {
        sink(user, it, NULL);
        return;
    }
    (void)ptc_clock_push(clk, it); /* cannot be full: drained after every push */
    drain_clock(clk, sink, user);
}

/* ---- perf.data (SPEC 6.3): one trace per AUX queue ---------------------- */

/* What a record says of lost data, or that the reader skipped it, where
   it is in the file (perfaux_collect's callback). */
static void print_perf_record(void *user, const ptc_perf_record *r, uint64_t len)
{
    printer *pr = (printer *)user;
    char what[160];
    what[0] = 0;
    if (r->error != PTC_OK && !(r->type == PTC_PERF_AUXTRACE && r->error == PTC_ERR_TRUNCATED)) {
        snprintf(what, sizeof what, "%s record: %s, skipped", ptc_perf_record_name(r->type), ptc_status_name(r->error));
    } else if (r->type == PTC_PERF_AUXTRACE && r->error == PTC_ERR_TRUNCATED) {
        snprintf(what, sizeof what, "auxtrace cut short by the end of the file: %llu bytes", (unsigned long long)len);
    } else if (r->type == PTC_PERF_AUX && (r->u.aux.flags & (PTC_PERF_AUX_TRUNCATED | PTC_PERF_AUX_COLLISION | PTC_PERF_AUX_PARTIAL))) {
        snprintf(what, sizeof what, "aux: aux data at %llu, %llu bytes:%s%s%s%s", (unsigned long long)r->u.aux.aux_offset,
                 (unsigned long long)r->u.aux.aux_size, r->u.aux.flags & PTC_PERF_AUX_TRUNCATED ? " truncated" : "",
                 r->u.aux.flags & PTC_PERF_AUX_OVERWRITE ? " overwrite" : "",
                 r->u.aux.flags & PTC_PERF_AUX_PARTIAL ? " partial" : "",
                 r->u.aux.flags & PTC_PERF_AUX_COLLISION ? " collision" : "");
    } else if (r->type == PTC_PERF_LOST) {
        snprintf(what, sizeof what, "lost: %llu events lost", (unsigned long long)r->u.lost.lost);
    } else if (r->type == PTC_PERF_AUXTRACE_ERROR) {
        snprintf(what, sizeof what, "auxtrace_error: decoder error %u on cpu %u: %s", r->u.auxtrace_error.code,
                 r->u.auxtrace_error.cpu, r->u.auxtrace_error.msg);
    }
    if (!what[0]) return;
    /* (only partial or collision: data kept, not lost) */
    pr->errors += r->type != PTC_PERF_AUX || (r->u.aux.flags & PTC_PERF_AUX_TRUNCATED);
    if (pr->jsonl) {
        dumpfmt_buf b;
        b.s = pr->line; b.cap = sizeof pr->line; b.len = 0;
        dumpfmt_printf(&b, "{\"perf_off\":%llu", (unsigned long long)r->offset);
        dumpfmt_json_string(&b, "what", what); /* (a decoder error's message comes from the file) */
        out_printf(pr, "%s}\n", pr->line);
    } else {
        out_printf(pr, "[perf.data %llx: %s]\n", (unsigned long long)r->offset, what);
    }
}

/* The line before a queue's items; with --jsonl it also sets the fields
   every line of the queue starts with. */
/* A queue's line: "[perf.data queue Q (cpu C, tid T): B bytes in K chunks]". */
static void queue_title(char *out, size_t cap, const perf_chunk *c, size_t from, size_t to)
{
    uint64_t bytes = 0;
    size_t i, n = to - from;
    for (i = from; i < to; i++) bytes += c[i].size;
    snprintf(out, cap, "[perf.data %s %llu (cpu %d, tid %d): %llu bytes in %zu chunk%s]", c[from].sample ? "aux sample" : "queue",
             (unsigned long long)c[from].queue, c[from].cpu == UINT32_MAX ? -1 : (int)c[from].cpu,
             c[from].tid == UINT32_MAX ? -1 : (int)c[from].tid, (unsigned long long)bytes, n, n == 1 ? "" : "s");
}

static void queue_header(printer *pr, const perf_chunk *c, size_t from, size_t to)
{
    uint64_t bytes = 0;
    size_t i, n = to - from;
    for (i = from; i < to; i++) bytes += c[i].size;
    if (!pr->jsonl) {
        char title[200];
        queue_title(title, sizeof title, c, from, to);
        out_printf(pr, "%s\n", title);
        return;
    }
    snprintf(pr->tag, sizeof pr->tag, "\"queue\":%llu%s", (unsigned long long)c[from].queue, c[from].sample ? ",\"sample\":true" : "");
    if (c[from].cpu != UINT32_MAX) snprintf(pr->tag + strlen(pr->tag), sizeof pr->tag - strlen(pr->tag), ",\"cpu\":%u", c[from].cpu);
    if (c[from].tid != UINT32_MAX) snprintf(pr->tag + strlen(pr->tag), sizeof pr->tag - strlen(pr->tag), ",\"tid\":%u", c[from].tid);
    out_printf(pr, "{%s,\"bytes\":%llu,\"chunks\":%zu}\n", pr->tag, (unsigned long long)bytes, n);
}

/* Every item the decoder has for what it was fed. */
static void drain_decoder(printer *pr, ptc_decoder *dec, ptc_clock *clk, int timed)
{
    ptc_item it;
    while (ptc_decoder_next(dec, &it) == PTC_OK) take_item(clk, timed, &it, print_sink, pr);
}

/* One queue's chunks [from, to), decoded as one trace: a new decoder (and
   clock) after a gap in the AUX offsets, which is reported. In snapshot
   mode every chunk is a snapshot of its own (they may overlap): each is
   decoded alone, from its first PSB. */
static void dump_queue(printer *pr, const ptc_clock_config *cc, int timed, unsigned flags, int snapshot, const perf_chunk *c,
                       size_t from, size_t to)
{
    static ptc_clock clk;
    ptc_decoder dec;
    size_t i;
    int open = 0;
    queue_header(pr, c, from, to);
    pr->queue = &c[from];
    pr->next_side = 0;
    if (pr->sideband && !timed) print_sideband(pr, UINT64_MAX);
    for (i = from; i <= to; i++) {
        int gap = i < to && open && !snapshot && !perfaux_follows(c, i);
        if (open && (i == to || gap || snapshot)) { /* the end of a contiguous run */
            ptc_decoder_finish(&dec);
            drain_decoder(pr, &dec, &clk, timed);
            if (timed) {
                ptc_clock_finish(&clk);
                drain_clock(&clk, print_sink, pr);
            }
            open = 0;
        }
        if (i == to) break;
        if (gap) { /* bytes missing, or (offset going back) bytes given twice */
            pr->errors++;
            out_printf(pr, pr->jsonl ? "{%s,\"gap_from\":%llu,\"gap_to\":%llu}\n" : "%s[gap: AUX bytes [%llx, %llx) are not in the file]\n",
                   pr->jsonl ? pr->tag : "", (unsigned long long)(c[i - 1].offset + c[i - 1].size), (unsigned long long)c[i].offset);
        }
        if (snapshot && i > from)
            out_printf(pr, pr->jsonl ? "{%s,\"snapshot_at\":%llu}\n" : "%s[snapshot at AUX offset %llx]\n", pr->jsonl ? pr->tag : "",
                   (unsigned long long)c[i].offset);
        if (!open) {
            ptc_decoder_init(&dec, flags | ptc_errata_decode_flags(cc->trace.errata), c[i].offset);
            ptc_conform_init(&pr->conform, &pr->conf);
            if (timed) (void)ptc_clock_init(&clk, cc);
            open = 1;
        }
        (void)ptc_decoder_feed(&dec, c[i].data, (size_t)c[i].size);
        drain_decoder(pr, &dec, &clk, timed);
    }
    if (pr->sideband) print_sideband(pr, UINT64_MAX);
    pr->tag[0] = 0;
}

/* A perf.data given on standard input (`perf record -o -` writes pipe mode
   there): its first bytes, already read, and the rest. NULL with errno set
   when it cannot be read. */
static uint8_t *read_rest_of_stdin(const uint8_t *head, size_t head_n, size_t *len)
{
    size_t rest_n = 0;
    uint8_t *rest = util_read_stream(stdin, &rest_n), *all;
    if (!rest) return NULL;
    all = (uint8_t *)malloc(head_n + rest_n + 1);
    if (all) {
        memcpy(all, head, head_n);
        memcpy(all + head_n, rest, rest_n);
        *len = head_n + rest_n;
    } else {
        errno = ENOMEM;
    }
    free(rest);
    return all;
}

/* A perf.data: every queue (or the one --cpu N selects), each decoded and
   timed on its own with the settings the file records. head: the bytes
   already read from standard input (path "-"), else NULL. */
static int dump_perf(printer *pr, const clock_options *o, const ptc_mtc_policy *policy, int policy_given, int timed, unsigned flags,
                     long only_queue, const char *path, const uint8_t *head, size_t head_n)
{
    size_t len = 0, i, from, shown;
    uint8_t *buf = head ? read_rest_of_stdin(head, head_n, &len) : util_read_file(path, &len);
    perfaux_file pf;
    const perf_chunk *c;
    size_t n;
    int st;
    if (!buf) {
        fprintf(stderr, "ptdump: cannot read %s: %s\n", path, strerror(errno));
        return 2;
    }
    if (!perfaux_collect(buf, len, &pf, print_perf_record, pr, path)) { free(buf); return 2; }
    c = pf.chunks;
    n = pf.n;
    pr->side = pf.side;
    pr->nside = pf.nside;
    pr->info = pf.info;
    pr->perf_time = pf.info.time_mult != 0;
    if (pf.end != PTC_END) {
        pr->errors++;
        out_printf(pr, pr->jsonl ? "{\"perf_off\":%llu,\"error\":\"%s\",\"what\":\"the rest of the file cannot be read\"}\n"
                         : "[perf.data %llx: %s: the rest of the file cannot be read]\n",
               (unsigned long long)pf.end_offset, ptc_status_name(pf.end));
    }
    if (pf.cut_short) {
        pr->errors++;
        out_printf(pr, pr->jsonl ? "{\"perf_data\":\"cut short\",\"size\":%llu}\n"
                         : "[perf.data: the file ends before its data does (%llu bytes): read up to its end]\n",
               (unsigned long long)len);
    }
    if (pf.features_cut) {
        pr->errors++;
        out_printf(pr, pr->jsonl ? "{\"perf_data\":\"feature sections cut short\",\"size\":%llu}\n"
                         : "[perf.data: the file ends inside its feature sections (%llu bytes): the CPU it names may be lost]\n",
               (unsigned long long)len);
    }
    pf.cc.trace.policy = *policy;
    clockopt_apply(&pf.cc, o);
    pr->conf = pf.conf;
    check_config(&pr->conf, &pf.cc, pf.have_info || check_has_clock(o), policy_given, o);
    if (timed) {
        static ptc_clock probe;
        if (ptc_clock_init(&probe, &pf.cc) != PTC_OK) {
            fprintf(stderr, "ptdump: --time: the perf.data's clock settings with the options are not usable\n");
            perfaux_free(&pf);
            free(buf);
            return 2;
        }
    }
    for (from = 0, shown = 0; from < n; from = i) {
        for (i = from + 1; i < n && c[i].queue == c[from].queue && c[i].sample == c[from].sample; i++) {}
        if (only_queue >= 0 && (c[from].sample || c[from].queue != (uint64_t)only_queue)) continue;
        shown++;
        clockcheck_new_stream(&pr->ck);
        dump_queue(pr, &pf.cc, timed, flags, pf.snapshot, c, from, i);
    }
    if (!n) { /* nothing decoded: said, and not a success */
        out_printf(pr, pr->jsonl ? "{\"perf_data\":\"no Intel PT data\"}\n" : "[perf.data: no Intel PT data in it]\n");
        fprintf(stderr, "ptdump: %s holds no Intel PT data\n", path);
        pr->errors++;
    }
    if (n && only_queue >= 0 && !shown) { /* (as ptnav says it) */
        fprintf(stderr, "ptdump: --cpu %ld: %s has no AUX queue of that cpu\n", only_queue, path);
        perfaux_free(&pf);
        free(buf);
        return 2;
    }
    perfaux_free(&pf);
    free(buf);
    st = finish_output(pr);
    out_flush(pr);
    if (timed) settings_report(pr, &pf.cc);
    if (fflush(stdout) != 0) return 2;
    return st;
}

/* A snapshot ring (SPEC 4.5): the whole buffer, read as a ring that
   `written` bytes went into; then what the history lost. */
static int dump_ring(printer *pr, ptc_clock *clk, int timed, unsigned flags, FILE *in, uint64_t written)
{
    size_t len = 0;
    uint8_t *buf = util_read_stream(in, &len);
    ptc_ring_reader rd;
    ptc_item it;
    uint64_t overwritten, from;
    if (!buf) {
        fprintf(stderr, "ptdump: cannot read the ring: %s\n", strerror(errno));
        return 0;
    }
    if ((written > len && len == 0) || written < len) {
        fprintf(stderr, "ptdump: the ring holds %llu bytes but its configuration says %llu were written\n",
                (unsigned long long)len, (unsigned long long)written);
        free(buf);
        return 0;
    }
    (void)ptc_ring_reader_init_flags(&rd, buf, len, written, flags);
    ptc_conform_init(&pr->conform, &pr->conf);
    while (ptc_ring_reader_next(&rd, &it) == PTC_OK) take_item(clk, timed, &it, print_sink, pr);
    if (timed) {
        ptc_clock_finish(clk);
        drain_clock(clk, print_sink, pr);
    }
    ptc_ring_reader_lost(&rd, &overwritten, &from);
    if (pr->jsonl)
        out_printf(pr, "{\"ring_written\":%llu,\"overwritten\":%llu,\"decoded_from\":%llu}\n", (unsigned long long)written,
               (unsigned long long)overwritten, (unsigned long long)from);
    else
        out_printf(pr, "[ring: %llu bytes written; [0, %llx) overwritten, [%llx, %llx) before the first PSB]\n",
               (unsigned long long)written, (unsigned long long)overwritten, (unsigned long long)overwritten,
               (unsigned long long)from);
    free(buf);
    return 1;
}

/* --rules: the catalogue (SPEC 7.3), a rule a line. */
static int print_rules(int jsonl)
{
    unsigned r;
    for (r = 1; r < PTC_RULE_COUNT; r++) {
        if (jsonl)
            printf("{\"rule\":\"%s\",\"severity\":\"%s\",\"sdm\":\"%s\",\"msg\":\"%s\"}\n", ptc_rule_name((ptc_rule)r),
                   ptc_severity_name(ptc_rule_severity((ptc_rule)r)), ptc_rule_sdm((ptc_rule)r), ptc_rule_text((ptc_rule)r));
        else
            printf("%-18s  %-10s  [%s]  %s\n", ptc_rule_name((ptc_rule)r), ptc_severity_name(ptc_rule_severity((ptc_rule)r)),
                   ptc_rule_sdm((ptc_rule)r), ptc_rule_text((ptc_rule)r));
    }
    return fflush(stdout) != 0 ? 2 : 0;
}

/* The size of an open file, or 0 when it cannot be told (a pipe). */
static uint64_t file_size(FILE *f)
{
    long at = ftell(f), end;
    if (at < 0 || fseek(f, 0, SEEK_END) != 0) return 0;
    end = ftell(f);
    if (fseek(f, at, SEEK_SET) != 0) return 0;
    return end > 0 ? (uint64_t)end : 0;
}

/* A raw trace read in chunks, with the progress line. */
typedef struct reader {
    FILE *in;
    const char *path;
    unsigned char chunk[CHUNK];
    int eof;
    uint64_t total;       /* bytes read */
    util_progress shown;
} reader;

static void reader_start(reader *r, FILE *in, const char *path)
{
    r->in = in;
    r->path = path;
    r->eof = 0;
    r->total = 0;
    util_progress_start(&r->shown, "bytes read", in == stdin ? 0 : file_size(in), 1);
}

/* The next chunk into r->chunk: its size, 0 at the end, -1 when the file
   cannot be read (said on stderr). */
static long reader_next(reader *r)
{
    size_t n = r->eof ? 0 : util_read_chunk(r->in, r->chunk, sizeof r->chunk);
    r->total += n;
    util_progress_at(&r->shown, r->total);
    if (n == 0 && ferror(r->in)) { /* (fread sets errno: a directory says EISDIR) */
        fprintf(stderr, "ptdump: cannot read %s: %s\n", r->path, strerror(errno));
        return -1;
    }
    if (n == 0) r->eof = 1;
    return (long)n;
}

/* The end of a raw trace's listing: an empty input is not a success, and
   errors in it are said on stderr too. 0, or the exit status. */
static int reader_end(reader *r, const printer *pr, size_t before)
{
    util_progress_end(&r->shown);
    if (!r->total && !before) { /* nothing decoded */
        fprintf(stderr, "ptdump: %s is empty: nothing to decode\n", r->path);
        return 1;
    }
    if (pr->errors && !pr->check)
        fprintf(stderr, "ptdump: %d error%s in %s (%s)\n", pr->errors, pr->errors == 1 ? "" : "s", r->path,
                pr->stats ? "counted" : "in the listing");
    return 0;
}

/* --time --events on a raw trace: the events decoder (SPEC 3.13) reads the
   bytes and times the events only. 0, or the exit status of a failure
   (said on stderr). */
static int dump_events(printer *pr, const ptc_clock_config *cc, unsigned flags, reader *rd, const uint8_t *first,
                       size_t first_n)
{
    static ptc_events ev;
    ptc_timed_item t;
    if (ptc_events_init(&ev, cc, flags, 0) != PTC_OK) { /* (the clock took the same settings) */
        fprintf(stderr, "ptdump: --time --events: the configuration is not usable\n");
        return 2;
    }
    if (first_n) (void)ptc_events_feed(&ev, first, first_n);
    for (;;) {
        ptc_status st = ptc_events_next(&ev, &t);
        if (st == PTC_OK) {
            print_item(pr, &t.item, &t);
        } else if (st == PTC_NEED_INPUT) {
            long n = reader_next(rd);
            if (n < 0) return 2;
            if (n == 0) ptc_events_finish(&ev);
            else (void)ptc_events_feed(&ev, rd->chunk, (size_t)n);
        } else {
            return 0; /* PTC_END */
        }
    }
}

/* --stats: records counted as stats_item counts items. */
static void stats_records(printer *pr, const ptc_record *recs, size_t n)
{
    dump_stats *d = &pr->st;
    size_t i;
    for (i = 0; i < n; i++) {
        d->packets[recs[i].type]++; /* (an error record's type is PTC_NONE, never printed) */
        d->bytes[recs[i].type] += recs[i].size;
        pr->errors += recs[i].error != PTC_OK;
    }
}

/* --stats on a raw trace, untimed: the batch decoder (SPEC 1.12) reads
   it, and each record is counted as stats_item counts an item. 0, or the
   exit status of a failure (said on stderr). */
static int stats_raw(printer *pr, unsigned flags, reader *rd, const uint8_t *first, size_t first_n)
{
    static ptc_record recs[1024];
    ptc_decoder dec;
    ptc_status st;
    ptc_decoder_init(&dec, flags, 0);
    if (first_n) (void)ptc_decoder_feed(&dec, first, first_n);
    do {
        size_t got = 0;
        st = ptc_decoder_next_batch(&dec, recs, sizeof recs / sizeof recs[0], &got);
        stats_records(pr, recs, got);
        if (st == PTC_NEED_INPUT) {
            long n = reader_next(rd);
            if (n < 0) return 2;
            if (n == 0) ptc_decoder_finish(&dec);
            else (void)ptc_decoder_feed(&dec, rd->chunk, (size_t)n);
        }
    } while (st != PTC_END);
    return 0;
}

/* A raw trace, every packet, through the clock with --time, to the sink. 0,
   or the exit status of a failure (said on stderr). */
static int decode_raw(ptc_clock *clk, int timed, unsigned flags, reader *rd, const uint8_t *first, size_t first_n,
                      item_sink sink, void *user)
{
    ptc_decoder dec;
    ptc_item it;
    ptc_status st;
    ptc_decoder_init(&dec, flags, 0);
    if (first_n) (void)ptc_decoder_feed(&dec, first, first_n);
    while ((st = ptc_decoder_next(&dec, &it)) != PTC_END) {
        if (st == PTC_OK) {
            take_item(clk, timed, &it, sink, user);
        } else { /* PTC_NEED_INPUT */
            long n = reader_next(rd);
            if (n < 0) return 2;
            if (n == 0) ptc_decoder_finish(&dec);
            else (void)ptc_decoder_feed(&dec, rd->chunk, (size_t)n);
        }
    }
    if (timed) {
        ptc_clock_finish(clk);
        drain_clock(clk, sink, user);
    }
    return 0;
}

/* ---- -j N with --time, --check or standard input: two stages ---------- */

/* What the clock and the checker carry from one segment into the next (the
   clock's anchors and what it has learned of the ratios, the CYC threshold
   and the rate; the checker's owed followers, packet enables and MTC
   periods) has no short hand-over, so these listings are not cut at PSBs
   (SPEC 1.10). Instead one thread reads, decodes and times, and the
   calling thread checks, formats and writes, batches of items passing
   between them through PIPE_SLOTS slots used in turn. */
enum { PIPE_BATCH = 1024, PIPE_SLOTS = 8 };

typedef struct pipe_batch {
    size_t n;
    ptc_timed_item t[PIPE_BATCH]; /* (without --time only .item is set) */
} pipe_batch;

typedef struct pipe_dump {
    pthread_mutex_t mu;
    pthread_cond_t changed;    /* a batch filled or emptied, or the decoding ended */
    pipe_batch *slots;
    size_t filled, emptied;    /* batches so far; batch k is in slot k % PIPE_SLOTS */
    int ended, status;         /* the decoding thread is done, and decode_raw's result */
    /* the decoding thread's work */
    ptc_clock *clk;
    int timed;
    unsigned flags;
    reader *rd;
    const uint8_t *first;
    size_t first_n;
} pipe_dump;

/* On the decoding thread: the batch being filled goes to the printer, and
   the next one is started when its slot is free. */
static void pipe_publish(pipe_dump *pd)
{
    pthread_mutex_lock(&pd->mu);
    pd->filled++;
    pthread_cond_broadcast(&pd->changed);
    while (pd->filled - pd->emptied >= PIPE_SLOTS) pthread_cond_wait(&pd->changed, &pd->mu);
    pthread_mutex_unlock(&pd->mu);
    pd->slots[pd->filled % PIPE_SLOTS].n = 0;
}

static void pipe_sink(void *user, const ptc_item *it, const ptc_timed_item *t)
{
    pipe_dump *pd = (pipe_dump *)user;
    pipe_batch *b = &pd->slots[pd->filled % PIPE_SLOTS];
    if (t) b->t[b->n] = *t;
    else b->t[b->n].item = *it;
    if (++b->n == PIPE_BATCH) pipe_publish(pd);
}

static void *pipe_decode(void *arg)
{
    pipe_dump *pd = (pipe_dump *)arg;
    int st = decode_raw(pd->clk, pd->timed, pd->flags, pd->rd, pd->first, pd->first_n, pipe_sink, pd);
    pthread_mutex_lock(&pd->mu);
    if (pd->slots[pd->filled % PIPE_SLOTS].n) pd->filled++; /* the last batch, not full */
    pd->status = st;
    pd->ended = 1;
    pthread_cond_broadcast(&pd->changed);
    pthread_mutex_unlock(&pd->mu);
    return NULL;
}

/* The listing on two threads; -1 when the second could not be started
   (nothing was read). */
static int dump_pipelined(printer *pr, ptc_clock *clk, int timed, unsigned flags, reader *rd, const uint8_t *first,
                          size_t first_n)
{
    pipe_dump pd;
    pthread_t decoder;
    memset(&pd, 0, sizeof pd);
    pd.clk = clk;
    pd.timed = timed;
    pd.flags = flags;
    pd.rd = rd;
    pd.first = first;
    pd.first_n = first_n;
    pd.slots = (pipe_batch *)calloc(PIPE_SLOTS, sizeof *pd.slots);
    if (!pd.slots) return -1;
    pthread_mutex_init(&pd.mu, NULL);
    pthread_cond_init(&pd.changed, NULL);
    if (pthread_create(&decoder, NULL, pipe_decode, &pd) != 0) {
        pthread_cond_destroy(&pd.changed);
        pthread_mutex_destroy(&pd.mu);
        free(pd.slots);
        return -1;
    }
    for (;;) {
        const pipe_batch *b;
        size_t i;
        pthread_mutex_lock(&pd.mu);
        while (pd.emptied == pd.filled && !pd.ended) pthread_cond_wait(&pd.changed, &pd.mu);
        if (pd.emptied == pd.filled) { /* ended, and every batch printed */
            pthread_mutex_unlock(&pd.mu);
            break;
        }
        pthread_mutex_unlock(&pd.mu);
        b = &pd.slots[pd.emptied % PIPE_SLOTS];
        for (i = 0; i < b->n; i++) print_item(pr, &b->t[i].item, timed ? &b->t[i] : NULL);
        pthread_mutex_lock(&pd.mu);
        pd.emptied++;
        pthread_cond_broadcast(&pd.changed);
        pthread_mutex_unlock(&pd.mu);
    }
    pthread_join(decoder, NULL);
    pthread_cond_destroy(&pd.changed);
    pthread_mutex_destroy(&pd.mu);
    free(pd.slots);
    return pd.status;
}

/* A raw trace, every packet, through the clock with --time, printed; with
   jobs > 1 on two threads. 0, or the exit status of a failure (said on
   stderr). */
static int dump_raw(printer *pr, ptc_clock *clk, int timed, unsigned flags, reader *rd, const uint8_t *first,
                    size_t first_n, unsigned jobs)
{
    int st;
    ptc_conform_init(&pr->conform, &pr->conf);
    if (jobs > 1 && (st = dump_pipelined(pr, clk, timed, flags, rd, first, first_n)) != -1) return st;
    return decode_raw(clk, timed, flags, rd, first, first_n, print_sink, pr);
}

/* ---- -j N: a raw trace's segments on N threads (SPEC 1.10, 1.13) ---- */

/* The work pool: jobs 0..n-1 run on worker threads, their results taken by
   the calling thread in job order. ptdump -j decodes a trace's segments
   so (SPEC.md 1.13): workers decode and format, the caller writes.

   At most `window` jobs are claimed and not yet taken, so a caller that
   gives each of `window` slots its own buffers (job j uses slot
   j % window) needs no more memory than that, however long the trace.
   POSIX threads; link with -pthread. */

/* run: a job's work, on a worker thread. take: its result, on the
   calling thread, in order; non-zero stops the pool (no more jobs are
   started) and is what pool_run returns. */
typedef void (*pool_run_fn)(void *ctx, size_t job);
typedef int (*pool_take_fn)(void *ctx, size_t job);

typedef struct pool_pool {
    pthread_mutex_t mu;
    pthread_cond_t changed;  /* a job done, taken, or the pool stopping */
    size_t n, window;
    size_t next;             /* the next job to claim */
    size_t taken;            /* jobs [0, taken) are taken */
    unsigned char *done;     /* done[j]: job j finished */
    int stop;
    pool_run_fn run;
    void *ctx;
} pool_pool;

UTIL_FN void *pool_worker(void *arg)
{
    pool_pool *p = (pool_pool *)arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        size_t job;
        while (!p->stop && p->next < p->n && p->next >= p->taken + p->window) pthread_cond_wait(&p->changed, &p->mu);
        if (p->stop || p->next >= p->n) break;
        job = p->next++;
        pthread_mutex_unlock(&p->mu);
        p->run(p->ctx, job);
        pthread_mutex_lock(&p->mu);
        p->done[job] = 1;
        pthread_cond_broadcast(&p->changed);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Runs jobs 0..n-1 on `threads` workers (at least 1) with at most `window`
   (at least 1) in flight. Returns 0, the first non-zero `take`, or -1
   when no thread could be started or memory ran out (nothing was run). */
UTIL_FN int pool_run(size_t n, unsigned threads, size_t window, pool_run_fn run, pool_take_fn take, void *ctx)
{
    pool_pool p;
    pthread_t *tid;
    unsigned started = 0, t;
    size_t j;
    int rc = 0;
    if (n == 0) return 0;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.window = window ? window : 1;
    p.run = run;
    p.ctx = ctx;
    p.done = (unsigned char *)calloc(n, 1);
    tid = (pthread_t *)malloc((threads ? threads : 1) * sizeof *tid);
    if (!p.done || !tid || pthread_mutex_init(&p.mu, NULL) != 0) {
        free(p.done);
        free(tid);
        return -1;
    }
    pthread_cond_init(&p.changed, NULL);
    for (t = 0; t < (threads ? threads : 1); t++)
        if (pthread_create(&tid[t], NULL, pool_worker, &p) == 0) started++;
    if (started == 0) rc = -1;
    for (j = 0; j < n && rc == 0; j++) {
        pthread_mutex_lock(&p.mu);
        while (!p.done[j]) pthread_cond_wait(&p.changed, &p.mu);
        pthread_mutex_unlock(&p.mu);
        rc = take(ctx, j);
        pthread_mutex_lock(&p.mu);
        p.taken = j + 1;
        if (rc) p.stop = 1;
        pthread_cond_broadcast(&p.changed);
        pthread_mutex_unlock(&p.mu);
    }
    pthread_mutex_lock(&p.mu);
    p.stop = 1;
    pthread_cond_broadcast(&p.changed);
    pthread_mutex_unlock(&p.mu);
    for (t = 0; t < started; t++) pthread_join(tid[t], NULL);
    pthread_cond_destroy(&p.changed);
    pthread_mutex_destroy(&p.mu);
    free(p.done);
    free(tid);
    return rc;
}


/* Work is cut into units of whole segments of about this size: small
   enough that a unit's text (about 20 bytes of JSON a byte of trace)
   stays near the cache (1 MiB units were slower, bench/README.md),
   large enough that handing a unit over costs nothing that counts. */
enum { PAR_MIN_UNIT = 64 << 10, PAR_MAX_UNIT = 256 << 10 };

/* What the jobs share: the trace (mapped); job j's segments [units[j],
   units[j + 1]); a printer and its text per slot (job j uses slot
   j % window); and the listing's printer, which takes the totals. */
typedef struct par_dump {
    const uint8_t *buf;
    size_t len;
    unsigned flags;
    size_t *units, nunits;
    printer **slot;
    text_buf *text;
    size_t window;
    printer *pr;
    reader *rd;
} par_dump;

/* A worker: job's segments decoded, and printed (or counted) into its
   slot, as the one-thread listing prints them. */
static void par_run(void *ctx, size_t job)
{
    enum { CAP = 1024 };
    par_dump *pd = (par_dump *)ctx;
    printer *w = pd->slot[job % pd->window];
    ptc_decoder dec;
    w->mem->len = 0;
    w->out_len = 0;
    w->errors = 0;
    memset(&w->st, 0, sizeof w->st);
    (void)ptc_decoder_init_segment(&dec, pd->flags, pd->buf, pd->len, pd->units[job], pd->units[job + 1]);
    if (w->stats && !w->events) { /* counting only: records, as stats_raw */
        ptc_record recs[CAP];
        size_t got;
        ptc_status st;
        do {
            st = ptc_decoder_next_batch(&dec, recs, CAP, &got);
            stats_records(w, recs, got);
        } while (st == PTC_OK);
    } else {
        ptc_item it;
        while (ptc_decoder_next(&dec, &it) == PTC_OK) print_item(w, &it, NULL);
    }
    out_flush(w);
}

/* The calling thread: a job's text out and its counts added, in order. */
static int par_take(void *ctx, size_t job)
{
    par_dump *pd = (par_dump *)ctx;
    printer *w = pd->slot[job % pd->window];
    int k;
    if (w->mem->failed) {
        fprintf(stderr, "ptdump: -j: out of memory for the listing of bytes [%zu, %zu)\n", pd->units[job],
                pd->units[job + 1]);
        return 2;
    }
    if (w->mem->len) fwrite(w->mem->s, 1, w->mem->len, stdout);
    pd->pr->errors += w->errors;
    for (k = 0; k < PTC_PACKET_TYPE_COUNT; k++) {
        pd->pr->st.packets[k] += w->st.packets[k];
        pd->pr->st.bytes[k] += w->st.bytes[k];
    }
    pd->rd->total = pd->units[job + 1];
    util_progress_at(&pd->rd->shown, pd->rd->total);
    return 0;
}

/* The units: whole segments, each about `unit` bytes. NULL when memory
   runs out. */
static size_t *par_units(const uint8_t *buf, size_t len, size_t unit, size_t *n)
{
    size_t cap = len / unit + 2, at = 0, *u = (size_t *)malloc(cap * sizeof *u);
    *n = 0;
    if (!u) return NULL;
    u[0] = 0;
    while (at < len) {
        at = ptc_segment_next(buf, len, at + unit);
        if (*n + 2 > cap) {
            size_t *grown = (size_t *)realloc(u, 2 * cap * sizeof *u);
            if (!grown) { free(u); return NULL; }
            u = grown;
            cap *= 2;
        }
        u[++*n] = at;
    }
    return u;
}

/* -j on a raw trace in a file, untimed and unchecked: the file mapped,
   its segments decoded and printed on `jobs` threads and written in
   order, exactly what one thread prints. -1 when this does not apply
   (one job, a small file, no mapping, no threads): the caller reads the
   trace in chunks (dump_raw). Else 0 or an exit status. */
static int dump_parallel(printer *pr, unsigned flags, FILE *in, reader *rd, unsigned jobs)
{
    uint64_t size = file_size(in);
    par_dump pd;
    void *map;
    size_t unit, i;
    int rc = -1;
    if (jobs < 2 || size < 2 * PAR_MIN_UNIT || size > (uint64_t)SIZE_MAX) return -1;
    map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fileno(in), 0);
    if (map == MAP_FAILED) return -1;
    memset(&pd, 0, sizeof pd);
    pd.buf = (const uint8_t *)map;
    pd.len = (size_t)size;
    pd.flags = flags;
    pd.pr = pr;
    pd.rd = rd;
    pd.window = 2 * (size_t)jobs;
    unit = pd.len / (4 * (size_t)jobs);
    unit = unit < PAR_MIN_UNIT ? PAR_MIN_UNIT : unit > PAR_MAX_UNIT ? PAR_MAX_UNIT : unit;
    pd.units = par_units(pd.buf, pd.len, unit, &pd.nunits);
    pd.slot = (printer **)calloc(pd.window, sizeof *pd.slot);
    pd.text = (text_buf *)calloc(pd.window, sizeof *pd.text);
    for (i = 0; pd.units && pd.slot && pd.text && i < pd.window; i++) {
        if (!(pd.slot[i] = (printer *)malloc(sizeof(printer)))) break;
        *pd.slot[i] = *pr; /* the options; counts and text start empty in par_run */
        pd.slot[i]->mem = &pd.text[i];
    }
    if (pd.units && pd.slot && pd.text && i == pd.window) {
        out_flush(pr);
        fflush(stdout);
        rc = pool_run(pd.nunits, jobs, pd.window, par_run, par_take, &pd);
    }
    for (i = 0; pd.slot && i < pd.window; i++) free(pd.slot[i]);
    for (i = 0; pd.text && i < pd.window; i++) free(pd.text[i].s);
    free(pd.slot);
    free(pd.text);
    free(pd.units);
    munmap(map, (size_t)size);
    return rc;
}

static void print_flow_error(ptc_status st, uint64_t offset, uint64_t ip)
{
    printf("[error: %s: offset %llu, ip %016llx]\n", ptc_status_name(st), (unsigned long long)offset,
           (unsigned long long)ip);
}

/* The blocks --blocks decodes through, and --coverage with an image:
   2 MiB, the code of a large program; and --coverage's runs (2 MiB): a
   loop's rounds after the first cost a lookup a TNT packet. */
static ptc_flow_cached_block flow_cache_blocks[1 << 16];
static ptc_flow_cached_run flow_cache_runs[1 << 14];

/* --insn, --blocks or --coverage over one trace or more (a perf.data's
   queues): what they were asked, and what they found. */
typedef struct flow_job {
    int blocks, coverage;        /* --blocks; --coverage (else --insn) */
    const ptc_trace_config *tc;
    const ptc_image *image;      /* NULL: coverage from the packets alone */
    ptc_flow_cache cache;
    ptc_coverage cov;            /* --coverage's, over every trace */
    int errors;
} flow_job;

/* --insn and --blocks: every instruction the trace ran, one IP a line
   (--blocks takes them a block at a time, through the block cache: the
   same lines); an error is a line "[error: NAME: offset N, ip IP]" and
   the decoder goes on from the next PSB+. --coverage: the trace's edges
   counted into the job's map (SPEC 9.5), from the flow with an image, else
   from the packets alone. */
static void flow_one_trace(flow_job *job, const uint8_t *trace, size_t n)
{
    static ptc_flow flow;
    ptc_flow_insn in;
    ptc_flow_block b;
    ptc_status st;
    if (job->coverage && !job->image) {
        ptc_coverage_packets(&job->cov, job->tc, trace, n);
        return;
    }
    ptc_flow_init(&flow, job->tc, job->image, trace, n);
    if (job->blocks || job->coverage) ptc_flow_use_cache(&flow, &job->cache);
    if (job->coverage) {
        ptc_coverage_flow(&job->cov, &flow);
        return;
    }
    while ((st = job->blocks ? ptc_flow_next_block(&flow, &b) : ptc_flow_next(&flow, &in)) != PTC_END) {
        if (st != PTC_OK) {
            print_flow_error(st, job->blocks ? b.offset : in.offset, job->blocks ? b.ip : in.ip);
            job->errors = 1;
        } else if (job->blocks) {
            uint64_t ip = b.ip;
            unsigned k;
            for (k = 0; k < b.count; k++) {
                printf("%016llx\n", (unsigned long long)ip);
                ip += (b.sizes >> (4 * k)) & 15;
            }
        } else {
            printf("%016llx\n", (unsigned long long)in.ip);
        }
    }
}

/* A perf.data's code for the flow (SPEC 9.4): each MMAP record's file (a
   path: the kernel's and [vdso] are none) from its page offset at its
   address, in the file's order, over what the image options gave. One
   address space: the mappings of every process in the file. A file that
   cannot be read is said, and its code is not in the image. */
static void perf_image(image_options *images, const perfaux_file *pf)
{
    const char *names[IMAGEOPTS_MAX_FILES];
    const unsigned char *bytes[IMAGEOPTS_MAX_FILES];
    size_t sizes[IMAGEOPTS_MAX_FILES], nread = 0, i, k;
    if (!images->given && !pf->nmmaps) fprintf(stderr, "ptdump: the perf.data has no MMAP record: no code is known\n");
    for (i = 0; i < pf->nmmaps; i++) {
        const ptc_perf_mmap *m = &pf->mmaps[i];
        ptc_status st;
        if (m->filename[0] != '/') continue;
        for (k = 0; k < nread && strcmp(names[k], m->filename) != 0; k++) {}
        if (k == nread) {
            if (nread == IMAGEOPTS_MAX_FILES) {
                fprintf(stderr, "ptdump: MMAP %s: more than %d files mapped, its code is not in the image\n", m->filename,
                        IMAGEOPTS_MAX_FILES);
                continue;
            }
            names[k] = m->filename;
            bytes[k] = imageopts_file(images, "MMAP", m->filename, &sizes[k]);
            nread++;
        }
        if (!bytes[k] || m->pgoff >= sizes[k]) continue; /* (said once, when it was read) */
        st = ptc_image_add(&images->image, m->addr, bytes[k] + m->pgoff,
                           m->len < sizes[k] - m->pgoff ? m->len : sizes[k] - m->pgoff);
        if (st != PTC_OK)
            fprintf(stderr, "ptdump: MMAP %s at %llx: %s, its code is not in the image\n", m->filename,
                    (unsigned long long)m->addr, ptc_status_name(st));
    }
}

/* Every AUX queue of a perf.data through the job, its code from the MMAP
   records: a queue's line as the packet listing has it (--insn and
   --blocks), then each run of its chunks with no AUX bytes missing as one
   trace. 0 (said) when the file cannot be read. */
static int flow_perf(flow_job *job, const uint8_t *buf, size_t len, const char *path, image_options *images)
{
    perfaux_file pf;
    size_t from, i;
    if (!perfaux_collect(buf, len, &pf, NULL, NULL, path)) return 0;
    perf_image(images, &pf);
    job->image = &images->image;
    for (from = 0; from < pf.n; from = i) {
        const perf_chunk *c = pf.chunks;
        size_t run, to;
        for (i = from + 1; i < pf.n && c[i].queue == c[from].queue && c[i].sample == c[from].sample; i++) {}
        if (!job->coverage) {
            char title[200];
            queue_title(title, sizeof title, c, from, i);
            printf("%s\n", title);
        }
        for (run = from; run < i; run = to) {
            uint8_t *trace;
            size_t n = 0, k;
            for (to = run + 1; to < i && !pf.snapshot && perfaux_follows(c, to); to++) {}
            for (k = run; k < to; k++) n += (size_t)c[k].size;
            trace = (uint8_t *)malloc(n ? n : 1);
            if (!trace) {
                fprintf(stderr, "ptdump: out of memory\n");
                perfaux_free(&pf);
                return 0;
            }
            flow_one_trace(job, trace, perfaux_join(c, run, to, trace));
            free(trace);
        }
    }
    perfaux_free(&pf);
    return 1;
}

/* What --insn, --blocks and --coverage tell the flow decoder of the
   trace: --filter's ranges, --cpu's or --errata's errata (the stream
   decoder's among them). A clock setting is refused: they have no clock.
   0 (said) when refused. */
static int flow_trace_config(const clock_options *opt, const image_options *images, const char *mine,
                             ptc_trace_config *tc)
{
    int k;
    for (k = 0; k < CLOCKOPT_NUMS; k++) {
        if (!opt->numset[k]) continue;
        fprintf(stderr, "ptdump: %s is a clock setting, and %s has no clock\n", clockopt_nums[k].name, mine);
        return 0;
    }
    memset(tc, 0, sizeof *tc);
    tc->filters = images->filters;
    tc->errata = opt->errata;
    tc->known = (images->filters.count ? (uint32_t)PTC_KNOW_FILTERS : 0u) | (opt->cpu_known ? (uint32_t)PTC_KNOW_CPU : 0u);
    return 1;
}

/* --insn, --blocks, --coverage MAP (SPEC 9.4) on a raw trace or a
   perf.data. --coverage writes the map of map_size bytes to MAP and says
   a line. Exit status 1 after an error. */
static int run_flow(const char *path, const char *option, const ptc_trace_config *tc, image_options *images,
                    const char *map_path, size_t map_size, unsigned flags)
{
    size_t n = 0, i, set = 0;
    unsigned char *file = util_read_file(path, &n);
    uint8_t *map = NULL;
    FILE *out;
    static flow_job job;
    int perf = file && n >= 8 && perfaux_is_perf_magic(file);
    memset(&job, 0, sizeof job);
    job.blocks = strcmp(option, "--blocks") == 0;
    job.coverage = map_path != NULL;
    job.tc = tc;
    job.image = images->given ? &images->image : NULL;
    if (job.blocks || job.coverage)
        ptc_flow_cache_init(&job.cache, flow_cache_blocks, sizeof flow_cache_blocks / sizeof flow_cache_blocks[0]);
    if (job.coverage)
        ptc_flow_cache_keep_runs(&job.cache, flow_cache_runs, sizeof flow_cache_runs / sizeof flow_cache_runs[0]);
    if (!file) {
        fprintf(stderr, "ptdump: cannot read %s\n", path);
        return 2;
    }
    if (flags & PTC_DECODE_NO_SYNC) {
        fprintf(stderr, "ptdump: %s starts at the first PSB: it does not go with --no-sync\n", option);
        free(file);
        return 2;
    }
    if (!perf && !job.image && !job.coverage) {
        fprintf(stderr, "ptdump: %s needs the code: --image FILE:ADDR, --elf FILE[:BASE] or --pagecache PREFIX\n", option);
        free(file);
        return 2;
    }
    if (job.coverage) {
        map = (uint8_t *)calloc(map_size, 1);
        if (!map) {
            fprintf(stderr, "ptdump: --map-size %zu: out of memory\n", map_size);
            free(file);
            return 2;
        }
        ptc_coverage_init(&job.cov, map, map_size);
    }
    if (!perf) {
        flow_one_trace(&job, file, n);
    } else if (!flow_perf(&job, file, n, path, images)) {
        free(file);
        free(map);
        return 2;
    }
    free(file);
    if (job.coverage) {
        out = fopen(map_path, "wb");
        if (!out || fwrite(map, 1, map_size, out) != map_size || fclose(out) != 0) {
            fprintf(stderr, "ptdump: --coverage: cannot write %s\n", map_path);
            if (out) fclose(out);
            free(map);
            return 2;
        }
        for (i = 0; i < map_size; i++) set += map[i] != 0;
        free(map);
        printf("coverage (%s): %llu edges, %zu of %zu slots set, %llu errors%s%s\n", job.image ? "the flow" : "the packets",
               (unsigned long long)job.cov.edges, set, map_size, (unsigned long long)job.cov.errors,
               job.cov.errors ? ", the first " : "", job.cov.errors ? ptc_status_name(job.cov.first_error) : "");
        job.errors = job.cov.errors != 0;
    }
    if (fflush(stdout) != 0) return 2;
    return job.errors;
}

int main(int argc, char **argv)
{
    static uint8_t head[8]; /* standard input's first bytes: a perf.data's magic? */
    static char outbuf[1 << 16];
    static printer pr;
    static ptc_clock clk;
    static reader rd;
    clock_options opt;
    const char *path = NULL, *config = NULL, *policy = NULL;
    unsigned flags = 0;
    long only_queue = -1;
    int i, st, timed = 0, from_stdin, rules = 0;
    const char *flow_option = NULL, *coverage = NULL; /* --insn or --blocks; --coverage's MAP */
    uint64_t map_size = 65536;
    static image_options images;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned jobs = cores < 1 ? 1u : cores > 64 ? 64u : (unsigned)cores; /* -j's default */
    size_t head_n = 0;
    uint64_t ring_written = UINT64_MAX; /* the trace is a snapshot ring's buffer */
    FILE *in;
    ptc_model_config cfg;
    ptc_clock_config cc;

    util_prog = "ptdump";
    snprintf(usage, sizeof usage, "%s%s", usage_head, usage_tail);
    memset(&opt, 0, sizeof opt);
    imageopts_init(&images);
    for (i = 1; i < argc; i++) {
        static const char *const with_value[] = { "--config", "--policy", "--cpu", "-j", "--coverage", "--map-size", NULL };
        int took = clockopt_take(&opt, argc, argv, &i);
        if (took < 0) return 2;
        if (took) continue;
        took = imageopts_take(&images, argc, argv, &i);
        if (took < 0) return 2;
        if (took) continue;
        if (argv[i][0] == '-' && i + 1 >= argc && util_is_one_of(argv[i], with_value))
            return util_no_value(argv[i], with_value, usage);
        if (strcmp(argv[i], "--no-sync") == 0) flags |= PTC_DECODE_NO_SYNC;
        else if (strcmp(argv[i], "--jsonl") == 0) pr.jsonl = 1;
        else if (strcmp(argv[i], "--check") == 0) pr.check = 1;
        else if (strcmp(argv[i], "--stats") == 0) pr.stats = 1;
        else if (strcmp(argv[i], "--rules") == 0) rules = 1;
        else if (strcmp(argv[i], "--insn") == 0 || strcmp(argv[i], "--blocks") == 0) {
            if (flow_option && strcmp(flow_option, argv[i]) != 0) {
                fprintf(stderr, "ptdump: %s and %s: one listing at a time\n", flow_option, argv[i]);
                return 2;
            }
            flow_option = argv[i];
        }
        else if (strcmp(argv[i], "--coverage") == 0 && i + 1 < argc) coverage = argv[++i];
        else if (strcmp(argv[i], "--map-size") == 0 && i + 1 < argc) {
            if (!util_parse_u64("--map-size", argv[++i], (uint64_t)1 << 30, &map_size)) return 2;
            if (map_size < 2 || (map_size & (map_size - 1))) {
                fprintf(stderr, "ptdump: --map-size %s: a power of two from 2 to 2^30\n", argv[i]);
                return 2;
            }
        }
        else if (strcmp(argv[i], "--time") == 0) timed = 1;
        else if (strcmp(argv[i], "--events") == 0) pr.events = 1;
        else if (strcmp(argv[i], "--sideband") == 0) pr.sideband = 1;
        else if (strcmp(argv[i], "--cpu") == 0 && i + 1 < argc) { /* N, a perf.data's queue (F/M is clockopt_take's) */
            uint64_t q;
            if (!util_parse_u64("--cpu", argv[++i], 0x7FFFFFFF, &q)) return 2;
            only_queue = (long)q;
        }
        else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
            uint64_t n;
            if (!util_parse_u64("-j", argv[++i], 256, &n)) return 2;
            if (n == 0) {
                fprintf(stderr, "ptdump: -j 0: the number of threads is 1 to 256\n");
                return 2;
            }
            jobs = (unsigned)n;
        }
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
    if (rules) return print_rules(pr.jsonl);
    pr.time_check = timed;
    if (!path) {
        fprintf(stderr, "ptdump: no FILE given\n%s", usage);
        return 2;
    }
    if (coverage && flow_option) {
        fprintf(stderr, "ptdump: --coverage writes a map: it does not go with %s\n", flow_option);
        return 2;
    }
    if (images.filters.count && !flow_option && !coverage) {
        fprintf(stderr, "ptdump: --filter tells the flow decoder of the trace, for --insn, --blocks or --coverage, none "
                        "of which is given\n");
        return 2;
    }
    if (images.given && !flow_option && !coverage) {
        fprintf(stderr, "ptdump: --image, --elf and --pagecache give the code for --insn, --blocks or --coverage, none "
                        "of which is given\n");
        return 2;
    }
    if (map_size != 65536 && !coverage) {
        fprintf(stderr, "ptdump: --map-size is the size of --coverage's map, which is not given\n");
        return 2;
    }
    if (flow_option || coverage) {
        const char *mine = coverage ? "--coverage" : flow_option;
        ptc_trace_config flow_tc;
        const char *other = timed ? "--time" : pr.check ? "--check" : pr.stats ? "--stats" : pr.events ? "--events"
                          : pr.sideband ? "--sideband" : pr.jsonl ? "--jsonl" : config ? "--config" : NULL;
        if (other) {
            fprintf(stderr, "ptdump: %s %s: it does not go with %s\n", mine,
                    coverage ? "writes a map" : "prints instructions", other);
            return 2;
        }
        if (!flow_trace_config(&opt, &images, mine, &flow_tc)) return 2;
        st = run_flow(path, mine, &flow_tc, &images, coverage, (size_t)map_size, flags);
        imageopts_free(&images);
        return st;
    }
    if (pr.stats && (pr.check || pr.sideband)) {
        fprintf(stderr, "ptdump: --stats prints a summary, not packets: it does not go with %s\n",
                pr.check ? "--check" : "--sideband");
        return 2;
    }
    if (pr.check && (timed || pr.sideband || pr.events)) {
        fprintf(stderr, "ptdump: --check prints findings, not packets: it does not go with %s\n",
                timed ? "--time" : pr.sideband ? "--sideband" : "--events");
        return 2;
    }
    opt.policy_unknown = policy && strcmp(policy, "unknown") == 0;
    ptc_model_config_default(&cfg);
    memset(&cfg.trace.policy, 0, sizeof cfg.trace.policy); /* without --config: no suppression */
    if (config) {
        char err[200];
        if (!modelcfg_read_json_file(config, &cfg, &ring_written, err, sizeof err)) {
            fprintf(stderr, "ptdump: cannot use %s: %s\n", config, err);
            return 2;
        }
        ptc_conform_config_from_model(&pr.conf, &cfg);
    }
    if (policy && !opt.policy_unknown) {
        char err[200];
        if (!modelcfg_policy(&cfg.trace.policy, policy, err, sizeof err)) { fprintf(stderr, "ptdump: --policy: %s\n", err); return 2; }
    }

    /* the clock: the trace's configuration from --config, then libipt's flags */
    if (config) ptc_clock_config_from_model(&cc, &cfg);
    else { ptc_clock_config_default(&cc); cc.trace.policy = cfg.trace.policy; }
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    /* standard input is a perf.data when its first bytes say so; a raw
       trace's are decoded first, before the rest */
    from_stdin = strcmp(path, "-") == 0;
    if (!config && from_stdin) head_n = util_read_chunk(stdin, head, sizeof head);
    if (!config && (from_stdin ? head_n == sizeof head && perfaux_is_perf_magic(head) : perfaux_is_perf_data(path)))
    {
        st = dump_perf(&pr, &opt, &cfg.trace.policy, policy && !opt.policy_unknown, timed, flags, only_queue, path, from_stdin ? head : NULL, head_n);
        out_flush(&pr);
        return st;
    }
    if (only_queue >= 0) {
        fprintf(stderr, "ptdump: --cpu N picks a queue of a perf.data, and %s is a raw trace (the CPU's model is F/M)\n", path);
        return 2;
    }
    clockopt_apply(&cc, &opt);
    check_config(&pr.conf, &cc, config || check_has_clock(&opt), policy && !opt.policy_unknown, &opt);
    if (timed && !config && !clockopt_has_clock(&opt))
        fprintf(stderr, "ptdump: --time: no clock settings given, so only TSCs time the packets (MTCs and CYCs need "
                        "them) and intervals are wide; give --config OUT.pt.json, or --mtc-freq, --nom-freq, "
                        "--cpuid-0x15.eax and --cpuid-0x15.ebx as the trace was recorded\n");
    if (timed && ptc_clock_init(&clk, &cc) != PTC_OK) {
        fprintf(stderr, "ptdump: --time: the configuration is not usable (cpuid-0x15.eax and .ebx go together; "
                        "cyc-bits is 1..64)\n");
        return 2;
    }

    in = from_stdin ? stdin : fopen(path, "rb");
    if (!in) {
        fprintf(stderr, "ptdump: cannot open %s: %s\n", path, strerror(errno));
        return 2;
    }
    if (ring_written != UINT64_MAX) {
        int ok = dump_ring(&pr, &clk, timed, ptc_errata_decode_flags(cc.trace.errata), in, ring_written);
        if (in != stdin) fclose(in);
        if (!ok) {
            out_flush(&pr);
            return 2;
        }
        st = finish_output(&pr);
        out_flush(&pr);
        settings_report(&pr, &cc);
        if (fflush(stdout) != 0) return 2;
        return st;
    }
    reader_start(&rd, in, path);
    st = timed || pr.check || from_stdin ? -1 : dump_parallel(&pr, flags | ptc_errata_decode_flags(cc.trace.errata), in, &rd, jobs);
    if (st != -1) {
        /* done, on -j threads */
    } else if (timed && pr.events) {
        st = dump_events(&pr, &cc, flags | ptc_errata_decode_flags(cc.trace.errata), &rd, head, head_n);
    } else if (pr.stats && !timed && !pr.events) {
        st = stats_raw(&pr, flags | ptc_errata_decode_flags(cc.trace.errata), &rd, head, head_n);
    } else {
        st = dump_raw(&pr, &clk, timed, flags | ptc_errata_decode_flags(cc.trace.errata), &rd, head, head_n, jobs);
    }
    if (!st) st = reader_end(&rd, &pr, head_n);
    if (in != stdin) fclose(in);
    if (!st) st = finish_output(&pr);
    out_flush(&pr);
    if (timed) settings_report(&pr, &cc);
    if (fflush(stdout) != 0) return 2;
    return st;
}
