/* fuzz_flow: the flow decoder (ptcodec.h part 9.3, SPEC 9.3) on any trace
   over any code.

   The input is code, then a trace: the code's length is drawn from the
   input's last bytes, and the code sits at 0x400000 in a 64-bit image (at
   0x1000 in a 32-bit one when the mode bit drawn says so: the trace's
   MODE.Exec decides what the decoder reads it as). Oracles:
   - every call returns: ok, end, or one of the flow's and the stream
     decoder's errors (SPEC 9.3); a run of calls ends (an instruction cap
     stops a run whose loop the decoder rightly follows, such as a trace
     that keeps a TNT for a loop of a million rounds; none is reached on
     the corpus);
   - every instruction handed out is in the image: its bytes decode, in
     its mode, to its size and class;
   - ptc_flow_next after PTC_END is PTC_END again;
   - blocks (ptc_flow_next_block through a cache of 8 blocks, which the
     code's blocks push each other out of) give the same instructions, with
     the same statuses, as ptc_flow_next without a cache;
   - coverage (SPEC 9.5), from the flow and from the packets, returns the
     first error it counted, and sets no more slots than it counts edges;
   - coverage from the flow equals the map, edges and errors built here by
     SPEC 9.5's words from ptc_flow_next_block's blocks (without a cache):
     the rules written a second time, apart from ptc_coverage_flow's; so
     does coverage through a cache of 8 blocks (whose common blocks it
     takes apart from ptc_flow_next_block), and with 4 runs kept there,
     cold and warm (a TNT packet's blocks applied at once). */
#include "../ptcodec.h"
#include "fuzz_helpers.h"
#include "flow_input.h"

#include <string.h>

static int allowed(ptc_status st)
{
    switch (st) {
    case PTC_OK: case PTC_END: case PTC_ERR_NO_CODE: case PTC_ERR_BAD_INSN: case PTC_ERR_NO_TNT: case PTC_ERR_NO_TIP: case PTC_ERR_BAD_RET:
    case PTC_ERR_LOOP: case PTC_ERR_TRUNCATED: case PTC_ERR_BAD_OPCODE: case PTC_ERR_BAD_IPBYTES: case PTC_ERR_RESERVED:
    case PTC_ERR_BAD_PSB: case PTC_ERR_EMPTY_TNT: case PTC_ERR_CYC_OVERFLOW: case PTC_ERR_PSB_OVERLAP: case PTC_ERR_NO_PSB:
        return 1;
    default: return 0;
    }
}

/* The next instruction of a block decoder: the held block's next one, or
   the first of the next block. */
typedef struct by_blocks {
    ptc_flow flow;
    ptc_flow_block block;
    unsigned given;
    uint64_t ip;
} by_blocks;

static ptc_status next_by_blocks(by_blocks *b, ptc_flow_insn *insn)
{
    memset(insn, 0, sizeof *insn);
    if (b->given >= b->block.count) {
        ptc_status st = ptc_flow_next_block(&b->flow, &b->block);
        b->given = 0;
        b->ip = b->block.ip;
        if (st != PTC_OK) {
            insn->ip = b->block.ip;
            insn->offset = b->block.offset;
            b->block.count = 0;
            return st;
        }
        FUZZ_ASSERT(b->block.count >= 1 && b->block.count <= PTC_FLOW_BLOCK_MAX, "a block of %u", b->block.count);
    }
    insn->ip = b->ip;
    insn->offset = b->block.offset;
    insn->size = (uint8_t)((b->block.sizes >> (4 * b->given)) & 15);
    insn->mode = b->block.mode;
    insn->flags = (uint8_t)(b->given ? 0 : b->block.flags & PTC_FLOW_RESUMED);
    insn->iclass = (uint8_t)(b->given + 1u == b->block.count ? b->block.end_class : (uint8_t)PTC_X86_OTHER);
    if (b->given + 1u == b->block.count)
        FUZZ_ASSERT(b->ip == b->block.end_ip, "end_ip %llx, the sizes say %llx", (unsigned long long)b->block.end_ip,
                    (unsigned long long)b->ip);
    b->ip += insn->size;
    b->given++;
    return PTC_OK;
}

/* SPEC 9.5: every class but these is a branch */
static int branches(uint8_t iclass)
{
    return iclass != PTC_X86_OTHER && iclass != PTC_X86_REP && iclass != PTC_X86_PTWRITE && iclass != PTC_X86_MOV_CR3 &&
           iclass != PTC_X86_VMPTRLD && iclass != PTC_X86_TSX;
}

static void count_edge(uint8_t *map, size_t mask, uint64_t *edges, uint64_t from, uint64_t to)
{
    uint8_t *slot = &map[ptc_coverage_slot(from, to, mask)];
    if (*slot != 0xFF) (*slot)++;
    (*edges)++;
}

/* The flow's edges by SPEC 9.5's words, from its blocks: from a branch to
   its block's next_ip; from a block that did not branch to the next block
   when that is not where it went on to (an asynchronous event); from 0 to
   a block where tracing resumed. After an error, nothing is known. */
static void edges_from_blocks(const ptc_trace_config *tc, const ptc_image *img, const uint8_t *trace, size_t n,
                              uint8_t *map, size_t mask, uint64_t *edges, uint64_t *errors)
{
    static ptc_flow flow;
    ptc_flow_block b;
    ptc_status st;
    uint64_t from = 0, went_on_to = 0;
    int fell_through = 0;
    FUZZ_ASSERT(ptc_flow_init(&flow, tc, img, trace, n) == PTC_OK, "init");
    while ((st = ptc_flow_next_block(&flow, &b)) != PTC_END) {
        if (st != PTC_OK) {
            (*errors)++;
            fell_through = 0;
            continue;
        }
        if (b.flags & PTC_FLOW_RESUMED) count_edge(map, mask, edges, 0, b.ip);
        else if (fell_through && b.ip != went_on_to) count_edge(map, mask, edges, from, b.ip);
        fell_through = !branches(b.end_class);
        if (!fell_through && b.next_ip) count_edge(map, mask, edges, b.end_ip, b.next_ip);
        from = b.end_ip;
        went_on_to = b.next_ip;
    }
}

static void coverage_holds(const ptc_trace_config *tc, const ptc_image *img, const uint8_t *trace, size_t n)
{
    static uint8_t expected[256];
    uint64_t expected_edges = 0, expected_errors = 0;
    static uint8_t map[256];
    static ptc_flow flow;
    static const char *const ways[] = { "a cache of 8 blocks", "4 runs kept, cold", "4 runs kept, warm" };
    ptc_flow_cached_block blocks[8];
    ptc_flow_cached_run runs[4];
    ptc_flow_cache cache;
    ptc_coverage cov;
    ptc_status st;
    size_t i, set;
    int pass;
    memset(expected, 0, sizeof expected);
    edges_from_blocks(tc, img, trace, n, expected, sizeof expected - 1, &expected_edges, &expected_errors);
    FUZZ_ASSERT(ptc_flow_cache_init(&cache, blocks, 8) == PTC_OK, "cache init");
    for (pass = 0; pass < 4; pass++) {
        memset(map, 0, sizeof map);
        FUZZ_ASSERT(ptc_coverage_init(&cov, map, sizeof map) == PTC_OK, "coverage init");
        if (pass < 3) { /* through the cache (the common blocks taken apart from ptc_flow_next_block), then runs */
            if (pass == 1) FUZZ_ASSERT(ptc_flow_cache_keep_runs(&cache, runs, 4) == PTC_OK, "runs");
            FUZZ_ASSERT(ptc_flow_init(&flow, tc, img, trace, n) == PTC_OK, "init");
            ptc_flow_use_cache(&flow, &cache);
            st = ptc_coverage_flow(&cov, &flow);
            FUZZ_ASSERT(cov.edges == expected_edges && cov.errors == expected_errors && !memcmp(map, expected, sizeof map),
                        "coverage, %s: %llu edges and %llu errors, the blocks say %llu and %llu%s", ways[pass],
                        (unsigned long long)cov.edges, (unsigned long long)cov.errors, (unsigned long long)expected_edges,
                        (unsigned long long)expected_errors, memcmp(map, expected, sizeof map) ? ", maps differ" : "");
        } else {
            st = ptc_coverage_packets(&cov, tc, trace, n);
        }
        FUZZ_ASSERT(allowed(st) && st != PTC_END, "coverage: status %s", ptc_status_name(st));
        FUZZ_ASSERT((st == PTC_OK) == (cov.errors == 0) && (st == PTC_OK || st == cov.first_error), "coverage: %s, %llu errors",
                    ptc_status_name(st), (unsigned long long)cov.errors);
        for (i = 0, set = 0; i < sizeof map; i++) set += map[i] != 0;
        FUZZ_ASSERT(set <= cov.edges && (set > 0) == (cov.edges > 0), "coverage: %zu slots set by %llu edges", set,
                    (unsigned long long)cov.edges);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ptc_flow flow;
    static by_blocks blocks;
    ptc_flow_cached_block cached[8];
    ptc_flow_cache cache;
    ptc_flow_insn other;
    ptc_status other_st;
    ptc_image_section storage[2];
    ptc_image img;
    ptc_trace_config tc;
    const uint8_t *trace;
    size_t trace_size;
    uint64_t count = 0;
    ptc_flow_insn insn;
    ptc_status st;
    if (size > FUZZ_MAX_INPUT) return 0;
    flow_input(data, size, &img, storage, &trace, &trace_size, &tc);
    FUZZ_ASSERT(ptc_flow_init(&flow, &tc, &img, trace, trace_size) == PTC_OK, "init");
    memset(&blocks, 0, sizeof blocks);
    FUZZ_ASSERT(ptc_flow_init(&blocks.flow, &tc, &img, trace, trace_size) == PTC_OK, "init");
    FUZZ_ASSERT(ptc_flow_cache_init(&cache, cached, 8) == PTC_OK, "cache init");
    ptc_flow_use_cache(&blocks.flow, &cache);
    for (;;) {
        st = ptc_flow_next(&flow, &insn);
        other_st = next_by_blocks(&blocks, &other);
        FUZZ_ASSERT(st == other_st && insn.ip == other.ip && insn.offset == other.offset && insn.size == other.size &&
                        insn.iclass == other.iclass && insn.mode == other.mode && insn.flags == other.flags,
                    "instruction %llu: %s at %llx, by blocks %s at %llx", (unsigned long long)count, ptc_status_name(st),
                    (unsigned long long)insn.ip, ptc_status_name(other_st), (unsigned long long)other.ip);
        if (st == PTC_END || count >= 200000) break;
        count++;
        FUZZ_ASSERT(allowed(st), "status %s", ptc_status_name(st));
        if (st == PTC_OK) {
            uint8_t bytes[15];
            size_t n = ptc_image_read(&img, insn.ip, bytes, sizeof bytes);
            ptc_x86_insn x;
            FUZZ_ASSERT(n >= insn.size && insn.size > 0, "ip %llx: %zu bytes in the image, size %u", (unsigned long long)insn.ip,
                        n, insn.size);
            FUZZ_ASSERT(ptc_x86_decode(bytes, n, (ptc_x86_mode)insn.mode, insn.ip, &x) == PTC_OK && x.size == insn.size &&
                            x.iclass == insn.iclass,
                        "ip %llx: the image's bytes are not the instruction handed out", (unsigned long long)insn.ip);
        }
    }
    if (st == PTC_END) FUZZ_ASSERT(ptc_flow_next(&flow, &insn) == PTC_END, "after the end");
    /* a run the cap did not stop: coverage over it is bounded too */
    if (st == PTC_END) coverage_holds(&tc, &img, trace, trace_size);
    return 0;
}
