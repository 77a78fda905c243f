/* ptcodec.h - Intel Processor Trace packet codec, v0.3.0 (license at end of file)

   One header, no allocation, no globals, no I/O. Packets are encoded and
   decoded byte for byte as the Intel SDM (Vol. 3C, "Intel Processor Trace")
   defines them; SPEC.md in the ptcodec repository is the contract for every
   behaviour described here.

   USAGE
     In exactly one C or C++ file:
         #define PTCODEC_IMPLEMENTATION
         #include "ptcodec.h"
     Everywhere else just #include "ptcodec.h". Then, for example, every
     packet of a trace in memory, and the SDM's rules it breaks:
         ptc_decoder dec;
         ptc_conform chk;
         ptc_conform_config nothing_known = { 0 };
         ptc_finding f[PTC_CONFORM_MAX_FINDINGS];
         ptc_item it;
         ptc_decoder_init_buffer(&dec, 0, buf, len);
         ptc_conform_init(&chk, &nothing_known);
         while (ptc_decoder_next(&dec, &it) == PTC_OK) {
             if (it.error != PTC_OK) printf("%s\n", ptc_status_name(it.error));
             else printf("%s\n", ptc_packet_type_name(it.pkt.type));
             if (ptc_conform_item(&chk, &it, f)) printf("  breaks %s\n", ptc_rule_name(f[0].rule));
         }
     README.md has more examples (a stream in chunks, time, perf.data, the
     model); SPEC.md says what every call does.

   NOTES
     - Nothing here allocates, keeps a global, or does I/O: every state is a
       struct the caller owns. Structs marked "All fields are private" are
       public only so that they can live anywhere; use their functions.
     - Sizes on x86-64: ptc_clock about 62 KiB (it holds PTC_CLOCK_WINDOW
       items: keep it off the stack), ptc_events about 33 KiB (likewise,
       PTC_EVENTS_WINDOW), ptc_model 2.7 KiB, ptc_flow 912 bytes, ptc_conform 560 bytes,
       ptc_decoder 128 bytes.
     - Bad input is never an abort or an assert: every function returns a
       status with a name (ptc_status_name).

   BUILD OPTIONS (define before including the header)
     PTCODEC_IMPLEMENTATION  emit the function bodies in this translation unit
     PTCODEC_IMPLEMENTATION_ONCE  the bodies are compiled elsewhere (the
                             header defines it after emitting them): with
                             -D, a file that defines PTCODEC_IMPLEMENTATION
                             gets the interface only and links one shared
                             object, as ptcodec's own tests do
     PTCODEC_STATIC          make every function static to this translation
                             unit (use together with PTCODEC_IMPLEMENTATION)
     PTCODEC_DLL             Windows: the functions are exported from a DLL
                             (in the translation unit with the
                             implementation) or imported from one (elsewhere)
     PTCDEF                  what goes before every function, if none of the
                             above fits (default: extern)
     PTC_ASSERT(x)           check internal invariants (default: nothing);
                             never used for input validation - bad input
                             always comes back as an error status
     PTC_CLOCK_WINDOW        packets the clock may hold back while it looks
                             ahead for the next timing packet (default 512)
     PTC_EVENTS_WINDOW       events the events decoder may hold back while
                             it waits for the next anchor (default 256)
     PTCODEC_NO_MODEL        leave out part 5, the hardware model, and the
                             functions of other parts that take its
                             configuration (*_from_model)
     PTCODEC_NO_PERF         leave out part 6, perf.data, and
                             ptc_conform_config_from_perf
     PTCODEC_NO_FLOW         leave out part 9, control flow (the x86
                             instruction decoder)
   Which part needs which (what a part may not be left out without):
     1 packets       nothing            5 model       1, 2, 3 (the trace's configuration)
     2 MTC policy    1                  6 perf.data   1, 3 (the trace's configuration)
     3 clock         1, 2               7 conformance 1, 2, 3; 5 and 6 only
     4 navigation    1, 3                               for *_from_model/_from_perf
                                        9 control flow 1 (its status codes)
   With the three left out, gcc -O2 makes 106 KB of code instead of 152 KB
   (`size` of `gcc -O2 -c -x c -DPTCODEC_IMPLEMENTATION ptcodec.h`; part 9
   is 9 KB of it).

   SECTIONS, in the order data flows through them; each has the number of
   its part of SPEC.md, and none uses a later one. The implementation
   follows the same order, after 0. Shared arithmetic.
     1.1      Status codes               ptc_status, ptc_status_name()
     1.2-1.6  Packets and their classes  ptc_opcode, PTC_PACKET_LIST,
                                         ptc_packet, ptc_packet_is_*()
     1.7      Single-packet decode       ptc_decode_packet()
     1.8      Encoding                   ptc_encode_packet(), ptc_packet_equal()
     1.9      Stream decoding            ptc_decoder, ptc_item
     1.12     Batch decoding             ptc_record, ptc_decoder_next_batch()
     1.13     Segments                   ptc_segment_next(), ptc_decoder_init_segment()
     2.       MTC suppression, checker   ptc_mtc_policy, ptc_checker
     3.       Clock recovery             3.1 the trace's configuration, for
                                         parts 3-7: ptc_trace_config;
                                         ptc_clock, ptc_timed_item; 3.12
                                         errata: PTC_ERRATA_LIST; 3.13 the
                                         events decoder: ptc_events
     4.       Snapshot rings, navigation ptc_ring, ptc_ring_reader, ptc_nav
     5.       Hardware model             ptc_model (with event counters,
                                         triggers, snapshot sizing and
                                         ptc_clock_config_from_model)
     6.       perf.data                  ptc_perf_reader, ptc_perf_record,
                                         ptc_clock_config_from_perf,
                                         ptc_perf_write
     7.       Conformance                ptc_conform, PTC_RULE_LIST,
                                         ptc_conform_item()
     9.       Control flow               9.1 x86 instructions:
                                         ptc_x86_decode(), ptc_x86_insn,
                                         PTC_X86_CLASS_LIST; 9.2 memory
                                         images: ptc_image, ptc_image_add*();
                                         9.3 the flow decoder: ptc_flow,
                                         ptc_flow_next(), ptc_flow_next_block(),
                                         ptc_flow_cache; 9.5 coverage:
                                         ptc_coverage_flow(),
                                         ptc_coverage_packets()
   (SPEC.md's part 8, fuzzing other decoders, is harness/ and fuzz/, not
   this header.)
   Private names say their part: ptc__byte_ and ptc__math_ (0), ptc__pkt_,
   ptc__dec_, ptc__enc_, ptc__str_, ptc__bat_ (1), ptc__clk_ (3), ptc__ev_ (3.13), ptc__nav_ (4),
   ptc__mdl_ (5), ptc__perf_ (6), ptc__conf_ (7), ptc__x86_ (9.1), ptc__img_ (9.2), ptc__flow_ (9.3), ptc__cov_ (9.5).
*/
#ifndef PTCODEC_H_INCLUDED
#define PTCODEC_H_INCLUDED

#include <stddef.h>
#include <stdint.h>

#define PTCODEC_VERSION_MAJOR 0
#define PTCODEC_VERSION_MINOR 3
#define PTCODEC_VERSION_PATCH 0
#define PTCODEC_VERSION_STRING "0.3.0"

#if !defined(PTCDEF)
#  if defined(PTCODEC_STATIC)
#    if defined(__GNUC__) || defined(__clang__)
#      define PTCDEF static __attribute__((unused))
#    else
#      define PTCDEF static
#    endif
#  elif defined(_WIN32) && defined(PTCODEC_DLL) && defined(PTCODEC_IMPLEMENTATION)
#    define PTCDEF __declspec(dllexport)
#  elif defined(_WIN32) && defined(PTCODEC_DLL)
#    define PTCDEF __declspec(dllimport)
#  else
#    define PTCDEF extern
#  endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================================== */
/* 1.1 Status codes                                                      */
/* ===================================================================== */

/* X(enumerator, value, name, message). Values >= 0 are not errors:
   PTC_NEED_INPUT and PTC_END only come from ptc_decoder_next(). */
#define PTC_STATUS_LIST(X) \
    X(PTC_OK,               0, "ok",           "success") \
    X(PTC_NEED_INPUT,       1, "need_input",   "all input given so far is used; feed the next chunk or finish") \
    X(PTC_END,              2, "end",          "the input is finished and everything in it was reported") \
    X(PTC_ERR_TRUNCATED,   -1, "truncated",    "the input ends inside a packet") \
    X(PTC_ERR_BAD_OPCODE,  -2, "bad_opcode",   "these bytes are not the opcode of any packet") \
    X(PTC_ERR_BAD_IPBYTES, -3, "bad_ipbytes",  "IP packet with a reserved IPBytes value (101b or 111b)") \
    X(PTC_ERR_RESERVED,    -4, "reserved_value", "a field holds a value that the SDM reserves") \
    X(PTC_ERR_BAD_PSB,     -5, "bad_psb",      "02 82 starts a PSB but the 16-byte pattern is broken") \
    X(PTC_ERR_EMPTY_TNT,   -6, "empty_tnt",    "TNT-64 payload without a stop bit and at least one branch") \
    X(PTC_ERR_CYC_OVERFLOW,-7, "cyc_overflow", "CYC packet whose cycle count does not fit in 64 bits") \
    X(PTC_ERR_NO_PSB,      -8, "no_psb",       "no PSB in the input to synchronize on; nothing was decoded") \
    X(PTC_ERR_RANGE,       -9, "out_of_range", "a field value cannot be represented in the packet") \
    X(PTC_ERR_NO_SPACE,   -10, "no_space",     "the buffer or storage the caller gave is too small") \
    X(PTC_ERR_BAD_TYPE,   -11, "bad_type",     "not a packet type") \
    X(PTC_ERR_BAD_ARGUMENT,-12,"bad_argument", "a required pointer is NULL or an argument is invalid") \
    X(PTC_ERR_BAD_STATE,  -13, "bad_state",    "the call is not allowed in the object's current state") \
    X(PTC_ERR_BAD_CONFIG, -14, "bad_config",   "the configuration is invalid (the message of ptc_model_init says which field)") \
    X(PTC_ERR_INEXACT,    -15, "inexact",      "exact arithmetic would overflow: the model refuses rather than round") \
    X(PTC_ERR_PSB_OVERLAP,-16, "psb_overlap",  "these bytes would make a packet that runs into the PSB after them: they are damaged") \
    X(PTC_ERR_NOT_FOUND,  -17, "not_found",    "no retirement in the trace answers the query, or the input holds no such thing") \
    X(PTC_ERR_BAD_PERF,   -18, "bad_perf_data", "the perf.data is malformed at the reader's error_offset") \
    X(PTC_ERR_UNSUPPORTED,-19, "unsupported",  "valid input this version cannot read (a big-endian or compressed perf.data)") \
    X(PTC_ERR_CUT_CYC,    -20, "cut_cyc",      "a CYC cut after its first byte by the OVF that follows (erratum SKD007): its count is lost") \
    X(PTC_ERR_CORRUPT_TMA,-21, "corrupt_tma",  "a TMA with reserved bits set and the bogus byte after it (erratum SKZ84): both skipped") \
    X(PTC_ERR_BAD_INSN,   -22, "bad_insn",     "these bytes are not an x86 instruction in this mode (or one longer than 15 bytes)") \
    X(PTC_ERR_CUT_INSN,   -23, "cut_insn",     "the bytes given end inside an x86 instruction") \
    X(PTC_ERR_BAD_IMAGE,  -24, "bad_image",    "a memory image is malformed (an ELF file, a page cache) or a section wraps past the top of the address space") \
    X(PTC_ERR_NO_CODE,    -25, "no_code",      "the memory image holds no instruction at the IP the trace went to") \
    X(PTC_ERR_NO_TNT,     -26, "no_tnt",       "the code has a conditional branch where the trace has no TNT bit next") \
    X(PTC_ERR_NO_TIP,     -27, "no_tip",       "the code has an indirect branch or a far transfer where the trace has no TIP next") \
    X(PTC_ERR_BAD_RET,    -28, "bad_ret",      "a compressed RET (a TNT bit) that is not taken, or with no call to return to") \
    X(PTC_ERR_LOOP,       -29, "loop",         "the code loops with no branch the trace steers, and the packet that comes next is for an IP outside the loop")

typedef enum ptc_status {
#define PTC__X(e, v, n, m) e = v,
    PTC_STATUS_LIST(PTC__X)
#undef PTC__X
    /* the lowest code: the error codes are -1, -2, ... with no gap */
#define PTC__X(e, v, n, m) - ((v) < 0)
    PTC_STATUS_MIN_ = 0 PTC_STATUS_LIST(PTC__X)
#undef PTC__X
} ptc_status;

/* Short stable name ("truncated"), for logs and JSON. Never NULL. */
PTCDEF const char *ptc_status_name(ptc_status status);
/* One-sentence explanation. Never NULL. */
PTCDEF const char *ptc_status_message(ptc_status status);

PTCDEF const char *ptc_version(void);

/* ===================================================================== */
/* 1.2-1.6 Packets and their classes                                      */
/* ===================================================================== */

/* Opcodes (SPEC 1.2, 1.3): the only place their values are written. A
   first byte is PTC_OP_*; where some of its bits are fields, the value is
   the byte with those bits zero and PTC_OP_*_MASK covers the opcode bits.
   The byte after PTC_OP_EXT is PTC_EXT_* (masked the same way). */
typedef enum ptc_opcode {
    PTC_OP_PAD         = 0x00,
    PTC_OP_EXT         = 0x02, /* an extended opcode follows */
    PTC_OP_TSC         = 0x19,
    PTC_OP_MTC         = 0x59,
    PTC_OP_MODE        = 0x99, /* byte 1 bits 7:5: PTC_MODE_LEAF_EXEC or _TSX */
    PTC_OP_TRIG        = 0xD9,
    PTC_OP_TIP_PGD     = 0x01, /* the IP packets: bits 4:0, IPBytes in bits 7:5 */
    PTC_OP_TIP         = 0x0D,
    PTC_OP_TIP_PGE     = 0x11,
    PTC_OP_FUP         = 0x1D,
    PTC_OP_IP_MASK     = 0x1F,
    PTC_OP_CYC         = 0x03, /* bits 7:3: the count's low bits */
    PTC_OP_CYC_MASK    = 0x03,
    PTC_OP_CYC_MORE    = 0x04, /* another CYC byte follows */
    PTC_OP_CYC_EXP     = 0x01, /* in each further CYC byte (bits 7:1 the count's next
                                  bits): another follows */
    PTC_OP_TNT8        = 0x00, /* bit 0 clear (but PAD and EXT); a stop bit above the branches */
    PTC_OP_TNT8_MASK   = 0x01,
    PTC_OP_BIP         = 0x04, /* inside a PEBS block only; bits 7:3: the item's ID */
    PTC_OP_BIP_MASK    = 0x07,

    PTC_EXT_CBR        = 0x03,
    PTC_EXT_PSBEND     = 0x23,
    PTC_EXT_PIP        = 0x43,
    PTC_EXT_TMA        = 0x73,
    PTC_EXT_PSB        = 0x82, /* the PSB is 8 times PTC_OP_EXT, PTC_EXT_PSB */
    PTC_EXT_STOP       = 0x83,
    PTC_EXT_TNT64      = 0xA3,
    PTC_EXT_MNT        = 0xC3, /* a second escape: byte 2 is PTC_EXT2_MNT */
    PTC_EXT2_MNT       = 0x88,
    PTC_EXT_VMCS       = 0xC8,
    PTC_EXT_OVF        = 0xF3,
    PTC_EXT_MWAIT      = 0xC2,
    PTC_EXT_PWRE       = 0x22,
    PTC_EXT_PWRX       = 0xA2,
    PTC_EXT_CFE        = 0x13,
    PTC_EXT_EVD        = 0x53,
    PTC_EXT_BBP        = 0x63,
    PTC_EXT_EXSTOP     = 0x62, /* bit 7: IP */
    PTC_EXT_BEP        = 0x33, /* bit 7: IP */
    PTC_EXT_IP_BIT_MASK = 0x7F,
    PTC_EXT_PTW        = 0x12, /* bit 7: IP, bits 6:5: PayloadBytes */
    PTC_EXT_PTW_MASK   = 0x1F,
    PTC_EXT_PTW_8BYTES = 0x20, /* PayloadBytes 01b: an 8-byte payload (00b: 4) */

    PTC_MODE_LEAF_EXEC = 0x00, /* MODE's byte 1 bits 7:5 */
    PTC_MODE_LEAF_TSX  = 0x20
} ptc_opcode;

/* What a packet type means to each part of the library (SPEC 1.4). The
   column of PTC_PACKET_LIST is an OR of these; ptc_packet_is_NAME() is
   made from each. X(NAME, name, bit) */
#define PTC_PACKET_CLASS_LIST(X) \
    X(TIMING,       timing,       0) /* time only: TSC, TMA, MTC, CYC (the seed's timing packets) */ \
    X(IP,           ip,           1) /* an IP compressed against the last IP (SPEC 1.5)            */ \
    X(TNT,          tnt,          2) /* taken/not-taken bits of conditional branches and RETs     */ \
    X(CYC_ELIGIBLE, cyc_eligible, 3) /* a CYC may go right before it (SDM 36.3.6); a TNT's CYC     \
                                        goes before its first branch instead                     */ \
    X(KEEPS_BLOCK,  keeps_block,  4) /* does not end a PEBS block (SPEC 1.6)                      */ \
    X(DEC_STATE,    dec_state,    5) /* changes the stream decoder's state beyond the last IP:     \
                                        PSB resets the last IP, BBP opens a block                */ \
    X(RETIRES,      retires,      6) /* may carry retirements (SPEC 4.1)                          */

typedef enum ptc_packet_class {
#define PTC__X(N, n, bit) PTC_PC_##N = 1 << bit,
    PTC_PACKET_CLASS_LIST(PTC__X)
#undef PTC__X
    PTC_PC_NONE = 0
} ptc_packet_class;

/* The packet types, one row each: X(enumerator, JSON name, libipt ptdump
   name, smallest size, largest size, classes). Adding a type takes: its
   row here, its opcode in ptc_opcode, its fields in ptc_packet and in
   PTC_PACKET_FIELD_LIST, its decoder (ptc__dec_slow or ptc__dec_ext), its
   encoder (ptc__enc_packet), its rows in SPEC.md 1.2-1.4, and its case in
   harness/pktgen.h (which every packet test and fuzz target draws from). */
#define PTC_PACKET_LIST(X) \
    X(PTC_PAD,       "pad",       "pad",        1,  1, PTC_PC_KEEPS_BLOCK) \
    X(PTC_PSB,       "psb",       "psb",       16, 16, PTC_PC_DEC_STATE) \
    X(PTC_PSBEND,    "psbend",    "psbend",     2,  2, 0) \
    X(PTC_TNT8,      "tnt8",      "tnt.8",      1,  1, PTC_PC_TNT | PTC_PC_RETIRES) \
    X(PTC_TNT64,     "tnt64",     "tnt.64",     8,  8, PTC_PC_TNT | PTC_PC_RETIRES) \
    X(PTC_TIP,       "tip",       "tip",        1,  9, PTC_PC_IP | PTC_PC_CYC_ELIGIBLE | PTC_PC_RETIRES) \
    X(PTC_TIP_PGE,   "tip_pge",   "tip.pge",    1,  9, PTC_PC_IP | PTC_PC_CYC_ELIGIBLE) \
    X(PTC_TIP_PGD,   "tip_pgd",   "tip.pgd",    1,  9, PTC_PC_IP | PTC_PC_CYC_ELIGIBLE | PTC_PC_RETIRES) \
    X(PTC_FUP,       "fup",       "fup",        1,  9, PTC_PC_IP | PTC_PC_KEEPS_BLOCK | PTC_PC_RETIRES) \
    X(PTC_MODE_EXEC, "mode_exec", "mode.exec",  2,  2, PTC_PC_CYC_ELIGIBLE) \
    X(PTC_MODE_TSX,  "mode_tsx",  "mode.tsx",   2,  2, PTC_PC_CYC_ELIGIBLE) \
    X(PTC_PIP,       "pip",       "pip",        8,  8, PTC_PC_CYC_ELIGIBLE) \
    X(PTC_VMCS,      "vmcs",      "vmcs",       7,  7, PTC_PC_CYC_ELIGIBLE) \
    X(PTC_OVF,       "ovf",       "ovf",        2,  2, PTC_PC_CYC_ELIGIBLE) \
    X(PTC_TSC,       "tsc",       "tsc",        8,  8, PTC_PC_TIMING | PTC_PC_CYC_ELIGIBLE | PTC_PC_KEEPS_BLOCK) \
    X(PTC_TMA,       "tma",       "tma",        7,  7, PTC_PC_TIMING | PTC_PC_KEEPS_BLOCK) \
    X(PTC_MTC,       "mtc",       "mtc",        2,  2, PTC_PC_TIMING | PTC_PC_CYC_ELIGIBLE | PTC_PC_KEEPS_BLOCK) \
    X(PTC_CYC,       "cyc",       "cyc",        1, 10, PTC_PC_TIMING | PTC_PC_KEEPS_BLOCK) \
    X(PTC_CBR,       "cbr",       "cbr",        4,  4, PTC_PC_KEEPS_BLOCK) \
    X(PTC_MNT,       "mnt",       "mnt",       11, 11, PTC_PC_KEEPS_BLOCK) \
    X(PTC_PTW,       "ptw",       "ptw",        6, 10, PTC_PC_CYC_ELIGIBLE) \
    X(PTC_EXSTOP,    "exstop",    "exstop",     2,  2, PTC_PC_CYC_ELIGIBLE | PTC_PC_KEEPS_BLOCK) \
    X(PTC_MWAIT,     "mwait",     "mwait",     10, 10, PTC_PC_CYC_ELIGIBLE) \
    X(PTC_PWRE,      "pwre",      "pwre",       4,  4, PTC_PC_KEEPS_BLOCK) \
    X(PTC_PWRX,      "pwrx",      "pwrx",       7,  7, PTC_PC_KEEPS_BLOCK) \
    X(PTC_STOP,      "stop",      "stop",       2,  2, 0) \
    X(PTC_BBP,       "bbp",       "bbp",        3,  3, PTC_PC_DEC_STATE) \
    X(PTC_BIP,       "bip",       "bip",        5,  9, PTC_PC_KEEPS_BLOCK) \
    X(PTC_BEP,       "bep",       "bep",        2,  2, 0) \
    X(PTC_CFE,       "cfe",       "cfe",        4,  4, 0) \
    X(PTC_EVD,       "evd",       "evd",       11, 11, 0) \
    X(PTC_TRIG,      "trig",      "trig",       3,  5, 0)

typedef enum ptc_packet_type {
    PTC_NONE = 0, /* a zeroed packet: not a packet; the encoder refuses it */
#define PTC__X(e, json, dump, min, max, cls) e,
    PTC_PACKET_LIST(PTC__X)
#undef PTC__X
    PTC_PACKET_TYPE_COUNT
} ptc_packet_type;

/* "tip_pge"; "none" for PTC_NONE and out-of-range values. */
PTCDEF const char *ptc_packet_type_name(ptc_packet_type type);
/* The name libipt's ptdump prints ("tip.pge"). */
PTCDEF const char *ptc_packet_type_dump_name(ptc_packet_type type);
/* The type named "tip_pge" (or "tip.pge"); PTC_NONE for any other name. */
PTCDEF ptc_packet_type ptc_packet_type_from_name(const char *name);
/* The sizes a packet of this type can have (0 for PTC_NONE and unknown). */
PTCDEF unsigned ptc_packet_min_size(ptc_packet_type type);
PTCDEF unsigned ptc_packet_max_size(ptc_packet_type type);
/* Its classes (PTC_PC_*), and one predicate per class:
   ptc_packet_is_timing(), ptc_packet_is_ip(), ... All 0 for PTC_NONE. */
PTCDEF unsigned ptc_packet_classes(ptc_packet_type type);
#define PTC__X(N, n, bit) PTCDEF int ptc_packet_is_##n(ptc_packet_type type);
PTC_PACKET_CLASS_LIST(PTC__X)
#undef PTC__X
/* A non-timing packet in the seed's sense (SPEC 2.1): any packet but the
   timing packets and PAD. It resumes suppressed MTCs. */
PTCDEF int ptc_packet_is_ntp(ptc_packet_type type);

/* The largest packet (PSB) is 16 bytes; no packet is longer. */
#define PTC_MAX_PACKET_SIZE 16

/* IPBytes values of TIP, TIP.PGE, TIP.PGD and FUP (SDM names in brackets). */
enum {
    PTC_IPC_SUPPRESSED = 0, /* no payload, IP not given              */
    PTC_IPC_UPDATE_16  = 1, /* payload = IP[15:0], rest from last IP */
    PTC_IPC_UPDATE_32  = 2, /* payload = IP[31:0], rest from last IP */
    PTC_IPC_SEXT_48    = 3, /* payload = IP[47:0], sign-extended     */
    PTC_IPC_UPDATE_48  = 4, /* payload = IP[47:0], rest from last IP */
    PTC_IPC_FULL       = 6  /* payload = IP[63:0]                    */
};

/* One decoded packet, or one packet to encode. Every field is the value in
   the packet's bytes; fields named "reserved" keep bits the SDM reserves but
   decoders accept, so that encoding a decoded packet gives its exact bytes.
   Unused union members must be zero when encoding (a zeroed struct plus
   the fields you need is always right). */
typedef struct ptc_packet {
    ptc_packet_type type;
    uint8_t size; /* bytes on the wire; on encode only read for CYC, see SPEC */
    union {
        /* TNT8 (1..6 branches) and TNT64 (1..47 branches). Bit count-1 of
           bits is the oldest branch, bit 0 the newest; 1 = taken. */
        struct { uint8_t count; uint64_t bits; } tnt;
        /* TIP, TIP_PGE, TIP_PGD, FUP: ipc is IPBytes, payload the raw,
           zero-extended IP bytes of the packet (before decompression). */
        struct { uint8_t ipc; uint64_t payload; } ip;
        struct { uint8_t csl, csd, if_flag, reserved; } mode_exec; /* reserved = byte1 bits 4:3 */
        struct { uint8_t intx, abrt, reserved; } mode_tsx;          /* reserved = byte1 bits 4:2 */
        struct { uint64_t cr3; uint8_t nr; } pip;  /* cr3: bits 51:5 significant */
        struct { uint64_t base; } vmcs;            /* VMCS address: bits 51:12    */
        struct { uint64_t tsc; } tsc;              /* TSC[55:0]                   */
        struct { uint16_t ctc; uint16_t fc; } tma; /* CTC[15:0], FastCounter[8:0] */
        struct { uint8_t ctc; } mtc;               /* CTC[N+7:N]                  */
        struct { uint64_t cycles; } cyc;
        struct { uint8_t ratio; uint8_t reserved; } cbr;
        struct { uint64_t payload; } mnt;
        /* bytes: 4 or 8; ip: a FUP with the PTWRITE's IP follows */
        struct { uint64_t payload; uint8_t bytes; uint8_t ip; } ptw;
        struct { uint8_t ip; } exstop;
        struct { uint32_t hints; uint32_t ext; } mwait;
        /* state/sub_state: raw 4-bit fields; C-state n is coded (n-1) mod 16.
           hw: byte 2 bit 7 (C-state entry initiated by hardware);
           reserved: byte 2 bits 6:0 (libipt reads its "hw" from bit 3). */
        struct { uint8_t state, sub_state, hw, reserved; } pwre;
        /* last/deepest: raw 4-bit core C-state fields, (n-1) mod 16;
           wake: byte 3 bits 3:0 (bit 0 interrupt, 2 monitor store, 3 hw);
           reserved: byte 3 bits 7:4 then bytes 4..6, as bits 27:0. */
        struct { uint8_t last, deepest, wake; uint32_t reserved; } pwrx;
        /* sz = 1: the block's BIPs carry 4-byte items, 0: 8-byte items */
        struct { uint8_t sz, block_type, reserved; } bbp;
        /* bytes: 4 or 8 (set by the enclosing BBP) */
        struct { uint8_t id; uint8_t bytes; uint64_t value; } bip;
        struct { uint8_t ip; } bep;
        struct { uint8_t ip, cfe_type, vector, reserved; } cfe; /* reserved: byte 2 bits 6:5 */
        struct { uint8_t evd_type, reserved; uint64_t payload; } evd; /* reserved: byte 2 bits 7:5 */
        /* icnt is present on the wire only when icntv is set */
        struct { uint8_t trbv, ip, icntv, mult, reserved; uint16_t icnt; } trig;
    } u;
} ptc_packet;

/* The fields of each packet type, as ptc_packet holds them and in the
   order tools print them (ptdump --jsonl, SPEC 1.10): X(type, member,
   field, name, form) for pkt.u.member.field. A type with no row has no
   fields; a type's rows are next to each other. The form says how a value
   is shown:
     PTC_FF_INT, PTC_FF_HEX, PTC_FF_BOOL  a number, in hex, or true/false
     PTC_FF_RESERVED  reserved bits kept for exact re-encoding: shown only
                      when not zero
     PTC_FF_TNT_BITS  branch outcomes, oldest first (the row before gives
                      their count)
     PTC_FF_PRESENCE  not shown itself: says whether the next row's field
                      is in the packet */
typedef enum ptc_field_form {
    PTC_FF_INT, PTC_FF_HEX, PTC_FF_BOOL, PTC_FF_RESERVED, PTC_FF_TNT_BITS, PTC_FF_PRESENCE
} ptc_field_form;

#define PTC__IP_FIELDS(X, t) \
    X(t, ip, ipc, "ipc", PTC_FF_INT) \
    X(t, ip, payload, "ip", PTC_FF_HEX)
#define PTC_PACKET_FIELD_LIST(X) \
    X(PTC_TNT8,      tnt,       count,      "count",      PTC_FF_INT) \
    X(PTC_TNT8,      tnt,       bits,       "bits",       PTC_FF_TNT_BITS) \
    X(PTC_TNT64,     tnt,       count,      "count",      PTC_FF_INT) \
    X(PTC_TNT64,     tnt,       bits,       "bits",       PTC_FF_TNT_BITS) \
    PTC__IP_FIELDS(X, PTC_TIP) PTC__IP_FIELDS(X, PTC_TIP_PGE) PTC__IP_FIELDS(X, PTC_TIP_PGD) PTC__IP_FIELDS(X, PTC_FUP) \
    X(PTC_MODE_EXEC, mode_exec, csl,        "csl",        PTC_FF_BOOL) \
    X(PTC_MODE_EXEC, mode_exec, csd,        "csd",        PTC_FF_BOOL) \
    X(PTC_MODE_EXEC, mode_exec, if_flag,    "if",         PTC_FF_BOOL) \
    X(PTC_MODE_EXEC, mode_exec, reserved,   "reserved",   PTC_FF_RESERVED) \
    X(PTC_MODE_TSX,  mode_tsx,  intx,       "intx",       PTC_FF_BOOL) \
    X(PTC_MODE_TSX,  mode_tsx,  abrt,       "abrt",       PTC_FF_BOOL) \
    X(PTC_MODE_TSX,  mode_tsx,  reserved,   "reserved",   PTC_FF_RESERVED) \
    X(PTC_PIP,       pip,       cr3,        "cr3",        PTC_FF_HEX) \
    X(PTC_PIP,       pip,       nr,         "nr",         PTC_FF_BOOL) \
    X(PTC_VMCS,      vmcs,      base,       "base",       PTC_FF_HEX) \
    X(PTC_TSC,       tsc,       tsc,        "tsc",        PTC_FF_HEX) \
    X(PTC_TMA,       tma,       ctc,        "ctc",        PTC_FF_INT) \
    X(PTC_TMA,       tma,       fc,         "fc",         PTC_FF_INT) \
    X(PTC_MTC,       mtc,       ctc,        "ctc",        PTC_FF_INT) \
    X(PTC_CYC,       cyc,       cycles,     "cyc",        PTC_FF_INT) \
    X(PTC_CBR,       cbr,       ratio,      "ratio",      PTC_FF_INT) \
    X(PTC_CBR,       cbr,       reserved,   "reserved",   PTC_FF_RESERVED) \
    X(PTC_MNT,       mnt,       payload,    "payload",    PTC_FF_HEX) \
    X(PTC_PTW,       ptw,       bytes,      "bytes",      PTC_FF_INT) \
    X(PTC_PTW,       ptw,       ip,         "ip",         PTC_FF_BOOL) \
    X(PTC_PTW,       ptw,       payload,    "payload",    PTC_FF_HEX) \
    X(PTC_EXSTOP,    exstop,    ip,         "ip",         PTC_FF_BOOL) \
    X(PTC_BEP,       bep,       ip,         "ip",         PTC_FF_BOOL) \
    X(PTC_MWAIT,     mwait,     hints,      "hints",      PTC_FF_INT) \
    X(PTC_MWAIT,     mwait,     ext,        "ext",        PTC_FF_INT) \
    X(PTC_PWRE,      pwre,      state,      "state",      PTC_FF_INT) \
    X(PTC_PWRE,      pwre,      sub_state,  "sub_state",  PTC_FF_INT) \
    X(PTC_PWRE,      pwre,      hw,         "hw",         PTC_FF_BOOL) \
    X(PTC_PWRE,      pwre,      reserved,   "reserved",   PTC_FF_RESERVED) \
    X(PTC_PWRX,      pwrx,      last,       "last",       PTC_FF_INT) \
    X(PTC_PWRX,      pwrx,      deepest,    "deepest",    PTC_FF_INT) \
    X(PTC_PWRX,      pwrx,      wake,       "wake",       PTC_FF_INT) \
    X(PTC_PWRX,      pwrx,      reserved,   "reserved",   PTC_FF_RESERVED) \
    X(PTC_CFE,       cfe,       ip,         "ip",         PTC_FF_BOOL) \
    X(PTC_CFE,       cfe,       cfe_type,   "cfe_type",   PTC_FF_INT) \
    X(PTC_CFE,       cfe,       vector,     "vector",     PTC_FF_INT) \
    X(PTC_CFE,       cfe,       reserved,   "reserved",   PTC_FF_RESERVED) \
    X(PTC_EVD,       evd,       evd_type,   "evd_type",   PTC_FF_INT) \
    X(PTC_EVD,       evd,       payload,    "payload",    PTC_FF_HEX) \
    X(PTC_EVD,       evd,       reserved,   "reserved",   PTC_FF_RESERVED) \
    X(PTC_TRIG,      trig,      trbv,       "trbv",       PTC_FF_INT) \
    X(PTC_TRIG,      trig,      ip,         "ip",         PTC_FF_BOOL) \
    X(PTC_TRIG,      trig,      mult,       "mult",       PTC_FF_BOOL) \
    X(PTC_TRIG,      trig,      icntv,      "icntv",      PTC_FF_PRESENCE) \
    X(PTC_TRIG,      trig,      icnt,       "icnt",       PTC_FF_INT) \
    X(PTC_TRIG,      trig,      reserved,   "reserved",   PTC_FF_RESERVED) \
    X(PTC_BBP,       bbp,       sz,         "sz",         PTC_FF_INT) \
    X(PTC_BBP,       bbp,       block_type, "block_type", PTC_FF_INT) \
    X(PTC_BBP,       bbp,       reserved,   "reserved",   PTC_FF_RESERVED) \
    X(PTC_BIP,       bip,       id,         "id",         PTC_FF_INT) \
    X(PTC_BIP,       bip,       bytes,      "bytes",      PTC_FF_INT) \
    X(PTC_BIP,       bip,       value,      "value",      PTC_FF_HEX)

/* PEBS-via-PT block context. A BIP has no opcode of its own: its first byte
   (bits 2:0 = 100b) is only a BIP between a BBP and the end of its block. */
typedef enum ptc_block_ctx {
    PTC_BLOCK_NONE = 0,
    PTC_BLOCK_4    = 4, /* inside a block of 4-byte items */
    PTC_BLOCK_8    = 8  /* inside a block of 8-byte items */
} ptc_block_ctx;

/* The block context after `pkt`, given the context before it. A BBP opens a
   block; BIP, PAD, timing packets, FUP, MNT, EXSTOP, PWRE and PWRX keep it;
   every other packet (BEP among them) closes it. */
PTCDEF ptc_block_ctx ptc_block_ctx_after(ptc_block_ctx before, const ptc_packet *pkt);



/* ===================================================================== */
/* 1.7 Single-packet decode                                              */
/* ===================================================================== */

/* Decodes the packet at buf[0]. Reads at most min(len, PTC_MAX_PACKET_SIZE)
   bytes. Returns PTC_OK (pkt filled, pkt->size > 0), PTC_ERR_TRUNCATED when
   the bytes so far are a valid beginning of a packet but len is too short,
   or a malformed-input error (bad_opcode, bad_ipbytes, reserved_value,
   bad_psb, empty_tnt, cyc_overflow). `blk` is the PEBS block context. */
PTCDEF ptc_status ptc_decode_packet(const uint8_t *buf, size_t len,
                                    ptc_block_ctx blk, ptc_packet *pkt);

/* ===================================================================== */
/* 1.8 Encoding                                                          */
/* ===================================================================== */

/* Writes pkt's bytes to out. Refuses (and writes nothing) when a field
   cannot be represented (PTC_ERR_RANGE), the type is unknown
   (PTC_ERR_BAD_TYPE) or cap is too small (PTC_ERR_NO_SPACE). Anything it
   writes decodes back to an equal packet. *written gets the size on
   success and 0 otherwise; it may be NULL. */
PTCDEF ptc_status ptc_encode_packet(const ptc_packet *pkt, uint8_t *out,
                                    size_t cap, size_t *written);

/* Equality of two packets: same type, size and field values (the fields
   of their type only): their encodings are equal. Packets the encoder refuses are equal only when
   their structs are identical byte for byte. */
PTCDEF int ptc_packet_equal(const ptc_packet *a, const ptc_packet *b);

/* ===================================================================== */
/* 1.9 Stream decoding                                                   */
/* ===================================================================== */

/* Decoder flags */
#define PTC_DECODE_NO_SYNC 1u /* decode from the first byte; no PSB search */
#define PTC_DECODE_SKD007  2u /* the CPU has erratum SKD007: an OVF may cut a CYC (SPEC 1.9 rule 5) */
#define PTC_DECODE_SKZ84   4u /* the CPU has erratum SKZ84: a corrupt TMA has a bogus byte after it (rule 6) */

/* One thing the stream decoder reports: a packet or an error. */
typedef struct ptc_item {
    uint64_t offset;   /* stream offset of the packet or of the error */
    ptc_status error;  /* PTC_OK for a packet, else what is wrong at offset */
    ptc_packet pkt;    /* valid when error == PTC_OK */
    /* TIP/TIP.PGE/TIP.PGD/FUP: the IP after decompression against the last
       IP. ip_known is 1 when every bit of it is known (0 for a suppressed
       IP, or compression against a last IP never fully seen). */
    uint64_t ip;
    uint8_t ip_known;
} ptc_item;

/* All fields are private; the struct is public so it can live anywhere.
   Invariant: carry holds exactly the stream bytes [pos, chunk_off) when
   pos < chunk_off (a packet or PSB that began before the current chunk);
   otherwise pos lies inside the current chunk. */
typedef struct ptc_decoder {
    const uint8_t *chunk;      /* current chunk, owned by the caller      */
    size_t chunk_len;          /* 0 once the chunk is used up             */
    uint64_t chunk_off;        /* stream offset of chunk[0]               */
    uint64_t pos;              /* stream offset of the next byte to decode */
    uint64_t start_off;        /* stream offset of the first byte          */
    uint8_t carry[32];         /* a packet, and a PSB that may begin inside it with the 2 bytes after it */
    size_t carry_len;
    uint64_t last_ip;
    uint64_t last_ip_known;    /* mask of the bits of last_ip that are known */
    unsigned flags;
    int searching;             /* looking for a PSB                        */
    int synced_once;           /* a PSB was found, or NO_SYNC              */
    int finished;              /* no input after the current chunk         */
    int done;                  /* everything was reported                  */
    ptc_block_ctx block;
    uint64_t end_off;          /* a segment's end: nothing at or after it is reported (UINT64_MAX: none) */
} ptc_decoder;

/* Prepares a decoder. base_offset is the stream offset of the first byte
   that will be fed (for decoding from the middle of a file). */
PTCDEF void ptc_decoder_init(ptc_decoder *dec, unsigned flags, uint64_t base_offset);

/* Gives the next chunk of input. Allowed right after init and whenever
   ptc_decoder_next() returned PTC_NEED_INPUT; otherwise PTC_ERR_BAD_STATE.
   The decoder keeps a pointer into buf until it asks for more input, and
   copies at most 31 bytes before it does (a packet cut by the chunk's
   end, and a PSB that may begin inside it with the 2 bytes after that;
   SPEC 1.9 rule 4). */
PTCDEF ptc_status ptc_decoder_feed(ptc_decoder *dec, const uint8_t *buf, size_t len);

/* Declares that no input follows the current chunk. */
PTCDEF void ptc_decoder_finish(ptc_decoder *dec);

/* Convenience: init + feed(buf, len) + finish. */
PTCDEF void ptc_decoder_init_buffer(ptc_decoder *dec, unsigned flags,
                                    const uint8_t *buf, size_t len);

/* Reports the next packet or error in *item and returns PTC_OK, or returns
   PTC_NEED_INPUT (feed more, or finish) or PTC_END (nothing more, ever).
   Rules (SPEC.md "Stream decoding"): without PTC_DECODE_NO_SYNC, bytes
   before the first PSB are skipped; a malformed packet is reported at its
   offset and decoding resumes at the next PSB after it; the input ending
   inside a packet is a truncated error at that packet's offset; with no
   PSB anywhere (sync mode, non-empty input) one no_psb error at the first
   offset; with PTC_DECODE_SKD007, a CYC cut by an OVF is a cut_cyc error
   and the OVF follows it (no resync); with PTC_DECODE_SKZ84, a TMA with
   reserved bits set and the byte after it are one corrupt_tma error, and
   decoding goes on after them. Results never depend on how the input was
   split into chunks. */
PTCDEF ptc_status ptc_decoder_next(ptc_decoder *dec, ptc_item *item);

/* ===================================================================== */
/* 1.12 Batch decoding                                                   */
/* ===================================================================== */

/* One packet or error in 32 bytes, for loops that decode many packets at
   a time (SPEC 1.12). value and info hold what such loops read most;
   ptc_record_packet() gives every field. */
typedef struct ptc_record {
    uint64_t offset;   /* stream offset of the packet or of the error */
    /* TNT-8/TNT-64: the branch bits (as pkt.u.tnt.bits); TIP, TIP.PGE,
       TIP.PGD, FUP: the IP after decompression (as ptc_item.ip); TSC: its
       value; CYC: its count; 0 for every other type and for errors. */
    uint64_t value;
    /* The packet's first bytes (all of them but a PSB's last five). The
       bytes from size on are unspecified. */
    uint8_t bytes[11];
    uint8_t type;      /* a ptc_packet_type; PTC_NONE for an error */
    uint8_t size;      /* bytes on the wire; 0 for an error */
    /* TNT: the branch count; IP packets: IPBytes, with PTC_RECORD_IP_KNOWN
       when every bit of the IP is known (as ptc_item.ip_known); MTC: its
       CTC byte; 0 otherwise. */
    uint8_t info;
    uint8_t block;     /* the ptc_block_ctx before the packet (a BIP's size) */
    int8_t error;      /* PTC_OK, or the ptc_status of an error record */
} ptc_record;

#define PTC_RECORD_IP_KNOWN 0x80u

/* Decodes up to cap records (cap > 0) into recs and stores their number
   in *count. Returns PTC_OK when it wrote cap of them, else what
   ptc_decoder_next() returned after the last: PTC_NEED_INPUT (feed, or
   finish) or PTC_END; *count may then be anything from 0 to cap - 1. The
   records are exactly the items ptc_decoder_next() would give, in order
   (ptc_record_item() turns one back into that item), and the two calls
   can be mixed on one decoder. */
PTCDEF ptc_status ptc_decoder_next_batch(ptc_decoder *dec, ptc_record *recs, size_t cap, size_t *count);

/* Every field of a packet record, as ptc_decoder_next() gave it;
   PTC_ERR_BAD_ARGUMENT for an error record. */
PTCDEF ptc_status ptc_record_packet(const ptc_record *rec, ptc_packet *pkt);

/* The item ptc_decoder_next() gives for this record. */
PTCDEF ptc_status ptc_record_item(const ptc_record *rec, ptc_item *item);

/* ===================================================================== */
/* 1.13 Segments: one trace, many threads                                */
/* ===================================================================== */

/* A trace splits at PSBs into segments that decode independently (SPEC
   1.13): at a segment start the stream decoder's state starts afresh.
   The library starts no threads; a caller hands segments to its own. */

/* The first segment start at or after `from` in the whole trace
   buf[0..len): a PSB that the decoder always stops at; len when there is
   none. Segment starts cut the trace into [0, s1), [s1, s2), ... [sn, len). */
PTCDEF size_t ptc_segment_next(const uint8_t *buf, size_t len, size_t from);

/* Prepares dec to give exactly the items that decoding all of buf[0..len)
   with these flags gives at offsets in [start, end), then PTC_END; start
   is 0 or a segment start, end a later segment start or len (else
   PTC_ERR_BAD_ARGUMENT). It reads buf from start to 16 bytes past end.
   ptc_decoder_next() and ptc_decoder_next_batch() both read it. */
PTCDEF ptc_status ptc_decoder_init_segment(ptc_decoder *dec, unsigned flags, const uint8_t *buf, size_t len,
                                           size_t start, size_t end);


/* ===================================================================== */
/* 2. MTC suppression and the policy checker (SPEC.md part 2)            */
/* ===================================================================== */

/* MTC suppression and resume (seed patent US 12,386,726; SPEC 2.1). */
typedef struct ptc_mtc_policy {
    uint8_t threshold;       /* suppress after this many MTCs in a row with no
                                non-timing packet between them; 0 = never */
    uint8_t resume_on_value; /* 1: an MTC whose payload is resume_value is emitted */
    uint8_t resume_value;
    uint8_t resume_after;    /* 1..255: the MTC after this many suppressed ones is
                                emitted; 0 = no counter */
    uint8_t min_burst;       /* after a resume that no non-timing packet caused,
                                this many MTCs (>= 2) before suppressing again */
} ptc_mtc_policy;

/* The seed's example: threshold 2, resume after 255 suppressed, bursts of 2. */
PTCDEF void ptc_mtc_policy_default(ptc_mtc_policy *p);

/* What a stream can break against its policy (SPEC 2.2): rows of the
   conformance catalogue, PTC_RULE_LIST (part 7), which numbers them as
   ptc_rule values and gives their names (ptc_rule_name). X(enumerator,
   name, severity, source, what breaks it). */
#define PTC_MTC_RULE_LIST(X) \
    X(PTC_RULE_MTC_NOT_SUPPRESSED, "mtc_not_suppressed", PTC_SEV_VIOLATION, "US 12,386,726", \
      "an MTC was emitted where the policy suppresses it") \
    X(PTC_RULE_MISSING_MTC,     "missing_mtc",       PTC_SEV_VIOLATION,  "US 12,386,726", \
      "MTC periods are missing but the policy did not allow suppression") \
    X(PTC_RULE_GAP_TOO_LONG,    "gap_too_long",      PTC_SEV_VIOLATION,  "US 12,386,726", \
      "more MTCs were suppressed than the resume rules allow") \
    X(PTC_RULE_EARLY_RESUME,    "early_resume",      PTC_SEV_VIOLATION,  "US 12,386,726", \
      "suppression ended without a resume condition") \
    X(PTC_RULE_LATE_RESUME,     "late_resume",       PTC_SEV_VIOLATION,  "US 12,386,726", \
      "a suppressed MTC met a resume condition")

/* All fields are private. */
typedef struct ptc_checker {
    ptc_mtc_policy policy;
    int have_mtc;            /* an MTC since the last re-anchor */
    uint8_t last_payload;
    uint32_t run, need;      /* emitted MTCs since the last NTP/resume, and the run that starts suppression */
    int ntp_since_mtc;       /* a non-timing packet since the last MTC */
    uint64_t violations;
} ptc_checker;

PTCDEF void ptc_checker_init(ptc_checker *c, const ptc_mtc_policy *policy);
/* Feeds one decoded packet; returns 0 (PTC_RULE_NONE) or the rule of
   PTC_MTC_RULE_LIST it breaks, a ptc_rule value (the enum is part 7's). */
PTCDEF int ptc_checker_packet(ptc_checker *c, const ptc_packet *pkt);


/* ===================================================================== */
/* 3. Clock recovery (SPEC.md part 3)                                    */
/* ===================================================================== */

#ifndef PTC_CLOCK_WINDOW
#define PTC_CLOCK_WINDOW 512
#endif

/* The errata of Intel PT the library knows, named as libipt names them:
   those that touch time (SPEC 3.12) and SKL014, the flow decoder's (9.3).
   X(enum, bit, name, what the library does about it: the clock, the
   stream decoder, the conformance checker of part 7, the flow decoder). */
#define PTC_ERRATA_LIST(X) \
    X(PTC_ERRATUM_SKL168, 0x1u, "skl168", \
      "a PSB can drop the CYC right before it and an MTC: cycle counts do not span a PSB, one more MTC may be missing") \
    X(PTC_ERRATUM_SKZ84, 0x2u, "skz84", \
      "a TMA's CTC and FastCounter can be wrong (a VMX guest with TSC offsetting or scaling): TMAs are not used; " \
      "one with reserved bits set is decoded with the bogus byte after it as a corrupt_tma error (PTC_DECODE_SKZ84)") \
    X(PTC_ERRATUM_SKD007, 0x4u, "skd007", \
      "an OVF can cut a multi-byte CYC after its first byte: decoded as a cut_cyc error (PTC_DECODE_SKD007), its cycles lost") \
    X(PTC_ERRATUM_BDM70, 0x8u, "bdm70", \
      "a PSB+ right before a TIP.PGE can hold a FUP and a MODE.Exec although packet generation is off: " \
      "the conformance checker's pge_while_on there is this erratum") \
    X(PTC_ERRATUM_SKD010, 0x10u, "skd010", \
      "an OVF can have no FUP or TIP.PGE after it: the conformance checker's ovf_follower is this erratum") \
    X(PTC_ERRATUM_APL11, 0x20u, "apl11", \
      "an OVF can have a TIP.PGD after it: the conformance checker's ovf_follower on a TIP.PGD is this erratum") \
    X(PTC_ERRATUM_SKL014, 0x40u, "skl014", \
      "a direct JMP or CALL that leaves the IP filter ranges can write its TIP.PGD without the IP: with the ranges " \
      "known (PTC_KNOW_FILTERS), the flow decoder binds such a TIP.PGD to the first that does")

enum {
#define PTC__X(e, bit, name, what) e = bit,
    PTC_ERRATA_LIST(PTC__X)
#undef PTC__X
    /* every bit above */
#define PTC__X(e, bit, name, what) | (bit)
    PTC_ERRATA_ALL_ = 0 PTC_ERRATA_LIST(PTC__X)
#undef PTC__X
};

/* The errata a CPU has, by CPUID family, model and stepping (as libipt's
   pt_cpu_errata; 0 when none is known). */
PTCDEF uint32_t ptc_errata_for_cpu(unsigned family, unsigned model, unsigned stepping);
/* One erratum's bit from its name ("skl168"), 0 if unknown; and back. */
PTCDEF uint32_t ptc_erratum_from_name(const char *name);
PTCDEF const char *ptc_erratum_name(uint32_t erratum);
PTCDEF const char *ptc_erratum_effect(uint32_t erratum);
/* The stream decoder's flags for a trace with these errata
   (PTC_DECODE_SKD007 for SKD007, PTC_DECODE_SKZ84 for SKZ84), to OR with
   the others. */
PTCDEF unsigned ptc_errata_decode_flags(uint32_t errata);

/* ---- 3.1 The trace's configuration ----
   What tracing was set up with, as the parts that read a trace need it:
   IA32_RTIT_CTL, the IP filter ranges, the CPUID and MSR ratios, the
   CPU's errata and the MTC policy. One struct for the clock, the events
   decoder, navigation, the model, perf.data and the checker: each embeds
   it, so passing it on is an assignment. */

/* IA32_RTIT_CTL's fields, by the SDM's names (SPEC 3.1). */
typedef struct ptc_rtit_ctl {
    uint8_t branch_en, tsc_en, mtc_en, cyc_en, pwr_evt_en, ptw_en, fup_on_ptw;
    uint8_t os, user;            /* trace CPL 0 / CPL > 0 */
    uint8_t dis_retc;            /* DisRETC: no RET compression */
    uint8_t mtc_freq;            /* MTCFreq: an MTC when CTC bit mtc_freq toggles */
    uint8_t cyc_thresh;          /* CycThresh: a CYC after >= 2^(T-1) cycles (0: at every eligible packet) */
    uint8_t psb_freq;            /* PSBFreq: a PSB+ every 2^(psb_freq+11) bytes */
} ptc_rtit_ctl;

/* The IP filter ranges: tracing only inside [lo, hi) of one of them;
   count 0: everywhere. */
typedef struct ptc_ip_filters {
    uint8_t count;
    uint64_t lo[4], hi[4];
} ptc_ip_filters;

/* The clocks' ratios; a zero says the trace's value is not known. */
typedef struct ptc_tsc_ratios {
    uint32_t cpuid_15_eax;       /* TSC ticks per CTC tick = ebx / eax (CPUID leaf 0x15); */
    uint32_t cpuid_15_ebx;       /*   both or neither */
    uint64_t nom_num, nom_den;   /* nom: TSC ticks per core cycle at ratio 1, nom_num / nom_den
                                    (MSR_PLATFORM_INFO[15:8]) */
    uint8_t nom_exact;           /* nom is exact; else the true value is within +-1/2
                                    (the MSR holds it rounded) */
} ptc_tsc_ratios;

/* Which fields of a ptc_trace_config are the trace's (its `known`): one
   bit per IA32_RTIT_CTL field, then the filters, the MTC policy and the
   CPU (its errata are all it has). A reader infers what is not known from
   the stream where it can (SPEC 3.1 says which). */
enum {
    PTC_KNOW_BRANCH_EN = 1u << 0, PTC_KNOW_TSC_EN = 1u << 1, PTC_KNOW_MTC_EN = 1u << 2,
    PTC_KNOW_CYC_EN = 1u << 3, PTC_KNOW_PWR_EVT_EN = 1u << 4, PTC_KNOW_PTW_EN = 1u << 5,
    PTC_KNOW_FUP_ON_PTW = 1u << 6, PTC_KNOW_OS = 1u << 7, PTC_KNOW_USER = 1u << 8,
    PTC_KNOW_DIS_RETC = 1u << 9, PTC_KNOW_MTC_FREQ = 1u << 10, PTC_KNOW_CYC_THRESH = 1u << 11,
    PTC_KNOW_PSB_FREQ = 1u << 12,
    PTC_KNOW_CTL = (1u << 13) - 1,   /* all of IA32_RTIT_CTL */
    PTC_KNOW_FILTERS = 1u << 13,
    PTC_KNOW_POLICY = 1u << 14,      /* policy is the trace's MTC suppression (part 2) */
    PTC_KNOW_CPU = 1u << 15,         /* errata are all the trace's CPU has */
    PTC_KNOW_ALL = (1u << 16) - 1
};

typedef struct ptc_trace_config {
    uint32_t known;              /* PTC_KNOW_* bits; 0: nothing known */
    ptc_rtit_ctl ctl;
    ptc_ip_filters filters;
    ptc_tsc_ratios ratios;
    uint8_t cyc_bits;            /* the cycle counter's width, 1..64 (CPU-specific):
                                    a CYC value above it is an error; 0: 64 */
    uint32_t errata;             /* PTC_ERRATUM_* bits of the trace's CPU */
    ptc_mtc_policy policy;
} ptc_trace_config;

/* The plain number fields of ptc_trace_config and their ranges, each
   once: X(key, field, least, most). The key is the field's name in the
   model's configuration files (SPEC 5.6). */
#define PTC_TRACE_CONFIG_FIELDS(X) \
    X("branch_en", ctl.branch_en, 0, 1) \
    X("tsc_en", ctl.tsc_en, 0, 1) \
    X("mtc_en", ctl.mtc_en, 0, 1) \
    X("cyc_en", ctl.cyc_en, 0, 1) \
    X("pwr_evt_en", ctl.pwr_evt_en, 0, 1) \
    X("ptw_en", ctl.ptw_en, 0, 1) \
    X("fup_on_ptw", ctl.fup_on_ptw, 0, 1) \
    X("os", ctl.os, 0, 1) \
    X("user", ctl.user, 0, 1) \
    X("dis_retc", ctl.dis_retc, 0, 1) \
    X("mtc_freq", ctl.mtc_freq, 0, 15) \
    X("cyc_thresh", ctl.cyc_thresh, 0, 15) \
    X("psb_freq", ctl.psb_freq, 0, 15) \
    X("cpuid_0x15_eax", ratios.cpuid_15_eax, 0, 0xFFFFFFFFu) \
    X("cpuid_0x15_ebx", ratios.cpuid_15_ebx, 0, 0xFFFFFFFFu) \
    X("cyc_bits", cyc_bits, 0, 64)

/* NULL when every field is in range and the fields agree (SPEC 3.1), else
   the key of the first that is not ("filter", "nom_den", "errata", ...):
   every part that takes a trace configuration checks it here. */
PTCDEF const char *ptc_trace_config_error(const ptc_trace_config *t);

/* How far real hardware strays from the SDM's idealized clocks (SPEC
   3.11): what the clock allows for. */
typedef struct ptc_clock_real {
    uint8_t mtc_jitter;          /* an MTC goes out up to this many core cycles after
                                    its edge (the edge crosses clock domains) */
    uint8_t psb_early_tsc;       /* a PSB+'s TSC and TMA were sampled somewhere
                                    inside it, before packets (CYC, MTC) that go
                                    ahead of them in the PSB+ */
    uint8_t mtc_lost;            /* up to this many MTCs in a row may be missing that
                                    the policy would emit (errata such as SKL168) */
    uint8_t hidden_stops;        /* the core clock may stop with nothing in the trace to
                                    show it (a C-state without PWRE): an MTC later than
                                    the policy allows is such a stop, not a conflict */
    uint32_t rate_ppm;           /* the core clock runs up to this many parts per
                                    million off its average rate against the ART
                                    (spread-spectrum clocking): what the trace
                                    shows of nom is widened by it */
} ptc_clock_real;

/* What the clock needs to know: the trace's configuration, of which it
   reads the MTC frequency, the ratios, the CYC mode (cyc_en and
   cyc_thresh; not known: what the CYCs show), the counter width, the
   errata and the policy (not known: only that no 256 MTCs in a row are
   missing); and its own settings. */
typedef struct ptc_clock_config {
    ptc_trace_config trace;
    uint8_t resume_on_ntp;       /* MTCs resume at every non-timing packet (SPEC 2.1):
                                    lets the clock bound packets after suppressed MTCs */
    ptc_clock_real real;
} ptc_clock_config;

/* Defaults: as hardware writes its traces - every MTC emitted (the
   policy known, suppression off), within the tolerances below (MTCs up
   to PTC_CLOCK_HW_MTC_JITTER cycles after their edges, ...), CYCs (if the
   trace has them) with an unknown threshold - with nothing else known
   but mtc_freq 0: set mtc_freq, the CPUID ratio and nom from the trace's
   configuration. A trace written with MTC suppression needs its policy, or
   PTC_KNOW_POLICY cleared. */
#define PTC_CLOCK_HW_MTC_JITTER 4
#define PTC_CLOCK_HW_RATE_PPM 5000
#define PTC_CLOCK_HW_MTC_LOST 1
PTCDEF void ptc_clock_config_default(ptc_clock_config *cfg);
/* The same with the SDM's idealized clocks: MTCs at their edges, a PSB+'s
   TSC sampled as it is written, the core clock locked to the ART, no MTC
   lost. For traces another encoder wrote by the SDM's rules (libipt's test
   vectors, say); the model's traces: ptc_clock_config_from_model(). */
PTCDEF void ptc_clock_config_sdm(ptc_clock_config *cfg);

/* A decoded item with its time. */
typedef struct ptc_timed_item {
    ptc_item item;
    uint8_t have_time;     /* 0 before the first TSC: no time is known */
    uint64_t tsc;          /* point estimate, TSC ticks; never goes back */
    uint64_t tsc_lo;       /* the true TSC is in [tsc_lo, tsc_hi]; */
    uint64_t tsc_hi;       /*   tsc_hi = UINT64_MAX: no upper bound known */
    uint8_t have_cycles;   /* CYC packets seen since the last TSC */
    uint64_t cycles;       /* core cycles (CYC sums) since the last TSC */
    uint8_t conflict;      /* the trace's timing packets contradict each other
                              here (no time fits them all): the interval is
                              the nearest one that keeps time going forward */
} ptc_timed_item;

/* All fields are private. A divisor known in advance (the clock divides
   by the same few at every packet): see ptc__math_divider_init. */
typedef struct ptc__math_divider {
    uint64_t d, magic;
    unsigned shift;
} ptc__math_divider;

typedef struct ptc__clk_entry {
    ptc_item it;
    uint64_t lo, hi, point, pos_lo, pos_hi, cycles;
    uint64_t hi_by_mtc;    /* before the next MTC that must be emitted (UINT64_MAX: none known) */
    uint32_t epoch;
    uint32_t flags;        /* PTC__CLK_*, the CBR in bits 16..23, and in bits 24..31 the
                              point's fraction of a tick, in 256ths (SPEC 3.7 rule 3) */
} ptc__clk_entry;

/* How core cycles and ART ticks convert to TSC ticks (SPEC 3.5 rule 3,
   3.3): what the clock and the events decoder (3.13) share. nom (TSC
   ticks per cycle at ratio 1) lies in [nom_lo, nom_hi], as fractions:
   from the configuration, narrowed by what the trace shows. */
typedef struct ptc__clk_rate {
    uint64_t nom_lo_n, nom_lo_d, nom_hi_n, nom_hi_d;
    uint8_t cbr;                      /* the core:bus ratio now; 0 before the first CBR */
    uint32_t rate_ppm, ebx;           /* the configuration's wobble, and CPUID.15H:EBX */
    uint8_t mtc_jitter;
    /* kept with nom and the CBR (ptc__clk_rate_set), as every packet asks: */
    uint64_t mtc_lag;                 /* ptc__clk_mtc_lag() at the current CBR */
    int tick_div_ok;                  /* at the current CBR (not 0) cycles convert by: */
    ptc__math_divider tick_div[2];    /*   nom_lo_d * CBR (slowest), nom_hi_d * CBR (fastest) */
    ptc__math_divider art_div;        /* cpuid_15_eax (ART to TSC) */
    ptc__math_divider ppm_div;        /* 10^6 (the wobble) */
} ptc__clk_rate;

/* The CTC base a TMA gives and the last MTC edge counted from it (SPEC 3.3). */
typedef struct ptc__clk_ctc {
    int valid, after_tma;
    uint64_t base_tsc;                /* floor of the TSC at the TMA's ART edge */
    uint16_t base_low;                /* that edge's CTC[15:0] */
    uint64_t art_rel;                 /* ART of the last MTC edge, relative to the base */
    uint8_t last_payload;
    int have_mtc;                     /* an MTC since the base */
} ptc__clk_ctc;

/* With a wobbling core clock (rate_ppm), the points count cycles at the
   rate measured since the newest exactly positioned anchor at least
   PTC__CLK_RATE_SPAN cycles back, of the last PTC__CLK_RATE_ANCHORS
   (SPEC 3.7): the span keeps the MTCs' few cycles of lag small against
   it, and short enough to follow the wobble. */
#define PTC__CLK_RATE_ANCHORS 16
#define PTC__CLK_GUESS_EPOCHS 8
#define PTC__CLK_RATE_SPAN 2048

/* A fraction of a tick, rem / den (den 0: none): what is left of a point
   below a tick, so that points counted on from it land on the tick the
   exact sum does (the truth is the exact time rounded down). */
typedef struct ptc__clk_frac { uint64_t rem, den; } ptc__clk_frac;

typedef struct ptc__clk_anchor {
    uint64_t lo, hi, pos_lo, pos_hi, point;
    ptc__clk_frac point_frac; /* the point's fraction, for the points counted from it */
    uint32_t epoch;
    int valid, mtc;
} ptc__clk_anchor;

/* All fields are private. The parts of the clock's state. */
typedef struct ptc__clk_window {      /* the items held back (SPEC 3.7) */
    ptc__clk_entry ring[PTC_CLOCK_WINDOW];
    size_t head, count, ready;        /* ring; the first `ready` entries are final */
    size_t open_from;                 /* entries from here on wait for the next CYC point */
    int finished;                     /* ptc_clock_finish was called */
} ptc__clk_window;

typedef struct ptc__clk_given {       /* what has gone out: later items stay at or after it */
    uint64_t out_lo, out_point;       /* the latest lower bound and point given so far */
    uint64_t ntp_lo, ntp_point;       /* the last final non-timing packet went out after
                                         ntp_lo, and at or after ntp_point */
} ptc__clk_given;

typedef struct ptc__clk_tsc {         /* the last TSC */
    int have;
    uint64_t full;                    /* its value, extended to 64 bits */
    int run;                          /* what follows now is sent with it */
    int in_psb;                       /* it is a PSB+'s */
    uint64_t pos_lo, pos_hi;          /* its cycle position */
    int sampled;                      /* it was sampled before it went out */
    uint64_t hi;                      /* its packet went out by then */
    uint64_t cycles;                  /* counted by CYCs since it */
} ptc__clk_tsc;

typedef struct ptc__clk_psb {         /* the open PSB+ */
    size_t at;                        /* ring index + 1 of its first entry still in the
                                         window, 0: none */
    int point;                        /* a CYC point inside it */
    int tail;                         /* after its TSC, before its PSBEND */
    uint64_t lo, hi;                  /* its TSC's interval */
    uint64_t cycles;                  /* counted by CYCs since the PSB */
    int mtc;                          /* an MTC came in it before its TSC */
} ptc__clk_psb;

typedef struct ptc__clk_due {         /* the next MTC that must be emitted (SPEC 3.4 rule 2),
                                         as the clock and the events decoder track it */
    ptc_checker chk;                  /* the policy's run of MTCs, to know which edge that is */
    int stop_since_mtc;               /* a possible clock stop since the last MTC */
    int seen_gap;                     /* MTCs have gone missing somewhere in the trace */
    int hi_known;                     /* hi is known (the events decoder computes it when
                                         asked, the clock at the MTC or CBR) */
    uint64_t hi;                      /* its packet goes out by then */
    uint64_t half_period;             /* half an MTC period, in TSC ticks (rounded up) */
} ptc__clk_due;

typedef struct ptc__clk_slope {       /* the rate the points count cycles at (SPEC 3.7) */
    /* kept with the rate (ptc__clk_rate_changed), as every packet asks: */
    int nom_cfg_inside;               /* the configured nom is in the rate's range */
    ptc__math_divider guess_div;      /* nom's denominator * CBR, while nom_cfg_inside and a CBR */
    ptc__clk_anchor ref;              /* the first exactly positioned anchor of the epoch */
    uint8_t ref_cbr;
    /* the exactly positioned anchors since ref, the newest at
       (seen_n - 1) % PTC__CLK_RATE_ANCHORS: their cycle positions and the
       middles of their intervals */
    uint64_t seen_pos[PTC__CLK_RATE_ANCHORS], seen_mid[PTC__CLK_RATE_ANCHORS];
    size_t seen_n;
    uint64_t ticks, cycles;           /* the rate they measure (PTC__CLK_RATE_SPAN); 0: none */
} ptc__clk_slope;

typedef struct ptc__clk_cursor {          /* the cycle position decoded so far */
    uint32_t epoch;
    int active;                       /* positions are known in this epoch */
    int cyc_just_before;              /* the last packet but PADs was a CYC */
    size_t cyc_pending;               /* ring index + 1 of a CYC whose count waits for the next packet */
    uint64_t pos;
    uint64_t cyc_min_eligible;        /* the fewest cycles a CYC right before an eligible packet
                                         carried (not after a CYC): at least the threshold's */
} ptc__clk_cursor;

typedef struct ptc__clk_anchors {
    ptc__clk_anchor last;             /* the last anchor, positioned or not */
    ptc__clk_anchor positioned;       /* the last anchor with a cycle position */
    /* the points of an epoch count cycles from its reference: the last
       anchor at an exact cycle position, else `positioned`, else the point
       carried across a CBR (ptc__clk_carry_points). Entries wait for their
       points until the next anchor, which may come epochs later (CBRs
       between): each of the last PTC__CLK_GUESS_EPOCHS epochs keeps its
       own, at epoch % PTC__CLK_GUESS_EPOCHS. */
    ptc__clk_anchor guess_refs[PTC__CLK_GUESS_EPOCHS];
} ptc__clk_anchors;

typedef struct ptc__clk_branch {      /* the CYCs since the last packet that may time a TNT's
                                         first branch (SPEC 3.7, the two readings); 0: none */
    uint64_t first, last;             /* the points of the first and the last CYC */
    uint64_t last_final;              /* the point of the last final CYC */
    uint64_t lone;                    /* the point of the first lone CYC */
    int seen_lone;                    /* the trace has shown a lone CYC: its TNTs' CYCs go out
                                         at their first branches */
    uint32_t unplaced;                /* TNTs with no CYC right before them, CYCs since the
                                         packet before them and no lone CYC among those */
} ptc__clk_branch;

typedef struct ptc__clk_fup {         /* the last packet was a PTW or EXSTOP with its IP bit: */
    int bound;                        /*   a FUP next is at its instant, */
    uint64_t pos_lo, pos_hi;          /*   its position, */
    uint32_t flags;                   /*   and what it knew of it (EXACT, NEAR) */
} ptc__clk_fup;

typedef struct ptc_clock {
    ptc_clock_config cfg;
    ptc__clk_window win;
    ptc__clk_given given;
    ptc__clk_tsc tsc;
    ptc__clk_psb psb;
    ptc__clk_ctc ctc;                 /* the MTC edges, relative to the last TMA */
    ptc__clk_due due;
    ptc__clk_rate rate;               /* nom, narrowed by what the trace shows, and the CBR */
    ptc__clk_slope slope;
    ptc__clk_cursor at;
    ptc__clk_anchors anchors;
    ptc__clk_branch branch;
    ptc__clk_fup fup;
} ptc_clock;

PTCDEF ptc_status ptc_clock_init(ptc_clock *c, const ptc_clock_config *cfg);
/* Gives the clock the next decoded item. PTC_ERR_BAD_STATE when its window
   is full: take items out with ptc_clock_pop() first. */
PTCDEF ptc_status ptc_clock_push(ptc_clock *c, const ptc_item *item);
/* No more items: everything held back gets its final time. */
PTCDEF void ptc_clock_finish(ptc_clock *c);
/* The next item whose time is final: PTC_OK, or PTC_NEED_INPUT (push more or
   finish), or PTC_END (finished and empty). Items come out in order. */
PTCDEF ptc_status ptc_clock_pop(ptc_clock *c, ptc_timed_item *out);

/* Guarantee G2 (SPEC 3.8) as a check over the items popped, in order: time
   does not go back, except that a TNT's (its first branch's) need only be
   at or after the last non-timing packet's. Items without a time pass. */
typedef struct ptc_clock_order {
    uint64_t point, lo;         /* the latest point and lower bound so far */
    uint64_t ntp_point, ntp_lo; /* those at the last non-timing packet */
} ptc_clock_order;
PTCDEF void ptc_clock_order_init(ptc_clock_order *o);
/* 1 when t keeps G2 after the items given before, else 0. */
PTCDEF int ptc_clock_order_next(ptc_clock_order *o, const ptc_timed_item *t);

/* -- 3.13 Timed events: the non-timing items only, each with its time -- */

/* Events the decoder holds back until the anchor after them arrives: the
   look-ahead bound (SPEC 3.13). */
#ifndef PTC_EVENTS_WINDOW
#define PTC_EVENTS_WINDOW 256
#endif

/* Whether the events decoder hands out this item: every packet but PAD,
   MTC, CYC, TSC and TMA (the timing packets it takes into its anchors),
   and every error. */
PTCDEF int ptc_events_is_event(const ptc_item *it);

/* All fields are private. An event waiting for the anchor after it: what
   bounding it reads first, the item last. */
typedef struct ptc__ev_entry {
    uint64_t lo, hi;              /* its interval so far (hi: UINT64_MAX until an anchor) */
    uint64_t cap;                 /* before the next MTC that must be emitted (UINT64_MAX: none known) */
    uint64_t pos_hi;              /* the latest cycle position it can have in its epoch
                                     (PTC__EV_NOPOS until the CYC after it) */
    uint32_t epoch;
    uint32_t stops;               /* possible clock stops before it (ptc_events.stops) */
    uint8_t tnt;                  /* a TNT: its time is its first branch's */
    uint8_t have_time;
    uint8_t bound_fup;            /* the FUP of the PTW or EXSTOP before it: at its instant */
    uint64_t guess;               /* its point from the cycles, 0: none */
    uint64_t floor;               /* its point is at least this (a TNT's: the latest lower bound) */
    uint64_t cycles;              /* CYC sum since the last TSC */
    ptc_item it;
} ptc__ev_entry;

/* All fields are private. An anchor: a TSC, or an MTC whose CTC edge is
   known, with its interval and the cycle positions it may have. */
typedef struct ptc__ev_anchor {
    uint64_t lo, hi, point, pos_lo, pos_hi;
    uint32_t epoch;
    uint8_t valid, exact, mtc;
} ptc__ev_anchor;

/* All fields are private. The parts of the events decoder's state. It
   shares the clock's CTC base (ptc__clk_ctc), rate (ptc__clk_rate) and
   next MTC due (ptc__clk_due); its TSC, PSB+ and first-branch parts keep
   other facts than the clock's (ptc__clk_tsc, _psb, _branch) and stay its
   own. */
typedef struct ptc__ev_tsc_state {    /* the last TSC */
    int have, run;                    /* run: what follows now is sent with it (a TMA, a CBR, a PWRX) */
    uint64_t full;                    /* its value, extended to 64 bits */
    uint64_t same_hi;                 /* what is sent with it is by then (0: not known) */
    uint64_t cycles;                  /* CYC sum since it */
} ptc__ev_tsc_state;

typedef struct ptc__ev_now {          /* time at the stream position decoded so far */
    uint64_t lo;                      /* every packet from here on went out at or after it, */
    uint64_t pos;                     /*   as far as the cycles up to this position say, */
    uint32_t epoch;                   /*   in this epoch */
    uint64_t ntp_lo;                  /* lo when the last event went out (a TNT's first branch is after it) */
} ptc__ev_now;

typedef struct ptc__ev_psb {          /* the open PSB+ */
    int in, after_tsc;                /* in one; after its TSC, with the SDM's clocks */
    int tsc;                          /* after its TSC, whatever the clocks */
    size_t first;                     /* window index + 1 of its first event */
    uint64_t lo, hi;                  /* its TSC's interval, for the events after it up to PSBEND */
} ptc__ev_psb;

typedef struct ptc__ev_branch {       /* the CYCs since the last event that may time a TNT's first
                                         branch (SPEC 3.7's second guess), PTC__EV_NOPOS: none */
    uint64_t lone;                    /* the first lone one (another CYC right after it) */
    uint64_t first;                   /* the first */
    uint64_t cand;                    /* the last, if it may time one */
    int seen_lone;                    /* the trace has shown a lone CYC (ptc__clk_tnts_go_whole) */
    uint32_t unplaced;                /* TNTs with CYCs before them but no lone one, before that */
} ptc__ev_branch;

/* The events decoder: bytes in (as the stream decoder takes them), events
   out, each with the interval the anchors around it give (SPEC 3.13). All
   fields are private; about 33 KiB with the default window. */
typedef struct ptc__ev_cycles {       /* the CYCs */
    uint32_t epoch;
    uint64_t pos;                     /* CYC sum in the epoch */
    int just_before;                  /* the last item but PADs was a CYC */
    uint64_t last;                    /* that CYC's count */
} ptc__ev_cycles;

typedef struct ptc__ev_anchors {
    ptc__ev_anchor ref;               /* the last anchor: lower bounds count from it */
    ptc__ev_anchor guess_ref;         /* the last at an exact cycle position: points count from it */
    int ref_waits_cyc;                /* its pos_hi waits for the next CYC */
    int ref_stale;                    /* ref is an MTC whose interval is not computed yet */
    int stop_since_ref;               /* a possible clock stop since it */
    uint32_t stops;                   /* possible clock stops so far (SPEC 3.5 rule 5) */
} ptc__ev_anchors;

typedef struct ptc__ev_window {       /* the first `ready` events have their final interval */
    ptc__ev_entry ring[PTC_EVENTS_WINDOW];
    size_t head, count, ready, open_from; /* events from open_from on wait for the next CYC */
    uint64_t out_point;               /* the point of the last event handed out, */
    uint64_t last_lo, last_hi;        /*   and its interval */
} ptc__ev_window;

typedef struct ptc_events {
    ptc_decoder dec;
    ptc_clock_config cfg;
    ptc__clk_rate rate;
    ptc__math_divider guess_div;      /* nom's denominator * CBR: the points' cycles at nom */
    ptc__clk_ctc ctc;
    ptc__ev_tsc_state tsc;
    ptc__ev_now now;
    ptc__ev_cycles cyc;
    ptc__ev_branch branch;
    ptc__ev_anchors anchor;
    ptc__ev_psb psb;
    ptc__clk_due due;
    int fup_bound;                    /* the last event was a PTW or EXSTOP with its IP bit */
    ptc__ev_window win;
    int ended;                        /* the decoder said PTC_END */
} ptc_events;

/* Prepares the decoder: cfg as for ptc_clock_init (PTC_ERR_BAD_CONFIG on
   the same values), flags and base_offset as for ptc_decoder_init. */
PTCDEF ptc_status ptc_events_init(ptc_events *ev, const ptc_clock_config *cfg, unsigned flags, uint64_t base_offset);
/* Input as for ptc_decoder_feed and ptc_decoder_finish. */
PTCDEF ptc_status ptc_events_feed(ptc_events *ev, const uint8_t *buf, size_t len);
PTCDEF void ptc_events_finish(ptc_events *ev);
/* Convenience: init + feed(buf, len) + finish. */
PTCDEF ptc_status ptc_events_init_buffer(ptc_events *ev, const ptc_clock_config *cfg, unsigned flags,
                                         const uint8_t *buf, size_t len);
/* The next event with its time: PTC_OK, PTC_NEED_INPUT (feed more, or
   finish) or PTC_END. Events come out in stream order once the anchor
   after them arrived, the window is full, or the input ended. When
   PTC_EVENTS_WINDOW events wait for an anchor, the oldest goes out with
   what is known then: its upper bound is the next MTC due, or none, so
   its interval is wider than the anchor would have made it (SPEC 3.13). */
PTCDEF ptc_status ptc_events_next(ptc_events *ev, ptc_timed_item *out);

/* ===================================================================== */
/* 4. Snapshot rings and navigation (SPEC.md part 4)                     */
/* ===================================================================== */

/* -- snapshot rings (SPEC 4.5; sizing one for the model: 5.9) -- */

/* Output that wraps around in the caller's buffer, keeping the last `cap`
   bytes, until a trigger says how many more to keep. All fields are
   private. */
typedef struct ptc_ring {
    uint8_t *buf;
    size_t cap;
    uint64_t written;     /* bytes taken so far; the ring holds the last cap */
    uint64_t stop_at;     /* no byte is taken once written reaches it */
} ptc_ring;

PTCDEF ptc_status ptc_ring_init(ptc_ring *r, uint8_t *buf, size_t cap);
/* Takes bytes until the stop point; returns how many it took. */
PTCDEF size_t ptc_ring_write(ptc_ring *r, const uint8_t *bytes, size_t len);
/* A trigger: keep `after` more bytes, then stop (an earlier stop stays). */
PTCDEF void ptc_ring_stop_after(ptc_ring *r, uint64_t after);
/* Bytes taken in all: with the buffer, all a reader needs. */
PTCDEF uint64_t ptc_ring_written(const ptc_ring *r);

/* Decodes a ring buffer: `written` bytes went into buf[cap] in turn, so
   the oldest kept byte is at written % cap once it wrapped. Items carry
   stream offsets (counted from the first byte ever written). */
typedef struct ptc_ring_reader {
    ptc_decoder dec;
    const uint8_t *rest;  /* the part after the wrap point, fed second */
    size_t rest_len;
    uint64_t kept_from;   /* stream offset of the oldest byte kept */
    uint64_t decoded_from;/* of the first packet reported; `written` before */
    uint64_t written;
} ptc_ring_reader;

PTCDEF ptc_status ptc_ring_reader_init(ptc_ring_reader *rd, const uint8_t *buf, size_t cap, uint64_t written);
/* The same with the stream decoder's flags (PTC_DECODE_*; NO_SYNC makes
   no sense here, as the oldest byte kept may be inside a packet). */
PTCDEF ptc_status ptc_ring_reader_init_flags(ptc_ring_reader *rd, const uint8_t *buf, size_t cap, uint64_t written,
                                             unsigned flags);
/* The next packet or error (PTC_OK) or PTC_END, as ptc_decoder_next. */
PTCDEF ptc_status ptc_ring_reader_next(ptc_ring_reader *rd, ptc_item *item);
/* What the history lost: bytes [0, *overwritten) were overwritten, bytes
   [*overwritten, *decoded_from) were kept but come before the first PSB
   (or the first packet after it), so nothing in them can be decoded.
   *decoded_from is final once ptc_ring_reader_next reported a packet. */
PTCDEF void ptc_ring_reader_lost(const ptc_ring_reader *rd, uint64_t *overwritten, uint64_t *decoded_from);

/* -- navigation (SPEC 4.1 to 4.4) -- */

/* One packet that carries retirements (SPEC 4.1), with the interval its
   retirements lie in. 64 bytes; one per TIP, TIP.PGD with an IP, FUP
   outside PSB+ and overflow recovery, and TNT: never more entries than
   bytes of trace. */
typedef struct ptc_nav_entry {
    uint64_t first;        /* index of its first retirement */
    uint64_t offset;       /* stream offset of the packet */
    uint64_t cycle_lo;     /* the retirements' cycles are in [cycle_lo, cycle_hi], */
    uint64_t cycle_hi;     /*   counted from the first item; hi UINT64_MAX: unknown */
    uint64_t tsc_lo;       /* and their TSCs in [tsc_lo, tsc_hi] (hi UINT64_MAX: unknown) */
    uint64_t tsc_hi;
    uint64_t ip;           /* TIP, TIP.PGD: the target; FUP: the IP; TNT: its bits */
    uint8_t type;          /* ptc_packet_type */
    uint8_t count;         /* retirements it carries: a TNT's branches, else 1 */
    uint8_t ip_known;      /* every bit of ip is known */
    uint8_t pad_[5];
} ptc_nav_entry;

/* All fields are private. */
typedef struct ptc_nav {
    ptc_nav_entry *entries;
    size_t capacity, count;
    size_t pending;           /* entries from here on wait for a cycle upper bound */
    uint64_t retirements;     /* retirements so far */
    ptc_trace_config trace;   /* the clock's, as it reads the CYC mode: the CYCs, and
                                 SKL168's (a CYC before a PSB may be missing) */
    int finished, started;
    int cycles_broken;        /* cycles may have passed uncounted: no upper bounds since */
    int last_was_cyc, last_cyc_wrap, in_psb, after_ovf;
    int cyc_bound_pending;    /* the last CYC bounds what came before it, */
    uint64_t cyc_bound;       /*   unless an OVF follows */
    int fup_bound_valid;      /* the next packet, if a FUP, is at fup_bound */
    uint64_t fup_bound;
    uint64_t cycles;          /* sum of the CYC values so far */
    uint64_t ntp_cycle, ntp_tsc; /* lower bounds at the last non-timing packet */
    uint64_t tsc_floor;       /* the largest tsc_lo so far */
    size_t tnt_waiting;       /* entry + 1 of a TNT whose later branches wait for an upper
                                 time bound: the next packet's (0: none) */
} ptc_nav;

/* Where a query lands. The true answer is a retirement in [retire_min,
   retire] (or, with maybe_none, possibly none at all); the two are equal
   when the trace's timing pins it down. */
typedef struct ptc_nav_hit {
    uint64_t retire;       /* the latest retirement that may be the answer */
    uint64_t retire_min;   /* the earliest one */
    uint8_t maybe_none;    /* no retirement is surely at or before the target */
    uint8_t bit;           /* retire's position in its TNT (0: oldest), else 0 */
    uint8_t taken;         /* for a TNT bit: its outcome */
    ptc_nav_entry entry;   /* the packet carrying retire, with its intervals */
} ptc_nav_hit;

typedef enum ptc_nav_basis { PTC_NAV_CYCLE = 0, PTC_NAV_TSC = 1 } ptc_nav_basis;

/* Prepares an empty index in the caller's storage of `capacity` entries.
   cfg supplies the cycle-counter settings (cyc_en, cyc_thresh, cyc_bits)
   and the errata (SKL168 cuts the cycle upper bounds at a PSB, SPEC 4.2). */
PTCDEF ptc_status ptc_nav_init(ptc_nav *nav, const ptc_clock_config *cfg, ptc_nav_entry *storage, size_t capacity);
/* Gives the index the next timed item, in stream order (ptc_clock_pop's
   output). PTC_ERR_NO_SPACE when an entry does not fit: nothing changed;
   move to larger storage with ptc_nav_set_storage() and give it again. */
PTCDEF ptc_status ptc_nav_add(ptc_nav *nav, const ptc_timed_item *t);
/* Storage moved or grew: it must hold the entries so far (count <= capacity). */
PTCDEF ptc_status ptc_nav_set_storage(ptc_nav *nav, ptc_nav_entry *storage, size_t capacity);
/* No more items: settles every interval. Queries need it. */
PTCDEF void ptc_nav_finish(ptc_nav *nav);
/* Convenience: decode buf (synchronizing at its first PSB, with the
   decoder flags of the clock's errata), time it with
   *clk (prepared by the caller with ptc_clock_init) and index it into nav
   (prepared with ptc_nav_init; `len` entries always suffice), then finish. */
PTCDEF ptc_status ptc_nav_build(ptc_nav *nav, ptc_clock *clk, const uint8_t *buf, size_t len);
/* The same for a snapshot ring (ptc_ring_reader_init's arguments); `cap`
   entries suffice. Offsets are stream offsets. */
PTCDEF ptc_status ptc_nav_build_ring(ptc_nav *nav, ptc_clock *clk, const uint8_t *buf, size_t cap, uint64_t written);

PTCDEF uint64_t ptc_nav_retirements(const ptc_nav *nav);
/* The cycles the trace shows in all: the sum of its CYC values. */
PTCDEF uint64_t ptc_nav_end_cycle(const ptc_nav *nav);
/* The retirement that retired at, or nearest before, `value - skid` (cycles
   or TSC ticks; skid: how long after the retirement the event was
   recorded). PTC_ERR_NOT_FOUND when nothing can have retired by then. */
PTCDEF ptc_status ptc_nav_find(const ptc_nav *nav, ptc_nav_basis basis, uint64_t value, uint64_t skid,
                               ptc_nav_hit *hit);
/* The seed's freeze: recording stopped `freeze` cycles after the event;
   the retirement at (end cycle - freeze - skid). */
PTCDEF ptc_status ptc_nav_from_end(const ptc_nav *nav, uint64_t freeze, uint64_t skid, ptc_nav_hit *hit);
/* The first retirement of the packet at stream offset `offset`
   (PTC_ERR_NOT_FOUND when no packet there carries one): how a PEBS
   record's FUP, a TRIG's FUP or any packet a tool points at is found. */
PTCDEF ptc_status ptc_nav_at_offset(const ptc_nav *nav, uint64_t offset, ptc_nav_hit *hit);
/* Retirement index `from` moved by `delta` (negative: back). PTC_ERR_NOT_FOUND
   outside the trace. */
PTCDEF ptc_status ptc_nav_step(const ptc_nav *nav, uint64_t from, int64_t delta, ptc_nav_hit *hit);

/* Bounded memory for one query known before the trace is indexed (SPEC
   4.3): the retirements from `from` to `to` are what its answer can need. */
typedef struct ptc_nav_window {
    uint64_t from, to;
} ptc_nav_window;
/* Makes room in the storage: drops the entries before the one holding
   retirement keep.from, and folds those after the one holding keep.to into
   it (their upper bounds still narrow it when the index is finished) once
   nothing can change them. Returns how many entries it dropped or folded.
   Queries then answer from what is kept: ptc_nav_step and
   ptc_nav_at_offset say PTC_ERR_NOT_FOUND for the rest, and
   ptc_nav_find is exact for the query `keep` came from. */
PTCDEF size_t ptc_nav_forget(ptc_nav *nav, ptc_nav_window keep);
/* What a later ptc_nav_find(basis, value, 0), and `back` steps back from
   its answer, can need given the entries so far: to give ptc_nav_forget
   each time the storage is full. */
PTCDEF ptc_nav_window ptc_nav_window_for_find(const ptc_nav *nav, ptc_nav_basis basis, uint64_t value,
                                              uint64_t back);

#ifndef PTCODEC_NO_MODEL
/* ===================================================================== */
/* 5. Hardware model (SPEC.md part 5)                                    */
/* ===================================================================== */

/* The core clock's wobble (rate_ppm below): its rate steps through a
   triangle every PTC_MODEL_WOBBLE_PERIOD cycles, in 256 steps. */
#define PTC_MODEL_WOBBLE_PERIOD 65536
#define PTC_MODEL_RATE_PPM_MAX 100000

typedef struct ptc_model_config {
    /* what tracing was set up with (IA32_RTIT_CTL, the IP filters, the
       CPUID ratio, the errata imitated below, the MTC policy): all of it
       is what the model does, so `known` is not read, and nom is not
       given - the clocks below make it (ptc_clock_config_from_model) */
    ptc_trace_config trace;
    /* clocks (SPEC 5.1): ART (= CTC) runs at art_hz; TSC = K + ART * ebx / eax
       (trace.ratios' CPUID leaf 0x15); the core runs at core_ratio * 100 MHz */
    uint32_t art_hz;              /* crystal clock, <= 100 MHz */
    uint8_t core_ratio;           /* initial core:bus ratio (CBR), >= 1 */
    uint64_t tsc_offset;          /* K */
    uint64_t art_start;           /* ART (CTC) value at time 0 */
    uint8_t long_tnt;             /* collect up to 47 branches into TNT-64s (the SDM leaves it open) */
    /* the internal packet buffer: fifo_bytes, drained at drain_bytes per
       drain_cycles core cycles; overflowing it loses packets and ends in an
       OVF. fifo_bytes = 0: it never overflows */
    uint32_t fifo_bytes, drain_bytes, drain_cycles;
    /* a trigger (seed 001, SPEC 5.7): at the trigger_nth-th (>= 1)
       occurrence - an event at trigger_ip retiring, or with trigger_counter
       k, an overflow of event counter k-1 - TRIG with TRBV bit 0, and a FUP
       of the instruction with trigger_fup; trigger_nth 0: no trigger.
       trace_stop: TraceStop stop_delay cycles after it fires (at once with 0) */
    uint64_t trigger_ip;
    uint32_t trigger_nth;
    uint8_t trigger_counter;
    uint8_t trigger_fup, trace_stop;
    uint64_t stop_delay;
    /* real clocks (SPEC 5.1): the core sees an ART edge up to mtc_jitter
       core cycles after it happens, so an MTC goes out 0..mtc_jitter
       cycles after its edge, the delay drawn from a generator seeded with
       jitter_seed; 0: at once, as the SDM's idealized clocks */
    uint8_t mtc_jitter;
    uint32_t jitter_seed;
    /* up to mtc_lost MTCs in a row that the policy lets out are lost, as
       with erratum SKL168: each one with chance 1/4, drawn from the same
       generator; they are not counted by the policy, and the MTC that
       ends a suppressed run is never lost (SPEC 5.1) */
    uint8_t mtc_lost;
    /* the core clock wanders around its rate against the ART by up to
       rate_ppm parts per million (spread-spectrum clocking), a triangle
       over PTC_MODEL_WOBBLE_PERIOD cycles, even on average; at most
       PTC_MODEL_RATE_PPM_MAX; 0: locked, as the SDM's clocks (SPEC 5.1) */
    uint32_t rate_ppm;
    /* a due PSB+ whose next MTC edge is at most psb_early_tsc cycles away
       waits for that edge and carries its MTC ahead of the TSC and TMA,
       which were sampled in the cycle before the edge (the TMA's CTC one
       short of the MTC's), as on Skylake; 0: a PSB+ is one instant, as the
       SDM's clocks (SPEC 5.1) */
    uint8_t psb_early_tsc;
    /* the errata the model imitates are trace.errata, PTC_ERRATUM_* bits as
       the clock and the checker take them (SPEC 3.12; others are refused:
       PTC_MODEL_ERRATA):
       SKL168: a PSB drops the CYC that would go out right before it, with
         the cycles it counted, with chance 1/2 from the jitter generator (a
         CYC dropped is in the truth as dropped; the next CYC counts from
         the PSB);
       SKD007: the OVF at an overflow's end cuts a multi-byte CYC right
         before it after its first byte, with chance 1/2 (in the truth as
         PTC_FATE_CUT; its bytes decode with PTC_DECODE_SKD007);
       SKZ84: a TMA written in a VMX guest goes out corrupt with chance 1/2:
         CTC and FastCounter random, its reserved byte set, and a bogus byte
         after it (in the truth as PTC_FATE_CORRUPT, with the TMA it should
         have been; its bytes decode with PTC_DECODE_SKZ84). The model's
         guests all use TSC offsetting, but their TSC packets keep the
         host's TSC. */
    /* step one cycle at a time instead of jumping from event to event (the
       reference the fast path is tested against; same output, slower) */
    uint8_t reference_stepping;
} ptc_model_config;

/* The plain number fields of ptc_model_config outside its trace, each
   once: X(key, field, least, most, default). The key is the field's name
   in configuration files (SPEC 5.6); ptc_model_config_default sets the
   defaults, ptc_model_init refuses a value outside [least, most] with the
   key as its error field, and the tools read and write the files by it
   and by PTC_TRACE_CONFIG_FIELDS. What the model needs of its trace
   beyond those ranges, the filters, the policy and what ties fields
   together are checked apart. */
#define PTC_MODEL_CONFIG_FIELDS(X) \
    X("art_hz", art_hz, 1, 100000000u, 24000000u) \
    X("core_ratio", core_ratio, 1, 255, 30) \
    X("tsc_offset", tsc_offset, 0, UINT64_MAX, 0x1000000u) \
    X("art_start", art_start, 0, UINT64_MAX, 0) \
    X("long_tnt", long_tnt, 0, 1, 0) \
    X("fifo_bytes", fifo_bytes, 0, 0xFFFFFFFFu, 0) \
    X("drain_bytes", drain_bytes, 0, 0xFFFFFFFFu, 1) \
    X("drain_cycles", drain_cycles, 0, 0xFFFFFFFFu, 1) \
    X("mtc_jitter", mtc_jitter, 0, 255, 0) \
    X("jitter_seed", jitter_seed, 0, 0xFFFFFFFFu, 0) \
    X("mtc_lost", mtc_lost, 0, 255, 0) \
    X("rate_ppm", rate_ppm, 0, PTC_MODEL_RATE_PPM_MAX, 0) \
    X("psb_early_tsc", psb_early_tsc, 0, 255, 0) \
    X("reference_stepping", reference_stepping, 0, 1, 0) \
    X("trigger_ip", trigger_ip, 0, UINT64_MAX, 0) \
    X("trigger_nth", trigger_nth, 0, 0xFFFFFFFFu, 0) \
    X("trigger_counter", trigger_counter, 0, PTC_COUNTERS_MAX, 0) \
    X("trigger_fup", trigger_fup, 0, 1, 0) \
    X("trace_stop", trace_stop, 0, 1, 0) \
    X("stop_delay", stop_delay, 0, UINT64_MAX, 0)

/* The model's defaults for its trace, X(field, value); the other fields
   are 0. */
#define PTC_MODEL_TRACE_DEFAULTS(X) \
    X(known, PTC_KNOW_ALL) X(ratios.cpuid_15_eax, 2) X(ratios.cpuid_15_ebx, 200) \
    X(ctl.branch_en, 1) X(ctl.tsc_en, 1) X(ctl.mtc_en, 1) X(ctl.user, 1) X(ctl.mtc_freq, 3) \
    X(cyc_bits, 12) X(policy.min_burst, 2)

/* The errata the model imitates (ptc_model_config.trace.errata): X(key, bit);
   a configuration file gives each as its key, 0 or 1 (SPEC 5.6). */
#define PTC_MODEL_ERRATA(X) \
    X("skl168", PTC_ERRATUM_SKL168) \
    X("skd007", PTC_ERRATUM_SKD007) \
    X("skz84", PTC_ERRATUM_SKZ84)

/* Defaults: 24 MHz ART, TSC 2.4 GHz (eax 2, ebx 200), core ratio 30,
   branch/TSC/MTC on, mtc_freq 3, CYC off, user tracing, psb_freq 0, 12-bit
   cycle counter, short TNT, no filter, no overflow, suppression off. */
PTCDEF void ptc_model_config_default(ptc_model_config *cfg);

/* A time the model knows exactly: TSC = tsc + num/den (0 <= num < den). */
typedef struct ptc_exact_tsc { uint64_t tsc, num, den; } ptc_exact_tsc;

/* A packet's fate: emitted whole; suppressed by the policy; lost; cut
   (only its first byte reached the stream: a CYC cut by an OVF,
   SKD007); or corrupt (its size in bytes went out, wrong, with one
   bogus byte after them: a TMA in a VMX guest, SKZ84) */
enum { PTC_FATE_EMITTED = 0, PTC_FATE_SUPPRESSED = 1, PTC_FATE_DROPPED = 2, PTC_FATE_CUT = 3, PTC_FATE_CORRUPT = 4 };

/* What the model reports for every packet it generates. */
typedef struct ptc_truth {
    ptc_packet pkt;
    uint64_t offset;      /* stream offset (where it would be, if not emitted) */
    uint64_t cycle;       /* powered core cycles since the start, and */
    ptc_exact_tsc time;   /*   the true TSC, of the event it records: when it was
                               generated, or for a TNT its first branch (SPEC 3.1) */
    uint64_t art;         /* the ART (CTC) count when it was generated */
    uint8_t fate;         /* PTC_FATE_*: emitted, suppressed by the policy, lost (to an
                             overflow, an MTC to cfg.mtc_lost, a CYC to SKL168),
                             cut (a CYC to SKD007), corrupt (a TMA to SKZ84) */
} ptc_truth;

/* Workload events (SPEC 5.3). */
typedef enum ptc_event_kind {
    PTC_EV_BRANCH = 1, PTC_EV_JUMP, PTC_EV_INDIRECT, PTC_EV_INTERRUPT, PTC_EV_PTWRITE,
    PTC_EV_CR3, PTC_EV_MODE, PTC_EV_SLEEP, PTC_EV_RATIO, PTC_EV_PRIVILEGE, PTC_EV_CALL, PTC_EV_RET,
    PTC_EV_TSX, PTC_EV_VMX,
    PTC_EV_LAST = PTC_EV_VMX
} ptc_event_kind;

/* What a TSX event does (ptc_model_tsx). */
typedef enum ptc_tsx_event { PTC_TSX_BEGIN = 1, PTC_TSX_COMMIT, PTC_TSX_ABORT } ptc_tsx_event;

typedef struct ptc_event_truth {
    uint64_t index;       /* 0, 1, 2, ... in the order the workload gave them */
    ptc_event_kind kind;
    uint8_t thread, cpl;  /* the hardware thread, and its CPL when it retired */
    uint64_t cycle;
    ptc_exact_tsc time;
    uint64_t ip, target;  /* the instruction, and where control went */
    uint8_t taken;        /* conditional branches */
    uint8_t traced;       /* it produced trace (a TNT bit, TIP, FUP, PTW, ...) */
    uint64_t offset;      /* stream offset when it retired */
} ptc_event_truth;

/* A retirement (SPEC 4.1): one traced control-flow outcome in the stream -
   a TNT bit, a TIP, a TIP.PGD with an IP (a branch out of the traced
   region), or a FUP that gives the IP of an interrupted or event-causing
   instruction (not the FUPs of PSB+ and of overflow recovery). */
typedef struct ptc_retire_truth {
    uint64_t index;        /* 0, 1, 2, ... in stream order */
    uint64_t cycle;        /* powered core cycles since the start when it retired */
    ptc_exact_tsc time;    /* the true TSC then */
    uint64_t offset;       /* stream offset of the packet carrying it */
    ptc_packet_type type;  /* that packet's type */
    uint8_t bit;           /* in a TNT: 0 for the oldest branch; else 0 */
    uint8_t taken;         /* in a TNT: the outcome */
    uint64_t ip;           /* TIP, TIP.PGD: the target; FUP: the IP; TNT: 0 */
} ptc_retire_truth;

/* Where the model's output goes: every packet's bytes (len 0 when it was
   suppressed or dropped) with its truth, every workload event, and every
   retirement that reached the stream (reported when the packet carrying it
   is written, so a TNT's branches come together). Unused callbacks must be
   NULL. */
typedef struct ptc_model_sink {
    void *user;
    void (*packet)(void *user, const uint8_t *bytes, size_t len, const ptc_truth *truth);
    void (*event)(void *user, const ptc_event_truth *ev);     /* may be NULL */
    void (*retire)(void *user, const ptc_retire_truth *rt);   /* may be NULL */
} ptc_model_sink;

/* Event counters (seed 002, SPEC 5.8): a block of programmable counters a
   core's hardware threads share. Each counts one kind of workload event,
   qualified by hardware thread and privilege level; 40 bits wide, it
   overflows when it wraps to 0. */
#define PTC_COUNTERS_MAX 4
#define PTC_COUNTER_BITS 40

typedef struct ptc_counter_config {
    uint8_t event;       /* the ptc_event_kind counted; 0: the counter is off */
    uint8_t outcome;     /* PTC_EV_BRANCH: bit 0 counts taken, bit 1 not taken (0: both) */
    uint8_t threads;     /* bit t: events of hardware thread t (0: every thread) */
    uint8_t usr, os;     /* events at CPL > 0, at CPL 0 */
    uint8_t pebs;        /* at each overflow, a PEBS record into that thread's trace */
    uint64_t start;      /* the initial value (below 2^40) */
} ptc_counter_config;

typedef struct ptc_counters {
    ptc_counter_config cfg[PTC_COUNTERS_MAX];
    unsigned n;
    uint64_t value[PTC_COUNTERS_MAX];
    uint64_t overflows[PTC_COUNTERS_MAX];
} ptc_counters;

/* n counters from cfg[0..n-1]; bad_config when n is above the maximum, a
   start value does not fit 40 bits or an event kind is unknown. */
PTCDEF ptc_status ptc_counters_init(ptc_counters *c, const ptc_counter_config *cfg, unsigned n);
/* Reading never changes anything. Out of range: 0. */
PTCDEF uint64_t ptc_counters_read(const ptc_counters *c, unsigned i);
PTCDEF uint64_t ptc_counters_overflows(const ptc_counters *c, unsigned i);

/* The PEBS-via-PT record the model writes (SPEC 5.8): BBP of the PEBS basic
   group (8-byte items), BIPs with these IDs, BEP with its IP bit, and a FUP
   with the eventing IP. */
#define PTC_PEBS_BLOCK_BASIC 4
enum { PTC_PEBS_ITEM_IP = 0, PTC_PEBS_ITEM_COUNTERS = 1, PTC_PEBS_ITEM_TSC = 2 };

/* The RET compression stack's depth (SDM 36.4.2.2; libipt's pt_retstack
   holds as many). */
#define PTC_MODEL_RETC_DEPTH 64

/* All fields are private. */
/* All fields are private. The parts of the model's state. */
typedef struct ptc__mdl_clocks {      /* ART and core clocks (SPEC 5.1) */
    uint64_t art, art_num, art_den, art_inc;
    uint64_t art_inc_avg;             /* art_inc at the average rate (cfg.rate_ppm) */
    uint32_t wobble_step;             /* where the rate is in its triangle, and */
    uint32_t wobble_left;             /*   cycles until it next changes */
    uint64_t art_per_cycle_num;       /* art_hz / gcd(art_hz, 1e8)       */
    uint64_t bclk_den;                /* 1e8 / gcd(art_hz, 1e8)          */
    uint8_t ratio;                    /* the core:bus ratio now */
} ptc__mdl_clocks;

typedef struct ptc__mdl_core {        /* what the core executes, as tracing sees it */
    int enabled, packet_en;           /* TriggerEn, and PacketEn (SPEC 5.2) */
    uint64_t ip, last_ip, cr3;
    int last_ip_valid;
    uint8_t csl, csd, cpl;
    uint8_t in_tx;                    /* inside a TSX transaction */
} ptc__mdl_core;

typedef struct ptc__mdl_tnt {         /* the TNT being collected */
    uint64_t bits;
    uint8_t count;
    uint64_t cycle[47];               /* when each pending branch retired */
    ptc_exact_tsc time[47];
} ptc__mdl_tnt;

typedef struct ptc__mdl_retire {
    int pending;                      /* the next FUP/TIP/TIP.PGD carries a retirement */
    uint64_t ip;                      /*   of the instruction at this IP */
    uint64_t count;                   /* retirements that reached the stream */
} ptc__mdl_retire;

typedef struct ptc__mdl_cyc_state {
    uint64_t count;                   /* cycles since the last CYC */
    int last_was_cyc;                 /* the stream's last packet is a CYC */
} ptc__mdl_cyc_state;

typedef struct ptc__mdl_psb {
    uint64_t bytes;                   /* written since the last PSB+ */
    int pending, in;                  /* a PSB+ is due; one is being written */
} ptc__mdl_psb;

typedef struct ptc__mdl_sample {      /* cfg.psb_early_tsc: a due PSB+ waiting for the next
                                         MTC edge takes the TSC, ART and FastCounter of
                                         every cycle it waits (the last one is the cycle
                                         before the edge) */
    uint64_t edge_cycle;              /* the cycle of the last MTC edge */
    int have;
    uint64_t cycle, art;
    ptc_exact_tsc time;
    uint16_t fc;
    int out;                          /* the TSC and TMA going out carry the sample */
} ptc__mdl_sample;

typedef struct ptc__mdl_mtc {         /* MTCs, their suppression (part 2) and real clocks */
    uint32_t run, need, suppressed;
    int suppressing;
    int pending;                      /* an MTC edge was seen; its packet goes out at due */
    uint8_t pending_ctc;              /*   with this payload */
    uint64_t due;
    uint8_t lost_run;                 /* MTCs lost in a row (cfg.mtc_lost) */
    uint32_t edges_since;             /* MTC edges since the last MTC written */
    uint64_t n_emitted, n_suppressed;
} ptc__mdl_mtc;

typedef struct ptc__mdl_out {         /* the stream written */
    uint64_t offset, events, generated;
    uint64_t fifo_fill;               /* the packet buffer's bytes (cfg.fifo_bytes) */
    int overflow;                     /* it overflowed: packets are lost until it drains */
    uint64_t n_dropped;
} ptc__mdl_out;

typedef struct ptc__mdl_trigger_state { /* SPEC 5.7 */
    uint32_t seen;                    /* events at trigger_ip so far */
    uint64_t stop_cycle;              /* TraceStop due then; UINT64_MAX: none */
    int stopped;                      /* TraceStop happened: no more output */
} ptc__mdl_trigger_state;

typedef struct ptc__mdl_retc {        /* RET compression's call stack */
    uint64_t next_ip[PTC_MODEL_RETC_DEPTH]; /* next IPs of the traced CALLs since the last PSB, */
    uint8_t top, depth;               /*   a ring: a CALL into a full one drops the oldest */
} ptc__mdl_retc;

typedef struct ptc__mdl_vmx {
    uint8_t non_root, guest_traced;   /* in a VMX guest, and whether it is traced */
    uint64_t vmcs;                    /* the VMCS pointer VMPTRLD loaded; 0: none */
} ptc__mdl_vmx;

typedef struct ptc_model {
    ptc_model_config cfg;
    ptc_model_sink sink;
    const char *error_field;          /* which config field init rejected */
    uint64_t cycle;                   /* core cycles since the start */
    ptc_counters *counters;           /* shared with the core's other threads; may be NULL */
    uint8_t thread;                   /* this hardware thread's number */
    uint64_t jitter_state;            /* the generator of MTC delays and losses, and SKL168's drops */
    ptc__mdl_clocks clk;
    ptc__mdl_core core;
    ptc__mdl_tnt tnt;
    ptc__mdl_retire retire;
    ptc__mdl_cyc_state cyc;
    ptc__mdl_psb psb;
    ptc__mdl_sample sample;
    ptc__mdl_mtc mtc;
    ptc__mdl_out out;
    ptc__mdl_trigger_state trigger;
    ptc__mdl_retc retc;
    ptc__mdl_vmx vmx;
} ptc_model;

/* Checks cfg and prepares the model; PTC_ERR_BAD_CONFIG names the field in
   ptc_model_error_field(). Nothing is emitted until ptc_model_start(). */
PTCDEF ptc_status ptc_model_init(ptc_model *m, const ptc_model_config *cfg, const ptc_model_sink *sink);
PTCDEF const char *ptc_model_error_field(const ptc_model *m);

/* TraceEn 0 -> 1 with the next instruction at ip: PSB+, then MODE.Exec and
   TIP.PGE if packets are enabled there. */
PTCDEF ptc_status ptc_model_start(ptc_model *m, uint64_t ip);
/* TraceEn 1 -> 0 by a WRMSR at ip (SDM Table 36-50 case 3b): the pending
   TNT, then FUP(ip) and TIP.PGD() if packets were enabled. */
PTCDEF ptc_status ptc_model_stop_at(ptc_model *m, uint64_t ip);
/* The same where no instruction is known (the end of a run): no FUP, so
   TIP.PGD() alone, as a branch leaving the filter with no TNT pending
   also ends packets (case 7e). */
PTCDEF ptc_status ptc_model_stop(ptc_model *m);

/* Time passes: `cycles` core cycles without control flow. MTCs, CYC
   wraps, PSB+ and overflow recovery happen as they fall due. */
PTCDEF ptc_status ptc_model_idle(ptc_model *m, uint64_t cycles);
/* Core cycles until the next MTC edge (UINT64_MAX if MTCs are off). */
PTCDEF uint64_t ptc_model_cycles_to_mtc(const ptc_model *m);

/* Control flow retiring now. ip is the instruction's address; target where
   control goes next. */
PTCDEF ptc_status ptc_model_branch(ptc_model *m, uint64_t ip, uint64_t target, int taken);
PTCDEF ptc_status ptc_model_jump(ptc_model *m, uint64_t ip, uint64_t target, int indirect);
/* A near CALL at ip to target, whose next instruction is at next_ip: TIP
   when indirect. A traced CALL is remembered for RET compression unless it
   is a zero-length CALL (direct, target == next_ip). */
PTCDEF ptc_status ptc_model_call(ptc_model *m, uint64_t ip, uint64_t target, uint64_t next_ip, int indirect);
/* A near RET at ip to target: a taken TNT bit when the newest remembered
   CALL's next IP is target (and dis_retc is clear), else TIP(target); a
   traced RET forgets the newest CALL either way (SPEC 5.2). */
PTCDEF ptc_status ptc_model_ret(ptc_model *m, uint64_t ip, uint64_t target);
/* An interrupt or exception before the instruction at ip completes: FUP(ip)
   and TIP(handler), or TIP.PGD / TIP.PGE when one end is not traced. */
PTCDEF ptc_status ptc_model_interrupt(ptc_model *m, uint64_t ip, uint64_t handler);
/* The same into a handler at CPL cpl (an interrupt into the kernel, a
   signal delivered, a VM exit): each end traced or not by its own CPL. */
PTCDEF ptc_status ptc_model_interrupt_cpl(ptc_model *m, uint64_t ip, uint64_t handler, uint8_t cpl);
/* TSX: the XBEGIN (PTC_TSX_BEGIN) or XEND (PTC_TSX_COMMIT) at ip: MODE.TSX
   and FUP(ip); an abort (PTC_TSX_ABORT: XABORT at ip, or an asynchronous
   abort before the instruction at ip completes): MODE.TSX with TXAbort,
   FUP(ip) and TIP(target), the fallback path. Nested transactions are the
   caller's to flatten: BEGIN inside one, COMMIT outside one, PTC_ERR_BAD_STATE. */
PTCDEF ptc_status ptc_model_tsx(ptc_model *m, ptc_tsx_event ev, uint64_t ip, uint64_t target);
/* VMX (SPEC 5.2): VMPTRLD at ip of the VMCS at `vmcs` (4 KiB aligned):
   VMCS; a VM entry (VMLAUNCH, VMRESUME at ip) into the guest at target with
   CR3 guest_cr3: PIP with NR set, then TIP(target), or TIP.PGD(target) when
   the guest is not traced (trace_guest 0); a VM exit before the guest
   instruction at ip completes, to the host at host_ip with host_cr3:
   FUP(ip), PIP with NR clear, TIP(host_ip) (TIP.PGE when the guest was not
   traced). */
PTCDEF ptc_status ptc_model_vmptrld(ptc_model *m, uint64_t ip, uint64_t vmcs);
PTCDEF ptc_status ptc_model_vm_entry(ptc_model *m, uint64_t ip, uint64_t target, uint64_t guest_cr3, int trace_guest);
PTCDEF ptc_status ptc_model_vm_exit(ptc_model *m, uint64_t ip, uint64_t host_ip, uint64_t host_cr3);
PTCDEF ptc_status ptc_model_ptwrite(ptc_model *m, uint64_t ip, uint64_t value, int bytes);
PTCDEF ptc_status ptc_model_cr3(ptc_model *m, uint64_t ip, uint64_t cr3);
/* A far transfer that changes the execution mode (CS.L, CS.D). */
PTCDEF ptc_status ptc_model_mode(ptc_model *m, uint64_t ip, uint64_t target, int csl, int csd);
/* A far transfer that changes the privilege level (SYSCALL, SYSRET, an
   interrupt into the kernel): the thread continues at target with CPL cpl
   (0..3). Packets as for an indirect jump, with each end traced or not by
   its own CPL (os/user). */
PTCDEF ptc_status ptc_model_privilege(ptc_model *m, uint64_t ip, uint64_t target, uint8_t cpl);
/* This model is hardware thread `thread` (0..7) of a core whose event
   counters are *c (NULL: none). Before ptc_model_start. */
PTCDEF ptc_status ptc_model_attach_counters(ptc_model *m, ptc_counters *c, uint8_t thread);
/* A core:bus ratio change (EIST in C0): TSC, TMA, CBR. */
PTCDEF ptc_status ptc_model_set_ratio(ptc_model *m, uint64_t ip, uint8_t ratio);
/* MWAIT (mwait != 0, with hints/ext) or HLT at ip into C-state cstate (1..15)
   for art_ticks ART ticks with the core clock stopped, then a wake (by an
   interrupt when wake_int). */
PTCDEF ptc_status ptc_model_sleep(ptc_model *m, uint64_t ip, int mwait, uint32_t hints, uint32_t ext,
                                  uint8_t cstate, uint64_t art_ticks, int wake_int);

/* The exact true TSC now. */
PTCDEF ptc_exact_tsc ptc_model_now(const ptc_model *m);
/* TSC ticks per core cycle at the current ratio, as nom_freq / CBR would give
   it: tsc_hz / (ratio * 100 MHz), as num/den. */
PTCDEF void ptc_model_tsc_per_cycle(const ptc_model *m, uint64_t *num, uint64_t *den);

/* -- what the other parts need to know of the model -- */

/* Everything the clock can know about a trace the model wrote: its ratios,
   nom exactly (art_hz * ebx / (eax * 100 MHz)), the counter width, the
   policy. */
PTCDEF void ptc_clock_config_from_model(ptc_clock_config *cfg, const ptc_model_config *model);
/* The model's MSR_PLATFORM_INFO ratio, as a decoder's nom_freq (libipt's
   --nom-freq, perf's max non-turbo ratio): art_hz * ebx / eax / 100 MHz,
   rounded, at least 1 (SPEC 5.1). */
PTCDEF unsigned ptc_model_nom_freq(const ptc_model_config *model);

/* The most bytes the model writes between two PSB starts: the PSB (16),
   PacketByteCnt up to one short of 2^(psb_freq+11), and the rest of the
   event or cycle boundary in progress, at most PTC_MODEL_STEP_BYTES. */
#define PTC_MODEL_STEP_BYTES 256
PTCDEF uint64_t ptc_model_psb_gap_max(const ptc_model_config *cfg);
/* A ring size that keeps a PSB at least `history` bytes before a trigger,
   when the ring stops `after` bytes after it: gap + history + after. */
PTCDEF uint64_t ptc_snapshot_size(const ptc_model_config *cfg, uint64_t history, uint64_t after);

#endif /* PTCODEC_NO_MODEL */

#ifndef PTCODEC_NO_PERF
/* ===================================================================== */
/* 6. perf.data (SPEC.md part 6)                                         */
/* ===================================================================== */

/* The records of a perf.data this reader knows: X(enumerator, type, name).
   Any other type is still reported, with its type and bytes. */
#define PTC_PERF_RECORD_LIST(X) \
    X(PTC_PERF_MMAP, 1, "mmap") \
    X(PTC_PERF_LOST, 2, "lost") \
    X(PTC_PERF_COMM, 3, "comm") \
    X(PTC_PERF_EXIT, 4, "exit") \
    X(PTC_PERF_SAMPLE, 9, "sample") \
    X(PTC_PERF_MMAP2, 10, "mmap2") \
    X(PTC_PERF_AUX, 11, "aux") \
    X(PTC_PERF_ITRACE_START, 12, "itrace_start") \
    X(PTC_PERF_LOST_SAMPLES, 13, "lost_samples") \
    X(PTC_PERF_SWITCH, 14, "switch") \
    X(PTC_PERF_SWITCH_CPU_WIDE, 15, "switch_cpu_wide") \
    X(PTC_PERF_HEADER_ATTR, 64, "header_attr") \
    X(PTC_PERF_FINISHED_ROUND, 68, "finished_round") \
    X(PTC_PERF_AUXTRACE_INFO, 70, "auxtrace_info") \
    X(PTC_PERF_AUXTRACE, 71, "auxtrace") \
    X(PTC_PERF_AUXTRACE_ERROR, 72, "auxtrace_error") \
    X(PTC_PERF_TIME_CONV, 79, "time_conv") \
    X(PTC_PERF_HEADER_FEATURE, 80, "header_feature") \
    X(PTC_PERF_COMPRESSED, 81, "compressed")

enum {
#define PTC__X(e, v, n) e = v,
    PTC_PERF_RECORD_LIST(PTC__X)
#undef PTC__X
    PTC_PERF_RECORD_TYPE_MAX_ = 0x7FFFFFFF
};
PTCDEF const char *ptc_perf_record_name(uint32_t type);

/* PERF_RECORD_AUX flags: the kernel lost or overwrote trace data. */
enum { PTC_PERF_AUX_TRUNCATED = 1, PTC_PERF_AUX_OVERWRITE = 2, PTC_PERF_AUX_PARTIAL = 4, PTC_PERF_AUX_COLLISION = 8 };

/* Intel PT's PERF_RECORD_AUXTRACE_INFO (auxtrace type 1): priv[] in perf's
   order. nfields says how many the record holds; the others are 0. */
typedef struct ptc_perf_pt_info {
    uint64_t pmu_type, time_shift, time_mult, time_zero, cap_user_time_zero, tsc_bit, noretcomp_bit,
        have_sched_switch, snapshot_mode, per_cpu_mmaps, mtc_bit, mtc_freq_bits, tsc_ctc_n, tsc_ctc_d,
        cyc_bit, max_nonturbo_ratio, filter_str_len;
    const char *filter;    /* filter_str_len bytes, in the record (NULL: none) */
    uint64_t cap_event_trace; /* the field after the filter, from perf 5.18 on */
    unsigned nfields;      /* priv[] fields present, counting the filter as one */
} ptc_perf_pt_info;
#define PTC_PERF_PT_INFO_FIELDS 19

/* One event's attribute: what the reader needs of perf_event_attr. */
typedef struct ptc_perf_attr {
    uint32_t type;          /* PMU type: Intel PT's is the AUXTRACE_INFO's pmu_type */
    uint64_t config, sample_type, read_format, flags;
    /* what a sample's variable-size fields depend on (0 when the attribute is
       too short to hold them) */
    uint64_t branch_sample_type, sample_regs_user, sample_regs_intr;
    const uint8_t *ids;     /* its sample ids (u64 each), in the caller's buffer */
    uint64_t nids;
} ptc_perf_attr;

/* Intel PT's attr.config bits, as its PMU's format directory names them
   (SPEC 6.4), and the fields read from them (SPEC 6.1). */
enum {
    PTC_PERF_PT_CYC = 1u << 1, PTC_PERF_PT_PWR_EVT = 1u << 4, PTC_PERF_PT_FUP_ON_PTW = 1u << 5,
    PTC_PERF_PT_MTC = 1u << 9, PTC_PERF_PT_TSC = 1u << 10, PTC_PERF_PT_NORETCOMP = 1u << 11,
    PTC_PERF_PT_PTW = 1u << 12, PTC_PERF_PT_BRANCH = 1u << 13, PTC_PERF_PT_MTC_SHIFT = 14,
    PTC_PERF_PT_CYC_THRESH_SHIFT = 19, PTC_PERF_PT_PSB_PERIOD_SHIFT = 24
};
#define PTC_PERF_PT_CONFIG_CYC_THRESH(config) ((unsigned)(((config) >> PTC_PERF_PT_CYC_THRESH_SHIFT) & 15))
#define PTC_PERF_PT_CONFIG_PSB_PERIOD(config) ((unsigned)(((config) >> PTC_PERF_PT_PSB_PERIOD_SHIFT) & 15))

/* A record. Pointers are into the caller's buffer. */
typedef struct ptc_perf_record {
    uint64_t offset;        /* of the record in the file */
    ptc_status error;       /* PTC_OK, or what is wrong with this record: PTC_ERR_BAD_PERF
                               (then only type, misc, size, offset and bytes are set; the
                               reader went on), PTC_ERR_TRUNCATED (an AUXTRACE cut by the
                               end: its fields, with the size there is), PTC_ERR_UNSUPPORTED */
    uint32_t type;
    uint16_t misc, size;    /* size: the header's, without an AUXTRACE's payload */
    const uint8_t *bytes;   /* the whole record, size bytes */
    /* a kernel record's sample id (attr.sample_id_all; SAMPLE records have
       theirs in u.sample): which of its fields there are, and them */
    struct { uint8_t have_tid, have_time, have_cpu; uint32_t pid, tid, cpu; uint64_t time; } sid;
    union {
        ptc_perf_pt_info info;                                    /* AUXTRACE_INFO (Intel PT) */
        struct { uint64_t size, offset, reference; uint32_t idx, tid, cpu; const uint8_t *data; } auxtrace;
        struct { uint64_t aux_offset, aux_size, flags; } aux;
        struct { uint64_t id, lost; } lost;
        struct { uint32_t pid, tid; const char *comm; } comm;    /* comm: NUL-terminated in the record */
        struct { uint32_t pid, tid; uint64_t addr, len, pgoff; const char *filename; } mmap; /* MMAP, MMAP2 */
        struct { uint32_t pid, tid; } itrace_start;
        struct { uint32_t next_prev_pid, next_prev_tid; } sw;  /* SWITCH_CPU_WIDE (SWITCH: 0) */
        struct { uint64_t time_shift, time_mult, time_zero; } time_conv;
        struct { uint32_t type, code, cpu, pid, tid; uint64_t ip; const char *msg; } auxtrace_error;
        /* SAMPLE: the fields up to AUX that the reader can place (have_* say which) */
        struct {
            const ptc_perf_attr *attr;  /* NULL: no attribute matches its id */
            uint8_t have_time, have_tid, have_cpu;
            uint64_t time;
            uint32_t pid, tid, cpu;
            const uint8_t *aux;         /* PERF_SAMPLE_AUX data (NULL: none, or not placed) */
            uint64_t aux_size;
        } sample;
        struct { uint64_t id; } feature;  /* HEADER_FEATURE (pipe mode) */
    } u;
} ptc_perf_record;

#ifndef PTC_PERF_MAX_ATTRS
#define PTC_PERF_MAX_ATTRS 16
#endif

/* All fields are private but those documented. */
typedef struct ptc_perf_reader {
    const uint8_t *buf;
    uint64_t len;
    int pipe;                          /* pipe mode: records follow a 16-byte header */
    uint64_t pos, end;                 /* the next record; the end of the data */
    unsigned nattrs;
    ptc_perf_attr attrs[PTC_PERF_MAX_ATTRS];
    int have_info;                     /* info: the Intel PT AUXTRACE_INFO, once read */
    ptc_perf_pt_info info;
    int have_cpuid;                    /* the CPUID header feature ("GenuineIntel,6,78,3") */
    unsigned family, model, stepping;
    uint64_t error_offset;             /* where the last error was found */
    int cut_short;                     /* the file ends before its data section does: the
                                          records up to its end are read, the last one may
                                          be cut (then PTC_ERR_BAD_PERF or a truncated AUXTRACE) */
    int features_cut;                  /* the file ends inside its feature sections (after the
                                          data): the data is whole, the CPUID may be lost */
} ptc_perf_reader;

/* Opens a perf.data held whole in buf (file or pipe mode). The attributes
   and, in file mode, the CPUID feature are read now. Errors: PTC_ERR_BAD_PERF
   (error_offset says where), PTC_ERR_UNSUPPORTED (big-endian or compressed). */
PTCDEF ptc_status ptc_perf_open(ptc_perf_reader *rd, const uint8_t *buf, size_t len);
/* The next record: PTC_OK (rec->error says if it was malformed and
   skipped), PTC_END, or PTC_ERR_BAD_PERF when no record can follow (a
   header size of less than 8, or one that runs past the end). Pipe mode's
   HEADER_ATTR records add attributes as they come. */
PTCDEF ptc_status ptc_perf_next(ptc_perf_reader *rd, ptc_perf_record *rec);
/* The Intel PT event's attribute (type = the AUXTRACE_INFO's pmu_type), or NULL. */
PTCDEF const ptc_perf_attr *ptc_perf_pt_attr(const ptc_perf_reader *rd);
/* What the reader has seen of the trace's configuration (SPEC 6.2):
   IA32_RTIT_CTL from the Intel PT attribute's config (all but OS and
   User), the ratios from the AUXTRACE_INFO, the errata of the CPUID
   feature; PTC_ERR_NOT_FOUND before an Intel PT AUXTRACE_INFO. */
PTCDEF ptc_status ptc_perf_trace_config(const ptc_perf_reader *rd, ptc_trace_config *trace);
/* The clock's hardware defaults (SPEC 3.1) with that trace configuration
   and the no-suppression policy hardware has. */
PTCDEF ptc_status ptc_clock_config_from_perf(ptc_clock_config *cfg, const ptc_perf_reader *rd);
/* A TSC value in perf's nanoseconds (perf_event_mmap_page's conversion). */
PTCDEF uint64_t ptc_perf_tsc_to_ns(const ptc_perf_pt_info *info, uint64_t tsc);

/* Writing (SPEC 6.4): a file-mode perf.data with one Intel PT event (its
   attr.config, every record with its sample id: sample_id_all), the
   AUXTRACE_INFO `info` (pmu_type, the time conversion, the TSC:CTC ratio,
   ...), and for each trace t an ITRACE_START, its thread's COMM and MMAP
   records (the sideband a decoder of instructions needs) and one AUXTRACE
   record of queue t (cpu t, idx t, per_cpu_mmaps as info says), with its
   bytes padded to 8 with PADs. family > 0 adds the CPUID feature
   ("GenuineIntel,family,model,stepping"). *written: the size it takes;
   PTC_ERR_NO_SPACE (nothing written) when cap is smaller;
   PTC_ERR_BAD_ARGUMENT for a name longer than PTC_PERF_NAME_MAX. */
#define PTC_PERF_NAME_MAX 4095
typedef struct ptc_perf_mmap {
    uint64_t addr, len, pgoff;   /* where the file's bytes from pgoff are mapped */
    const char *filename;        /* NUL-terminated */
} ptc_perf_mmap;
typedef struct ptc_perf_trace {
    const uint8_t *bytes;
    size_t len;
    uint32_t pid, tid;
    uint64_t start_time;   /* perf time at or before its first packet: the ITRACE_START's
                              time and the AUXTRACE's reference (the TSC, when info says
                              perf time is the TSC) */
    const char *comm;      /* the thread's name for a COMM record; NULL: none */
    const ptc_perf_mmap *mmaps; /* the thread's executable mappings, as MMAP records */
    unsigned nmmaps;
    /* Snapshot mode (set info->snapshot_mode too): perf's AUX ring holds the
       last `ring` bytes, and perf copied it out when the trace had reached
       each of snap_at[0..nsnaps-1] bytes (increasing, at most len): one
       AUXTRACE each, of bytes [max(0, at - ring), at), which may overlap.
       nsnaps 0: one AUXTRACE of the whole trace. */
    uint64_t ring;
    const uint64_t *snap_at;
    unsigned nsnaps;
} ptc_perf_trace;
/* What perf records for a trace the model wrote with cfg: Intel PT's
   attr.config bits for its settings, and an AUXTRACE_INFO with its clocks
   (perf's time = the TSC: shift 0, mult 1, zero 0). */
#ifndef PTCODEC_NO_MODEL
PTCDEF void ptc_perf_info_from_model(ptc_perf_pt_info *info, uint64_t *pt_config, const ptc_model_config *cfg);
#endif
PTCDEF ptc_status ptc_perf_write(uint8_t *out, size_t cap, size_t *written, const ptc_perf_pt_info *info,
                                 uint64_t pt_config, const ptc_perf_trace *traces, unsigned ntraces,
                                 unsigned family, unsigned model, unsigned stepping);

#endif /* PTCODEC_NO_PERF */

/* ===================================================================== */
/* 7. Conformance (SPEC.md part 7)                                       */
/* ===================================================================== */

/* How sure a finding is (X(enumerator, name, meaning)). */
#define PTC_SEVERITY_LIST(X) \
    X(PTC_SEV_VIOLATION,  "violation",  "the stream breaks a rule the SDM states") \
    X(PTC_SEV_SUSPICIOUS, "suspicious", "the SDM is loose here, or real hardware is known to do it") \
    X(PTC_SEV_ERRATUM,    "erratum",    "a published erratum of the trace's CPU explains it")

typedef enum ptc_severity {
#define PTC__X(e, n, m) e,
    PTC_SEVERITY_LIST(PTC__X)
#undef PTC__X
    PTC_SEVERITY_COUNT
} ptc_severity;

/* The catalogue: every rule the conformance checker holds a stream to,
   X(enumerator, name, severity, source, what breaks it). The source is a
   section of the SDM Vol. 3C chapter "Intel Processor Trace" as the 2016
   edition numbers it (chapter 36; SPEC.md 7.3 names each section, for
   later editions), a feature the SDM describes in a later edition, or for
   MTC suppression the seed patent. SPEC.md 7.3 lists the same rows; a
   test holds the two together. */
#define PTC_RULE_LIST(X) \
    /* PSB+ (SPEC 7.3.1) */ \
    X(PTC_RULE_PSB_MEMBER,      "psb_member",        PTC_SEV_VIOLATION,  "36.4.2.17", \
      "a packet that may not appear inside a PSB+") \
    X(PTC_RULE_PSB_NESTED,      "psb_nested",        PTC_SEV_VIOLATION,  "36.4.2.17", \
      "a PSB inside a PSB+ (no PSBEND or OVF ended the first)") \
    X(PTC_RULE_PSBEND_ALONE,    "psbend_alone",      PTC_SEV_VIOLATION,  "36.4.2.18", \
      "a PSBEND with no PSB+ open") \
    X(PTC_RULE_PSB_NO_CBR,      "psb_no_cbr",        PTC_SEV_VIOLATION,  "36.4.2.10", \
      "a PSB+ without a CBR") \
    X(PTC_RULE_PSB_NO_TSC,      "psb_no_tsc",        PTC_SEV_VIOLATION,  "36.4.2.11", \
      "a PSB+ without a TSC while TSC packets are on") \
    X(PTC_RULE_PSB_FUP_MODE,    "psb_fup_mode",      PTC_SEV_VIOLATION,  "36.4.2.8", \
      "a PSB+ with a FUP but no MODE.Exec, or a MODE.Exec but no FUP") \
    X(PTC_RULE_PSB_PERIOD,      "psb_period",        PTC_SEV_SUSPICIOUS, "36.2.7.2", \
      "more than twice the PSBFreq period of bytes from one PSB to the next") \
    /* packet generation enable (SPEC 7.3.2) */ \
    X(PTC_RULE_FLOW_WHILE_OFF,  "flow_while_off",    PTC_SEV_VIOLATION,  "36.2.5", \
      "a TNT, TIP or FUP of an event while packet generation is off") \
    X(PTC_RULE_PGE_WHILE_ON,    "pge_while_on",      PTC_SEV_VIOLATION,  "36.4.2.4", \
      "a TIP.PGE while packet generation is already on") \
    X(PTC_RULE_PGD_WHILE_OFF,   "pgd_while_off",     PTC_SEV_VIOLATION,  "36.4.2.5", \
      "a TIP.PGD while packet generation is already off") \
    X(PTC_RULE_PGE_NO_MODE,     "pge_no_mode",       PTC_SEV_SUSPICIOUS, "Table 36-50", \
      "a TIP.PGE with no MODE.Exec since the last PSB (an enclave exit may send none)") \
    X(PTC_RULE_PGE_NO_IP,       "pge_no_ip",         PTC_SEV_VIOLATION,  "36.4.2.4", \
      "a TIP.PGE whose IP is suppressed: it must give the IP where tracing begins") \
    X(PTC_RULE_AFTER_STOP,      "after_stop",        PTC_SEV_VIOLATION,  "36.4.2.9", \
      "a packet after TraceStop before tracing is enabled again") \
    X(PTC_RULE_STOP_WHILE_ON,   "stop_while_on",     PTC_SEV_VIOLATION,  "Table 36-50", \
      "a TraceStop while packet generation is on: its TIP.PGD comes first") \
    /* compound packets (SPEC 7.3.3) */ \
    X(PTC_RULE_FUP_ALONE,       "fup_alone",         PTC_SEV_VIOLATION,  "36.4.1", \
      "a FUP of an asynchronous event with no TIP or TIP.PGD after it") \
    X(PTC_RULE_MODE_EXEC_ALONE, "mode_exec_alone",   PTC_SEV_VIOLATION,  "36.4.2.8", \
      "a MODE.Exec outside PSB+ with no TIP or TIP.PGE after it") \
    X(PTC_RULE_MODE_TSX_ALONE,  "mode_tsx_alone",    PTC_SEV_VIOLATION,  "36.4.1", \
      "a MODE.TSX outside PSB+, packet generation on, with no FUP or TIP.PGD after it") \
    X(PTC_RULE_IP_BIT_NO_FUP,   "ip_bit_no_fup",     PTC_SEV_VIOLATION,  "36.4.2.21", \
      "a PTW, EXSTOP, TRIG, BEP or CFE with its IP bit set and no FUP after it") \
    X(PTC_RULE_OVF_FOLLOWER,    "ovf_follower",      PTC_SEV_VIOLATION,  "36.4.2.16", \
      "after an OVF, a TNT, TIP or TIP.PGD before the FUP or TIP.PGE that must come first") \
    X(PTC_RULE_MWAIT_ALONE,     "mwait_alone",       PTC_SEV_SUSPICIOUS, "36.4.2.23", \
      "an MWAIT with no PWRE after it") \
    X(PTC_RULE_PWRX_ALONE,      "pwrx_alone",        PTC_SEV_SUSPICIOUS, "36.4.2.25", \
      "a PWRX with no PWRE since the last PWRX") \
    X(PTC_RULE_PWRE_NO_EXSTOP,  "pwre_no_exstop",    PTC_SEV_VIOLATION,  "36.4.2.24", \
      "a PWRE leaving C0 (code ran since the last PWRE) with no EXSTOP after it") \
    X(PTC_RULE_BEP_ALONE,       "bep_alone",         PTC_SEV_VIOLATION,  "PEBS via PT", \
      "a BEP with no block open") \
    X(PTC_RULE_BLOCK_UNENDED,   "block_unended",     PTC_SEV_VIOLATION,  "PEBS via PT", \
      "a block (BBP) that a packet other than BEP ends") \
    X(PTC_RULE_EVD_ALONE,       "evd_alone",         PTC_SEV_VIOLATION,  "Event Trace", \
      "an EVD with no CFE after it") \
    /* values (SPEC 7.3.4) */ \
    X(PTC_RULE_MODE_EXEC_L_D,   "mode_exec_csl_csd", PTC_SEV_VIOLATION,  "36.4.2.8", \
      "a MODE.Exec with CS.L and CS.D both set, a mode no code segment has") \
    X(PTC_RULE_MODE_TSX_BOTH,   "mode_tsx_intx_abrt",PTC_SEV_VIOLATION,  "36.4.2.8", \
      "a MODE.TSX with InTX and TXAbort both set") \
    X(PTC_RULE_CFE_EVD_TYPE,    "cfe_evd_type",      PTC_SEV_VIOLATION,  "Event Trace", \
      "a CFE or EVD type the SDM does not define") \
    X(PTC_RULE_RESERVED_BITS,   "reserved_bits",     PTC_SEV_SUSPICIOUS, "36.4.2", \
      "reserved bits set (the SDM: not guaranteed to be 0)") \
    X(PTC_RULE_CYC_NOT_SHORTEST,"cyc_not_shortest",  PTC_SEV_SUSPICIOUS, "36.4.2.14", \
      "a CYC in more bytes than its count needs") \
    X(PTC_RULE_CBR_ZERO,        "cbr_zero",          PTC_SEV_VIOLATION,  "36.4.2.10", \
      "a CBR of ratio 0: no core clock runs at it") \
    /* timing (SPEC 7.3.5) */ \
    X(PTC_RULE_TMA_ALONE,       "tma_alone",         PTC_SEV_VIOLATION,  "36.4.2.13", \
      "a TMA with no TSC right before it") \
    X(PTC_RULE_TSC_NO_TMA,      "tsc_no_tma",        PTC_SEV_VIOLATION,  "36.4.2.13", \
      "a TSC with no TMA right after it while MTC packets are on") \
    X(PTC_RULE_TSC_BACKWARDS,   "tsc_backwards",     PTC_SEV_SUSPICIOUS, "36.4.2.11", \
      "a TSC below the one before it") \
    X(PTC_RULE_DISABLED_PACKET, "disabled_packet",   PTC_SEV_VIOLATION,  "36.2.7.2", \
      "a packet that the trace's configuration turns off (TSC, TMA, MTC, CYC, PTW, power events)") \
    /* time that contradicts itself, with the clock's settings (SPEC 7.3.5) */ \
    X(PTC_RULE_TSC_BEFORE_MTCS, "tsc_before_mtcs",   PTC_SEV_VIOLATION,  "36.8.3", \
      "a TSC earlier than the MTCs since the last TSC and its TMA say time had come") \
    X(PTC_RULE_TMA_CTC_MISMATCH,"tma_ctc_mismatch",  PTC_SEV_VIOLATION,  "36.4.2.13", \
      "a TMA whose CTC is not the last TMA's moved on by the TSCs' distance") \
    X(PTC_RULE_CYC_OVER_TSC,    "cyc_over_tsc",      PTC_SEV_VIOLATION,  "36.8.3", \
      "CYCs between two TSCs that count more cycles than the TSCs' distance holds at the CBR") \
    X(PTC_RULE_CYC_OVER_MTCS,   "cyc_over_mtcs",     PTC_SEV_VIOLATION,  "36.8.3", \
      "CYCs after an MTC that count more cycles than the MTC periods since and one more hold at the CBR") \
    X(PTC_RULE_CYC_UNDER_THRESHOLD, "cyc_under_threshold", PTC_SEV_VIOLATION, "36.3.6", \
      "a CYC sent for an eligible packet or a TNT with fewer cycles than CycThresh asks") \
    /* MTC suppression, with a policy (SPEC 7.3.6): part 2's rows */ \
    PTC_MTC_RULE_LIST(X)

typedef enum ptc_rule {
    PTC_RULE_NONE = 0,
#define PTC__X(e, n, sev, sdm, text) e,
    PTC_RULE_LIST(PTC__X)
#undef PTC__X
    PTC_RULE_COUNT
} ptc_rule;

PTCDEF const char *ptc_severity_name(ptc_severity s);
/* A rule's name ("psb_no_cbr"), the severity its findings have unless an
   erratum explains them, its SDM section and its line of text; "none", 0,
   "" and "" for PTC_RULE_NONE and values out of range. */
PTCDEF const char *ptc_rule_name(ptc_rule r);
PTCDEF ptc_severity ptc_rule_severity(ptc_rule r);
PTCDEF const char *ptc_rule_sdm(ptc_rule r);
PTCDEF const char *ptc_rule_text(ptc_rule r);
/* The rule called name; PTC_RULE_NONE for any other string. */
PTCDEF ptc_rule ptc_rule_from_name(const char *name);

/* One rule broken: where, which, how sure, and the erratum that would
   explain it (a PTC_ERRATUM_* bit, or 0): severity PTC_SEV_ERRATUM when the
   trace's CPU has it, PTC_SEV_SUSPICIOUS when its CPU is not known. The
   offset names the packet whose obligation went unmet (SPEC 7.2): a
   packet where it may not be, the packet a follower was missing after, or
   the PSB of a PSB+ that lacks a member. */
typedef struct ptc_finding {
    uint64_t offset;
    ptc_rule rule;
    ptc_severity severity;
    uint32_t erratum;
} ptc_finding;

/* What the checker knows of the trace: its configuration, of which a
   zeroed struct knows nothing (SPEC 7.1), and how far its clocks stray
   from the SDM's (the time rules allow for it). */
typedef struct ptc_conform_config {
    ptc_trace_config trace;
    ptc_clock_real real;
} ptc_conform_config;

/* Everything the model's configuration says: the clock's configuration's
   (ptc_clock_config_from_model) trace and real clocks. */
#ifndef PTCODEC_NO_MODEL
PTCDEF void ptc_conform_config_from_model(ptc_conform_config *cfg, const ptc_model_config *model);
#endif
/* What a perf.data records: the clock's configuration's
   (ptc_clock_config_from_perf) trace and real clocks; PTC_ERR_NOT_FOUND
   before an Intel PT AUXTRACE_INFO. */
#ifndef PTCODEC_NO_PERF
PTCDEF ptc_status ptc_conform_config_from_perf(ptc_conform_config *cfg, const ptc_perf_reader *rd);
#endif

/* The most findings one item can give (one per pending follower kind,
   and those of the packet itself). */
#define PTC_CONFORM_MAX_FINDINGS 16
/* The kinds of follower a packet can owe (SPEC 7.3.3). */
#define PTC_CONFORM_FOLLOWERS 10

/* The time rules' state (SPEC 7.3.5), private, in four parts. */
/* The last TSC with its TMA (the epoch) and how far the MTCs since have
   taken the CTC. */
typedef struct ptc__conf_epoch {
    uint8_t tsc_pending;       /* a TSC whose TMA has not come yet (pending_tsc) */
    uint8_t valid;             /* a TSC and its TMA, with no TSC since: tsc and ctc hold them */
    uint8_t seen;              /* a TSC and its TMA since the checker synced */
    uint8_t have_mtc, mtc;     /* the last MTC since the epoch's TMA, its payload */
    uint16_t ctc;              /* the epoch's TMA's CTC[15:0] */
    uint64_t tsc, pending_tsc;
    uint64_t periods;          /* MTC periods from the epoch's CTC to the last MTC's edge, at least */
    uint64_t periods_at_psb;   /* periods when the open PSB+ began: its TSC may be older than its MTCs */
} ptc__conf_epoch;
/* CYCs counted since a TSC (the window) or since an MTC (the chain): the
   first CYC after either counts from before it, and is not counted. */
typedef struct ptc__conf_cyc_count {
    uint8_t state;             /* 0 none; 1 opened, its first CYC to come; 2 counting;
                                  3 (the chain) broken, said once until the next clock stop */
    uint8_t cbr;               /* the highest ratio since it opened */
    uint8_t mtc;               /* the chain: the last MTC's payload */
    uint64_t from_tsc;         /* the window: the TSC that opened it */
    uint64_t periods;          /* the chain: MTC periods since it opened, at least */
    uint64_t cycles;
} ptc__conf_cyc_count;
/* The last CYC, until the packet after it shows what it was sent for. */
typedef struct ptc__conf_last_cyc {
    uint8_t pending;           /* the last packet (PADs aside) was a CYC */
    uint8_t after_cyc;         /* it came right after another CYC */
    uint8_t in_psb;            /* it was inside a PSB+ */
    uint64_t value, offset;
} ptc__conf_last_cyc;
typedef struct ptc__conf_time {
    uint8_t cbr;               /* the core:bus ratio (0: no CBR yet) */
    uint8_t guest;             /* VMX seen since the epoch's TMA (a PIP with NR, VMCS): a TSC may be a guest's */
    ptc__conf_epoch epoch;
    ptc__conf_cyc_count window, chain;
    ptc__conf_last_cyc last_cyc;
} ptc__conf_time;

/* All fields are private; the struct is public so it can live anywhere
   (560 bytes on x86-64; no allocation). */
/* The open PSB+ and the one before (SPEC 7.3.1). */
typedef struct ptc__conf_psb_state {
    uint8_t in;
    uint8_t cut;               /* a stray packet ended the last PSB+ before its PSBEND */
    uint32_t seq;              /* PSBs so far: a follower waiting since before a PSB+ waits it out */
    uint64_t off;
    uint64_t members;          /* bit per packet type seen in the open PSB+ */
    uint8_t have_prev;
    uint64_t prev_off;
} ptc__conf_psb_state;

/* Packet generation and power (SPEC 7.3.2). */
typedef struct ptc__conf_gen_state {
    uint8_t pkt_en;            /* PTC__CONF_UNKNOWN, _OFF or _ON */
    uint8_t en_by_psb;         /* pkt_en is ON only because a PSB+ held a FUP (BDM70) */
    uint8_t stopped;           /* TraceStop, tracing not enabled again yet */
    uint8_t mode_since_psb;    /* a MODE.Exec since the last PSB (a TIP.PGE wants one) */
    uint8_t sleeping;          /* PTC__CONF_UNKNOWN, _OFF (PWRX seen), _ON (PWRE seen) */
    uint8_t awake;             /* in C0: a PWRX, or code traced, since the last PWRE
                                  (a PWRE then leaves C0 and owes an EXSTOP) */
} ptc__conf_gen_state;

/* Followers owed (SPEC 7.3.3): bit k of pending set while kind k is
   awaited after the packet at off[k], opened after psb[k] PSBs; of owed,
   when its absence is a finding (a MODE.TSX with packets off binds a FUP
   that comes, but owes none). */
typedef struct ptc__conf_debts {
    uint32_t pending, owed;
    uint64_t off[PTC_CONFORM_FOLLOWERS];
    uint32_t psb[PTC_CONFORM_FOLLOWERS];
    uint8_t tma_may_follow;    /* a TSC, and since it only packets a TMA may come after */
    uint64_t cut_cyc_end;      /* SKD007: where the OVF after a cut CYC is (0: none) */
    uint8_t ovf_after_cut;     /* the owed OVF follower is that OVF's */
} ptc__conf_debts;

typedef struct ptc_conform {
    ptc_conform_config cfg;
    ptc_checker policy;        /* part 2's checker, when its rules run (SPEC 7.1) */
    uint8_t synced;            /* a PSB since the start or the last decode error */
    uint8_t saw_tsc, saw_mtc;  /* what the stream showed of the enables */
    ptc__conf_psb_state psb;
    ptc__conf_gen_state gen;
    ptc__conf_debts owe;
    uint8_t have_tsc;
    uint64_t last_tsc;
    ptc__conf_time time;       /* with the time rules on (MTCFreq known) */
    uint64_t fast;             /* bit per packet type that can break nothing now */
} ptc_conform;

PTCDEF ptc_status ptc_conform_init(ptc_conform *c, const ptc_conform_config *cfg);
/* Feeds the next item of the stream decoder (packets and errors, in
   order). Writes the rules this item shows broken to out (at most
   PTC_CONFORM_MAX_FINDINGS) and returns how many. A decode error, and an
   OVF, drop what the lost bytes could explain; checking of the PSB+ and
   packet-enable rules starts again at the next PSB (SPEC 7.2). The end of
   the input needs no call: a follower still owed there may be in bytes
   the trace did not keep, and is not reported. */
PTCDEF size_t ptc_conform_item(ptc_conform *c, const ptc_item *it, ptc_finding *out);

/* ===================================================================== */
/* 9.1 x86 instructions                                                   */
/* ===================================================================== */
#ifndef PTCODEC_NO_FLOW

/* The execution mode an instruction is decoded in: the code segment's
   default operand and address size (MODE.Exec's CS.L and CS.D). */
typedef enum ptc_x86_mode { PTC_X86_16 = 16, PTC_X86_32 = 32, PTC_X86_64 = 64 } ptc_x86_mode;

/* What an instruction does to control flow, and so which packets Intel PT
   writes for it (SDM Vol. 3C 33.4.2.1, "COFI"). X(enumerator, name, what).
   libipt's coarser pt_insn_class: JMP and JMP_IND are its jump; FAR_CALL,
   INT, SYSCALL and VMCALL its far_call; FAR_RET, IRET, SYSRET and
   VM_ENTRY its far_return; MOV_CR3, VMPTRLD, TSX and REP its other. */
#define PTC_X86_CLASS_LIST(X) \
    X(PTC_X86_OTHER,    "other",    "control goes on to the next instruction (no packet)") \
    X(PTC_X86_JCC,      "jcc",      "conditional near branch: Jcc, LOOP, LOOPE, LOOPNE, JrCXZ (a TNT bit)") \
    X(PTC_X86_JMP,      "jmp",      "direct near jump: JMP rel, and APX's JMPABS (no packet)") \
    X(PTC_X86_JMP_IND,  "jmp_ind",  "indirect near jump: JMP r/m (a TIP)") \
    X(PTC_X86_CALL,     "call",     "direct near call: CALL rel (no packet; its return address is pushed for RET compression)") \
    X(PTC_X86_CALL_IND, "call_ind", "indirect near call: CALL r/m (a TIP)") \
    X(PTC_X86_RET,      "ret",      "near return: RET, RET imm16 (a TNT bit when compressed, else a TIP)") \
    X(PTC_X86_FAR_JMP,  "far_jmp",  "far jump: JMP ptr16:32, JMP m16:64 (a TIP)") \
    X(PTC_X86_FAR_CALL, "far_call", "far call: CALL ptr16:32, CALL m16:64 (a TIP)") \
    X(PTC_X86_FAR_RET,  "far_ret",  "far return: RETF, RETF imm16 (a TIP)") \
    X(PTC_X86_IRET,     "iret",     "return from an interrupt: IRET, UIRET, ERETS, ERETU (a TIP)") \
    X(PTC_X86_INT,      "int",      "software interrupt: INT n, INT3, INT1, INTO (a TIP)") \
    X(PTC_X86_SYSCALL,  "syscall",  "into the kernel: SYSCALL, SYSENTER (a TIP)") \
    X(PTC_X86_SYSRET,   "sysret",   "back from the kernel: SYSRET, SYSEXIT (a TIP)") \
    X(PTC_X86_VMCALL,   "vmcall",   "a call to the VMM: VMCALL (a VM exit)") \
    X(PTC_X86_VM_ENTRY, "vm_entry", "into a guest: VMLAUNCH, VMRESUME (a VM entry)") \
    X(PTC_X86_PTWRITE,  "ptwrite",  "PTWRITE (a PTW packet)") \
    X(PTC_X86_MOV_CR3,  "mov_cr3",  "MOV to CR3: a new address space (a PIP)") \
    X(PTC_X86_VMPTRLD,  "vmptrld",  "VMPTRLD: a new current VMCS (a VMCS packet)") \
    X(PTC_X86_TSX,      "tsx",      "XBEGIN, XEND, XABORT: a transaction begins, commits or aborts (MODE.TSX)") \
    X(PTC_X86_REP,      "rep",      "a string instruction (or VIA PadLock's) with REP, REPE or REPNE: it may run again at the same IP")

typedef enum ptc_x86_class {
#define PTC__X(e, n, w) e,
    PTC_X86_CLASS_LIST(PTC__X)
#undef PTC__X
    PTC_X86_CLASS_COUNT
} ptc_x86_class;

/* How the opcode was reached: the prefix that picked its map. */
typedef enum ptc_x86_encoding {
    PTC_X86_LEGACY = 0, /* legacy prefixes and REX, escapes 0F, 0F 38, 0F 3A */
    PTC_X86_REX2,       /* APX's REX2 (D5), maps 0 and 1 */
    PTC_X86_VEX,        /* VEX (C4, C5) */
    PTC_X86_EVEX,       /* EVEX (62) */
    PTC_X86_XOP         /* AMD's XOP (8F, map 8 or more) */
} ptc_x86_encoding;

/* One decoded instruction. */
typedef struct ptc_x86_insn {
    uint64_t ip;       /* its address, as given */
    uint64_t target;   /* JCC, JMP, CALL, and XBEGIN's fallback: where the
                          branch goes, wrapped to the operand size; else 0 */
    uint8_t size;      /* its length in bytes, 1..15 */
    uint8_t iclass;    /* ptc_x86_class */
    uint8_t mode;      /* the ptc_x86_mode it was decoded in */
    uint8_t encoding;  /* ptc_x86_encoding */
    uint8_t map;       /* 0 one-byte, 1 0F, 2 0F 38, 3 0F 3A, 4-7 EVEX's
                          maps, 8-10 XOP's */
    uint8_t opcode;    /* the opcode byte in that map */
    uint8_t modrm;     /* its ModRM byte; 0 without one (has_modrm says) */
    uint8_t has_modrm; /* 1 when it has a ModRM byte */
} ptc_x86_insn;

/* Decodes the instruction at the start of code[0..size) (SPEC 9.1): its
   length, class and direct target. Reads at most 15 bytes and never past
   size. PTC_ERR_BAD_INSN: these bytes are not an instruction in this mode
   (or one longer than 15 bytes); PTC_ERR_CUT_INSN: size ends inside one;
   PTC_ERR_BAD_ARGUMENT: a NULL pointer or a mode that is not 16, 32 or 64.
   On an error *insn has only ip, mode and size 0. */
PTCDEF ptc_status ptc_x86_decode(const uint8_t *code, size_t size, ptc_x86_mode mode, uint64_t ip, ptc_x86_insn *insn);
/* "jcc", ...; "unknown" outside the list. */
PTCDEF const char *ptc_x86_class_name(ptc_x86_class iclass);

/* ===================================================================== */
/* 9.2 Memory images                                                      */
/* ===================================================================== */

/* The code a trace ran, for the flow decoder: sections of the caller's
   memory at addresses, and a callback for what no section holds. */
typedef struct ptc_image_section {
    uint64_t base;        /* its first address */
    uint64_t size;        /* its bytes; base + size does not wrap */
    const uint8_t *bytes; /* the caller's, kept alive as long as the image */
} ptc_image_section;

/* Copies up to n bytes of code at addr into buf and returns how many it
   copied (0: it has none there). Called only for addresses no section
   holds. */
typedef size_t (*ptc_image_read_fn)(void *ctx, uint64_t addr, uint8_t *buf, size_t n);

/* All fields are private but read and ctx (set them after init). */
typedef struct ptc_image {
    ptc_image_section *sections; /* the caller's storage, sorted by base, none overlapping */
    size_t count, capacity;
    ptc_image_read_fn read;      /* may be NULL */
    void *ctx;                   /* handed to read */
    uint32_t generation;         /* changes with every change of the sections */
} ptc_image;

/* An empty image over the caller's array of `capacity` sections. */
PTCDEF void ptc_image_init(ptc_image *img, ptc_image_section *storage, size_t capacity);
/* Adds size bytes at base (SPEC 9.2). Where it overlaps sections already
   there, it replaces them (as a later mmap does), which may split one in
   two. PTC_ERR_NO_SPACE when the array is full (the image is unchanged);
   PTC_ERR_BAD_IMAGE when base + size wraps; size 0 adds nothing. */
PTCDEF ptc_status ptc_image_add(ptc_image *img, uint64_t base, const uint8_t *bytes, uint64_t size);
/* Every PT_LOAD segment of an ELF file (32- or 64-bit, little-endian) in
   file[0..size), its file bytes, as ptxed --elf FILE[:BASE] loads them:
   at their addresses, or with base nonzero moved so that the lowest
   segment starts at base. PTC_ERR_BAD_IMAGE: not such an ELF file, or a
   segment outside it; PTC_ERR_UNSUPPORTED: big-endian. */
PTCDEF ptc_status ptc_image_add_elf(ptc_image *img, const uint8_t *file, size_t size, uint64_t base);
/* libxdc's page cache (SPEC 9.2): addr holds a little-endian 64-bit word
   per page (its address in bits 63:12; a page with any of bits 11:0 set is
   unmapped and skipped), dump the 4 KiB pages in the same order. A page
   already in the image is kept (libxdc keeps the first of duplicates);
   pages that follow each other in both become one section.
   PTC_ERR_BAD_IMAGE: addr is not whole words, or dump shorter than the
   pages it names. */
PTCDEF ptc_status ptc_image_add_pagecache(ptc_image *img, const uint8_t *addr, size_t addr_size, const uint8_t *dump,
                                          size_t dump_size);
/* Copies up to n bytes at addr from the sections that follow each other
   without a gap from there, or from read when no section holds addr;
   returns how many. */
PTCDEF size_t ptc_image_read(const ptc_image *img, uint64_t addr, uint8_t *buf, size_t n);

/* ===================================================================== */
/* 9.3 The flow decoder                                                   */
/* ===================================================================== */

/* The calls RET compression may return to that the decoder keeps (the
   hardware keeps fewer). */
#define PTC_FLOW_CALL_DEPTH 64

/* ptc_flow_insn.flags */
#define PTC_FLOW_RESUMED 1u /* the first instruction after tracing started or
                               resumed: a TIP.PGE, a PSB+ after a gap, an OVF */
#define PTC_FLOW_STOPPED 2u /* (blocks) tracing stopped after the last
                               instruction: a TIP.PGD */

/* One instruction the trace says ran. */
typedef struct ptc_flow_insn {
    uint64_t ip;
    uint64_t offset;   /* the stream offset of the last packet read before it */
    uint8_t size;      /* its length */
    uint8_t iclass;    /* ptc_x86_class */
    uint8_t mode;      /* ptc_x86_mode */
    uint8_t flags;     /* PTC_FLOW_* */
} ptc_flow_insn;

/* A basic block: instructions that run one after another with no packet
   between them, the last one the first that may change the flow (any
   class but `other`), or the 16th, or the one before an asynchronous
   event's IP, an undecodable instruction, or where tracing stops. */
#define PTC_FLOW_BLOCK_MAX 16

/* One block the trace says ran. Instruction k (0-based) is at ip plus the
   sizes of those before it; its size is bits 4k+3:4k of sizes. All but the
   last are of class `other`. */
typedef struct ptc_flow_block {
    uint64_t ip;       /* its first instruction */
    uint64_t end_ip;   /* its last instruction */
    uint64_t next_ip;  /* where its last instruction sent execution (an
                          asynchronous event may take it elsewhere before
                          the instruction there runs: the next block says);
                          with PTC_FLOW_STOPPED the TIP.PGD's IP (0 when it
                          has none); 0 when an error follows or the trace
                          ends before it says */
    uint64_t offset;   /* the stream offset of the last packet read before it */
    uint64_t sizes;    /* 4 bits an instruction */
    uint8_t count;     /* instructions, 1..PTC_FLOW_BLOCK_MAX */
    uint8_t end_class; /* the last instruction's ptc_x86_class */
    uint8_t mode;      /* ptc_x86_mode */
    uint8_t flags;     /* PTC_FLOW_RESUMED: its first instruction is the first
                          after tracing started or resumed; PTC_FLOW_STOPPED */
} ptc_flow_block;

/* A block the cache keeps (its fields are private): where it starts, its
   sizes, its last instruction's offset from ip, class and direct target.
   32 bytes. */
typedef struct ptc_flow_cached_block {
    uint64_t ip, target, sizes;
    uint32_t stamp;
    uint8_t count, end_class, mode, last;
} ptc_flow_cached_block;

/* The distinct edges a run of blocks holds at most (ptc_flow_cached_run). */
#define PTC_FLOW_RUN_SLOTS 15

/* A run the cache keeps for ptc_coverage_flow (its fields are private):
   from a block start with TNT bits waiting, the edges those bits take
   execution through, up to the last conditional branch they decide, and
   where it is then. An edge met again in a run (a loop's) is kept once
   with its count, which the map adds at once. 128 bytes. */
typedef struct ptc_flow_cached_run {
    uint64_t ip, bits, end_ip;  /* where it starts, the bits waiting (count of them), where it ends */
    uint64_t calls[2];          /* the return addresses its CALLs pushed, in order */
    uint32_t stamp;             /* valid when the cache's */
    uint8_t mode, count, used;  /* used: the bits it takes */
    uint8_t slots, pushes;
    uint16_t edges;                    /* the sum of hits */
    uint32_t slot[PTC_FLOW_RUN_SLOTS]; /* each edge's slot in a map of 2^32 bytes */
    uint8_t hits[PTC_FLOW_RUN_SLOTS];  /* and how many times it was taken */
} ptc_flow_cached_run;

/* The caller's block cache: decoded blocks by address and mode, kept
   across decoders and decodes of the same image, so that a trace decoded
   again costs a lookup a block; and, when given storage for them, runs of
   blocks for coverage, so that it costs a lookup a TNT packet. All fields
   but the counters are private. */
typedef struct ptc_flow_cache {
    ptc_flow_cached_block *blocks; /* the caller's, a power of two of them */
    size_t mask;
    ptc_flow_cached_run *runs;     /* the caller's, a power of two of them; may be NULL */
    size_t run_mask;
    const ptc_image *image;        /* the image, and its generation, they were read from */
    uint64_t fingerprint;          /* of the image's sections: another image at the same address */
    uint32_t generation, stamp;    /* a block or run is valid when its stamp is the cache's */
    uint64_t hits, misses;         /* lookups that found their block, and that decoded it */
    uint64_t run_hits, run_misses; /* ptc_coverage_flow's lookups of runs */
} ptc_flow_cache;

/* A cache over storage[0..count): count a power of two, at least 2 (else
   PTC_ERR_BAD_ARGUMENT). It empties itself when a decoder takes it for
   another image, or for one whose sections (their addresses, sizes and
   bytes pointers) changed, and when the image changes under it. The bytes themselves, and
   what a read callback gives, are taken to stay the same:
   ptc_flow_cache_clear when they change. */
PTCDEF ptc_status ptc_flow_cache_init(ptc_flow_cache *cache, ptc_flow_cached_block *storage, size_t count);
/* Keeps runs for ptc_coverage_flow in storage[0..count) from now on: count
   a power of two, at least 2 (else PTC_ERR_BAD_ARGUMENT, and none kept).
   They are emptied and made stale with the blocks. */
PTCDEF ptc_status ptc_flow_cache_keep_runs(ptc_flow_cache *cache, ptc_flow_cached_run *storage, size_t count);
PTCDEF void ptc_flow_cache_clear(ptc_flow_cache *cache);

/* All fields are private. 912 bytes on x86-64. */
typedef struct ptc_flow {
    ptc_decoder dec;
    const ptc_image *image;
    struct {                                                             /* where execution is */
        uint64_t ip, stopped_at;  /* stopped_at: the TIP.PGD's IP (0 without one) when stopped is set */
        uint8_t mode, enabled, resumed, stopped, lost, after_ovf, ended, finished;
    } at;
    struct { uint64_t bits; uint8_t count; } tnt;                           /* TNT bits read, not yet used */
    struct { uint64_t ip[PTC_FLOW_CALL_DEPTH]; uint8_t top, depth; } calls; /* RET compression's calls */
    struct {                                                                 /* the next packet that steers */
        uint64_t ip;              /* an IP packet's (0 when suppressed) */
        uint8_t type;             /* ptc_packet_type */
        uint8_t ip_known;         /* as ptc_item's */
        uint8_t have;
        uint8_t psb_fup;          /* item is a PSB+'s FUP (a check, not an event) */
        uint8_t mode, have_mode;  /* a MODE.Exec for the next IP packet */
        uint8_t skip_fup;         /* the next FUP is a PTW's, EXSTOP's, ...: no event */
    } ahead;
    uint64_t last_offset;
    struct { ptc_status status; uint64_t ip, offset; } error; /* to report at the next call */
    struct { uint64_t ip, packets; uint32_t power, steps; } loop; /* Brent's cycle finder over packet-free runs */
    uint64_t packets;                                        /* TNT bits and packets used so far */
    ptc_flow_cache *cache;                                   /* may be NULL */
    /* the IP filter ranges, kept when the trace's CPU has erratum SKL014
       (count 0 else): where a TIP.PGD without its IP binds */
    ptc_ip_filters skl014_filters;
    struct { ptc_flow_cached_block now; uint64_t ip, offset; uint8_t given, flags; } block; /* the block being given */
} ptc_flow;

/* A flow decoder over the trace in buf[0..len) (SPEC 9.3) and the code in
   image, which must outlive it. trace may be NULL (nothing known); its
   errata flags go to the stream decoder, and with erratum SKL014 and the
   filter ranges known (PTC_KNOW_FILTERS) the ranges say where a TIP.PGD
   without its IP binds. */
PTCDEF ptc_status ptc_flow_init(ptc_flow *f, const ptc_trace_config *trace, const ptc_image *image, const uint8_t *buf,
                                size_t len);
/* The next instruction, in *insn. PTC_END when the trace is done: after
   the last packet the code runs on up to the first instruction that needs
   a packet, which is the last given (as libipt's decoder runs on). An
   error (PTC_ERR_NO_CODE, _NO_TNT, _NO_TIP, _BAD_RET, _LOOP, or the stream
   decoder's) names where the packets and the code part: insn->ip and
   insn->offset say where; the decoder goes on from the next PSB+. */
PTCDEF ptc_status ptc_flow_next(ptc_flow *f, ptc_flow_insn *insn);
/* The next block, in *block: the same instructions ptc_flow_next gives, a
   block at a time, with the same errors (block->ip says where). The two
   may be mixed: a block then starts at the next instruction not given. */
PTCDEF ptc_status ptc_flow_next_block(ptc_flow *f, ptc_flow_block *block);
/* Decodes blocks through cache from now on (NULL, or a cache
   ptc_flow_cache_init has not set up: without one). A cache may serve any
   number of decoders in turn over the same image. */
PTCDEF void ptc_flow_use_cache(ptc_flow *f, ptc_flow_cache *cache);

/* ===================================================================== */
/* 9.5 Coverage                                                           */
/* ===================================================================== */

/* An edge map for coverage-guided fuzzing, AFL's kind: a byte a slot, the
   slot of an edge from `from` to `to` ptc_coverage_slot's, its count
   saturating at 255. All fields are the caller's to read. */
typedef struct ptc_coverage {
    uint8_t *map;     /* the caller's, size bytes; counts are added to what is there */
    size_t mask;      /* size - 1 */
    uint64_t edges;   /* edges counted */
    uint64_t errors;  /* errors met (the decoder went on after each) */
    ptc_status first_error;
    /* may be set after init: called with every edge as it is counted */
    void (*on_edge)(void *ctx, uint64_t from, uint64_t to);
    void *ctx;
} ptc_coverage;

/* A map of size bytes (a power of two, else PTC_ERR_BAD_ARGUMENT); the map
   is not cleared. */
PTCDEF ptc_status ptc_coverage_init(ptc_coverage *cov, uint8_t *map, size_t size);
/* The slot of the edge from -> to (SPEC 9.5): with m(x) the high 32 bits
   of x * 0x9E3779B97F4A7C15 (mod 2^64), (m(to) ^ (m(from) >> 1)) & mask. */
PTCDEF size_t ptc_coverage_slot(uint64_t from, uint64_t to, size_t mask);
/* Every edge of the flow decoder's blocks, to the end of its trace: from
   each branch (a conditional one taken or not) to where it went, a TIP.PGD's
   IP included; from the last instruction before an asynchronous event to
   where the event sent execution; from 0 to where tracing started or
   resumed. PTC_OK, or the first error the flow decoder met (all are
   counted in errors, and decoding goes on). Through a cache that keeps
   runs (ptc_flow_cache_keep_runs) and with on_edge not set, a TNT
   packet's blocks decoded before cost one lookup: the same map and counts
   (SPEC 9.5). */
PTCDEF ptc_status ptc_coverage_flow(ptc_coverage *cov, ptc_flow *f);
/* Edges without an image, from the packets alone: from the IP of the last
   IP packet (0 at the start and after an OVF) to each TIP's, TIP.PGE's,
   TIP.PGD's and FUP's IP, and to each TNT packet's bits (1 << count |
   bits, with bit 63 set). PTC_OK, or the first error of the stream
   decoder (the rest counted in errors). */
PTCDEF ptc_status ptc_coverage_packets(ptc_coverage *cov, const ptc_trace_config *trace, const uint8_t *buf, size_t len);

#endif /* PTCODEC_NO_FLOW */

#ifdef __cplusplus
}
#endif

#endif /* PTCODEC_H_INCLUDED */

/* ===================================================================== */
/*                          IMPLEMENTATION                                */
/* ===================================================================== */
#if defined(PTCODEC_IMPLEMENTATION) && !defined(PTCODEC_IMPLEMENTATION_ONCE)
#define PTCODEC_IMPLEMENTATION_ONCE

#include <string.h>

#ifndef PTC_ASSERT
#define PTC_ASSERT(x) ((void)0)
#endif

/* PTC__INLINE: small helpers the clock calls several times per packet,
   where a call costs as much as their work (gcc -O2 leaves them out of
   line on its own; bench/README.md has the figures). PTC__NOINLINE: the
   rare path of a function whose common path is a few instructions, so
   that path needs no stack frame (the conformance checker's). */
#if defined(__GNUC__) || defined(__clang__)
#  define PTC__LIKELY(x) __builtin_expect(!!(x), 1)
#  define PTC__UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define PTC__INLINE __attribute__((always_inline)) inline
#  define PTC__NOINLINE __attribute__((noinline))
#elif defined(_MSC_VER)
#  define PTC__LIKELY(x) (x)
#  define PTC__UNLIKELY(x) (x)
#  define PTC__INLINE __forceinline
#  define PTC__NOINLINE __declspec(noinline)
#else
#  define PTC__LIKELY(x) (x)
#  define PTC__UNLIKELY(x) (x)
#  define PTC__INLINE inline
#  define PTC__NOINLINE
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 0. Shared arithmetic ------------------------------------------- */

/* Little-endian load of n (<= 8) bytes. */
static uint64_t ptc__byte_load(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    unsigned i;
    for (i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Little-endian load of 8 bytes; the caller guarantees they are there. */
static uint64_t ptc__byte_load64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8); /* one unaligned load on little-endian hosts */
    return v;
#else
    return ptc__byte_load(p, 8);
#endif
}

static void ptc__byte_store(uint8_t *p, uint64_t v, unsigned n)
{
    unsigned i;
    for (i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Index of the most significant set bit; v != 0. */
static unsigned ptc__math_msb(uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return 63u - (unsigned)__builtin_clzll(v);
#else
    unsigned r = 0;
    while (v >>= 1) r++;
    return r;
#endif
}

/* 128-bit integers where the compiler has them; portable code elsewhere
   (and in the PTC_NO_INT128 test build) */
#if defined(__SIZEOF_INT128__) && !defined(PTC_NO_INT128)
#define PTC__MATH_INT128 1
__extension__ typedef unsigned __int128 ptc__math_u128;
#else
#define PTC__MATH_INT128 0
#endif

/* a*b as a 128-bit number: its high and low 64 bits. */
static PTC__INLINE void ptc__math_mul_wide(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
#if PTC__MATH_INT128
    ptc__math_u128 x = (ptc__math_u128)a * b;
    *hi = (uint64_t)(x >> 64);
    *lo = (uint64_t)x;
#else
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    *lo = (p00 & 0xFFFFFFFFu) | (mid << 32);
    *hi = a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* 128-bit arithmetic for the exact clocks: (a*b + add - sub) / d, when the
   quotient fits 64 bits (returns 0, with *q = UINT64_MAX, otherwise). The caller guarantees
   a*b + add >= sub. Native where the compiler has 128-bit integers, a
   portable long division elsewhere (and in the PTC_NO_INT128 test build). */
#if PTC__MATH_INT128
static int ptc__math_mad_div(uint64_t a, uint64_t b, uint64_t add, uint64_t sub, uint64_t d,
                        uint64_t *q, uint64_t *r)
{
    ptc__math_u128 x = (ptc__math_u128)a * b + add - sub, qq;
    if (!(uint64_t)(x >> 64)) { /* the common case, and a 128-bit division is slow */
        *q = (uint64_t)x / d;
        *r = (uint64_t)x % d;
        return 1;
    }
    qq = x / d;
    *q = (uint64_t)qq;
    *r = (uint64_t)(x % d);
    if ((uint64_t)(qq >> 64) != 0) { *q = UINT64_MAX; *r = 0; return 0; }
    return 1;
}
#else
static int ptc__math_mad_div(uint64_t a, uint64_t b, uint64_t add, uint64_t sub, uint64_t d,
                        uint64_t *q, uint64_t *r)
{
    uint64_t hi, lo, old, qv = 0;
    int i;
    ptc__math_mul_wide(a, b, &hi, &lo);
    lo += add;
    hi += lo < add;
    old = lo;
    lo -= sub;
    hi -= old < sub;
    *q = UINT64_MAX;
    *r = 0;
    if (hi >= d) return 0;
    for (i = 0; i < 64; i++) { /* restoring division, one quotient bit a step */
        uint64_t top = hi >> 63;
        hi = (hi << 1) | (lo >> 63);
        lo <<= 1;
        qv <<= 1;
        if (top || hi >= d) { hi -= d; qv |= 1; }
    }
    *q = qv;
    *r = hi;
    return 1;
}
#endif

static uint64_t ptc__math_gcd(uint64_t a, uint64_t b)
{
    while (b) { uint64_t t = a % b; a = b; b = t; }
    return a;
}

static uint64_t ptc__math_sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t ptc__math_sat_sub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

/* floor or ceil of a*b/d, saturating at UINT64_MAX. */
static uint64_t ptc__math_muldiv(uint64_t a, uint64_t b, uint64_t d, int ceil)
{
    uint64_t q, r;
    if (!ptc__math_mad_div(a, b, ceil ? d - 1 : 0, 0, d, &q, &r)) return UINT64_MAX;
    return q;
}

/* Division by d (>= 1) as a multiplication and shifts, exact for every
   64-bit dividend: Granlund and Montgomery's method with a 65-bit
   multiplier (2^64 + magic), l = ceil(log2 d):
     magic = floor(2^64 * (2^l - d) / d) + 1,
     t = (x * magic) >> 64,  floor(x / d) = (t + ((x - t) >> 1)) >> (l - 1).
   A hardware division costs tens of cycles, and the clock divides by the
   same few divisors at every packet. d = 1 is shift 0. */
static void ptc__math_divider_init(ptc__math_divider *v, uint64_t d)
{
    unsigned l;
    uint64_t top, q, r;
    v->d = d;
    v->magic = 0;
    v->shift = 0;
    if (d <= 1) return;
    l = 1 + ptc__math_msb(d - 1);             /* ceil(log2 d), 1..64 */
    top = l == 64 ? 0 - d : (UINT64_C(1) << l) - d; /* 2^l - d, below d */
    /* floor(top * 2^64 / d), as 2 * floor(top * 2^63 / d) plus the bit
       the remainder carries */
    (void)ptc__math_mad_div(top, UINT64_C(1) << 63, 0, 0, d, &q, &r);
    v->magic = 2 * q + (r >= d - r) + 1;
    v->shift = l;
}

static PTC__INLINE uint64_t ptc__math_divide(const ptc__math_divider *v, uint64_t x)
{
    uint64_t t, lo;
    if (!v->shift) return x; /* d = 1 */
    ptc__math_mul_wide(x, v->magic, &t, &lo);
    (void)lo;
    return (t + ((x - t) >> 1)) >> (v->shift - 1);
}

/* floor or ceil of a*b/v->d, saturating at UINT64_MAX: without a hardware
   division when a*b fits 64 bits. */
static PTC__INLINE uint64_t ptc__math_muldiv_by(const ptc__math_divider *v, uint64_t a, uint64_t b, int ceil)
{
    uint64_t hi, x, q;
    ptc__math_mul_wide(a, b, &hi, &x);
    if (hi) return ptc__math_muldiv(a, b, v->d, ceil);
    q = ptc__math_divide(v, x);
    return q + (ceil && x - q * v->d != 0);
}

/* a/b < c/d, exactly (b, d > 0): a*d < c*b, with no division - the clock
   compares rates at every anchor */
static int ptc__math_frac_less(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t ad_hi, ad_lo, cb_hi, cb_lo;
    ptc__math_mul_wide(a, d, &ad_hi, &ad_lo);
    ptc__math_mul_wide(c, b, &cb_hi, &cb_lo);
    return ad_hi < cb_hi || (ad_hi == cb_hi && ad_lo < cb_lo);
}

/* ---- 1.1 Status codes ---------------------------------------------- */

PTCDEF const char *ptc_status_name(ptc_status status)
{
    switch (status) {
#define PTC__X(e, v, n, m) case e: return n;
    PTC_STATUS_LIST(PTC__X)
#undef PTC__X
    default: return "unknown_status";
    }
}

PTCDEF const char *ptc_status_message(ptc_status status)
{
    switch (status) {
#define PTC__X(e, v, n, m) case e: return m;
    PTC_STATUS_LIST(PTC__X)
#undef PTC__X
    default: return "not a ptcodec status code";
    }
}

PTCDEF const char *ptc_version(void) { return PTCODEC_VERSION_STRING; }

/* PTC_STATUS_MIN_ counts the error codes: they must leave no gap */
#define PTC__X(e, v, n, m) + ((v) < PTC_STATUS_MIN_)
typedef char ptc__status_no_gap[(0 PTC_STATUS_LIST(PTC__X)) == 0 ? 1 : -1];
#undef PTC__X

/* ---- 1.2-1.6 Packets and their classes ------------------------------ */

PTCDEF const char *ptc_packet_type_name(ptc_packet_type type)
{
    switch (type) {
#define PTC__X(e, json, dump, min, max, cls) case e: return json;
    PTC_PACKET_LIST(PTC__X)
#undef PTC__X
    default: return "none";
    }
}

PTCDEF const char *ptc_packet_type_dump_name(ptc_packet_type type)
{
    switch (type) {
#define PTC__X(e, json, dump, min, max, cls) case e: return dump;
    PTC_PACKET_LIST(PTC__X)
#undef PTC__X
    default: return "none";
    }
}

PTCDEF ptc_packet_type ptc_packet_type_from_name(const char *name)
{
    if (!name) return PTC_NONE;
#define PTC__X(e, json, dump, min, max, cls) if (!strcmp(name, json) || !strcmp(name, dump)) return e;
    PTC_PACKET_LIST(PTC__X)
#undef PTC__X
    return PTC_NONE;
}

/* One row per type, PTC_NONE first: its sizes and classes. */
typedef struct ptc__pkt_facts { uint8_t min_size, max_size, classes; } ptc__pkt_facts;
static const ptc__pkt_facts ptc__pkt_facts_of[PTC_PACKET_TYPE_COUNT] = {
    { 0, 0, 0 },
#define PTC__X(e, json, dump, min, max, cls) { min, max, (uint8_t)(cls) },
    PTC_PACKET_LIST(PTC__X)
#undef PTC__X
};

/* The sizes above are what the decoder and encoder produce: the PSB is
   the largest, and nothing may outgrow the carry buffers. */
#define PTC__X(e, json, dump, min, max, cls) && (max) <= PTC_MAX_PACKET_SIZE && (min) <= (max)
typedef char ptc__pkt_size_check[(1 PTC_PACKET_LIST(PTC__X)) ? 1 : -1];
#undef PTC__X

static const ptc__pkt_facts *ptc__pkt_facts_for(ptc_packet_type type)
{
    return (unsigned)type < PTC_PACKET_TYPE_COUNT ? &ptc__pkt_facts_of[type] : &ptc__pkt_facts_of[PTC_NONE];
}

PTCDEF unsigned ptc_packet_min_size(ptc_packet_type type) { return ptc__pkt_facts_for(type)->min_size; }
PTCDEF unsigned ptc_packet_max_size(ptc_packet_type type) { return ptc__pkt_facts_for(type)->max_size; }
PTCDEF unsigned ptc_packet_classes(ptc_packet_type type) { return ptc__pkt_facts_for(type)->classes; }

#define PTC__X(N, n, bit) \
    PTCDEF int ptc_packet_is_##n(ptc_packet_type type) { return (ptc_packet_classes(type) & PTC_PC_##N) != 0; }
PTC_PACKET_CLASS_LIST(PTC__X)
#undef PTC__X

PTCDEF int ptc_packet_is_ntp(ptc_packet_type type)
{
    return ptc_packet_max_size(type) != 0 && type != PTC_PAD && !ptc_packet_is_timing(type);
}

PTCDEF ptc_block_ctx ptc_block_ctx_after(ptc_block_ctx before, const ptc_packet *pkt)
{
    if (pkt->type == PTC_BBP) return pkt->u.bbp.sz ? PTC_BLOCK_4 : PTC_BLOCK_8;
    return ptc_packet_is_keeps_block(pkt->type) ? before : PTC_BLOCK_NONE;
}

/* Payload bytes for each IPBytes value (SPEC 1.5); reserved values never
   get here. */
static const uint8_t ptc__pkt_ipc_bytes[8] = { 0, 2, 4, 6, 6, 0, 8, 0 };

static const uint8_t ptc__pkt_psb[16] = {
    PTC_OP_EXT, PTC_EXT_PSB, PTC_OP_EXT, PTC_EXT_PSB, PTC_OP_EXT, PTC_EXT_PSB, PTC_OP_EXT, PTC_EXT_PSB,
    PTC_OP_EXT, PTC_EXT_PSB, PTC_OP_EXT, PTC_EXT_PSB, PTC_OP_EXT, PTC_EXT_PSB, PTC_OP_EXT, PTC_EXT_PSB
};

/* ---- 1.7 Single-packet decode -------------------------------------- */

/* What the first byte says. One table lookup replaces the SDM's decision
   tree; the table is computed by the compiler from PTC__DEC_FIRST_CLASS, which
   states the rule once. */
enum {
    PTC__DEC_K_BAD = 0, PTC__DEC_K_PAD, PTC__DEC_K_EXT, PTC__DEC_K_TSC, PTC__DEC_K_MTC, PTC__DEC_K_MODE,
    PTC__DEC_K_TRIG, PTC__DEC_K_CYC, PTC__DEC_K_TNT8, PTC__DEC_K_TIP, PTC__DEC_K_TIP_PGE,
    PTC__DEC_K_TIP_PGD, PTC__DEC_K_FUP, PTC__DEC_K_BAD_IPC
};

/* IP packet with IPBytes (bits 7:5) 101b or 111b */
#define PTC__DEC_IPC_RESERVED(b) ((((b) >> 5) & 7) == 5 || (((b) >> 5) & 7) == 7)
#define PTC__DEC_IP_FAMILY(b, k) (PTC__DEC_IPC_RESERVED(b) ? PTC__DEC_K_BAD_IPC : (k))
#define PTC__DEC_FIRST_CLASS(b) \
    ((b) == PTC_OP_PAD ? PTC__DEC_K_PAD : (b) == PTC_OP_EXT ? PTC__DEC_K_EXT : (b) == PTC_OP_TSC ? PTC__DEC_K_TSC : \
     (b) == PTC_OP_MTC ? PTC__DEC_K_MTC : (b) == PTC_OP_MODE ? PTC__DEC_K_MODE : (b) == PTC_OP_TRIG ? PTC__DEC_K_TRIG : \
     ((b) & PTC_OP_CYC_MASK) == PTC_OP_CYC ? PTC__DEC_K_CYC : ((b) & PTC_OP_TNT8_MASK) == PTC_OP_TNT8 ? PTC__DEC_K_TNT8 : \
     ((b) & PTC_OP_IP_MASK) == PTC_OP_TIP_PGD ? PTC__DEC_IP_FAMILY(b, PTC__DEC_K_TIP_PGD) : \
     ((b) & PTC_OP_IP_MASK) == PTC_OP_TIP ? PTC__DEC_IP_FAMILY(b, PTC__DEC_K_TIP) : \
     ((b) & PTC_OP_IP_MASK) == PTC_OP_TIP_PGE ? PTC__DEC_IP_FAMILY(b, PTC__DEC_K_TIP_PGE) : \
     ((b) & PTC_OP_IP_MASK) == PTC_OP_FUP ? PTC__DEC_IP_FAMILY(b, PTC__DEC_K_FUP) : PTC__DEC_K_BAD)

/* What the byte after PTC_OP_EXT says: a packet type, or 0 = bad opcode. PTW's
   reserved PayloadBytes values (2, 3) map to PTC__DEC_PTW_RESERVED. MNT sits
   behind a second escape (02 C3 88). */
#define PTC__DEC_PTW_RESERVED ((ptc_packet_type)(PTC_PACKET_TYPE_COUNT + 0))
#define PTC__DEC_MNT_ESCAPE ((ptc_packet_type)(PTC_PACKET_TYPE_COUNT + 1))
#define PTC__DEC_EXT_CLASS(b) \
    ((b) == PTC_EXT_PSB ? PTC_PSB : (b) == PTC_EXT_PSBEND ? PTC_PSBEND : (b) == PTC_EXT_OVF ? PTC_OVF : \
     (b) == PTC_EXT_CBR ? PTC_CBR : (b) == PTC_EXT_TMA ? PTC_TMA : (b) == PTC_EXT_PIP ? PTC_PIP : \
     (b) == PTC_EXT_VMCS ? PTC_VMCS : (b) == PTC_EXT_TNT64 ? PTC_TNT64 : (b) == PTC_EXT_STOP ? PTC_STOP : \
     (b) == PTC_EXT_MNT ? PTC__DEC_MNT_ESCAPE : ((b) & PTC_EXT_IP_BIT_MASK) == PTC_EXT_EXSTOP ? PTC_EXSTOP : \
     (b) == PTC_EXT_MWAIT ? PTC_MWAIT : (b) == PTC_EXT_PWRE ? PTC_PWRE : (b) == PTC_EXT_PWRX ? PTC_PWRX : \
     ((b) & PTC_EXT_PTW_MASK) == PTC_EXT_PTW ? ((((b) >> 5) & 3) >= 2 ? PTC__DEC_PTW_RESERVED : PTC_PTW) : \
     (b) == PTC_EXT_CFE ? PTC_CFE : (b) == PTC_EXT_EVD ? PTC_EVD : (b) == PTC_EXT_BBP ? PTC_BBP : \
     ((b) & PTC_EXT_IP_BIT_MASK) == PTC_EXT_BEP ? PTC_BEP : PTC_NONE)

#define PTC__DEC_R4(M, b) M(b), M((b) + 1), M((b) + 2), M((b) + 3)
#define PTC__DEC_R16(M, b) PTC__DEC_R4(M, b), PTC__DEC_R4(M, (b) + 4), PTC__DEC_R4(M, (b) + 8), PTC__DEC_R4(M, (b) + 12)
#define PTC__DEC_R64(M, b) PTC__DEC_R16(M, b), PTC__DEC_R16(M, (b) + 16), PTC__DEC_R16(M, (b) + 32), PTC__DEC_R16(M, (b) + 48)
#define PTC__DEC_R256(M) PTC__DEC_R64(M, 0), PTC__DEC_R64(M, 64), PTC__DEC_R64(M, 128), PTC__DEC_R64(M, 192)

static const uint8_t ptc__dec_first_class[256] = { PTC__DEC_R256(PTC__DEC_FIRST_CLASS) };
static const uint8_t ptc__dec_ext_class[256] = { PTC__DEC_R256(PTC__DEC_EXT_CLASS) };







static ptc_status ptc__dec_cyc(const uint8_t *buf, size_t len, ptc_packet *pkt)
{
    uint64_t v = buf[0] >> 3;
    size_t i;
    pkt->type = PTC_CYC;
    if (!(buf[0] & PTC_OP_CYC_MORE)) {
        pkt->size = 1;
        pkt->u.cyc.cycles = v;
        return PTC_OK;
    }
    if (len >= 9) {
        /* Up to 8 continuation bytes at once: find the first without the
           Exp bit, keep the 7 payload bits of each byte up to it, and
           squeeze the 7-bit groups together in three steps. */
        uint64_t x = ptc__byte_load64(buf + 1);
        uint64_t stops = ~x & UINT64_C(0x0101010101010101);
        if (stops) {
            uint64_t last = (stops & (~stops + 1)) << 7; /* top bit of the last byte */
            uint64_t g = (x >> 1) & UINT64_C(0x7F7F7F7F7F7F7F7F) & ((last - 1) | last);
            g = (g & UINT64_C(0x007F007F007F007F)) | ((g & UINT64_C(0x7F007F007F007F00)) >> 1);
            g = (g & UINT64_C(0x00003FFF00003FFF)) | ((g & UINT64_C(0x3FFF00003FFF0000)) >> 2);
            g = (g & UINT64_C(0x000000000FFFFFFF)) | ((g & UINT64_C(0x0FFFFFFF00000000)) >> 4);
            pkt->size = (uint8_t)(2 + ptc__math_msb(last) / 8);
            pkt->u.cyc.cycles = v | (g << 5);
            return PTC_OK;
        }
    }
    /* Byte i (i >= 1) carries cycle bits [5+7(i-1)+6 : 5+7(i-1)]. A 64-bit
       count needs at most 10 bytes, and byte 10 may only use its low 3
       payload bits (cycle bits 63:61). */
    for (i = 1; i < 10; i++) {
        uint8_t b;
        if (i >= len) return PTC_ERR_TRUNCATED;
        b = buf[i];
        if (i == 9 && ((b >> 4) != 0 || (b & PTC_OP_CYC_EXP))) return PTC_ERR_CYC_OVERFLOW;
        v |= (uint64_t)(b >> 1) << (5 + 7 * (i - 1));
        if (!(b & PTC_OP_CYC_EXP)) {
            pkt->size = (uint8_t)(i + 1);
            pkt->u.cyc.cycles = v;
            return PTC_OK;
        }
    }
    return PTC_ERR_CYC_OVERFLOW; /* not reached: i == 9 returns above */
}

static ptc_status ptc__dec_ext(const uint8_t *buf, size_t len, ptc_packet *pkt)
{
    unsigned k;
    uint8_t b1;
    if (len < 2) return PTC_ERR_TRUNCATED;
    b1 = buf[1];
    k = ptc__dec_ext_class[b1];
    switch (k) {
    case PTC_NONE: return PTC_ERR_BAD_OPCODE;
    case PTC__DEC_PTW_RESERVED: return PTC_ERR_RESERVED;
    case PTC_PSB: {
        size_t n = len < 16 ? len : 16;
        if (memcmp(buf, ptc__pkt_psb, n) != 0) return PTC_ERR_BAD_PSB;
        if (n < 16) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_PSB; pkt->size = 16;
        return PTC_OK;
    }
    case PTC__DEC_MNT_ESCAPE:
        if (len < 3) return PTC_ERR_TRUNCATED;
        if (buf[2] != PTC_EXT2_MNT) return PTC_ERR_BAD_OPCODE;
        if (len < 11) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_MNT; pkt->size = 11;
        pkt->u.mnt.payload = ptc__byte_load(buf + 3, 8);
        return PTC_OK;
    case PTC_PSBEND: case PTC_OVF: case PTC_STOP:
        pkt->type = (ptc_packet_type)k; pkt->size = 2;
        return PTC_OK;
    case PTC_EXSTOP:
        pkt->type = PTC_EXSTOP; pkt->size = 2; pkt->u.exstop.ip = (uint8_t)(b1 >> 7);
        return PTC_OK;
    case PTC_BEP:
        pkt->type = PTC_BEP; pkt->size = 2; pkt->u.bep.ip = (uint8_t)(b1 >> 7);
        return PTC_OK;
    case PTC_CBR:
        if (len < 4) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_CBR; pkt->size = 4;
        pkt->u.cbr.ratio = buf[2]; pkt->u.cbr.reserved = buf[3];
        return PTC_OK;
    case PTC_TMA:
        if (len < 7) return PTC_ERR_TRUNCATED;
        if (buf[4] != 0 || (buf[6] & 0xFE) != 0) return PTC_ERR_RESERVED;
        pkt->type = PTC_TMA; pkt->size = 7;
        pkt->u.tma.ctc = (uint16_t)ptc__byte_load(buf + 2, 2);
        pkt->u.tma.fc = (uint16_t)(buf[5] | ((buf[6] & 1u) << 8));
        return PTC_OK;
    case PTC_PIP: {
        uint64_t p;
        if (len < 8) return PTC_ERR_TRUNCATED;
        p = ptc__byte_load(buf + 2, 6);
        pkt->type = PTC_PIP; pkt->size = 8;
        pkt->u.pip.nr = (uint8_t)(p & 1);
        pkt->u.pip.cr3 = (p >> 1) << 5;
        return PTC_OK;
    }
    case PTC_VMCS:
        if (len < 7) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_VMCS; pkt->size = 7;
        pkt->u.vmcs.base = ptc__byte_load(buf + 2, 5) << 12;
        return PTC_OK;
    case PTC_TNT64: {
        uint64_t p;
        unsigned stop;
        if (len < 8) return PTC_ERR_TRUNCATED;
        p = ptc__byte_load(buf + 2, 6);
        if (p < 2) return PTC_ERR_EMPTY_TNT;
        stop = ptc__math_msb(p);
        pkt->type = PTC_TNT64; pkt->size = 8;
        pkt->u.tnt.count = (uint8_t)stop;
        pkt->u.tnt.bits = p & ((UINT64_C(1) << stop) - 1);
        return PTC_OK;
    }
    case PTC_MWAIT:
        if (len < 10) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_MWAIT; pkt->size = 10;
        pkt->u.mwait.hints = (uint32_t)ptc__byte_load(buf + 2, 4);
        pkt->u.mwait.ext = (uint32_t)ptc__byte_load(buf + 6, 4);
        return PTC_OK;
    case PTC_PWRE:
        if (len < 4) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_PWRE; pkt->size = 4;
        pkt->u.pwre.hw = (uint8_t)(buf[2] >> 7);
        pkt->u.pwre.reserved = (uint8_t)(buf[2] & 0x7F);
        pkt->u.pwre.state = (uint8_t)(buf[3] >> 4);
        pkt->u.pwre.sub_state = (uint8_t)(buf[3] & 0xF);
        return PTC_OK;
    case PTC_PWRX:
        if (len < 7) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_PWRX; pkt->size = 7;
        pkt->u.pwrx.deepest = (uint8_t)(buf[2] & 0xF);
        pkt->u.pwrx.last = (uint8_t)(buf[2] >> 4);
        pkt->u.pwrx.wake = (uint8_t)(buf[3] & 0xF);
        pkt->u.pwrx.reserved = (uint32_t)(buf[3] >> 4) | ((uint32_t)ptc__byte_load(buf + 4, 3) << 4);
        return PTC_OK;
    case PTC_PTW: {
        unsigned n = (b1 & PTC_EXT_PTW_8BYTES) ? 8u : 4u;
        if (len < 2 + (size_t)n) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_PTW; pkt->size = (uint8_t)(2 + n);
        pkt->u.ptw.bytes = (uint8_t)n;
        pkt->u.ptw.ip = (uint8_t)(b1 >> 7);
        pkt->u.ptw.payload = ptc__byte_load(buf + 2, n);
        return PTC_OK;
    }
    case PTC_CFE:
        if (len < 4) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_CFE; pkt->size = 4;
        pkt->u.cfe.ip = (uint8_t)(buf[2] >> 7);
        pkt->u.cfe.reserved = (uint8_t)((buf[2] >> 5) & 3);
        pkt->u.cfe.cfe_type = (uint8_t)(buf[2] & 0x1F);
        pkt->u.cfe.vector = buf[3];
        return PTC_OK;
    case PTC_EVD:
        if (len < 11) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_EVD; pkt->size = 11;
        pkt->u.evd.evd_type = (uint8_t)(buf[2] & 0x1F);
        pkt->u.evd.reserved = (uint8_t)(buf[2] >> 5);
        pkt->u.evd.payload = ptc__byte_load(buf + 3, 8);
        return PTC_OK;
    case PTC_BBP:
        if (len < 3) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_BBP; pkt->size = 3;
        pkt->u.bbp.sz = (uint8_t)(buf[2] >> 7);
        pkt->u.bbp.reserved = (uint8_t)((buf[2] >> 5) & 3);
        pkt->u.bbp.block_type = (uint8_t)(buf[2] & 0x1F);
        return PTC_OK;
    default:
        PTC_ASSERT(0);
        return PTC_ERR_BAD_OPCODE;
    }
}

/* The fast path: packets whose first byte alone fixes their size and
   whose fields are one constant byte, or one byte from byte 1, and one
   masked 64-bit load from byte 1 (PAD, TNT-8, TIP/TIP.PGE/TIP.PGD/FUP,
   MTC, TSC, 1-byte CYC: most of any trace). One table row per first byte
   replaces the type switch, so mixed streams cost no mispredicted branch:
       union byte 0  = small | (byte1 & small_mask)   (tnt.count, ip.ipc, mtc.ctc)
       u64 at voff   = (load64(byte 1) & vmask) | vconst
   written in this order (the u64 of TSC/CYC covers union byte 0). */
typedef struct ptc__dec_fast_row { uint8_t type, size, small, small_mask, voff; uint64_t vmask, vconst; } ptc__dec_fast_row;

#define PTC__DEC_IS_TNT8(b) (((b) & PTC_OP_TNT8_MASK) == PTC_OP_TNT8 && (b) != PTC_OP_PAD && (b) != PTC_OP_EXT)
/* a CYC of one byte */
#define PTC__DEC_IS_CYC1(b) (((b) & (PTC_OP_CYC_MASK | PTC_OP_CYC_MORE)) == PTC_OP_CYC)
#define PTC__DEC_IS_IP(b) (PTC__DEC_FIRST_CLASS_OF(b) >= PTC__DEC_K_TIP && PTC__DEC_FIRST_CLASS_OF(b) <= PTC__DEC_K_FUP)
#define PTC__DEC_FIRST_CLASS_OF(b) PTC__DEC_FIRST_CLASS(b)
#define PTC__DEC_MSB8(b) ((b) >= 128 ? 7 : (b) >= 64 ? 6 : (b) >= 32 ? 5 : (b) >= 16 ? 4 : (b) >= 8 ? 3 : (b) >= 4 ? 2 : 1)
#define PTC__DEC_IPC_BYTES(b) ((b) >> 5 == 6 ? 8 : (b) >> 5 == 0 ? 0 : (b) >> 5 <= 2 ? 2 * ((b) >> 5) : 6)
#define PTC__DEC_FAST_TYPE(b) \
    ((b) == PTC_OP_PAD ? (int)PTC_PAD : PTC__DEC_IS_TNT8(b) ? (int)PTC_TNT8 : (b) == PTC_OP_MTC ? (int)PTC_MTC : \
     (b) == PTC_OP_TSC ? (int)PTC_TSC : PTC__DEC_IS_CYC1(b) ? (int)PTC_CYC : \
     PTC__DEC_FIRST_CLASS_OF(b) == PTC__DEC_K_TIP ? (int)PTC_TIP : PTC__DEC_FIRST_CLASS_OF(b) == PTC__DEC_K_TIP_PGE ? (int)PTC_TIP_PGE : \
     PTC__DEC_FIRST_CLASS_OF(b) == PTC__DEC_K_TIP_PGD ? (int)PTC_TIP_PGD : PTC__DEC_FIRST_CLASS_OF(b) == PTC__DEC_K_FUP ? (int)PTC_FUP : 0)
#define PTC__DEC_FAST_SIZE(b) \
    (PTC__DEC_IS_IP(b) ? 1 + PTC__DEC_IPC_BYTES(b) : (b) == PTC_OP_MTC ? 2 : (b) == PTC_OP_TSC ? 8 : PTC__DEC_FAST_TYPE(b) ? 1 : 0)
#define PTC__DEC_FAST_SMALL(b) (PTC__DEC_IS_TNT8(b) ? PTC__DEC_MSB8(b) - 1 : PTC__DEC_IS_IP(b) ? (b) >> 5 : 0)
#define PTC__DEC_FAST_VOFF(b) \
    ((b) == PTC_OP_TSC || PTC__DEC_IS_CYC1(b) ? offsetof(ptc_packet, u.tsc.tsc) : offsetof(ptc_packet, u.ip.payload))
#define PTC__DEC_FAST_VMASK(b) \
    (PTC__DEC_IS_IP(b) ? (PTC__DEC_IPC_BYTES(b) == 8 ? ~UINT64_C(0) : PTC__DEC_IPC_BYTES(b) == 6 ? UINT64_C(0xFFFFFFFFFFFF) : \
                       PTC__DEC_IPC_BYTES(b) == 4 ? UINT64_C(0xFFFFFFFF) : PTC__DEC_IPC_BYTES(b) == 2 ? UINT64_C(0xFFFF) : 0) : \
     (b) == PTC_OP_TSC ? UINT64_C(0x00FFFFFFFFFFFFFF) : 0)
#define PTC__DEC_FAST_VCONST(b) \
    (PTC__DEC_IS_TNT8(b) ? (uint64_t)(((b) >> 1) & ((1u << (PTC__DEC_MSB8(b) - 1)) - 1)) : \
     PTC__DEC_IS_CYC1(b) ? (uint64_t)((b) >> 3) : 0)
#define PTC__DEC_FAST_ROW(b) \
    { (uint8_t)PTC__DEC_FAST_TYPE(b), (uint8_t)PTC__DEC_FAST_SIZE(b), (uint8_t)PTC__DEC_FAST_SMALL(b), \
      (uint8_t)((b) == PTC_OP_MTC ? 0xFF : 0), (uint8_t)PTC__DEC_FAST_VOFF(b), PTC__DEC_FAST_VMASK(b), PTC__DEC_FAST_VCONST(b) }

static const ptc__dec_fast_row ptc__dec_fast[256] = { PTC__DEC_R256(PTC__DEC_FAST_ROW) };

/* The fast path relies on these layouts: tnt and ip share their u64's
   offset, and tnt.count / ip.ipc / mtc.ctc are union byte 0. */
typedef char ptc__dec_layout_check[
    (offsetof(ptc_packet, u.tnt.bits) == offsetof(ptc_packet, u.ip.payload) &&
     offsetof(ptc_packet, u.tsc.tsc) == offsetof(ptc_packet, u.cyc.cycles) &&
     offsetof(ptc_packet, u.tsc.tsc) == offsetof(ptc_packet, u) &&
     offsetof(ptc_packet, u.tnt.count) == offsetof(ptc_packet, u) &&
     offsetof(ptc_packet, u.mtc.ctc) == offsetof(ptc_packet, u)) ? 1 : -1];

static ptc_status ptc__dec_slow(const uint8_t *buf, size_t len, ptc_block_ctx blk, ptc_packet *pkt)
{
    uint8_t b0 = buf[0];
    if (blk != PTC_BLOCK_NONE && (b0 & PTC_OP_BIP_MASK) == PTC_OP_BIP) {
        unsigned n = blk == PTC_BLOCK_4 ? 4u : 8u;
        if (len < 1 + (size_t)n) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_BIP; pkt->size = (uint8_t)(1 + n);
        pkt->u.bip.id = (uint8_t)(b0 >> 3);
        pkt->u.bip.bytes = (uint8_t)n;
        pkt->u.bip.value = ptc__byte_load(buf + 1, n);
        return PTC_OK;
    }
    switch (ptc__dec_first_class[b0]) {
    case PTC__DEC_K_PAD:
        pkt->type = PTC_PAD; pkt->size = 1;
        return PTC_OK;
    case PTC__DEC_K_TNT8: {
        unsigned stop = ptc__math_msb(b0); /* b0 >= 4 here: 0 and 2 have own classes */
        pkt->type = PTC_TNT8; pkt->size = 1;
        pkt->u.tnt.count = (uint8_t)(stop - 1);
        pkt->u.tnt.bits = (uint64_t)((b0 >> 1) & ((1u << (stop - 1)) - 1));
        return PTC_OK;
    }
    case PTC__DEC_K_CYC:
        pkt->type = PTC_CYC;
        return ptc__dec_cyc(buf, len, pkt);
    case PTC__DEC_K_TIP: case PTC__DEC_K_TIP_PGE: case PTC__DEC_K_TIP_PGD: case PTC__DEC_K_FUP: {
        static const ptc_packet_type types[4] = { PTC_TIP, PTC_TIP_PGE, PTC_TIP_PGD, PTC_FUP };
        unsigned ipc = b0 >> 5, n = ptc__pkt_ipc_bytes[ipc];
        if (len < 1 + (size_t)n) return PTC_ERR_TRUNCATED;
        pkt->type = types[ptc__dec_first_class[b0] - PTC__DEC_K_TIP];
        pkt->size = (uint8_t)(1 + n);
        pkt->u.ip.ipc = (uint8_t)ipc;
        pkt->u.ip.payload = ptc__byte_load(buf + 1, n);
        return PTC_OK;
    }
    case PTC__DEC_K_EXT:
        return ptc__dec_ext(buf, len, pkt);
    case PTC__DEC_K_MTC:
        if (len < 2) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_MTC; pkt->size = 2; pkt->u.mtc.ctc = buf[1];
        return PTC_OK;
    case PTC__DEC_K_TSC:
        if (len < 8) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_TSC; pkt->size = 8; pkt->u.tsc.tsc = ptc__byte_load(buf + 1, 7);
        return PTC_OK;
    case PTC__DEC_K_MODE: {
        uint8_t b1;
        if (len < 2) return PTC_ERR_TRUNCATED;
        b1 = buf[1];
        switch (b1 & 0xE0) {
        case PTC_MODE_LEAF_EXEC:
            pkt->type = PTC_MODE_EXEC; pkt->size = 2;
            pkt->u.mode_exec.csl = (uint8_t)(b1 & 1);
            pkt->u.mode_exec.csd = (uint8_t)((b1 >> 1) & 1);
            pkt->u.mode_exec.if_flag = (uint8_t)((b1 >> 2) & 1);
            pkt->u.mode_exec.reserved = (uint8_t)((b1 >> 3) & 3);
            return PTC_OK;
        case PTC_MODE_LEAF_TSX:
            pkt->type = PTC_MODE_TSX; pkt->size = 2;
            pkt->u.mode_tsx.intx = (uint8_t)(b1 & 1);
            pkt->u.mode_tsx.abrt = (uint8_t)((b1 >> 1) & 1);
            pkt->u.mode_tsx.reserved = (uint8_t)((b1 >> 2) & 7);
            return PTC_OK;
        default:
            return PTC_ERR_RESERVED;
        }
    }
    case PTC__DEC_K_TRIG: {
        uint8_t b1;
        size_t n;
        if (len < 2) return PTC_ERR_TRUNCATED;
        b1 = buf[1];
        n = (b1 & 0x40) ? 5 : 3;
        if (len < n) return PTC_ERR_TRUNCATED;
        pkt->type = PTC_TRIG; pkt->size = (uint8_t)n;
        pkt->u.trig.ip = (uint8_t)(b1 >> 7);
        pkt->u.trig.icntv = (uint8_t)((b1 >> 6) & 1);
        pkt->u.trig.mult = (uint8_t)((b1 >> 5) & 1);
        pkt->u.trig.reserved = (uint8_t)(b1 & 0x1F);
        pkt->u.trig.trbv = buf[2];
        if (n == 5) pkt->u.trig.icnt = (uint16_t)ptc__byte_load(buf + 3, 2);
        return PTC_OK;
    }
    case PTC__DEC_K_BAD_IPC:
        return PTC_ERR_BAD_IPBYTES;
    default:
        return PTC_ERR_BAD_OPCODE;
    }
}

/* Returns the packet's size (> 0) or an error status (< 0). Inlined into
   the stream decoder, so the size stays in a register: the position of the
   next packet depends on it, and that chain sets the decoder's speed. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((always_inline))
#endif
static inline int ptc__dec_packet(const uint8_t *buf, size_t len, ptc_block_ctx blk, ptc_packet *pkt)
{
    ptc_status st;
    if (PTC__LIKELY(len >= PTC_MAX_PACKET_SIZE && blk == PTC_BLOCK_NONE)) {
        const ptc__dec_fast_row *f = &ptc__dec_fast[buf[0]];
        if (PTC__LIKELY(f->type != 0)) {
            uint64_t v = (ptc__byte_load64(buf + 1) & f->vmask) | f->vconst;
            uint8_t small = (uint8_t)(f->small | (buf[1] & f->small_mask));
            memset(pkt, 0, sizeof *pkt);
            pkt->type = (ptc_packet_type)f->type;
            pkt->size = f->size;
            memcpy((char *)pkt + offsetof(ptc_packet, u), &small, 1);
            memcpy((char *)pkt + f->voff, &v, 8);
            return f->size;
        }
        /* A CYC of two bytes (up to 4095 cycles: most CYCs that do not fit
           one byte), which no table row can describe, without the slow
           path's call and ptc__dec_cyc's general continuation-byte
           decoding: about 1.7 times as fast on a stream of MTCs and CYCs
           (make bench, "packets only", sparse with CYC) */
        if ((buf[0] & PTC_OP_CYC_MASK) == PTC_OP_CYC && !(buf[1] & PTC_OP_CYC_EXP)) {
            memset(pkt, 0, sizeof *pkt);
            pkt->type = PTC_CYC;
            pkt->size = 2;
            pkt->u.cyc.cycles = (uint64_t)(buf[0] >> 3) | (uint64_t)(buf[1] >> 1) << 5;
            return 2;
        }
    }
    memset(pkt, 0, sizeof *pkt);
    if (len == 0) return PTC_ERR_TRUNCATED;
    st = ptc__dec_slow(buf, len, blk, pkt);
    return st == PTC_OK ? pkt->size : (int)st;
}

PTCDEF ptc_status ptc_decode_packet(const uint8_t *buf, size_t len,
                                    ptc_block_ctx blk, ptc_packet *pkt)
{
    int n;
    if (!pkt || (!buf && len)) return PTC_ERR_BAD_ARGUMENT;
    n = ptc__dec_packet(buf, len, blk, pkt);
    return n > 0 ? PTC_OK : (ptc_status)n;
}

/* ---- 1.8 Encoding -------------------------------------------------- */

/* Bytes of the shortest CYC holding `cycles`: 5 bits in the first byte,
   7 in each further one. */
static unsigned ptc__enc_cyc_size(uint64_t cycles)
{
    unsigned bits = cycles ? ptc__math_msb(cycles) + 1 : 1, n = 1;
    while (bits > 5 + 7 * (n - 1)) n++;
    return n;
}

/* Encodes into out (at least PTC_MAX_PACKET_SIZE bytes); returns the size
   or a negative status. */
static int ptc__enc_packet(const ptc_packet *pkt, uint8_t *out)
{
#define PTC__ENC_NEED(cond) do { if (!(cond)) return PTC_ERR_RANGE; } while (0)
    switch (pkt->type) {
    case PTC_PAD: out[0] = 0; return 1;
    case PTC_PSB: memcpy(out, ptc__pkt_psb, 16); return 16;
    case PTC_PSBEND: out[0] = PTC_OP_EXT; out[1] = PTC_EXT_PSBEND; return 2;
    case PTC_OVF: out[0] = PTC_OP_EXT; out[1] = PTC_EXT_OVF; return 2;
    case PTC_STOP: out[0] = PTC_OP_EXT; out[1] = PTC_EXT_STOP; return 2;
    case PTC_TNT8: {
        unsigned c = pkt->u.tnt.count;
        PTC__ENC_NEED(c >= 1 && c <= 6 && (pkt->u.tnt.bits >> c) == 0);
        out[0] = (uint8_t)((((1u << c) | (unsigned)pkt->u.tnt.bits)) << 1);
        return 1;
    }
    case PTC_TNT64: {
        unsigned c = pkt->u.tnt.count;
        PTC__ENC_NEED(c >= 1 && c <= 47 && (pkt->u.tnt.bits >> c) == 0);
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_TNT64;
        ptc__byte_store(out + 2, (UINT64_C(1) << c) | pkt->u.tnt.bits, 6);
        return 8;
    }
    case PTC_TIP: case PTC_TIP_PGE: case PTC_TIP_PGD: case PTC_FUP: {
        static const uint8_t base[] = { PTC_OP_TIP, PTC_OP_TIP_PGE, PTC_OP_TIP_PGD, PTC_OP_FUP };
        unsigned ipc = pkt->u.ip.ipc, n;
        PTC__ENC_NEED(ipc <= 7 && ipc != 5 && ipc != 7);
        n = ptc__pkt_ipc_bytes[ipc];
        PTC__ENC_NEED(n == 8 || (pkt->u.ip.payload >> (8 * n)) == 0);
        out[0] = (uint8_t)(base[pkt->type - PTC_TIP] | (ipc << 5));
        ptc__byte_store(out + 1, pkt->u.ip.payload, n);
        return (int)(1 + n);
    }
    case PTC_MODE_EXEC:
        PTC__ENC_NEED(pkt->u.mode_exec.csl <= 1 && pkt->u.mode_exec.csd <= 1 &&
                  pkt->u.mode_exec.if_flag <= 1 && pkt->u.mode_exec.reserved <= 3);
        out[0] = PTC_OP_MODE;
        out[1] = (uint8_t)(pkt->u.mode_exec.csl | (pkt->u.mode_exec.csd << 1) |
                           (pkt->u.mode_exec.if_flag << 2) | (pkt->u.mode_exec.reserved << 3));
        return 2;
    case PTC_MODE_TSX:
        PTC__ENC_NEED(pkt->u.mode_tsx.intx <= 1 && pkt->u.mode_tsx.abrt <= 1 &&
                  pkt->u.mode_tsx.reserved <= 7);
        out[0] = PTC_OP_MODE;
        out[1] = (uint8_t)(PTC_MODE_LEAF_TSX | pkt->u.mode_tsx.intx | (pkt->u.mode_tsx.abrt << 1) |
                           (pkt->u.mode_tsx.reserved << 2));
        return 2;
    case PTC_PIP:
        /* CR3 bits 51:5 travel; anything else would be silently lost. */
        PTC__ENC_NEED((pkt->u.pip.cr3 & ~UINT64_C(0x000FFFFFFFFFFFE0)) == 0 && pkt->u.pip.nr <= 1);
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_PIP;
        ptc__byte_store(out + 2, ((pkt->u.pip.cr3 >> 5) << 1) | pkt->u.pip.nr, 6);
        return 8;
    case PTC_VMCS:
        PTC__ENC_NEED((pkt->u.vmcs.base & ~UINT64_C(0x000FFFFFFFFFF000)) == 0);
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_VMCS;
        ptc__byte_store(out + 2, pkt->u.vmcs.base >> 12, 5);
        return 7;
    case PTC_TSC:
        PTC__ENC_NEED((pkt->u.tsc.tsc >> 56) == 0);
        out[0] = PTC_OP_TSC;
        ptc__byte_store(out + 1, pkt->u.tsc.tsc, 7);
        return 8;
    case PTC_TMA:
        PTC__ENC_NEED(pkt->u.tma.fc <= 0x1FF);
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_TMA;
        ptc__byte_store(out + 2, pkt->u.tma.ctc, 2);
        out[4] = 0;
        out[5] = (uint8_t)pkt->u.tma.fc;
        out[6] = (uint8_t)(pkt->u.tma.fc >> 8);
        return 7;
    case PTC_MTC: out[0] = PTC_OP_MTC; out[1] = pkt->u.mtc.ctc; return 2;
    case PTC_CYC: {
        uint64_t v = pkt->u.cyc.cycles;
        unsigned n = ptc__enc_cyc_size(v), i;
        if (pkt->size != 0) {
            /* An explicit size asks for that exact (possibly longer than
               necessary) encoding, so decoded packets re-encode exactly. */
            PTC__ENC_NEED(pkt->size >= n && pkt->size <= 10);
            n = pkt->size;
        }
        out[0] = (uint8_t)(PTC_OP_CYC | ((v & 0x1F) << 3) | (n > 1 ? PTC_OP_CYC_MORE : 0));
        v >>= 5;
        for (i = 1; i < n; i++) {
            out[i] = (uint8_t)(((v & 0x7F) << 1) | (i + 1 < n ? PTC_OP_CYC_EXP : 0));
            v >>= 7;
        }
        return (int)n;
    }
    case PTC_CBR:
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_CBR; out[2] = pkt->u.cbr.ratio; out[3] = pkt->u.cbr.reserved;
        return 4;
    case PTC_MNT:
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_MNT; out[2] = PTC_EXT2_MNT;
        ptc__byte_store(out + 3, pkt->u.mnt.payload, 8);
        return 11;
    case PTC_PTW: {
        unsigned n = pkt->u.ptw.bytes;
        PTC__ENC_NEED((n == 4 || n == 8) && pkt->u.ptw.ip <= 1);
        PTC__ENC_NEED(n == 8 || (pkt->u.ptw.payload >> 32) == 0);
        out[0] = PTC_OP_EXT;
        out[1] = (uint8_t)(PTC_EXT_PTW | (n == 8 ? PTC_EXT_PTW_8BYTES : 0) | (pkt->u.ptw.ip << 7));
        ptc__byte_store(out + 2, pkt->u.ptw.payload, n);
        return (int)(2 + n);
    }
    case PTC_EXSTOP:
        PTC__ENC_NEED(pkt->u.exstop.ip <= 1);
        out[0] = PTC_OP_EXT; out[1] = (uint8_t)(PTC_EXT_EXSTOP | (pkt->u.exstop.ip << 7));
        return 2;
    case PTC_MWAIT:
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_MWAIT;
        ptc__byte_store(out + 2, pkt->u.mwait.hints, 4);
        ptc__byte_store(out + 6, pkt->u.mwait.ext, 4);
        return 10;
    case PTC_PWRE:
        PTC__ENC_NEED(pkt->u.pwre.state <= 15 && pkt->u.pwre.sub_state <= 15 &&
                  pkt->u.pwre.hw <= 1 && pkt->u.pwre.reserved <= 0x7F);
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_PWRE;
        out[2] = (uint8_t)((pkt->u.pwre.hw << 7) | pkt->u.pwre.reserved);
        out[3] = (uint8_t)((pkt->u.pwre.state << 4) | pkt->u.pwre.sub_state);
        return 4;
    case PTC_PWRX:
        PTC__ENC_NEED(pkt->u.pwrx.last <= 15 && pkt->u.pwrx.deepest <= 15 &&
                  pkt->u.pwrx.wake <= 15 && pkt->u.pwrx.reserved <= 0x0FFFFFFF);
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_PWRX;
        out[2] = (uint8_t)((pkt->u.pwrx.last << 4) | pkt->u.pwrx.deepest);
        out[3] = (uint8_t)(((pkt->u.pwrx.reserved & 0xF) << 4) | pkt->u.pwrx.wake);
        ptc__byte_store(out + 4, pkt->u.pwrx.reserved >> 4, 3);
        return 7;
    case PTC_BBP:
        PTC__ENC_NEED(pkt->u.bbp.sz <= 1 && pkt->u.bbp.block_type <= 0x1F && pkt->u.bbp.reserved <= 3);
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_BBP;
        out[2] = (uint8_t)((pkt->u.bbp.sz << 7) | (pkt->u.bbp.reserved << 5) | pkt->u.bbp.block_type);
        return 3;
    case PTC_BIP: {
        unsigned n = pkt->u.bip.bytes;
        PTC__ENC_NEED((n == 4 || n == 8) && pkt->u.bip.id <= 0x1F);
        PTC__ENC_NEED(n == 8 || (pkt->u.bip.value >> 32) == 0);
        out[0] = (uint8_t)((pkt->u.bip.id << 3) | PTC_OP_BIP);
        ptc__byte_store(out + 1, pkt->u.bip.value, n);
        return (int)(1 + n);
    }
    case PTC_BEP:
        PTC__ENC_NEED(pkt->u.bep.ip <= 1);
        out[0] = PTC_OP_EXT; out[1] = (uint8_t)(PTC_EXT_BEP | (pkt->u.bep.ip << 7));
        return 2;
    case PTC_CFE:
        PTC__ENC_NEED(pkt->u.cfe.ip <= 1 && pkt->u.cfe.cfe_type <= 0x1F && pkt->u.cfe.reserved <= 3);
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_CFE;
        out[2] = (uint8_t)((pkt->u.cfe.ip << 7) | (pkt->u.cfe.reserved << 5) | pkt->u.cfe.cfe_type);
        out[3] = pkt->u.cfe.vector;
        return 4;
    case PTC_EVD:
        PTC__ENC_NEED(pkt->u.evd.evd_type <= 0x1F && pkt->u.evd.reserved <= 7);
        out[0] = PTC_OP_EXT; out[1] = PTC_EXT_EVD;
        out[2] = (uint8_t)((pkt->u.evd.reserved << 5) | pkt->u.evd.evd_type);
        ptc__byte_store(out + 3, pkt->u.evd.payload, 8);
        return 11;
    case PTC_TRIG:
        PTC__ENC_NEED(pkt->u.trig.ip <= 1 && pkt->u.trig.icntv <= 1 && pkt->u.trig.mult <= 1 &&
                  pkt->u.trig.reserved <= 0x1F);
        PTC__ENC_NEED(pkt->u.trig.icntv || pkt->u.trig.icnt == 0);
        out[0] = PTC_OP_TRIG;
        out[1] = (uint8_t)((pkt->u.trig.ip << 7) | (pkt->u.trig.icntv << 6) |
                           (pkt->u.trig.mult << 5) | pkt->u.trig.reserved);
        out[2] = pkt->u.trig.trbv;
        if (!pkt->u.trig.icntv) return 3;
        ptc__byte_store(out + 3, pkt->u.trig.icnt, 2);
        return 5;
    default:
        return PTC_ERR_BAD_TYPE;
    }
#undef PTC__ENC_NEED
}

PTCDEF ptc_status ptc_encode_packet(const ptc_packet *pkt, uint8_t *out,
                                    size_t cap, size_t *written)
{
    uint8_t tmp[PTC_MAX_PACKET_SIZE];
    int n;
    if (written) *written = 0;
    if (!pkt || (!out && cap)) return PTC_ERR_BAD_ARGUMENT;
    n = ptc__enc_packet(pkt, tmp);
    if (n < 0) return (ptc_status)n;
    if ((size_t)n > cap) return PTC_ERR_NO_SPACE;
    memcpy(out, tmp, (size_t)n);
    if (written) *written = (size_t)n;
    return PTC_OK;
}

/* Equal packets are the ones with the same bytes: the encoder is exact
   (SPEC 1.8), so this compares every field of the type and nothing else,
   and the knowledge of which fields a type has stays in one place. */
PTCDEF int ptc_packet_equal(const ptc_packet *a, const ptc_packet *b)
{
    uint8_t ea[PTC_MAX_PACKET_SIZE], eb[PTC_MAX_PACKET_SIZE];
    int na, nb;
    if (a->type != b->type || a->size != b->size) return 0;
    na = ptc__enc_packet(a, ea);
    nb = ptc__enc_packet(b, eb);
    if (na < 0 || nb < 0) return na == nb && memcmp(a, b, sizeof *a) == 0;
    return na == nb && memcmp(ea, eb, (size_t)na) == 0;
}

/* ---- 1.9 Stream decoding ------------------------------------------- */

PTCDEF void ptc_decoder_init(ptc_decoder *dec, unsigned flags, uint64_t base_offset)
{
    memset(dec, 0, sizeof *dec);
    dec->flags = flags;
    dec->chunk_off = dec->pos = dec->start_off = base_offset;
    dec->searching = !(flags & PTC_DECODE_NO_SYNC);
    dec->synced_once = !dec->searching;
    dec->end_off = UINT64_MAX;
}

/* The chunk is used up: forget it, keeping its offset for the next one. */
static void ptc__str_retire_chunk(ptc_decoder *dec)
{
    dec->chunk_off += dec->chunk_len;
    dec->chunk_len = 0;
    dec->chunk = NULL;
}

PTCDEF ptc_status ptc_decoder_feed(ptc_decoder *dec, const uint8_t *buf, size_t len)
{
    if (!dec || (!buf && len)) return PTC_ERR_BAD_ARGUMENT;
    if (dec->pos >= dec->chunk_off && dec->pos == dec->chunk_off + dec->chunk_len)
        ptc__str_retire_chunk(dec);
    if (dec->finished || dec->chunk_len != 0) return PTC_ERR_BAD_STATE;
    dec->chunk = buf;
    dec->chunk_len = len;
    return PTC_OK;
}

PTCDEF void ptc_decoder_finish(ptc_decoder *dec) { dec->finished = 1; }

PTCDEF void ptc_decoder_init_buffer(ptc_decoder *dec, unsigned flags,
                                    const uint8_t *buf, size_t len)
{
    ptc_decoder_init(dec, flags, 0);
    (void)ptc_decoder_feed(dec, buf, len);
    ptc_decoder_finish(dec);
}

/* Moves pos forward by n bytes, keeping the carry invariant. */
static void ptc__str_advance(ptc_decoder *dec, size_t n)
{
    dec->pos += n;
    if (dec->pos < dec->chunk_off) {
        size_t keep = (size_t)(dec->chunk_off - dec->pos);
        memmove(dec->carry, dec->carry + (dec->carry_len - keep), keep);
        dec->carry_len = keep;
    } else {
        dec->carry_len = 0;
    }
}

/* The bytes [pos, end of chunk) cannot be judged yet (a packet, or a PSB
   that may begin inside it, is cut by the chunk's end): keep them and ask
   for more input. */
static ptc_status ptc__str_wait_for_input(ptc_decoder *dec, const uint8_t *p, size_t avail)
{
    PTC_ASSERT(avail < sizeof dec->carry);
    memmove(dec->carry, p, avail);
    dec->carry_len = avail;
    ptc__str_retire_chunk(dec);
    PTC_ASSERT(dec->chunk_off - dec->pos == avail);
    return PTC_NEED_INPUT;
}

/* How the bytes at p compare with a PSB. */
enum { PTC__STR_PSB_NO, PTC__STR_PSB_PARTIAL, PTC__STR_PSB_FULL };
static int ptc__str_psb_match(const uint8_t *p, size_t avail, int finished)
{
    size_t n = avail < 16 ? avail : 16;
    if (memcmp(p, ptc__pkt_psb, n) != 0) return PTC__STR_PSB_NO;
    if (n < 16) return PTC__STR_PSB_PARTIAL;
    /* In a run of more than eight 02 82 pairs the PSB is the last 16
       bytes: hardware never writes 02 82 after a PSB, so the pairs before
       it are the end of an earlier packet (an IP or PTW payload, say).
       libipt's sync picks the same PSB. Telling needs two more bytes. */
    if (avail >= 18) return (p[16] == PTC_OP_EXT && p[17] == PTC_EXT_PSB) ? PTC__STR_PSB_NO : PTC__STR_PSB_FULL;
    if (avail == 17 && p[16] != PTC_OP_EXT) return PTC__STR_PSB_FULL;
    return finished ? PTC__STR_PSB_FULL : PTC__STR_PSB_PARTIAL;
}

/* First PSB (full, or partial at the very end) in p[0..avail). Returns its
   index, or avail when there is none; *kind tells which. */
static size_t ptc__str_psb_find(const uint8_t *p, size_t avail, int finished, int *kind)
{
    size_t i = 0;
    while (i < avail) {
        const uint8_t *q = (const uint8_t *)memchr(p + i, PTC_OP_EXT, avail - i);
        int m;
        if (!q) break;
        i = (size_t)(q - p);
        m = ptc__str_psb_match(q, avail - i, finished);
        if (m != PTC__STR_PSB_NO) { *kind = m; return i; }
        i++;
    }
    *kind = PTC__STR_PSB_NO;
    return avail;
}

/* Whether a PSB may begin inside the packet of n bytes at p (n < avail):
   then the packet's last byte and the byte after it are both PSB pattern.
   A cheap test for the fast path; ptc__str_psb_inside decides. */
static int ptc__str_psb_hint(const uint8_t *p, size_t n)
{
    /* one of them PTC_OP_EXT, the other PTC_EXT_PSB (they differ in one
       bit); no branch on the hot path */
    return ((p[n - 1] ^ p[n]) == (PTC_OP_EXT ^ PTC_EXT_PSB)) &
           ((p[n] & ~(PTC_OP_EXT ^ PTC_EXT_PSB)) == PTC_OP_EXT);
}

/* Whether a PSB (by the rule of ptc__str_psb_match) begins inside the packet
   of n bytes at p: returns PTC__STR_PSB_FULL if one does, PTC__STR_PSB_PARTIAL if
   more input is needed to tell, else PTC__STR_PSB_NO. In a valid stream no
   packet but a PSB is longer than 11 bytes, so the bytes after a packet
   that overlaps a complete PSB can never be valid packets: the packet
   itself is damage (a flipped IPBytes field, say) that would otherwise
   carry the decoder past the PSB it should resume at. */
static int ptc__str_psb_inside(const uint8_t *p, size_t avail, size_t n, int finished)
{
    size_t j;
    for (j = 1; j < n; j++) {
        int m;
        if (p[j] != PTC_OP_EXT) continue;
        m = ptc__str_psb_match(p + j, avail - j, finished);
        if (m == PTC__STR_PSB_FULL || (m == PTC__STR_PSB_PARTIAL && !finished)) return m;
    }
    return PTC__STR_PSB_NO;
}


/* Bits of the last IP that an IP packet keeps, by IPBytes (§1.5). */
#define PTC__STR_IPC_KEEP(c) \
    ((c) == PTC_IPC_UPDATE_16 ? ~UINT64_C(0xFFFF) : (c) == PTC_IPC_UPDATE_32 ? ~UINT64_C(0xFFFFFFFF) : \
     (c) == PTC_IPC_UPDATE_48 ? ~UINT64_C(0xFFFFFFFFFFFF) : (c) == PTC_IPC_SEXT_48 || (c) == PTC_IPC_FULL ? 0 : ~UINT64_C(0))
static const uint64_t ptc__str_ipc_keep[8] = {
    PTC__STR_IPC_KEEP(0), PTC__STR_IPC_KEEP(1), PTC__STR_IPC_KEEP(2), PTC__STR_IPC_KEEP(3),
    PTC__STR_IPC_KEEP(4), PTC__STR_IPC_KEEP(5), PTC__STR_IPC_KEEP(6), PTC__STR_IPC_KEEP(7)
};

/* Last-IP decompression. A packet that is not an IP packet leaves the
   last IP alone and has none: it returns at once. (A branchless version,
   masking such packets to the "suppressed" case, made every packet load
   and store the last IP, a dependency from packet to packet. Without it
   the real traces and the sparse stream decode faster and bench_decode's
   dense mix, where IP packets come at random, slower: bench/README.md.) */
static void ptc__str_track_ip(ptc_decoder *dec, ptc_item *item, unsigned classes)
{
    uint64_t payload, keep, sext, ip;
    uint8_t ipc8;
    unsigned ipc;
    if (!(classes & PTC_PC_IP)) {
        item->ip = 0;
        item->ip_known = 0;
        return;
    }
    memcpy(&ipc8, (const char *)&item->pkt + offsetof(ptc_packet, u.ip.ipc), 1);
    memcpy(&payload, (const char *)&item->pkt + offsetof(ptc_packet, u.ip.payload), 8);
    ipc = ipc8 & 7u;
    keep = ptc__str_ipc_keep[ipc];
    sext = (uint64_t)0 - ((payload >> 47) & (uint64_t)(ipc == PTC_IPC_SEXT_48));
    ip = (dec->last_ip & keep) | payload | (sext & ~UINT64_C(0xFFFFFFFFFFFF));
    dec->last_ip = ip;
    dec->last_ip_known |= ~keep;
    item->ip = ip & ((uint64_t)0 - (uint64_t)(ipc != 0));
    item->ip_known = (uint8_t)(ipc != 0 && dec->last_ip_known == ~UINT64_C(0));
}

/* Bookkeeping that follows every decoded packet. */
static void ptc__str_account(ptc_decoder *dec, ptc_item *item)
{
    unsigned classes = ptc__pkt_facts_of[item->pkt.type].classes;
    ptc__str_track_ip(dec, item, classes);
    if (PTC__UNLIKELY((classes & PTC_PC_DEC_STATE) || dec->block != PTC_BLOCK_NONE)) {
        if (item->pkt.type == PTC_PSB) {
            /* The SDM resets the last IP to zero at every PSB: IPs after it
               are full or compressed against zero. */
            dec->last_ip = 0;
            dec->last_ip_known = ~UINT64_C(0);
        }
        dec->block = ptc_block_ctx_after(dec->block, &item->pkt);
    }
}

static void ptc__str_report_error(ptc_item *item, uint64_t offset, ptc_status error)
{
    memset(item, 0, sizeof *item);
    item->offset = offset;
    item->error = error;
}

/* Erratum SKD007 (PTC_DECODE_SKD007): an OVF can take the place of a
   multi-byte CYC's bytes after its first. That first byte and the OVF's
   02 then read as a 2-byte CYC (of 32 to 63 cycles), and the OVF's F3 as
   a CYC of 30. A whole pair of such CYCs reads the same (one timing a
   TNT's first branch, one before the next packet); told of the erratum,
   the decoder takes the bytes to be the erratum, as libipt's does (SPEC
   1.9 rule 5). 1: the CYC of n bytes at p is cut; 0: it is not; -1: the
   byte after it is needed. */
static int ptc__str_cyc_cut(const ptc_decoder *dec, const uint8_t *p, size_t avail, size_t n, ptc_packet_type t)
{
    if (!(dec->flags & PTC_DECODE_SKD007) || t != PTC_CYC || n != 2 || p[1] != PTC_OP_EXT) return 0;
    if (avail == n) return dec->finished ? 0 : -1;
    return p[n] == PTC_EXT_OVF;
}

/* Erratum SKZ84 (PTC_DECODE_SKZ84): in a VMX guest with TSC offsetting
   or scaling a TMA's CTC and FastCounter can be corrupt, and a bogus byte
   follows it. Only a corruption that sets the TMA's reserved bits can be
   seen; told of the erratum, the decoder (as libipt's) takes such a TMA
   and the byte after it for one corrupt packet of 8 bytes. The size of
   the corrupt TMA at p (whose decoding found reserved bits set), 0 when
   it is not one, -1 when the bogus byte is still to come. */
static int ptc__str_corrupt_tma(const ptc_decoder *dec, const uint8_t *p, size_t avail, ptc_status st)
{
    if (!(dec->flags & PTC_DECODE_SKZ84) || st != PTC_ERR_RESERVED || p[0] != PTC_OP_EXT || p[1] != PTC_EXT_TMA)
        return 0;
    if (avail < 8) return dec->finished ? (int)avail : -1; /* (the input's end takes the byte's place) */
    return 8;
}

/* The packet at p, with avail >= 16 bytes of the chunk from it, when the
   fast paths (ptc_decoder_next's, the events decoder's) may take it:
   decoded, with no PSB beginning inside it and no CYC that erratum SKD007
   may have cut. Its size, or 0: the general path decides. */
static PTC__INLINE int ptc__str_fast_packet(const ptc_decoder *dec, const uint8_t *p, size_t avail, ptc_packet *pkt)
{
    int n = ptc__dec_packet(p, avail, dec->block, pkt);
    /* (only a PSB fills all 16 bytes, so after any other packet the next
       byte is in the chunk) */
    if (PTC__LIKELY(n > 0) && PTC__LIKELY(n == PTC_MAX_PACKET_SIZE || !ptc__str_psb_hint(p, (size_t)n)) &&
        PTC__LIKELY(!ptc__str_cyc_cut(dec, p, avail, (size_t)n, pkt->type)))
        return n;
    return 0;
}

/* Everything but the common case: chunk edges, sync search, errors. */
static ptc_status ptc__str_next_general(ptc_decoder *dec, ptc_item *item)
{
    uint8_t window[2 * sizeof dec->carry];
    for (;;) {
        const uint8_t *p;
        size_t avail;
        int in_carry = dec->pos < dec->chunk_off;
        if (dec->done) return PTC_END;
        if (in_carry) {
            /* The bytes at pos straddle two chunks: join the carried bytes
               and the start of this chunk. sizeof carry bytes from pos are
               always enough to judge a packet and a PSB inside it. */
            size_t head = dec->chunk_len < sizeof dec->carry ? dec->chunk_len : sizeof dec->carry;
            memcpy(window, dec->carry, dec->carry_len);
            if (head) memcpy(window + dec->carry_len, dec->chunk, head);
            p = window;
            avail = dec->carry_len + head;
        } else {
            size_t at = (size_t)(dec->pos - dec->chunk_off);
            avail = dec->chunk_len - at;
            /* no pointer arithmetic on a chunk with nothing left: it may be NULL */
            p = avail ? dec->chunk + at : NULL;
        }
        if (avail == 0) {
            ptc__str_retire_chunk(dec);
            if (!dec->finished) return PTC_NEED_INPUT;
            dec->done = 1;
            if (!dec->synced_once && dec->pos > dec->start_off) {
                ptc__str_report_error(item, dec->start_off, PTC_ERR_NO_PSB);
                return PTC_OK;
            }
            return PTC_END;
        }
        if (dec->searching) {
            int kind;
            /* In the carried bytes, look at one position at a time; in the
               chunk itself, scan it all. */
            size_t at = in_carry ? 0 : ptc__str_psb_find(p, avail, dec->finished, &kind);
            if (in_carry) kind = ptc__str_psb_match(p, avail, dec->finished);
            if (kind == PTC__STR_PSB_FULL) {
                ptc__str_advance(dec, at);
                dec->searching = 0;
                dec->synced_once = 1;
                continue;
            }
            if (kind == PTC__STR_PSB_PARTIAL && !dec->finished) {
                ptc__str_advance(dec, at);
                return ptc__str_wait_for_input(dec, p + at, avail - at);
            }
            /* No PSB begins here (a partial one at the very end of the input
               can never complete). */
            ptc__str_advance(dec, in_carry ? 1 : avail);
            continue;
        } else {
            int n = ptc__dec_packet(p, avail, dec->block, &item->pkt);
            ptc_status st = n > 0 ? PTC_OK : (ptc_status)n;
            int cut = st == PTC_OK ? ptc__str_cyc_cut(dec, p, avail, (size_t)n, item->pkt.type) : 0, corrupt;
            if (cut < 0) return ptc__str_wait_for_input(dec, p, avail);
            if (cut) { /* the OVF is next, at the byte after the CYC's first */
                ptc__str_report_error(item, dec->pos, PTC_ERR_CUT_CYC);
                ptc__str_advance(dec, 1);
                return PTC_OK;
            }
            if (st == PTC_OK && item->pkt.type != PTC_PSB) {
                int inside = ptc__str_psb_inside(p, avail, (size_t)n, dec->finished);
                if (inside == PTC__STR_PSB_PARTIAL) return ptc__str_wait_for_input(dec, p, avail);
                if (inside == PTC__STR_PSB_FULL) st = PTC_ERR_PSB_OVERLAP;
            }
            if (st == PTC_OK) {
                item->offset = dec->pos;
                item->error = PTC_OK;
                ptc__str_account(dec, item);
                ptc__str_advance(dec, (size_t)n);
                return PTC_OK;
            }
            if ((corrupt = ptc__str_corrupt_tma(dec, p, avail, st)) != 0) {
                int inside = corrupt > 0 ? ptc__str_psb_inside(p, avail, (size_t)corrupt, dec->finished) : 0;
                if (corrupt < 0 || inside == PTC__STR_PSB_PARTIAL) return ptc__str_wait_for_input(dec, p, avail);
                if (inside == PTC__STR_PSB_NO) {
                    ptc__str_report_error(item, dec->pos, PTC_ERR_CORRUPT_TMA);
                    ptc__str_advance(dec, (size_t)corrupt);
                    return PTC_OK;
                }
                st = PTC_ERR_PSB_OVERLAP; /* the 8 bytes run into a PSB: resync there (rule 2) */
            }
            if (st == PTC_ERR_TRUNCATED) {
                if (!dec->finished) return ptc__str_wait_for_input(dec, p, avail);
                ptc__str_report_error(item, dec->pos, st);
                ptc__str_advance(dec, avail);
                return PTC_OK;
            }
            /* Malformed: report it, then look for the next PSB after it. */
            ptc__str_report_error(item, dec->pos, st);
            dec->searching = 1;
            dec->block = PTC_BLOCK_NONE;
            ptc__str_advance(dec, 1);
            return PTC_OK;
        }
    }
}

/* A segment's end is reached (SPEC 1.13): nothing more is reported. The
   decoder is left searching with no input, so that no path reads on. */
static ptc_status ptc__str_end_segment(ptc_decoder *dec)
{
    dec->done = 1;
    dec->searching = 1;
    dec->finished = 1;
    dec->chunk = NULL;
    dec->chunk_len = 0;
    dec->chunk_off = dec->pos;
    dec->carry_len = 0;
    return PTC_END;
}

PTCDEF ptc_status ptc_decoder_next(ptc_decoder *dec, ptc_item *item)
{
    ptc_status st;
    if (!dec || !item) return PTC_ERR_BAD_ARGUMENT;
    /* The common case: decoding (not searching), inside the current chunk
       and before a segment's end, with a whole packet's worth of bytes
       ahead. (Kept here rather than in a function of its own: the call
       cost the checker's loop a tenth of its speed, make bench.) */
    if (PTC__LIKELY(!dec->searching && dec->pos >= dec->chunk_off && dec->pos < dec->end_off)) {
        size_t at = (size_t)(dec->pos - dec->chunk_off);
        if (PTC__LIKELY(dec->chunk_len - at >= PTC_MAX_PACKET_SIZE)) {
            int n = ptc__str_fast_packet(dec, dec->chunk + at, dec->chunk_len - at, &item->pkt);
            if (PTC__LIKELY(n > 0)) {
                item->offset = dec->pos;
                item->error = PTC_OK;
                ptc__str_account(dec, item);
                dec->pos += (size_t)n;
                return PTC_OK;
            }
        }
    }
    st = ptc__str_next_general(dec, item);
    if (PTC__UNLIKELY(st == PTC_OK && item->offset >= dec->end_off)) return ptc__str_end_segment(dec);
    return st;
}

/* ---- 1.12 Batch decoding ------------------------------------------- */

typedef char ptc__bat_layout_check[(sizeof(ptc_record) == 32 &&
                                    offsetof(ptc_record, bytes) + 16 == sizeof(ptc_record)) ? 1 : -1];

/* value and info of a record, from the packet (and its IP) */
static void ptc__bat_fields(ptc_record *rec, const ptc_item *item)
{
    const ptc_packet *pkt = &item->pkt;
    unsigned classes = ptc__pkt_facts_of[pkt->type].classes;
    if (classes & PTC_PC_TNT) {
        rec->value = pkt->u.tnt.bits;
        rec->info = pkt->u.tnt.count;
    } else if (classes & PTC_PC_IP) {
        rec->value = item->ip;
        rec->info = (uint8_t)(pkt->u.ip.ipc | (item->ip_known ? PTC_RECORD_IP_KNOWN : 0u));
    } else if (pkt->type == PTC_TSC) {
        rec->value = pkt->u.tsc.tsc;
    } else if (pkt->type == PTC_CYC) {
        rec->value = pkt->u.cyc.cycles;
    } else if (pkt->type == PTC_MTC) {
        rec->info = pkt->u.mtc.ctc;
    }
}

/* The record of an item from ptc_decoder_next(). Its bytes come from the
   chunk it was decoded in when they all lie there (the caller's buffer is
   still valid: this call has not returned), else from encoding the packet
   again, which gives its exact bytes (SPEC 1.8). */
static void ptc__bat_from_item(ptc_record *rec, const ptc_item *item, ptc_block_ctx block,
                               const uint8_t *chunk, uint64_t chunk_off, size_t chunk_len)
{
    memset(rec, 0, sizeof *rec);
    rec->offset = item->offset;
    rec->error = (int8_t)item->error;
    if (item->error != PTC_OK) return;
    rec->type = (uint8_t)item->pkt.type;
    rec->size = item->pkt.size;
    rec->block = (uint8_t)block;
    ptc__bat_fields(rec, item);
    if (chunk && item->offset >= chunk_off && item->offset - chunk_off + item->pkt.size <= chunk_len) {
        size_t at = (size_t)(item->offset - chunk_off);
        memcpy(rec->bytes, chunk + at, item->pkt.size < sizeof rec->bytes ? item->pkt.size : sizeof rec->bytes);
    } else {
        uint8_t enc[PTC_MAX_PACKET_SIZE];
        size_t n = 0;
        if (ptc_encode_packet(&item->pkt, enc, sizeof enc, &n) == PTC_OK)
            memcpy(rec->bytes, enc, n < sizeof rec->bytes ? n : sizeof rec->bytes);
    }
}

/* What a fast-table packet does to the last IP, by its first byte, so
   that the hot loop takes IP packets and the others down one path with no
   branch on the type (dense traces mix TNTs and TIPs at random, and a
   branch there mispredicts):
       last IP = (last IP & keep) | (v & ip) | (sign bits when sext)
       value   = (v & ~ip) | (last IP & gives)
   with v the packet's u64 from its ptc__dec_fast row. Not an IP packet:
   keep all, ip and gives 0; IPBytes 0: keep all, gives 0. */
typedef struct ptc__bat_ip_row { uint64_t keep, ip, gives; uint64_t sext; } ptc__bat_ip_row;
#define PTC__BAT_IP_ROW(b) \
    { PTC__DEC_IS_IP(b) ? PTC__STR_IPC_KEEP((b) >> 5) : ~UINT64_C(0), PTC__DEC_IS_IP(b) ? ~UINT64_C(0) : 0, \
      PTC__DEC_IS_IP(b) && (b) >> 5 != PTC_IPC_SUPPRESSED ? ~UINT64_C(0) : 0, \
      PTC__DEC_IS_IP(b) && (b) >> 5 == PTC_IPC_SEXT_48 ? 1u : 0u }
static const ptc__bat_ip_row ptc__bat_ip[256] = { PTC__DEC_R256(PTC__BAT_IP_ROW) };

/* One packet of the fast table (ptc__dec_fast), or a CYC of two bytes,
   at p, with a whole packet's worth of bytes from p in the chunk, outside
   PEBS blocks: its type (0 when it is none of them, or a PSB may begin
   inside it, or it is a CYC that erratum SKD007 may have cut: the general
   path decides), *size, and *value and *info as a record has them; an IP
   packet updates *last_ip and *known. These packets change the decoder's
   state in nothing but the last IP (none has PTC_PC_DEC_STATE), so what
   this gives equals ptc_decoder_next's item. The batch loop and the flow
   decoder's reading (9.3) share it. */
static PTC__INLINE uint8_t ptc__bat_fast_one(const uint8_t *p, unsigned flags, uint64_t *last_ip, uint64_t *known,
                                              uint64_t *value, uint8_t *info, uint8_t *size)
{
    const ptc__dec_fast_row *f = &ptc__dec_fast[p[0]];
    const ptc__bat_ip_row *ipr = &ptc__bat_ip[p[0]];
    uint64_t v, sext;
    uint8_t in, type = f->type, n = f->size;
    if (type != 0) {
        v = (ptc__byte_load64(p + 1) & f->vmask) | f->vconst;
        in = (uint8_t)(f->small | (p[1] & f->small_mask));
    } else if ((p[0] & PTC_OP_CYC_MASK) == PTC_OP_CYC && !(p[1] & PTC_OP_CYC_EXP) &&
               !((flags & PTC_DECODE_SKD007) && p[1] == PTC_OP_EXT)) {
        /* a CYC of two bytes, as ptc__dec_packet reads it (most CYCs of a
           trace with CYC on); one that erratum SKD007 may have cut goes to
           ptc_decoder_next */
        type = PTC_CYC;
        n = 2;
        v = (uint64_t)(p[0] >> 3) | (uint64_t)(p[1] >> 1) << 5;
        in = 0;
    } else {
        return 0;
    }
    if (ptc__str_psb_hint(p, n)) return 0;
    /* ptc__str_track_ip, with no branch (ptc__bat_ip_row) */
    sext = ((uint64_t)0 - ((v >> 47) & ipr->sext)) & ~UINT64_C(0xFFFFFFFFFFFF);
    *last_ip = (*last_ip & ipr->keep) | (v & ipr->ip) | sext;
    *known |= ~ipr->keep;
    *value = (v & ~ipr->ip) | (*last_ip & ipr->gives);
    *info = (uint8_t)(in | (PTC_RECORD_IP_KNOWN & (0u - (unsigned)((ipr->gives & 1) && *known == ~UINT64_C(0)))));
    *size = n;
    return type;
}

/* Where the fast packets may be read: decoding (not searching), inside
   the current chunk with a whole packet's worth of bytes ahead, outside
   PEBS blocks. The first byte there, or NULL. */
static PTC__INLINE const uint8_t *ptc__bat_fast_at(const ptc_decoder *dec)
{
    if (dec->searching || dec->pos < dec->chunk_off || dec->block != PTC_BLOCK_NONE || dec->pos >= dec->end_off ||
        dec->chunk_len - (size_t)(dec->pos - dec->chunk_off) < PTC_MAX_PACKET_SIZE)
        return NULL;
    return dec->chunk + (size_t)(dec->pos - dec->chunk_off);
}

/* The hot loop: fast packets (ptc__bat_fast_one) one after another. It
   keeps the position and the last IP in registers and stops at the first
   packet it cannot take, which ptc_decoder_next() then reads: each record
   equals the item ptc_decoder_next() would give. Returns the records
   written. */
static size_t ptc__bat_fast(ptc_decoder *dec, ptc_record *recs, size_t cap)
{
    const uint8_t *p = ptc__bat_fast_at(dec), *last;
    uint64_t last_ip = dec->last_ip, known = dec->last_ip_known;
    ptc_record *rec = recs, *rec_end = recs + cap;
    unsigned flags = dec->flags; /* (read once: the records' stores might alias it) */
    if (!p) return 0;
    last = dec->chunk + (dec->chunk_len - PTC_MAX_PACKET_SIZE); /* the last byte with 16 bytes from it on */
    while (rec < rec_end && p <= last) {
        uint64_t v;
        uint8_t info, size, type = ptc__bat_fast_one(p, flags, &last_ip, &known, &v, &info, &size);
        if (!type) break;
        /* 16 bytes: the packet's (and unspecified ones after it), then the
           five fields after bytes[], written next */
        memcpy(rec->bytes, p, PTC_MAX_PACKET_SIZE);
        rec->offset = dec->chunk_off + (uint64_t)(p - dec->chunk);
        rec->value = v;
        rec->type = type;
        rec->size = size;
        rec->info = info;
        rec->block = PTC_BLOCK_NONE;
        rec->error = PTC_OK;
        p += size;
        rec++;
    }
    dec->pos = dec->chunk_off + (uint64_t)(p - dec->chunk);
    dec->last_ip = last_ip;
    dec->last_ip_known = known;
    return (size_t)(rec - recs);
}

PTCDEF ptc_status ptc_decoder_next_batch(ptc_decoder *dec, ptc_record *recs, size_t cap, size_t *count)
{
    size_t n = 0;
    if (count) *count = 0;
    if (!dec || !recs || !count || cap == 0) return PTC_ERR_BAD_ARGUMENT;
    for (;;) {
        ptc_item item;
        ptc_block_ctx block = dec->block;
        const uint8_t *chunk = dec->chunk;
        uint64_t chunk_off = dec->chunk_off;
        size_t chunk_len = dec->chunk_len;
        ptc_status st;
        n += ptc__bat_fast(dec, recs + n, cap - n);
        if (n == cap) break;
        st = ptc_decoder_next(dec, &item);
        if (st != PTC_OK) {
            *count = n;
            return st;
        }
        ptc__bat_from_item(&recs[n++], &item, block, chunk, chunk_off, chunk_len);
        if (n == cap) break;
    }
    *count = n;
    return PTC_OK;
}

PTCDEF ptc_status ptc_record_packet(const ptc_record *rec, ptc_packet *pkt)
{
    if (!rec || !pkt || rec->error != PTC_OK || rec->type == PTC_NONE) return PTC_ERR_BAD_ARGUMENT;
    if (rec->type == PTC_PSB) {
        memset(pkt, 0, sizeof *pkt);
        pkt->type = PTC_PSB;
        pkt->size = PTC_MAX_PACKET_SIZE;
        return PTC_OK;
    }
    if (rec->size > sizeof rec->bytes) return PTC_ERR_BAD_ARGUMENT;
    return ptc_decode_packet(rec->bytes, rec->size, (ptc_block_ctx)rec->block, pkt);
}

PTCDEF ptc_status ptc_record_item(const ptc_record *rec, ptc_item *item)
{
    ptc_status st;
    if (!rec || !item) return PTC_ERR_BAD_ARGUMENT;
    memset(item, 0, sizeof *item);
    item->offset = rec->offset;
    item->error = (ptc_status)rec->error;
    if (rec->error != PTC_OK) return PTC_OK;
    st = ptc_record_packet(rec, &item->pkt);
    if (st != PTC_OK) return st;
    if (ptc_packet_is_ip(item->pkt.type)) {
        item->ip = rec->value;
        item->ip_known = (uint8_t)((rec->info & PTC_RECORD_IP_KNOWN) != 0);
    }
    return PTC_OK;
}

/* ---- 1.13 Segments ------------------------------------------------- */

/* A PSB that no run of 02 82 pairs goes into from before. The decoder
   stops at every such PSB: either a packet ends right before it, or the
   packet that runs into it is a psb_overlap (SPEC 1.9 rule 2), or a
   search after an error finds it first, and then the PSB resets the last
   IP and the block context. A PSB that ends a longer run is not one: the
   decoder may read the run's first 16 bytes as a PSB that covers it. */
PTCDEF size_t ptc_segment_next(const uint8_t *buf, size_t len, size_t from)
{
    if (!buf) return len;
    while (from < len) {
        int kind;
        size_t at = from + ptc__str_psb_find(buf + from, len - from, 1, &kind);
        if (kind != PTC__STR_PSB_FULL) return len;
        if (at < 2 || buf[at - 2] != PTC_OP_EXT || buf[at - 1] != PTC_EXT_PSB) return at;
        from = at + 1;
    }
    return len;
}

/* How far past a segment's end the decoder must see: the PSB there. With
   no input after it, the decoder takes those 16 bytes for a PSB whatever
   would follow (SPEC 1.9 rule 1), as decoding the whole trace does (the
   PSB starts a segment). No packet before the end reaches further: it
   would run into that PSB. */
#define PTC__SEG_LOOK_AHEAD PTC_MAX_PACKET_SIZE

PTCDEF ptc_status ptc_decoder_init_segment(ptc_decoder *dec, unsigned flags, const uint8_t *buf, size_t len,
                                           size_t start, size_t end)
{
    size_t stop;
    if (!dec || (!buf && len) || start > end || end > len) return PTC_ERR_BAD_ARGUMENT;
    if ((start != 0 && ptc_segment_next(buf, len, start) != start) ||
        (end != len && ptc_segment_next(buf, len, end) != end))
        return PTC_ERR_BAD_ARGUMENT;
    stop = len - end > PTC__SEG_LOOK_AHEAD ? end + PTC__SEG_LOOK_AHEAD : len;
    ptc_decoder_init(dec, flags, start);
    if (end < len) dec->end_off = end;
    (void)ptc_decoder_feed(dec, buf ? buf + start : NULL, stop - start);
    ptc_decoder_finish(dec);
    return PTC_OK;
}

/* ---- 2. MTC suppression and the policy checker ---------------------- */

PTCDEF void ptc_mtc_policy_default(ptc_mtc_policy *p)
{
    memset(p, 0, sizeof *p);
    p->threshold = 2;
    p->resume_after = 255;
    p->min_burst = 2;
}


PTCDEF void ptc_checker_init(ptc_checker *c, const ptc_mtc_policy *policy)
{
    memset(c, 0, sizeof *c);
    if (policy) c->policy = *policy;
    c->need = c->policy.threshold;
}

PTCDEF int ptc_checker_packet(ptc_checker *c, const ptc_packet *pkt)
{
    const ptc_mtc_policy *pol = &c->policy;
    ptc_rule v = PTC_RULE_NONE;
    unsigned gap, k, i;
    int resumed = 0;
    if (ptc_packet_is_ntp(pkt->type)) {
        c->run = 0;
        c->need = pol->threshold;
        c->ntp_since_mtc = 1;
        return v;
    }
    if (pkt->type != PTC_MTC) return v;
    if (!c->have_mtc || c->ntp_since_mtc) {
        /* across a non-timing packet any gap is allowed: suppression may
           have run up to it, and the edge after it is emitted */
        c->have_mtc = 1;
        c->run = 1;
        c->need = pol->threshold;
        c->last_payload = pkt->u.mtc.ctc;
        c->ntp_since_mtc = 0;
        return v;
    }
    gap = (unsigned)(uint8_t)(pkt->u.mtc.ctc - c->last_payload);
    if (gap == 0) gap = 256; /* two MTCs are at least one period apart */
    k = gap - 1;             /* MTC periods with no MTC */
    if (!pol->threshold || c->run < c->need) {
        if (k) v = PTC_RULE_MISSING_MTC;
    } else if (k == 0) {
        /* suppression was due: only a resume value lets this one through */
        if (pol->resume_on_value && pkt->u.mtc.ctc == pol->resume_value) resumed = 1;
        else v = PTC_RULE_MTC_NOT_SUPPRESSED;
    } else {
        int by_value = pol->resume_on_value && pkt->u.mtc.ctc == pol->resume_value;
        int by_count = pol->resume_after && k == pol->resume_after;
        resumed = 1;
        for (i = 1; i <= k; i++)
            if (pol->resume_on_value && (uint8_t)(c->last_payload + i) == pol->resume_value) v = PTC_RULE_LATE_RESUME;
        if (v == PTC_RULE_NONE && pol->resume_after && k > pol->resume_after) v = PTC_RULE_GAP_TOO_LONG;
        if (v == PTC_RULE_NONE && !by_value && !by_count) v = PTC_RULE_EARLY_RESUME;
    }
    if (resumed) {
        c->run = 1;
        c->need = pol->threshold > pol->min_burst ? pol->threshold : pol->min_burst;
    } else {
        c->run++;
    }
    c->last_payload = pkt->u.mtc.ctc;
    if (v != PTC_RULE_NONE) c->violations++;
    return (int)v;
}

/* ---- 3. Clock recovery ---------------------------------------------- */

#define PTC__CLK_NOPOS UINT64_MAX

enum {
    PTC__CLK_ANCHOR = 1,    /* TSC, TMA or MTC with a known interval of its own */
    PTC__CLK_NTP = 2,       /* a non-timing packet (SPEC 2.1) */
    PTC__CLK_STOP = 4,      /* TSC, CBR, OVF, error: the clocks may have stopped here */
    PTC__CLK_FINAL = 8,
    PTC__CLK_PSB = 16,      /* in a PSB+, before its TSC */
    PTC__CLK_MTC = 32,      /* an MTC anchor */
    PTC__CLK_EXACT = 64,    /* at a CYC point: pos_lo == pos_hi */
    PTC__CLK_CONFLICT = 128, /* its bounds were empty */
    PTC__CLK_NEAR = 256,     /* CYC-eligible, no CYC since the last anchor: likely right after it */
    PTC__CLK_SAMPLED = 512,  /* a TSC sampled inside its PSB+ before it went out, and what goes with it */
    PTC__CLK_TNT = 1024,     /* a TNT: its time is its first branch's, before it went out */
    PTC__CLK_FIRST_BRANCH = 2048, /* a TNT with no CYC right before it: its first branch is
                                    after the non-timing packet before it, but maybe before
                                    the timing packets (MTC, CYC) in between */
    PTC__CLK_LONE_CYC = 4096, /* a CYC with another CYC right after it: no packet of its
                                own, so most likely a TNT's first branch */
    PTC__CLK_UNPINNED = 8192, /* a CYC before an OVF, a PSB or the end: a clock stop the
                                 trace does not show may lie on either side of it, so its
                                 cycles bound it only as cycles add time (SPEC 3.5) */
    PTC__CLK_AT_TSC = 16384,  /* a TSC, and what goes with it: the packet says its time */
    PTC__CLK_AT_START = 32768 /* the point goes at the start of its position range, as
                                 libipt's and perf's do (SPEC 3.7): a CYC-eligible packet
                                 with no CYC right before it while the threshold is unknown
                                 (a small one, as those in use), a CBR without a TSC (most
                                 likely sent with what came before) */
};

PTCDEF uint32_t ptc_errata_for_cpu(unsigned family, unsigned model, unsigned stepping)
{
    /* by CPUID family and model, as libipt's pt_errata selects them (no
       erratum here depends on the stepping) */
    enum {
        SKL = PTC_ERRATUM_BDM70 | PTC_ERRATUM_SKD007 | PTC_ERRATUM_SKD010 | PTC_ERRATUM_SKL168 | PTC_ERRATUM_SKL014,
        SKX = PTC_ERRATUM_BDM70 | PTC_ERRATUM_SKZ84,
        SKX14 = SKX | PTC_ERRATUM_SKL014,
        CNL = PTC_ERRATUM_BDM70 | PTC_ERRATUM_SKL014,
        ICL = PTC_ERRATUM_BDM70 | PTC_ERRATUM_APL11
    };
    static const struct { uint8_t family, model; uint32_t errata; } cpus[] = {
        { 6, 0x3d, PTC_ERRATUM_BDM70 }, { 6, 0x47, PTC_ERRATUM_BDM70 }, { 6, 0x4f, PTC_ERRATUM_BDM70 },
        { 6, 0x56, PTC_ERRATUM_BDM70 },
        { 6, 0x4e, SKL }, { 6, 0x5e, SKL }, { 6, 0x8e, SKL }, { 6, 0x9e, SKL }, { 6, 0xa5, SKL }, { 6, 0xa6, SKL },
        { 6, 0x55, SKX14 }, { 6, 0x6a, SKX14 }, { 6, 0x6c, SKX14 }, { 6, 0x8f, SKX }, { 6, 0xcf, SKX }, { 6, 0xad, SKX },
        { 6, 0xae, SKX }, { 19, 0x01, SKX },
        { 6, 0x66, CNL }, { 6, 0x7d, CNL }, { 6, 0x7e, CNL }, { 6, 0x8c, CNL }, { 6, 0x8d, CNL }, { 6, 0xa7, CNL },
        { 6, 0xa8, CNL },
        { 6, 0x97, ICL }, { 6, 0x9a, ICL }, { 6, 0xba, ICL }, { 6, 0xb7, ICL }, { 6, 0xbf, ICL }, { 6, 0xc5, ICL },
        { 6, 0xc6, ICL }, { 6, 0xb5, ICL }, { 6, 0xaa, ICL }, { 6, 0xac, ICL }, { 6, 0xbd, ICL }, { 6, 0xcc, ICL },
        { 6, 0xd5, ICL }, { 18, 0x01, ICL }, { 18, 0x03, ICL },
        { 6, 0x5c, PTC_ERRATUM_APL11 }, { 6, 0x5f, PTC_ERRATUM_APL11 }, { 6, 0x7a, PTC_ERRATUM_APL11 },
        { 6, 0x86, PTC_ERRATUM_APL11 }, { 6, 0x96, PTC_ERRATUM_APL11 }, { 6, 0x9c, PTC_ERRATUM_APL11 },
        { 6, 0xb6, PTC_ERRATUM_APL11 }, { 6, 0xaf, PTC_ERRATUM_APL11 }, { 6, 0xdd, PTC_ERRATUM_APL11 }
    };
    size_t i;
    (void)stepping;
    for (i = 0; i < sizeof cpus / sizeof cpus[0]; i++)
        if (cpus[i].family == family && cpus[i].model == model) return cpus[i].errata;
    return 0;
}

PTCDEF unsigned ptc_errata_decode_flags(uint32_t errata)
{
    return ((errata & PTC_ERRATUM_SKD007) ? PTC_DECODE_SKD007 : 0u) | ((errata & PTC_ERRATUM_SKZ84) ? PTC_DECODE_SKZ84 : 0u);
}

PTCDEF uint32_t ptc_erratum_from_name(const char *name)
{
    if (!name) return 0;
#define PTC__X(e, bit, n, what) if (strcmp(name, n) == 0) return e;
    PTC_ERRATA_LIST(PTC__X)
#undef PTC__X
    return 0;
}

PTCDEF const char *ptc_erratum_name(uint32_t erratum)
{
    switch (erratum) {
#define PTC__X(e, bit, n, what) case e: return n;
    PTC_ERRATA_LIST(PTC__X)
#undef PTC__X
    default: return "unknown_erratum";
    }
}

PTCDEF const char *ptc_erratum_effect(uint32_t erratum)
{
    switch (erratum) {
#define PTC__X(e, bit, n, what) case e: return what;
    PTC_ERRATA_LIST(PTC__X)
#undef PTC__X
    default: return "not a ptcodec erratum";
    }
}

/* (a function, so that no comparison is always true for a field's type) */
static int ptc__trace_in_range(uint64_t v, uint64_t least, uint64_t most) { return v >= least && v <= most; }

PTCDEF const char *ptc_trace_config_error(const ptc_trace_config *t)
{
    unsigned i;
    if (!t) return "trace";
#define PTC__X(key, field, least, most) if (!ptc__trace_in_range(t->field, least, most)) return key;
    PTC_TRACE_CONFIG_FIELDS(PTC__X)
#undef PTC__X
    if ((t->ratios.cpuid_15_eax == 0) != (t->ratios.cpuid_15_ebx == 0)) return "cpuid_0x15_eax";
    if (t->ratios.nom_num && !t->ratios.nom_den) return "nom_den";
    if (t->filters.count > 4) return "filter";
    for (i = 0; i < t->filters.count; i++)
        if (t->filters.lo[i] >= t->filters.hi[i]) return "filter";
    if (t->errata & ~(uint32_t)PTC_ERRATA_ALL_) return "errata";
    if (t->known & ~(uint32_t)PTC_KNOW_ALL) return "known";
    return NULL;
}

/* Whether ip is inside one of the filter ranges, or no range is set
   (FilterEn, SDM 36.2.5.5): the model's packet enables and the flow
   decoder's erratum SKL014 ask it. */
static PTC__INLINE int ptc__trace_filter_en(const ptc_ip_filters *filters, uint64_t ip)
{
    unsigned i;
    if (!filters->count) return 1;
    for (i = 0; i < filters->count; i++)
        if (ip >= filters->lo[i] && ip < filters->hi[i]) return 1;
    return 0;
}

/* The CYC mode as the clock, the events decoder and navigation read it, in
   their private copy of the configuration: an unknown CycEn is on (what the
   CYCs in the trace show), an unknown CycThresh is PTC__CYC_THRESH_UNKNOWN
   (the CYCs seen bound it, SPEC 3.5 rule 4), and width 0 is 64. */
#define PTC__CYC_THRESH_UNKNOWN 0xFF
static void ptc__trace_cyc_view(ptc_trace_config *t)
{
    if (!(t->known & PTC_KNOW_CYC_EN)) t->ctl.cyc_en = 1;
    if (!(t->known & PTC_KNOW_CYC_THRESH)) t->ctl.cyc_thresh = PTC__CYC_THRESH_UNKNOWN;
    if (!t->cyc_bits) t->cyc_bits = 64;
}

PTCDEF void ptc_clock_config_default(ptc_clock_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->trace.known = PTC_KNOW_MTC_FREQ | PTC_KNOW_POLICY; /* policy all zero: no suppression */
    cfg->trace.cyc_bits = 32;
    cfg->resume_on_ntp = 1;
    cfg->real.mtc_jitter = PTC_CLOCK_HW_MTC_JITTER;
    cfg->real.psb_early_tsc = 1;
    cfg->real.rate_ppm = PTC_CLOCK_HW_RATE_PPM;
    cfg->real.mtc_lost = PTC_CLOCK_HW_MTC_LOST;
    cfg->real.hidden_stops = 1;
}

PTCDEF void ptc_clock_config_sdm(ptc_clock_config *cfg)
{
    ptc_clock_config_default(cfg);
    memset(&cfg->real, 0, sizeof cfg->real);
}

/* The rate's wobble (rate_ppm) around nom, the average: x scaled by
   (10^6 -+ rate_ppm) / 10^6 (a stretch at the wobble's extreme, from one
   at nom), rounded outwards. */
static PTC__INLINE uint64_t ptc__clk_wobble(const ptc__clk_rate *r, uint64_t x, int up)
{
    if (!r->rate_ppm || x == UINT64_MAX) return x;
    return ptc__math_muldiv_by(&r->ppm_div, x, up ? 1000000 + (uint64_t)r->rate_ppm : 1000000 - (uint64_t)r->rate_ppm, up);
}

/* The other way: x scaled by 10^6 / (10^6 -+ rate_ppm) (what at nom takes
   as long as x at the wobble's extreme), rounded outwards. */
static uint64_t ptc__clk_unwobble(const ptc__clk_rate *r, uint64_t x, int up)
{
    if (!r->rate_ppm || x == UINT64_MAX) return x;
    return ptc__math_muldiv(x, 1000000, up ? 1000000 - (uint64_t)r->rate_ppm : 1000000 + (uint64_t)r->rate_ppm, up);
}

/* TSC ticks in `cycles` core cycles: at least (the slowest rate nom and
   its wobble allow, rounded down) or at most (the fastest, rounded up).
   Rate = nom / CBR; without a CBR yet, any ratio 1..255. */
static PTC__INLINE uint64_t ptc__clk_cyc_ticks(const ptc__clk_rate *r, uint64_t cycles, uint8_t cbr, int fastest)
{
    uint64_t n = fastest ? r->nom_hi_n : r->nom_lo_n, d = fastest ? r->nom_hi_d : r->nom_lo_d, t;
    uint64_t ratio = cbr ? cbr : fastest ? 1 : 255;
    if (!cycles || !n) return 0;
    if (cbr && cbr == r->cbr && r->tick_div_ok)
        return ptc__clk_wobble(r, ptc__math_muldiv_by(&r->tick_div[fastest != 0], cycles, n, fastest), fastest);
    /* cycles * n / (d * ratio), rounded: one division where d * ratio
       fits (rounding twice, by d then by the ratio, gives the same) */
    if (d <= UINT64_MAX / 256) return ptc__clk_wobble(r, ptc__math_muldiv(cycles, n, d * ratio, fastest), fastest);
    t = ptc__math_muldiv(cycles, n, d, fastest);
    if (t == UINT64_MAX) return t;
    return ptc__clk_wobble(r, fastest ? (t + ratio - 1) / ratio : t / ratio, fastest);
}

/* TSC ticks in `art` ART ticks (ebx/eax each), rounded down or up. */
static uint64_t ptc__clk_art_ticks(const ptc__clk_rate *r, uint64_t art, int up)
{
    return ptc__math_muldiv_by(&r->art_div, art, r->ebx, up);
}

/* Bounds of the TSC at the ART edge art_rel ticks after the TMA's edge. */
static uint64_t ptc__clk_edge(const ptc__clk_rate *r, const ptc__clk_ctc *k, uint64_t art_rel, int hi)
{
    uint64_t q = ptc__clk_art_ticks(r, art_rel, hi);
    return ptc__math_sat_add(k->base_tsc, hi ? ptc__math_sat_add(q, 1) : q);
}

/* The most TSC ticks by which an MTC packet follows its edge: within the
   cycle of the edge, plus the cycles the core may take to see it. */
static uint64_t ptc__clk_mtc_lag(const ptc__clk_rate *r)
{
    return ptc__clk_cyc_ticks(r, 1 + (uint64_t)r->mtc_jitter, r->cbr, 1);
}

/* The CBR or nom's range changed: the divisors that convert cycles to
   ticks at this CBR, and the MTCs' lag. */
static void ptc__clk_rate_set(ptc__clk_rate *r)
{
    r->tick_div_ok = r->cbr && r->nom_lo_d <= UINT64_MAX / 256 && r->nom_hi_d <= UINT64_MAX / 256;
    if (r->tick_div_ok) {
        ptc__math_divider_init(&r->tick_div[0], r->nom_lo_d * r->cbr);
        ptc__math_divider_init(&r->tick_div[1], r->nom_hi_d * r->cbr);
    }
    r->mtc_lag = ptc__clk_mtc_lag(r);
}

/* A configuration the clock can work with (SPEC 3.1). */
static int ptc__clk_config_ok(const ptc_clock_config *cfg)
{
    return !ptc_trace_config_error(&cfg->trace) && cfg->real.rate_ppm < 1000000;
}

/* cfg as the clock reads it: the CYC mode's view (ptc__trace_cyc_view),
   nom in lowest terms (its products must fit) and SKL168's lost MTC
   counted; 0 when an inexact nom is too large to double. */
static int ptc__clk_config_reduce(ptc_clock_config *c)
{
    ptc_tsc_ratios *r = &c->trace.ratios;
    ptc__trace_cyc_view(&c->trace);
    if ((c->trace.errata & PTC_ERRATUM_SKL168) && !c->real.mtc_lost) c->real.mtc_lost = 1;
    if (r->nom_num) {
        uint64_t g = ptc__math_gcd(r->nom_num, r->nom_den);
        r->nom_num /= g;
        r->nom_den /= g;
    }
    return !r->nom_num || r->nom_exact || (r->nom_num <= UINT64_MAX / 4 && r->nom_den <= UINT64_MAX / 4);
}

/* Half an MTC period in TSC ticks, rounded up; 0 without MTC timing. */
static uint64_t ptc__clk_half_period(const ptc_clock_config *cfg)
{
    if (!cfg->trace.ratios.cpuid_15_eax) return 0;
    return (((uint64_t)cfg->trace.ratios.cpuid_15_ebx << cfg->trace.ctl.mtc_freq) + 2 * (uint64_t)cfg->trace.ratios.cpuid_15_eax - 1) /
           (2 * (uint64_t)cfg->trace.ratios.cpuid_15_eax);
}

/* The next MTC due, before the first packet. */
static void ptc__clk_due_init(ptc__clk_due *due, const ptc_clock_config *cfg)
{
    ptc_checker_init(&due->chk, &cfg->trace.policy);
    due->half_period = ptc__clk_half_period(cfg);
}

/* nom's range from a reduced configuration, and the fixed divisors. */
static void ptc__clk_rate_init(ptc__clk_rate *r, const ptc_clock_config *cfg)
{
    memset(r, 0, sizeof *r);
    r->rate_ppm = cfg->real.rate_ppm;
    r->ebx = cfg->trace.ratios.cpuid_15_ebx;
    r->mtc_jitter = cfg->real.mtc_jitter;
    ptc__math_divider_init(&r->art_div, cfg->trace.ratios.cpuid_15_eax ? cfg->trace.ratios.cpuid_15_eax : 1);
    ptc__math_divider_init(&r->ppm_div, 1000000);
    if (!cfg->trace.ratios.nom_num) { /* only what the 8-bit MSR field allows: 0 < nom < 255.5 */
        r->nom_lo_n = 0;
        r->nom_lo_d = 1;
        r->nom_hi_n = 511;
        r->nom_hi_d = 2;
    } else if (cfg->trace.ratios.nom_exact) { /* (the average rate: ptc__clk_wobble bounds the rest) */
        r->nom_lo_n = r->nom_hi_n = cfg->trace.ratios.nom_num;
        r->nom_lo_d = r->nom_hi_d = cfg->trace.ratios.nom_den;
    } else { /* the MSR holds it rounded: nom -+ 1/2 */
        r->nom_lo_n = 2 * cfg->trace.ratios.nom_num > cfg->trace.ratios.nom_den ? 2 * cfg->trace.ratios.nom_num - cfg->trace.ratios.nom_den : 0;
        r->nom_hi_n = 2 * cfg->trace.ratios.nom_num + cfg->trace.ratios.nom_den;
        r->nom_lo_d = r->nom_hi_d = 2 * cfg->trace.ratios.nom_den;
    }
    ptc__clk_rate_set(r);
}

/* ART ticks from the last MTC edge (or from the TMA's) to the edge of
   the MTC with payload p, MTCFreq n; k->valid drops when p cannot follow
   the TMA. */
static PTC__INLINE uint64_t ptc__clk_mtc_step(ptc__clk_ctc *k, unsigned n, uint8_t p)
{
    uint64_t step;
    if (!k->after_tma) { /* at least one period since the last MTC: equal payloads are 256 */
        step = (uint64_t)(uint8_t)(p - k->last_payload);
        return (step ? step : 256) << n;
    }
    k->after_tma = 0;
    /* (an MTC at the TMA's own instant is possible: the TMA read the CTC
       just as it reached the edge - step 0) */
    if (n <= 8) /* the TMA holds CTC[N+7:N]: the first edge is exact */
        return (((uint64_t)p << n) - k->base_low) & ((UINT64_C(1) << (n + 8)) - 1);
    {   /* not all of them: the first edge after the TMA, if it fits */
        uint64_t lowmask = (UINT64_C(1) << (16 - n)) - 1, below = k->base_low & ((UINT64_C(1) << n) - 1);
        if (!below && ((uint64_t)(k->base_low >> n) & lowmask) == (p & lowmask)) return 0;
        step = (UINT64_C(1) << n) - below;
        if ((((uint64_t)(k->base_low >> n) + 1) & lowmask) != (p & lowmask)) k->valid = 0;
        return step;
    }
}

/* An MTC with payload p moves the last edge on (SPEC 3.3): 1 when its
   edge is known, in k->art_rel; the step it took in *step. */
static PTC__INLINE int ptc__clk_ctc_mtc(ptc__clk_ctc *k, unsigned n, uint8_t p, uint64_t *step)
{
    if (!k->valid) return 0;
    *step = ptc__clk_mtc_step(k, n, p);
    if (!k->valid) return 0;
    k->art_rel += *step;
    k->last_payload = p;
    k->have_mtc = 1;
    return 1;
}

/* A TMA after the TSC `tsc` with FastCounter fc and CTC ctc: the base. */
static void ptc__clk_ctc_tma(ptc__clk_ctc *k, uint64_t tsc, uint16_t ctc, uint16_t fc)
{
    k->valid = 1;
    k->base_tsc = tsc - fc; /* TSC at the CTC edge (SDM) */
    k->base_low = ctc;
    k->art_rel = 0;
    k->after_tma = 1;
    k->have_mtc = 0;
}

/* The TSC's 56 bits v extended to 64 against the last one, `last` (have:
   there was one). */
static uint64_t ptc__clk_tsc_extend(uint64_t last, int have, uint64_t v)
{
    const uint64_t m56 = (UINT64_C(1) << 56) - 1;
    uint64_t full = v;
    if (have) {
        full = (last & ~m56) | v;
        if (full + (UINT64_C(1) << 55) < last) full += UINT64_C(1) << 56;
    }
    return full;
}

static ptc__clk_entry *ptc__clk_at(ptc_clock *c, size_t i) { return &c->win.ring[(c->win.head + i) % PTC_CLOCK_WINDOW]; }

/* The CBR or nom's range changed: what depends on them only. Whether
   the configured nom still lies in the range the trace allows (the points
   use it then, SPEC 3.7), and the rate's own divisors. */
static void ptc__clk_rate_changed(ptc_clock *c)
{
    c->slope.nom_cfg_inside = c->cfg.trace.ratios.nom_num && c->cfg.trace.ratios.nom_den <= UINT64_MAX / 256 &&
                        !ptc__math_frac_less(c->cfg.trace.ratios.nom_num, c->cfg.trace.ratios.nom_den, c->rate.nom_lo_n, c->rate.nom_lo_d) &&
                        !ptc__math_frac_less(c->rate.nom_hi_n, c->rate.nom_hi_d, c->cfg.trace.ratios.nom_num, c->cfg.trace.ratios.nom_den);
    ptc__clk_rate_set(&c->rate);
    if (c->slope.nom_cfg_inside && c->rate.cbr) ptc__math_divider_init(&c->slope.guess_div, c->cfg.trace.ratios.nom_den * c->rate.cbr);
}

PTCDEF ptc_status ptc_clock_init(ptc_clock *c, const ptc_clock_config *cfg)
{
    if (!c || !cfg) return PTC_ERR_BAD_ARGUMENT;
    if (!ptc__clk_config_ok(cfg)) return PTC_ERR_BAD_CONFIG;
    memset(c, 0, sizeof *c);
    c->cfg = *cfg;
    if (!ptc__clk_config_reduce(&c->cfg)) return PTC_ERR_BAD_CONFIG;
    c->at.cyc_min_eligible = UINT64_MAX;
    ptc__clk_due_init(&c->due, &c->cfg);
    ptc__clk_rate_init(&c->rate, &c->cfg);
    ptc__clk_rate_changed(c);
    return PTC_OK;
}

/* The clock may have stopped, or packets were lost: cycle counts no longer
   relate to the time before. Entries and anchors carry their epoch, so
   cycle bounds never cross one; the last anchor of the old epoch still
   serves the entries of that epoch that are not final yet. */
static void ptc__clk_break(ptc_clock *c)
{
    c->at.epoch++;
    c->at.active = 0;
}

/* The cycles within which a CYC-eligible packet with no CYC right before
   it came after the last CYC position (SPEC 3.5 rule 4): 2^(T-1) for
   threshold T (1 for 0); with the threshold unknown, the fewest cycles a
   CYC right before such a packet carried (each carried at least 2^(T-1)),
   UINT64_MAX before one was seen. */
static uint64_t ptc__clk_thresh_window(const ptc_clock *c)
{
    if (c->cfg.trace.ctl.cyc_thresh == PTC__CYC_THRESH_UNKNOWN) return c->at.cyc_min_eligible;
    return c->cfg.trace.ctl.cyc_thresh ? UINT64_C(1) << (c->cfg.trace.ctl.cyc_thresh - 1) : 1;
}

/* Bounds on entry e from the cycle counts: anchors a (before it) and b
   (after it) in the same epoch, each with a cycle position range. */
static void ptc__clk_cycle_bounds(const ptc_clock *c, const ptc__clk_entry *e, const ptc__clk_anchor *a,
                              const ptc__clk_anchor *b, uint8_t cbr, uint64_t *lo, uint64_t *hi)
{
    /* an unpinned CYC may have a clock stop on either side: its cycles only
       add time, after the anchor before it and before the one after it */
    int unpinned = (e->flags & PTC__CLK_UNPINNED) != 0;
    if (a && a->valid && a->epoch == e->epoch) {
        if (e->pos_lo != PTC__CLK_NOPOS && a->pos_hi != PTC__CLK_NOPOS && a->lo) {
            uint64_t l = ptc__math_sat_add(a->lo, ptc__clk_cyc_ticks(&c->rate, ptc__math_sat_sub(e->pos_lo, a->pos_hi), cbr, 0));
            if (l > *lo) *lo = l;
        }
        if (!unpinned && e->pos_hi != PTC__CLK_NOPOS && a->pos_lo != PTC__CLK_NOPOS && a->hi != UINT64_MAX) {
            uint64_t h = ptc__math_sat_add(a->hi, ptc__clk_cyc_ticks(&c->rate, ptc__math_sat_sub(e->pos_hi, a->pos_lo), cbr, 1));
            if (h < *hi) *hi = h;
        }
    }
    if (b && b->valid && b->epoch == e->epoch) {
        if (e->pos_hi != PTC__CLK_NOPOS && b->pos_lo != PTC__CLK_NOPOS && b->hi != UINT64_MAX) {
            uint64_t h = ptc__math_sat_sub(b->hi, ptc__clk_cyc_ticks(&c->rate, ptc__math_sat_sub(b->pos_lo, e->pos_hi), cbr, 0));
            if (h < *hi) *hi = h;
        }
        if (!unpinned && e->pos_lo != PTC__CLK_NOPOS && b->pos_hi != PTC__CLK_NOPOS && b->lo) {
            uint64_t l = ptc__math_sat_sub(b->lo, ptc__clk_cyc_ticks(&c->rate, ptc__math_sat_sub(b->pos_hi, e->pos_lo), cbr, 1));
            if (l > *lo) *lo = l;
        }
    }
}

/* The reference the points of an epoch count cycles from (SPEC 3.7 rule
   3), if that epoch has one and it is still kept. */
static const ptc__clk_anchor *ptc__clk_guess_ref(const ptc_clock *c, uint32_t epoch)
{
    const ptc__clk_anchor *a = &c->anchors.guess_refs[epoch % PTC__CLK_GUESS_EPOCHS];
    return a->valid && a->epoch == epoch ? a : NULL;
}

static void ptc__clk_set_guess_ref(ptc_clock *c, const ptc__clk_anchor *a)
{
    c->anchors.guess_refs[a->epoch % PTC__CLK_GUESS_EPOCHS] = *a;
}

/* A fraction in den-ths of a tick, rounded down (exact when it is
   den-ths already: the common case, the same ratio on both sides). */
static uint64_t ptc__clk_frac_in(const ptc__clk_frac *f, uint64_t den)
{
    uint64_t q, r;
    if (!f->den || !f->rem) return 0;
    if (f->den == den) return f->rem;
    return ptc__math_mad_div(f->rem, den, 0, 0, f->den, &q, &r) ? q : 0;
}

/* A fraction in 256ths, as an entry keeps it (ptc__clk_entry's flags),
   rounded up: the exact sums that end on a tick boundary, as rational
   clocks often do, stay on it rather than a 256th below. */
static uint8_t ptc__clk_frac_256ths(const ptc__clk_frac *f)
{
    uint64_t q, r;
    if (!f->den || !f->rem || !ptc__math_mad_div(f->rem, 256, 0, 0, f->den, &q, &r)) return 0;
    q += r != 0;
    return (uint8_t)(q > 255 ? 255 : q);
}

/* The point the cycles give an entry with a cycle position: the last
   positioned anchor's point plus the cycles since it at the configured
   nom, or at the middle of the rates nom allows when the trace ruled that
   out (SPEC 3.7). b: the anchor that finalizes the entry, if any. 0: no
   such anchor in the entry's epoch. *frac (when not NULL): what the point
   was rounded down by, when the cycles count at the configured nom. */
static uint64_t ptc__clk_cycle_guess(const ptc_clock *c, const ptc__clk_entry *e, const ptc__clk_anchor *b,
                                     ptc__clk_frac *frac)
{
    const ptc__clk_anchor *a = &c->anchors.guess_refs[e->epoch % PTC__CLK_GUESS_EPOCHS];
    uint8_t cbr = (uint8_t)(e->flags >> 16);
    /* the anchor at the start of its range: the counter's reset at an
       epoch's start, the last CYC point for a PSB+'s TSC (SPEC 3.7) */
    uint64_t from = a->pos_lo != PTC__CLK_NOPOS ? a->pos_lo : a->pos_hi, at, n;
    if (frac) frac->rem = frac->den = 0;
    if (!a->valid || a->epoch != e->epoch || !a->point || from == PTC__CLK_NOPOS || e->pos_lo == PTC__CLK_NOPOS || !cbr)
        return 0;
    if (e->flags & PTC__CLK_AT_START)
        at = e->pos_lo;
    else if (e->pos_hi != PTC__CLK_NOPOS)
        at = e->pos_lo + (e->pos_hi - e->pos_lo) / 2;
    else
        return 0;
    if (at < from) return 0;
    n = at - from;
    /* with a wobbling clock, on the line from the reference to the MTC
       after it when that MTC has a CYC right before it (the rate of this
       very stretch), else at the rate measured over the last few MTC
       periods (as libipt and perf do); else at the configured nom while
       what the trace shows allows it (the MSR's rounded value is what perf
       assumes), else the middle of the range */
    if (c->cfg.real.rate_ppm && b && b->mtc && b->epoch == e->epoch && b->pos_lo == b->pos_hi && b->pos_lo > at &&
        b->hi != UINT64_MAX && c->rate.cbr == cbr) {
        uint64_t q, r, b_mid = b->lo + (b->hi - b->lo) / 2; /* n * (b_mid - point) / (cycles to b) */
        if (b_mid > a->point && ptc__math_mad_div(n, b_mid - a->point, 0, 0, b->pos_lo - from, &q, &r))
            return ptc__math_sat_add(a->point, q);
    }
    if (c->cfg.real.rate_ppm && c->slope.cycles && c->slope.ref.valid && c->slope.ref.epoch == e->epoch && c->slope.ref_cbr == cbr) {
        uint64_t q, r; /* n * ticks / cycles */
        if (ptc__math_mad_div(n, c->slope.ticks, 0, 0, c->slope.cycles, &q, &r)) return ptc__math_sat_add(a->point, q);
    }
    if (c->slope.nom_cfg_inside) {
        /* n * nom / cbr past the reference's exact point, rounded down as
           the truth (a TSC) is; what is left over is the point's fraction
           (none with a wobbling clock: its points are not that exact) */
        uint64_t d = c->cfg.trace.ratios.nom_den * cbr, q, r, hi, x, carried = c->cfg.real.rate_ppm ? 0 : ptc__clk_frac_in(&a->point_frac, d);
        ptc__math_mul_wide(n, c->cfg.trace.ratios.nom_num, &hi, &x);
        if (!hi && x + carried >= x && cbr == c->rate.cbr) {
            q = ptc__math_divide(&c->slope.guess_div, x + carried);
            r = x + carried - q * d;
        } else if (!ptc__math_mad_div(n, c->cfg.trace.ratios.nom_num, carried, 0, d, &q, &r)) {
            q = 0;
        }
        if (q) {
            if (frac) {
                frac->rem = r;
                frac->den = d;
            }
            return ptc__math_sat_add(a->point, q);
        }
    }
    return ptc__math_sat_add(a->point, ptc__clk_cyc_ticks(&c->rate, n, cbr, 0) / 2 + ptc__clk_cyc_ticks(&c->rate, n, cbr, 1) / 2);
}

/* A CYC whose value is all ones over the counter's width (cyc_bits), or
   over 12 bits or more (the SKL family's counter is 12 bits wide, and perf
   does not record the width), was most likely sent alone before the counter
   wrapped: nothing reset the counter for that long, so a TNT's first branch
   came after it, not at it (SPEC 3.7). */
static int ptc__clk_cyc_is_wrap(const ptc_clock *c, uint64_t cycles)
{
    int all_ones = (cycles & (cycles + 1)) == 0;
    return all_ones && (cycles >= 4095 || (c->cfg.trace.cyc_bits < 64 && cycles == (UINT64_C(1) << c->cfg.trace.cyc_bits) - 1));
}

/* Backwards over the entries not yet final: upper bounds (each entry's
   own, the anchor's b, the entry after it's), the cycles' bounds, and
   whether a clock stop lies after an entry. b: as in ptc__clk_finalize. */
static void ptc__clk_bound_backwards(ptc_clock *c, size_t upto, const ptc__clk_anchor *b, uint64_t gap_floor_lo)
{
    size_t i;
    int stop_after = 0;
    for (i = upto; i-- > c->win.ready;) {
        ptc__clk_entry *e = ptc__clk_at(c, i);
        uint64_t lo = 0, hi = b ? b->hi : UINT64_MAX;
        if (b && b->mtc && !stop_after && b->lo > e->hi_by_mtc) {
            /* the MTC that had to come came later: the clock stopped where
               the trace does not show it, or the policy the clock was given
               is not the trace's; the trace alone bounds it */
            e->hi_by_mtc = UINT64_MAX;
            if (!c->cfg.real.hidden_stops) e->flags |= PTC__CLK_CONFLICT;
        }
        if (e->hi_by_mtc < hi) hi = e->hi_by_mtc;
        if (i + 1 < upto && ptc__clk_at(c, i + 1)->hi < hi) hi = ptc__clk_at(c, i + 1)->hi;
        if (e->hi < hi) hi = e->hi;
        if (e->lo > lo) lo = e->lo;
        ptc__clk_cycle_bounds(c, e, &c->anchors.positioned, b, (uint8_t)(e->flags >> 16), &lo, &hi);
        /* After suppressed MTCs, a non-timing packet restarts them: the
           edge before the next emitted MTC cannot have passed before it
           (SPEC 3.3). Not across a possible clock stop, and not for a
           TNT: what it times is its first branch, before it went out. */
        if (gap_floor_lo && (e->flags & PTC__CLK_NTP) && !(e->flags & PTC__CLK_TNT) && !stop_after &&
            c->cfg.resume_on_ntp && gap_floor_lo > lo)
            lo = gap_floor_lo;
        if (e->flags & PTC__CLK_STOP) stop_after = 1;
        e->lo = lo;
        e->hi = hi;
    }
}

/* A guess held to a lower bound: raised to it, it loses its fraction. */
static uint64_t ptc__clk_at_least(uint64_t guess, uint64_t lo, ptc__clk_frac *frac)
{
    if (guess >= lo) return guess;
    frac->rem = frac->den = 0;
    return lo;
}

/* (SPEC 3.7) Where in its interval an entry most likely is, by its kind:
   an MTC with a CYC right before it where the cycles put it inside its
   lag, any other MTC half its jitter past its edge; a packet with a cycle
   position where the cycles since the reference anchor put it at the
   nominal rate; anything else in the middle of what is possible.
   sent_with: the packet whose position this one takes (ptc__clk_sent_with). */
static uint64_t ptc__clk_guess(const ptc_clock *c, const ptc__clk_entry *e, const ptc__clk_anchor *b,
                               const ptc__clk_entry *sent_with, ptc__clk_frac *frac)
{
    uint64_t mid;
    frac->rem = frac->den = 0;
    if (sent_with && (mid = ptc__clk_cycle_guess(c, sent_with, b, frac)) != 0) /* one instant with it */
        return ptc__clk_at_least(mid, e->lo, frac);
    if ((e->flags & (PTC__CLK_MTC | PTC__CLK_EXACT)) == (PTC__CLK_MTC | PTC__CLK_EXACT) &&
        (mid = ptc__clk_cycle_guess(c, e, NULL, frac)) != 0) /* the cycles say where in its lag it went out */
        return ptc__clk_at_least(mid, e->lo, frac);
    if (e->flags & PTC__CLK_MTC)
        return ptc__math_sat_add(e->lo, ptc__clk_cyc_ticks(&c->rate, c->cfg.real.mtc_jitter / 2, (uint8_t)(e->flags >> 16), 0));
    if (e->flags & (PTC__CLK_SAMPLED | PTC__CLK_AT_TSC)) /* its value (sampled early: the guess that
                                                             holds up later points least) */
        return e->lo;
    if ((mid = ptc__clk_cycle_guess(c, e, b, frac)) != 0) /* the cycles since the last anchor, at nom */
        return ptc__clk_at_least(mid, e->lo, frac);
    if (e->hi == UINT64_MAX || (!b && !c->win.finished)) /* nothing known after it yet */
        return e->lo;
    return e->lo + (e->hi - e->lo) / 2;
}

/* SDM 36.3.6.2 can be read two ways (SPEC 3.7). A TNT's CYC goes out at
   its first branch, the packet later, maybe after MTCs and their CYCs: a
   CYC followed by another CYC, a lone one, shows that branch. Or a TNT
   goes out whole, its CYC right before it, and a lone CYC never comes (but
   at the counter's wrap). A trace that shows no lone CYC over
   PTC__CLK_WHOLE_TNT_EVIDENCE TNTs that the first reading would have had
   to place among the CYCs before them is taken to be of the second: the
   model's and bench/encgen.h's streams show one within three such TNTs. */
#define PTC__CLK_WHOLE_TNT_EVIDENCE 8
static int ptc__clk_tnts_go_whole(const ptc_clock *c)
{
    return !c->branch.seen_lone && c->branch.unplaced >= PTC__CLK_WHOLE_TNT_EVIDENCE;
}

/* A TNT with no CYC right before it, in a trace that has shown no lone
   CYC: the other reading of SDM 36.3.6.2 (SPEC 3.7), where a TNT goes out
   whole in the cycle of its branches, its CYC right before it when the
   threshold is reached. Without one, it came less than the threshold's
   window after the last CYC: half that window past it (at it, with the
   threshold unknown: a small one). */
static uint64_t ptc__clk_whole_tnt_point(const ptc_clock *c, const ptc__clk_entry *e)
{
    uint64_t w = c->cfg.trace.ctl.cyc_thresh != PTC__CYC_THRESH_UNKNOWN ? ptc__clk_thresh_window(c) : 1;
    if (!c->branch.last_final) return 0;
    return ptc__math_sat_add(c->branch.last_final, ptc__clk_cyc_ticks(&c->rate, w / 2, (uint8_t)(e->flags >> 16), 0));
}

/* The point of an entry whose interval is final, before it is held to the
   points before it. branch_cyc: a TNT's first branch the CYCs place;
   anchor_after: b is still to come after the entry; *frac: the point's
   fraction of a tick, when the cycles give it. */
static uint64_t ptc__clk_point(const ptc_clock *c, const ptc__clk_entry *e, const ptc__clk_anchor *b, int branch_cyc,
                               int anchor_after, const ptc__clk_entry *sent_with, ptc__clk_frac *frac)
{
    uint64_t mid = ptc__clk_guess(c, e, b, sent_with, frac), guessed = mid;
    if (mid > e->hi) mid = e->hi;
    /* Told nothing of a policy, the clock keeps its intervals open to
       256 missing MTCs; but while the trace shows no MTC missing, the
       guess is that the next one came on time. */
    if (!(c->cfg.trace.known & PTC_KNOW_POLICY) && !c->due.seen_gap && c->cfg.trace.ratios.cpuid_15_eax && mid - e->lo > c->due.half_period)
        mid = e->lo + c->due.half_period;
    /* A TNT whose first branch had no CYC right before it: at the first
       lone CYC since the non-timing packet before it (its own CYC,
       followed by another packet's), else in the middle of the CYCs
       since that packet (the branch came in the cycle of one of them,
       and the packets do not say which: the middle is never more than
       half their span off), else at the last CYC point */
    if (branch_cyc) {
        mid = c->branch.lone                              ? c->branch.lone
              : ptc__clk_tnts_go_whole(c)              ? ptc__clk_whole_tnt_point(c, e)
              : c->branch.first && c->branch.seen_lone ? c->branch.first + (c->branch.last - c->branch.first) / 2
                                                       : c->branch.last_final;
        if (mid < e->lo) mid = e->lo;
        if (mid > e->hi) mid = e->hi;
    }
    /* In cycle-accurate mode, an eligible packet with no CYC since the
       anchor before it came before the counter reached the threshold:
       at most half that window past the anchor (a guess, not a bound:
       the counter may have restarted since) */
    if ((e->flags & PTC__CLK_NEAR) && mid > e->lo) {
        /* (an unknown threshold: a small one, as those in use are - the
           CYCs' bound on it says little, an MTC's CYC carries its period) */
        uint64_t w = c->cfg.trace.ctl.cyc_thresh != PTC__CYC_THRESH_UNKNOWN ? ptc__clk_thresh_window(c) : 2;
        uint64_t d = ptc__clk_cyc_ticks(&c->rate, w / 2, (uint8_t)(e->flags >> 16), 0);
        if (mid - e->lo > d) mid = e->lo + d;
    }
    /* and not past the anchor's own guess, so that it need not wait */
    if (anchor_after && mid > b->lo) mid = b->lo > e->lo ? b->lo : e->lo;
    if (mid != guessed) frac->rem = frac->den = 0;
    return mid;
}

/* The packets of one operation go out in one cycle, timing packets
   between them allowed (SDM 36.4.1), and only the first eligible one needs
   a CYC: a FUP then the TIP or TIP.PGD of an asynchronous event, a
   MODE.Exec or MODE.TSX then the TIP, TIP.PGE or FUP that it goes with.
   The entry i's point is then the other's, whichever has the narrower
   cycle position (SPEC 3.7): a FUP's own is only after the last CYC and
   before the next; a TIP after a MODE with a CYC is at the MODE's. NULL
   when i starts or ends no such pair in the window up to `upto`. */
static const ptc__clk_entry *ptc__clk_sent_with(ptc_clock *c, size_t i, size_t upto)
{
    const ptc__clk_entry *e = ptc__clk_at(c, i), *o = NULL;
    size_t j;
    if (e->it.error != PTC_OK || (e->flags & (PTC__CLK_EXACT | PTC__CLK_AT_TSC | PTC__CLK_PSB))) return NULL;
    if (e->it.pkt.type == PTC_FUP) { /* the event's packet after it */
        for (j = i + 1; j < upto && !o; j++) {
            const ptc__clk_entry *n = ptc__clk_at(c, j);
            if (n->it.error != PTC_OK || (n->flags & PTC__CLK_STOP)) return NULL;
            if (ptc_packet_is_ntp(n->it.pkt.type)) o = n;
        }
        if (!o || (o->it.pkt.type != PTC_TIP && o->it.pkt.type != PTC_TIP_PGD)) return NULL;
    } else if (ptc_packet_is_cyc_eligible(e->it.pkt.type)) { /* the MODE before it */
        for (j = i; j-- > c->win.ready && !o;) {
            const ptc__clk_entry *n = ptc__clk_at(c, j);
            if (n->it.error != PTC_OK || (n->flags & PTC__CLK_STOP)) return NULL;
            if (ptc_packet_is_ntp(n->it.pkt.type)) o = n;
            if (n->flags & PTC__CLK_FINAL) break;
        }
        /* (when its own range is as narrow, the MODE says nothing more) */
        if (!o || (o->it.pkt.type != PTC_MODE_EXEC && o->it.pkt.type != PTC_MODE_TSX) || !(o->flags & PTC__CLK_EXACT) ||
            (e->pos_hi != PTC__CLK_NOPOS && e->pos_lo != PTC__CLK_NOPOS && e->pos_hi - e->pos_lo < 2))
            return NULL;
    } else {
        return NULL;
    }
    return o->epoch == e->epoch ? o : NULL;
}

/* A final entry: what the entries after it are held to (time never goes
   back), and the points a later TNT's first branch may take. */
static void ptc__clk_note_final(ptc_clock *c, ptc__clk_entry *e)
{
    if (e->lo > c->given.out_lo) c->given.out_lo = e->lo;
    if (e->point > c->given.out_point) c->given.out_point = e->point;
    if (e->flags & PTC__CLK_NTP) { /* (for a TNT: when it went out) */
        c->given.ntp_lo = c->given.out_lo;
        c->given.ntp_point = c->given.out_point;
        c->branch.lone = 0;
        c->branch.first = c->branch.last = 0;
    }
    if (e->it.error == PTC_OK && e->it.pkt.type == PTC_CYC) {
        c->branch.last_final = e->point;
        if (!ptc__clk_cyc_is_wrap(c, e->it.pkt.u.cyc.cycles)) {
            if (e->flags & PTC__CLK_LONE_CYC) c->branch.seen_lone = 1;
            if ((e->flags & PTC__CLK_LONE_CYC) && !c->branch.lone) c->branch.lone = e->point;
            if (!c->branch.first) c->branch.first = e->point;
            c->branch.last = e->point;
        }
    }
    e->flags |= PTC__CLK_FINAL;
}

/* The entries pushed so far that are not final get their intervals. b:
   the anchor just pushed (the last entry), or NULL at the end of the
   window or stream (then only what is known before them counts). */
static void ptc__clk_finalize(ptc_clock *c, size_t upto, const ptc__clk_anchor *b, uint64_t gap_floor_lo)
{
    size_t i;
    ptc__clk_bound_backwards(c, upto, b, gap_floor_lo);
    /* forwards: lower bounds never decrease (time never goes back), and
       neither do point estimates; an upper bound below the last point is
       raised to it, the least loosening that keeps the point inside. A
       TNT's first branch may be older than the timing packets between it
       and the non-timing packet before it: only that packet bounds it, and
       when the CYCs say where the branch was its point goes there */
    for (i = c->win.ready; i < upto; i++) {
        ptc__clk_entry *e = ptc__clk_at(c, i);
        int first_branch = (e->flags & PTC__CLK_FIRST_BRANCH) != 0;
        ptc__clk_frac frac;
        int branch_cyc = first_branch && c->cfg.trace.ctl.cyc_en && (c->branch.lone || c->branch.last_final);
        uint64_t mid, after = first_branch ? c->given.ntp_lo : c->given.out_lo, floor = c->given.out_point;
        /* a first branch the CYCs place may go back to the non-timing
           packet's point; one they do not, only to the last lower bound
           (where the branch of a TNT that went out soon after it lies, and
           where libipt and perf put it), not to the last point, which may
           sit past an MTC's edge the branch came before */
        if (branch_cyc && !c->branch.lone && c->branch.first && c->branch.unplaced < UINT32_MAX) c->branch.unplaced++;
        if (branch_cyc) floor = c->given.ntp_point;
        else if (first_branch) floor = c->given.out_lo > c->given.ntp_point ? c->given.out_lo : c->given.ntp_point;
        if (after > e->lo) e->lo = after;
        if (e->hi < e->lo) { /* only if the trace broke the rules */
            e->hi = e->lo;
            e->flags |= PTC__CLK_CONFLICT;
        }
        if (e->hi < floor) e->hi = floor;
        mid = ptc__clk_point(c, e, b, branch_cyc, b && i + 1 < upto, ptc__clk_sent_with(c, i, upto), &frac);
        e->point = mid < floor ? floor : mid;
        e->flags = (e->flags & 0xFFFFFFu) | (e->point == mid ? (uint32_t)ptc__clk_frac_256ths(&frac) << 24 : 0);
        ptc__clk_note_final(c, e);
    }
    c->win.ready = upto;
}

static void ptc__clk_anchor_of(const ptc__clk_entry *e, ptc__clk_anchor *a)
{
    a->lo = e->lo;
    a->hi = e->hi;
    a->point = e->point;
    a->point_frac.rem = e->flags >> 24;
    a->point_frac.den = 256;
    a->pos_lo = e->pos_lo;
    a->pos_hi = e->pos_hi;
    a->epoch = e->epoch;
    a->valid = 1;
    a->mtc = !!(e->flags & PTC__CLK_MTC);
}

/* Cycles in `ticks` TSC ticks: at least (most = 0) or at most, by the
   rate's bounds; UINT64_MAX when not bounded. */
static uint64_t ptc__clk_ticks_cycles(const ptc__clk_rate *r, uint64_t ticks, uint8_t cbr, int most)
{
    uint64_t n = most ? r->nom_lo_n : r->nom_hi_n, d = most ? r->nom_lo_d : r->nom_hi_d, x;
    if (!cbr || !n) return most ? UINT64_MAX : 0;
    /* cycles at ratio 1, at the wobble's slowest or fastest; then times the ratio */
    x = ptc__clk_unwobble(r, ptc__math_muldiv(ticks, d, n, most), most);
    return x > UINT64_MAX / cbr ? (most ? UINT64_MAX : 0) : x * cbr;
}


/* An exactly positioned anchor since slope.ref, for the rate the points
   count cycles at with a wobbling clock (one at the same cycle position as
   the last adds nothing): measured from it back to the newest anchor at
   least PTC__CLK_RATE_SPAN cycles older, as the ticks between the middles
   of their intervals over the cycles between them; none when no anchor is
   that far back or no time passed. */
static void ptc__clk_note_rate_anchor(ptc_clock *c, const ptc__clk_entry *e)
{
    size_t newest = c->slope.seen_n % PTC__CLK_RATE_ANCHORS, back;
    if (!c->cfg.real.rate_ppm || (c->slope.seen_n && c->slope.seen_pos[(c->slope.seen_n - 1) % PTC__CLK_RATE_ANCHORS] >= e->pos_lo)) return;
    c->slope.seen_pos[newest] = e->pos_lo;
    c->slope.seen_mid[newest] = e->lo + (e->hi - e->lo) / 2;
    c->slope.seen_n++;
    c->slope.ticks = c->slope.cycles = 0;
    for (back = 1; back < c->slope.seen_n && back < PTC__CLK_RATE_ANCHORS; back++) {
        size_t older = (c->slope.seen_n - 1 - back) % PTC__CLK_RATE_ANCHORS;
        uint64_t cycles = c->slope.seen_pos[newest] - c->slope.seen_pos[older];
        if (cycles < PTC__CLK_RATE_SPAN) continue;
        if (c->slope.seen_mid[newest] > c->slope.seen_mid[older]) {
            c->slope.ticks = c->slope.seen_mid[newest] - c->slope.seen_mid[older];
            c->slope.cycles = cycles;
        }
        break;
    }
}

/* Two exactly positioned anchors of one epoch at one ratio: N cycles took
   between lo(b) - hi(a) and hi(b) - lo(a) ticks, so nom lies between
   those times CBR / N. nom is a constant of the platform, so every such
   pair narrows it for the whole trace; the pair furthest apart is best. */
static void ptc__clk_calibrate(ptc_clock *c, const ptc__clk_entry *e)
{
    const ptc__clk_anchor *a = &c->slope.ref;
    uint64_t n, lo, hi;
    uint8_t cbr = c->rate.cbr;
    int narrowed;
    if (e->pos_lo != e->pos_hi || e->pos_lo == PTC__CLK_NOPOS || !e->lo || e->hi == UINT64_MAX || !cbr) return;
    if (!a->valid || a->epoch != e->epoch || c->slope.ref_cbr != cbr || a->pos_hi >= e->pos_lo) {
        ptc__clk_anchor_of(e, &c->slope.ref);
        c->slope.ref_cbr = cbr;
        c->slope.seen_n = 0;
        ptc__clk_note_rate_anchor(c, e);
        return;
    }
    ptc__clk_note_rate_anchor(c, e);
    n = e->pos_lo - a->pos_hi;
    if (e->hi - a->lo > (UINT64_C(1) << 48)) return; /* keeps the fractions' products in range */
    lo = e->lo > a->hi ? (e->lo - a->hi) * cbr : 0;
    hi = (e->hi - a->lo) * cbr;
    if (c->cfg.real.rate_ppm) {
        /* the rate between them is an average of a wobbling one, within
           rate_ppm of nom: nom is within [lo / (1 + ppm), hi / (1 - ppm)] */
        lo = ptc__clk_unwobble(&c->rate, lo, 0);
        hi = ptc__clk_unwobble(&c->rate, hi, 1);
        if (hi == UINT64_MAX) return;
    }
    /* only if consistent with what is known: else the trace broke a rule */
    if (ptc__math_frac_less(c->rate.nom_hi_n, c->rate.nom_hi_d, lo, n) || ptc__math_frac_less(hi, n, c->rate.nom_lo_n, c->rate.nom_lo_d)) return;
    narrowed = 0;
    if (ptc__math_frac_less(c->rate.nom_lo_n, c->rate.nom_lo_d, lo, n)) { c->rate.nom_lo_n = lo; c->rate.nom_lo_d = n; narrowed = 1; }
    if (ptc__math_frac_less(hi, n, c->rate.nom_hi_n, c->rate.nom_hi_d)) { c->rate.nom_hi_n = hi; c->rate.nom_hi_d = n; narrowed = 1; }
    if (narrowed) ptc__clk_rate_changed(c);
}

/* A TSC in a PSB+ with no CYC inside: somewhere between the last CYC point
   and the next. Its time and the last positioned anchor's bound how many
   cycles lie between them, which narrows that. */
static void ptc__clk_position_by_time(ptc_clock *c, ptc__clk_entry *e)
{
    const ptc__clk_anchor *a = &c->anchors.positioned;
    uint64_t most;
    if (!a->valid || a->epoch != c->at.epoch || a->pos_hi == PTC__CLK_NOPOS || !a->lo || a->hi == UINT64_MAX || e->hi < a->lo)
        return;
    /* at most as many cycles as could run in the time between them (not
       at least: tracing may have stopped in between, and the counter) */
    most = ptc__clk_ticks_cycles(&c->rate, e->hi - a->lo, c->rate.cbr, 1);
    if (most != UINT64_MAX && a->pos_hi + most < e->pos_hi) e->pos_hi = a->pos_hi + most;
}

/* The CYCs at the end of what was pushed, when what follows is an OVF, a
   PSB or the end of the trace: they may have gone out after a clock stop
   the trace does not show (a wake whose TSC was lost, tracing stopped or
   restarted during a sleep), so the next MTC edge does not bound them and
   their cycles do so only as cycles add time: at least their count after
   the anchor before them, at least their count before the one after. The
   point still counts them (SPEC 3.7): a stop is the exception. */
static void ptc__clk_unpin_trailing_cycs(ptc_clock *c)
{
    size_t i;
    for (i = c->win.count; i-- > c->win.ready;) {
        ptc__clk_entry *o = ptc__clk_at(c, i);
        ptc_packet_type ot = o->it.error == PTC_OK ? o->it.pkt.type : PTC_NONE;
        if (ot != PTC_CYC && ot != PTC_PAD) break;
        o->flags = (o->flags & ~(uint32_t)PTC__CLK_EXACT) | PTC__CLK_UNPINNED;
        o->hi_by_mtc = UINT64_MAX;
    }
}

/* A CYC's count, applied once the packet after it is known (next): before
   an OVF it has wrapped and tells nothing; before a TSC it may end at a
   clock stop, so it bounds the packets before it while the CYC itself is
   at the TSC's time (the TSC starts the new epoch there). */
static void ptc__clk_apply_cyc(ptc_clock *c, ptc_packet_type next)
{
    ptc__clk_entry *e = ptc__clk_at(c, c->at.cyc_pending - 1);
    uint64_t v = e->it.pkt.u.cyc.cycles;
    size_t i;
    int after_cyc = c->at.cyc_just_before; /* another CYC right before this one */
    c->at.cyc_pending = 0;
    /* what the threshold is at least: a CYC sent for an eligible packet
       (not inside a PSB+, before or after its TSC, nor one forced out after
       another CYC, nor one that may be the counter's wrap: all ones,
       whatever its width) */
    if (!after_cyc && !c->psb.at && !c->psb.tail && v < c->at.cyc_min_eligible && (v & (v + 1)) != 0 &&
        (ptc_packet_is_tnt(next) || (ptc_packet_is_cyc_eligible(next) && next != PTC_TSC && next != PTC_OVF)))
        c->at.cyc_min_eligible = v;
    if (next == PTC_OVF) e->hi_by_mtc = UINT64_MAX; /* sent with the OVF, after packets were lost */
    if (next == PTC_OVF || next == PTC_NONE) return;
    c->tsc.cycles += v;
    if (c->psb.at) c->psb.cycles += v;
    if (c->at.active) c->at.pos += v;
    else { /* the epoch's first CYC counted from the counter's last reset,
              position 0 (SDM 36.3.6.1: a CYC or TriggerEn resets it). An
              anchor before it in the epoch came after that reset - no CYC
              between them - and at or before this CYC. The points take it
              to be at the reset: tracing started, or the clocks restarted,
              with the anchor (as perf and libipt count cycles from it). */
        c->at.active = 1;
        c->at.pos = v;
        if (c->anchors.last.valid && c->anchors.last.epoch == c->at.epoch) {
            c->anchors.positioned = c->anchors.last;
            c->anchors.positioned.pos_lo = 0;
            c->anchors.positioned.pos_hi = v;
            /* (unless a CBR carried the points across: its reference is
               at the reset, the anchor only somewhere after it) */
            if (!ptc__clk_guess_ref(c, c->at.epoch)) ptc__clk_set_guess_ref(c, &c->anchors.positioned);
        }
    }
    for (i = c->win.open_from; i < c->win.count; i++) { /* no later than this CYC point */
        ptc__clk_entry *o = ptc__clk_at(c, i);
        if (o->epoch == c->at.epoch && o != e && o->pos_hi > c->at.pos) o->pos_hi = c->at.pos;
    }
    if (c->anchors.positioned.valid && c->anchors.positioned.epoch == c->at.epoch && c->anchors.positioned.pos_hi > c->at.pos)
        c->anchors.positioned.pos_hi = c->at.pos;
    c->win.open_from = c->win.count;
    e->cycles = c->tsc.cycles;
    if (next == PTC_CYC) e->flags |= PTC__CLK_LONE_CYC;
    if (c->psb.at) c->psb.point = 1;
    if (next == PTC_TSC && !c->psb.at) return; /* the TSC places it */
    e->epoch = c->at.epoch;
    e->pos_lo = e->pos_hi = c->at.pos;
    e->flags |= PTC__CLK_EXACT;
    c->at.cyc_just_before = 1;
}

/* What one packet's handler found, for the placement and settling steps. */
typedef struct ptc__clk_step {
    ptc_packet_type type;   /* PTC_NONE for a decode error */
    size_t cyc_before;      /* ring index + 1 of a CYC right before a TSC, else 0 */
    int anchor;             /* the entry has an interval of its own: settle what came before */
    int same_instant;       /* the entry goes with the last TSC, at its instant */
    uint64_t gap_floor;     /* MTCs were suppressed before this anchor: packets since then
                               are after this time (SPEC 3.3), else 0 */
} ptc__clk_step;

/* An error or an OVF: packets were lost, MTC gaps and cycle counts no
   longer add up. The CYCs right before it may be the start of a wake
   whose TSC was lost: after a clock stop, so neither their cycle positions
   nor the next MTC edge bound them. */
static void ptc__clk_on_loss(ptc_clock *c, ptc__clk_entry *e)
{
    ptc__clk_unpin_trailing_cycs(c);
    ptc__clk_break(c);
    c->ctc.valid = 0;
    c->psb.at = 0;
    e->flags |= PTC__CLK_STOP;
}

/* A TSC inside a PSB+: one instant with no clock stop, so the epoch goes
   on and the TSC is at the CYC point inside the PSB+, if there is one.
   The PSB+'s packets carry its time (unless it was sampled earlier inside
   the PSB+: then those before it may be older than its value), and so do
   those after it up to PSBEND. */
static void ptc__clk_tsc_in_psb(ptc_clock *c, ptc__clk_entry *e, size_t cyc_before)
{
    size_t i;
    if (c->at.active) e->pos_lo = c->at.pos;
    if (c->at.active && (c->psb.point || cyc_before)) {
        e->pos_hi = c->at.pos;
        e->flags |= PTC__CLK_EXACT;
    } else if (c->at.active) {
        ptc__clk_position_by_time(c, e);
    }
    c->psb.point = 0;
    for (i = c->psb.at - 1; i < c->win.count && !c->cfg.real.psb_early_tsc; i++) {
        ptc__clk_entry *o = ptc__clk_at(c, i);
        if ((o->flags & PTC__CLK_PSB) && o->lo < e->lo) o->lo = e->lo;
    }
    c->psb.at = 0;
    c->psb.tail = 1;
    c->psb.lo = e->lo;
    c->psb.hi = e->hi;
}

/* A TSC outside PSB+ may follow a clock stop: a new epoch. The CYC right
   before it counted the cycles up to the stop (the counter stops with the
   clock), so its point is where the clock stopped and started again: the
   new epoch starts there, at the TSC. The CYC packet itself went out at
   the wake, or before the stop when the counter had just wrapped: its
   time is anywhere from its place in the old epoch to the TSC. */
static void ptc__clk_tsc_alone(ptc_clock *c, ptc__clk_entry *e, size_t cyc_before)
{
    uint64_t old_pos = c->at.pos;
    int old_active = c->at.active;
    ptc__clk_entry *cy;
    ptc__clk_break(c);
    if (!cyc_before) return;
    cy = ptc__clk_at(c, cyc_before - 1);
    c->at.active = 1;
    c->at.pos = 0;
    e->pos_lo = e->pos_hi = 0;
    e->flags |= PTC__CLK_EXACT;
    cy->pos_lo = old_active ? old_pos : PTC__CLK_NOPOS;
    cy->pos_hi = PTC__CLK_NOPOS;
    cy->hi_by_mtc = UINT64_MAX; /* it may come after a clock stop: no pre-stop bound */
}

static void ptc__clk_on_tsc(ptc_clock *c, ptc__clk_entry *e, ptc__clk_step *s)
{
    uint64_t full = ptc__clk_tsc_extend(c->tsc.full, c->tsc.have, e->it.pkt.u.tsc.tsc);
    c->tsc.full = full;
    c->tsc.have = 1;
    e->lo = full;
    e->hi = full + 1;
    if (c->psb.at && c->cfg.real.psb_early_tsc) {
        /* sampled inside the PSB+: the packet went out at most the
           cycles the PSB+'s CYCs counted later (its first CYC counts
           from before the PSB, so this is an upper bound) */
        uint64_t cycles = c->psb.cycles;
        /* (and the counter's count at the PSB, below the threshold; an
           unknown one no CYC has bounded yet is taken as small) */
        if (!s->cyc_before && c->cfg.trace.ctl.cyc_en && ptc__clk_thresh_window(c) != UINT64_MAX)
            cycles += ptc__clk_thresh_window(c) - 1;
        e->hi = ptc__math_sat_add(e->hi, ptc__clk_cyc_ticks(&c->rate, cycles, c->rate.cbr, 1));
        e->flags |= PTC__CLK_SAMPLED;
    }
    if (c->psb.at && c->cfg.real.psb_early_tsc && c->psb.mtc && c->cfg.trace.ratios.cpuid_15_eax) {
        /* an MTC ahead of it in the PSB+, whose edge may be after the
           sample (the TMA's CTC one short of the MTC's): the packet went out
           within an ART tick and the MTC's lag of its value, whether or not
           that MTC's time is known (with SKZ84 it is not) */
        uint64_t by = ptc__math_sat_add(full + 1, ptc__math_sat_add(ptc__clk_art_ticks(&c->rate, 1, 1), c->rate.mtc_lag));
        if (by > e->hi) e->hi = by;
        e->flags |= PTC__CLK_SAMPLED;
    }
    if (c->cfg.real.psb_early_tsc && c->anchors.last.valid && c->anchors.last.mtc && c->anchors.last.lo > full) {
        /* sampled before the edge of an MTC that went out ahead of it (a
           PSB+'s or a wake's, on Skylake): the packet is after that MTC's */
        uint64_t after_mtc = ptc__math_sat_add(c->anchors.last.hi, c->rate.mtc_lag);
        if (after_mtc > e->hi) e->hi = after_mtc;
        e->flags |= PTC__CLK_SAMPLED;
    }
    c->tsc.hi = e->hi;
    c->tsc.sampled = (e->flags & PTC__CLK_SAMPLED) != 0;
    e->flags |= PTC__CLK_ANCHOR | PTC__CLK_STOP;
    s->anchor = 1;
    c->ctc.valid = 0; /* the CTC base waits for the TMA */
    c->tsc.cycles = 0;
    c->tsc.run = 1;
    c->tsc.in_psb = c->psb.at != 0;
    if (c->psb.at) ptc__clk_tsc_in_psb(c, e, s->cyc_before);
    else ptc__clk_tsc_alone(c, e, s->cyc_before);
    c->tsc.pos_lo = e->pos_lo;
    c->tsc.pos_hi = e->pos_hi;
}

/* A TMA right after its TSC: the CTC base that MTCs count from - unless
   the CPU has erratum SKZ84, whose TMAs may be wrong, or this one is a
   corrupt_tma error (SKZ84 seen): then it is only sent with the TSC. */
static void ptc__clk_on_tma(ptc_clock *c, ptc__clk_entry *e, ptc__clk_step *s)
{
    const ptc_packet *p = &e->it.pkt;
    int corrupt = e->it.error == PTC_ERR_CORRUPT_TMA;
    if (!c->tsc.run || !c->cfg.trace.ratios.cpuid_15_eax || (!corrupt && p->u.tma.fc > c->tsc.full)) return;
    e->lo = c->tsc.full; /* sent with the TSC */
    e->hi = c->tsc.hi;
    s->same_instant = 1;
    if (corrupt || (c->cfg.trace.errata & PTC_ERRATUM_SKZ84)) return;
    ptc__clk_ctc_tma(&c->ctc, c->tsc.full, p->u.tma.ctc, p->u.tma.fc);
    c->due.hi_known = 0; /* until the CBR or an MTC */
    e->flags |= PTC__CLK_ANCHOR;
    s->anchor = 1;
}

/* MTC periods from the MTC with payload p to the next edge whose MTC
   must be emitted: the next one while the policy's run is short, else
   the first one a resume rule lets through; plus those hardware may lose. */
static uint64_t ptc__clk_periods_to_emitted(const ptc_clock_config *cfg, const ptc_checker *chk, uint8_t p)
{
    const ptc_mtc_policy *pol = &cfg->trace.policy;
    uint64_t periods = 256; /* no 256 MTCs in a row go missing (SDM, SPEC 2.1) */
    if (!(cfg->trace.known & PTC_KNOW_POLICY)) return periods;
    if (!pol->threshold || chk->run < chk->need) periods = 1;
    else {
        if (pol->resume_after && (uint64_t)pol->resume_after + 1 < periods) periods = pol->resume_after + 1u;
        if (pol->resume_on_value) {
            uint64_t d = (uint8_t)(pol->resume_value - p);
            if (!d) d = 256;
            if (d < periods) periods = d;
        }
    }
    periods += cfg->real.mtc_lost;
    return periods > 256 ? 256 : periods;
}

/* After an MTC that moved the CTC by `step` ART ticks: more than one
   period, and the periods hardware may lose, since the MTC before, with
   the CTC counted far enough for that to be known - MTCs went missing: a
   stop, or suppression (SPEC 3.7). Never with hidden stops, which make
   any gap a possible stop. The full clock and the events decoder both
   ask this. */
static int ptc__clk_mtc_gap(const ptc_clock_config *cfg, const ptc__clk_ctc *ctc, uint64_t step)
{
    uint64_t lost = (uint64_t)(1 + cfg->real.mtc_lost) << cfg->trace.ctl.mtc_freq;
    return step > lost && ctc->art_rel >= lost && !cfg->real.hidden_stops;
}

static void ptc__clk_on_mtc(ptc_clock *c, ptc__clk_entry *e, ptc__clk_step *s)
{
    unsigned n = c->cfg.trace.ctl.mtc_freq;
    uint8_t p = e->it.pkt.u.mtc.ctc;
    uint64_t step, lost = (uint64_t)(1 + c->cfg.real.mtc_lost) << n;
    int stopped = c->due.stop_since_mtc;
    if (c->psb.at) c->psb.mtc = 1;
    if (!ptc__clk_ctc_mtc(&c->ctc, n, p, &step)) return;
    c->due.stop_since_mtc = 0;
    /* every packet before a clock stop comes before the next emitted MTC */
    c->due.hi_known = 1;
    c->due.hi = ptc__math_sat_add(ptc__clk_edge(&c->rate, &c->ctc, c->ctc.art_rel + (ptc__clk_periods_to_emitted(&c->cfg, &c->due.chk, p) << n), 1),
                                       c->rate.mtc_lag);
    e->lo = ptc__clk_edge(&c->rate, &c->ctc, c->ctc.art_rel, 0);
    e->hi = ptc__math_sat_add(ptc__clk_edge(&c->rate, &c->ctc, c->ctc.art_rel, 1), c->rate.mtc_lag);
    e->flags |= PTC__CLK_ANCHOR | PTC__CLK_MTC;
    s->anchor = 1;
    /* more than one period since the last MTC: MTCs were suppressed, and
       packets since then are after the edge before this one (the edges
       hardware may have lost tell nothing) */
    if (ptc__clk_mtc_gap(&c->cfg, &c->ctc, step)) {
        s->gap_floor = ptc__clk_edge(&c->rate, &c->ctc, c->ctc.art_rel - lost, 0);
        if (!stopped) c->due.seen_gap = 1; /* not a sleep: suppression */
    }
    /* an MTC that ends a PSB+'s instant - unless the PSB+'s TSC may have
       been sampled before this edge */
    if (!c->cfg.real.psb_early_tsc) c->psb.at = 0;
}

static void ptc__clk_on_cyc(ptc_clock *c, ptc__clk_entry *e)
{
    if (c->cfg.trace.cyc_bits < 64 && e->it.pkt.u.cyc.cycles >> c->cfg.trace.cyc_bits)
        ptc__clk_break(c); /* more than the counter holds: not a count we can use */
    else
        c->at.cyc_pending = c->win.count + 1; /* counted when the next packet shows what it is */
}

/* A CBR without a TSC ends the epoch: the clock may have stopped there,
   so no bound counts cycles across it. The points do (SPEC 3.7 rule 3):
   a stop is the exception, and the cycle counter was not reset, so the
   next epoch's position 0 is the last CYC before the CBR. Its point is
   where the cycles put that CYC, the reference of the points after it
   (libipt and perf likewise go on counting at the new ratio). 0 when the
   old epoch gives no such point. */
static int ptc__clk_carry_points(const ptc_clock *c, ptc__clk_anchor *carried)
{
    ptc__clk_entry last_cyc;
    uint64_t point;
    ptc__clk_frac frac;
    const ptc__clk_anchor *ref = ptc__clk_guess_ref(c, c->at.epoch);
    if (!ref) return 0;
    if (!c->at.active) { /* no CYC since the epoch began: its reference is still at the reset */
        if (ref->pos_lo != 0 || ref->pos_hi != 0) return 0;
        *carried = *ref;
        return 1;
    }
    memset(&last_cyc, 0, sizeof last_cyc);
    last_cyc.pos_lo = last_cyc.pos_hi = c->at.pos;
    last_cyc.epoch = c->at.epoch;
    last_cyc.flags = (uint32_t)c->rate.cbr << 16;
    point = ptc__clk_cycle_guess(c, &last_cyc, NULL, &frac);
    if (!point) return 0;
    memset(carried, 0, sizeof *carried);
    carried->lo = carried->hi = carried->point = point;
    carried->point_frac = frac;
    carried->pos_lo = carried->pos_hi = 0;
    carried->valid = 1;
    return 1;
}

static void ptc__clk_on_cbr(ptc_clock *c, ptc__clk_entry *e, ptc__clk_step *s)
{
    uint8_t ratio = e->it.pkt.u.cbr.ratio;
    size_t i;
    /* a PSB+ that reports a new ratio: it changed at some point since the
       last one, so cycle counts across it do not convert */
    if (c->tsc.run && c->tsc.in_psb && c->rate.cbr && c->rate.cbr != ratio) ptc__clk_break(c);
    if (!c->tsc.run) { /* a new rate without a TSC */
        ptc__clk_anchor carried;
        int carry = ptc__clk_carry_points(c, &carried);
        c->rate.cbr = ratio;
        ptc__clk_rate_changed(c);
        ptc__clk_break(c);
        if (carry) {
            carried.epoch = c->at.epoch;
            ptc__clk_set_guess_ref(c, &carried);
        }
        /* the CBR itself is after that CYC and before the next one: its
           cycles only add time (a stop may be on either side) */
        e->pos_lo = 0;
        e->flags |= PTC__CLK_STOP | PTC__CLK_UNPINNED | PTC__CLK_AT_START;
        return;
    }
    c->rate.cbr = ratio;
    ptc__clk_rate_changed(c);
    if (c->ctc.have_mtc) return; /* an MTC after the TSC's edge came first: the CBR is after it */
    /* sent with the TSC and TMA before it, at their instant, where the new
       ratio starts: the entries of the TSC's epoch still open are
       converted at it (a TMA that is no anchor, with SKZ84) */
    e->lo = c->tsc.full;
    e->hi = c->tsc.hi;
    s->same_instant = 1;
    for (i = c->win.ready; i < c->win.count; i++) {
        ptc__clk_entry *o = ptc__clk_at(c, i);
        if (o->epoch == c->at.epoch) o->flags = (o->flags & ~(uint32_t)0xFF0000) | (uint32_t)ratio << 16;
    }
    if (c->ctc.valid) {
        /* TSC, TMA, CBR are one instant (PSB+, a wake, a frequency
           change), and the CBR resumes MTCs: the first MTC edge after the
           TMA's is emitted, and whatever comes before the next clock stop
           comes before it (or the one after, when an MTC inside a PSB+
           whose TSC was sampled before it is already out) */
        uint64_t n = c->cfg.trace.ctl.mtc_freq, first = (UINT64_C(1) << n) - (c->ctc.base_low & ((UINT64_C(1) << n) - 1));
        if (c->cfg.real.psb_early_tsc && c->psb.mtc) first += UINT64_C(1) << n;
        first += (uint64_t)c->cfg.real.mtc_lost << n;
        c->due.hi = ptc__math_sat_add(ptc__clk_edge(&c->rate, &c->ctc, first, 1), c->rate.mtc_lag);
        c->due.hi_known = 1;
        c->due.stop_since_mtc = 0;
    }
}

static void ptc__clk_on_psb(ptc_clock *c)
{
    /* (with SKL168 the CYC before it may be lost, and its cycles with it) */
    if (c->cfg.trace.errata & PTC_ERRATUM_SKL168) ptc__clk_break(c);
    c->psb.at = c->win.count + 1;
    c->psb.point = 0;
    c->psb.cycles = 0;
    c->psb.mtc = 0;
    ptc__clk_unpin_trailing_cycs(c);
    /* tracing may have stopped and started again before a PSB+, the
       cycle counter with it: no rate measurement spans one */
    c->slope.ref.valid = 0;
}

/* After a PSB+'s TSC, up to PSBEND: the packets are at the TSC's instant
   (a CYC may go with an OVF that cuts the PSB+ short, and an MTC, an
   error or a PSB shows it was not a PSB+ after all). */
static void ptc__clk_psb_tail(ptc_clock *c, ptc__clk_entry *e, ptc__clk_step *s)
{
    ptc_packet_type t = s->type;
    if (t == PTC_TSC || t == PTC_CYC || t == PTC_PAD) return;
    if (t == PTC_NONE || t == PTC_OVF || t == PTC_MTC || t == PTC_PSB) {
        c->psb.tail = 0;
        return;
    }
    if (e->lo < c->psb.lo) e->lo = c->psb.lo;
    if (e->hi > c->psb.hi) e->hi = c->psb.hi;
    s->same_instant = 1;
    if (t == PTC_PSBEND) c->psb.tail = 0;
}

/* An entry before the first CYC of an epoch that a CBR began, when the
   points were carried across it (ptc__clk_carry_points): after the
   counter's reset, position 0, and before that CYC. Only for its point:
   a stop may lie on either side of the CBR, so its cycles bound it only as
   cycles add time (PTC__CLK_UNPINNED). */
static void ptc__clk_position_after_carry(ptc_clock *c, ptc__clk_entry *e, int timed_by_cyc)
{
    const ptc__clk_anchor *ref = ptc__clk_guess_ref(c, c->at.epoch);
    uint64_t w = ptc__clk_thresh_window(c);
    /* (a TNT's first branch may lie before that CYC) */
    if (!ref || ref->pos_lo != 0 || ref->pos_hi != 0 || (e->flags & PTC__CLK_FIRST_BRANCH)) return;
    e->pos_lo = 0;
    if (c->cfg.trace.ctl.cyc_en && timed_by_cyc && w != UINT64_MAX) e->pos_hi = w - 1;
    e->flags |= PTC__CLK_UNPINNED;
}

/* Where in the current epoch the entry is, in cycles: at the TSC's place
   when it goes with it; a CYC-eligible packet right after a CYC is at its
   time (SDM), and so is a TNT's first branch; one with no CYC before it
   came before the counter reached the threshold. */
static void ptc__clk_position(ptc_clock *c, ptc__clk_entry *e, const ptc__clk_step *s)
{
    ptc_packet_type t = s->type;
    int timed_by_cyc = ptc_packet_is_cyc_eligible(t) || (e->flags & PTC__CLK_TNT);
    if (t == PTC_FUP && c->fup.bound) {
        /* the FUP of a PTW or EXSTOP with its IP bit: one instant (SDM
           "Compound Packet Event Summary"), where that packet is */
        e->pos_lo = c->fup.pos_lo;
        e->pos_hi = c->fup.pos_hi;
        e->flags |= c->fup.flags;
        return;
    }
    if (c->cfg.trace.ctl.cyc_en && !c->at.active && ptc_packet_is_cyc_eligible(t) && t != PTC_TSC && t != PTC_OVF && !c->at.cyc_pending &&
        !c->at.cyc_just_before)
        e->flags |= PTC__CLK_NEAR;
    if (s->same_instant && c->tsc.sampled) e->flags |= PTC__CLK_SAMPLED; /* guessed as the TSC is */
    if (s->same_instant || t == PTC_TSC) e->flags |= PTC__CLK_AT_TSC;
    if (!c->at.active) {
        if (!s->same_instant && t != PTC_CYC && t != PTC_TSC) ptc__clk_position_after_carry(c, e, timed_by_cyc);
        return;
    }
    if (s->same_instant) {
        e->pos_lo = c->tsc.pos_lo;
        e->pos_hi = c->tsc.pos_hi;
        return;
    }
    if (t == PTC_CYC || t == PTC_TSC) return;
    /* (a first branch may lie before the last CYC point: no lower bound from it) */
    e->pos_lo = e->flags & PTC__CLK_FIRST_BRANCH ? PTC__CLK_NOPOS : c->at.pos;
    if (c->at.cyc_just_before && timed_by_cyc) {
        e->pos_hi = c->at.pos;
        e->flags |= PTC__CLK_EXACT;
    } else if (c->cfg.trace.ctl.cyc_en && timed_by_cyc && !c->psb.at && t != PTC_OVF) {
        if (ptc__clk_thresh_window(c) != UINT64_MAX) e->pos_hi = c->at.pos + ptc__clk_thresh_window(c) - 1;
        /* the threshold unknown: the window the CYCs bound it to is loose
           (an MTC's CYC carries its whole period); the points take it
           small, as those in use are (and as the NEAR guess does) */
        if (c->cfg.trace.ctl.cyc_thresh == PTC__CYC_THRESH_UNKNOWN) e->flags |= PTC__CLK_AT_START;
    }
}

/* The placement step, after the packet's own handler: the flags every
   packet gets, the PSB+ instant, the bound from the next emitted MTC and
   the cycle position. */
static void ptc__clk_place(ptc_clock *c, ptc__clk_entry *e, ptc__clk_step *s)
{
    ptc_packet_type t = s->type;
    if (t != PTC_NONE && ptc_packet_is_ntp(t)) e->flags |= PTC__CLK_NTP;
    if (t != PTC_NONE && ptc_packet_is_tnt(t))
        e->flags |= c->at.cyc_just_before ? PTC__CLK_TNT : PTC__CLK_TNT | PTC__CLK_FIRST_BRANCH;
    if (c->psb.at) e->flags |= PTC__CLK_PSB;
    if (c->psb.tail) ptc__clk_psb_tail(c, e, s);
    if (e->flags & PTC__CLK_STOP) c->due.stop_since_mtc = 1;
    e->hi_by_mtc = c->ctc.valid && c->due.hi_known && !c->due.stop_since_mtc && !(e->flags & PTC__CLK_MTC) ? c->due.hi
                                                                                                      : UINT64_MAX;
    e->epoch = c->at.epoch;
    ptc__clk_position(c, e, s);
    if (t != PTC_PAD) {
        c->fup.bound = (t == PTC_PTW && e->it.pkt.u.ptw.ip) || (t == PTC_EXSTOP && e->it.pkt.u.exstop.ip);
        c->fup.pos_lo = e->pos_lo;
        c->fup.pos_hi = e->pos_hi;
        c->fup.flags = e->flags & (PTC__CLK_EXACT | PTC__CLK_NEAR);
    }
    e->cycles = c->tsc.cycles;
    e->flags |= (uint32_t)c->rate.cbr << 16;
    if (t != PTC_PAD && t != PTC_CYC) c->at.cyc_just_before = 0;
    /* the TMA belongs to the TSC before it; an MTC between them (seen in
       libipt's vectors) is from before the TSC and leaves them paired */
    if (t != PTC_TSC && t != PTC_TMA && t != PTC_CBR && t != PTC_PAD && t != PTC_CYC && t != PTC_MTC) c->tsc.run = 0;
}

PTCDEF ptc_status ptc_clock_push(ptc_clock *c, const ptc_item *item)
{
    ptc__clk_entry *e;
    ptc__clk_step s;
    if (!c || !item) return PTC_ERR_BAD_ARGUMENT;
    if (c->win.finished || c->win.count == PTC_CLOCK_WINDOW) return PTC_ERR_BAD_STATE;
    e = ptc__clk_at(c, c->win.count);
    e->it = *item;
    e->lo = e->point = e->cycles = 0;
    e->hi = e->hi_by_mtc = UINT64_MAX;
    e->pos_lo = e->pos_hi = PTC__CLK_NOPOS;
    e->flags = 0;
    memset(&s, 0, sizeof s);
    /* an error is a loss, but for a corrupt TMA (SKZ84): only its payload
       and the bogus byte after it are wrong, nothing is missing */
    s.type = item->error == PTC_OK ? item->pkt.type : item->error == PTC_ERR_CORRUPT_TMA ? PTC_TMA : PTC_NONE;
    /* the policy's run of MTCs, as a checker sees it (its verdicts are not
       the clock's business) */
    if (item->error == PTC_OK) (void)ptc_checker_packet(&c->due.chk, &item->pkt);
    s.cyc_before = s.type == PTC_TSC ? c->at.cyc_pending : 0;
    if (c->at.cyc_pending && s.type != PTC_PAD) ptc__clk_apply_cyc(c, s.type);
    switch (s.type) {
    case PTC_NONE: case PTC_OVF: ptc__clk_on_loss(c, e); break;
    case PTC_TSC: ptc__clk_on_tsc(c, e, &s); break;
    case PTC_TMA: ptc__clk_on_tma(c, e, &s); break;
    case PTC_MTC: ptc__clk_on_mtc(c, e, &s); break;
    case PTC_CYC: ptc__clk_on_cyc(c, e); break;
    case PTC_CBR: ptc__clk_on_cbr(c, e, &s); break;
    case PTC_PSB: ptc__clk_on_psb(c); break;
    case PTC_PSBEND: c->psb.at = 0; break;
    case PTC_PWRX: /* the wake's PWRX, sent with its TSC */
        if (c->tsc.run) {
            e->lo = c->tsc.full;
            e->hi = c->tsc.hi;
            s.same_instant = 1;
        }
        break;
    default: break;
    }
    ptc__clk_place(c, e, &s);
    c->win.count++;
    if (s.anchor) {
        ptc__clk_anchor b;
        ptc__clk_calibrate(c, e);
        ptc__clk_anchor_of(e, &b);
        ptc__clk_finalize(c, c->win.count, &b, s.gap_floor);
        ptc__clk_anchor_of(e, &c->anchors.last); /* with its final interval */
        if (e->pos_lo != PTC__CLK_NOPOS) c->anchors.positioned = c->anchors.last;
        /* an anchor whose cycle position is a range (a PSB+'s TSC with no
           CYC in it) would carry that uncertainty into every point after
           it: the cycles from the last exact one are better */
        if (e->pos_lo != PTC__CLK_NOPOS && (e->pos_lo == e->pos_hi || !ptc__clk_guess_ref(c, e->epoch)))
            ptc__clk_set_guess_ref(c, &c->anchors.last);
    } else if (c->win.count == PTC_CLOCK_WINDOW && c->win.ready + 1 < c->win.count) {
        /* the window is full: the oldest goes with what is known - never
           the newest (a CYC waiting for the next packet, the start of a
           wake): then all the others are final, and the caller pops them */
        ptc__clk_finalize(c, c->win.ready + 1, NULL, 0);
    }
    return PTC_OK;
}

PTCDEF void ptc_clock_finish(ptc_clock *c)
{
    if (!c || c->win.finished) return;
    if (c->at.cyc_pending) ptc__clk_apply_cyc(c, PTC_PAD);
    ptc__clk_unpin_trailing_cycs(c);
    c->win.finished = 1;
    if (c->win.ready < c->win.count) ptc__clk_finalize(c, c->win.count, NULL, 0);
}

PTCDEF void ptc_clock_order_init(ptc_clock_order *o) { memset(o, 0, sizeof *o); }

PTCDEF int ptc_clock_order_next(ptc_clock_order *o, const ptc_timed_item *t)
{
    ptc_packet_type type = t->item.error == PTC_OK ? t->item.pkt.type : PTC_NONE;
    int tnt = ptc_packet_is_tnt(type), ok;
    if (!t->have_time) return 1;
    ok = tnt ? t->tsc >= o->ntp_point && t->tsc_lo >= o->ntp_lo : t->tsc >= o->point && t->tsc_lo >= o->lo;
    if (t->tsc > o->point) o->point = t->tsc;
    if (t->tsc_lo > o->lo) o->lo = t->tsc_lo;
    if (ptc_packet_is_ntp(type)) {
        o->ntp_point = o->point;
        o->ntp_lo = o->lo;
    }
    return ok;
}

PTCDEF ptc_status ptc_clock_pop(ptc_clock *c, ptc_timed_item *out)
{
    ptc__clk_entry *e;
    if (!c || !out) return PTC_ERR_BAD_ARGUMENT;
    if (!c->win.ready) return c->win.finished && !c->win.count ? PTC_END : PTC_NEED_INPUT;
    e = ptc__clk_at(c, 0);
    out->item = e->it;
    out->have_time = e->lo != 0; /* before the first TSC nothing is known */
    out->tsc_lo = e->lo;
    out->tsc_hi = e->lo ? e->hi : 0;
    out->tsc = e->lo ? e->point : 0;
    out->have_cycles = (uint8_t)(e->it.error == PTC_OK && e->cycles != 0);
    out->cycles = e->cycles;
    out->conflict = (uint8_t)!!(e->flags & PTC__CLK_CONFLICT);
    c->win.head = (c->win.head + 1) % PTC_CLOCK_WINDOW;
    c->win.count--;
    c->win.ready--;
    if (c->win.open_from) c->win.open_from--;
    if (c->psb.at > 1) c->psb.at--; /* (at 1 once the PSB itself is out: the PSB+ goes on) */
    if (c->at.cyc_pending) c->at.cyc_pending--;
    return PTC_OK;
}

/* ---- 3.13 Timed events ------------------------------------------------ */

/* A cycle position not known yet. */
#define PTC__EV_NOPOS UINT64_MAX

PTCDEF int ptc_events_is_event(const ptc_item *it)
{
    if (!it) return 0;
    if (it->error != PTC_OK) return 1;
    return it->pkt.type != PTC_PAD && !ptc_packet_is_timing(it->pkt.type);
}

static ptc__ev_entry *ptc__ev_at(ptc_events *ev, size_t i) { return &ev->win.ring[(ev->win.head + i) % PTC_EVENTS_WINDOW]; }

/* The cycle counts no longer relate to those before (SPEC 3.5 rule 1). */
static void ptc__ev_break(ptc_events *ev)
{
    ev->cyc.epoch++;
    ev->cyc.pos = 0;
    ev->branch.first = ev->branch.lone = ev->branch.cand = PTC__EV_NOPOS;
    ev->anchor.ref_waits_cyc = 0;
}

/* A lower bound on the time at cycle position pos now: the last anchor's,
   plus the cycles counted since its latest position at the slowest rate. */
static uint64_t ptc__ev_lo_at(const ptc_events *ev, uint64_t pos)
{
    const ptc__ev_anchor *a = &ev->anchor.ref;
    if (!a->valid || a->epoch != ev->cyc.epoch || ev->anchor.ref_waits_cyc || pos <= a->pos_hi) return a->lo;
    return ptc__math_sat_add(a->lo, ptc__clk_cyc_ticks(&ev->rate, pos - a->pos_hi, ev->rate.cbr, 0));
}

/* The anchor just computed, if at an exact cycle position, or the first
   of its epoch (taken to be at the counter's reset), is what points count
   from (SPEC 3.7 rule 3). */
static void ptc__ev_note_ref(ptc_events *ev)
{
    const ptc__ev_anchor *a = &ev->anchor.ref;
    if (a->exact || (a->pos_lo == 0 && !(ev->anchor.guess_ref.valid && ev->anchor.guess_ref.epoch == a->epoch))) ev->anchor.guess_ref = *a;
}

/* The last MTC's interval, computed when something needs it (SPEC 3.3). */
static void ptc__ev_settle(ptc_events *ev)
{
    ptc__ev_anchor *a = &ev->anchor.ref;
    if (!ev->anchor.ref_stale) return;
    ev->anchor.ref_stale = 0;
    a->lo = ptc__clk_edge(&ev->rate, &ev->ctc, ev->ctc.art_rel, 0);
    a->hi = ptc__math_sat_add(ptc__clk_edge(&ev->rate, &ev->ctc, ev->ctc.art_rel, 1), ev->rate.mtc_lag);
    /* its edge plus half its jitter (SPEC 3.7 rule 1) */
    a->point = ptc__math_sat_add(a->lo, ptc__clk_cyc_ticks(&ev->rate, ev->cfg.real.mtc_jitter, ev->rate.cbr, 1) / 2);
    if (a->lo > ev->now.lo) ev->now.lo = a->lo;
    ptc__ev_note_ref(ev);
    ev->now.pos = PTC__EV_NOPOS; /* the cycles count from this anchor now */
}

/* The anchor ev->ref, now computed, is the first after the events still
   waiting: their upper bound, less the cycles counted between them. */
static void ptc__ev_bound_waiting(ptc_events *ev, size_t upto, int by_cycles)
{
    const ptc__ev_anchor *b = &ev->anchor.ref;
    uint64_t later = UINT64_MAX; /* the least upper bound of the events after, but TNTs' (their first branches') */
    size_t i;
    for (i = upto; i-- > ev->win.ready;) {
        ptc__ev_entry *e = ptc__ev_at(ev, i);
        uint64_t hi = b->hi;
        /* the MTC that had to come came later: the clock stopped where
           the trace does not show it (with a stop it shows after the
           event, that stop is why) */
        if (by_cycles && b->lo > e->cap && e->stops == ev->anchor.stops) e->cap = UINT64_MAX;
        if (e->cap < hi) hi = e->cap;
        if (by_cycles && e->epoch == b->epoch && e->pos_hi != PTC__EV_NOPOS && b->pos_lo > e->pos_hi) {
            uint64_t t = ptc__clk_cyc_ticks(&ev->rate, b->pos_lo - e->pos_hi, ev->rate.cbr, 0);
            hi = hi > t ? hi - t : 0;
        }
        if (later < hi) hi = later;
        if (hi < e->hi) e->hi = hi;
        if (!e->tnt) later = e->hi;
    }
    if (upto > ev->win.ready) ev->win.ready = upto;
}

/* A new anchor at the current position; its pos_hi waits for the next
   CYC unless a CYC came right before it. */
static void ptc__ev_new_ref(ptc_events *ev, int exact)
{
    ptc__ev_anchor *a = &ev->anchor.ref;
    a->valid = 1;
    a->epoch = ev->cyc.epoch;
    a->pos_lo = a->pos_hi = ev->cyc.pos;
    a->exact = (uint8_t)exact;
    ev->anchor.ref_waits_cyc = !exact;
    ev->anchor.stop_since_ref = 0;
    ev->now.pos = PTC__EV_NOPOS; /* the lower bound counts from it now */
}

/* A CYC right after another has no packet of its own: the one before it
   most likely timed a TNT's first branch. One whose value is all ones may
   be the counter's wrap, sent whatever the threshold: not a candidate. */
static PTC__INLINE void ptc__ev_note_cyc(ptc_events *ev, uint64_t cycles)
{
    int wrap = (cycles & (cycles + 1)) == 0 &&
               (cycles >= 4095 || (ev->cfg.trace.cyc_bits < 64 && cycles == (UINT64_C(1) << ev->cfg.trace.cyc_bits) - 1));
    if (ev->cyc.just_before && ev->branch.cand != PTC__EV_NOPOS && ev->branch.lone == PTC__EV_NOPOS) {
        ev->branch.lone = ev->branch.cand;
        ev->branch.seen_lone = 1;
    }
    ev->branch.cand = wrap ? PTC__EV_NOPOS : ev->cyc.pos;
    if (!wrap && ev->branch.first == PTC__EV_NOPOS) ev->branch.first = ev->cyc.pos;
}

/* Where a TNT with no CYC right before it most likely had its first
   branch: at the first lone CYC since the last event; else, in a trace
   that shows its TNTs' CYCs go out at their first branches, between the
   first and the last CYC; in one that shows TNTs go out whole, half the
   threshold's window past the last; else at the last (SPEC 3.7, as
   ptc__clk_tnts_go_whole tells the two readings apart). */
static uint64_t ptc__ev_first_branch_pos(ptc_events *ev)
{
    ptc__ev_branch *b = &ev->branch;
    if (b->lone != PTC__EV_NOPOS) return b->lone;
    if (b->first == PTC__EV_NOPOS) return ev->cyc.pos;
    if (b->seen_lone) return b->first + (ev->cyc.pos - b->first) / 2;
    if (b->unplaced < PTC__CLK_WHOLE_TNT_EVIDENCE) {
        b->unplaced++;
        return ev->cyc.pos;
    }
    return ev->cfg.trace.ctl.cyc_thresh >= 2 && ev->cfg.trace.ctl.cyc_thresh <= 15 ? ev->cyc.pos + (UINT64_C(1) << (ev->cfg.trace.ctl.cyc_thresh - 2)) : ev->cyc.pos;
}

static PTC__INLINE void ptc__ev_cyc(ptc_events *ev, uint64_t cycles)
{
    size_t i;
    if (ev->cfg.trace.cyc_bits < 64 && cycles >> ev->cfg.trace.cyc_bits) { /* more than the counter holds */
        ptc__ev_break(ev);
        ev->cyc.just_before = 0;
        return;
    }
    ev->cyc.pos += cycles;
    ev->tsc.cycles += cycles;
    ptc__ev_note_cyc(ev, cycles);
    ev->cyc.just_before = 1;
    ev->cyc.last = cycles;
    if (ev->anchor.ref_waits_cyc) {
        ev->anchor.ref.pos_hi = ev->cyc.pos;
        ev->anchor.ref_waits_cyc = 0;
    }
    for (i = ev->win.open_from; i < ev->win.count; i++) {
        ptc__ev_entry *e = ptc__ev_at(ev, i);
        if (e->epoch == ev->cyc.epoch && ev->cyc.pos < e->pos_hi) e->pos_hi = ev->cyc.pos;
    }
    ev->win.open_from = ev->win.count;
}

static PTC__INLINE void ptc__ev_mtc(ptc_events *ev, uint8_t payload)
{
    uint64_t step;
    int exact = ev->cyc.just_before;
    ev->cyc.just_before = 0;
    if (ev->psb.in && !ev->cfg.real.psb_early_tsc) ev->psb.after_tsc = 0; /* the PSB+'s instant is over */
    if (ev->cfg.trace.policy.threshold) { /* (the run matters only when the policy suppresses) */
        ptc_packet mtc;
        memset(&mtc, 0, sizeof mtc);
        mtc.type = PTC_MTC;
        mtc.u.mtc.ctc = payload;
        (void)ptc_checker_packet(&ev->due.chk, &mtc);
    }
    if (!ptc__clk_ctc_mtc(&ev->ctc, ev->cfg.trace.ctl.mtc_freq, payload, &step)) return;
    /* MTCs went missing with no stop between: suppressed (SPEC 3.7) */
    if (ptc__clk_mtc_gap(&ev->cfg, &ev->ctc, step) && !ev->due.stop_since_mtc) ev->due.seen_gap = 1;
    ev->due.stop_since_mtc = 0;
    ev->due.hi_known = 0;
    ptc__ev_new_ref(ev, exact);
    ev->anchor.ref.mtc = 1;
    ev->anchor.ref_stale = 1;
    if (ev->win.ready < ev->win.count) { /* events wait for it: their upper bound */
        ptc__ev_settle(ev);
        ptc__ev_bound_waiting(ev, ev->win.count, 1);
    }
}

/* A TSC inside a PSB+ with the SDM's clocks: the PSB+ is its instant,
   before it (the PSB, its TSC's lower bound) and after it up to PSBEND. */
static void ptc__ev_psb_instant(ptc_events *ev, uint64_t full)
{
    size_t i;
    for (i = ev->psb.first ? ev->psb.first - 1 : ev->win.count; i < ev->win.count; i++) {
        ptc__ev_entry *e = ptc__ev_at(ev, i);
        e->have_time = 1;
        if (e->lo < full) e->lo = full;
        if (ev->now.ntp_lo < full) ev->now.ntp_lo = full; /* (a TNT's first branch is after them) */
    }
    ev->psb.after_tsc = 1;
    ev->psb.lo = full;
    ev->psb.hi = full + 1;
}

/* The TSC `full` as the anchor after the events waiting: they went out
   before it was sampled, by its value plus one; but a TSC sampled before
   the edge of an MTC that went out ahead of it (on Skylake, at a PSB+ or
   a wake) is after that MTC's packet, and the events between them too;
   with psb_early_tsc, a PSB+'s own events ahead of its TSC may come after
   the sample (SPEC 3.11). */
static void ptc__ev_tsc_bounds(ptc_events *ev, uint64_t full, int mtc_ahead, uint64_t mtc_hi)
{
    int sampled_early = ev->psb.in && ev->cfg.real.psb_early_tsc;
    uint64_t by = full + 1;
    if (ev->cfg.real.psb_early_tsc && mtc_ahead) by = ptc__math_sat_add(mtc_hi, ev->rate.mtc_lag);
    ev->anchor.ref.hi = by;
    ptc__ev_bound_waiting(ev, sampled_early && ev->psb.first ? ev->psb.first - 1 : ev->win.count, 0);
    /* sampled before it went out: its packet's time is not bounded above
       by its value, nor are the cycles after it */
    if (sampled_early) ev->anchor.ref.hi = UINT64_MAX;
    ev->tsc.same_hi = sampled_early ? 0 : by;
}

static void ptc__ev_tsc(ptc_events *ev, uint64_t v)
{
    uint64_t full = ptc__clk_tsc_extend(ev->tsc.full, ev->tsc.have, v), mtc_hi;
    int exact = ev->cyc.just_before, mtc_ahead;
    ptc__ev_settle(ev);
    mtc_ahead = ev->anchor.ref.valid && ev->anchor.ref.mtc && ev->anchor.ref.lo > full;
    mtc_hi = ev->anchor.ref.hi;
    ev->tsc.full = full;
    ev->tsc.have = 1;
    ev->tsc.run = 1;
    ev->due.stop_since_mtc = 1;
    ev->ctc.valid = 0; /* the CTC base waits for the TMA */
    ev->tsc.cycles = 0;
    ev->cyc.just_before = 0;
    if (!ev->psb.in) { /* a wake: a clock stop before it; the new epoch starts at a CYC right before it */
        ev->anchor.stops++;
        ptc__ev_break(ev);
    }
    ptc__ev_new_ref(ev, exact);
    ev->anchor.ref.mtc = 0;
    ev->anchor.ref.lo = ev->anchor.ref.point = full;
    ptc__ev_note_ref(ev);
    if (full > ev->now.lo) ev->now.lo = full;
    ptc__ev_tsc_bounds(ev, full, mtc_ahead, mtc_hi);
    ev->psb.tsc = ev->psb.in;
    if (ev->psb.in && !ev->cfg.real.psb_early_tsc) ptc__ev_psb_instant(ev, full);
}

static void ptc__ev_tma(ptc_events *ev, const ptc_packet *p)
{
    ev->cyc.just_before = 0;
    if (!ev->tsc.run || !ev->cfg.trace.ratios.cpuid_15_eax || p->u.tma.fc > ev->tsc.full || (ev->cfg.trace.errata & PTC_ERRATUM_SKZ84)) return;
    ptc__clk_ctc_tma(&ev->ctc, ev->tsc.full, p->u.tma.ctc, p->u.tma.fc);
}

/* A new ratio: cycles after it convert at it, so the counts start
   again. Sent with a TSC (a PSB+, a wake, a frequency change), it is at
   the TSC's instant: the TSC stays the anchor, at the start of the new
   counts, and the first MTC edge after the TMA is emitted (SPEC 3.4). */
static uint64_t ptc__ev_guess(const ptc_events *ev, uint64_t pos);

static void ptc__ev_cbr(ptc_events *ev, uint8_t ratio, int with_tsc)
{
    /* without a TSC, the points count cycles across it (as the full clock
       does, ptc__clk_carry_points): from where the last CYC was */
    uint64_t carried = with_tsc ? 0 : ptc__ev_guess(ev, ev->cyc.pos);
    if (!with_tsc && !carried && ev->tsc.have && ev->cfg.trace.ctl.cyc_en) carried = ev->now.lo; /* (no cycles since the anchor) */
    ev->rate.cbr = ratio;
    ptc__clk_rate_set(&ev->rate);
    if (ev->cfg.trace.ratios.nom_num && ratio && ev->cfg.trace.ratios.nom_den <= UINT64_MAX / 256)
        ptc__math_divider_init(&ev->guess_div, ev->cfg.trace.ratios.nom_den * ratio);
    ptc__ev_break(ev);
    if (carried) {
        ptc__ev_anchor *g = &ev->anchor.guess_ref;
        memset(g, 0, sizeof *g);
        g->lo = g->hi = g->point = carried;
        g->epoch = ev->cyc.epoch;
        g->valid = g->exact = 1;
    }
    if (!with_tsc || ev->ctc.have_mtc) {
        ev->due.stop_since_mtc = ev->anchor.stop_since_ref = 1;
        ev->anchor.stops++;
        return;
    }
    ev->anchor.ref.epoch = ev->cyc.epoch;
    ev->anchor.ref.pos_lo = ev->anchor.ref.pos_hi = 0;
    ev->anchor.ref_waits_cyc = !ev->anchor.ref.exact;
    ev->now.pos = PTC__EV_NOPOS;
    ptc__ev_note_ref(ev);
    if (ev->ctc.valid) {
        uint64_t n = ev->cfg.trace.ctl.mtc_freq, first = (UINT64_C(1) << n) - (ev->ctc.base_low & ((UINT64_C(1) << n) - 1));
        if (ev->cfg.real.psb_early_tsc && ev->psb.in) first += UINT64_C(1) << n; /* an MTC of the PSB+ may be out */
        first += (uint64_t)ev->cfg.real.mtc_lost << n;
        ev->due.hi = ptc__math_sat_add(ptc__clk_edge(&ev->rate, &ev->ctc, first, 1), ev->rate.mtc_lag);
        ev->due.hi_known = 1;
        ev->due.stop_since_mtc = 0;
    }
}

/* What an event does to the clock's state, after it took its time. */
static void ptc__ev_after_event(ptc_events *ev, const ptc_item *it)
{
    ptc_packet_type t = it->error == PTC_OK ? it->pkt.type : PTC_NONE;
    int tsc_run = ev->tsc.run;
    ev->tsc.run = tsc_run && (t == PTC_CBR || t == PTC_PWRX); /* (sent together with the TSC) */
    if (t == PTC_NONE || t == PTC_OVF || t == PTC_PWRE || t == PTC_EXSTOP || t == PTC_MWAIT) {
        /* the core clock may stop here (SPEC 3.5 rule 5): cycles no longer
           measure the time; what came before still came before the next
           MTC due, which a sleep after it explains being late */
        ev->anchor.stop_since_ref = 1;
        ev->anchor.stops++;
        if (t == PTC_NONE || t == PTC_OVF) ev->due.stop_since_mtc = 1; /* packets lost */
    }
    if (t != PTC_NONE && ev->cfg.trace.policy.threshold) (void)ptc_checker_packet(&ev->due.chk, &it->pkt);
    if (t == PTC_NONE || t == PTC_OVF) { /* packets lost: the base and the counts with them */
        ev->ctc.valid = 0;
        ptc__ev_break(ev);
        ev->psb.in = ev->psb.after_tsc = ev->psb.tsc = 0;
    } else if (t == PTC_CBR) {
        ptc__ev_cbr(ev, it->pkt.u.cbr.ratio, tsc_run);
    } else if (t == PTC_PSB) {
        if (ev->cfg.trace.errata & PTC_ERRATUM_SKL168) { /* the CYC before it may be lost with its cycles */
            ptc__ev_break(ev);
            ev->anchor.stop_since_ref = 1;
        }
        ev->psb.in = 1;
        ev->psb.after_tsc = ev->psb.tsc = 0;
        ev->psb.first = ev->win.count; /* (the PSB's own index + 1) */
    } else if (t == PTC_PSBEND) {
        ev->psb.in = ev->psb.after_tsc = ev->psb.tsc = 0;
    }
}

/* The bound from the next MTC that must be emitted, for an event now:
   computed once per MTC, before the events after it restart the run. */
static uint64_t ptc__ev_cap(ptc_events *ev)
{
    uint64_t art;
    if (!ev->ctc.valid || ev->due.stop_since_mtc) return UINT64_MAX;
    if (!ev->due.hi_known) {
        if (!ev->ctc.have_mtc) return UINT64_MAX;
        art = ev->ctc.art_rel + (ptc__clk_periods_to_emitted(&ev->cfg, &ev->due.chk, ev->ctc.last_payload) << ev->cfg.trace.ctl.mtc_freq);
        ev->due.hi = ptc__math_sat_add(ptc__clk_edge(&ev->rate, &ev->ctc, art, 1), ev->rate.mtc_lag);
        ev->due.hi_known = 1;
    }
    return ev->due.hi;
}

/* An upper bound for an event at cycle position pos at the latest, from
   the anchor before it: with no stop the trace shows since (assumption A4,
   SPEC 3.8), the cycles counted are all the time that passed. */
static uint64_t ptc__ev_hi_from_ref(const ptc_events *ev, uint64_t pos)
{
    const ptc__ev_anchor *a = &ev->anchor.ref;
    if (!a->valid || ev->anchor.ref_stale || a->epoch != ev->cyc.epoch || ev->anchor.stop_since_ref || !ev->rate.cbr) return UINT64_MAX;
    return ptc__math_sat_add(a->hi, ptc__clk_cyc_ticks(&ev->rate, pos - a->pos_lo, ev->rate.cbr, 1));
}

/* A CYC-eligible event (or a TNT's first branch) with no CYC since the
   anchor before it came less than 2^(T-1) cycles after the counter's last
   reset: its point, at most half that window past lo (2^(T-2) cycles at
   the slowest rate; none below threshold 2; an unknown threshold taken as
   2, as those in use are small), as SPEC 3.7's last guess. */
static uint64_t ptc__ev_near_guess(const ptc_events *ev, uint64_t lo)
{
    unsigned th = ev->cfg.trace.ctl.cyc_thresh <= 15 ? ev->cfg.trace.ctl.cyc_thresh : 2;
    if (!lo) return 0;
    return th < 2 ? lo : ptc__math_sat_add(lo, ptc__clk_cyc_ticks(&ev->rate, UINT64_C(1) << (th - 2), ev->rate.cbr, 0));
}

/* The point an event's cycles give: the last anchor's point plus the
   cycles since at the configured nom (SPEC 3.13), 0 when they give none. */
static uint64_t ptc__ev_guess(const ptc_events *ev, uint64_t pos)
{
    const ptc__ev_anchor *a = &ev->anchor.guess_ref;
    /* (an anchor before the epoch's first CYC counts from the counter's
       reset, position 0, SPEC 3.7 rule 3; with no cycles since it they
       say nothing) */
    if (!a->valid || a->epoch != ev->cyc.epoch || !(a->exact || a->pos_lo == 0) || !ev->cfg.trace.ratios.nom_num ||
        !ev->rate.cbr || ev->cfg.trace.ratios.nom_den > UINT64_MAX / 256 || (pos <= a->pos_lo && !a->exact))
        return 0;
    if (pos < a->pos_lo) { /* a TNT's first branch, before the anchor */
        uint64_t back = ptc__math_muldiv_by(&ev->guess_div, a->pos_lo - pos, ev->cfg.trace.ratios.nom_num, 1);
        return a->point > back ? a->point - back : 0;
    }
    return ptc__math_sat_add(a->point, ptc__math_muldiv_by(&ev->guess_div, pos - a->pos_lo, ev->cfg.trace.ratios.nom_num, 0));
}

/* The events that change the clock's state (ptc__ev_after_event) or take
   a TSC's instant: the rest take the short way. */
#define PTC__EV_TYPE_BIT(t) (UINT64_C(1) << (t))
#define PTC__EV_SPECIAL                                                                                          \
    (PTC__EV_TYPE_BIT(PTC_NONE) | PTC__EV_TYPE_BIT(PTC_OVF) | PTC__EV_TYPE_BIT(PTC_CBR) | PTC__EV_TYPE_BIT(PTC_PWRX) | \
     PTC__EV_TYPE_BIT(PTC_PWRE) | PTC__EV_TYPE_BIT(PTC_EXSTOP) | PTC__EV_TYPE_BIT(PTC_MWAIT) |                        \
     PTC__EV_TYPE_BIT(PTC_PSB) | PTC__EV_TYPE_BIT(PTC_PSBEND))

/* The lower bound now, from the last anchor and the cycles since it. */
static PTC__INLINE void ptc__ev_catch_up(ptc_events *ev)
{
    if (ev->anchor.ref_stale) ptc__ev_settle(ev);
    if (ev->now.pos != ev->cyc.pos || ev->now.epoch != ev->cyc.epoch) {
        uint64_t now = ptc__ev_lo_at(ev, ev->cyc.pos);
        if (now > ev->now.lo) ev->now.lo = now;
        ev->now.pos = ev->cyc.pos;
        ev->now.epoch = ev->cyc.epoch;
    }
}

/* What the cycles say of event e of type t (PTC_NONE: an error): its
   latest position, the bound that gives from the anchor before, and its
   point (SPEC 3.13). exact: a CYC right before it times it. */
static void ptc__ev_by_cycles(ptc_events *ev, ptc__ev_entry *e, ptc_packet_type t, int exact)
{
    int timed_by_cyc = t != PTC_NONE && t != PTC_OVF && (ptc_packet_is_cyc_eligible(t) || ptc_packet_is_tnt(t));
    /* with no CYC right before it, the threshold bounds how far past the
       last CYC position it is (SPEC 3.5 rule 4) */
    uint64_t window = timed_by_cyc && !exact && ev->cfg.trace.ctl.cyc_en && ev->cfg.trace.ctl.cyc_thresh <= 15
                          ? (ev->cfg.trace.ctl.cyc_thresh ? (UINT64_C(1) << (ev->cfg.trace.ctl.cyc_thresh - 1)) - 1 : 0)
                          : PTC__EV_NOPOS;
    e->pos_hi = exact ? ev->cyc.pos : window != PTC__EV_NOPOS ? ev->cyc.pos + window : PTC__EV_NOPOS;
    e->hi = e->pos_hi != PTC__EV_NOPOS ? ptc__ev_hi_from_ref(ev, e->pos_hi) : UINT64_MAX;
    /* a TNT's first branch came after the last event: with CYCs since,
       most likely at one of them */
    e->guess = ptc__ev_guess(ev, ptc_packet_is_tnt(t) && !exact ? ptc__ev_first_branch_pos(ev) : ev->cyc.pos);
    if (!e->guess && timed_by_cyc && ev->cfg.trace.ctl.cyc_en && ev->anchor.ref.valid && ev->anchor.ref.epoch == ev->cyc.epoch &&
        ev->cyc.pos == ev->anchor.ref.pos_lo)
        e->guess = ptc__ev_near_guess(ev, e->lo); /* no CYC since the anchor: most likely right after it */
    if (ev->psb.tsc && !e->guess) e->guess = ev->tsc.full; /* a PSB+ is one instant, its TSC's (SPEC 3.6) */
    if (t == PTC_CBR && !ev->tsc.run && !e->guess && ev->cfg.trace.ctl.cyc_en)
        e->guess = e->lo; /* most likely sent with what came before (SPEC 3.7, PTC__CLK_AT_START) */
    ev->branch.first = ev->branch.lone = ev->branch.cand = PTC__EV_NOPOS;
}

/* An event sent with a TSC before it (SPEC 3.6): 1 when it takes the
   TSC's interval, which is then final. */
static int ptc__ev_at_tsc(ptc_events *ev, ptc__ev_entry *e, ptc_packet_type t)
{
    uint64_t at;
    if (t == PTC_NONE || t == PTC_OVF) return 0;
    if (ev->psb.after_tsc) { /* in a PSB+, at its TSC's instant (SDM clocks) */
        at = ev->psb.lo;
        e->hi = ev->psb.hi;
    } else if (ev->tsc.run && (t == PTC_CBR || t == PTC_PWRX) && !ev->ctc.have_mtc && ev->tsc.same_hi) {
        at = ev->tsc.full;
        e->hi = ev->tsc.same_hi;
    } else {
        return 0;
    }
    e->lo = at > ev->now.lo ? at : ev->now.lo; /* (time never goes back) */
    return 1;
}

static PTC__INLINE void ptc__ev_event(ptc_events *ev, const ptc_item *it)
{
    ptc_packet_type t = it->error == PTC_OK ? it->pkt.type : PTC_NONE;
    int tnt = ptc_packet_is_tnt(t);
    int exact = ev->cyc.just_before && t != PTC_OVF && (tnt || ptc_packet_is_cyc_eligible(t));
    ptc__ev_entry *e = ptc__ev_at(ev, ev->win.count);
    if ((t == PTC_OVF || t == PTC_NONE) && ev->cyc.just_before) {
        /* a CYC sent with an OVF (after packets were lost) or cut by an
           error tells nothing: its cycles are not counted, as the full
           clock does not count them (SPEC 3.5 rule 2) */
        ev->cyc.pos -= ev->cyc.last;
        ev->tsc.cycles -= ev->cyc.last;
    }
    ptc__ev_catch_up(ev);
    if (&e->it != it) e->it = *it;
    e->have_time = (uint8_t)ev->tsc.have;
    e->tnt = (uint8_t)tnt;
    e->cycles = ev->tsc.cycles;
    e->epoch = ev->cyc.epoch;
    e->stops = ev->anchor.stops;
    e->bound_fup = (uint8_t)(t == PTC_FUP && ev->fup_bound);
    ev->fup_bound = (t == PTC_PTW && it->pkt.u.ptw.ip) || (t == PTC_EXSTOP && it->pkt.u.exstop.ip);
    /* a TNT's first branch may precede the timing packets since the last
       event; the event itself went out after all of them */
    e->lo = tnt && !exact ? ev->now.ntp_lo : ev->now.lo;
    e->floor = ev->now.lo; /* (where libipt and perf put a TNT whose branch the cycles do not place) */
    ptc__ev_by_cycles(ev, e, t, exact);
    if ((t == PTC_TIP || t == PTC_TIP_PGD) && e->guess && ev->win.count) { /* a FUP before it: one event (SPEC 3.7) */
        ptc__ev_entry *f = ptc__ev_at(ev, ev->win.count - 1);
        if (f->it.error == PTC_OK && f->it.pkt.type == PTC_FUP && !f->bound_fup && f->epoch == e->epoch && f->stops == e->stops)
            f->guess = e->guess;
    }
    e->cap = t == PTC_NONE || t == PTC_OVF ? UINT64_MAX : ptc__ev_cap(ev); /* (MTCs were lost before those) */
    ev->win.count++;
    if (ptc__ev_at_tsc(ev, e, t) && ev->win.ready == ev->win.count - 1) ev->win.ready = ev->win.count;
    if (t != PTC_NONE) ev->now.ntp_lo = ev->now.lo;
    ev->cyc.just_before = 0;
    if (((PTC__EV_SPECIAL >> t) & 1) || ev->tsc.run || ev->cfg.trace.policy.threshold) ptc__ev_after_event(ev, it);
}

/* Everything the decoder reports goes through here but the PADs, MTCs
   and CYCs the fast loop takes itself. 1 when it was an event. */
static int ptc__ev_item(ptc_events *ev, const ptc_item *it)
{
    if (it->error == PTC_OK) {
        switch (it->pkt.type) {
        case PTC_PAD: return 0;
        case PTC_CYC: ptc__ev_cyc(ev, it->pkt.u.cyc.cycles); return 0;
        case PTC_MTC: ptc__ev_mtc(ev, it->pkt.u.mtc.ctc); return 0;
        case PTC_TSC: ptc__ev_tsc(ev, it->pkt.u.tsc.tsc); return 0;
        case PTC_TMA: ptc__ev_tma(ev, &it->pkt); return 0;
        default: break;
        }
    }
    ptc__ev_event(ev, it);
    return 1;
}

/* The tight loop, straight from the decoder's chunk while a whole
   packet's worth of bytes is ahead (so the PSB test may look one byte past
   each), until an event is ready: PADs, MTCs and one-byte CYCs by their
   first byte, any other packet as the stream decoder's own fast path
   takes it (ptc_decoder_next), and what that cannot take (an error, a
   PSB inside a packet, SKD007, the chunk's end) to the stream decoder. */
static void ptc__ev_fast(ptc_events *ev)
{
    ptc_decoder *dec = &ev->dec;
    const uint8_t *p;
    size_t at, avail, i;
    if (dec->searching || dec->pos < dec->chunk_off) return;
    at = (size_t)(dec->pos - dec->chunk_off);
    if (dec->chunk_len - at < PTC_MAX_PACKET_SIZE) return;
    p = dec->chunk + at;
    avail = dec->chunk_len - at;
    for (i = 0; i + PTC_MAX_PACKET_SIZE <= avail && !ev->win.ready && ev->win.count < PTC_EVENTS_WINDOW;) {
        uint8_t b = p[i];
        /* decoded in place, in the window's next slot: a copy of a packet
           just written a byte at a time would wait for those stores */
        ptc_item *it = &ptc__ev_at(ev, ev->win.count)->it;
        int n;
        if (dec->block == PTC_BLOCK_NONE) {
            if (b == PTC_OP_PAD) {
                i++;
                continue;
            }
            if (b == PTC_OP_MTC && !ptc__str_psb_hint(p + i, 2)) {
                ptc__ev_mtc(ev, p[i + 1]);
                i += 2;
                continue;
            }
            if (PTC__DEC_IS_CYC1(b) && !ptc__str_psb_hint(p + i, 1)) {
                ptc__ev_cyc(ev, b >> 3);
                i++;
                continue;
            }
        }
        n = ptc__str_fast_packet(dec, p + i, avail - i, &it->pkt);
        if (n == 0) break;
        it->offset = dec->pos + i;
        it->error = PTC_OK;
        if (dec->block != PTC_BLOCK_NONE || (ptc__pkt_facts_of[it->pkt.type].classes & (PTC_PC_IP | PTC_PC_DEC_STATE)))
            ptc__str_account(dec, it);
        else
            it->ip = 0, it->ip_known = 0;
        i += (size_t)n;
        ptc__ev_item(ev, it);
    }
    dec->pos += i;
}

PTCDEF ptc_status ptc_events_init(ptc_events *ev, const ptc_clock_config *cfg, unsigned flags, uint64_t base_offset)
{
    if (!ev || !cfg) return PTC_ERR_BAD_ARGUMENT;
    if (!ptc__clk_config_ok(cfg)) return PTC_ERR_BAD_CONFIG;
    memset(ev, 0, sizeof *ev);
    ev->cfg = *cfg;
    if (!ptc__clk_config_reduce(&ev->cfg)) return PTC_ERR_BAD_CONFIG;
    ptc__clk_rate_init(&ev->rate, &ev->cfg);
    ptc__clk_due_init(&ev->due, &ev->cfg);
    ev->branch.first = ev->branch.lone = ev->branch.cand = PTC__EV_NOPOS;
    ptc_decoder_init(&ev->dec, flags, base_offset);
    return PTC_OK;
}

PTCDEF ptc_status ptc_events_feed(ptc_events *ev, const uint8_t *buf, size_t len)
{
    if (!ev) return PTC_ERR_BAD_ARGUMENT;
    return ptc_decoder_feed(&ev->dec, buf, len);
}

PTCDEF void ptc_events_finish(ptc_events *ev)
{
    if (ev) ptc_decoder_finish(&ev->dec);
}

PTCDEF ptc_status ptc_events_init_buffer(ptc_events *ev, const ptc_clock_config *cfg, unsigned flags,
                                         const uint8_t *buf, size_t len)
{
    ptc_status st = ptc_events_init(ev, cfg, flags, 0);
    if (st != PTC_OK) return st;
    st = ptc_events_feed(ev, buf, len);
    ptc_events_finish(ev);
    return st;
}

/* The oldest event, final: its point (SPEC 3.13), and time going forward. */
static void ptc__ev_pop(ptc_events *ev, ptc_timed_item *out)
{
    ptc__ev_entry *e = ptc__ev_at(ev, 0);
    uint64_t lo = e->lo, hi = e->hi < e->cap ? e->hi : e->cap, point;
    int timed = e->have_time && lo;
    out->item = e->it;
    out->conflict = (uint8_t)(lo > hi);
    if (lo > hi) hi = lo;
    /* the cycles' guess; else the middle of what the anchors after it say,
       and with none (the window was full, the trace ended) its lower bound:
       the bound from the next MTC due is no evidence of when it came */
    point = e->guess ? e->guess : e->hi == UINT64_MAX ? lo : lo + (hi - lo) / 2;
    /* with no policy known and no MTC missing so far, the next MTC
       probably came on time: at most half a period past the lower bound */
    if (!e->guess && !(ev->cfg.trace.known & PTC_KNOW_POLICY) && !ev->due.seen_gap && ev->due.half_period && point - lo > ev->due.half_period)
        point = lo + ev->due.half_period;
    if (!e->guess && point < e->floor) point = e->floor;
    if (point < lo) point = lo;
    if (point > hi) point = hi;
    if (point < ev->win.out_point) point = ev->win.out_point;
    if (hi < point) hi = point;
    if (e->bound_fup && timed) { /* one event, one instant (SPEC 3.6) */
        lo = ev->win.last_lo;
        hi = ev->win.last_hi;
        point = ev->win.out_point;
    }
    if (timed) {
        ev->win.out_point = point;
        ev->win.last_lo = lo;
        ev->win.last_hi = hi;
    }
    /* (field by field: a memset of the whole item costs more than the rest) */
    out->have_time = (uint8_t)timed;
    out->tsc = timed ? point : 0;
    out->tsc_lo = timed ? lo : 0;
    out->tsc_hi = timed ? hi : 0;
    if (!timed) out->conflict = 0;
    out->have_cycles = (uint8_t)(e->it.error == PTC_OK && e->cycles != 0);
    out->cycles = e->cycles;
    ev->win.head = (ev->win.head + 1) % PTC_EVENTS_WINDOW;
    ev->win.count--;
    ev->win.ready--;
    if (ev->win.open_from) ev->win.open_from--;
    if (ev->psb.first > 1) ev->psb.first--;
}

PTCDEF ptc_status ptc_events_next(ptc_events *ev, ptc_timed_item *out)
{
    if (!ev || !out) return PTC_ERR_BAD_ARGUMENT;
    for (;;) {
        ptc_item it;
        ptc_status st;
        if (ev->win.ready) {
            ptc__ev_pop(ev, out);
            return PTC_OK;
        }
        if (ev->win.count == PTC_EVENTS_WINDOW) { /* the oldest goes with what is known */
            ev->win.ready = 1;
            continue;
        }
        if (ev->ended) {
            if (!ev->win.count) return PTC_END;
            ev->win.ready = ev->win.count;
            continue;
        }
        ptc__ev_fast(ev);
        if (ev->win.ready || ev->win.count == PTC_EVENTS_WINDOW) continue;
        st = ptc_decoder_next(&ev->dec, &it);
        if (st == PTC_END) ev->ended = 1;
        else if (st != PTC_OK) return st;
        else ptc__ev_item(ev, &it);
    }
}


/* ---- 4. Snapshot rings and navigation ------------------------------- */

PTCDEF ptc_status ptc_ring_init(ptc_ring *r, uint8_t *buf, size_t cap)
{
    if (!r || !buf || !cap) return PTC_ERR_BAD_ARGUMENT;
    r->buf = buf;
    r->cap = cap;
    r->written = 0;
    r->stop_at = UINT64_MAX;
    return PTC_OK;
}

PTCDEF size_t ptc_ring_write(ptc_ring *r, const uint8_t *bytes, size_t len)
{
    size_t taken = 0;
    if (!r || (!bytes && len)) return 0;
    if (r->stop_at - r->written < len) len = (size_t)(r->stop_at - r->written);
    while (taken < len) {
        size_t at = (size_t)(r->written % r->cap), n = r->cap - at;
        if (n > len - taken) n = len - taken;
        memcpy(r->buf + at, bytes + taken, n);
        taken += n;
        r->written += n;
    }
    return taken;
}

PTCDEF void ptc_ring_stop_after(ptc_ring *r, uint64_t after)
{
    if (!r) return;
    if (after <= r->stop_at - r->written) r->stop_at = r->written + after;
}

PTCDEF uint64_t ptc_ring_written(const ptc_ring *r) { return r ? r->written : 0; }

PTCDEF ptc_status ptc_ring_reader_init_flags(ptc_ring_reader *rd, const uint8_t *buf, size_t cap, uint64_t written,
                                             unsigned flags)
{
    size_t wrap;
    if (!rd || (!buf && cap) || (!cap && written)) return PTC_ERR_BAD_ARGUMENT;
    memset(rd, 0, sizeof *rd);
    rd->written = rd->decoded_from = written;
    if (written <= cap) { /* never wrapped: the bytes are buf[0, written) */
        ptc_decoder_init_buffer(&rd->dec, flags, buf, (size_t)written);
        return PTC_OK;
    }
    /* the oldest byte is where the next would have gone */
    wrap = (size_t)(written % cap);
    rd->kept_from = written - cap;
    rd->rest = buf;
    rd->rest_len = wrap;
    ptc_decoder_init(&rd->dec, flags, rd->kept_from);
    (void)ptc_decoder_feed(&rd->dec, buf + wrap, cap - wrap);
    if (!wrap) ptc_decoder_finish(&rd->dec);
    return PTC_OK;
}

PTCDEF ptc_status ptc_ring_reader_init(ptc_ring_reader *rd, const uint8_t *buf, size_t cap, uint64_t written)
{
    return ptc_ring_reader_init_flags(rd, buf, cap, written, 0);
}

PTCDEF ptc_status ptc_ring_reader_next(ptc_ring_reader *rd, ptc_item *item)
{
    ptc_status st;
    if (!rd || !item) return PTC_ERR_BAD_ARGUMENT;
    st = ptc_decoder_next(&rd->dec, item);
    if (st == PTC_NEED_INPUT) { /* the part before the wrap point: the newest bytes */
        (void)ptc_decoder_feed(&rd->dec, rd->rest, rd->rest_len);
        ptc_decoder_finish(&rd->dec);
        st = ptc_decoder_next(&rd->dec, item);
    }
    if (st == PTC_OK && item->error == PTC_OK && rd->decoded_from == rd->written) rd->decoded_from = item->offset;
    return st == PTC_NEED_INPUT ? PTC_END : st;
}

PTCDEF void ptc_ring_reader_lost(const ptc_ring_reader *rd, uint64_t *overwritten, uint64_t *decoded_from)
{
    if (overwritten) *overwritten = rd ? rd->kept_from : 0;
    if (decoded_from) *decoded_from = rd ? rd->decoded_from : 0;
}


PTCDEF ptc_status ptc_nav_init(ptc_nav *nav, const ptc_clock_config *cfg, ptc_nav_entry *storage, size_t capacity)
{
    if (!nav || !cfg || (!storage && capacity)) return PTC_ERR_BAD_ARGUMENT;
    if (ptc_trace_config_error(&cfg->trace)) return PTC_ERR_BAD_CONFIG;
    memset(nav, 0, sizeof *nav);
    nav->entries = storage;
    nav->capacity = capacity;
    nav->trace = cfg->trace;
    ptc__trace_cyc_view(&nav->trace);
    return PTC_OK;
}

PTCDEF ptc_status ptc_nav_set_storage(ptc_nav *nav, ptc_nav_entry *storage, size_t capacity)
{
    if (!nav || (!storage && capacity) || capacity < nav->count) return PTC_ERR_BAD_ARGUMENT;
    nav->entries = storage;
    nav->capacity = capacity;
    return PTC_OK;
}

/* Every entry still waiting gets `bound` as its cycle upper bound: a time
   the stream shows at or after all of them (SPEC 4.2). */
static void ptc__nav_bound(ptc_nav *nav, uint64_t bound)
{
    for (; nav->pending < nav->count; nav->pending++) nav->entries[nav->pending].cycle_hi = bound;
}

/* How many retirements a packet carries (SPEC 4.1). */
static unsigned ptc__nav_carried(const ptc_nav *nav, const ptc_item *it)
{
    const ptc_packet *p = &it->pkt;
    switch (p->type) {
    case PTC_TNT8: case PTC_TNT64: return p->u.tnt.count;
    case PTC_TIP: return 1;
    case PTC_TIP_PGD: return p->u.ip.ipc != PTC_IPC_SUPPRESSED;
    case PTC_FUP: return !nav->in_psb && !nav->after_ovf;
    default: return 0;
    }
}

/* A CYC: its cycles are summed, and the sum bounds what came before it
   once the next packet shows that no OVF follows (SPEC 4.2). */
static void ptc__nav_on_cyc(ptc_nav *nav, const ptc_packet *p)
{
    if (nav->trace.cyc_bits < 64 && p->u.cyc.cycles >> nav->trace.cyc_bits) {
        nav->cycles_broken = 1; /* not from the configured counter (SPEC 3.5 rule 7) */
    } else {
        nav->cycles += p->u.cyc.cycles;
        nav->cyc_bound = nav->cycles;
        nav->cyc_bound_pending = !nav->cycles_broken;
    }
    nav->last_was_cyc = 1;
    nav->after_ovf = 0;
    nav->last_cyc_wrap = nav->trace.cyc_bits < 64 && p->u.cyc.cycles == (UINT64_C(1) << nav->trace.cyc_bits) - 1;
}

/* The entry of a packet that carries `carried` retirements, with what its
   time and the cycles so far say of them (SPEC 4.2). */
static void ptc__nav_record(ptc_nav *nav, const ptc_item *it, unsigned carried, uint64_t tsc_lo, uint64_t tsc_hi)
{
    ptc_nav_entry *e = &nav->entries[nav->count++];
    int tnt = ptc_packet_is_tnt(it->pkt.type);
    memset(e, 0, sizeof *e);
    e->first = nav->retirements;
    e->offset = it->offset;
    e->type = (uint8_t)it->pkt.type;
    e->count = (uint8_t)carried;
    /* a TNT's branches retired after the non-timing packet before it
       (a pending TNT goes out before any such packet), and not before
       a CYC right before it that is not the counter's wrap: only its
       first branch puts such a CYC there. The TNT packet itself may come
       well after its first branch. */
    e->cycle_lo = tnt && (!nav->last_was_cyc || nav->last_cyc_wrap) ? nav->ntp_cycle : nav->cycles;
    e->cycle_hi = UINT64_MAX;
    e->tsc_lo = tnt ? nav->ntp_tsc : tsc_lo;
    e->tsc_hi = tnt && carried > 1 ? UINT64_MAX : tsc_hi;
    if (tnt && carried > 1) nav->tnt_waiting = nav->count;
    if (tnt) {
        e->ip = it->pkt.u.tnt.bits;
        e->ip_known = 1;
    } else {
        e->ip = it->ip;
        e->ip_known = it->ip_known;
    }
    nav->retirements += carried;
}

/* A CYC-eligible packet in cycle-accurate mode: right after a CYC it is
   at that CYC's count, else the counter was below the threshold (SPEC 3.5
   rule 4); either way every entry before it retired by then. Not an OVF:
   the count wrapped during the overflow. */
static void ptc__nav_on_eligible(ptc_nav *nav, const ptc_packet *p)
{
    uint64_t slack;
    if (nav->trace.ctl.cyc_thresh == PTC__CYC_THRESH_UNKNOWN && !nav->last_was_cyc) return; /* no bound without the threshold */
    slack = nav->last_was_cyc || !nav->trace.ctl.cyc_thresh ? 0 : (UINT64_C(1) << (nav->trace.ctl.cyc_thresh - 1)) - 1;
    ptc__nav_bound(nav, nav->cycles + slack);
    /* a PTW or EXSTOP with its IP bit set: the FUP right after it is at
       its time */
    nav->fup_bound = nav->cycles + slack;
    nav->fup_bound_valid = (p->type == PTC_PTW && p->u.ptw.ip) || (p->type == PTC_EXSTOP && p->u.exstop.ip);
}

/* Where in a PSB+ or an overflow's recovery the stream is, and whether
   cycles may pass uncounted from here on. */
static void ptc__nav_track(ptc_nav *nav, ptc_packet_type type, unsigned carried)
{
    switch (type) {
    case PTC_PSB: nav->in_psb = 1; break;
    case PTC_PSBEND: nav->in_psb = 0; break;
    case PTC_OVF: /* an overflow also cuts a PSB+ short: no PSBEND follows */
        nav->after_ovf = 1;
        nav->in_psb = 0;
        nav->cycles_broken = 1;
        break;
    case PTC_TIP_PGD:
        /* without an IP, tracing may have stopped: the counter resets and
           cycles pass uncounted */
        if (!carried) nav->cycles_broken = 1;
        break;
    default: break;
    }
    /* the FUP of overflow recovery comes right after the OVF's TSC, TMA and
       CBR; anything else between them means there was none */
    if (type != PTC_OVF && type != PTC_TSC && type != PTC_TMA && type != PTC_CBR) nav->after_ovf = 0;
}

PTCDEF ptc_status ptc_nav_add(ptc_nav *nav, const ptc_timed_item *t)
{
    const ptc_item *it;
    ptc_packet_type type;
    unsigned carried;
    uint64_t tsc_lo, tsc_hi;
    if (!nav || !t) return PTC_ERR_BAD_ARGUMENT;
    if (nav->finished) return PTC_ERR_BAD_STATE;
    it = &t->item;
    if (it->error == PTC_ERR_CORRUPT_TMA) return PTC_OK; /* (SKZ84: only a TMA's payload is lost, nothing counted here) */
    if (it->error != PTC_OK) {
        /* bytes were skipped: cycles and retirements may be missing */
        nav->cycles_broken = 1;
        nav->last_was_cyc = nav->in_psb = nav->after_ovf = nav->cyc_bound_pending = nav->fup_bound_valid = 0;
        return PTC_OK;
    }
    type = it->pkt.type;
    if (type == PTC_PAD) return PTC_OK;
    /* a full index refuses the item before anything changes, so that it
       can be given again with larger storage (SPEC 4.2) */
    carried = ptc__nav_carried(nav, it);
    if (carried && nav->count == nav->capacity) return PTC_ERR_NO_SPACE;
    /* a CYC's sum bounds what came before it unless an OVF follows: then
       it carries the count wrapped during the overflow (SPEC 5.2) */
    if (nav->cyc_bound_pending && type != PTC_OVF) ptc__nav_bound(nav, nav->cyc_bound);
    nav->cyc_bound_pending = 0;
    if (type == PTC_PSB && (nav->trace.errata & PTC_ERRATUM_SKL168) && nav->started) {
        /* (SKL168) the CYC before this PSB, and the cycles it counted, may
           be missing: the next CYC's sum bounds nothing before it, and
           sums from here on may be short */
        nav->pending = nav->count;
        nav->cycles_broken = 1;
    }
    nav->started = 1;
    tsc_lo = t->have_time ? t->tsc_lo : 0;
    tsc_hi = t->have_time ? t->tsc_hi : UINT64_MAX;
    /* a TNT's time is its first branch's; its last went out before the
       packet after it (a TNT after a TNT: before that one's first branch) */
    if (nav->tnt_waiting && t->have_time) {
        nav->entries[nav->tnt_waiting - 1].tsc_hi = tsc_hi;
        nav->tnt_waiting = 0;
    }
    if (tsc_lo < nav->tsc_floor) tsc_lo = nav->tsc_floor; /* retirements are in time order */
    if (type == PTC_CYC) {
        ptc__nav_on_cyc(nav, &it->pkt);
        return PTC_OK;
    }
    if (carried) ptc__nav_record(nav, it, carried, tsc_lo, tsc_hi);
    if (type == PTC_FUP && nav->fup_bound_valid) ptc__nav_bound(nav, nav->fup_bound);
    nav->fup_bound_valid = 0;
    if (nav->trace.ctl.cyc_en && !nav->cycles_broken && ptc_packet_is_cyc_eligible(type) && type != PTC_OVF)
        ptc__nav_on_eligible(nav, &it->pkt);
    nav->last_was_cyc = 0;
    ptc__nav_track(nav, type, carried);
    if (ptc_packet_is_ntp(type)) {
        nav->ntp_cycle = nav->cycles;
        nav->ntp_tsc = tsc_lo;
    }
    nav->tsc_floor = tsc_lo;
    return PTC_OK;
}

PTCDEF void ptc_nav_finish(ptc_nav *nav)
{
    size_t i;
    if (!nav || nav->finished) return;
    nav->finished = 1;
    /* a later retirement's upper bound bounds every earlier one: make the
       upper bounds non-decreasing so queries can search them */
    for (i = nav->count; i-- > 1;) {
        ptc_nav_entry *a = &nav->entries[i - 1], *b = &nav->entries[i];
        if (a->cycle_hi > b->cycle_hi) a->cycle_hi = b->cycle_hi;
        if (a->tsc_hi > b->tsc_hi) a->tsc_hi = b->tsc_hi;
    }
}

PTCDEF ptc_status ptc_nav_build(ptc_nav *nav, ptc_clock *clk, const uint8_t *buf, size_t len)
{
    return ptc_nav_build_ring(nav, clk, buf, len, len);
}

PTCDEF ptc_status ptc_nav_build_ring(ptc_nav *nav, ptc_clock *clk, const uint8_t *buf, size_t cap, uint64_t written)
{
    ptc_ring_reader rd;
    ptc_item it;
    ptc_timed_item t;
    ptc_status st;
    if (!nav || !clk) return PTC_ERR_BAD_ARGUMENT;
    st = ptc_ring_reader_init_flags(&rd, buf, cap, written, ptc_errata_decode_flags(clk->cfg.trace.errata));
    while (st == PTC_OK && ptc_ring_reader_next(&rd, &it) == PTC_OK) {
        st = ptc_clock_push(clk, &it);
        while (st == PTC_OK && ptc_clock_pop(clk, &t) == PTC_OK) st = ptc_nav_add(nav, &t);
    }
    if (st != PTC_OK) return st;
    ptc_clock_finish(clk);
    while (st == PTC_OK && ptc_clock_pop(clk, &t) == PTC_OK) st = ptc_nav_add(nav, &t);
    if (st == PTC_OK) ptc_nav_finish(nav);
    return st;
}

PTCDEF uint64_t ptc_nav_retirements(const ptc_nav *nav) { return nav ? nav->retirements : 0; }

PTCDEF uint64_t ptc_nav_end_cycle(const ptc_nav *nav) { return nav ? nav->cycles : 0; }

static void ptc__nav_hit(const ptc_nav *nav, size_t entry, uint64_t retire, ptc_nav_hit *hit)
{
    const ptc_nav_entry *e = &nav->entries[entry];
    hit->retire = retire;
    hit->entry = *e;
    hit->bit = (uint8_t)(retire - e->first);
    hit->taken = 0;
    if (ptc_packet_is_tnt((ptc_packet_type)e->type))
        hit->taken = (uint8_t)((e->ip >> (e->count - 1 - hit->bit)) & 1);
}

/* The number of entries whose bound (lower or upper, by basis) is at or
   below target: the bounds are non-decreasing, so a binary search. */
static size_t ptc__nav_count_at_or_below(const ptc_nav *nav, ptc_nav_basis basis, int upper, uint64_t target)
{
    size_t lo = 0, hi = nav->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ptc_nav_entry *e = &nav->entries[mid];
        uint64_t v = basis == PTC_NAV_CYCLE ? (upper ? e->cycle_hi : e->cycle_lo) : (upper ? e->tsc_hi : e->tsc_lo);
        if (v <= target) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

PTCDEF ptc_status ptc_nav_find(const ptc_nav *nav, ptc_nav_basis basis, uint64_t value, uint64_t skid,
                               ptc_nav_hit *hit)
{
    size_t last, sure;
    const ptc_nav_entry *e;
    if (!nav || !hit || (basis != PTC_NAV_CYCLE && basis != PTC_NAV_TSC)) return PTC_ERR_BAD_ARGUMENT;
    if (!nav->finished) return PTC_ERR_BAD_STATE;
    memset(hit, 0, sizeof *hit);
    if (value < skid) return PTC_ERR_NOT_FOUND;
    value -= skid;
    last = ptc__nav_count_at_or_below(nav, basis, 0, value);
    if (last == 0) return PTC_ERR_NOT_FOUND;
    e = &nav->entries[last - 1];
    ptc__nav_hit(nav, last - 1, e->first + e->count - 1, hit);
    sure = ptc__nav_count_at_or_below(nav, basis, 1, value);
    if (sure == 0) {
        hit->maybe_none = 1;
        hit->retire_min = 0;
    } else {
        e = &nav->entries[sure - 1];
        hit->retire_min = e->first + e->count - 1;
    }
    return PTC_OK;
}

PTCDEF ptc_status ptc_nav_from_end(const ptc_nav *nav, uint64_t freeze, uint64_t skid, ptc_nav_hit *hit)
{
    if (!nav || !hit) return PTC_ERR_BAD_ARGUMENT;
    if (nav->cycles < freeze) {
        memset(hit, 0, sizeof *hit);
        return nav->finished ? PTC_ERR_NOT_FOUND : PTC_ERR_BAD_STATE;
    }
    return ptc_nav_find(nav, PTC_NAV_CYCLE, nav->cycles - freeze, skid, hit);
}

PTCDEF ptc_status ptc_nav_at_offset(const ptc_nav *nav, uint64_t offset, ptc_nav_hit *hit)
{
    size_t lo = 0, hi;
    if (!nav || !hit) return PTC_ERR_BAD_ARGUMENT;
    if (!nav->finished) return PTC_ERR_BAD_STATE;
    memset(hit, 0, sizeof *hit);
    hi = nav->count; /* entries are in stream order: the first at or after offset */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (nav->entries[mid].offset < offset) lo = mid + 1;
        else hi = mid;
    }
    if (lo == nav->count || nav->entries[lo].offset != offset) return PTC_ERR_NOT_FOUND;
    ptc__nav_hit(nav, lo, nav->entries[lo].first, hit);
    hit->retire_min = hit->retire;
    return PTC_OK;
}

PTCDEF ptc_status ptc_nav_step(const ptc_nav *nav, uint64_t from, int64_t delta, ptc_nav_hit *hit)
{
    uint64_t to;
    size_t lo = 0, hi;
    if (!nav || !hit) return PTC_ERR_BAD_ARGUMENT;
    if (!nav->finished) return PTC_ERR_BAD_STATE;
    memset(hit, 0, sizeof *hit);
    if (from >= nav->retirements) return PTC_ERR_NOT_FOUND;
    if (!nav->count || from < nav->entries[0].first) return PTC_ERR_NOT_FOUND; /* forgotten */
    if (delta < 0 ? (uint64_t)-(delta + 1) + 1 > from : (uint64_t)delta >= nav->retirements - from)
        return PTC_ERR_NOT_FOUND;
    to = delta < 0 ? from - ((uint64_t)-(delta + 1) + 1) : from + (uint64_t)delta;
    if (to < nav->entries[0].first) return PTC_ERR_NOT_FOUND; /* forgotten */
    /* the entry holding retirement `to`: the last whose first is <= to */
    hi = nav->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (nav->entries[mid].first <= to) lo = mid + 1;
        else hi = mid;
    }
    if (to >= nav->entries[lo - 1].first + nav->entries[lo - 1].count) return PTC_ERR_NOT_FOUND; /* folded */
    ptc__nav_hit(nav, lo - 1, to, hit);
    hit->retire_min = to;
    return PTC_OK;
}

/* Whether an entry from `pending` on may still get a cycle upper bound:
   not once cycles are broken, unless a bound taken before is still due. */
static int ptc__nav_cycle_bounds_due(const ptc_nav *nav)
{
    return !nav->cycles_broken || nav->cyc_bound_pending || nav->fup_bound_valid;
}

/* The end of the entries after `b` whose upper bounds nothing later can
   make lower than b's: those already bounded, or, b waiting for its cycle
   bound too, any that will get the same one; not a TNT waiting for its
   TSC bound. */
static size_t ptc__nav_foldable_end(const ptc_nav *nav, size_t b)
{
    size_t end = nav->count;
    if (ptc__nav_cycle_bounds_due(nav) && b < nav->pending) end = nav->pending;
    if (nav->tnt_waiting && nav->tnt_waiting - 1 > b && nav->tnt_waiting - 1 < end) end = nav->tnt_waiting - 1;
    return end;
}

/* Drops entries [at, at + n) and closes the gap. */
static void ptc__nav_drop(ptc_nav *nav, size_t at, size_t n)
{
    memmove(nav->entries + at, nav->entries + at + n, (nav->count - at - n) * sizeof *nav->entries);
    nav->count -= n;
    /* the pending and waiting entries move with the rest; a dropped one
       waits for nothing any more */
    if (nav->pending > at) nav->pending = nav->pending >= at + n ? nav->pending - n : at;
    if (nav->tnt_waiting > at) nav->tnt_waiting = nav->tnt_waiting > at + n ? nav->tnt_waiting - n : 0;
}

PTCDEF size_t ptc_nav_forget(ptc_nav *nav, ptc_nav_window keep)
{
    size_t front = 0, b, end, i;
    if (!nav || nav->finished) return 0;
    while (front < nav->count && nav->entries[front].first + nav->entries[front].count <= keep.from) front++;
    ptc__nav_drop(nav, 0, front);
    for (b = 0; b < nav->count && nav->entries[b].first + nav->entries[b].count <= keep.to; b++) {}
    if (b >= nav->count) return front;
    end = ptc__nav_foldable_end(nav, b);
    if (end <= b + 1) return front;
    for (i = b + 1; i < end; i++) {
        ptc_nav_entry *e = &nav->entries[b];
        if (nav->entries[i].cycle_hi < e->cycle_hi) e->cycle_hi = nav->entries[i].cycle_hi;
        if (nav->entries[i].tsc_hi < e->tsc_hi) e->tsc_hi = nav->entries[i].tsc_hi;
    }
    ptc__nav_drop(nav, b + 1, end - b - 1);
    return front + (end - b - 1);
}

PTCDEF ptc_nav_window ptc_nav_window_for_find(const ptc_nav *nav, ptc_nav_basis basis, uint64_t value, uint64_t back)
{
    ptc_nav_window w;
    size_t i;
    int cycle = basis == PTC_NAV_CYCLE;
    w.from = nav ? nav->retirements : 0;
    w.to = UINT64_MAX;
    if (!nav) return w;
    /* the answer so far (the last lower bound at or before value), and the
       `back` retirements before it */
    for (i = nav->count; i-- > 0;) {
        const ptc_nav_entry *e = &nav->entries[i];
        if ((cycle ? e->cycle_lo : e->tsc_lo) <= value) {
            w.to = e->first + e->count - 1;
            w.from = w.to > back ? w.to - back : 0;
            break;
        }
    }
    /* retire_min: the last upper bound at or before value */
    for (i = nav->count; i-- > 0;) {
        const ptc_nav_entry *e = &nav->entries[i];
        if ((cycle ? e->cycle_hi : e->tsc_hi) <= value) {
            if (e->first < w.from) w.from = e->first;
            if (w.to == UINT64_MAX || e->first + e->count - 1 > w.to) w.to = e->first + e->count - 1;
            break;
        }
    }
    /* an entry whose upper bound is still to come may become retire_min
       (never one after the answer: its lower bound is past value already) */
    i = cycle ? (ptc__nav_cycle_bounds_due(nav) ? nav->pending : nav->count)
              : (nav->tnt_waiting ? nav->tnt_waiting - 1 : nav->count);
    if (i < nav->count && nav->entries[i].first < w.from) w.from = nav->entries[i].first;
    return w;
}

#ifndef PTCODEC_NO_MODEL
/* ---- 5. Hardware model ---------------------------------------------- */


PTCDEF void ptc_model_config_default(ptc_model_config *c)
{
    memset(c, 0, sizeof *c);
#define PTC__X(key, field, least, most, dflt) c->field = dflt;
    PTC_MODEL_CONFIG_FIELDS(PTC__X)
#undef PTC__X
#define PTC__X(field, value) c->trace.field = value;
    PTC_MODEL_TRACE_DEFAULTS(PTC__X)
#undef PTC__X
}

PTCDEF const char *ptc_model_error_field(const ptc_model *m) { return m->error_field ? m->error_field : ""; }

#define PTC__MDL_WOBBLE_STEPS 256 /* steps of the triangle, a quarter of them up to its peak */
#define PTC__MDL_WOBBLE_STEP_CYCLES (PTC_MODEL_WOBBLE_PERIOD / PTC__MDL_WOBBLE_STEPS)

/* The ART increment of a cycle at step s of the wobble's triangle (SPEC
   5.1): the average one, off by up to rate_ppm parts per million, rounded
   towards it so the bound holds; the steps are symmetric, so the average
   over a period is the average rate. */
static uint64_t ptc__mdl_wobble_inc(const ptc_model *m, uint32_t s)
{
    int64_t tri = s < 64 ? (int64_t)s : s < 192 ? 128 - (int64_t)s : (int64_t)s - 256; /* -64..64 */
    uint64_t off;
    if (!m->cfg.rate_ppm || !tri) return m->clk.art_inc_avg;
    off = ptc__math_muldiv(m->clk.art_inc_avg, (uint64_t)m->cfg.rate_ppm * (uint64_t)(tri < 0 ? -tri : tri), UINT64_C(64000000), 0);
    return tri < 0 ? m->clk.art_inc_avg - off : m->clk.art_inc_avg + off;
}

/* d cycles have passed: the wobble moves on to its next step every
   PTC__MDL_WOBBLE_STEP_CYCLES cycles. */
static void ptc__mdl_wobble_cycles(ptc_model *m, uint64_t d)
{
    while (m->cfg.rate_ppm && d) {
        uint64_t take = d < m->clk.wobble_left ? d : m->clk.wobble_left;
        d -= take;
        m->clk.wobble_left -= (uint32_t)take;
        if (!m->clk.wobble_left) {
            m->clk.wobble_step = (m->clk.wobble_step + 1) % PTC__MDL_WOBBLE_STEPS;
            m->clk.wobble_left = PTC__MDL_WOBBLE_STEP_CYCLES;
            m->clk.art_inc = ptc__mdl_wobble_inc(m, m->clk.wobble_step);
        }
    }
}

/* The denominator of the ART phase after a change to `ratio`: one core
   cycle is art_hz / (ratio * 1e8) ART ticks, so the phase needs a common
   multiple of every ratio * bclk_den used so far. 0 when that, times eax,
   would not fit 63 bits (exact TSC fractions must fit). */
static uint64_t ptc__mdl_phase_den(const ptc_model *m, uint64_t den, uint8_t ratio)
{
    /* (a wobbling rate needs finer steps: 2^20 more, about a ppm) */
    uint64_t unit = (uint64_t)ratio * m->clk.bclk_den << (m->cfg.rate_ppm ? 20 : 0), g = ptc__math_gcd(den, unit), q, r;
    if (!ptc__math_mad_div(den / g, unit, 0, 0, 1, &q, &r)) return 0;
    if (q >= (UINT64_C(1) << 63) / m->cfg.trace.ratios.cpuid_15_eax) return 0;
    return q;
}

static int ptc__mdl_set_phase_den(ptc_model *m, uint8_t ratio)
{
    uint64_t den = ptc__mdl_phase_den(m, m->clk.art_den ? m->clk.art_den : 1, ratio), q, r;
    if (!den) return 0;
    if (m->clk.art_den) m->clk.art_num *= den / m->clk.art_den;
    m->clk.art_den = den;
    /* ART ticks per core cycle = art / (ratio * bclk) = inc / den */
    (void)ptc__math_mad_div(m->clk.art_per_cycle_num, den / ((uint64_t)ratio * m->clk.bclk_den), 0, 0, 1, &q, &r);
    m->clk.art_inc_avg = q;
    m->clk.art_inc = ptc__mdl_wobble_inc(m, m->clk.wobble_step);
    m->clk.ratio = ratio;
    return 1;
}

/* What the model needs of its trace beyond the ranges every part checks
   (ptc_trace_config_error): the key of the first field it cannot run
   with, or NULL. */
static const char *ptc__mdl_trace_error(const ptc_trace_config *t)
{
    const ptc_tsc_ratios *r = &t->ratios;
    const char *e = ptc_trace_config_error(t);
#define PTC__MDL_ERRATUM_BIT(key, bit) | (bit)
    if (e) return e;
    if (!r->cpuid_15_eax) return "cpuid_0x15_eax";
    if (r->cpuid_15_ebx / r->cpuid_15_eax > 510 || (r->cpuid_15_ebx / r->cpuid_15_eax == 510 && r->cpuid_15_ebx % r->cpuid_15_eax))
        return "cpuid_0x15_ebx";
    if (r->nom_num || r->nom_den || r->nom_exact) return "nom"; /* the clocks make it */
    if (t->cyc_bits < 2 || t->cyc_bits > 32) return "cyc_bits";
    if (t->errata & ~(uint32_t)(0 PTC_MODEL_ERRATA(PTC__MDL_ERRATUM_BIT))) return "errata";
#undef PTC__MDL_ERRATUM_BIT
    if (t->policy.threshold && t->policy.min_burst < 2) return "policy.min_burst";
    /* a bound on every gap, so the 8-bit payload can always count it */
    if (t->policy.threshold && !t->policy.resume_after && !t->policy.resume_on_value) return "policy.resume";
    return NULL;
}

PTCDEF ptc_status ptc_model_init(ptc_model *m, const ptc_model_config *cfg, const ptc_model_sink *sink)
{
    uint64_t g;
#define PTC__MDL_REQUIRE(cond, field) do { if (!(cond)) { m->error_field = field; return PTC_ERR_BAD_CONFIG; } } while (0)
    if (!m || !cfg) return PTC_ERR_BAD_ARGUMENT;
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    if (sink) m->sink = *sink;
    m->error_field = ptc__mdl_trace_error(&cfg->trace);
    if (m->error_field) return PTC_ERR_BAD_CONFIG;
#define PTC__X(key, field, least, most, dflt) PTC__MDL_REQUIRE(ptc__trace_in_range(cfg->field, least, most), key);
    PTC_MODEL_CONFIG_FIELDS(PTC__X)
#undef PTC__X
    /* what ties fields together */
    PTC__MDL_REQUIRE(!cfg->fifo_bytes || (cfg->fifo_bytes >= 128 && cfg->drain_bytes >= 1 && cfg->drain_cycles >= 1 &&
                                      cfg->fifo_bytes <= 0xFFFFFFFFu / cfg->drain_cycles),
                 "fifo_bytes");
    m->clk.wobble_left = PTC__MDL_WOBBLE_STEP_CYCLES;
    g = ptc__math_gcd(cfg->art_hz, 100000000u);
    m->clk.art_per_cycle_num = cfg->art_hz / g;
    m->clk.bclk_den = 100000000u / g;
    PTC__MDL_REQUIRE(ptc__mdl_set_phase_den(m, cfg->core_ratio), "core_ratio");
#undef PTC__MDL_REQUIRE
    m->clk.art = cfg->art_start;
    m->core.cpl = 3;
    m->core.csl = 1;
    m->trigger.stop_cycle = UINT64_MAX;
    m->jitter_state = cfg->jitter_seed ? cfg->jitter_seed : UINT64_C(0x9E3779B97F4A7C15);
    return PTC_OK;
}

PTCDEF ptc_exact_tsc ptc_model_now(const ptc_model *m)
{
    /* TSC = K + (art + num/den) * ebx/eax, split so every step is exact:
       art*ebx = q1*eax + r1; num*ebx = q2*den + r2;
       TSC = K + q1 + (r1 + q2 + r2/den) / eax */
    ptc_exact_tsc t;
    uint64_t eax = m->cfg.trace.ratios.cpuid_15_eax, ebx = m->cfg.trace.ratios.cpuid_15_ebx, q1, r1, q2, r2, q3, r3;
    (void)ptc__math_mad_div(m->clk.art, ebx, 0, 0, eax, &q1, &r1);
    (void)ptc__math_mad_div(m->clk.art_num, ebx, 0, 0, m->clk.art_den, &q2, &r2);
    q3 = (r1 + q2) / eax;
    r3 = (r1 + q2) % eax;
    t.tsc = m->cfg.tsc_offset + q1 + q3;
    t.num = r3 * m->clk.art_den + r2;
    t.den = m->clk.art_den * eax;
    return t;
}

/* FastCounter for a TMA: TSC ticks since the last ART edge, i.e. the TSC
   now minus the TSC at the edge, both floored (SPEC 5.1). */
static uint16_t ptc__mdl_fast_counter(const ptc_model *m)
{
    uint64_t eax = m->cfg.trace.ratios.cpuid_15_eax, ebx = m->cfg.trace.ratios.cpuid_15_ebx, q1, r1, q2, r2;
    (void)ptc__math_mad_div(m->clk.art, ebx, 0, 0, eax, &q1, &r1);
    (void)ptc__math_mad_div(m->clk.art_num, ebx, 0, 0, m->clk.art_den, &q2, &r2);
    return (uint16_t)((r1 + q2) / eax);
}

PTCDEF void ptc_model_tsc_per_cycle(const ptc_model *m, uint64_t *num, uint64_t *den)
{
    /* tsc_hz / (ratio * 1e8) = art_hz * ebx / (eax * ratio * 1e8) */
    uint64_t n = m->clk.art_per_cycle_num * m->cfg.trace.ratios.cpuid_15_ebx;
    uint64_t d = m->clk.bclk_den * m->cfg.trace.ratios.cpuid_15_eax * m->clk.ratio, g = ptc__math_gcd(n, d);
    *num = n / g;
    *den = d / g;
}



static int ptc__mdl_context_en(const ptc_model *m)
{
    if (m->vmx.non_root && !m->vmx.guest_traced) return 0;
    return m->core.cpl == 0 ? m->cfg.trace.ctl.os : m->cfg.trace.ctl.user;
}

static int ptc__mdl_filter_en(const ptc_model *m, uint64_t ip)
{
    return ptc__trace_filter_en(&m->cfg.trace.filters, ip);
}

static int ptc__mdl_packet_en(const ptc_model *m, uint64_t ip)
{
    return m->core.enabled && m->cfg.trace.ctl.branch_en && ptc__mdl_context_en(m) && ptc__mdl_filter_en(m, ip);
}

/* -- output -- */

static void ptc__mdl_record(ptc_model *m, const ptc_packet *p, const uint8_t *bytes, size_t n, uint8_t fate)
{
    ptc_truth t;
    if (!m->sink.packet) return;
    t.pkt = *p;
    t.offset = m->out.offset;
    t.cycle = m->cycle;
    t.time = ptc_model_now(m);
    t.art = m->clk.art;
    if (ptc_packet_is_tnt(p->type)) { /* a TNT's time is its first branch's */
        t.cycle = m->tnt.cycle[0];
        t.time = m->tnt.time[0];
    }
    t.fate = fate;
    m->sink.packet(m->sink.user, bytes, fate == PTC_FATE_EMITTED || fate == PTC_FATE_CORRUPT ? n : fate == PTC_FATE_CUT ? 1 : 0,
                   &t);
}

/* The retirements a packet that reached the stream carries (SPEC 4.1): the
   branches of a TNT, or the one an IP packet was written for. */
static void ptc__mdl_report_retirements(ptc_model *m, const ptc_packet *p)
{
    ptc_retire_truth r;
    unsigned i, n = 0;
    int tnt = ptc_packet_is_tnt(p->type);
    if (tnt) n = p->u.tnt.count;
    else if (m->retire.pending && (p->type == PTC_FUP || p->type == PTC_TIP || p->type == PTC_TIP_PGD)) n = 1;
    if (!tnt && n) m->retire.pending = 0;
    for (i = 0; i < n; i++) {
        memset(&r, 0, sizeof r);
        r.index = m->retire.count++;
        r.offset = m->out.offset;
        r.type = p->type;
        if (tnt) {
            r.cycle = m->tnt.cycle[i];
            r.time = m->tnt.time[i];
            r.bit = (uint8_t)i;
            r.taken = (uint8_t)((p->u.tnt.bits >> (n - 1 - i)) & 1);
        } else {
            r.cycle = m->cycle;
            r.time = ptc_model_now(m);
            r.ip = m->retire.ip;
        }
        if (m->sink.retire) m->sink.retire(m->sink.user, &r);
    }
}

static uint64_t ptc__mdl_random(ptc_model *m);

/* Erratum SKZ84 (PTC_ERRATUM_SKZ84 in cfg.trace.errata): whether the TMA whose bytes are in b (7 of
   them) goes out corrupt, and if so corrupts them and adds the bogus byte.
   Its reserved byte is set, so that a decoder can see it; the bogus
   byte is never a PSB pattern byte, so that no PSB can start inside. */
static int ptc__mdl_skz84_corrupt_tma(ptc_model *m, uint8_t *b)
{
    uint64_t r;
    if (!(m->cfg.trace.errata & PTC_ERRATUM_SKZ84) || !m->vmx.non_root || ptc__mdl_random(m) % 2) return 0;
    r = ptc__mdl_random(m);
    b[2] = (uint8_t)r;         /* CTC */
    b[3] = (uint8_t)(r >> 8);
    b[4] = (uint8_t)((r >> 16) | 1); /* reserved */
    b[5] = (uint8_t)(r >> 24); /* FastCounter */
    b[6] = (uint8_t)((r >> 32) & 1);
    b[7] = (uint8_t)(r >> 40);
    if (b[7] == PTC_OP_EXT || b[7] == PTC_EXT_PSB) b[7] = 0;
    return 1;
}

/* Writes a packet through the internal buffer. Returns 1 if it reached the
   stream, 0 if the buffer overflowed and it was lost. */
static int ptc__mdl_output(ptc_model *m, ptc_packet *p)
{
    uint8_t bytes[PTC_MAX_PACKET_SIZE + 1];
    int n = ptc__enc_packet(p, bytes);
    uint8_t fate = PTC_FATE_EMITTED;
    PTC_ASSERT(n > 0);
    p->size = (uint8_t)n;
    if (p->type == PTC_TMA && ptc__mdl_skz84_corrupt_tma(m, bytes)) {
        fate = PTC_FATE_CORRUPT;
        n++;
    }
    m->out.generated++;
    if (!m->out.overflow && m->cfg.fifo_bytes) {
        uint64_t add = (uint64_t)n * m->cfg.drain_cycles;
        if (m->out.fifo_fill + add > (uint64_t)m->cfg.fifo_bytes * m->cfg.drain_cycles) {
            /* full: this packet and all after it are lost until it drains */
            m->out.overflow = 1;
            m->tnt.count = 0;
            m->tnt.bits = 0;
        } else {
            m->out.fifo_fill += add;
        }
    }
    if (m->out.overflow) {
        m->out.n_dropped++;
        ptc__mdl_record(m, p, bytes, (size_t)n, PTC_FATE_DROPPED);
        return 0;
    }
    ptc__mdl_record(m, p, bytes, (size_t)n, fate);
    ptc__mdl_report_retirements(m, p);
    if (p->type != PTC_PAD) m->cyc.last_was_cyc = p->type == PTC_CYC;
    m->out.offset += (uint64_t)n;
    m->psb.bytes += (uint64_t)n;
    if (p->type == PTC_PSB) {
        /* PacketByteCnt restarts at the PSB; what comes after it counts */
        m->psb.bytes = 0;
        m->psb.pending = 0;
    }
    if (m->psb.bytes >= (UINT64_C(2048) << m->cfg.trace.ctl.psb_freq)) m->psb.pending = 1;
    return 1;
}

/* A CYC with the cycles since the last one: before an eligible packet once
   the threshold is met (force: regardless of it). Never CYC(0), so never
   two in one cycle. */
static void ptc__mdl_cyc(ptc_model *m, int force)
{
    ptc_packet p;
    uint64_t thresh = m->cfg.trace.ctl.cyc_thresh ? UINT64_C(1) << (m->cfg.trace.ctl.cyc_thresh - 1) : 0;
    if (!m->cfg.trace.ctl.cyc_en || !m->core.enabled || m->out.overflow || m->cyc.count == 0) return;
    if (!force && m->cyc.count < thresh) return;
    memset(&p, 0, sizeof p);
    p.type = PTC_CYC;
    p.u.cyc.cycles = m->cyc.count;
    m->cyc.count = 0;
    (void)ptc__mdl_output(m, &p);
}

static int ptc__mdl_emit(ptc_model *m, ptc_packet *p);

static void ptc__mdl_flush_tnt(ptc_model *m)
{
    ptc_packet p;
    if (!m->tnt.count) return;
    memset(&p, 0, sizeof p);
    p.type = m->tnt.count > 6 ? PTC_TNT64 : PTC_TNT8;
    p.u.tnt.count = m->tnt.count;
    p.u.tnt.bits = m->tnt.bits;
    m->tnt.count = 0;
    m->tnt.bits = 0;
    (void)ptc__mdl_emit(m, &p);
}

/* Every packet goes through here: a pending TNT goes first (branches
   retired before this packet), non-timing packets resume MTCs, eligible
   packets may get a CYC. */
static int ptc__mdl_emit(ptc_model *m, ptc_packet *p)
{
    if (ptc_packet_is_ntp(p->type)) {
        if (m->tnt.count && p->type != PTC_TNT8 && p->type != PTC_TNT64) ptc__mdl_flush_tnt(m);
        m->mtc.suppressing = 0;
        m->mtc.run = 0;
        m->mtc.need = m->cfg.trace.policy.threshold;
    }
    /* An eligible packet right after a CYC is at that CYC's time (SDM); if
       cycles have passed since (the CYC timed a TNT's first branch, or the
       counter's wrap), it gets a CYC of its own whatever the threshold. A
       TNT had its CYC at its first branch. */
    if (ptc_packet_is_cyc_eligible(p->type)) ptc__mdl_cyc(m, m->cyc.last_was_cyc);
    return ptc__mdl_output(m, p);
}

/* A packet of type t with every field zero, to fill in. */
static ptc_packet ptc__mdl_blank(ptc_packet_type t)
{
    ptc_packet p;
    memset(&p, 0, sizeof p);
    p.type = t;
    return p;
}

static int ptc__mdl_emit_simple(ptc_model *m, ptc_packet_type t)
{
    ptc_packet p = ptc__mdl_blank(t);
    return ptc__mdl_emit(m, &p);
}

/* An IP packet compressed against the last emitted IP (the shortest form;
   sext48 before update48), or with the IP suppressed. */
static void ptc__mdl_ip_packet(ptc_model *m, ptc_packet_type t, uint64_t ip, int suppress)
{
    ptc_packet p;
    uint64_t sext = (ip & (UINT64_C(1) << 47)) ? (ip | ~UINT64_C(0xFFFFFFFFFFFF)) : (ip & UINT64_C(0xFFFFFFFFFFFF));
    memset(&p, 0, sizeof p);
    p.type = t;
    if (suppress) {
        p.u.ip.ipc = PTC_IPC_SUPPRESSED;
    } else if (m->core.last_ip_valid && (ip >> 16) == (m->core.last_ip >> 16)) {
        p.u.ip.ipc = PTC_IPC_UPDATE_16;
        p.u.ip.payload = ip & 0xFFFF;
    } else if (m->core.last_ip_valid && (ip >> 32) == (m->core.last_ip >> 32)) {
        p.u.ip.ipc = PTC_IPC_UPDATE_32;
        p.u.ip.payload = ip & 0xFFFFFFFFu;
    } else if (sext == ip) {
        p.u.ip.ipc = PTC_IPC_SEXT_48;
        p.u.ip.payload = ip & UINT64_C(0xFFFFFFFFFFFF);
    } else if (m->core.last_ip_valid && (ip >> 48) == (m->core.last_ip >> 48)) {
        p.u.ip.ipc = PTC_IPC_UPDATE_48;
        p.u.ip.payload = ip & UINT64_C(0xFFFFFFFFFFFF);
    } else {
        p.u.ip.ipc = PTC_IPC_FULL;
        p.u.ip.payload = ip;
    }
    /* a lost packet does not become the reference: after an overflow the
       next IP is compressed against one that reached the stream (SDM) */
    if (ptc__mdl_emit(m, &p) && !suppress) {
        m->core.last_ip = ip;
        m->core.last_ip_valid = 1;
    }
}

/* An IP packet written for a retiring instruction (SPEC 4.1): it carries a
   retirement if it reaches the stream. */
static void ptc__mdl_retiring_ip_packet(ptc_model *m, ptc_packet_type t, uint64_t ip)
{
    m->retire.pending = 1;
    m->retire.ip = ip;
    ptc__mdl_ip_packet(m, t, ip, 0);
    m->retire.pending = 0;
}

static void ptc__mdl_mode_exec(ptc_model *m)
{
    ptc_packet p = ptc__mdl_blank(PTC_MODE_EXEC);
    p.u.mode_exec.csl = m->core.csl;
    p.u.mode_exec.csd = m->core.csd;
    (void)ptc__mdl_emit(m, &p);
}

static void ptc__mdl_mode_tsx(ptc_model *m, int abort)
{
    ptc_packet p = ptc__mdl_blank(PTC_MODE_TSX);
    p.u.mode_tsx.intx = m->core.in_tx;
    p.u.mode_tsx.abrt = (uint8_t)(abort != 0);
    (void)ptc__mdl_emit(m, &p);
}

/* PIP with the CR3 and whether it is a guest's (NR); only with `os`, as
   CR3 is the kernel's business. */
static void ptc__mdl_pip(ptc_model *m)
{
    ptc_packet p = ptc__mdl_blank(PTC_PIP);
    if (!m->cfg.trace.ctl.os) return;
    p.u.pip.cr3 = m->core.cr3;
    p.u.pip.nr = m->vmx.non_root;
    (void)ptc__mdl_emit(m, &p);
}

static void ptc__mdl_vmcs(ptc_model *m)
{
    ptc_packet p = ptc__mdl_blank(PTC_VMCS);
    p.u.vmcs.base = m->vmx.vmcs;
    (void)ptc__mdl_emit(m, &p);
}

/* TSC and TMA of now, or of the sample with m->sample.out. The sample is
   used up; any other TSC (an overflow's, a wake's, a new ratio's) makes
   it stale, as a PSB+'s TSC must not go back before that one. */
static void ptc__mdl_tsc_tma(ptc_model *m)
{
    ptc_packet p;
    m->sample.have = 0;
    if (!m->cfg.trace.ctl.tsc_en) return;
    memset(&p, 0, sizeof p);
    p.type = PTC_TSC;
    p.u.tsc.tsc = (m->sample.out ? m->sample.time : ptc_model_now(m)).tsc & ((UINT64_C(1) << 56) - 1);
    (void)ptc__mdl_emit(m, &p);
    if (!m->cfg.trace.ctl.mtc_en) return;
    memset(&p, 0, sizeof p);
    p.type = PTC_TMA;
    p.u.tma.ctc = (uint16_t)(m->sample.out ? m->sample.art : m->clk.art);
    p.u.tma.fc = m->sample.out ? m->sample.fc : ptc__mdl_fast_counter(m);
    (void)ptc__mdl_emit(m, &p);
}

static void ptc__mdl_cbr(ptc_model *m)
{
    ptc_packet p = ptc__mdl_blank(PTC_CBR);
    p.u.cbr.ratio = m->clk.ratio;
    (void)ptc__mdl_emit(m, &p);
}

static void ptc__mdl_mtc_flush(ptc_model *m);

/* The real-clock settings' generator (xorshift64). */
static uint64_t ptc__mdl_random(ptc_model *m)
{
    uint64_t x = m->jitter_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    m->jitter_state = x;
    return x;
}

/* Erratum SKL168 (PTC_ERRATUM_SKL168 in cfg.trace.errata): the CYC that would go out right before a
   PSB, with the cycles counted since the last one, may be lost. */
static void ptc__mdl_skl168_drop_cyc(ptc_model *m)
{
    ptc_packet p;
    uint8_t bytes[PTC_MAX_PACKET_SIZE];
    if (!(m->cfg.trace.errata & PTC_ERRATUM_SKL168)) return;
    ptc__mdl_flush_tnt(m); /* (the PSB would send it first, with its CYC) */
    if (!m->cfg.trace.ctl.cyc_en || !m->core.enabled || m->out.overflow || !m->cyc.count || ptc__mdl_random(m) % 2) return;
    p = ptc__mdl_blank(PTC_CYC);
    p.u.cyc.cycles = m->cyc.count;
    p.size = (uint8_t)ptc__enc_packet(&p, bytes);
    m->cyc.count = 0;
    ptc__mdl_record(m, &p, bytes, p.size, PTC_FATE_DROPPED);
}

/* PSB+: the stream's periodic restatement of state (SPEC 5.2). at_edge
   (cfg.psb_early_tsc): at an MTC edge, whose MTC goes ahead of the TSC
   and TMA sampled in the cycle before. */
static void ptc__mdl_psb_plus(ptc_model *m, int at_edge)
{
    ptc__mdl_skl168_drop_cyc(m);
    m->psb.in = 1;
    m->retc.depth = 0; /* a decoder may start here: no RET compressed against older CALLs */
    if (ptc__mdl_emit_simple(m, PTC_PSB)) {
        m->core.last_ip = 0; /* the SDM resets the last IP at every PSB */
        m->core.last_ip_valid = 1;
    }
    if (m->core.packet_en) {
        ptc__mdl_mode_exec(m);
        if (m->core.in_tx) ptc__mdl_mode_tsx(m, 0);
        ptc__mdl_ip_packet(m, PTC_FUP, m->core.ip, 0);
    }
    if (ptc__mdl_context_en(m)) {
        ptc__mdl_pip(m);
        if (m->vmx.vmcs && m->cfg.trace.ctl.os) ptc__mdl_vmcs(m);
    }
    if (at_edge) ptc__mdl_mtc_flush(m);
    m->sample.out = at_edge;
    ptc__mdl_tsc_tma(m);
    m->sample.out = 0;
    ptc__mdl_cbr(m);
    (void)ptc__mdl_emit_simple(m, PTC_PSBEND);
    m->psb.in = 0;
}

/* A PSB+ is due and can go out (not during an overflow, when PacketByteCnt
   is frozen, nor inside another PSB+). */
static int ptc__mdl_psb_due(const ptc_model *m)
{
    return m->psb.pending && m->core.enabled && !m->out.overflow && !m->psb.in;
}

/* cfg.psb_early_tsc: a due PSB+ is at the MTC edge it waited for; the
   edge's MTC is still held, and the sample is of the cycle before, one
   ART tick short of the edge (no sleep in between). */
static int ptc__mdl_psb_at_edge(const ptc_model *m)
{
    return m->cfg.psb_early_tsc && ptc__mdl_psb_due(m) && m->mtc.pending && m->sample.edge_cycle == m->cycle &&
           m->sample.have && m->sample.cycle + 1 == m->cycle && m->sample.art + 1 == m->clk.art;
}

static uint64_t ptc__mdl_cycles_to_mtc_within(const ptc_model *m, uint64_t limit); /* (time passing, below) */

/* After each event and at each cycle boundary: a due PSB+ goes out as
   soon as nothing else is in flight - or, with cfg.psb_early_tsc, waits
   for an MTC edge at most that many cycles away, sampling each cycle,
   while the stream is less than half a step's bytes past the PSB period
   (so that ptc_model_psb_gap_max still holds). */
static void ptc__mdl_settle(ptc_model *m)
{
    uint64_t wait_bytes = (UINT64_C(2048) << m->cfg.trace.ctl.psb_freq) + PTC_MODEL_STEP_BYTES / 2;
    if (!ptc__mdl_psb_due(m)) return;
    if (ptc__mdl_psb_at_edge(m)) {
        ptc__mdl_psb_plus(m, 1);
        return;
    }
    if (m->cfg.psb_early_tsc && m->psb.bytes < wait_bytes &&
        ptc__mdl_cycles_to_mtc_within(m, m->cfg.psb_early_tsc) <= m->cfg.psb_early_tsc) {
        m->sample.have = 1;
        m->sample.cycle = m->cycle;
        m->sample.art = m->clk.art;
        m->sample.time = ptc_model_now(m);
        m->sample.fc = ptc__mdl_fast_counter(m);
        return;
    }
    ptc__mdl_psb_plus(m, 0);
}

/* -- time passing -- */

static int ptc__mdl_cyc_counting(const ptc_model *m) { return m->core.enabled && m->cfg.trace.ctl.cyc_en; }

static uint64_t ptc__mdl_cyc_max(const ptc_model *m) { return (UINT64_C(1) << m->cfg.trace.cyc_bits) - 1; }

/* The cycles to the next MTC edge, or UINT64_MAX when it is more than
   `limit` cycles away (or never comes). With a wobbling rate the walk goes
   a wobble step (256 cycles) at a time, and an MTC period can be millions
   of cycles: the limit keeps a caller that only needs the nearer of two
   events from walking to the farther one on every call. */
static uint64_t ptc__mdl_cycles_to_mtc_within(const ptc_model *m, uint64_t limit)
{
    /* the next ART value that is a multiple of 2^mtc_freq is k ticks away;
       the k-th tick happens in the j-th cycle from now, j minimal with
       num + j*inc >= k*den - at each rate the wobble steps through */
    uint64_t k, j, r, num = m->clk.art_num, inc = m->clk.art_inc, left = m->clk.wobble_left, done = 0;
    uint32_t step = m->clk.wobble_step;
    if (!m->core.enabled || !m->cfg.trace.ctl.mtc_en) return UINT64_MAX;
    k = ((((m->clk.art >> m->cfg.trace.ctl.mtc_freq) + 1) << m->cfg.trace.ctl.mtc_freq)) - m->clk.art;
    for (;;) {
        uint64_t ticks;
        if (!ptc__math_mad_div(k, m->clk.art_den, inc - 1, num, inc, &j, &r)) return UINT64_MAX;
        if (!m->cfg.rate_ppm || j <= left) return done + j;
        /* the rest of this step passes first: its ticks, then the next rate */
        (void)ptc__math_mad_div(left, inc, num, 0, m->clk.art_den, &ticks, &num);
        k -= ticks;
        done += left;
        if (done > limit) return UINT64_MAX; /* (the edge is at least `done` away) */
        step = (step + 1) % PTC__MDL_WOBBLE_STEPS;
        left = PTC__MDL_WOBBLE_STEP_CYCLES;
        inc = ptc__mdl_wobble_inc(m, step);
    }
}

PTCDEF uint64_t ptc_model_cycles_to_mtc(const ptc_model *m) { return ptc__mdl_cycles_to_mtc_within(m, UINT64_MAX); }

/* d cycles pass at one rate: the ART moves on. */
static void ptc__mdl_advance_art(ptc_model *m, uint64_t d)
{
    uint64_t ticks, rem;
    if (!ptc__math_mad_div(d, m->clk.art_inc, m->clk.art_num, 0, m->clk.art_den, &ticks, &rem)) {
        ticks = UINT64_MAX; /* 2^64 ART ticks: centuries; not reachable */
        rem = 0;
    }
    m->clk.art += ticks;
    m->clk.art_num = rem;
}

/* d cycles pass with nothing else happening. */
static void ptc__mdl_advance(ptc_model *m, uint64_t d)
{
    uint64_t left = d;
    while (left) { /* a piece at each rate the wobble steps through */
        uint64_t take = m->cfg.rate_ppm && m->clk.wobble_left < left ? m->clk.wobble_left : left;
        ptc__mdl_advance_art(m, take);
        ptc__mdl_wobble_cycles(m, take);
        left -= take;
    }
    m->cycle += d;
    if (ptc__mdl_cyc_counting(m)) {
        m->cyc.count += d;
        if (m->out.overflow) m->cyc.count &= ptc__mdl_cyc_max(m); /* it wraps, unseen */
    }
    if (m->cfg.fifo_bytes) {
        /* drain_bytes a cycle, never below empty */
        if (d >= (m->out.fifo_fill + m->cfg.drain_bytes - 1) / m->cfg.drain_bytes) m->out.fifo_fill = 0;
        else m->out.fifo_fill -= d * m->cfg.drain_bytes;
    }
}

/* One cycle, the long way: the reference for ptc__str_advance. Returns 1 when
   an MTC edge falls on the new boundary. */
static int ptc__mdl_step_one(ptc_model *m)
{
    m->cycle++;
    m->clk.art_num += m->clk.art_inc;
    ptc__mdl_wobble_cycles(m, 1);
    if (ptc__mdl_cyc_counting(m)) {
        m->cyc.count++;
        if (m->out.overflow) m->cyc.count &= ptc__mdl_cyc_max(m);
    }
    if (m->cfg.fifo_bytes) m->out.fifo_fill = m->out.fifo_fill > m->cfg.drain_bytes ? m->out.fifo_fill - m->cfg.drain_bytes : 0;
    if (m->clk.art_num >= m->clk.art_den) {
        m->clk.art_num -= m->clk.art_den;
        m->clk.art++;
        return m->core.enabled && m->cfg.trace.ctl.mtc_en && (m->clk.art & ((UINT64_C(1) << m->cfg.trace.ctl.mtc_freq) - 1)) == 0;
    }
    return 0;
}

/* An MTC the policy lets out may still be lost (cfg.mtc_lost): recorded
   in the truth as dropped, and not counted by the policy. */
static int ptc__mdl_mtc_lost(ptc_model *m, const ptc_packet *p)
{
    uint8_t bytes[2];
    /* (nor one that would leave more than 256 periods between two MTCs
       written - the payload could not count them: after a suppressed run
       a non-timing packet lets the next MTC through; nor one inside a
       PSB+, which cfg.psb_early_tsc puts there to show time passed) */
    if (!m->cfg.mtc_lost || m->psb.in || m->mtc.lost_run >= m->cfg.mtc_lost || m->mtc.edges_since + m->cfg.mtc_lost >= 256 ||
        ptc__mdl_random(m) % 4 != 0) {
        m->mtc.lost_run = 0;
        return 0;
    }
    m->mtc.lost_run++;
    bytes[0] = PTC_OP_MTC;
    bytes[1] = p->u.mtc.ctc;
    ptc__mdl_record(m, p, bytes, 2, PTC_FATE_DROPPED);
    return 1;
}

/* The MTC of an edge, through the suppression policy (SPEC 2.1). */
static void ptc__mdl_mtc_packet(ptc_model *m, uint8_t payload)
{
    const ptc_mtc_policy *pol = &m->cfg.trace.policy;
    ptc_packet p;
    int resumed = 0;
    memset(&p, 0, sizeof p);
    p.type = PTC_MTC;
    p.u.mtc.ctc = payload;
    if (m->out.overflow) {
        (void)ptc__mdl_output(m, &p);
        return;
    }
    m->mtc.edges_since++;
    if (m->mtc.suppressing) {
        if ((pol->resume_on_value && p.u.mtc.ctc == pol->resume_value) ||
            (pol->resume_after && m->mtc.suppressed == pol->resume_after)) {
            m->mtc.suppressing = 0;
            m->mtc.run = 0;
            resumed = 1;
            m->mtc.need = pol->threshold > pol->min_burst ? pol->threshold : pol->min_burst;
        } else {
            uint8_t bytes[2];
            bytes[0] = PTC_OP_MTC;
            bytes[1] = p.u.mtc.ctc;
            p.size = 2;
            m->mtc.suppressed++;
            m->mtc.n_suppressed++;
            ptc__mdl_record(m, &p, bytes, 2, PTC_FATE_SUPPRESSED);
            return;
        }
    }
    p.size = 2;
    /* (never the MTC that ends a suppressed run: the gap would be more
       than the payload counts) */
    if (!resumed && ptc__mdl_mtc_lost(m, &p)) return;
    (void)ptc__mdl_emit(m, &p);
    m->mtc.edges_since = 0;
    m->mtc.n_emitted++;
    m->mtc.run++;
    if (pol->threshold && m->mtc.run >= m->mtc.need) {
        m->mtc.suppressing = 1;
        m->mtc.suppressed = 0;
    }
}

/* The MTC of an edge seen earlier goes out now. */
static void ptc__mdl_mtc_flush(ptc_model *m)
{
    if (!m->mtc.pending) return;
    m->mtc.pending = 0;
    ptc__mdl_mtc_packet(m, m->mtc.pending_ctc);
}

/* An ART edge that MTCs mark: its packet is due now (the boundary sends
   it, unless a PSB+ waiting for this edge takes it), or - with
   mtc_jitter - after the delay the core takes to see it (SPEC 5.1). An
   earlier edge still waiting goes out first. */
static void ptc__mdl_mtc_edge(ptc_model *m)
{
    uint8_t payload = (uint8_t)(m->clk.art >> m->cfg.trace.ctl.mtc_freq);
    ptc__mdl_mtc_flush(m);
    m->sample.edge_cycle = m->cycle;
    m->mtc.pending = 1;
    m->mtc.pending_ctc = payload;
    m->mtc.due = m->cycle;
    if (m->cfg.mtc_jitter) m->mtc.due += ptc__mdl_random(m) % ((uint64_t)m->cfg.mtc_jitter + 1);
}

/* Erratum SKD007 (PTC_ERRATUM_SKD007 in cfg.trace.errata): the CYC that goes out with the OVF, when
   it has more than one byte, may keep only its first; the OVF's bytes
   take the place of the rest. */
static void ptc__mdl_skd007_cut_cyc(ptc_model *m)
{
    ptc_packet p;
    uint8_t bytes[PTC_MAX_PACKET_SIZE];
    uint64_t thresh = m->cfg.trace.ctl.cyc_thresh ? UINT64_C(1) << (m->cfg.trace.ctl.cyc_thresh - 1) : 0;
    /* (a count of 32 or more does not fit the first byte's five bits) */
    if (!(m->cfg.trace.errata & PTC_ERRATUM_SKD007) || !m->cfg.trace.ctl.cyc_en || !m->core.enabled || m->cyc.count < 32) return;
    if (m->cyc.count < thresh && !m->cyc.last_was_cyc) return; /* no CYC goes out with this OVF */
    if (ptc__mdl_random(m) % 2) return;
    p = ptc__mdl_blank(PTC_CYC);
    p.u.cyc.cycles = m->cyc.count;
    p.size = (uint8_t)ptc__enc_packet(&p, bytes);
    m->cyc.count = 0;
    ptc__mdl_record(m, &p, bytes, p.size, PTC_FATE_CUT);
    m->out.generated++;
    if (m->cfg.fifo_bytes) m->out.fifo_fill += m->cfg.drain_cycles; /* its one byte (the buffer is empty) */
    m->out.offset++;
    m->psb.bytes++;
}

static void ptc__mdl_overflow_end(ptc_model *m)
{
    m->out.overflow = 0;
    m->tnt.count = 0; /* branches retired during the overflow are lost */
    m->tnt.bits = 0;
    m->retc.depth = 0; /* and so may be CALLs: their RETs must not be compressed */
    ptc__mdl_skd007_cut_cyc(m);
    (void)ptc__mdl_emit_simple(m, PTC_OVF);
    /* time again after the gap (as Linux perf expects and libipt's
       ovf-timing vectors show): MTCs lost in the overflow may be more than
       the 8-bit payload can count */
    ptc__mdl_tsc_tma(m);
    ptc__mdl_cbr(m);
    if (m->core.packet_en) ptc__mdl_ip_packet(m, PTC_FUP, m->core.ip, 0);
}

/* What happens at a cycle boundary, in this order: the end of an
   overflow, an MTC, a CYC before the cycle counter wraps, a due TraceStop,
   a due PSB+. */
/* TraceStop (SDM): the pending TNT, TIP.PGD if packets were enabled, then
   TraceStop; tracing stays off (Status.Stopped) for the rest of the run. */
static void ptc__mdl_trace_stop(ptc_model *m)
{
    m->trigger.stop_cycle = UINT64_MAX;
    if (!m->core.enabled) return;
    ptc__mdl_mtc_flush(m);
    ptc__mdl_flush_tnt(m);
    if (m->core.packet_en) ptc__mdl_ip_packet(m, PTC_TIP_PGD, 0, 1);
    (void)ptc__mdl_emit_simple(m, PTC_STOP);
    m->core.enabled = 0;
    m->core.packet_en = 0;
    m->cyc.count = 0;
    m->trigger.stopped = 1;
}

static void ptc__mdl_boundary(ptc_model *m, int mtc_edge)
{
    if (m->out.overflow && m->out.fifo_fill == 0) ptc__mdl_overflow_end(m);
    if (mtc_edge) ptc__mdl_mtc_edge(m);
    if (m->mtc.pending && m->cycle >= m->mtc.due && !ptc__mdl_psb_at_edge(m)) ptc__mdl_mtc_flush(m);
    if (ptc__mdl_cyc_counting(m) && !m->out.overflow && m->cyc.count >= ptc__mdl_cyc_max(m)) {
        /* a standalone CYC before the counter wraps; a pending TNT goes
           first, or it would follow a CYC later than its first branch
           (packets after a CYC are at or after its time) */
        ptc__mdl_flush_tnt(m);
        ptc__mdl_cyc(m, 1);
    }
    /* after the edge's MTC, like every other packet of the boundary: a
       packet before an MTC is before its edge (SPEC 3.4) */
    if (m->cycle >= m->trigger.stop_cycle) ptc__mdl_trace_stop(m);
    ptc__mdl_settle(m);
}

PTCDEF ptc_status ptc_model_idle(ptc_model *m, uint64_t cycles)
{
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (m->cfg.reference_stepping) {
        while (cycles--) ptc__mdl_boundary(m, ptc__mdl_step_one(m));
        return PTC_OK;
    }
    while (cycles) {
        /* jump to the next boundary where something happens: the MTC edge
           last, so that its walk stops at the nearest other event */
        uint64_t d = cycles, to_mtc;
        if (ptc__mdl_cyc_counting(m) && !m->out.overflow && ptc__mdl_cyc_max(m) - m->cyc.count < d)
            d = ptc__mdl_cyc_max(m) - m->cyc.count;
        if (m->out.overflow) {
            uint64_t empty = (m->out.fifo_fill + m->cfg.drain_bytes - 1) / m->cfg.drain_bytes;
            if (empty < d) d = empty;
        }
        if (m->trigger.stop_cycle - m->cycle < d) d = m->trigger.stop_cycle - m->cycle;
        if (m->mtc.pending && m->mtc.due - m->cycle < d) d = m->mtc.due - m->cycle;
        if (ptc__mdl_psb_due(m)) d = 1; /* settled at the very next boundary, as when stepping */
        if (d == 0) d = 1;          /* never: every event above is at least a cycle away */
        to_mtc = ptc__mdl_cycles_to_mtc_within(m, d); /* (at least a cycle away) */
        if (to_mtc < d) d = to_mtc;
        ptc__mdl_advance(m, d);
        cycles -= d;
        ptc__mdl_boundary(m, d == to_mtc);
    }
    return PTC_OK;
}

/* -- workload events -- */

/* Where an event starts: what the stream and the packet count were, and
   the CPL the instruction retires at. */
typedef struct ptc__mdl_mark { uint64_t offset, generated; uint8_t cpl; } ptc__mdl_mark;

static ptc__mdl_mark ptc__mdl_mark_now(const ptc_model *m)
{
    ptc__mdl_mark k;
    k.offset = m->out.offset;
    k.generated = m->out.generated;
    k.cpl = m->core.cpl;
    return k;
}

/* A PEBS record for the counters in `mask` that overflowed at the
   instruction at ip (SPEC 5.8). */
static void ptc__mdl_pebs_record(ptc_model *m, uint64_t ip, unsigned mask)
{
    ptc_packet p;
    uint64_t items[3];
    unsigned i;
    if (!m->core.enabled) return;
    items[PTC_PEBS_ITEM_IP] = ip;
    items[PTC_PEBS_ITEM_COUNTERS] = mask;
    items[PTC_PEBS_ITEM_TSC] = ptc_model_now(m).tsc;
    memset(&p, 0, sizeof p);
    p.type = PTC_BBP;
    p.u.bbp.block_type = PTC_PEBS_BLOCK_BASIC;
    (void)ptc__mdl_emit(m, &p);
    for (i = 0; i < 3; i++) {
        memset(&p, 0, sizeof p);
        p.type = PTC_BIP;
        p.u.bip.id = (uint8_t)i;
        p.u.bip.bytes = 8;
        p.u.bip.value = items[i];
        (void)ptc__mdl_emit(m, &p);
    }
    memset(&p, 0, sizeof p);
    p.type = PTC_BEP;
    p.u.bep.ip = 1;
    (void)ptc__mdl_emit(m, &p);
    ptc__mdl_retiring_ip_packet(m, PTC_FUP, ip);
}

static void ptc__mdl_trigger(ptc_model *m, uint64_t ip);

/* One more occurrence of what the trigger watches, at the instruction at ip. */
static void ptc__mdl_trigger_occurrence(ptc_model *m, uint64_t ip)
{
    if (m->cfg.trigger_nth && m->trigger.seen < m->cfg.trigger_nth && ++m->trigger.seen == m->cfg.trigger_nth)
        ptc__mdl_trigger(m, ip);
}

/* The core's counters see an event of this thread at privilege cpl. */
static void ptc__mdl_count(ptc_model *m, ptc_event_kind kind, int taken, uint8_t cpl, uint64_t ip)
{
    ptc_counters *c = m->counters;
    unsigned i, pebs = 0, overflowed = 0;
    if (!c) return;
    for (i = 0; i < c->n; i++) {
        const ptc_counter_config *k = &c->cfg[i];
        if (k->event != (uint8_t)kind) continue;
        if (kind == PTC_EV_BRANCH && k->outcome && !(k->outcome & (taken ? 1 : 2))) continue;
        if (k->threads && !(k->threads & (1u << m->thread))) continue;
        if (!(cpl ? k->usr : k->os)) continue;
        c->value[i] = (c->value[i] + 1) & ((UINT64_C(1) << PTC_COUNTER_BITS) - 1);
        if (c->value[i] == 0) {
            c->overflows[i]++;
            overflowed |= 1u << i;
            if (k->pebs) pebs |= 1u << i;
        }
    }
    if (pebs) ptc__mdl_pebs_record(m, ip, pebs);
    if (m->cfg.trigger_counter && (overflowed >> (m->cfg.trigger_counter - 1)) & 1) ptc__mdl_trigger_occurrence(m, ip);
}

/* The trigger fires, once: TRIG (and the FUP of the instruction), and the
   TraceStop delay starts. */
static void ptc__mdl_trigger(ptc_model *m, uint64_t ip)
{
    if (m->core.enabled) {
        ptc_packet p;
        memset(&p, 0, sizeof p);
        p.type = PTC_TRIG;
        p.u.trig.trbv = 1;
        p.u.trig.ip = m->cfg.trigger_fup;
        (void)ptc__mdl_emit(m, &p);
        if (m->cfg.trigger_fup) ptc__mdl_retiring_ip_packet(m, PTC_FUP, ip);
    }
    if (m->cfg.trace_stop) {
        m->trigger.stop_cycle = m->cfg.stop_delay < UINT64_MAX - m->cycle ? m->cycle + m->cfg.stop_delay : UINT64_MAX - 1;
        if (m->cfg.stop_delay == 0) ptc__mdl_trace_stop(m);
    }
}

/* Reports a workload event; traced: it made trace (a TNT bit, or packets,
   even ones an overflow then lost). */
static void ptc__mdl_event(ptc_model *m, ptc_event_kind kind, uint64_t ip, uint64_t target, int taken,
                       ptc__mdl_mark start, int tnt_bit)
{
    ptc_event_truth ev;
    ptc__mdl_count(m, kind, taken, start.cpl, ip);
    if (!m->cfg.trigger_counter && ip == m->cfg.trigger_ip) ptc__mdl_trigger_occurrence(m, ip);
    ptc__mdl_settle(m);
    if (!m->sink.event) { m->out.events++; return; }
    memset(&ev, 0, sizeof ev);
    ev.index = m->out.events++;
    ev.kind = kind;
    ev.thread = m->thread;
    ev.cpl = start.cpl;
    ev.cycle = m->cycle;
    ev.time = ptc_model_now(m);
    ev.ip = ip;
    ev.target = target;
    ev.taken = (uint8_t)(taken != 0);
    ev.traced = (uint8_t)(tnt_bit || m->out.generated != start.generated);
    ev.offset = start.offset;
    m->sink.event(m->sink.user, &ev);
}

PTCDEF ptc_status ptc_model_start(ptc_model *m, uint64_t ip)
{
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (m->core.enabled || m->trigger.stopped) return PTC_ERR_BAD_STATE;
    m->core.enabled = 1;
    m->core.ip = ip;
    m->cyc.count = 0;
    m->core.packet_en = 0;
    m->mtc.suppressing = 0;
    m->mtc.run = 0;
    m->mtc.need = m->cfg.trace.policy.threshold;
    ptc__mdl_psb_plus(m, 0);
    m->core.packet_en = ptc__mdl_packet_en(m, ip);
    if (m->core.packet_en) {
        ptc__mdl_mode_exec(m);
        ptc__mdl_ip_packet(m, PTC_TIP_PGE, ip, 0);
    }
    ptc__mdl_settle(m);
    return PTC_OK;
}

/* TraceEn 1 -> 0; wrmsr_ip NULL when no instruction is known. */
static ptc_status ptc__mdl_stop(ptc_model *m, const uint64_t *wrmsr_ip)
{
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (!m->core.enabled) return PTC_ERR_BAD_STATE;
    ptc__mdl_mtc_flush(m); /* an edge seen before TraceEn cleared */
    ptc__mdl_flush_tnt(m);
    if (m->core.packet_en && wrmsr_ip) ptc__mdl_retiring_ip_packet(m, PTC_FUP, *wrmsr_ip);
    if (m->core.packet_en) ptc__mdl_ip_packet(m, PTC_TIP_PGD, 0, 1);
    m->core.enabled = 0;
    m->core.packet_en = 0;
    m->cyc.count = 0; /* the cycle counter resets when TriggerEn clears */
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_stop(ptc_model *m) { return ptc__mdl_stop(m, NULL); }

PTCDEF ptc_status ptc_model_stop_at(ptc_model *m, uint64_t ip) { return ptc__mdl_stop(m, &ip); }

/* Control arrives at target; `from` and `to` say whether packets were
   enabled where it left and are where it arrives: TIP (both), TIP.PGD
   (leaving; naming the target when pgd_names_target), MODE.Exec and
   TIP.PGE (entering), or nothing. */
static void ptc__mdl_flow_to(ptc_model *m, uint64_t target, int from, int to, int pgd_names_target)
{
    if (from && to) {
        ptc__mdl_retiring_ip_packet(m, PTC_TIP, target);
    } else if (from) {
        if (pgd_names_target) ptc__mdl_retiring_ip_packet(m, PTC_TIP_PGD, target);
        else ptc__mdl_ip_packet(m, PTC_TIP_PGD, target, 1);
    } else if (to) {
        ptc__mdl_mode_exec(m);
        ptc__mdl_ip_packet(m, PTC_TIP_PGE, target, 0);
    }
    m->core.ip = target;
    m->core.packet_en = to;
}

/* Control moves from ip to target, where the CPL is `cpl`: packets for
   entering or leaving the traced region; `inside` says what to emit when
   both ends are traced. Leaving for a context that is not traced (another
   CPL) leaves the target unsaid, and so does a conditional branch
   (PTC__MDL_XFER_COND: SDM Table 36-50, cases 7e and 7f, TIP.PGD() - the
   decoder reads the target in the code). */
enum { PTC__MDL_XFER_NONE, PTC__MDL_XFER_COND, PTC__MDL_XFER_TIP, PTC__MDL_XFER_FUP_TIP, PTC__MDL_XFER_MODE_TIP };
static void ptc__mdl_transfer(ptc_model *m, uint64_t ip, uint64_t target, int inside, uint8_t cpl)
{
    int from = ptc__mdl_packet_en(m, ip), to;
    m->core.cpl = cpl;
    to = ptc__mdl_packet_en(m, target);
    if (from && inside == PTC__MDL_XFER_FUP_TIP) ptc__mdl_retiring_ip_packet(m, PTC_FUP, ip);
    if (from && to && inside == PTC__MDL_XFER_MODE_TIP) ptc__mdl_mode_exec(m);
    if (from && to && (inside == PTC__MDL_XFER_NONE || inside == PTC__MDL_XFER_COND)) {
        m->core.ip = target; /* a direct branch: the decoder knows where */
        return;
    }
    ptc__mdl_flow_to(m, target, from, to, inside != PTC__MDL_XFER_COND && ptc__mdl_context_en(m));
}

/* One more bit for the pending TNT: a conditional branch, or a compressed
   RET (always taken). */
static void ptc__mdl_tnt_bit(ptc_model *m, uint64_t target, int taken)
{
    /* a TNT's CYC goes out at its first branch (SDM 36.3.6.2), the TNT
       later with none of its own */
    if (m->tnt.count == 0) ptc__mdl_cyc(m, m->cyc.last_was_cyc);
    m->tnt.cycle[m->tnt.count] = m->cycle;
    m->tnt.time[m->tnt.count] = ptc_model_now(m);
    m->tnt.bits = (m->tnt.bits << 1) | (uint64_t)(taken != 0);
    m->tnt.count++;
    if (m->tnt.count == (m->cfg.long_tnt ? 47 : 6)) ptc__mdl_flush_tnt(m);
    m->core.ip = target;
}

PTCDEF ptc_status ptc_model_branch(ptc_model *m, uint64_t ip, uint64_t target, int taken)
{
    ptc__mdl_mark before;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    before = ptc__mdl_mark_now(m);
    if (ptc__mdl_packet_en(m, ip) && ptc__mdl_packet_en(m, target)) {
        ptc__mdl_tnt_bit(m, target, taken);
        ptc__mdl_event(m, PTC_EV_BRANCH, ip, target, taken, before, 1);
        return PTC_OK;
    }
    ptc__mdl_transfer(m, ip, target, PTC__MDL_XFER_COND, m->core.cpl);
    ptc__mdl_event(m, PTC_EV_BRANCH, ip, target, taken, before, 0);
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_call(ptc_model *m, uint64_t ip, uint64_t target, uint64_t next_ip, int indirect)
{
    ptc__mdl_mark before;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    before = ptc__mdl_mark_now(m);
    /* Only a CALL a decoder sees whole (both ends traced) can be matched
       by its RET; a zero-length CALL (PIC code reading its own IP) has no
       RET (SDM 36.4.2.2; libipt does not push them either). */
    if (ptc__mdl_packet_en(m, ip) && ptc__mdl_packet_en(m, target) && (indirect || target != next_ip)) {
        m->retc.top = (uint8_t)((m->retc.top + 1) % PTC_MODEL_RETC_DEPTH);
        m->retc.next_ip[m->retc.top] = next_ip;
        if (m->retc.depth < PTC_MODEL_RETC_DEPTH) m->retc.depth++;
    }
    ptc__mdl_transfer(m, ip, target, indirect ? PTC__MDL_XFER_TIP : PTC__MDL_XFER_NONE, m->core.cpl);
    ptc__mdl_event(m, PTC_EV_CALL, ip, target, 1, before, 0);
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_ret(ptc_model *m, uint64_t ip, uint64_t target)
{
    ptc__mdl_mark before;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    before = ptc__mdl_mark_now(m);
    if (ptc__mdl_packet_en(m, ip) && m->retc.depth) {
        /* every RET a decoder sees takes the newest CALL off the stack,
           compressed or not: "matching stack depth" (SDM 36.2.1.2, and the
           decoder's stack of 36.4.2.2, as Linux perf keeps it) */
        int compressed = !m->cfg.trace.ctl.dis_retc && m->retc.next_ip[m->retc.top] == target && ptc__mdl_packet_en(m, target);
        m->retc.top = (uint8_t)((m->retc.top + PTC_MODEL_RETC_DEPTH - 1) % PTC_MODEL_RETC_DEPTH);
        m->retc.depth--;
        if (compressed) {
            ptc__mdl_tnt_bit(m, target, 1);
            ptc__mdl_event(m, PTC_EV_RET, ip, target, 1, before, 1);
            return PTC_OK;
        }
    }
    ptc__mdl_transfer(m, ip, target, PTC__MDL_XFER_TIP, m->core.cpl);
    ptc__mdl_event(m, PTC_EV_RET, ip, target, 1, before, 0);
    return PTC_OK;
}



/* A transfer to target at CPL cpl that is workload event `kind`: the
   packets ptc__mdl_transfer writes for `inside`, then the event. */
static ptc_status ptc__mdl_transfer_event(ptc_model *m, ptc_event_kind kind, int inside, uint64_t ip, uint64_t target,
                                          uint8_t cpl)
{
    ptc__mdl_mark before;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (cpl > 3) return PTC_ERR_RANGE;
    before = ptc__mdl_mark_now(m);
    ptc__mdl_transfer(m, ip, target, inside, cpl);
    ptc__mdl_event(m, kind, ip, target, 1, before, 0);
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_jump(ptc_model *m, uint64_t ip, uint64_t target, int indirect)
{
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    return ptc__mdl_transfer_event(m, indirect ? PTC_EV_INDIRECT : PTC_EV_JUMP,
                                   indirect ? PTC__MDL_XFER_TIP : PTC__MDL_XFER_NONE, ip, target, m->core.cpl);
}

PTCDEF ptc_status ptc_model_interrupt_cpl(ptc_model *m, uint64_t ip, uint64_t handler, uint8_t cpl)
{
    return ptc__mdl_transfer_event(m, PTC_EV_INTERRUPT, PTC__MDL_XFER_FUP_TIP, ip, handler, cpl);
}

PTCDEF ptc_status ptc_model_interrupt(ptc_model *m, uint64_t ip, uint64_t handler)
{
    return m ? ptc_model_interrupt_cpl(m, ip, handler, m->core.cpl) : PTC_ERR_BAD_ARGUMENT;
}

PTCDEF ptc_status ptc_model_mode(ptc_model *m, uint64_t ip, uint64_t target, int csl, int csd)
{
    ptc__mdl_mark before;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    before = ptc__mdl_mark_now(m);
    m->core.csl = (uint8_t)(csl != 0);
    m->core.csd = (uint8_t)(csd != 0);
    ptc__mdl_transfer(m, ip, target, PTC__MDL_XFER_MODE_TIP, m->core.cpl);
    ptc__mdl_event(m, PTC_EV_MODE, ip, target, 1, before, 0);
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_ptwrite(ptc_model *m, uint64_t ip, uint64_t value, int bytes)
{
    ptc__mdl_mark before;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (bytes != 4 && bytes != 8) return PTC_ERR_RANGE;
    before = ptc__mdl_mark_now(m);
    if (m->core.enabled && m->cfg.trace.ctl.ptw_en && ptc__mdl_context_en(m) && ptc__mdl_filter_en(m, ip)) {
        ptc_packet p;
        memset(&p, 0, sizeof p);
        p.type = PTC_PTW;
        p.u.ptw.bytes = (uint8_t)bytes;
        p.u.ptw.ip = m->cfg.trace.ctl.fup_on_ptw;
        p.u.ptw.payload = bytes == 4 ? value & 0xFFFFFFFFu : value;
        (void)ptc__mdl_emit(m, &p);
        if (m->cfg.trace.ctl.fup_on_ptw) ptc__mdl_retiring_ip_packet(m, PTC_FUP, ip);
    }
    ptc__mdl_event(m, PTC_EV_PTWRITE, ip, value, 0, before, 0);
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_cr3(ptc_model *m, uint64_t ip, uint64_t cr3)
{
    ptc__mdl_mark before;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (cr3 & ~UINT64_C(0x000FFFFFFFFFFFE0)) return PTC_ERR_RANGE;
    before = ptc__mdl_mark_now(m);
    m->core.cr3 = cr3;
    if (m->core.enabled && ptc__mdl_context_en(m)) ptc__mdl_pip(m);
    ptc__mdl_event(m, PTC_EV_CR3, ip, cr3, 0, before, 0);
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_tsx(ptc_model *m, ptc_tsx_event ev, uint64_t ip, uint64_t target)
{
    ptc__mdl_mark before;
    int traced;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (ev != PTC_TSX_BEGIN && ev != PTC_TSX_COMMIT && ev != PTC_TSX_ABORT) return PTC_ERR_RANGE;
    if ((ev == PTC_TSX_BEGIN) == (m->core.in_tx != 0)) return PTC_ERR_BAD_STATE;
    before = ptc__mdl_mark_now(m);
    m->core.in_tx = (uint8_t)(ev == PTC_TSX_BEGIN);
    /* MODE.TSX needs TriggerEn and ContextEn; its FUP, PacketEn (SDM
       Table 36-27): outside the filter, only the mode goes out */
    traced = m->core.enabled && ptc__mdl_context_en(m);
    if (traced) ptc__mdl_mode_tsx(m, ev == PTC_TSX_ABORT);
    if (ev == PTC_TSX_ABORT) {
        ptc__mdl_transfer(m, ip, target, PTC__MDL_XFER_FUP_TIP, m->core.cpl);
    } else {
        if (traced && ptc__mdl_packet_en(m, ip)) ptc__mdl_retiring_ip_packet(m, PTC_FUP, ip);
        target = ip;
    }
    ptc__mdl_event(m, PTC_EV_TSX, ip, target, ev == PTC_TSX_ABORT, before, 0);
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_vmptrld(ptc_model *m, uint64_t ip, uint64_t vmcs)
{
    ptc__mdl_mark before;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (vmcs & ~UINT64_C(0x000FFFFFFFFFF000)) return PTC_ERR_RANGE;
    if (m->vmx.non_root) return PTC_ERR_BAD_STATE;
    before = ptc__mdl_mark_now(m);
    m->vmx.vmcs = vmcs;
    if (m->core.enabled && m->cfg.trace.ctl.os && ptc__mdl_context_en(m)) ptc__mdl_vmcs(m);
    ptc__mdl_event(m, PTC_EV_VMX, ip, vmcs, 0, before, 0);
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_vm_entry(ptc_model *m, uint64_t ip, uint64_t target, uint64_t guest_cr3, int trace_guest)
{
    ptc__mdl_mark before;
    int from;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (guest_cr3 & ~UINT64_C(0x000FFFFFFFFFFFE0)) return PTC_ERR_RANGE;
    if (m->vmx.non_root || !m->vmx.vmcs) return PTC_ERR_BAD_STATE;
    before = ptc__mdl_mark_now(m);
    from = ptc__mdl_packet_en(m, ip);
    /* the PIP binds to the VMLAUNCH/VMRESUME: it goes out while the host
       is traced, before the TIP (or the TIP.PGD, which names the guest's
       first instruction, as libipt's pip-vmcs-tip_pgd vector has it) */
    m->core.cr3 = guest_cr3;
    m->vmx.non_root = 1;
    if (from) ptc__mdl_pip(m);
    m->vmx.guest_traced = (uint8_t)(trace_guest != 0);
    ptc__mdl_flow_to(m, target, from, ptc__mdl_packet_en(m, target), 1);
    ptc__mdl_event(m, PTC_EV_VMX, ip, target, 1, before, 0);
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_vm_exit(ptc_model *m, uint64_t ip, uint64_t host_ip, uint64_t host_cr3)
{
    ptc__mdl_mark before;
    int from, to;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (host_cr3 & ~UINT64_C(0x000FFFFFFFFFFFE0)) return PTC_ERR_RANGE;
    if (!m->vmx.non_root) return PTC_ERR_BAD_STATE;
    before = ptc__mdl_mark_now(m);
    from = ptc__mdl_packet_en(m, ip);
    if (from) ptc__mdl_retiring_ip_packet(m, PTC_FUP, ip);
    m->vmx.non_root = 0;
    m->vmx.guest_traced = 0;
    m->core.cr3 = host_cr3;
    to = ptc__mdl_packet_en(m, host_ip);
    if (from || to) ptc__mdl_pip(m);
    ptc__mdl_flow_to(m, host_ip, from, to, 0);
    ptc__mdl_event(m, PTC_EV_VMX, ip, host_ip, 0, before, 0);
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_privilege(ptc_model *m, uint64_t ip, uint64_t target, uint8_t cpl)
{
    return ptc__mdl_transfer_event(m, PTC_EV_PRIVILEGE, PTC__MDL_XFER_TIP, ip, target, cpl);
}

PTCDEF ptc_status ptc_model_attach_counters(ptc_model *m, ptc_counters *c, uint8_t thread)
{
    if (!m || thread > 7) return PTC_ERR_BAD_ARGUMENT;
    if (m->core.enabled || m->trigger.stopped) return PTC_ERR_BAD_STATE;
    m->counters = c;
    m->thread = thread;
    return PTC_OK;
}

PTCDEF ptc_status ptc_counters_init(ptc_counters *c, const ptc_counter_config *cfg, unsigned n)
{
    unsigned i;
    if (!c || (!cfg && n)) return PTC_ERR_BAD_ARGUMENT;
    if (n > PTC_COUNTERS_MAX) return PTC_ERR_BAD_CONFIG;
    for (i = 0; i < n; i++)
        if (cfg[i].event > PTC_EV_LAST || cfg[i].start >> PTC_COUNTER_BITS || cfg[i].outcome > 3)
            return PTC_ERR_BAD_CONFIG;
    memset(c, 0, sizeof *c);
    c->n = n;
    for (i = 0; i < n; i++) {
        c->cfg[i] = cfg[i];
        c->value[i] = cfg[i].start;
    }
    return PTC_OK;
}

PTCDEF uint64_t ptc_counters_read(const ptc_counters *c, unsigned i) { return c && i < c->n ? c->value[i] : 0; }

PTCDEF uint64_t ptc_counters_overflows(const ptc_counters *c, unsigned i) { return c && i < c->n ? c->overflows[i] : 0; }

PTCDEF ptc_status ptc_model_set_ratio(ptc_model *m, uint64_t ip, uint8_t ratio)
{
    ptc__mdl_mark before;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (ratio == 0) return PTC_ERR_RANGE;
    if (!ptc__mdl_phase_den(m, m->clk.art_den, ratio)) return PTC_ERR_INEXACT;
    before = ptc__mdl_mark_now(m);
    ptc__mdl_mtc_flush(m);
    if (m->core.enabled) {
        /* EIST in C0 stops the clocks briefly: EXSTOP and FUP with power
           events, then the cycle count so far, TSC, TMA and the new CBR */
        if (m->cfg.trace.ctl.pwr_evt_en) {
            ptc_packet p;
            memset(&p, 0, sizeof p);
            p.type = PTC_EXSTOP;
            p.u.exstop.ip = (uint8_t)ptc__mdl_context_en(m);
            (void)ptc__mdl_emit(m, &p);
            if (ptc__mdl_context_en(m)) ptc__mdl_retiring_ip_packet(m, PTC_FUP, ip);
        }
        ptc__mdl_cyc(m, 1);
    }
    (void)ptc__mdl_set_phase_den(m, ratio);
    if (m->core.enabled) {
        ptc__mdl_tsc_tma(m);
        ptc__mdl_cbr(m);
    }
    ptc__mdl_event(m, PTC_EV_RATIO, ip, ratio, 0, before, 0);
    return PTC_OK;
}

PTCDEF ptc_status ptc_model_sleep(ptc_model *m, uint64_t ip, int mwait, uint32_t hints, uint32_t ext,
                                  uint8_t cstate, uint64_t art_ticks, int wake_int)
{
    ptc__mdl_mark before;
    ptc_packet p;
    if (!m) return PTC_ERR_BAD_ARGUMENT;
    if (cstate < 1 || cstate > 15) return PTC_ERR_RANGE;
    before = ptc__mdl_mark_now(m);
    ptc__mdl_mtc_flush(m); /* the clocks stop: an edge already seen goes out first */
    if (m->core.enabled && m->cfg.trace.ctl.pwr_evt_en) {
        int ce = ptc__mdl_context_en(m);
        if (mwait && ce) {
            memset(&p, 0, sizeof p);
            p.type = PTC_MWAIT;
            p.u.mwait.hints = hints;
            p.u.mwait.ext = ext;
            (void)ptc__mdl_emit(m, &p);
        }
        memset(&p, 0, sizeof p);
        p.type = PTC_PWRE;
        p.u.pwre.state = (uint8_t)((cstate - 1) & 15);
        p.u.pwre.sub_state = 15; /* sub-state 0, coded (n-1) mod 16 */
        (void)ptc__mdl_emit(m, &p);
        memset(&p, 0, sizeof p);
        p.type = PTC_EXSTOP;
        p.u.exstop.ip = (uint8_t)ce;
        (void)ptc__mdl_emit(m, &p);
        if (ce) ptc__mdl_retiring_ip_packet(m, PTC_FUP, ip);
    }
    ptc__mdl_flush_tnt(m);
    /* asleep: the core clock and the PT clocks stop; the ART goes on */
    m->clk.art += art_ticks;
    if (m->core.enabled) {
        /* the cycles before the clocks stopped, then TSC; no CYC when they
           stopped in the last CYC's cycle (one CYC a cycle: SPEC 7.3.5) */
        ptc__mdl_cyc(m, 1);
        ptc__mdl_tsc_tma(m);
        ptc__mdl_cbr(m);
        if (m->cfg.trace.ctl.pwr_evt_en) {
            memset(&p, 0, sizeof p);
            p.type = PTC_PWRX;
            p.u.pwrx.last = (uint8_t)((cstate - 1) & 15);
            p.u.pwrx.deepest = (uint8_t)((cstate - 1) & 15);
            p.u.pwrx.wake = (uint8_t)(wake_int ? 1 : 0);
            (void)ptc__mdl_emit(m, &p);
        }
    }
    ptc__mdl_event(m, PTC_EV_SLEEP, ip, art_ticks, 0, before, 0);
    return PTC_OK;
}

/* -- what the other parts need to know of the model -- */

PTCDEF void ptc_clock_config_from_model(ptc_clock_config *cfg, const ptc_model_config *m)
{
    ptc_tsc_ratios *r = &cfg->trace.ratios;
    ptc_clock_config_sdm(cfg);
    cfg->trace = m->trace;
    cfg->trace.known = PTC_KNOW_ALL; /* the model does what its configuration says */
    r->nom_num = (uint64_t)m->art_hz * r->cpuid_15_ebx;
    r->nom_den = (uint64_t)r->cpuid_15_eax * 100000000u;
    r->nom_exact = 1;
    cfg->real.mtc_jitter = m->mtc_jitter;
    cfg->real.mtc_lost = m->mtc_lost;
    cfg->real.rate_ppm = m->rate_ppm;
    cfg->real.psb_early_tsc = m->psb_early_tsc != 0;
}

PTCDEF unsigned ptc_model_nom_freq(const ptc_model_config *m)
{
    uint64_t tsc_hz = (uint64_t)m->art_hz * m->trace.ratios.cpuid_15_ebx / m->trace.ratios.cpuid_15_eax;
    unsigned nom = (unsigned)((tsc_hz + 50000000u) / 100000000u);
    return nom ? nom : 1;
}

PTCDEF uint64_t ptc_model_psb_gap_max(const ptc_model_config *cfg)
{
    return 16 + (UINT64_C(2048) << (cfg->trace.ctl.psb_freq & 15)) - 1 + PTC_MODEL_STEP_BYTES;
}

PTCDEF uint64_t ptc_snapshot_size(const ptc_model_config *cfg, uint64_t history, uint64_t after)
{
    uint64_t gap = ptc_model_psb_gap_max(cfg);
    if (history > UINT64_MAX - gap || after > UINT64_MAX - gap - history) return UINT64_MAX;
    return gap + history + after;
}


#endif /* PTCODEC_NO_MODEL */

#ifndef PTCODEC_NO_PERF
/* ---- 6. perf.data ------------------------------------------------------ */

#define PTC__PERF_FILE_HEADER 104     /* magic, size, attr_size, 3 sections, features */
#define PTC__PERF_PIPE_HEADER 16      /* magic, size */
#define PTC__PERF_ATTR_MIN 64         /* PERF_ATTR_SIZE_VER0: all the reader uses is in it */
#define PTC__PERF_FEATURE_CPUID 9     /* HEADER_CPUID: "GenuineIntel,family,model,stepping" */
#define PTC__PERF_FEATURE_COMPRESSED 27
#define PTC__PERF_AUXTRACE_INTEL_PT 1

/* sample_type bits (perf_event.h); the order of a sample's fields is not
   quite theirs (ptc__perf_sample) */
enum {
    PTC__PERF_S_IP = 1u << 0, PTC__PERF_S_TID = 1u << 1, PTC__PERF_S_TIME = 1u << 2, PTC__PERF_S_ADDR = 1u << 3,
    PTC__PERF_S_READ = 1u << 4, PTC__PERF_S_CALLCHAIN = 1u << 5, PTC__PERF_S_ID = 1u << 6, PTC__PERF_S_CPU = 1u << 7,
    PTC__PERF_S_PERIOD = 1u << 8, PTC__PERF_S_STREAM_ID = 1u << 9, PTC__PERF_S_RAW = 1u << 10,
    PTC__PERF_S_BRANCH_STACK = 1u << 11, PTC__PERF_S_REGS_USER = 1u << 12, PTC__PERF_S_STACK_USER = 1u << 13,
    PTC__PERF_S_WEIGHT = 1u << 14, PTC__PERF_S_DATA_SRC = 1u << 15, PTC__PERF_S_IDENTIFIER = 1u << 16,
    PTC__PERF_S_TRANSACTION = 1u << 17, PTC__PERF_S_REGS_INTR = 1u << 18, PTC__PERF_S_PHYS_ADDR = 1u << 19,
    PTC__PERF_S_AUX = 1u << 20, PTC__PERF_S_CGROUP = 1u << 21, PTC__PERF_S_DATA_PAGE_SIZE = 1u << 22,
    PTC__PERF_S_CODE_PAGE_SIZE = 1u << 23, PTC__PERF_S_WEIGHT_STRUCT = 1u << 24
};

PTCDEF const char *ptc_perf_record_name(uint32_t type)
{
    switch (type) {
#define PTC__X(e, v, n) case v: return n;
    PTC_PERF_RECORD_LIST(PTC__X)
#undef PTC__X
    default: return "unknown_record";
    }
}

static uint32_t ptc__perf_u32(const uint8_t *p) { return (uint32_t)ptc__byte_load(p, 4); }

/* n bytes at off lie inside the buffer */
static int ptc__perf_has(const ptc_perf_reader *rd, uint64_t off, uint64_t n) { return off <= rd->len && n <= rd->len - off; }

static ptc_status ptc__perf_fail(ptc_perf_reader *rd, uint64_t offset, ptc_status st)
{
    rd->error_offset = offset;
    return st;
}

/* "GenuineIntel,6,78,3": family, model and stepping after the vendor. */
static void ptc__perf_cpuid(ptc_perf_reader *rd, const uint8_t *s, size_t n)
{
    unsigned v[3] = { 0, 0, 0 }, k = 0;
    size_t i = 0;
    while (i < n && s[i] && s[i] != ',') i++;
    while (k < 3 && i < n && s[i] == ',') {
        int digits = 0;
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9' && v[k] < 100000) { v[k] = v[k] * 10 + (unsigned)(s[i++] - '0'); digits = 1; }
        if (!digits) return;
        k++;
    }
    if (k < 2) return;
    rd->have_cpuid = 1;
    rd->family = v[0];
    rd->model = v[1];
    rd->stepping = v[2];
}

/* A u64 field of an attribute of len bytes; 0 past its end (an older,
   shorter perf_event_attr). */
static uint64_t ptc__perf_attr_u64(const uint8_t *a, uint64_t len, uint64_t at)
{
    return at + 8 <= len ? ptc__byte_load64(a + at) : 0;
}

/* An attribute (perf_event_attr at a, len >= PTC__PERF_ATTR_MIN bytes) with nids sample ids at ids. */
static void ptc__perf_add_attr(ptc_perf_reader *rd, const uint8_t *a, uint64_t len, const uint8_t *ids, uint64_t nids)
{
    ptc_perf_attr *at;
    if (rd->nattrs == PTC_PERF_MAX_ATTRS) return; /* more events than the reader keeps: theirs are unknown */
    at = &rd->attrs[rd->nattrs++];
    at->type = ptc__perf_u32(a);
    at->config = ptc__byte_load64(a + 8);
    at->sample_type = ptc__byte_load64(a + 24);
    at->read_format = ptc__byte_load64(a + 32);
    at->flags = ptc__byte_load64(a + 40);
    at->branch_sample_type = ptc__perf_attr_u64(a, len, 72);
    at->sample_regs_user = ptc__perf_attr_u64(a, len, 80);
    at->sample_regs_intr = ptc__perf_attr_u64(a, len, 96);
    at->ids = nids ? ids : NULL;
    at->nids = nids;
}

/* The attribute section of a file-mode perf.data. */
static ptc_status ptc__perf_file_attrs(ptc_perf_reader *rd, uint64_t attr_size, uint64_t off, uint64_t size)
{
    uint64_t i;
    if (!ptc__perf_has(rd, off, size)) return ptc__perf_fail(rd, 24, PTC_ERR_BAD_PERF);
    if (!size) return PTC_OK;
    if (attr_size < PTC__PERF_ATTR_MIN + 16 || size % attr_size) return ptc__perf_fail(rd, 16, PTC_ERR_BAD_PERF);
    for (i = 0; i < size / attr_size; i++) {
        const uint8_t *a = rd->buf + off + i * attr_size, *sec = a + attr_size - 16;
        uint64_t ids_off = ptc__byte_load64(sec), ids_size = ptc__byte_load64(sec + 8);
        if (!ptc__perf_has(rd, ids_off, ids_size) || ids_size % 8)
            return ptc__perf_fail(rd, off + i * attr_size + attr_size - 16, PTC_ERR_BAD_PERF);
        ptc__perf_add_attr(rd, a, attr_size - 16, rd->buf + ids_off, ids_size / 8);
    }
    return PTC_OK;
}

/* Whether every feature section a file-mode perf.data announces is in the
   buffer: the {offset, size} table after the data, one entry per bit set,
   and each section it points to. */
static int ptc__perf_file_features_whole(const ptc_perf_reader *rd, const uint8_t *features, uint64_t after_data)
{
    unsigned bit, count = 0, i;
    for (bit = 0; bit < 256; bit++) count += features[bit / 8] >> (bit % 8) & 1;
    if (!ptc__perf_has(rd, after_data, 16u * count)) return 0;
    for (i = 0; i < count; i++)
        if (!ptc__perf_has(rd, ptc__byte_load64(rd->buf + after_data + 16u * i),
                           ptc__byte_load64(rd->buf + after_data + 16u * i + 8)))
            return 0;
    return 1;
}

/* The CPUID feature section of a file-mode perf.data, if there is one:
   feature sections follow the data, one {offset, size} per feature bit set. */
static void ptc__perf_file_cpuid(ptc_perf_reader *rd, const uint8_t *features, uint64_t after_data)
{
    unsigned bit, before = 0;
    uint64_t sec, off, size;
    if (!(features[PTC__PERF_FEATURE_CPUID / 8] >> (PTC__PERF_FEATURE_CPUID % 8) & 1)) return;
    for (bit = 0; bit < PTC__PERF_FEATURE_CPUID; bit++) before += features[bit / 8] >> (bit % 8) & 1;
    sec = after_data + 16u * before;
    if (!ptc__perf_has(rd, sec, 16)) return;
    off = ptc__byte_load64(rd->buf + sec);
    size = ptc__byte_load64(rd->buf + sec + 8);
    if (size < 4 || !ptc__perf_has(rd, off, size)) return;
    if (ptc__perf_u32(rd->buf + off) <= size - 4) ptc__perf_cpuid(rd, rd->buf + off + 4, ptc__perf_u32(rd->buf + off));
}

PTCDEF ptc_status ptc_perf_open(ptc_perf_reader *rd, const uint8_t *buf, size_t len)
{
    uint64_t hsize, data_off, data_size;
    const uint8_t *features;
    ptc_status st;
    if (!rd || (!buf && len)) return PTC_ERR_BAD_ARGUMENT;
    memset(rd, 0, sizeof *rd);
    rd->buf = buf;
    rd->len = len;
    if (len < PTC__PERF_PIPE_HEADER) return ptc__perf_fail(rd, 0, PTC_ERR_BAD_PERF);
    if (memcmp(buf, "2ELIFREP", 8) == 0) return ptc__perf_fail(rd, 0, PTC_ERR_UNSUPPORTED); /* the other byte order */
    if (memcmp(buf, "PERFILE2", 8) != 0) return ptc__perf_fail(rd, 0, PTC_ERR_BAD_PERF);
    hsize = ptc__byte_load64(buf + 8);
    if (hsize == PTC__PERF_PIPE_HEADER) {
        rd->pipe = 1;
        rd->pos = PTC__PERF_PIPE_HEADER;
        rd->end = len;
        return PTC_OK;
    }
    if (hsize < PTC__PERF_FILE_HEADER || len < PTC__PERF_FILE_HEADER) return ptc__perf_fail(rd, 8, PTC_ERR_BAD_PERF);
    data_off = ptc__byte_load64(buf + 40);
    data_size = ptc__byte_load64(buf + 48);
    if (data_off > len) return ptc__perf_fail(rd, 40, PTC_ERR_BAD_PERF);
    if (data_size > len - data_off) { /* the file was cut short: what is there can still be read */
        data_size = len - data_off;
        rd->cut_short = 1;
    }
    features = buf + 72;
    if (features[PTC__PERF_FEATURE_COMPRESSED / 8] >> (PTC__PERF_FEATURE_COMPRESSED % 8) & 1)
        return ptc__perf_fail(rd, 72, PTC_ERR_UNSUPPORTED); /* zstd records: expand with perf inject first */
    st = ptc__perf_file_attrs(rd, ptc__byte_load64(buf + 16), ptc__byte_load64(buf + 24), ptc__byte_load64(buf + 32));
    if (st != PTC_OK) return st;
    ptc__perf_file_cpuid(rd, features, data_off + data_size);
    rd->features_cut = !rd->cut_short && !ptc__perf_file_features_whole(rd, features, data_off + data_size);
    rd->pos = data_off;
    rd->end = data_off + data_size;
    return PTC_OK;
}

/* Intel PT's AUXTRACE_INFO: priv[] fields as far as the record holds them. */
static ptc_status ptc__perf_pt_info(const uint8_t *p, uint64_t n, ptc_perf_pt_info *info)
{
    uint64_t *const fields[17] = { &info->pmu_type, &info->time_shift, &info->time_mult, &info->time_zero,
                                   &info->cap_user_time_zero, &info->tsc_bit, &info->noretcomp_bit,
                                   &info->have_sched_switch, &info->snapshot_mode, &info->per_cpu_mmaps,
                                   &info->mtc_bit, &info->mtc_freq_bits, &info->tsc_ctc_n, &info->tsc_ctc_d,
                                   &info->cyc_bit, &info->max_nonturbo_ratio, &info->filter_str_len };
    uint64_t count = n / 8, i, at;
    memset(info, 0, sizeof *info);
    for (i = 0; i < 17 && i < count; i++) *fields[i] = ptc__byte_load64(p + 8 * i);
    info->nfields = (unsigned)i;
    if (count < 17) return PTC_OK; /* an older perf: the fields it had */
    at = 17 * 8;
    if (info->filter_str_len) { /* the string, NUL-terminated and padded to 8 */
        uint64_t bytes = (info->filter_str_len + 8) & ~(uint64_t)7;
        if (info->filter_str_len > n || bytes > n - at || p[at + info->filter_str_len] != 0) return PTC_ERR_BAD_PERF;
        info->filter = (const char *)(p + at);
        at += bytes;
    }
    info->nfields++;
    if (n - at >= 8) {
        info->cap_event_trace = ptc__byte_load64(p + at);
        info->nfields++;
    }
    return PTC_OK;
}

/* The attribute a sample belongs to: by its IDENTIFIER, or the only one. */
static const ptc_perf_attr *ptc__perf_attr_of_id(const ptc_perf_reader *rd, uint64_t id)
{
    unsigned i;
    uint64_t k;
    for (i = 0; i < rd->nattrs; i++)
        for (k = 0; k < rd->attrs[i].nids; k++)
            if (ptc__byte_load64(rd->attrs[i].ids + 8 * k) == id) return &rd->attrs[i];
    return NULL;
}

/* A sample's fields in sample_type order, as far as the reader can place
   them: READ, BRANCH_STACK and the register and stack dumps need more of
   the attribute than it keeps, so the AUX data after them is not placed. */
static unsigned ptc__perf_popcount(uint64_t v)
{
    unsigned c = 0;
    for (; v; v &= v - 1) c++;
    return c;
}

/* The size of a sample's variable-size field `bit` at p (n bytes left),
   from the attribute and the field's own counts; UINT64_MAX when it runs
   past the sample. Fixed-size fields are 8 bytes. */
static uint64_t ptc__perf_field_size(const ptc_perf_attr *attr, uint32_t bit, const uint8_t *p, uint64_t n)
{
    enum { RF_ENABLED = 1, RF_RUNNING = 2, RF_ID = 4, RF_GROUP = 8, RF_LOST = 16, BRANCH_HW_INDEX = 1u << 17 };
    uint64_t rf = attr->read_format, count, each, head;
    if (n < 8) return UINT64_MAX;
    count = ptc__byte_load64(p);
    switch (bit) {
    case PTC__PERF_S_READ: /* value [enabled] [running] [id] [lost], or nr [enabled] [running] nr x (value [id] [lost]) */
        if (!(rf & RF_GROUP)) return 8 * (1 + (uint64_t)ptc__perf_popcount(rf & (RF_ENABLED | RF_RUNNING | RF_ID | RF_LOST)));
        head = 8 * (1 + (uint64_t)ptc__perf_popcount(rf & (RF_ENABLED | RF_RUNNING)));
        each = 8 * (1 + (uint64_t)ptc__perf_popcount(rf & (RF_ID | RF_LOST)));
        break;
    case PTC__PERF_S_CALLCHAIN: head = 8; each = 8; break;                 /* nr, nr ips */
    case PTC__PERF_S_RAW: /* u32 size, then size bytes: 4 + size is a multiple of 8 */
        count = ptc__perf_u32(p);
        return (4 + count) % 8 || count > n - 4 ? UINT64_MAX : 4 + count;
    case PTC__PERF_S_BRANCH_STACK: /* nr, [hw_idx], nr x (from, to, flags) */
        head = attr->branch_sample_type & BRANCH_HW_INDEX ? 16 : 8;
        each = 24;
        break;
    case PTC__PERF_S_REGS_USER: case PTC__PERF_S_REGS_INTR: /* abi, and the registers unless abi is 0 */
        count = ptc__perf_popcount(bit == PTC__PERF_S_REGS_USER ? attr->sample_regs_user : attr->sample_regs_intr);
        return ptc__byte_load64(p) == 0 ? 8 : count > (n - 8) / 8 ? UINT64_MAX : 8 + 8 * count;
    case PTC__PERF_S_STACK_USER: /* size, size bytes, and dyn_size unless size is 0 */
        return count == 0 ? 8 : n < 16 || count > n - 16 ? UINT64_MAX : 16 + count;
    default:
        return 8;
    }
    if (head > n || count > (n - head) / each) return UINT64_MAX;
    return head + count * each;
}

static ptc_status ptc__perf_sample(const ptc_perf_reader *rd, const uint8_t *p, uint64_t n, ptc_perf_record *rec)
{
    /* the order of the fields in a sample (perf_event.h): the identifier
       first, then the others - not quite in the order of their bits */
    static const uint32_t order[] = {
        PTC__PERF_S_IDENTIFIER, PTC__PERF_S_IP, PTC__PERF_S_TID, PTC__PERF_S_TIME, PTC__PERF_S_ADDR, PTC__PERF_S_ID,
        PTC__PERF_S_STREAM_ID, PTC__PERF_S_CPU, PTC__PERF_S_PERIOD, PTC__PERF_S_READ, PTC__PERF_S_CALLCHAIN,
        PTC__PERF_S_RAW, PTC__PERF_S_BRANCH_STACK, PTC__PERF_S_REGS_USER, PTC__PERF_S_STACK_USER,
        PTC__PERF_S_WEIGHT | PTC__PERF_S_WEIGHT_STRUCT, PTC__PERF_S_DATA_SRC, PTC__PERF_S_TRANSACTION,
        PTC__PERF_S_REGS_INTR, PTC__PERF_S_PHYS_ADDR, PTC__PERF_S_CGROUP, PTC__PERF_S_DATA_PAGE_SIZE,
        PTC__PERF_S_CODE_PAGE_SIZE, PTC__PERF_S_AUX
    };
    const ptc_perf_attr *attr = NULL;
    uint64_t at = 0, st;
    size_t k;
    if (rd->nattrs == 1) attr = &rd->attrs[0];
    if (rd->nattrs > 1 || (attr && (attr->sample_type & PTC__PERF_S_IDENTIFIER))) {
        if (n < 8) return PTC_ERR_BAD_PERF;
        attr = ptc__perf_attr_of_id(rd, ptc__byte_load64(p));
    }
    rec->u.sample.attr = attr;
    if (!attr) return PTC_OK;
    st = attr->sample_type;
    for (k = 0; k < sizeof order / sizeof order[0]; k++) {
        uint32_t bit = order[k];
        uint64_t size;
        if (!(st & bit)) continue;
        if (n - at < 8) return PTC_ERR_BAD_PERF;
        if (bit == PTC__PERF_S_TID) {
            rec->u.sample.have_tid = 1;
            rec->u.sample.pid = ptc__perf_u32(p + at);
            rec->u.sample.tid = ptc__perf_u32(p + at + 4);
        } else if (bit == PTC__PERF_S_TIME) {
            rec->u.sample.have_time = 1;
            rec->u.sample.time = ptc__byte_load64(p + at);
        } else if (bit == PTC__PERF_S_CPU) {
            rec->u.sample.have_cpu = 1;
            rec->u.sample.cpu = ptc__perf_u32(p + at);
        } else if (bit == PTC__PERF_S_AUX) {
            size = ptc__byte_load64(p + at);
            if (size > n - at - 8) return PTC_ERR_BAD_PERF;
            rec->u.sample.aux = p + at + 8;
            rec->u.sample.aux_size = size;
            return PTC_OK;
        }
        size = ptc__perf_field_size(attr, bit, p + at, n - at);
        if (size > n - at) return PTC_ERR_BAD_PERF;
        at += size;
    }
    return PTC_OK;
}

/* The two or three u64 fields a record's body starts with (c NULL: two). */
static ptc_status ptc__perf_u64s(const uint8_t *p, uint64_t n, uint64_t *a, uint64_t *b, uint64_t *c)
{
    if (n < (c ? 24u : 16u)) return PTC_ERR_BAD_PERF;
    *a = ptc__byte_load64(p);
    *b = ptc__byte_load64(p + 8);
    if (c) *c = ptc__byte_load64(p + 16);
    return PTC_OK;
}

/* A NUL inside [p, p + n): the string there is whole. */
static const char *ptc__perf_string(const uint8_t *p, uint64_t n) { return memchr(p, 0, (size_t)n) ? (const char *)p : NULL; }

/* The body of a record (p, n bytes after its header): its fields, or
   PTC_ERR_BAD_PERF when it is too short for them. */
/* A kernel record's sample id, at the end of its body p[0, n), when its
   event sets sample_id_all: { pid, tid } { time } { id } { stream_id }
   { cpu, res } { identifier }, as the sample type says (perf_event.h). The
   event is the only one, or the one the identifier names. */
static void ptc__perf_sample_id(const ptc_perf_reader *rd, const uint8_t *p, uint64_t n, ptc_perf_record *rec)
{
    enum { SAMPLE_ID_ALL = 1u << 18 };
    const uint32_t fields = PTC__PERF_S_TID | PTC__PERF_S_TIME | PTC__PERF_S_ID | PTC__PERF_S_STREAM_ID |
                            PTC__PERF_S_CPU | PTC__PERF_S_IDENTIFIER;
    const ptc_perf_attr *attr = rd->nattrs == 1 ? &rd->attrs[0] : NULL;
    uint64_t len, at;
    if (rec->type == PTC_PERF_SAMPLE || rec->type >= 64 || rd->nattrs == 0) return; /* 64 on: perf's own records */
    if (rd->nattrs > 1 && n >= 8 && (rd->attrs[0].sample_type & PTC__PERF_S_IDENTIFIER))
        attr = ptc__perf_attr_of_id(rd, ptc__byte_load64(p + n - 8));
    if (!attr || !(attr->flags & SAMPLE_ID_ALL)) return;
    len = 8 * (uint64_t)ptc__perf_popcount(attr->sample_type & fields);
    if (len > n) return;
    at = n - len;
    if (attr->sample_type & PTC__PERF_S_TID) {
        rec->sid.have_tid = 1;
        rec->sid.pid = ptc__perf_u32(p + at);
        rec->sid.tid = ptc__perf_u32(p + at + 4);
        at += 8;
    }
    if (attr->sample_type & PTC__PERF_S_TIME) {
        rec->sid.have_time = 1;
        rec->sid.time = ptc__byte_load64(p + at);
        at += 8;
    }
    at += 8 * (uint64_t)ptc__perf_popcount(attr->sample_type & (PTC__PERF_S_ID | PTC__PERF_S_STREAM_ID));
    if (attr->sample_type & PTC__PERF_S_CPU) {
        rec->sid.have_cpu = 1;
        rec->sid.cpu = ptc__perf_u32(p + at);
    }
}

static ptc_status ptc__perf_parse(ptc_perf_reader *rd, const uint8_t *p, uint64_t n, ptc_perf_record *rec)
{
    switch (rec->type) {
    case PTC_PERF_MMAP:
    case PTC_PERF_MMAP2: {
        uint64_t name_at = rec->type == PTC_PERF_MMAP ? 32 : 64;
        if (n <= name_at) return PTC_ERR_BAD_PERF;
        rec->u.mmap.pid = ptc__perf_u32(p);
        rec->u.mmap.tid = ptc__perf_u32(p + 4);
        rec->u.mmap.addr = ptc__byte_load64(p + 8);
        rec->u.mmap.len = ptc__byte_load64(p + 16);
        rec->u.mmap.pgoff = ptc__byte_load64(p + 24);
        rec->u.mmap.filename = ptc__perf_string(p + name_at, n - name_at);
        return rec->u.mmap.filename ? PTC_OK : PTC_ERR_BAD_PERF;
    }
    case PTC_PERF_COMM:
        if (n <= 8) return PTC_ERR_BAD_PERF;
        rec->u.comm.pid = ptc__perf_u32(p);
        rec->u.comm.tid = ptc__perf_u32(p + 4);
        rec->u.comm.comm = ptc__perf_string(p + 8, n - 8);
        return rec->u.comm.comm ? PTC_OK : PTC_ERR_BAD_PERF;
    case PTC_PERF_LOST:
        return ptc__perf_u64s(p, n, &rec->u.lost.id, &rec->u.lost.lost, NULL);
    case PTC_PERF_AUX:
        return ptc__perf_u64s(p, n, &rec->u.aux.aux_offset, &rec->u.aux.aux_size, &rec->u.aux.flags);
    case PTC_PERF_ITRACE_START:
    case PTC_PERF_SWITCH_CPU_WIDE:
        if (n < 8) return PTC_ERR_BAD_PERF;
        rec->u.itrace_start.pid = ptc__perf_u32(p); /* (the same place as sw's fields) */
        rec->u.itrace_start.tid = ptc__perf_u32(p + 4);
        return PTC_OK;
    case PTC_PERF_TIME_CONV:
        return ptc__perf_u64s(p, n, &rec->u.time_conv.time_shift, &rec->u.time_conv.time_mult, &rec->u.time_conv.time_zero);
    case PTC_PERF_AUXTRACE_ERROR:
        if (n < 96) return PTC_ERR_BAD_PERF;
        rec->u.auxtrace_error.type = ptc__perf_u32(p);
        rec->u.auxtrace_error.code = ptc__perf_u32(p + 4);
        rec->u.auxtrace_error.cpu = ptc__perf_u32(p + 8);
        rec->u.auxtrace_error.pid = ptc__perf_u32(p + 12);
        rec->u.auxtrace_error.tid = ptc__perf_u32(p + 16);
        rec->u.auxtrace_error.ip = ptc__byte_load64(p + 24);
        rec->u.auxtrace_error.msg = ptc__perf_string(p + 32, 64);
        return rec->u.auxtrace_error.msg ? PTC_OK : PTC_ERR_BAD_PERF;
    case PTC_PERF_AUXTRACE_INFO: {
        ptc_status st;
        if (n < 8) return PTC_ERR_BAD_PERF;
        if (ptc__perf_u32(p) != PTC__PERF_AUXTRACE_INTEL_PT) return PTC_OK; /* another tracer's */
        st = ptc__perf_pt_info(p + 8, n - 8, &rec->u.info);
        if (st == PTC_OK && rec->u.info.nfields >= 16) {
            rd->info = rec->u.info;
            rd->have_info = 1;
        }
        return st;
    }
    case PTC_PERF_AUXTRACE:
        rec->u.auxtrace.size = ptc__byte_load64(p);
        rec->u.auxtrace.offset = ptc__byte_load64(p + 8);
        rec->u.auxtrace.reference = ptc__byte_load64(p + 16);
        rec->u.auxtrace.idx = ptc__perf_u32(p + 24);
        rec->u.auxtrace.tid = ptc__perf_u32(p + 28);
        rec->u.auxtrace.cpu = ptc__perf_u32(p + 32);
        rec->u.auxtrace.data = p + 40;
        return PTC_OK;
    case PTC_PERF_HEADER_ATTR: { /* pipe mode: the attribute, then its ids */
        uint64_t asz = n >= 8 ? ptc__perf_u32(p + 4) : 0;
        if (asz < PTC__PERF_ATTR_MIN || asz > n || (n - asz) % 8) return PTC_ERR_BAD_PERF;
        ptc__perf_add_attr(rd, p, asz, p + asz, (n - asz) / 8);
        return PTC_OK;
    }
    case PTC_PERF_HEADER_FEATURE:
        if (n < 8) return PTC_ERR_BAD_PERF;
        rec->u.feature.id = ptc__byte_load64(p);
        if (rec->u.feature.id == PTC__PERF_FEATURE_CPUID && n >= 12 && ptc__perf_u32(p + 8) <= n - 12)
            ptc__perf_cpuid(rd, p + 12, ptc__perf_u32(p + 8));
        return PTC_OK;
    case PTC_PERF_SAMPLE:
        return ptc__perf_sample(rd, p, n, rec);
    case PTC_PERF_COMPRESSED:
        return PTC_ERR_UNSUPPORTED;
    default:
        return PTC_OK;
    }
}

PTCDEF ptc_status ptc_perf_next(ptc_perf_reader *rd, ptc_perf_record *rec)
{
    const uint8_t *h;
    uint64_t next, left;
    if (!rd || !rec) return PTC_ERR_BAD_ARGUMENT;
    memset(rec, 0, sizeof *rec);
    if (rd->pos >= rd->end) return PTC_END;
    left = rd->end - rd->pos;
    h = rd->buf + rd->pos;
    rec->offset = rd->pos;
    if (left < 8) { /* no header fits: the rest is lost */
        rd->pos = rd->end;
        return ptc__perf_fail(rd, rec->offset, PTC_ERR_BAD_PERF);
    }
    rec->type = ptc__perf_u32(h);
    rec->misc = (uint16_t)ptc__byte_load(h + 4, 2);
    rec->size = (uint16_t)ptc__byte_load(h + 6, 2);
    rec->bytes = h;
    if (rec->size < 8 || rec->size > left) { /* nothing says where the next record is */
        rd->pos = rd->end;
        return ptc__perf_fail(rd, rec->offset, PTC_ERR_BAD_PERF);
    }
    next = rd->pos + rec->size;
    if (rec->type == PTC_PERF_AUXTRACE) { /* the trace follows the record, outside its size */
        if (rec->size < 48) {
            rec->error = ptc__perf_fail(rd, rec->offset, PTC_ERR_BAD_PERF);
            rd->pos = next;
            return PTC_OK;
        }
        if (ptc__byte_load64(h + 8) > rd->end - next) { /* cut short: what is there, then the end */
            (void)ptc__perf_parse(rd, h + 8, rec->size - 8u, rec);
            rec->u.auxtrace.size = rd->end - next;
            rec->error = ptc__perf_fail(rd, rec->offset, PTC_ERR_TRUNCATED);
            rd->pos = rd->end;
            return PTC_OK;
        }
        next += ptc__byte_load64(h + 8);
    }
    rd->pos = next;
    rec->error = ptc__perf_parse(rd, h + 8, rec->size - 8u, rec);
    if (rec->error == PTC_OK) ptc__perf_sample_id(rd, h + 8, rec->size - 8u, rec);
    if (rec->error != PTC_OK) rd->error_offset = rec->offset;
    return PTC_OK;
}

PTCDEF const ptc_perf_attr *ptc_perf_pt_attr(const ptc_perf_reader *rd)
{
    unsigned i;
    if (!rd || !rd->have_info) return NULL;
    for (i = 0; i < rd->nattrs; i++)
        if (rd->attrs[i].type == rd->info.pmu_type) return &rd->attrs[i];
    return NULL;
}

/* IA32_RTIT_CTL from Intel PT's attr.config, whose bits are its layout
   (the MTC frequency and CYC bits as the AUXTRACE_INFO names them). */
static void ptc__perf_ctl_from_config(ptc_rtit_ctl *ctl, uint64_t config, const ptc_perf_pt_info *in)
{
    memset(ctl, 0, sizeof *ctl);
    ctl->branch_en = (config & PTC_PERF_PT_BRANCH) != 0;
    ctl->tsc_en = (config & PTC_PERF_PT_TSC) != 0;
    ctl->mtc_en = (config & PTC_PERF_PT_MTC) != 0;
    ctl->cyc_en = in->cyc_bit && (config & in->cyc_bit) != 0;
    ctl->pwr_evt_en = (config & PTC_PERF_PT_PWR_EVT) != 0;
    ctl->ptw_en = (config & PTC_PERF_PT_PTW) != 0;
    ctl->fup_on_ptw = (config & PTC_PERF_PT_FUP_ON_PTW) != 0;
    ctl->dis_retc = (config & PTC_PERF_PT_NORETCOMP) != 0;
    if (in->mtc_freq_bits) {
        uint64_t bits = in->mtc_freq_bits, v = config & bits;
        while (!(bits & 1)) { bits >>= 1; v >>= 1; }
        ctl->mtc_freq = (uint8_t)(v > 15 ? 15 : v);
    }
    ctl->cyc_thresh = (uint8_t)PTC_PERF_PT_CONFIG_CYC_THRESH(config);
    ctl->psb_freq = (uint8_t)PTC_PERF_PT_CONFIG_PSB_PERIOD(config);
}

PTCDEF ptc_status ptc_perf_trace_config(const ptc_perf_reader *rd, ptc_trace_config *t)
{
    const ptc_perf_pt_info *in;
    const ptc_perf_attr *a;
    if (!t || !rd) return PTC_ERR_BAD_ARGUMENT;
    memset(t, 0, sizeof *t);
    if (!rd->have_info) return PTC_ERR_NOT_FOUND;
    in = &rd->info;
    if (in->tsc_ctc_n && in->tsc_ctc_d && in->tsc_ctc_n <= 0xFFFFFFFFu && in->tsc_ctc_d <= 0xFFFFFFFFu) {
        t->ratios.cpuid_15_eax = (uint32_t)in->tsc_ctc_d;
        t->ratios.cpuid_15_ebx = (uint32_t)in->tsc_ctc_n;
    }
    if (in->max_nonturbo_ratio && in->max_nonturbo_ratio <= 255) { /* MSR_PLATFORM_INFO's, rounded */
        t->ratios.nom_num = in->max_nonturbo_ratio;
        t->ratios.nom_den = 1;
    }
    a = ptc_perf_pt_attr(rd);
    if (a) { /* (the privilege levels are exclude_kernel and exclude_user, not read) */
        ptc__perf_ctl_from_config(&t->ctl, a->config, in);
        t->known |= PTC_KNOW_CTL & ~(uint32_t)(PTC_KNOW_OS | PTC_KNOW_USER);
    }
    if (rd->have_cpuid) {
        t->errata = ptc_errata_for_cpu(rd->family, rd->model, rd->stepping);
        t->known |= PTC_KNOW_CPU;
    }
    return PTC_OK;
}

PTCDEF ptc_status ptc_clock_config_from_perf(ptc_clock_config *cfg, const ptc_perf_reader *rd)
{
    ptc_trace_config hw;
    ptc_status st;
    if (!cfg || !rd) return PTC_ERR_BAD_ARGUMENT;
    ptc_clock_config_default(cfg);
    hw = cfg->trace; /* the default's policy (hardware does not suppress MTCs), MTCFreq and counter width */
    st = ptc_perf_trace_config(rd, &cfg->trace);
    cfg->trace.known |= hw.known;
    cfg->trace.cyc_bits = hw.cyc_bits;
    return st;
}

/* ---- 6.5 writing ---- */

#ifndef PTCODEC_NO_MODEL
/* Intel PT's attr.config for IA32_RTIT_CTL (ptc__perf_ctl_from_config's
   inverse, with the standard field positions). */
static uint64_t ptc__perf_config_from_ctl(const ptc_rtit_ctl *c)
{
    return (c->branch_en ? PTC_PERF_PT_BRANCH : 0) | (c->tsc_en ? PTC_PERF_PT_TSC : 0) |
           (c->mtc_en ? PTC_PERF_PT_MTC : 0) | (c->cyc_en ? PTC_PERF_PT_CYC : 0) |
           (c->pwr_evt_en ? PTC_PERF_PT_PWR_EVT : 0) | (c->ptw_en ? PTC_PERF_PT_PTW : 0) |
           (c->fup_on_ptw ? PTC_PERF_PT_FUP_ON_PTW : 0) | (c->dis_retc ? PTC_PERF_PT_NORETCOMP : 0) |
           ((uint64_t)(c->mtc_freq & 15) << PTC_PERF_PT_MTC_SHIFT) |
           ((uint64_t)(c->cyc_thresh & 15) << PTC_PERF_PT_CYC_THRESH_SHIFT) |
           ((uint64_t)(c->psb_freq & 15) << PTC_PERF_PT_PSB_PERIOD_SHIFT);
}

PTCDEF void ptc_perf_info_from_model(ptc_perf_pt_info *info, uint64_t *pt_config, const ptc_model_config *m)
{
    memset(info, 0, sizeof *info);
    info->pmu_type = 8; /* (a number the kernel picks at boot; 8 is common) */
    info->time_mult = 1;
    info->cap_user_time_zero = 1;
    info->tsc_bit = PTC_PERF_PT_TSC;
    info->noretcomp_bit = PTC_PERF_PT_NORETCOMP;
    info->per_cpu_mmaps = 1;
    info->mtc_bit = PTC_PERF_PT_MTC;
    info->mtc_freq_bits = UINT64_C(15) << PTC_PERF_PT_MTC_SHIFT;
    info->tsc_ctc_n = m->trace.ratios.cpuid_15_ebx;
    info->tsc_ctc_d = m->trace.ratios.cpuid_15_eax;
    info->cyc_bit = PTC_PERF_PT_CYC;
    info->max_nonturbo_ratio = ptc_model_nom_freq(m);
    *pt_config = ptc__perf_config_from_ctl(&m->trace.ctl);
}
#endif

#define PTC__PERF_WRITE_ATTR 128      /* the perf_event_attr size written (VER7) */
#define PTC__PERF_INFO_FIELDS 18      /* priv[]: 17 fields, no filter, cap_event_trace */
#define PTC__PERF_SAMPLE_ID_ALL (UINT64_C(1) << 18) /* attr flags: records carry a sample id */

typedef struct ptc__perf_out { uint8_t *p; size_t at, cap; } ptc__perf_out;

static void ptc__perf_put(ptc__perf_out *o, uint64_t v, unsigned n)
{
    if (o->at + n <= o->cap) ptc__byte_store(o->p + o->at, v, n);
    o->at += n;
}

static void ptc__perf_put_bytes(ptc__perf_out *o, const void *b, size_t n)
{
    if (o->at + n <= o->cap && n) memcpy(o->p + o->at, b, n);
    o->at += n;
}

static void ptc__perf_put_header(ptc__perf_out *o, uint32_t type, uint16_t size)
{
    ptc__perf_put(o, type, 4);
    ptc__perf_put(o, 0, 2);
    ptc__perf_put(o, size, 2);
}

/* A record's sample id (sample_id_all), as sample_type says: pid/tid,
   time, cpu, identifier. */
static void ptc__perf_put_sample_id(ptc__perf_out *o, const ptc_perf_trace *t, unsigned cpu)
{
    ptc__perf_put(o, t->pid, 4);
    ptc__perf_put(o, t->tid, 4);
    ptc__perf_put(o, t->start_time, 8);
    ptc__perf_put(o, cpu, 4);
    ptc__perf_put(o, 0, 4);
    ptc__perf_put(o, 1, 8);
}

/* A NUL-terminated name padded to 8 bytes, as COMM and MMAP end. */
static void ptc__perf_put_name(ptc__perf_out *o, const char *name, size_t padded)
{
    size_t len = strlen(name);
    ptc__perf_put_bytes(o, name, len);
    while (len++ < padded) ptc__perf_put(o, 0, 1);
}

static size_t ptc__perf_name_padded(const char *name) { return (strlen(name) + 8) & ~(size_t)7; }

/* The start of a user-mode record about trace t's thread: its header
   (`body` bytes between the pid/tid and the sample id) and pid, tid. */
static void ptc__perf_put_thread_record(ptc__perf_out *o, uint32_t type, size_t body, const ptc_perf_trace *t)
{
    enum { MISC_USER = 2, SAMPLE_ID = 32 };
    ptc__perf_put(o, type, 4);
    ptc__perf_put(o, MISC_USER, 2);
    ptc__perf_put(o, 8 + 8 + body + SAMPLE_ID, 2);
    ptc__perf_put(o, t->pid, 4);
    ptc__perf_put(o, t->tid, 4);
}

/* Trace t's thread: COMM and one MMAP per mapping, at its start time. */
static void ptc__perf_put_sideband(ptc__perf_out *o, const ptc_perf_trace *t, unsigned cpu)
{
    unsigned k;
    if (t->comm) {
        size_t padded = ptc__perf_name_padded(t->comm);
        ptc__perf_put_thread_record(o, PTC_PERF_COMM, padded, t);
        ptc__perf_put_name(o, t->comm, padded);
        ptc__perf_put_sample_id(o, t, cpu);
    }
    for (k = 0; k < t->nmmaps; k++) {
        const ptc_perf_mmap *mm = &t->mmaps[k];
        size_t padded = ptc__perf_name_padded(mm->filename);
        ptc__perf_put_thread_record(o, PTC_PERF_MMAP, 24 + padded, t);
        ptc__perf_put(o, mm->addr, 8);
        ptc__perf_put(o, mm->len, 8);
        ptc__perf_put(o, mm->pgoff, 8);
        ptc__perf_put_name(o, mm->filename, padded);
        ptc__perf_put_sample_id(o, t, cpu);
    }
}

/* One AUXTRACE of queue i (its cpu and idx): the trace's bytes [from, to),
   at AUX offset `from`, padded with PADs to a multiple of 8. */
static void ptc__perf_put_auxtrace(ptc__perf_out *o, const ptc_perf_trace *t, unsigned i, size_t from, size_t to)
{
    size_t padded = (to - from + 7) & ~(size_t)7, k;
    ptc__perf_put_header(o, PTC_PERF_AUXTRACE, 48);
    ptc__perf_put(o, padded, 8);
    ptc__perf_put(o, from, 8);
    ptc__perf_put(o, t->start_time, 8); /* reference: perf's TSC when it read the data */
    ptc__perf_put(o, i, 4);             /* idx */
    ptc__perf_put(o, t->tid, 4);
    ptc__perf_put(o, i, 4);             /* cpu */
    ptc__perf_put(o, 0, 4);
    if (to > from) ptc__perf_put_bytes(o, t->bytes + from, to - from);
    for (k = to - from; k < padded; k++) ptc__perf_put(o, 0, 1); /* PAD */
}

/* The data section: AUXTRACE_INFO, then per trace ITRACE_START, its
   sideband and its AUXTRACE (or one per snapshot). */
static void ptc__perf_put_data(ptc__perf_out *o, const ptc_perf_pt_info *in, const ptc_perf_trace *t, unsigned n)
{
    const uint64_t priv[PTC__PERF_INFO_FIELDS] = { in->pmu_type, in->time_shift, in->time_mult, in->time_zero,
                                                  in->cap_user_time_zero, in->tsc_bit, in->noretcomp_bit,
                                                  in->have_sched_switch, in->snapshot_mode, in->per_cpu_mmaps,
                                                  in->mtc_bit, in->mtc_freq_bits, in->tsc_ctc_n, in->tsc_ctc_d,
                                                  in->cyc_bit, in->max_nonturbo_ratio, 0, in->cap_event_trace };
    unsigned i, k;
    ptc__perf_put_header(o, PTC_PERF_AUXTRACE_INFO, 16 + 8 * PTC__PERF_INFO_FIELDS);
    ptc__perf_put(o, PTC__PERF_AUXTRACE_INTEL_PT, 4);
    ptc__perf_put(o, 0, 4);
    for (k = 0; k < PTC__PERF_INFO_FIELDS; k++) ptc__perf_put(o, priv[k], 8);
    for (i = 0; i < n; i++) {
        ptc__perf_put_header(o, PTC_PERF_ITRACE_START, 48);
        ptc__perf_put(o, t[i].pid, 4);
        ptc__perf_put(o, t[i].tid, 4);
        ptc__perf_put_sample_id(o, &t[i], i);
        ptc__perf_put_sideband(o, &t[i], i);
        if (!t[i].nsnaps) ptc__perf_put_auxtrace(o, &t[i], i, 0, t[i].len);
        for (k = 0; k < t[i].nsnaps; k++) {
            uint64_t at = t[i].snap_at[k];
            ptc__perf_put_auxtrace(o, &t[i], i, at > t[i].ring ? (size_t)(at - t[i].ring) : 0, (size_t)at);
        }
    }
}

PTCDEF ptc_status ptc_perf_write(uint8_t *out, size_t cap, size_t *written, const ptc_perf_pt_info *info,
                                 uint64_t pt_config, const ptc_perf_trace *traces, unsigned ntraces,
                                 unsigned family, unsigned model, unsigned stepping)
{
    const size_t ids_at = PTC__PERF_FILE_HEADER, attrs_at = ids_at + 8, data_at = attrs_at + PTC__PERF_WRITE_ATTR + 16;
    char cpuid[64];
    size_t data_end, cpuid_len = 0;
    ptc__perf_out o;
    unsigned pass, i;
    if (!written || !info || (!traces && ntraces) || (!out && cap)) return PTC_ERR_BAD_ARGUMENT;
    for (i = 0; i < ntraces; i++) {
        unsigned k;
        if ((!traces[i].bytes && traces[i].len) || (!traces[i].mmaps && traces[i].nmmaps) ||
            (traces[i].nsnaps && (!traces[i].snap_at || !traces[i].ring)))
            return PTC_ERR_BAD_ARGUMENT;
        for (k = 0; k < traces[i].nsnaps; k++) /* each a prefix of the trace, each longer */
            if (traces[i].snap_at[k] > traces[i].len || (k && traces[i].snap_at[k] <= traces[i].snap_at[k - 1]))
                return PTC_ERR_BAD_ARGUMENT;
        /* a record's size is 16 bits: names are held to what a path can be */
        if (traces[i].comm && strlen(traces[i].comm) > PTC_PERF_NAME_MAX) return PTC_ERR_BAD_ARGUMENT;
        for (k = 0; k < traces[i].nmmaps; k++)
            if (!traces[i].mmaps[k].filename || strlen(traces[i].mmaps[k].filename) > PTC_PERF_NAME_MAX)
                return PTC_ERR_BAD_ARGUMENT;
    }
    if (family) {
        /* (a plain formatter: the header does not use stdio) */
        unsigned v[3], k;
        char *c = cpuid;
        v[0] = family; v[1] = model; v[2] = stepping;
        memcpy(c, "GenuineIntel", 12);
        c += 12;
        for (k = 0; k < 3; k++) {
            char digits[12];
            int nd = 0;
            unsigned x = v[k];
            *c++ = ',';
            do { digits[nd++] = (char)('0' + x % 10); x /= 10; } while (x);
            while (nd) *c++ = digits[--nd];
        }
        *c = 0;
        cpuid_len = (size_t)(c - cpuid) + 1;
    }
    /* twice: the first pass measures (nothing stored past cap), the second writes */
    for (pass = 0; pass < 2; pass++) {
        uint8_t features[32];
        o.p = out;
        o.cap = pass ? cap : 0;
        o.at = 0;
        memset(features, 0, sizeof features);
        if (family) features[PTC__PERF_FEATURE_CPUID / 8] |= 1u << (PTC__PERF_FEATURE_CPUID % 8);
        o.at = data_at;
        ptc__perf_put_data(&o, info, traces, ntraces);
        data_end = o.at;
        o.at = 0;
        ptc__perf_put_bytes(&o, "PERFILE2", 8);
        ptc__perf_put(&o, PTC__PERF_FILE_HEADER, 8);
        ptc__perf_put(&o, PTC__PERF_WRITE_ATTR + 16, 8);
        ptc__perf_put(&o, attrs_at, 8);                 /* attrs */
        ptc__perf_put(&o, PTC__PERF_WRITE_ATTR + 16, 8);
        ptc__perf_put(&o, data_at, 8);                  /* data */
        ptc__perf_put(&o, data_end - data_at, 8);
        ptc__perf_put(&o, 0, 8);                        /* event types */
        ptc__perf_put(&o, 0, 8);
        ptc__perf_put_bytes(&o, features, sizeof features);
        ptc__perf_put(&o, 1, 8);                        /* the event's one sample id */
        ptc__perf_put(&o, info->pmu_type, 4);           /* perf_event_attr */
        ptc__perf_put(&o, PTC__PERF_WRITE_ATTR, 4);
        ptc__perf_put(&o, pt_config, 8);
        ptc__perf_put(&o, 1, 8);                        /* sample_period */
        /* IP as perf record sets it (no record here has a sample; perf
           script's ip field asks for it); sample ids as ptc__perf_put_sample_id */
        ptc__perf_put(&o, PTC__PERF_S_IDENTIFIER | PTC__PERF_S_IP | PTC__PERF_S_TID | PTC__PERF_S_TIME | PTC__PERF_S_CPU, 8);
        ptc__perf_put(&o, 0, 8);                        /* read_format */
        ptc__perf_put(&o, PTC__PERF_SAMPLE_ID_ALL, 8);  /* flags */
        while (o.at < attrs_at + PTC__PERF_WRITE_ATTR) ptc__perf_put(&o, 0, 1);
        ptc__perf_put(&o, ids_at, 8);
        ptc__perf_put(&o, 8, 8);
        o.at = data_end;
        if (family) { /* the feature's section, then the string (u32 length, padded to 8) */
            size_t padded = (cpuid_len + 7) & ~(size_t)7;
            ptc__perf_put(&o, data_end + 16, 8);
            ptc__perf_put(&o, 4 + padded, 8);
            ptc__perf_put(&o, padded, 4);
            ptc__perf_put_bytes(&o, cpuid, cpuid_len);
            for (i = 0; i < padded - cpuid_len; i++) ptc__perf_put(&o, 0, 1);
        }
        *written = o.at;
        if (!pass && o.at > cap) return PTC_ERR_NO_SPACE;
    }
    return PTC_OK;
}

PTCDEF uint64_t ptc_perf_tsc_to_ns(const ptc_perf_pt_info *info, uint64_t tsc)
{
    uint64_t shift, quot, rem;
    if (!info) return 0;
    shift = info->time_shift;
    if (shift >= 64) return info->time_zero;
    quot = shift ? tsc >> shift : tsc;
    rem = shift ? tsc & ((UINT64_C(1) << shift) - 1) : 0;
    return info->time_zero + quot * info->time_mult + (shift ? (rem * info->time_mult) >> shift : 0);
}

#endif /* PTCODEC_NO_PERF */

/* ---- 7. Conformance ------------------------------------------------ */

PTCDEF const char *ptc_severity_name(ptc_severity s)
{
    switch (s) {
#define PTC__X(e, n, m) case e: return n;
    PTC_SEVERITY_LIST(PTC__X)
#undef PTC__X
    default: return "unknown_severity";
    }
}

/* The catalogue as a table, row r for rule r (row 0: PTC_RULE_NONE). */
typedef struct ptc__conf_rule_row {
    const char *name;
    ptc_severity severity;
    const char *sdm, *text;
} ptc__conf_rule_row;

static const ptc__conf_rule_row ptc__conf_rules[PTC_RULE_COUNT] = {
    { "none", PTC_SEV_VIOLATION, "", "" },
#define PTC__X(e, n, sev, sdm, text) { n, sev, sdm, text },
    PTC_RULE_LIST(PTC__X)
#undef PTC__X
};

static const ptc__conf_rule_row *ptc__conf_rule_row_of(ptc_rule r)
{
    return (unsigned)r < PTC_RULE_COUNT ? &ptc__conf_rules[r] : &ptc__conf_rules[0];
}

PTCDEF const char *ptc_rule_name(ptc_rule r) { return ptc__conf_rule_row_of(r)->name; }
PTCDEF ptc_severity ptc_rule_severity(ptc_rule r) { return ptc__conf_rule_row_of(r)->severity; }
PTCDEF const char *ptc_rule_sdm(ptc_rule r) { return ptc__conf_rule_row_of(r)->sdm; }
PTCDEF const char *ptc_rule_text(ptc_rule r) { return ptc__conf_rule_row_of(r)->text; }

PTCDEF ptc_rule ptc_rule_from_name(const char *name)
{
    unsigned r;
    if (!name) return PTC_RULE_NONE;
    for (r = 1; r < PTC_RULE_COUNT; r++)
        if (strcmp(name, ptc__conf_rules[r].name) == 0) return (ptc_rule)r;
    return PTC_RULE_NONE;
}

#ifndef PTCODEC_NO_MODEL
PTCDEF void ptc_conform_config_from_model(ptc_conform_config *cfg, const ptc_model_config *m)
{
    ptc_clock_config cc;
    memset(cfg, 0, sizeof *cfg);
    if (!m) return;
    ptc_clock_config_from_model(&cc, m);
    cfg->trace = cc.trace;
    cfg->real = cc.real;
}
#endif

#ifndef PTCODEC_NO_PERF
PTCDEF ptc_status ptc_conform_config_from_perf(ptc_conform_config *cfg, const ptc_perf_reader *rd)
{
    ptc_clock_config cc;
    ptc_status st;
    if (!cfg || !rd) return PTC_ERR_BAD_ARGUMENT;
    memset(cfg, 0, sizeof *cfg);
    st = ptc_clock_config_from_perf(&cc, rd);
    if (st != PTC_OK) return st;
    cfg->trace = cc.trace;
    cfg->real = cc.real;
    return PTC_OK;
}
#endif

/* An enable that is on: known so, or (not known) shown by the stream. */
static int ptc__conf_on(const ptc_conform *c, uint32_t know, uint8_t value, int shown)
{
    return (c->cfg.trace.known & know) ? value != 0 : shown;
}

/* An enable known to be off. */
static int ptc__conf_off(const ptc_conform *c, uint32_t know, uint8_t value)
{
    return (c->cfg.trace.known & know) && !value;
}

/* The MTC policy's rules (SPEC 7.3.6): with the trace's policy known and
   no MTC lost on purpose (the real clocks' mtc_lost breaks it anywhere). */
static int ptc__conf_policy_rules(const ptc_conform *c)
{
    return (c->cfg.trace.known & PTC_KNOW_POLICY) && !c->cfg.real.mtc_lost;
}

/* The time rules (SPEC 7.3.5): with MTCFreq known; each reads what else
   it needs (the ratios) and is off without it. */
static int ptc__conf_time_rules_on(const ptc_conform *c) { return (c->cfg.trace.known & PTC_KNOW_MTC_FREQ) != 0; }

/* The checker's own states of an enable the stream shows. */
enum { PTC__CONF_UNKNOWN = 0, PTC__CONF_OFF = 1, PTC__CONF_ON = 2 };

/* Sets of packet types, a bit each. */
#define PTC__CONF_T(t) ((uint64_t)1 << (t))
/* What may come anywhere, even between the packets of one event: timing
   packets, CBR, PAD and MNT (SDM 36.4.1: timing packets may be inserted
   anywhere; CBR, PAD and MNT bind to no instruction). */
#define PTC__CONF_ANYWHERE \
    (PTC__CONF_T(PTC_PAD) | PTC__CONF_T(PTC_MNT) | PTC__CONF_T(PTC_TSC) | PTC__CONF_T(PTC_TMA) | \
     PTC__CONF_T(PTC_MTC) | PTC__CONF_T(PTC_CYC) | PTC__CONF_T(PTC_CBR))
/* What a PSB+ may hold besides the PSB (SDM 36.4.2.17, 36.3.7). */
#define PTC__CONF_PSB_MEMBERS \
    (PTC__CONF_ANYWHERE | PTC__CONF_T(PTC_PIP) | PTC__CONF_T(PTC_VMCS) | PTC__CONF_T(PTC_MODE_EXEC) | \
     PTC__CONF_T(PTC_MODE_TSX) | PTC__CONF_T(PTC_FUP) | PTC__CONF_T(PTC_PSBEND))

/* The followers a packet can owe (SPEC 7.3.3): which packet ends the debt,
   which may come before it without breaking it, and the rule broken by
   anything else. */
enum {
    PTC__CONF_F_TMA,       /* a TSC, MTC on: TMA */
    PTC__CONF_F_TIP,       /* a FUP of an asynchronous event: TIP or TIP.PGD */
    PTC__CONF_F_MODE_EXEC, /* a MODE.Exec: TIP or TIP.PGE */
    PTC__CONF_F_TSX_FUP,   /* a MODE.TSX: its FUP (or an abort's TIP.PGD) */
    PTC__CONF_F_IP_FUP,    /* a PTW, EXSTOP, TRIG, BEP or CFE with its IP bit: its FUP */
    PTC__CONF_F_OVF,       /* an OVF: FUP or TIP.PGE */
    PTC__CONF_F_EVD,       /* an EVD: CFE */
    PTC__CONF_F_MWAIT,     /* an MWAIT: PWRE */
    PTC__CONF_F_BLOCK,     /* a BBP: BEP */
    PTC__CONF_F_EXSTOP,    /* a PWRE leaving C0: EXSTOP */
    PTC__CONF_F_COUNT
};
typedef char ptc__conf_followers_fit[PTC__CONF_F_COUNT == PTC_CONFORM_FOLLOWERS ? 1 : -1];

static const struct ptc__conf_follower {
    ptc_rule rule;
    uint64_t ends, may_precede;
} ptc__conf_followers[PTC__CONF_F_COUNT] = {
    { PTC_RULE_TSC_NO_TMA, PTC__CONF_T(PTC_TMA),
      PTC__CONF_T(PTC_PAD) | PTC__CONF_T(PTC_MNT) | PTC__CONF_T(PTC_MTC) | PTC__CONF_T(PTC_CYC) | PTC__CONF_T(PTC_CBR) },
    /* SDM Table 36-15: FUP, then PIP, VMCS, MODE.Exec in any order, then TIP or TIP.PGD */
    { PTC_RULE_FUP_ALONE, PTC__CONF_T(PTC_TIP) | PTC__CONF_T(PTC_TIP_PGD),
      PTC__CONF_ANYWHERE | PTC__CONF_T(PTC_PIP) | PTC__CONF_T(PTC_VMCS) | PTC__CONF_T(PTC_MODE_EXEC) },
    { PTC_RULE_MODE_EXEC_ALONE, PTC__CONF_T(PTC_TIP) | PTC__CONF_T(PTC_TIP_PGE),
      PTC__CONF_ANYWHERE | PTC__CONF_T(PTC_PIP) | PTC__CONF_T(PTC_VMCS) },
    /* an abort that leaves the filter: MODE.TSX, TIP.PGD (SDM Table 36-50's
       28c; the summary table: "FUP or none", then TIP or TIP.PGD on aborts) */
    { PTC_RULE_MODE_TSX_ALONE, PTC__CONF_T(PTC_FUP) | PTC__CONF_T(PTC_TIP_PGD), PTC__CONF_ANYWHERE },
    { PTC_RULE_IP_BIT_NO_FUP, PTC__CONF_T(PTC_FUP), PTC__CONF_ANYWHERE },
    /* with PacketEn 0 no TNT or TIP comes before the TIP.PGE; what needs
       only ContextEn (MWAIT, MODE.TSX, PIP, TraceStop) or less (power
       events, PEBS blocks) may */
    { PTC_RULE_OVF_FOLLOWER, PTC__CONF_T(PTC_FUP) | PTC__CONF_T(PTC_TIP_PGE),
      ~(PTC__CONF_T(PTC_TNT8) | PTC__CONF_T(PTC_TNT64) | PTC__CONF_T(PTC_TIP) | PTC__CONF_T(PTC_TIP_PGD)) },
    { PTC_RULE_EVD_ALONE, PTC__CONF_T(PTC_CFE), PTC__CONF_ANYWHERE | PTC__CONF_T(PTC_EVD) },
    { PTC_RULE_MWAIT_ALONE, PTC__CONF_T(PTC_PWRE), PTC__CONF_ANYWHERE },
    /* what the stream decoder keeps a block open for (SPEC 1.6) */
    { PTC_RULE_BLOCK_UNENDED, PTC__CONF_T(PTC_BEP),
      PTC__CONF_ANYWHERE | PTC__CONF_T(PTC_FUP) | PTC__CONF_T(PTC_EXSTOP) | PTC__CONF_T(PTC_PWRE) |
      PTC__CONF_T(PTC_PWRX) | PTC__CONF_T(PTC_BIP) },
    /* SDM 36.4.2.24, PWRE's application: "When transitioning from C0.0 to a
       deeper C-state, the PWRE packet will be followed by an EXSTOP" */
    { PTC_RULE_PWRE_NO_EXSTOP, PTC__CONF_T(PTC_EXSTOP), PTC__CONF_ANYWHERE }
};

/* Where the next finding goes; the caller's array holds
   PTC_CONFORM_MAX_FINDINGS (no item can give more, but a full array
   drops rather than overruns). */
typedef struct ptc__conf_out {
    ptc_finding *f;
    size_t n;
} ptc__conf_out;

/* erratum: one that would explain the finding (0: none). It does when the
   trace's CPU has it; a CPU not known may have it (SPEC 7.2). */
static void ptc__conf_report(ptc_conform *c, ptc__conf_out *o, ptc_rule rule, uint64_t offset, uint32_t erratum)
{
    ptc_finding *f;
    ptc_severity sev = ptc__conf_rules[rule].severity;
    if (erratum & c->cfg.trace.errata) sev = PTC_SEV_ERRATUM;
    else if (erratum && !(c->cfg.trace.known & PTC_KNOW_CPU) && sev == PTC_SEV_VIOLATION) sev = PTC_SEV_SUSPICIOUS;
    else erratum = 0;
    if (o->n >= PTC_CONFORM_MAX_FINDINGS) return;
    f = &o->f[o->n++];
    f->offset = offset;
    f->rule = rule;
    f->severity = sev;
    f->erratum = erratum;
}

/* The packet types that can break nothing in the state the checker is in,
   and change nothing: a PAD always; an MTC (once one has shown MTCs are on)
   or CYC that every follower lets pass and the configuration allows (a CYC
   that is not the shortest is checked apart); a TNT or TIP with packets on and nothing
   owed. Most of a stream is these: the checker keeps the set, so that
   taking one costs a test of a bit (SPEC 7.1: at the stream decoder's
   speed). */
static uint64_t ptc__conf_fast_types(const ptc_conform *c)
{
    uint64_t m = PTC__CONF_T(PTC_PAD);
    if (c->gen.stopped) return m;
    /* (the time rules read every MTC and CYC) */
    if (!ptc__conf_policy_rules(c) && !ptc__conf_time_rules_on(c) && !ptc__conf_off(c, PTC_KNOW_MTC_EN, c->cfg.trace.ctl.mtc_en) && c->saw_mtc) m |= PTC__CONF_T(PTC_MTC);
    if (!ptc__conf_off(c, PTC_KNOW_CYC_EN, c->cfg.trace.ctl.cyc_en) && !ptc__conf_time_rules_on(c)) m |= PTC__CONF_T(PTC_CYC);
    if (c->synced && !c->psb.in && !c->owe.pending && c->gen.pkt_en == PTC__CONF_ON && !c->gen.en_by_psb && !c->owe.tma_may_follow &&
        !ptc__conf_policy_rules(c) && c->gen.awake && !c->time.last_cyc.pending)
        m |= PTC__CONF_T(PTC_TNT8) | PTC__CONF_T(PTC_TNT64) | PTC__CONF_T(PTC_TIP);
    return m;
}

/* Nothing known of the state the stream is in: after a decode error
   (and at the start) until the next PSB. */
static void ptc__conf_lose_sync(ptc_conform *c)
{
    c->synced = 0;
    c->psb.in = 0;
    c->psb.cut = 0;
    c->owe.pending = 0;
    c->gen.pkt_en = PTC__CONF_UNKNOWN;
    c->gen.en_by_psb = 0;
    c->gen.stopped = 0;
    c->gen.sleeping = PTC__CONF_UNKNOWN;
    c->gen.awake = 0;
    c->owe.tma_may_follow = 0;
    c->psb.have_prev = 0;
    memset(&c->time, 0, sizeof c->time);
    ptc_checker_init(&c->policy, &c->cfg.trace.policy);
}

PTCDEF ptc_status ptc_conform_init(ptc_conform *c, const ptc_conform_config *cfg)
{
    int bad = cfg && (ptc_trace_config_error(&cfg->trace) || cfg->real.rate_ppm >= 1000000);
    if (!c) return PTC_ERR_BAD_ARGUMENT;
    memset(c, 0, sizeof *c);
    if (cfg && !bad) c->cfg = *cfg; /* (a bad one: set up knowing nothing) */
    ptc__conf_lose_sync(c);
    c->fast = ptc__conf_fast_types(c);
    return bad ? PTC_ERR_BAD_CONFIG : PTC_OK;
}


/* ---- 7.3.4 values and 7.3.5 what the configuration turns off: each
   packet on its own, synced or not ---- */

static int ptc__conf_reserved_set(const ptc_packet *p)
{
    switch (p->type) {
    case PTC_MODE_EXEC: return p->u.mode_exec.reserved != 0;
    case PTC_MODE_TSX: return p->u.mode_tsx.reserved != 0;
    case PTC_CBR: return p->u.cbr.reserved != 0;
    case PTC_PWRE: return p->u.pwre.reserved != 0;
    case PTC_PWRX: return p->u.pwrx.reserved != 0;
    case PTC_CFE: return p->u.cfe.reserved != 0;
    case PTC_EVD: return p->u.evd.reserved != 0;
    case PTC_TRIG: return p->u.trig.reserved != 0;
    case PTC_BBP: return p->u.bbp.reserved != 0;
    case PTC_MWAIT: return p->u.mwait.hints > 0xFFu || p->u.mwait.ext > 3u; /* hints[7:0], EXT[1:0] */
    default: return 0;
    }
}

/* CFE types 1..10 and 12..15, EVD types 0..2 (SPEC 1.4; 14 and 15 are
   libipt 2.2's SWINTR and SYSCALL). */
static int ptc__conf_type_undefined(const ptc_packet *p)
{
    if (p->type == PTC_CFE) return p->u.cfe.cfe_type == 0 || p->u.cfe.cfe_type == 11 || p->u.cfe.cfe_type > 15;
    if (p->type == PTC_EVD) return p->u.evd.evd_type > 2;
    return 0;
}

/* An enable of t known to be off. */
static int ptc__conf_disabled(const ptc_conform *c, ptc_packet_type t)
{
    const ptc_rtit_ctl *ctl = &c->cfg.trace.ctl;
    switch (t) {
    case PTC_TSC: return ptc__conf_off(c, PTC_KNOW_TSC_EN, ctl->tsc_en);
    case PTC_TMA: return ptc__conf_off(c, PTC_KNOW_TSC_EN, ctl->tsc_en) || ptc__conf_off(c, PTC_KNOW_MTC_EN, ctl->mtc_en);
    case PTC_MTC: return ptc__conf_off(c, PTC_KNOW_MTC_EN, ctl->mtc_en);
    case PTC_CYC: return ptc__conf_off(c, PTC_KNOW_CYC_EN, ctl->cyc_en);
    case PTC_PTW: return ptc__conf_off(c, PTC_KNOW_PTW_EN, ctl->ptw_en);
    case PTC_EXSTOP: case PTC_MWAIT: case PTC_PWRE: case PTC_PWRX: return ptc__conf_off(c, PTC_KNOW_PWR_EVT_EN, ctl->pwr_evt_en);
    default: return 0;
    }
}

/* A CYC in more bytes than its count needs (SPEC 7.3.4): one whose last
   byte's 7 bits are all zero, as the bits the bytes before it hold
   (5 + 7 * (size - 2)) show; ten bytes hold any count. It runs on every
   packet of the fast path, where CYCs and other packets come in no order a
   branch predictor could learn, so it has no branch; and it reads the
   union only for a CYC: another type's union was written a byte at a time,
   and a wider load of it waits for those stores to drain (this cost the
   checker a fifth of its speed on the sparse stream of bench_decode). */
static const uint64_t ptc__conf_not_cyc = 1; /* read for other types: "shortest" */
static int ptc__conf_cyc_long(const ptc_packet *p)
{
    unsigned size = p->size, is_cyc = p->type == PTC_CYC;
    const uint64_t *from[2];
    uint64_t v;
    from[0] = &ptc__conf_not_cyc;
    from[1] = &p->u.cyc.cycles;
    v = *from[is_cyc];
    return (int)(is_cyc & ((size > 10) | ((size >= 2) & ((v >> ((7u * size - 9u) & 63u)) == 0))));
}

/* The types ptc__conf_check_values has a rule for. */
#define PTC__CONF_VALUE_TYPES \
    (PTC__CONF_T(PTC_MODE_EXEC) | PTC__CONF_T(PTC_MODE_TSX) | PTC__CONF_T(PTC_CBR) | PTC__CONF_T(PTC_PWRE) | \
     PTC__CONF_T(PTC_PWRX) | PTC__CONF_T(PTC_CFE) | PTC__CONF_T(PTC_EVD) | PTC__CONF_T(PTC_TRIG) | PTC__CONF_T(PTC_BBP) | \
     PTC__CONF_T(PTC_MWAIT) | PTC__CONF_T(PTC_CYC) | PTC__CONF_T(PTC_TIP_PGE) | PTC__CONF_T(PTC_TSC) | \
     PTC__CONF_T(PTC_TMA) | PTC__CONF_T(PTC_MTC) | PTC__CONF_T(PTC_PTW) | PTC__CONF_T(PTC_EXSTOP))

static void ptc__conf_check_values(ptc_conform *c, ptc__conf_out *o, const ptc_item *it)
{
    const ptc_packet *p = &it->pkt;
    if (!(PTC__CONF_VALUE_TYPES & PTC__CONF_T(p->type))) return;
    if (p->type == PTC_MODE_EXEC && p->u.mode_exec.csl && p->u.mode_exec.csd)
        ptc__conf_report(c, o, PTC_RULE_MODE_EXEC_L_D, it->offset, 0);
    if (p->type == PTC_MODE_TSX && p->u.mode_tsx.intx && p->u.mode_tsx.abrt)
        ptc__conf_report(c, o, PTC_RULE_MODE_TSX_BOTH, it->offset, 0);
    if (ptc__conf_type_undefined(p)) ptc__conf_report(c, o, PTC_RULE_CFE_EVD_TYPE, it->offset, 0);
    if (ptc__conf_reserved_set(p)) ptc__conf_report(c, o, PTC_RULE_RESERVED_BITS, it->offset, 0);
    if (p->type == PTC_CBR && p->u.cbr.ratio == 0) ptc__conf_report(c, o, PTC_RULE_CBR_ZERO, it->offset, 0);
    if (ptc__conf_cyc_long(p))
        ptc__conf_report(c, o, PTC_RULE_CYC_NOT_SHORTEST, it->offset, 0);
    if (p->type == PTC_TIP_PGE && p->u.ip.ipc == PTC_IPC_SUPPRESSED)
        ptc__conf_report(c, o, PTC_RULE_PGE_NO_IP, it->offset, 0);
    if (ptc__conf_disabled(c, p->type)) ptc__conf_report(c, o, PTC_RULE_DISABLED_PACKET, it->offset, 0);
    if (p->type == PTC_TSC) {
        /* 56 bits that wrap: back means less by under half the range */
        uint64_t back = (c->last_tsc - p->u.tsc.tsc) & ((UINT64_C(1) << 56) - 1);
        if (c->have_tsc && back && back < (UINT64_C(1) << 55)) ptc__conf_report(c, o, PTC_RULE_TSC_BACKWARDS, it->offset, 0);
        c->have_tsc = 1;
        c->last_tsc = p->u.tsc.tsc;
    }
}

/* ---- 7.3.1 PSB+ ---- */

/* A PSBEND closes the PSB+: the members it must hold, given what the
   configuration or the stream shows, and what it says of PacketEn. */
static void ptc__conf_psb_end(ptc_conform *c, ptc__conf_out *o)
{
    uint64_t m = c->psb.members;
    int fup = (m & PTC__CONF_T(PTC_FUP)) != 0, mode = (m & PTC__CONF_T(PTC_MODE_EXEC)) != 0;
    if (!(m & PTC__CONF_T(PTC_CBR))) ptc__conf_report(c, o, PTC_RULE_PSB_NO_CBR, c->psb.off, 0);
    if (!(m & PTC__CONF_T(PTC_TSC)) && ptc__conf_on(c, PTC_KNOW_TSC_EN, c->cfg.trace.ctl.tsc_en, c->saw_tsc))
        ptc__conf_report(c, o, PTC_RULE_PSB_NO_TSC, c->psb.off, 0);
    if (fup != mode) ptc__conf_report(c, o, PTC_RULE_PSB_FUP_MODE, c->psb.off, 0);
    /* FUP and MODE.Exec are there exactly when PacketEn is 1 (BDM70: or
       wrongly, before a TIP.PGE) */
    c->gen.pkt_en = fup ? PTC__CONF_ON : PTC__CONF_OFF;
    c->gen.en_by_psb = (uint8_t)fup;
    c->psb.in = 0;
}

static void ptc__conf_psb(ptc_conform *c, ptc__conf_out *o, const ptc_item *it)
{
    ptc_packet_type t = it->pkt.type;
    if (t == PTC_PSB) {
        uint64_t period = UINT64_C(1) << (c->cfg.trace.ctl.psb_freq + 11);
        if (c->psb.in) ptc__conf_report(c, o, PTC_RULE_PSB_NESTED, it->offset, 0);
        if ((c->cfg.trace.known & PTC_KNOW_PSB_FREQ) && c->psb.have_prev && it->offset - c->psb.prev_off > 2 * period)
            ptc__conf_report(c, o, PTC_RULE_PSB_PERIOD, it->offset, 0);
        c->psb.have_prev = 1;
        c->psb.prev_off = it->offset;
        c->psb.in = 1;
        c->psb.seq++;
        c->psb.off = it->offset;
        c->psb.members = 0;
        c->gen.pkt_en = PTC__CONF_UNKNOWN; /* until the PSB+ says */
        c->gen.en_by_psb = 0;
        c->psb.cut = 0;
        return;
    }
    if (!c->psb.in) {
        /* (the PSBEND of a PSB+ that a stray packet cut was reported with it) */
        if (t == PTC_PSBEND && !c->psb.cut) ptc__conf_report(c, o, PTC_RULE_PSBEND_ALONE, it->offset, 0);
        c->psb.cut = 0;
        return;
    }
    if (!(PTC__CONF_PSB_MEMBERS & PTC__CONF_T(t))) {
        /* the PSB+ is over, its end unseen: what it said of PacketEn is unknown */
        ptc__conf_report(c, o, PTC_RULE_PSB_MEMBER, it->offset, 0);
        c->psb.in = 0;
        c->psb.cut = 1;
        return;
    }
    c->psb.members |= PTC__CONF_T(t);
    if (t == PTC_PSBEND) ptc__conf_psb_end(c, o);
}

/* ---- 7.3.3 followers ---- */

static void ptc__conf_await(ptc_conform *c, unsigned kind, uint64_t offset, int owed)
{
    c->owe.pending |= 1u << kind;
    if (owed) c->owe.owed |= 1u << kind; else c->owe.owed &= ~(1u << kind);
    c->owe.off[kind] = offset;
    c->owe.psb[kind] = c->psb.seq;
}

static void ptc__conf_owe(ptc_conform *c, unsigned kind, uint64_t offset) { ptc__conf_await(c, kind, offset, 1); }

/* The erratum that explains a packet breaking an OVF's follower: SKD007
   when the OVF is the one a cut CYC was read with (two whole CYCs have
   the same bytes, SPEC 1.9 rule 5: then there was no OVF), APL11 for a
   TIP.PGD, else SKD010 (no FUP or TIP.PGE after the OVF). */
static uint32_t ptc__conf_ovf_erratum(const ptc_conform *c, ptc_packet_type t)
{
    if (c->owe.ovf_after_cut) return PTC_ERRATUM_SKD007;
    return t == PTC_TIP_PGD ? PTC_ERRATUM_APL11 : PTC_ERRATUM_SKD010;
}

/* The packet settles or breaks each follower owed; returns 1 when it is a
   FUP that one of them was waiting for (an IP bit's, MODE.TSX's, the
   OVF's): that FUP is bound, no event of its own. */
static int ptc__conf_settle(ptc_conform *c, ptc__conf_out *o, const ptc_item *it)
{
    ptc_packet_type t = it->pkt.type;
    uint64_t bit = PTC__CONF_T(t);
    int bound = 0;
    unsigned k;
    if (!c->owe.pending) return 0;
    if (c->psb.in && t == PTC_FUP && (c->owe.pending & (1u << PTC__CONF_F_OVF))) {
        c->owe.pending &= ~(1u << PTC__CONF_F_OVF); /* PSB+ after the OVF: its FUP gives the IP */
        return 1;
    }
    for (k = 0; k < PTC__CONF_F_COUNT; k++) {
        const struct ptc__conf_follower *f = &ptc__conf_followers[k];
        if (!(c->owe.pending & (1u << k))) continue;
        /* owed since before this PSB+ (its PSBEND included): wait it out */
        if ((c->psb.in || t == PTC_PSBEND) && c->owe.psb[k] != c->psb.seq) continue;
        if (f->ends & bit) {
            bound |= t == PTC_FUP;
        } else if (f->may_precede & bit) {
            continue;
        } else if (c->owe.owed & (1u << k)) {
            ptc__conf_report(c, o, f->rule, c->owe.off[k], k == PTC__CONF_F_OVF ? ptc__conf_ovf_erratum(c, t) : 0);
        }
        c->owe.pending &= ~(1u << k);
    }
    return bound;
}

/* The followers this packet owes. */
static void ptc__conf_open(ptc_conform *c, const ptc_item *it, int bound)
{
    const ptc_packet *p = &it->pkt;
    int ip_bit = 0;
    switch (p->type) {
    case PTC_TSC:
        if (ptc__conf_on(c, PTC_KNOW_MTC_EN, c->cfg.trace.ctl.mtc_en, c->saw_mtc)) ptc__conf_owe(c, PTC__CONF_F_TMA, it->offset);
        return;
    case PTC_FUP:
        if (!c->psb.in && !bound) ptc__conf_owe(c, PTC__CONF_F_TIP, it->offset);
        return;
    case PTC_MODE_EXEC:
        if (!c->psb.in) ptc__conf_owe(c, PTC__CONF_F_MODE_EXEC, it->offset);
        return;
    case PTC_MODE_TSX:
        /* its FUP needs PacketEn, MODE.TSX only ContextEn: it owes the FUP
           with packets on; otherwise a FUP right after it is still its own */
        if (!c->psb.in) ptc__conf_await(c, PTC__CONF_F_TSX_FUP, it->offset, c->gen.pkt_en == PTC__CONF_ON);
        return;
    case PTC_OVF:
        ptc__conf_owe(c, PTC__CONF_F_OVF, it->offset);
        c->owe.ovf_after_cut = c->owe.cut_cyc_end && it->offset == c->owe.cut_cyc_end;
        return;
    case PTC_EVD: ptc__conf_owe(c, PTC__CONF_F_EVD, it->offset); return;
    case PTC_MWAIT: ptc__conf_owe(c, PTC__CONF_F_MWAIT, it->offset); return;
    case PTC_PWRE:
        if (c->gen.awake) ptc__conf_owe(c, PTC__CONF_F_EXSTOP, it->offset);
        return;
    case PTC_BBP: ptc__conf_owe(c, PTC__CONF_F_BLOCK, it->offset); return;
    case PTC_PTW: ip_bit = p->u.ptw.ip; break;
    case PTC_EXSTOP: ip_bit = p->u.exstop.ip; break;
    case PTC_TRIG: ip_bit = p->u.trig.ip; break;
    case PTC_BEP: ip_bit = p->u.bep.ip; break;
    case PTC_CFE: ip_bit = p->u.cfe.ip; break;
    default: return;
    }
    if (ip_bit) ptc__conf_owe(c, PTC__CONF_F_IP_FUP, it->offset);
}

/* ---- 7.3.2 packet generation enable ---- */

static void ptc__conf_enable(ptc_conform *c, ptc__conf_out *o, const ptc_item *it, int bound)
{
    ptc_packet_type t = it->pkt.type;
    switch (t) {
    case PTC_TIP_PGE:
        if (c->gen.pkt_en == PTC__CONF_ON)
            ptc__conf_report(c, o, PTC_RULE_PGE_WHILE_ON, it->offset, c->gen.en_by_psb ? PTC_ERRATUM_BDM70 : 0);
        if (!c->gen.mode_since_psb) ptc__conf_report(c, o, PTC_RULE_PGE_NO_MODE, it->offset, 0);
        c->gen.pkt_en = PTC__CONF_ON;
        break;
    case PTC_TIP_PGD:
        if (c->gen.pkt_en == PTC__CONF_OFF) ptc__conf_report(c, o, PTC_RULE_PGD_WHILE_OFF, it->offset, 0);
        c->gen.pkt_en = PTC__CONF_OFF;
        break;
    case PTC_TNT8: case PTC_TNT64: case PTC_TIP:
        if (c->gen.pkt_en == PTC__CONF_OFF) ptc__conf_report(c, o, PTC_RULE_FLOW_WHILE_OFF, it->offset, 0);
        c->gen.pkt_en = PTC__CONF_ON;
        break;
    case PTC_FUP:
        /* a FUP bound to another packet may come with FilterEn 0 (EXSTOP),
           and one after an OVF without PacketEn (APL12): neither says it is on */
        if (bound) return;
        if (c->gen.pkt_en == PTC__CONF_OFF) ptc__conf_report(c, o, PTC_RULE_FLOW_WHILE_OFF, it->offset, 0);
        break;
    case PTC_STOP: /* (the table's rows that stop tracing: "TIP.PGD(...), TraceStop") */
        if (c->gen.pkt_en == PTC__CONF_ON) ptc__conf_report(c, o, PTC_RULE_STOP_WHILE_ON, it->offset, 0);
        c->gen.stopped = 1;
        c->gen.pkt_en = PTC__CONF_OFF;
        break;
    default:
        return;
    }
    c->gen.en_by_psb = 0;
}

/* After TraceStop nothing comes until TraceEn is set again, which a PSB+
   or the TSC, TMA and CBR of an enable announce. */
static void ptc__conf_stopped(ptc_conform *c, ptc__conf_out *o, const ptc_item *it)
{
    ptc_packet_type t = it->pkt.type;
    if (t == PTC_PAD) return;
    if (t != PTC_PSB && t != PTC_TSC && t != PTC_TMA && t != PTC_CBR)
        ptc__conf_report(c, o, PTC_RULE_AFTER_STOP, it->offset, 0);
    c->gen.stopped = 0;
}

/* ---- 7.3.5 timing and 7.3.6 the policy ---- */

static void ptc__conf_timing(ptc_conform *c, ptc__conf_out *o, const ptc_item *it)
{
    ptc_packet_type t = it->pkt.type;
    if (t == PTC_TMA && !c->owe.tma_may_follow) ptc__conf_report(c, o, PTC_RULE_TMA_ALONE, it->offset, 0);
    if (t == PTC_TSC) c->owe.tma_may_follow = 1;
    else if (!(ptc__conf_followers[PTC__CONF_F_TMA].may_precede & PTC__CONF_T(t))) c->owe.tma_may_follow = 0;
    c->saw_tsc |= t == PTC_TSC;
    c->saw_mtc |= t == PTC_MTC || t == PTC_TMA;
    if (ptc__conf_policy_rules(c)) {
        /* part 2's checker gives the rule itself (an MTC that SKL168 drops
           is next to a PSB, an NTP: no gap is counted across it) */
        int broken = ptc_checker_packet(&c->policy, &it->pkt);
        if (broken != PTC_RULE_NONE) ptc__conf_report(c, o, (ptc_rule)broken, it->offset, 0);
    }
}

/* ---- 7.3.5 time that contradicts itself, with the clock's settings ----
   Each rule is a bound no legal stream can cross, so each keeps a margin
   for what the SDM leaves open: the TSC is sampled anywhere in a CTC tick
   (two ticks), the FastCounter (512 TSC ticks), a PSB+'s TSC older than
   the MTCs and CYCs before it in the PSB+ (DynamoRIO's traces: those do
   not count against it), nom rounded (half a unit) and spread-spectrum
   clocking (rate_ppm), an MTC that goes out after its edge (a period). An
   MTC's payload gives the fewest periods since the MTC before; MTCs bound
   CYCs only where no multiple of 256 periods can hide between two of them
   while cycles count: with no suppression (the clock's policy off), and
   from one clock stop, CBR or OVF to the next. A TSC in a VMX guest may carry the guest's offset:
   once the stream shows VMX (a PIP with NR, a VMCS), the TSC rules wait
   for the next TSC and TMA. */

/* The TSC and TMA rules need the TSC:CTC ratio and MTCFreq; the CYC rule
   nom (ptc__conf_cycles_in). */
static int ptc__conf_ctc_known(const ptc_conform_config *k)
{
    return (k->trace.known & PTC_KNOW_MTC_FREQ) && k->trace.ratios.cpuid_15_eax && k->trace.ratios.cpuid_15_ebx;
}

/* TSC ticks in n CTC ticks (floor or ceil, saturating). */
static uint64_t ptc__conf_ctc_ticks(const ptc_conform_config *k, uint64_t n, int ceil)
{
    return ptc__math_muldiv(n, k->trace.ratios.cpuid_15_ebx, k->trace.ratios.cpuid_15_eax, ceil);
}

/* The most core cycles n TSC ticks can hold at ratio cbr, with nom's
   rounding and the clock's spread; UINT64_MAX when nom is not known. */
static uint64_t ptc__conf_cycles_in(const ptc_conform_config *k, uint64_t ticks, uint8_t cbr)
{
    uint64_t num = k->trace.ratios.nom_num, den = k->trace.ratios.nom_den, x;
    if (!k->trace.ratios.nom_exact) { /* nom - 1/2: the fewest TSC ticks a 100 MHz tick can be */
        if (num > UINT64_MAX / 2 || den > UINT64_MAX / 2 || 2 * num <= den) return UINT64_MAX;
        num = 2 * num - den;
        den *= 2;
    }
    if (!num || !den) return UINT64_MAX;
    x = ptc__math_muldiv(ticks, den, num, 1);
    x = x > UINT64_MAX / cbr ? UINT64_MAX : x * cbr;
    x = ptc__math_muldiv(x, 1000000u + (uint64_t)k->real.rate_ppm, 1000000u, 1);
    return ptc__math_sat_add(x, PTC_CLOCK_HW_MTC_JITTER + (uint64_t)k->real.mtc_jitter);
}

/* A TSC: no earlier than the edge of the last MTC since the epoch's TMA,
   and late enough for the CYCs since the last TSC; then it opens the next
   window, and the next epoch with its TMA. */
static void ptc__conf_time_tsc(ptc_conform *c, ptc__conf_out *o, const ptc_item *it)
{
    ptc__conf_epoch *ep = &c->time.epoch;
    ptc__conf_cyc_count *w = &c->time.window;
    const ptc_conform_config *k = &c->cfg;
    uint64_t tsc = it->pkt.u.tsc.tsc, periods = c->psb.in ? ep->periods_at_psb : ep->periods;
    unsigned f = k->trace.ctl.mtc_freq;
    uint64_t into = ep->ctc & ((1u << f) - 1u); /* the epoch's CTC past its period's edge */
    if (ep->valid && !c->time.guest && tsc >= ep->tsc && periods && periods <= (UINT64_MAX >> 16) &&
        (periods << f) > into + 2 && ptc__conf_ctc_known(&c->cfg)) {
        uint64_t at_least = ptc__conf_ctc_ticks(k, (periods << f) - into - 2, 0);
        if (tsc - ep->tsc + 512 < at_least) ptc__conf_report(c, o, PTC_RULE_TSC_BEFORE_MTCS, it->offset, 0);
    }
    if (w->state && w->cbr && !c->time.guest && tsc >= w->from_tsc &&
        w->cycles > ptc__conf_cycles_in(k, tsc - w->from_tsc, w->cbr))
        ptc__conf_report(c, o, PTC_RULE_CYC_OVER_TSC, it->offset, 0);
    memset(w, 0, sizeof *w);
    w->state = 1;
    w->from_tsc = tsc;
    w->cbr = c->time.cbr;
    ep->tsc_pending = 1;
    ep->pending_tsc = tsc;
    ep->valid = 0;
}

/* A TMA after its TSC: its CTC is the epoch's moved on by the TSCs'
   distance (to two CTC ticks); then it begins the next epoch. */
static void ptc__conf_time_tma(ptc_conform *c, ptc__conf_out *o, const ptc_item *it)
{
    ptc__conf_epoch *ep = &c->time.epoch;
    uint16_t ctc = it->pkt.u.tma.ctc;
    if (!ep->tsc_pending || !ptc__conf_ctc_known(&c->cfg)) return;
    if (ep->seen && !c->time.guest && ep->pending_tsc >= ep->tsc) {
        uint64_t q, r;
        if (ptc__math_mad_div(ep->pending_tsc - ep->tsc, c->cfg.trace.ratios.cpuid_15_eax, 0, 0, c->cfg.trace.ratios.cpuid_15_ebx, &q, &r)) {
            uint16_t off = (uint16_t)(ctc - (uint16_t)(ep->ctc + q));
            if (off > 2 && off < 0xFFFEu) ptc__conf_report(c, o, PTC_RULE_TMA_CTC_MISMATCH, it->offset, 0);
        }
    }
    ep->tsc_pending = 0;
    ep->valid = ep->seen = 1;
    ep->tsc = ep->pending_tsc;
    ep->ctc = ctc;
    ep->have_mtc = 0;
    ep->periods = ep->periods_at_psb = 0;
    c->time.guest = 0;
}

/* An MTC: how far it takes the CTC past the epoch's, at least (the
   fewest periods its payload allows). */
static void ptc__conf_epoch_mtc(ptc_conform *c, uint8_t p)
{
    ptc__conf_epoch *ep = &c->time.epoch;
    unsigned f = c->cfg.trace.ctl.mtc_freq;
    if (!ep->valid) return;
    /* the first MTC: against the CTC bits the TMA holds, [15:f] */
    if (ep->have_mtc) ep->periods += (uint8_t)(p - ep->mtc);
    else ep->periods += ((unsigned)p - (ep->ctc >> f)) & ((1u << (16 - f < 8 ? 16 - f : 8)) - 1u);
    ep->have_mtc = 1;
    ep->mtc = p;
}

/* CYCs against the MTC periods: from the first CYC after an MTC on, every
   CYC lies after that MTC's edge, and those before a later MTC before its
   edge, give or take the MTC's lateness (one period spare). */
static void ptc__conf_chain_mtc(ptc_conform *c, ptc__conf_out *o, const ptc_item *it)
{
    ptc__conf_cyc_count *ch = &c->time.chain;
    const ptc_conform_config *k = &c->cfg;
    uint8_t p = it->pkt.u.mtc.ctc;
    if (ch->state == 2) {
        unsigned gap = (uint8_t)(p - ch->mtc);
        ch->periods += gap ? gap : 256u; /* (equal payloads: a whole wrap) */
        ch->mtc = p;
        if (ch->cbr && (k->trace.known & PTC_KNOW_POLICY) && k->trace.policy.threshold == 0 && ch->periods < (UINT64_C(1) << 40) &&
            ch->cycles > ptc__conf_cycles_in(k, ptc__conf_ctc_ticks(k, (ch->periods + 1) << k->trace.ctl.mtc_freq, 1), ch->cbr)) {
            ptc__conf_report(c, o, PTC_RULE_CYC_OVER_MTCS, it->offset, 0);
            ch->state = 3;
        }
    }
    if (ch->state >= 2) return;
    memset(ch, 0, sizeof *ch);
    ch->state = 1;
    ch->mtc = p;
    ch->cbr = c->time.cbr;
}

/* A CYC into the window and the chain. */
static void ptc__conf_count_cyc(ptc__conf_cyc_count *n, uint64_t cycles, int counts)
{
    if (n->state == 2 && counts) n->cycles = ptc__math_sat_add(n->cycles, cycles);
    if (n->state == 1) n->state = 2;
}

static void ptc__conf_time_rules(ptc_conform *c, ptc__conf_out *o, const ptc_item *it)
{
    ptc__conf_time *tm = &c->time;
    const ptc_packet *p = &it->pkt;
    if (ptc__conf_ctc_known(&c->cfg) && p->type == PTC_MTC) ptc__conf_chain_mtc(c, o, it);
    /* (a clock stop, a new ratio, lost packets: the CYCs count against MTCs anew) */
    if (p->type == PTC_TSC || p->type == PTC_OVF || p->type == PTC_CBR || p->type == PTC_EXSTOP || p->type == PTC_PWRE ||
        p->type == PTC_PWRX || p->type == PTC_MWAIT)
        tm->chain.state = 0;
    /* (the packets an OVF lost may have held a CBR of a higher ratio: fuzz_checker
       found the model's stream so, found-ovf-lost-the-cbr) */
    if (p->type == PTC_OVF) tm->window.state = 0;
    switch (p->type) {
    case PTC_TSC: ptc__conf_time_tsc(c, o, it); break;
    case PTC_TMA: ptc__conf_time_tma(c, o, it); break;
    case PTC_MTC: ptc__conf_epoch_mtc(c, p->u.mtc.ctc); break;
    case PTC_PSB: tm->epoch.periods_at_psb = tm->epoch.periods; break;
    case PTC_CYC: /* (the window leaves out those inside a PSB+, which its TSC may predate) */
        ptc__conf_count_cyc(&tm->window, p->u.cyc.cycles, !c->psb.in);
        ptc__conf_count_cyc(&tm->chain, p->u.cyc.cycles, 1);
        break;
    case PTC_CBR:
        if (p->u.cbr.ratio) tm->cbr = p->u.cbr.ratio;
        if (tm->cbr > tm->window.cbr) tm->window.cbr = tm->cbr;
        break;
    case PTC_PIP: tm->guest |= p->u.pip.nr; break;
    case PTC_VMCS: tm->guest = 1; break;
    default: break;
    }
}

/* A CYC with the packet after it (PADs aside), CycThresh known (SDM
   36.3.6: a CYC goes with an eligible packet only once 2^(CycThresh-1)
   cycles have passed since the last): a CYC right before an eligible
   packet or a TNT carries at least that many - unless it is inside a
   PSB+, right after another CYC (which may force one out: the model's
   first-branch CYC and the eligible packet's own), all ones (the cycle
   counter's wrap, sent whatever the threshold), or before a TSC or an OVF
   (sent as the clock stops, or after packets were lost). Both readings of
   the CYC rules (SPEC 3.10) keep it: a TNT's CYC times its first branch,
   or the whole TNT, and was sent for it either way. */
static void ptc__conf_cyc_placement(ptc_conform *c, ptc__conf_out *o, const ptc_item *it)
{
    ptc__conf_last_cyc *lc = &c->time.last_cyc;
    const ptc_conform_config *k = &c->cfg;
    ptc_packet_type t = it->pkt.type;
    uint64_t v = lc->value;
    if (t == PTC_PAD) return;
    if (lc->pending && !lc->after_cyc && !lc->in_psb && !c->psb.in && (v & (v + 1)) != 0 && ptc__conf_on(c, PTC_KNOW_CYC_EN, k->trace.ctl.cyc_en, 0) &&
        (k->trace.known & PTC_KNOW_CYC_THRESH) && k->trace.ctl.cyc_thresh >= 1 && v < (UINT64_C(1) << (k->trace.ctl.cyc_thresh - 1)) &&
        (ptc_packet_is_tnt(t) || (ptc_packet_is_cyc_eligible(t) && t != PTC_TSC && t != PTC_OVF)))
        ptc__conf_report(c, o, PTC_RULE_CYC_UNDER_THRESHOLD, lc->offset, 0);
    lc->after_cyc = t == PTC_CYC && lc->pending;
    lc->pending = t == PTC_CYC;
    if (t == PTC_CYC) {
        lc->value = it->pkt.u.cyc.cycles;
        lc->offset = it->offset;
        lc->in_psb = c->psb.in;
    }
}

/* Packets that only code running in C0 makes: a branch (TNT, TIP), tracing
   turned on or off at an instruction, a PTWRITE. */
#define PTC__CONF_CODE_RAN \
    (PTC__CONF_T(PTC_TNT8) | PTC__CONF_T(PTC_TNT64) | PTC__CONF_T(PTC_TIP) | PTC__CONF_T(PTC_TIP_PGE) | \
     PTC__CONF_T(PTC_TIP_PGD) | PTC__CONF_T(PTC_PTW))

static void ptc__conf_power(ptc_conform *c, ptc__conf_out *o, const ptc_item *it)
{
    ptc_packet_type t = it->pkt.type;
    if (PTC__CONF_CODE_RAN & PTC__CONF_T(t)) c->gen.awake = 1;
    if (t == PTC_PWRE) {
        c->gen.sleeping = PTC__CONF_ON;
        c->gen.awake = 0;
    }
    if (t != PTC_PWRX) return;
    if (c->gen.sleeping == PTC__CONF_OFF) ptc__conf_report(c, o, PTC_RULE_PWRX_ALONE, it->offset, 0);
    c->gen.sleeping = PTC__CONF_OFF;
    c->gen.awake = 1;
}

/* Every rule for one item (ptc_conform_item when the item is no fast type). */
static size_t ptc__conf_item(ptc_conform *c, const ptc_item *it, ptc_finding *out)
{
    ptc__conf_out o;
    ptc_packet_type t;
    int bound;
    o.f = out;
    o.n = 0;
    if (it->error == PTC_ERR_CORRUPT_TMA) { /* SKZ84: the TMA a TSC owed, corrupt */
        c->owe.pending &= ~(1u << PTC__CONF_F_TMA);
        c->owe.tma_may_follow = 0;
        return 0;
    }
    /* SKD007's cut CYC loses nothing the OVF after it does not; any other
       error loses bytes: check again from the next PSB */
    if (it->error != PTC_OK) {
        if (it->error != PTC_ERR_CUT_CYC) ptc__conf_lose_sync(c);
        c->owe.cut_cyc_end = it->error == PTC_ERR_CUT_CYC ? it->offset + 1 : 0;
        return 0;
    }
    t = it->pkt.type;
    if ((unsigned)t >= PTC_PACKET_TYPE_COUNT || t == PTC_NONE) return 0;
    ptc__conf_check_values(c, &o, it);
    if (!c->synced && t != PTC_PSB) return o.n;
    c->synced = 1;
    if (t == PTC_OVF) {
        /* packets were lost before it: nothing owed can be held against
           the stream, a PSB+ it cuts may have lost its PSBEND, and PacketEn
           is unknown until its FUP or TIP.PGE */
        c->owe.pending = 0;
        c->psb.in = 0;
        c->gen.pkt_en = PTC__CONF_UNKNOWN;
        c->gen.en_by_psb = 0;
        c->gen.sleeping = PTC__CONF_UNKNOWN;
        c->gen.awake = 0;
        c->gen.stopped = 0;
    }
    if (c->gen.stopped) ptc__conf_stopped(c, &o, it);
    if (t == PTC_PSB || t == PTC_MODE_EXEC) c->gen.mode_since_psb = t == PTC_MODE_EXEC;
    if (t == PTC_BEP && !(c->owe.pending & (1u << PTC__CONF_F_BLOCK))) ptc__conf_report(c, &o, PTC_RULE_BEP_ALONE, it->offset, 0);
    ptc__conf_psb(c, &o, it);
    bound = ptc__conf_settle(c, &o, it);
    if (!c->psb.in) ptc__conf_enable(c, &o, it, bound);
    ptc__conf_open(c, it, bound);
    ptc__conf_timing(c, &o, it);
    if (ptc__conf_time_rules_on(c)) {
        ptc__conf_time_rules(c, &o, it);
        ptc__conf_cyc_placement(c, &o, it);
    }
    ptc__conf_power(c, &o, it);
    return o.n;
}

/* Every rule, then the fast set again: out of line (see PTC__NOINLINE). */
static PTC__NOINLINE size_t ptc__conf_slow(ptc_conform *c, const ptc_item *it, ptc_finding *out)
{
    size_t n = ptc__conf_item(c, it, out);
    c->fast = ptc__conf_fast_types(c);
    return n;
}

PTCDEF size_t ptc_conform_item(ptc_conform *c, const ptc_item *it, ptc_finding *out)
{
    ptc_packet_type t;
    if (!c || !it || !out) return 0;
    t = it->pkt.type;
    if (PTC__LIKELY((it->error == PTC_OK) & ((unsigned)t < PTC_PACKET_TYPE_COUNT) & (unsigned)(c->fast >> (t & 63)) &
                    !ptc__conf_cyc_long(&it->pkt) & 1u))
        return 0;
    return ptc__conf_slow(c, it, out);
}


#ifndef PTCODEC_NO_FLOW

/* ---- 9.1 x86 instructions --------------------------------------------- */

/* What follows an opcode of the one-byte and 0F maps: a ModRM byte
   (PTC__X86_M) and the kind of immediate in the low four bits. The facts
   are the SDM's opcode maps (Vol. 2, appendix A); PTC__X86_BAD marks an
   opcode that is no instruction (in 64-bit mode, where the mode matters:
   ptc__x86_legacy_bad has the rest). */
enum {
    PTC__X86_M = 0x10,
    PTC__X86_IB = 1,     /* imm8 */
    PTC__X86_IW = 2,     /* imm16 */
    PTC__X86_IZ = 3,     /* imm16 or imm32, by operand size */
    PTC__X86_IV = 4,     /* imm16, 32 or 64, by operand size (MOV r, imm) */
    PTC__X86_IWB = 5,    /* imm16 then imm8 (ENTER) */
    PTC__X86_MOFFS = 6,  /* an address as wide as the address size */
    PTC__X86_PTR = 7,    /* a far pointer: an offset by operand size, then a selector */
    PTC__X86_GRP3 = 8,   /* F6, F7: an immediate for /0 and /1 only */
    PTC__X86_REL = 9,    /* a near branch's rel16 or rel32 (rel32 in 64-bit mode) */
    PTC__X86_SSE4A = 10, /* 0F 78 with 66 or F2 (AMD's EXTRQ, INSERTQ): imm8, imm8 */
    PTC__X86_BAD = 15
};

#define M PTC__X86_M
#define B PTC__X86_IB
#define W PTC__X86_IW
#define Z PTC__X86_IZ
#define V PTC__X86_IV
#define O PTC__X86_MOFFS
#define P PTC__X86_PTR
#define R PTC__X86_REL
#define G PTC__X86_GRP3
#define X PTC__X86_BAD
static const uint8_t ptc__x86_map0[256] = {
/*        0    1    2    3    4    5    6    7    8    9    A    B    C    D    E    F */
/*0*/     M,   M,   M,   M,   B,   Z,   0,   0,   M,   M,   M,   M,   B,   Z,   0,   X,
/*1*/     M,   M,   M,   M,   B,   Z,   0,   0,   M,   M,   M,   M,   B,   Z,   0,   0,
/*2*/     M,   M,   M,   M,   B,   Z,   X,   0,   M,   M,   M,   M,   B,   Z,   X,   0,
/*3*/     M,   M,   M,   M,   B,   Z,   X,   0,   M,   M,   M,   M,   B,   Z,   X,   0,
/*4*/     0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
/*5*/     0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
/*6*/     0,   0,   M,   M,   X,   X,   X,   X,   Z, M|Z,   B, M|B,   0,   0,   0,   0,
/*7*/     B,   B,   B,   B,   B,   B,   B,   B,   B,   B,   B,   B,   B,   B,   B,   B,
/*8*/   M|B, M|Z, M|B, M|B,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/*9*/     0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   P,   0,   0,   0,   0,   0,
/*A*/     O,   O,   O,   O,   0,   0,   0,   0,   B,   Z,   0,   0,   0,   0,   0,   0,
/*B*/     B,   B,   B,   B,   B,   B,   B,   B,   V,   V,   V,   V,   V,   V,   V,   V,
/*C*/   M|B, M|B,   W,   0,   M,   M, M|B, M|Z, PTC__X86_IWB, 0, W, 0,   0,   B,   0,   0,
/*D*/     M,   M,   M,   M,   B,   B,   0,   0,   M,   M,   M,   M,   M,   M,   M,   M,
/*E*/     B,   B,   B,   B,   B,   B,   B,   B,   R,   R,   P,   B,   0,   0,   0,   0,
/*F*/     X,   0,   X,   X,   0,   0, M|G, M|G,   0,   0,   0,   0,   0,   0,   M,   M
};

/* The 0F map. 0F 0F is AMD's 3DNow! (an imm8 after the ModRM is its
   opcode); 0F A6 and A7 are VIA's PadLock instructions, which real code
   has (OpenSSL's padlock engine). */
static const uint8_t ptc__x86_map1[256] = {
/*        0    1    2    3    4    5    6    7    8    9    A    B    C    D    E    F */
/*0*/     M,   M,   M,   M,   X,   0,   0,   0,   0,   0,   X,   0,   X,   M,   0, M|B,
/*1*/     M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/*2*/     M,   M,   M,   M,   X,   X,   X,   X,   M,   M,   M,   M,   M,   M,   M,   M,
/*3*/     0,   0,   0,   0,   0,   0,   X,   0,   X,   X,   X,   X,   X,   X,   X,   X,
/*4*/     M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/*5*/     M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/*6*/     M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/*7*/   M|B, M|B, M|B, M|B,   M,   M,   M,   0, M|PTC__X86_SSE4A, M, X, X, M,   M,   M,   M,
/*8*/     R,   R,   R,   R,   R,   R,   R,   R,   R,   R,   R,   R,   R,   R,   R,   R,
/*9*/     M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/*A*/     0,   0,   0,   M, M|B,   M,   M,   M,   0,   0,   0,   M, M|B,   M,   M,   M,
/*B*/     M,   M,   M,   M,   M,   M,   M,   M,   M,   M, M|B,   M,   M,   M,   M,   M,
/*C*/     M,   M, M|B,   M, M|B, M|B, M|B,   M,   0,   0,   0,   0,   0,   0,   0,   0,
/*D*/     M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/*E*/     M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,
/*F*/     M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M,   M
};
#undef M
#undef B
#undef W
#undef Z
#undef V
#undef O
#undef P
#undef R
#undef G
#undef X

/* The opcodes that exist in the maps whose every opcode has a ModRM, a bit
   each (bit n of word n / 32): an opcode is there when the SDM (or AMD's
   APM, for XOP) defines it for some prefix, W and length. Maps 4 and 7 are
   APX's and the user-MSR instructions'; 84 and 85 of VEX's map 1 are left
   out (Knights Corner's, not in the SDM). */
static const uint32_t ptc__x86_exists_legacy38[8] = { 0x70b10fff, 0xffbf0f3f, 0x00000003, 0, 0x00000007, 0, 0xf900bf00, 0x0f630000 };
static const uint32_t ptc__x86_exists_legacy3a[8] = { 0x00f0ff00, 0x00000007, 0x00000017, 0x0000000f, 0, 0, 0x8000d000, 0x00010000 };
static const uint32_t ptc__x86_exists_vex[4][8] = {
    { 0 },
    { 0x01ff0000, 0x0000ff00, 0xffff0ffe, 0xf0ffffff, 0x03af0000, 0x31004000, 0xffff0074, 0x7fffffff },
    { 0x77c8ffff, 0xffffff3f, 0x570f02e3, 0x03000000, 0xffc05000, 0xffc0ffc0, 0xf8008000, 0x00ec0000 },
    { 0x23f0ff77, 0x430f0007, 0xf0001f57, 0xff00ff0f, 0, 0, 0x8000c000, 0x00010000 }
};
static const uint32_t ptc__x86_exists_evex[7][8] = {
    { 0 },
    { 0x00ff0000, 0x0000ff00, 0xfff20000, 0xcf7fffff, 0, 0, 0xff7e0074, 0x7f7effff },
    { 0xff7f3811, 0xffff3fff, 0x0f3ff0fd, 0xffef017c, 0xffc0af08, 0xfff0ffc0, 0xf000bd10, 0 },
    { 0xeff08f3b, 0xcf0000ef, 0x00f3001c, 0x000f00c0, 0, 0, 0x0000c004, 0 },
    { 0 },
    { 0x20030000, 0x0000f400, 0xff020000, 0x7f004000, 0, 0, 0, 0 },
    { 0x00080000, 0x00003000, 0x00c0f00c, 0, 0xffc00000, 0xffc0ffc0, 0x00c00000, 0 }
};
static const uint32_t ptc__x86_exists_xop[3][8] = {
    { 0, 0, 0, 0, 0xc0e0c0e0, 0x0040004c, 0x0000f00f, 0x0000f000 },
    { 0x00040006, 0, 0, 0, 0x0fff000f, 0, 0x08ce08ce, 0x0000000e },
    { 0x00050000, 0, 0, 0, 0, 0, 0, 0 }
};

static int ptc__x86_in(const uint32_t set[8], unsigned op) { return (set[op >> 5] >> (op & 31)) & 1; }

/* Where the decoder is in the bytes, and what the prefixes said. */
typedef struct ptc__x86_cursor {
    const uint8_t *code;
    size_t at, end;        /* the next byte; at most 15, and at most the size given */
    int cut_is_bad;        /* the size given holds 15 bytes: running out is a too-long instruction */
    unsigned mode;         /* 16, 32, 64 */
    uint8_t osz, asz, lock;/* 66, 67, F0 */
    uint8_t rep;           /* the last of F2 and F3, or 0 */
    uint8_t rex;           /* the REX right before the opcode, or 0 */
    uint8_t rex_w;         /* REX, REX2, VEX, EVEX or XOP's W */
    uint8_t rex_r;         /* REX's R, or REX2's R4 and R3: the ModRM reg's high bits */
    uint8_t imm_at, imm_size; /* where the immediate is, and its bytes */
    uint8_t linear;        /* the IP is a linear address whose CS base is unknown:
                              a 16-bit target is not wrapped (the flow decoder's) */
    ptc_x86_insn *insn;
} ptc__x86_cursor;

/* Running out of bytes: an instruction longer than 15 bytes when 15 were
   there, else one the caller cut. */
static ptc_status ptc__x86_out(const ptc__x86_cursor *c) { return c->cut_is_bad ? PTC_ERR_BAD_INSN : PTC_ERR_CUT_INSN; }

static ptc_status ptc__x86_need(const ptc__x86_cursor *c, size_t n) { return c->at + n <= c->end ? PTC_OK : ptc__x86_out(c); }

/* Legacy prefixes and REX. A REX counts only right before the opcode (or
   the escape); REX2 and the VEX family are read by the caller. */
static ptc_status ptc__x86_prefixes(ptc__x86_cursor *c)
{
    for (;; c->at++) {
        uint8_t b;
        if (c->at >= c->end) return ptc__x86_out(c);
        b = c->code[c->at];
        switch (b) {
        case 0x66: c->osz = 1; break;
        case 0x67: c->asz = 1; break;
        case 0xF0: c->lock = 1; break;
        case 0xF2: case 0xF3: c->rep = b; break;
        case 0x2E: case 0x36: case 0x3E: case 0x26: case 0x64: case 0x65: break;
        default:
            if (c->mode == 64 && (b & 0xF0) == 0x40) {
                c->rex = b;
                continue;
            }
            return PTC_OK;
        }
        c->rex = 0;
    }
}

static unsigned ptc__x86_addr_bits(const ptc__x86_cursor *c)
{
    if (c->mode == 64) return c->asz ? 32 : 64;
    if (c->mode == 32) return c->asz ? 16 : 32;
    return c->asz ? 32 : 16;
}

/* 16, 32 or 64: the operand size of an instruction whose default is 32
   bits (16 in 16-bit mode) and that REX.W widens. */
static unsigned ptc__x86_operand_bits(const ptc__x86_cursor *c)
{
    if (c->rex_w) return 64;
    if (c->mode == 16) return c->osz ? 32 : 16;
    return c->osz ? 16 : 32;
}

/* The ModRM byte and what its addressing takes: SIB and displacement. */
static ptc_status ptc__x86_modrm(ptc__x86_cursor *c, int register_form)
{
    uint8_t modrm, mod, rm;
    size_t n = 1;
    ptc_status st = ptc__x86_need(c, 1);
    if (st != PTC_OK) return st;
    modrm = c->code[c->at];
    c->insn->modrm = modrm;
    c->insn->has_modrm = 1;
    mod = (uint8_t)(modrm >> 6);
    rm = (uint8_t)(modrm & 7);
    if (mod != 3 && !register_form) {
        if (ptc__x86_addr_bits(c) == 16) {
            n += mod == 1 ? 1 : (mod == 2 || (mod == 0 && rm == 6)) ? 2 : 0;
        } else {
            if (rm == 4) {
                st = ptc__x86_need(c, 2);
                if (st != PTC_OK) return st;
                n++;
                if (mod == 0 && (c->code[c->at + 1] & 7) == 5) n += 4;
            }
            n += mod == 1 ? 1 : (mod == 2 || (mod == 0 && rm == 5)) ? 4 : 0;
        }
    }
    st = ptc__x86_need(c, n);
    if (st != PTC_OK) return st;
    c->at += n;
    return PTC_OK;
}

static ptc_status ptc__x86_immediate(ptc__x86_cursor *c, unsigned bytes)
{
    ptc_status st = ptc__x86_need(c, bytes);
    if (st != PTC_OK) return st;
    c->imm_at = (uint8_t)c->at;
    c->imm_size = (uint8_t)bytes;
    c->at += bytes;
    return PTC_OK;
}

/* The immediate of a one-byte or 0F opcode's kind. */
static unsigned ptc__x86_imm_bytes(const ptc__x86_cursor *c, unsigned kind)
{
    unsigned opnd = ptc__x86_operand_bits(c);
    switch (kind) {
    case PTC__X86_IB: return 1;
    case PTC__X86_IW: return 2;
    case PTC__X86_IZ: return opnd == 16 ? 2 : 4;
    case PTC__X86_IV: return opnd / 8;
    case PTC__X86_IWB: return 3;
    case PTC__X86_MOFFS: return ptc__x86_addr_bits(c) / 8;
    case PTC__X86_PTR: return (opnd == 16 ? 2 : 4) + 2;
    case PTC__X86_REL: return c->mode == 64 || opnd != 16 ? 4 : 2;
    case PTC__X86_SSE4A: return c->osz || c->rep == 0xF2 ? 2 : 0;
    default: return 0;
    }
}

/* The x87 escapes D8-DF (SDM tables A-7 to A-22): a bit per register
   form C0-FF that is no instruction, and per /reg of a memory form. */
static int ptc__x86_x87_bad(uint8_t op, uint8_t modrm)
{
    static const uint64_t register_form_bad[8] = {
        0, 0x000080cc00fe0000u, 0xfffffdff00000000u, 0xff0000e000000000u,
        0, 0xffff000000000000u, 0x00000000fd000000u, 0xff0000fe00000000u
    };
    static const uint8_t memory_form_bad[8] = { 0, 0x02, 0, 0x50, 0, 0x20, 0, 0 };
    if (modrm >= 0xC0) return (int)((register_form_bad[op - 0xD8] >> (modrm - 0xC0)) & 1);
    return (memory_form_bad[op - 0xD8] >> ((modrm >> 3) & 7)) & 1;
}

/* Opcodes of the one-byte map that are no instruction in this mode or
   with this ModRM (the SDM's opcode extension table, A-6). */
static int ptc__x86_map0_bad(const ptc__x86_cursor *c, uint8_t op, uint8_t modrm)
{
    unsigned reg = (modrm >> 3) & 7, mod = modrm >> 6;
    if (c->mode == 64) {
        switch (op) {
        case 0x06: case 0x07: case 0x0E: case 0x16: case 0x17: case 0x1E: case 0x1F: case 0x27: case 0x2F:
        case 0x37: case 0x3F: case 0x60: case 0x61: case 0x62: case 0x82: case 0x9A: case 0xC4: case 0xC5:
        case 0xCE: case 0xD4: case 0xD5: case 0xD6: case 0xEA:
            return 1;
        default: break;
        }
    }
    switch (op) {
    case 0x8C: return reg > 5;                       /* MOV r/m, Sreg */
    case 0x8E: return reg == 1 || reg > 5;           /* MOV Sreg, r/m: not CS */
    case 0x8D: case 0xC4: case 0xC5: case 0x62: return mod == 3; /* LEA, LES, LDS, BOUND */
    case 0x8F: return reg != 0;                      /* POP r/m */
    case 0xC6: return reg != 0 && modrm != 0xF8;     /* MOV r/m, imm8; XABORT */
    case 0xC7: return reg != 0 && modrm != 0xF8;     /* MOV r/m, imm; XBEGIN */
    case 0xFE: return reg > 1;                       /* INC, DEC r/m8 */
    case 0xFF: return reg == 7 || (mod == 3 && (reg == 3 || reg == 5)); /* far CALL, JMP: memory only */
    default: return op >= 0xD8 && op <= 0xDF && ptc__x86_x87_bad(op, modrm);
    }
}

/* Opcodes of the 0F map that are no instruction with this ModRM. */
static int ptc__x86_map1_bad(const ptc__x86_cursor *c, uint8_t op, uint8_t modrm)
{
    unsigned reg = (modrm >> 3) & 7, creg = reg | ((unsigned)c->rex_r << 3);
    switch (op) {
    case 0x00: return reg > 5;                       /* SLDT ... VERW */
    case 0x20: case 0x22: return !(creg == 0 || creg == 2 || creg == 3 || creg == 4 || creg == 8); /* MOV CRn */
    case 0x21: case 0x23: return c->rex_r;           /* MOV DRn: DR0-DR7 */
    case 0xAE: /* /4: XSAVE (memory, no F2 or F3), PTWRITE (F3, not 66) */
        return reg == 4 && (c->rep == 0xF2 || (c->rep == 0xF3 && c->osz) || (c->rep != 0xF3 && (modrm >> 6) == 3));
    default: return 0;
    }
}

/* LOCK is allowed only on a read-modify-write of memory (SDM LOCK). */
static int ptc__x86_lockable(const ptc__x86_cursor *c, unsigned map, uint8_t op, uint8_t modrm)
{
    unsigned reg = (modrm >> 3) & 7;
    if (!c->insn->has_modrm || (modrm >> 6) == 3) return 0;
    if (map == 0) {
        if (op < 0x40 && (op & 7) < 2 && (op & 0x38) != 0x38) return 1; /* ADD ... XOR r/m, r (not CMP) */
        switch (op) {
        case 0x80: case 0x81: case 0x82: case 0x83: return reg != 7;
        case 0x86: case 0x87: return 1;
        case 0xF6: case 0xF7: return reg == 2 || reg == 3;
        case 0xFE: case 0xFF: return reg < 2;
        default: return 0;
        }
    }
    if (map == 1) {
        switch (op) {
        case 0xAB: case 0xB3: case 0xBB: case 0xB0: case 0xB1: case 0xC0: case 0xC1: return 1;
        case 0xBA: return reg >= 5;
        case 0xC7: return reg == 1;
        default: return 0;
        }
    }
    return 0;
}

/* The one-byte and 0F maps, after the prefixes (and REX2, whose payload
   picked the map). */
static ptc_status ptc__x86_legacy(ptc__x86_cursor *c, unsigned map, int rex2)
{
    ptc_x86_insn *in = c->insn;
    ptc_status st;
    unsigned kind;
    uint8_t op;
    if (c->at >= c->end) return ptc__x86_out(c);
    op = c->code[c->at++];
    if (map == 0 && op == 0x0F && !rex2) {
        if (c->at >= c->end) return ptc__x86_out(c);
        op = c->code[c->at++];
        map = 1;
        if (op == 0x38 || op == 0x3A) {
            map = op == 0x38 ? 2 : 3;
            if (c->at >= c->end) return ptc__x86_out(c);
            op = c->code[c->at++];
        }
    }
    in->map = (uint8_t)map;
    in->opcode = op;
    if (map >= 2) { /* 0F 38 and 0F 3A: a ModRM always, 0F 3A an imm8 */
        if (!ptc__x86_in(map == 2 ? ptc__x86_exists_legacy38 : ptc__x86_exists_legacy3a, op)) return PTC_ERR_BAD_INSN;
        st = ptc__x86_modrm(c, 0);
        return st == PTC_OK && map == 3 ? ptc__x86_immediate(c, 1) : st;
    }
    kind = map == 0 ? ptc__x86_map0[op] : ptc__x86_map1[op];
    if ((kind & 15) == PTC__X86_BAD) return PTC_ERR_BAD_INSN;
    if (kind & PTC__X86_M) {
        /* MOV to and from control and debug registers: a register operand
           whatever the ModRM's mod says (SDM MOV CR, MOV DR) */
        st = ptc__x86_modrm(c, map == 1 && op >= 0x20 && op <= 0x23);
        if (st != PTC_OK) return st;
    }
    if (map == 0 ? ptc__x86_map0_bad(c, op, in->modrm) : ptc__x86_map1_bad(c, op, in->modrm)) return PTC_ERR_BAD_INSN;
    if (c->lock && !ptc__x86_lockable(c, map, op, in->modrm)) return PTC_ERR_BAD_INSN;
    kind &= 15;
    if (kind == PTC__X86_GRP3) kind = ((in->modrm >> 3) & 7) < 2 ? (op == 0xF6 ? PTC__X86_IB : PTC__X86_IZ) : 0;
    if (rex2 && c->rex_w == 0 && map == 0 && op == 0xA1) return ptc__x86_immediate(c, 8); /* JMPABS imm64 */
    return ptc__x86_immediate(c, ptc__x86_imm_bytes(c, kind));
}

/* Opcodes REX2 may not precede (APX: rows 4, 7, A and E of map 0, except
   JMPABS; rows 3 and 8 of map 1; and 0F, whose map REX2's M0 picks). */
static int ptc__x86_rex2_bad(unsigned map, uint8_t op, const ptc__x86_cursor *c)
{
    unsigned row = op >> 4;
    if (map == 0) return op == 0x0F || row == 4 || row == 7 || row == 0xE || (row == 0xA && !(op == 0xA1 && !c->rex_w));
    return row == 3 || row == 8;
}

/* REX2 (D5 and a payload; 64-bit mode only): map 0 or 1 by its M0 bit. */
static ptc_status ptc__x86_rex2(ptc__x86_cursor *c)
{
    uint8_t payload;
    unsigned map;
    ptc_status st;
    if (c->rex) return PTC_ERR_BAD_INSN;
    st = ptc__x86_need(c, 3);
    if (st != PTC_OK) return st;
    payload = c->code[c->at + 1];
    c->at += 2;
    map = payload >> 7;
    c->rex_w = (payload >> 3) & 1;
    c->rex_r = (uint8_t)((payload >> 5 & 2) | (payload >> 2 & 1)); /* R4, R3 */
    c->insn->encoding = PTC_X86_REX2;
    if (ptc__x86_rex2_bad(map, c->code[c->at], c)) return PTC_ERR_BAD_INSN;
    if (map == 0 && c->code[c->at] == 0xA1 && (c->osz || c->asz || c->rep || c->lock)) return PTC_ERR_BAD_INSN; /* JMPABS */
    return ptc__x86_legacy(c, map, 1);
}

/* The immediate of an opcode reached through VEX, EVEX or XOP. */
static unsigned ptc__x86_vex_imm(const ptc__x86_cursor *c, unsigned map, uint8_t op, uint8_t modrm)
{
    switch (map) {
    case 1: return (op >= 0x70 && op <= 0x73) || op == 0xC2 || (op >= 0xC4 && op <= 0xC6);
    case 3: return 1;
    case 4: /* APX's promoted legacy instructions (the immediates of libipt
               2.2's table, which XED generates) */
        switch (op) {
        case 0x24: case 0x2C: case 0x6B: case 0x80: case 0x83: case 0xC0: case 0xC1: case 0xD4: return 1;
        case 0x69: case 0x81: return ptc__x86_operand_bits(c) == 16 ? 2 : 4;
        case 0xF6: return ((modrm >> 3) & 7) < 2;
        case 0xF7: return ((modrm >> 3) & 7) < 2 ? (ptc__x86_operand_bits(c) == 16 ? 2 : 4) : 0;
        default: return 0;
        }
    case 7: return 4;  /* URDMSR, UWRMSR imm32 */
    case 8: return 1;  /* XOP map 8 */
    case 10: return 4; /* XOP map A */
    default: return 0;
    }
}

static int ptc__x86_vex_exists(uint8_t prefix, unsigned map, uint8_t op, unsigned mode)
{
    if ((map == 4 || map == 7) && mode != 64) return 0; /* APX and the user-MSR instructions: 64-bit mode only */
    switch (prefix) {
    case 0xC4: case 0xC5: return map == 7 ? op == 0xF8 : map >= 1 && map <= 3 && ptc__x86_in(ptc__x86_exists_vex[map], op);
    case 0x62: return map == 4 || map == 7 || (map <= 6 && ptc__x86_in(ptc__x86_exists_evex[map], op));
    default: return map >= 8 && map <= 10 && ptc__x86_in(ptc__x86_exists_xop[map - 8], op);
    }
}

/* VEX (C4, C5), EVEX (62), XOP (8F): the prefix's payload, the opcode, a
   ModRM (but VZEROUPPER and VZEROALL) and the map's immediate. 66, F2, F3,
   LOCK and REX may not come before them. */
static ptc_status ptc__x86_vex(ptc__x86_cursor *c, uint8_t prefix)
{
    const uint8_t *p = c->code + c->at + 1;
    unsigned payload = prefix == 0xC5 ? 1 : prefix == 0x62 ? 3 : 2, map;
    ptc_status st;
    uint8_t op;
    if (c->osz || c->rep || c->lock || c->rex) return PTC_ERR_BAD_INSN;
    st = ptc__x86_need(c, 1 + payload + 1);
    if (st != PTC_OK) return st;
    switch (prefix) {
    case 0xC5: map = 1; c->rex_w = 0; break;
    case 0x62: map = p[0] & 7u; c->rex_w = p[1] >> 7; break;
    default: map = p[0] & 0x1Fu; c->rex_w = p[1] >> 7; break;
    }
    c->osz = ((prefix == 0xC5 ? p[0] : p[1]) & 3) == 1; /* pp 01 stands for 66: APX's map 4 takes imm16 by it */
    c->insn->encoding = (uint8_t)(prefix == 0x62 ? PTC_X86_EVEX : prefix == 0x8F ? PTC_X86_XOP : PTC_X86_VEX);
    c->at += 1 + payload;
    op = c->code[c->at++];
    c->insn->map = (uint8_t)map;
    c->insn->opcode = op;
    if (!ptc__x86_vex_exists(prefix, map, op, c->mode)) return PTC_ERR_BAD_INSN;
    if (prefix != 0x62 && map == 1 && op == 0x77) return PTC_OK; /* VZEROUPPER, VZEROALL */
    st = ptc__x86_modrm(c, 0);
    if (st != PTC_OK) return st;
    return ptc__x86_immediate(c, ptc__x86_vex_imm(c, map, op, c->insn->modrm));
}

/* C4, C5 and 62 start VEX and EVEX in 64-bit mode, elsewhere only when the
   next byte's mod is 11 (else they are LES, LDS, BOUND); 8F starts XOP
   when the next byte's low five bits are 8 or more (else it is POP). */
static int ptc__x86_is_vex(const ptc__x86_cursor *c, uint8_t b)
{
    uint8_t next;
    if (b != 0xC4 && b != 0xC5 && b != 0x62 && b != 0x8F) return 0;
    if (c->at + 1 >= c->end) return 0;
    next = c->code[c->at + 1];
    if (b == 0x8F) return (next & 0x1F) >= 8;
    return c->mode == 64 || (next & 0xC0) == 0xC0;
}

static uint64_t ptc__x86_signed_imm(const ptc__x86_cursor *c)
{
    const uint8_t *p = c->code + c->imm_at;
    switch (c->imm_size) {
    case 1: return (uint64_t)(int64_t)(int8_t)p[0];
    case 2: return (uint64_t)(int64_t)(int16_t)(uint16_t)(p[0] | p[1] << 8);
    case 4: return (uint64_t)(int64_t)(int32_t)(uint32_t)ptc__byte_load(p, 4);
    default: return ptc__byte_load(p, 8);
    }
}

/* A near branch's target: the next IP plus the displacement, wrapped to
   the operand size (in 64-bit mode near branches are 64-bit whatever 66
   says, as Intel CPUs do). */
static uint64_t ptc__x86_branch_target(const ptc__x86_cursor *c)
{
    uint64_t next = c->insn->ip + c->insn->size, t = next + ptc__x86_signed_imm(c);
    if (c->mode == 64) return t;
    if (ptc__x86_operand_bits(c) == 16) return c->linear ? t : t & 0xFFFFu;
    return t & 0xFFFFFFFFu;
}

/* The class of an instruction of the one-byte or 0F maps (the others
   change no flow). */
static ptc_x86_class ptc__x86_classify(const ptc__x86_cursor *c)
{
    const ptc_x86_insn *in = c->insn;
    unsigned op = in->opcode, reg = (in->modrm >> 3) & 7;
    if (in->encoding != PTC_X86_LEGACY && in->encoding != PTC_X86_REX2) return PTC_X86_OTHER;
    if (in->map == 0) {
        if ((op >= 0x70 && op <= 0x7F) || (op >= 0xE0 && op <= 0xE3)) return PTC_X86_JCC;
        switch (op) {
        case 0xEB: case 0xE9: return PTC_X86_JMP;
        case 0xA1: return in->encoding == PTC_X86_REX2 ? PTC_X86_JMP : PTC_X86_OTHER; /* JMPABS */
        case 0xE8: return PTC_X86_CALL;
        case 0xC2: case 0xC3: return PTC_X86_RET;
        case 0xCA: case 0xCB: return PTC_X86_FAR_RET;
        case 0xCF: return PTC_X86_IRET;
        case 0x9A: return PTC_X86_FAR_CALL;
        case 0xEA: return PTC_X86_FAR_JMP;
        case 0xCC: case 0xCD: case 0xCE: case 0xF1: return PTC_X86_INT;
        case 0xFF: return reg == 2 ? PTC_X86_CALL_IND : reg == 3 ? PTC_X86_FAR_CALL : reg == 4 ? PTC_X86_JMP_IND
                          : reg == 5 ? PTC_X86_FAR_JMP : PTC_X86_OTHER;
        case 0xC6: case 0xC7: return in->modrm == 0xF8 ? PTC_X86_TSX : PTC_X86_OTHER;
        case 0x6C: case 0x6D: case 0x6E: case 0x6F: case 0xA4: case 0xA5: case 0xA6: case 0xA7:
        case 0xAA: case 0xAB: case 0xAC: case 0xAD: case 0xAE: case 0xAF:
            return c->rep ? PTC_X86_REP : PTC_X86_OTHER;
        default: return PTC_X86_OTHER;
        }
    }
    if (in->map != 1) return PTC_X86_OTHER;
    if (op >= 0x80 && op <= 0x8F) return PTC_X86_JCC;
    switch (op) {
    case 0xA6: case 0xA7: return c->rep == 0xF3 ? PTC_X86_REP : PTC_X86_OTHER; /* VIA PadLock's REP XSHA*, XCRYPT* */
    case 0x05: case 0x34: return PTC_X86_SYSCALL;
    case 0x07: case 0x35: return PTC_X86_SYSRET;
    case 0x22: return reg == 3 && !c->rex_r ? PTC_X86_MOV_CR3 : PTC_X86_OTHER;
    case 0xC7: return reg == 6 && (in->modrm >> 6) != 3 && !c->osz && !c->rep ? PTC_X86_VMPTRLD : PTC_X86_OTHER;
    case 0xAE: return reg == 4 && c->rep == 0xF3 && !c->osz ? PTC_X86_PTWRITE : PTC_X86_OTHER; /* PTWRITE r/m */
    case 0x01:
        switch (in->modrm) {
        case 0xC1: return PTC_X86_VMCALL;
        case 0xC2: case 0xC3: return PTC_X86_VM_ENTRY;
        case 0xD5: return PTC_X86_TSX;                        /* XEND */
        case 0xEC: return c->rep == 0xF3 ? PTC_X86_IRET : PTC_X86_OTHER; /* UIRET */
        case 0xCA: return c->rep ? PTC_X86_IRET : PTC_X86_OTHER;         /* ERETS (F2), ERETU (F3) */
        default: return PTC_X86_OTHER;
        }
    default: return PTC_X86_OTHER;
    }
}

/* ptc_x86_decode; with `linear`, ip is a linear address (the flow
   decoder's): CS.base + IP, the base unknown. A 16-bit operand's target
   then keeps the bits above 16 (as libipt's decoder does): wrapping the
   linear address would drop the base, which real-mode code has. */
static ptc_status ptc__x86_decode(const uint8_t *code, size_t size, ptc_x86_mode mode, uint64_t ip, ptc_x86_insn *insn,
                                  int linear)
{
    ptc__x86_cursor c;
    ptc_status st;
    uint8_t b;
    if (!insn) return PTC_ERR_BAD_ARGUMENT;
    memset(insn, 0, sizeof *insn);
    memset(&c, 0, sizeof c);
    c.linear = (uint8_t)linear;
    insn->ip = ip;
    insn->mode = (uint8_t)mode;
    if (!code || (mode != PTC_X86_16 && mode != PTC_X86_32 && mode != PTC_X86_64)) return PTC_ERR_BAD_ARGUMENT;
    c.code = code;
    c.end = size < 15 ? size : 15;
    c.cut_is_bad = size >= 15;
    c.mode = (unsigned)mode;
    c.insn = insn;
    st = ptc__x86_prefixes(&c);
    if (st == PTC_OK) {
        b = code[c.at];
        c.rex_w = (uint8_t)((c.rex >> 3) & 1);
        c.rex_r = (uint8_t)((c.rex >> 2) & 1);
        if (c.mode == 64 && b == 0xD5) st = ptc__x86_rex2(&c);
        else if (ptc__x86_is_vex(&c, b)) st = ptc__x86_vex(&c, b);
        else st = ptc__x86_legacy(&c, 0, 0);
    }
    if (st != PTC_OK) {
        uint8_t keep_mode = insn->mode;
        memset(insn, 0, sizeof *insn);
        insn->ip = ip;
        insn->mode = keep_mode;
        return st;
    }
    insn->size = (uint8_t)c.at;
    insn->iclass = (uint8_t)ptc__x86_classify(&c);
    switch (insn->iclass) {
    case PTC_X86_JCC: case PTC_X86_CALL: insn->target = ptc__x86_branch_target(&c); break;
    case PTC_X86_JMP: /* JMPABS's is absolute */
        insn->target = insn->opcode == 0xA1 ? ptc__byte_load(code + c.imm_at, 8) : ptc__x86_branch_target(&c);
        break;
    case PTC_X86_TSX: /* XBEGIN's fallback */
        if (insn->opcode == 0xC7) insn->target = ptc__x86_branch_target(&c);
        break;
    default: break;
    }
    return PTC_OK;
}

PTCDEF ptc_status ptc_x86_decode(const uint8_t *code, size_t size, ptc_x86_mode mode, uint64_t ip, ptc_x86_insn *insn)
{
    return ptc__x86_decode(code, size, mode, ip, insn, 0);
}

PTCDEF const char *ptc_x86_class_name(ptc_x86_class iclass)
{
    static const char *const names[] = {
#define PTC__X(e, n, w) n,
        PTC_X86_CLASS_LIST(PTC__X)
#undef PTC__X
    };
    return (unsigned)iclass < PTC_X86_CLASS_COUNT ? names[iclass] : "unknown";
}

/* ---- 9.2 Memory images ------------------------------------------------ */

/* The first section that ends above addr (the sections are sorted and
   disjoint): it holds addr when it starts at or below it. */
static size_t ptc__img_find(const ptc_image *img, uint64_t addr)
{
    size_t lo = 0, hi = img->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ptc_image_section *s = &img->sections[mid];
        if (s->base + s->size <= addr) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Whether any section holds a byte of [base, end). */
static int ptc__img_overlaps(const ptc_image *img, uint64_t base, uint64_t end)
{
    size_t i = ptc__img_find(img, base);
    return i < img->count && img->sections[i].base < end;
}

PTCDEF void ptc_image_init(ptc_image *img, ptc_image_section *storage, size_t capacity)
{
    if (!img) return;
    memset(img, 0, sizeof *img);
    img->sections = storage;
    img->capacity = storage ? capacity : 0;
}

PTCDEF ptc_status ptc_image_add(ptc_image *img, uint64_t base, const uint8_t *bytes, uint64_t size)
{
    ptc_image_section *s, head, tail;
    size_t first, last, inserted, i;
    int keep_head, keep_tail;
    uint64_t end = base + size;
    if (!img || (!bytes && size)) return PTC_ERR_BAD_ARGUMENT;
    if (!size) return PTC_OK;
    if (end < base || end == 0) return PTC_ERR_BAD_IMAGE;
    s = img->sections;
    /* the sections it overlaps are [first, last); the first may keep its
       part before base, the last its part from end */
    first = ptc__img_find(img, base);
    for (last = first; last < img->count && s[last].base < end; last++) {}
    keep_head = first < last && s[first].base < base;
    keep_tail = first < last && s[last - 1].base + s[last - 1].size > end;
    inserted = 1 + (size_t)keep_head + (size_t)keep_tail;
    if (img->count - (last - first) + inserted > img->capacity) return PTC_ERR_NO_SPACE;
    if (keep_head) {
        head = s[first];
        head.size = base - head.base;
    }
    if (keep_tail) {
        uint64_t cut;
        tail = s[last - 1];
        cut = end - tail.base;
        tail.base = end;
        tail.bytes += (size_t)cut;
        tail.size -= cut;
    }
    memmove(&s[first + inserted], &s[last], (img->count - last) * sizeof *s);
    i = first;
    if (keep_head) s[i++] = head;
    s[i].base = base;
    s[i].size = size;
    s[i].bytes = bytes;
    if (keep_tail) s[i + 1] = tail;
    img->count = img->count - (last - first) + inserted;
    img->generation++;
    return PTC_OK;
}

PTCDEF size_t ptc_image_read(const ptc_image *img, uint64_t addr, uint8_t *buf, size_t n)
{
    size_t i, done = 0;
    if (!img || !buf || !n) return 0;
    i = ptc__img_find(img, addr);
    if (i >= img->count || img->sections[i].base > addr) return img->read ? img->read(img->ctx, addr, buf, n) : 0;
    while (done < n && i < img->count) {
        const ptc_image_section *s = &img->sections[i];
        uint64_t at = addr + done, off, left;
        size_t k;
        if (at < addr || s->base > at) break; /* wrapped, or a gap */
        off = at - s->base;
        left = s->size - off;
        k = n - done < left ? n - done : (size_t)left;
        memcpy(buf + done, s->bytes + off, k);
        done += k;
        i++;
    }
    return done;
}

/* An ELF file's program headers: where they are, how many, and how to
   read one (the offsets of p_type, p_offset, p_vaddr and p_filesz, and
   their width). */
typedef struct ptc__img_elf {
    uint64_t phoff;
    size_t phentsize, phnum;
    unsigned word;  /* 4 (ELF32) or 8 (ELF64) */
    unsigned at_offset, at_vaddr, at_filesz;
} ptc__img_elf;

static ptc_status ptc__img_elf_header(const uint8_t *f, size_t size, ptc__img_elf *e)
{
    static const uint8_t magic[4] = { 0x7F, 'E', 'L', 'F' };
    int is64;
    if (size < 52 || memcmp(f, magic, 4) != 0 || (f[4] != 1 && f[4] != 2)) return PTC_ERR_BAD_IMAGE;
    if (f[5] == 2) return PTC_ERR_UNSUPPORTED; /* big-endian */
    if (f[5] != 1) return PTC_ERR_BAD_IMAGE;
    is64 = f[4] == 2;
    if (is64 && size < 64) return PTC_ERR_BAD_IMAGE;
    e->word = is64 ? 8 : 4;
    e->phoff = is64 ? ptc__byte_load(f + 32, 8) : ptc__byte_load(f + 28, 4);
    e->phentsize = (size_t)ptc__byte_load(f + (is64 ? 54 : 42), 2);
    e->phnum = (size_t)ptc__byte_load(f + (is64 ? 56 : 44), 2);
    e->at_offset = is64 ? 8 : 4;
    e->at_vaddr = is64 ? 16 : 8;
    e->at_filesz = is64 ? 32 : 16;
    if (e->phnum && (e->phentsize < (is64 ? 56u : 32u) || e->phoff > size || e->phnum > (size - e->phoff) / e->phentsize))
        return PTC_ERR_BAD_IMAGE;
    return PTC_OK;
}

/* Program header k: whether it is a PT_LOAD with file bytes, and where. */
static int ptc__img_elf_load(const uint8_t *f, const ptc__img_elf *e, size_t k, uint64_t *offset, uint64_t *vaddr,
                             uint64_t *filesz)
{
    const uint8_t *ph = f + (size_t)e->phoff + k * e->phentsize;
    if (ptc__byte_load(ph, 4) != 1) return 0; /* PT_LOAD */
    *offset = ptc__byte_load(ph + e->at_offset, e->word);
    *vaddr = ptc__byte_load(ph + e->at_vaddr, e->word);
    *filesz = ptc__byte_load(ph + e->at_filesz, e->word);
    return 1;
}

PTCDEF ptc_status ptc_image_add_elf(ptc_image *img, const uint8_t *file, size_t size, uint64_t base)
{
    ptc__img_elf e;
    uint64_t offset, vaddr, filesz, lowest = UINT64_MAX, shift = 0;
    size_t k;
    ptc_status st;
    if (!img || !file) return PTC_ERR_BAD_ARGUMENT;
    st = ptc__img_elf_header(file, size, &e);
    if (st != PTC_OK) return st;
    /* every segment checked before any is added */
    for (k = 0; k < e.phnum; k++) {
        if (!ptc__img_elf_load(file, &e, k, &offset, &vaddr, &filesz)) continue;
        if (vaddr < lowest) lowest = vaddr;
        if (offset > size || filesz > size - offset) return PTC_ERR_BAD_IMAGE;
    }
    if (base && lowest != UINT64_MAX) shift = base - lowest;
    for (k = 0; k < e.phnum; k++) {
        if (!ptc__img_elf_load(file, &e, k, &offset, &vaddr, &filesz) || !filesz) continue;
        st = ptc_image_add(img, vaddr + shift, file + (size_t)offset, filesz);
        if (st != PTC_OK) return st;
    }
    return PTC_OK;
}

enum { PTC__IMG_PAGE = 4096 };

PTCDEF ptc_status ptc_image_add_pagecache(ptc_image *img, const uint8_t *addr, size_t addr_size, const uint8_t *dump,
                                          size_t dump_size)
{
    size_t pages, i;
    if (!img || (!addr && addr_size) || (!dump && dump_size)) return PTC_ERR_BAD_ARGUMENT;
    if (addr_size % 8) return PTC_ERR_BAD_IMAGE;
    pages = addr_size / 8;
    /* every mapped page's bytes are there, before any is added */
    for (i = 0; i < pages; i++)
        if (!(ptc__byte_load(addr + 8 * i, 8) & 0xFFF) && i >= dump_size / PTC__IMG_PAGE) return PTC_ERR_BAD_IMAGE;
    for (i = 0; i < pages;) {
        uint64_t page = ptc__byte_load(addr + 8 * i, 8), next;
        size_t run = 1;
        ptc_status st;
        if ((page & 0xFFF) || page > UINT64_MAX - PTC__IMG_PAGE || ptc__img_overlaps(img, page, page + PTC__IMG_PAGE)) {
            i++;
            continue;
        }
        /* the pages right after it, in both files */
        while (i + run < pages && (next = ptc__byte_load(addr + 8 * (i + run), 8)) == page + (uint64_t)run * PTC__IMG_PAGE &&
               next <= UINT64_MAX - PTC__IMG_PAGE && !ptc__img_overlaps(img, next, next + PTC__IMG_PAGE))
            run++;
        st = ptc_image_add(img, page, dump + i * PTC__IMG_PAGE, (uint64_t)run * PTC__IMG_PAGE);
        if (st != PTC_OK) return st;
        i += run;
    }
    return PTC_OK;
}

/* ---- 9.3 The flow decoder ---------------------------------------------- */

static uint8_t ptc__flow_mode_of(const ptc_packet *p)
{
    return (uint8_t)(p->u.mode_exec.csl ? PTC_X86_64 : p->u.mode_exec.csd ? PTC_X86_32 : PTC_X86_16);
}

/* Everything the trace said is forgotten (an OVF, an error): tracing is
   off until the packets say where it is again. A MODE.Exec not yet used
   stays: the mode it gives is still the last one known (libipt's too). */
static void ptc__flow_forget(ptc_flow *f)
{
    f->at.enabled = 0;
    f->tnt.count = 0;
    f->tnt.bits = 0;
    f->calls.depth = 0;
    f->ahead.have = 0;
    f->ahead.skip_fup = 0;
}

/* The packet that steers next is held: an IP packet's type and IP, or an
   OVF's. */
static void ptc__flow_hold(ptc_flow *f, uint8_t type, uint64_t ip, int ip_known)
{
    f->ahead.type = type;
    f->ahead.ip = ip;
    f->ahead.ip_known = (uint8_t)ip_known;
    f->ahead.have = 1;
    f->ahead.psb_fup = 0;
}

/* A PSB+: its MODE.Exec and its FUP (tracing is on at that IP), up to its
   PSBEND or an OVF. Without a FUP tracing is off there. */
static ptc_status ptc__flow_psb(ptc_flow *f)
{
    ptc_item it;
    for (;;) {
        ptc_status st = ptc_decoder_next(&f->dec, &it);
        if (st == PTC_END) f->at.ended = 1;
        if (st != PTC_OK) return st;
        f->last_offset = it.offset; /* an error's too: it is where the error is */
        if (it.error != PTC_OK) return it.error;
        switch (it.pkt.type) {
        case PTC_PSBEND:
            if (!f->ahead.have) f->at.enabled = 0;
            return PTC_OK;
        case PTC_MODE_EXEC:
            f->ahead.mode = ptc__flow_mode_of(&it.pkt);
            f->ahead.have_mode = 1;
            break;
        case PTC_FUP:
            ptc__flow_hold(f, PTC_FUP, it.ip, it.ip_known);
            f->ahead.psb_fup = 1;
            break;
        case PTC_OVF: /* it ends the PSB+: the FUP after it says where tracing resumes */
            ptc__flow_hold(f, PTC_OVF, 0, 0);
            return PTC_OK;
        default: break;
        }
    }
}

/* What a packet read does to the flow: TNT bits are kept in f->tnt; a
   TIP, TIP.PGE, TIP.PGD, FUP (but a FUP a PTW, EXSTOP, ... announced) or
   OVF is held in f->ahead; the rest steer nothing here. */
static void ptc__flow_take_packet(ptc_flow *f, uint8_t type, uint64_t value, uint8_t info)
{
    switch (type) {
    case PTC_TNT8: case PTC_TNT64:
        f->tnt.bits = value;
        f->tnt.count = info;
        break;
    case PTC_FUP:
        if (f->ahead.skip_fup) {
            f->ahead.skip_fup = 0;
            break;
        }
        /* fall through */
    case PTC_TIP: case PTC_TIP_PGE: case PTC_TIP_PGD: case PTC_OVF:
        ptc__flow_hold(f, type, value, (info & PTC_RECORD_IP_KNOWN) != 0);
        break;
    default: break;
    }
}

/* ptc__flow_fill's common case: the packets the batch loop's reader
   takes (PAD, TNT-8, the IP packets, MTC, TSC, CYC), read straight from
   the buffer until one steers the flow. Stops with nothing read at the
   first other packet, where ptc__flow_fill goes on: a trace's packets
   cost the flow a few nanoseconds each rather than a decoder item each
   (bench/README.md). A run of PADs (a third of the bytes of libxdc's
   traces) is stepped over at once. */
static void ptc__flow_fill_fast(ptc_flow *f)
{
    while (!f->tnt.count && !f->ahead.have) {
        const uint8_t *p = ptc__bat_fast_at(&f->dec);
        uint64_t value = 0;
        uint8_t type, info = 0, size = 0;
        if (!p) return;
        if (*p == PTC_OP_PAD) {
            size_t n = 1, left = f->dec.chunk_len - (size_t)(f->dec.pos - f->dec.chunk_off);
            if (f->dec.end_off - f->dec.pos < left) left = (size_t)(f->dec.end_off - f->dec.pos);
            while (n < left && p[n] == PTC_OP_PAD) n++;
            f->last_offset = f->dec.pos + n - 1;
            f->dec.pos += n;
            f->packets += n;
            continue;
        }
        type = ptc__bat_fast_one(p, f->dec.flags, &f->dec.last_ip, &f->dec.last_ip_known, &value, &info, &size);
        if (!type) return;
        f->last_offset = f->dec.pos;
        f->dec.pos += size;
        f->packets++;
        ptc__flow_take_packet(f, type, value, info);
    }
}

/* Reads packets until one steers the flow: TNT bits (kept in f->tnt), or
   a TIP, TIP.PGE, TIP.PGD, FUP, OVF or a PSB+'s FUP (kept in f->ahead).
   Does nothing while bits or a packet are held. PTC_END at the end. */
static ptc_status ptc__flow_fill(ptc_flow *f)
{
    ptc_item it;
    ptc_record rec;
    for (;;) {
        ptc_status st;
        ptc__flow_fill_fast(f);
        if (f->tnt.count || f->ahead.have) return PTC_OK;
        st = f->at.ended ? PTC_END : ptc_decoder_next(&f->dec, &it);
        if (st == PTC_END) f->at.ended = 1; /* and stays: the stream decoder is done */
        if (st != PTC_OK) return st;
        f->last_offset = it.offset;
        if (it.error != PTC_OK) return it.error;
        f->packets++;
        switch (it.pkt.type) {
        case PTC_MODE_EXEC:
            f->ahead.mode = ptc__flow_mode_of(&it.pkt);
            f->ahead.have_mode = 1;
            break;
        /* a MODE.TSX's FUP is an event only for an abort (its TIP follows);
           a transaction's begin or commit is a status update there */
        case PTC_MODE_TSX: f->ahead.skip_fup = !it.pkt.u.mode_tsx.abrt; break;
        case PTC_PTW: f->ahead.skip_fup = it.pkt.u.ptw.ip; break;
        case PTC_EXSTOP: f->ahead.skip_fup = it.pkt.u.exstop.ip; break;
        case PTC_BEP: f->ahead.skip_fup = it.pkt.u.bep.ip; break;
        case PTC_CFE: f->ahead.skip_fup = it.pkt.u.cfe.ip; break;
        case PTC_PSB:
            st = ptc__flow_psb(f);
            if (st != PTC_OK) return st;
            break;
        default:
            /* its value and info as the fast reader gives them: a record's */
            rec.value = 0;
            rec.info = 0;
            ptc__bat_fields(&rec, &it);
            ptc__flow_take_packet(f, (uint8_t)it.pkt.type, rec.value, rec.info);
            break;
        }
    }
}

/* The held packet is used: an IP packet moves execution to its IP, in the
   mode a MODE.Exec before it gave. */
static void ptc__flow_take_ip(ptc_flow *f)
{
    f->packets++;
    f->at.ip = f->ahead.ip;
    if (f->ahead.have_mode) f->at.mode = f->ahead.mode;
    f->ahead.have_mode = 0;
    f->ahead.have = 0;
}

/* Tracing is off: reads on until it is on again (a TIP.PGE, a PSB+ with
   its FUP, a FUP after an OVF). After an error, only a PSB+ will do. */
static ptc_status ptc__flow_resume(ptc_flow *f)
{
    while (!f->at.enabled) {
        ptc_status st;
        f->tnt.count = 0; /* bits while off are no branch of the code's */
        st = ptc__flow_fill(f);
        if (st != PTC_OK) return st;
        if (!f->ahead.have) continue;
        switch (f->ahead.type) {
        case PTC_OVF:
            ptc__flow_forget(f);
            f->at.lost = 0;
            f->at.after_ovf = 1;
            break;
        case PTC_TIP_PGE: case PTC_FUP:
            /* a FUP turns tracing on only as a PSB+'s or right after an
               OVF; after an error, only a PSB+ will do */
            if ((f->ahead.type == PTC_FUP && !f->ahead.psb_fup && !f->at.after_ovf) ||
                (f->at.lost && !f->ahead.psb_fup) || !f->ahead.ip_known) {
                f->ahead.have = 0;
                break;
            }
            ptc__flow_take_ip(f);
            f->at.enabled = 1;
            f->at.resumed = 1;
            f->at.lost = 0;
            f->at.after_ovf = 0;
            break;
        default: f->ahead.have = 0; break; /* a TIP or TIP.PGD while off */
        }
    }
    return PTC_OK;
}

/* A conditional branch's bit, or a compressed RET's: 1 taken, 0 not, -1
   none (*pgd set when a TIP.PGD stands there: tracing stopped at it). */
static int ptc__flow_tnt_bit(ptc_flow *f, int *pgd)
{
    *pgd = 0;
    if (f->tnt.count) {
        f->tnt.count--;
        f->packets++;
        return (int)((f->tnt.bits >> f->tnt.count) & 1);
    }
    *pgd = f->ahead.have && f->ahead.type == PTC_TIP_PGD;
    return -1;
}

/* The held TIP.PGD is used: tracing stopped, at its IP when it has one. */
static void ptc__flow_stop(ptc_flow *f)
{
    f->ahead.have = 0;
    f->at.enabled = 0;
    f->at.stopped = 1;
    f->at.stopped_at = f->ahead.ip_known ? f->ahead.ip : 0;
}

/* A TIP.PGD is held with no TNT bit before it: the next instruction that
   can disable tracing takes it. With its IP, that is where execution
   reaches the IP (a direct JMP or CALL, or the code itself, leaving the
   IP filter ranges: SDM 36.2.5.5); without, an instruction that changes
   CR3 or the CPL (a context left), or a far transfer; with erratum SKL014
   also a direct branch leaving the ranges. */
static int ptc__flow_pgd_next(const ptc_flow *f, int with_ip)
{
    return !f->tnt.count && f->ahead.have && f->ahead.type == PTC_TIP_PGD && f->ahead.ip_known == with_ip;
}

/* Erratum SKL014 (PTC_ERRATUM_SKL014, with the filter ranges known): a
   direct branch to ip leaves the ranges, and a TIP.PGD without its IP is
   held for it. */
static int ptc__flow_skl014_stops(const ptc_flow *f, uint64_t ip)
{
    return f->skl014_filters.count && ptc__flow_pgd_next(f, 0) && !ptc__trace_filter_en(&f->skl014_filters, ip);
}

/* A TIP.PGD with its IP is held for the IP execution is at: tracing
   stopped there. */
static int ptc__flow_pgd_here(const ptc_flow *f)
{
    return ptc__flow_pgd_next(f, 1) && f->ahead.ip == f->at.ip;
}

/* Where an indirect branch or a far transfer went: its TIP, or a TIP.PGD
   (tracing stopped there). NO_TIP for anything else. */
static ptc_status ptc__flow_tip(ptc_flow *f)
{
    if (f->tnt.count || !f->ahead.have) return PTC_ERR_NO_TIP;
    switch (f->ahead.type) {
    case PTC_TIP:
        if (!f->ahead.ip_known) return PTC_ERR_NO_TIP;
        ptc__flow_take_ip(f);
        return PTC_OK;
    case PTC_TIP_PGD: /* a MODE.Exec before it stays for the next IP */
        ptc__flow_stop(f);
        return PTC_OK;
    default: return PTC_ERR_NO_TIP;
    }
}

/* A CALL's return address, for RET compression: the oldest is lost past
   PTC_FLOW_CALL_DEPTH. */
static void ptc__flow_push(ptc_flow *f, uint64_t ip)
{
    f->calls.ip[f->calls.top] = ip;
    f->calls.top = (uint8_t)((f->calls.top + 1) % PTC_FLOW_CALL_DEPTH);
    if (f->calls.depth < PTC_FLOW_CALL_DEPTH) f->calls.depth++;
}

/* Execution at insn: where it goes next, by its class and the packets. */
static ptc_status ptc__flow_step(ptc_flow *f, const ptc_x86_insn *in)
{
    uint64_t next = in->ip + in->size;
    int bit, pgd;
    ptc_status st;
    switch ((ptc_x86_class)in->iclass) {
    case PTC_X86_JCC:
        if (!f->tnt.count && (st = ptc__flow_fill(f)) != PTC_OK) return st;
        bit = ptc__flow_tnt_bit(f, &pgd);
        if (bit < 0 && pgd) { /* it left the filter: TIP.PGD, with or without its IP */
            ptc__flow_stop(f);
            return PTC_OK;
        }
        if (bit < 0) return PTC_ERR_NO_TNT;
        f->at.ip = bit ? in->target : next;
        return PTC_OK;
    case PTC_X86_JMP:
        f->at.ip = in->target;
        if (ptc__flow_skl014_stops(f, in->target)) ptc__flow_stop(f);
        return PTC_OK;
    case PTC_X86_CALL: case PTC_X86_CALL_IND:
        ptc__flow_push(f, next);
        if (in->iclass == PTC_X86_CALL) {
            f->at.ip = in->target;
            if (ptc__flow_skl014_stops(f, in->target)) ptc__flow_stop(f);
            return PTC_OK;
        }
        break;
    case PTC_X86_MOV_CR3: /* a context left: a TIP.PGD without its IP binds here */
        f->at.ip = next;
        if (ptc__flow_pgd_next(f, 0)) ptc__flow_stop(f);
        return PTC_OK;
    case PTC_X86_RET:
        if (!f->tnt.count && (st = ptc__flow_fill(f)) != PTC_OK) return st;
        if (f->tnt.count) { /* compressed: a taken bit, to the last call's return */
            bit = ptc__flow_tnt_bit(f, &pgd);
            if (!bit || !f->calls.depth) return PTC_ERR_BAD_RET;
            f->calls.top = (uint8_t)((f->calls.top + PTC_FLOW_CALL_DEPTH - 1) % PTC_FLOW_CALL_DEPTH);
            f->calls.depth--;
            f->at.ip = f->calls.ip[f->calls.top];
            return PTC_OK;
        }
        break;
    case PTC_X86_JMP_IND: case PTC_X86_FAR_JMP: case PTC_X86_FAR_CALL: case PTC_X86_FAR_RET: case PTC_X86_IRET:
    case PTC_X86_INT: case PTC_X86_SYSCALL: case PTC_X86_SYSRET: case PTC_X86_VMCALL: case PTC_X86_VM_ENTRY:
        break;
    default: /* no change of flow */
        f->at.ip = next;
        return PTC_OK;
    }
    if (!f->tnt.count && (st = ptc__flow_fill(f)) != PTC_OK) return st;
    return ptc__flow_tip(f);
}

/* Before the instruction at the current IP: a FUP held for this IP is an
   asynchronous event there (the instruction did not run: its TIP or
   TIP.PGD says where execution went), or a PSB+'s FUP (the trace says
   where it is: nothing happens). Returns 1 when one was taken. */
static int ptc__flow_event_here(ptc_flow *f, ptc_status *st)
{
    *st = PTC_OK;
    if (!f->ahead.have || f->ahead.type != PTC_FUP || f->ahead.ip != f->at.ip) return 0;
    f->ahead.have = 0;
    if (f->ahead.psb_fup) return 1;
    *st = ptc__flow_fill(f);
    if (*st != PTC_OK) return 1; /* PTC_END: where the event went, the trace does not say */
    *st = ptc__flow_tip(f);
    return 1;
}

/* Whether execution is back at the IP the cycle finder keeps with no
   packet used since it looked (ptc__flow_loops), without moving it. */
static int ptc__flow_cycle_here(const ptc_flow *f)
{
    return f->loop.packets == f->packets && f->loop.power && f->at.ip == f->loop.ip;
}

/* Whether execution came back to an IP it was at with no packet used in
   between (Brent's cycle finder, restarted at every packet used): a loop
   the held packet, for another IP, never ends. Without the check a
   mismatched trace would make the decoder give instructions forever. */
static int ptc__flow_loops(ptc_flow *f)
{
    if (ptc__flow_cycle_here(f)) return 1;
    if (f->loop.packets != f->packets || !f->loop.power) {
        f->loop.packets = f->packets;
        f->loop.ip = f->at.ip;
        f->loop.power = 1;
        f->loop.steps = 0;
        return 0;
    }
    if (++f->loop.steps == f->loop.power) {
        f->loop.ip = f->at.ip;
        f->loop.power = f->loop.power < 0x40000000u ? f->loop.power * 2 : f->loop.power;
        f->loop.steps = 0;
    }
    return 0;
}

PTCDEF ptc_status ptc_flow_init(ptc_flow *f, const ptc_trace_config *trace, const ptc_image *image, const uint8_t *buf,
                                size_t len)
{
    if (!f || !image || (!buf && len)) return PTC_ERR_BAD_ARGUMENT;
    if (trace && ptc_trace_config_error(trace)) return PTC_ERR_BAD_CONFIG;
    memset(f, 0, sizeof *f);
    f->image = image;
    f->at.mode = PTC_X86_64;
    if (trace && (trace->known & PTC_KNOW_FILTERS) && (trace->errata & PTC_ERRATUM_SKL014)) f->skl014_filters = trace->filters;
    ptc_decoder_init_buffer(&f->dec, trace ? ptc_errata_decode_flags(trace->errata) : 0, buf, len);
    return PTC_OK;
}

/* Before a block: tracing is on and the packets that steer it are read
   (with none left, the code runs on); an OVF, a TIP.PGE, or an event at
   the current IP is taken. PTC_END (and the flow finished) when tracing is
   off and no packet is left, or an event's TIP is cut off by the end. */
static ptc_status ptc__flow_ready(ptc_flow *f)
{
    ptc_status st;
    for (;;) {
        if (!f->at.enabled) {
            st = ptc__flow_resume(f);
            if (st == PTC_END) f->at.finished = 1;
            if (st != PTC_OK) return st;
        }
        if (!f->tnt.count) {
            st = ptc__flow_fill(f);
            /* no packet left: the code runs on (as libipt's decoder has it)
               up to the first instruction that needs a packet */
            if (st != PTC_OK && st != PTC_END) return st;
        }
        if (f->ahead.have && f->ahead.type == PTC_OVF) {
            ptc__flow_forget(f);
            f->at.after_ovf = 1;
            continue;
        }
        /* a TIP.PGE while tracing is on: tracing (re)starts at its IP. KVM
           tracers write one right after a PSB+ that said tracing was on,
           at the same IP (libxdc's traces; SPEC 9.3) */
        if (f->ahead.have && f->ahead.type == PTC_TIP_PGE && !f->tnt.count) {
            if (f->ahead.ip_known) {
                ptc__flow_take_ip(f);
                f->at.resumed = 1;
            } else {
                f->ahead.have = 0;
            }
            continue;
        }
        /* a TIP.PGD for this IP, read only now: tracing stops here */
        if (ptc__flow_pgd_here(f)) {
            ptc__flow_stop(f);
            continue;
        }
        if (!f->tnt.count && ptc__flow_event_here(f, &st)) {
            if (st == PTC_END) f->at.finished = 1;
            if (st != PTC_OK) return st;
            continue;
        }
        return PTC_OK;
    }
}

/* The block at ip in mode, decoded: up to PTC_FLOW_BLOCK_MAX instructions,
   the last the first of a class other than `other`, or the last before
   one that cannot be decoded. The error of the first when none can. */
static ptc_status ptc__flow_decode_block(const ptc_image *img, uint64_t ip, uint8_t mode, ptc_flow_cached_block *b)
{
    uint8_t code[15];
    ptc_x86_insn in;
    ptc_status st = PTC_OK;
    memset(b, 0, sizeof *b);
    b->ip = ip;
    b->mode = mode;
    while (b->count < PTC_FLOW_BLOCK_MAX) {
        size_t n = ptc_image_read(img, ip, code, sizeof code);
        st = n ? ptc__x86_decode(code, n, (ptc_x86_mode)mode, ip, &in, 1) : PTC_ERR_NO_CODE;
        if (st == PTC_ERR_CUT_INSN) st = PTC_ERR_NO_CODE;
        if (st != PTC_OK) break;
        b->sizes |= (uint64_t)in.size << (4 * b->count);
        b->last = (uint8_t)(ip - b->ip);
        b->count++;
        b->end_class = in.iclass;
        b->target = in.target;
        if (in.iclass != PTC_X86_OTHER) break;
        ip += in.size;
    }
    return b->count ? PTC_OK : st;
}

/* What tells an image's sections from another's: a hash of each one's
   address, size and bytes pointer, and of the callback's context. */
static uint64_t ptc__flow_fingerprint(const ptc_image *img)
{
    uint64_t h = 0xCBF29CE484222325ull ^ (uint64_t)(uintptr_t)img->ctx ^ (img->read ? 1u : 0u);
    size_t i;
    for (i = 0; i < img->count; i++) {
        const ptc_image_section *s = &img->sections[i];
        h = (h ^ s->base) * 0x100000001B3ull;
        h = (h ^ s->size) * 0x100000001B3ull;
        h = (h ^ (uint64_t)(uintptr_t)s->bytes) * 0x100000001B3ull;
    }
    return h;
}

/* The cache is for img from now on: emptied unless it was for the same
   sections. */
static void ptc__flow_cache_take(ptc_flow_cache *c, const ptc_image *img)
{
    uint64_t fingerprint = ptc__flow_fingerprint(img);
    if (c->image != img || c->generation != img->generation || c->fingerprint != fingerprint) ptc_flow_cache_clear(c);
    c->image = img;
    c->generation = img->generation;
    c->fingerprint = fingerprint;
}

/* Before a lookup: the cache empties itself when it was for another
   image or generation (ptc__flow_cache_take). */
static void ptc__flow_cache_check(ptc_flow_cache *c, const ptc_image *img)
{
    if (c->image != img || c->generation != img->generation) ptc__flow_cache_take(c, img);
}

/* The slot of the block at ip: the multiplicative hash's high bits. */
static size_t ptc__flow_slot(const ptc_flow_cache *c, uint64_t ip)
{
    return (size_t)((ip * 0x9E3779B97F4A7C15ull) >> 32) & c->mask;
}

/* The cache's block at the current IP and mode, or NULL. Two ways a set:
   a block found in the second moves to the first, a new one goes to the
   first and pushes the first to the second, so two blocks that hash alike
   (a loop's two ends) both stay. */
static const ptc_flow_cached_block *ptc__flow_cached(ptc_flow_cache *c, const ptc_flow *f)
{
    ptc_flow_cached_block *set = &c->blocks[ptc__flow_slot(c, f->at.ip) & ~(size_t)1];
    int way;
    for (way = 0; way < 2; way++) {
        if (set[way].stamp == c->stamp && set[way].ip == f->at.ip && set[way].mode == f->at.mode) {
            c->hits++;
            if (way) {
                ptc_flow_cached_block found = set[1];
                set[1] = set[0];
                set[0] = found;
            }
            return &set[0];
        }
    }
    return NULL;
}

/* The block at the current IP, from the cache when one is used and holds
   it, else decoded (and kept there). */
static ptc_status ptc__flow_block_at(ptc_flow *f, ptc_flow_cached_block *b)
{
    ptc_flow_cache *c = f->cache;
    const ptc_flow_cached_block *found;
    ptc_flow_cached_block *set;
    ptc_status st;
    if (!c) return ptc__flow_decode_block(f->image, f->at.ip, f->at.mode, b);
    ptc__flow_cache_check(c, f->image);
    found = ptc__flow_cached(c, f);
    if (found) {
        *b = *found;
        return PTC_OK;
    }
    c->misses++;
    st = ptc__flow_decode_block(f->image, f->at.ip, f->at.mode, b);
    if (st != PTC_OK) return st;
    b->stamp = c->stamp;
    set = &c->blocks[ptc__flow_slot(c, f->at.ip) & ~(size_t)1];
    set[1] = set[0];
    set[0] = *b;
    return PTC_OK;
}

/* A FUP held for an IP inside the block (with no TNT bit left, the packets
   stay as they are until the block's end) is an event there, and a
   TIP.PGD's IP is where tracing stops (the code left the filter ranges):
   the block ends at the instruction before it. */
static void ptc__flow_cut_at_event(const ptc_flow *f, ptc_flow_cached_block *b)
{
    uint64_t ip = b->ip;
    unsigned k;
    if (f->tnt.count || !f->ahead.have || (f->ahead.type != PTC_FUP && !ptc__flow_pgd_next(f, 1))) return;
    for (k = 1; k < b->count; k++) {
        ip += (b->sizes >> (4 * (k - 1))) & 15;
        if (ip == f->ahead.ip) {
            b->count = (uint8_t)k;
            b->last = (uint8_t)(ip - b->ip - ((b->sizes >> (4 * (k - 1))) & 15));
            b->sizes &= ((uint64_t)1 << (4 * k)) - 1;
            b->end_class = PTC_X86_OTHER;
            b->target = 0;
            return;
        }
    }
}

/* f->block.now, at the current IP, is the block being given from now on:
   none of it given yet, from the last packet read, resumed or not. */
static void ptc__flow_begin_block(ptc_flow *f)
{
    f->block.ip = f->at.ip;
    f->block.given = 0;
    f->block.offset = f->last_offset;
    f->block.flags = (uint8_t)(f->at.resumed ? PTC_FLOW_RESUMED : 0);
    f->at.resumed = 0;
    f->at.stopped = 0;
}

/* The next block starts at the current IP: f->block holds it. */
static ptc_status ptc__flow_start_block(ptc_flow *f)
{
    ptc_status st = ptc__flow_ready(f);
    if (st != PTC_OK) return st;
    if (ptc__flow_loops(f)) return PTC_ERR_LOOP;
    st = ptc__flow_block_at(f, &f->block.now);
    if (st != PTC_OK) return st;
    ptc__flow_cut_at_event(f, &f->block.now);
    ptc__flow_begin_block(f);
    return PTC_OK;
}

/* The block's last instruction, at ip, was given: where it went, by the
   packets. An error waits for the next call (the instruction ran; where
   it went the trace cannot say). */
static void ptc__flow_end_block(ptc_flow *f, uint64_t ip)
{
    const ptc_flow_cached_block *b = &f->block.now;
    ptc_x86_insn in;
    ptc_status st;
    in.ip = ip;
    in.size = (uint8_t)((b->sizes >> (4 * (b->count - 1))) & 15);
    in.iclass = b->end_class;
    in.target = b->target;
    st = ptc__flow_step(f, &in);
    if (st == PTC_OK && f->at.enabled && ptc__flow_pgd_here(f)) ptc__flow_stop(f);
    if (st == PTC_END) { /* it needs a packet and none is left: the flow ends */
        f->at.finished = 1;
    } else if (st != PTC_OK) {
        f->error.status = st;
        f->error.ip = ip;
        f->error.offset = f->last_offset;
        ptc__flow_forget(f);
        f->at.lost = 1;
    }
}

/* After a block's last instruction: where it went, in block->next_ip and
   PTC_FLOW_STOPPED. */
static void ptc__flow_block_went(const ptc_flow *f, ptc_flow_block *block)
{
    if (f->at.stopped) {
        block->flags |= PTC_FLOW_STOPPED;
        block->next_ip = f->at.stopped_at;
    } else if (f->error.status == PTC_OK && !f->at.finished) { /* else the trace does not say */
        block->next_ip = f->at.ip;
    } else {
        block->next_ip = 0;
    }
}

/* What is left of the block being given, in *block (every field), and
   its last instruction's step taken: where it went. */
static void ptc__flow_give_rest(ptc_flow *f, ptc_flow_block *block)
{
    const ptc_flow_cached_block *b = &f->block.now;
    unsigned k = f->block.given, left = b->count - k;
    block->ip = f->block.ip;
    block->offset = f->block.offset;
    block->sizes = b->sizes >> (4 * k);
    block->count = (uint8_t)left;
    block->end_ip = b->ip + b->last;
    block->end_class = b->end_class;
    block->mode = b->mode;
    block->flags = (uint8_t)(k ? 0 : f->block.flags);
    f->block.given = b->count;
    f->block.ip = block->end_ip + ((block->sizes >> (4 * (left - 1))) & 15);
    ptc__flow_end_block(f, block->end_ip);
    ptc__flow_block_went(f, block);
}

/* Common to both calls: the end, an error waiting, or the next block
   started when the last is all given. PTC_OK when an instruction is
   there to give; else the status, with where in *ip and *offset. */
static ptc_status ptc__flow_before(ptc_flow *f, uint64_t *ip, uint64_t *offset)
{
    ptc_status st;
    if (f->at.finished) return PTC_END;
    if (f->error.status != PTC_OK) {
        st = f->error.status;
        *ip = f->error.ip;
        *offset = f->error.offset;
        f->error.status = PTC_OK;
        return st;
    }
    if (f->block.given < f->block.now.count) return PTC_OK;
    st = ptc__flow_start_block(f);
    if (st != PTC_OK && st != PTC_END) {
        *ip = f->at.ip;
        *offset = f->last_offset;
        ptc__flow_forget(f);
        f->at.lost = 1;
    }
    return st;
}

PTCDEF ptc_status ptc_flow_next(ptc_flow *f, ptc_flow_insn *insn)
{
    const ptc_flow_cached_block *b;
    unsigned k;
    ptc_status st;
    if (!f || !insn) return PTC_ERR_BAD_ARGUMENT;
    memset(insn, 0, sizeof *insn);
    st = ptc__flow_before(f, &insn->ip, &insn->offset);
    if (st != PTC_OK) return st;
    b = &f->block.now;
    k = f->block.given++;
    insn->ip = f->block.ip;
    insn->offset = f->block.offset;
    insn->size = (uint8_t)((b->sizes >> (4 * k)) & 15);
    insn->mode = b->mode;
    insn->flags = (uint8_t)(k ? 0 : f->block.flags);
    insn->iclass = (uint8_t)(k + 1u == b->count ? b->end_class : (uint8_t)PTC_X86_OTHER);
    f->block.ip += insn->size;
    if (k + 1u == b->count) ptc__flow_end_block(f, insn->ip);
    return PTC_OK;
}

PTCDEF ptc_status ptc_flow_next_block(ptc_flow *f, ptc_flow_block *block)
{
    ptc_status st;
    if (!f || !block) return PTC_ERR_BAD_ARGUMENT;
    memset(block, 0, sizeof *block);
    st = ptc__flow_before(f, &block->ip, &block->offset);
    if (st != PTC_OK) return st;
    ptc__flow_give_rest(f, block);
    return PTC_OK;
}

PTCDEF void ptc_flow_use_cache(ptc_flow *f, ptc_flow_cache *cache)
{
    if (!f) return;
    f->cache = cache && cache->blocks ? cache : NULL; /* one never initialised is none */
    if (f->cache) ptc__flow_cache_take(cache, f->image);
}

PTCDEF ptc_status ptc_flow_cache_init(ptc_flow_cache *cache, ptc_flow_cached_block *storage, size_t count)
{
    if (!cache || !storage || count < 2 || (count & (count - 1))) return PTC_ERR_BAD_ARGUMENT;
    memset(cache, 0, sizeof *cache);
    memset(storage, 0, count * sizeof *storage);
    cache->blocks = storage;
    cache->mask = count - 1;
    cache->stamp = 1;
    return PTC_OK;
}

PTCDEF ptc_status ptc_flow_cache_keep_runs(ptc_flow_cache *cache, ptc_flow_cached_run *storage, size_t count)
{
    if (!cache || !cache->blocks) return PTC_ERR_BAD_ARGUMENT;
    cache->runs = NULL;
    cache->run_mask = 0;
    if (!storage || count < 2 || (count & (count - 1))) return PTC_ERR_BAD_ARGUMENT;
    memset(storage, 0, count * sizeof *storage);
    cache->runs = storage;
    cache->run_mask = count - 1;
    return PTC_OK;
}

PTCDEF void ptc_flow_cache_clear(ptc_flow_cache *cache)
{
    if (!cache || !cache->blocks) return;
    /* a new stamp makes every block and run stale; when it wraps, they are wiped */
    if (++cache->stamp == 0) {
        memset(cache->blocks, 0, (cache->mask + 1) * sizeof *cache->blocks);
        if (cache->runs) memset(cache->runs, 0, (cache->run_mask + 1) * sizeof *cache->runs);
        cache->stamp = 1;
    }
}

/* ---- 9.5 Coverage ------------------------------------------------------ */

PTCDEF ptc_status ptc_coverage_init(ptc_coverage *cov, uint8_t *map, size_t size)
{
    if (!cov || !map || !size || (size & (size - 1))) return PTC_ERR_BAD_ARGUMENT;
    memset(cov, 0, sizeof *cov);
    cov->map = map;
    cov->mask = size - 1;
    return PTC_OK;
}

static uint64_t ptc__cov_mix(uint64_t x)
{
    return (x * 0x9E3779B97F4A7C15ull) >> 32;
}

PTCDEF size_t ptc_coverage_slot(uint64_t from, uint64_t to, size_t mask)
{
    return (size_t)((ptc__cov_mix(to) ^ (ptc__cov_mix(from) >> 1)) & mask);
}

/* One more hit on a map byte, which stays at 255 once there. */
static void ptc__cov_bump(uint8_t *slot)
{
    *slot = (uint8_t)(*slot + (*slot != 0xFF));
}

static void ptc__cov_count(ptc_coverage *cov, uint64_t from, uint64_t to)
{
    ptc__cov_bump(&cov->map[ptc_coverage_slot(from, to, cov->mask)]);
    cov->edges++;
    if (cov->on_edge) cov->on_edge(cov->ctx, from, to);
}

static void ptc__cov_error(ptc_coverage *cov, ptc_status st)
{
    if (!cov->errors++) cov->first_error = st;
}

/* Whether instructions of this class are branches: the flow goes where
   the packets or the target say (a JCC's not taken too), not on to the
   next instruction as for `other`, `rep`, `ptwrite`, ... */
static int ptc__cov_branches(uint8_t iclass)
{
    switch ((ptc_x86_class)iclass) {
    case PTC_X86_OTHER: case PTC_X86_PTWRITE: case PTC_X86_MOV_CR3: case PTC_X86_VMPTRLD: case PTC_X86_TSX: case PTC_X86_REP:
        return 0;
    default: return 1;
    }
}

/* ptc_coverage_flow's state between blocks: the block before, when it
   did not branch (its last instruction, and the next one, where execution
   goes unless an event takes it away), and the run being recorded: in
   now, its key and all its blocks so far; in kept, up to the last
   conditional branch among them, where the run ends when the next block
   is not part of it. */
typedef struct ptc__cov_walk {
    uint64_t from, straight_on;
    int fell_through;
    struct {
        ptc_flow_cached_run *slot; /* where it goes in the cache; NULL: none is recorded */
        ptc_flow_cached_run now, kept;
        uint64_t next_ip;          /* where its next block must start */
        uint8_t full;              /* an edge did not fit */
    } rec;
} ptc__cov_walk;

/* An edge of the run recorded: one more hit on its slot, or a new slot. */
static void ptc__cov_record_edge(ptc__cov_walk *w, uint64_t from, uint64_t to)
{
    ptc_flow_cached_run *run = &w->rec.now;
    uint32_t slot = (uint32_t)ptc_coverage_slot(from, to, 0xFFFFFFFFu);
    unsigned k;
    for (k = 0; k < run->slots && run->slot[k] != slot; k++) continue;
    if (k == PTC_FLOW_RUN_SLOTS || (k < run->slots && run->hits[k] == 0xFF) || run->edges == 0xFFFF) {
        w->rec.full = 1;
        return;
    }
    if (k == run->slots) {
        run->slot[run->slots++] = slot;
        run->hits[k] = 0;
    }
    run->hits[k]++;
    run->edges++;
}

static void ptc__cov_edge(ptc_coverage *cov, ptc__cov_walk *w, uint64_t from, uint64_t to)
{
    if (w->rec.slot) ptc__cov_record_edge(w, from, to);
    ptc__cov_count(cov, from, to);
}

/* A block's edges: where it branched to, or where an event took execution
   from the block before; from 0 when tracing resumed at it. */
static void ptc__cov_block(ptc_coverage *cov, ptc__cov_walk *w, const ptc_flow_block *b)
{
    if (b->flags & PTC_FLOW_RESUMED) ptc__cov_edge(cov, w, 0, b->ip);
    else if (w->fell_through && b->ip != w->straight_on) ptc__cov_edge(cov, w, w->from, b->ip); /* an event */
    /* a branch's edge, a TIP.PGD's IP included: whatever comes next */
    w->fell_through = !ptc__cov_branches(b->end_class);
    if (!w->fell_through && b->next_ip) ptc__cov_edge(cov, w, b->end_ip, b->next_ip);
    w->from = b->end_ip;
    w->straight_on = b->next_ip;
}

/* The run recorded is kept, up to its last conditional branch. */
static void ptc__cov_record_end(ptc__cov_walk *w)
{
    if (w->rec.slot && w->rec.kept.used) *w->rec.slot = w->rec.kept;
    w->rec.slot = NULL;
}

/* After block b (st its status, bits the TNT bits waiting before it) of a
   run recorded: whether it is part of the run (a whole block of the
   general path's, with TNT bits waiting, that took none but its
   conditional branch's and no packet, and that ends in a JCC, a JMP, a
   CALL or the 16th instruction); the run ends at the first that is not,
   and when no bit is left. */
static void ptc__cov_record(ptc__cov_walk *w, const ptc_flow *f, const ptc_flow_block *b, ptc_status st, uint8_t bits)
{
    ptc_flow_cached_run *run = &w->rec.now;
    int jcc = b->end_class == PTC_X86_JCC;
    int part = st == PTC_OK && !b->flags && bits && !w->rec.full && b->ip == w->rec.next_ip && b->next_ip &&
               f->tnt.count == bits - jcc &&
               (jcc || b->end_class == PTC_X86_JMP || b->end_class == PTC_X86_CALL || b->end_class == PTC_X86_OTHER);
    if (part && b->end_class == PTC_X86_CALL) {
        if (run->pushes < 2)
            run->calls[run->pushes++] = b->end_ip + ((b->sizes >> (4 * (b->count - 1))) & 15);
        else
            part = 0;
    }
    if (!part) {
        ptc__cov_record_end(w);
        return;
    }
    w->rec.next_ip = b->next_ip;
    if (jcc) {
        run->used++;
        run->end_ip = b->next_ip;
        w->rec.kept = *run;
    }
    if (!f->tnt.count) ptc__cov_record_end(w);
}

/* Where the run from the current IP and mode with these TNT bits waiting
   is kept. */
static ptc_flow_cached_run *ptc__cov_run_at(const ptc_flow_cache *c, const ptc_flow *f, uint64_t bits)
{
    uint64_t h = f->at.ip ^ (bits * 0xD6E8FEB86659FD93ull) ^ ((uint64_t)f->tnt.count << 56) ^ ((uint64_t)f->at.mode << 48);
    return &c->runs[(size_t)((h * 0x9E3779B97F4A7C15ull) >> 32) & c->run_mask];
}

/* The run the cache keeps for the current IP and mode with the TNT bits
   waiting is applied: its edges counted, its bits taken, its calls
   pushed, execution where it ends; returns 1. Else 0, and the run is
   recorded from this block on. */
static int ptc__cov_run(ptc_coverage *cov, ptc_flow *f, ptc__cov_walk *w)
{
    ptc_flow_cache *c = f->cache;
    ptc_flow_cached_run *run;
    uint64_t bits = f->tnt.bits & (((uint64_t)1 << f->tnt.count) - 1);
    unsigned k;
    run = ptc__cov_run_at(c, f, bits);
    if (run->stamp != c->stamp || run->ip != f->at.ip || run->bits != bits || run->count != f->tnt.count ||
        run->mode != f->at.mode) {
        c->run_misses++;
        memset(&w->rec, 0, sizeof w->rec);
        w->rec.slot = run;
        w->rec.now.ip = w->rec.next_ip = f->at.ip;
        w->rec.now.bits = bits;
        w->rec.now.count = f->tnt.count;
        w->rec.now.mode = f->at.mode;
        w->rec.now.stamp = c->stamp;
        return 0;
    }
    c->run_hits++;
    (void)ptc__flow_loops(f); /* as the run's first block would: it finds no cycle here */
    f->tnt.count = (uint8_t)(f->tnt.count - run->used);
    f->packets += run->used;
    for (k = 0; k < run->pushes; k++) ptc__flow_push(f, run->calls[k]);
    f->at.ip = run->end_ip;
    for (k = 0; k < run->slots; k++) {
        uint8_t *slot = &cov->map[run->slot[k] & cov->mask];
        unsigned hits = *slot + run->hits[k];
        *slot = (uint8_t)(hits < 0xFF ? hits : 0xFF); /* as that many ptc__cov_bump */
    }
    cov->edges += run->edges;
    w->fell_through = 0; /* it ended at a branch */
    return 1;
}

/* One block as ptc_flow_next_block gives it, less what cannot happen
   here: its start has nothing to take first (TNT bits waiting and no
   packet held, or a TIP held and no bit), and the block is in the cache.
   Returns 1 when it was taken. */
static int ptc__cov_step(ptc_coverage *cov, ptc_flow *f, ptc__cov_walk *w)
{
    const ptc_flow_cached_block *cached;
    ptc_flow_block b;
    if (f->tnt.count ? f->ahead.have : !f->ahead.have || f->ahead.type != PTC_TIP) return 0;
    cached = ptc__flow_cached(f->cache, f);
    if (!cached) return 0;
    (void)ptc__flow_loops(f); /* the caller saw no cycle here */
    f->block.now = *cached;
    ptc__flow_begin_block(f);
    ptc__flow_give_rest(f, &b);
    ptc__cov_block(cov, w, &b);
    return 1;
}

/* Coverage's common case with a block cache (9.5): at a block start with
   tracing on and nothing to give first (no error, no block part-given, no
   resumption, not finished), the packets the fast reader takes read as
   the block's start would, and no cycle to name here, a run the cache
   keeps (ptc__cov_run: a lookup for a TNT packet's blocks) or the next
   block (ptc__cov_step). Returns 1 when one was taken; else the general
   path, ptc_flow_next_block, takes the next block. Runs are off while
   on_edge is set (a run keeps slots, not IPs). */
static int ptc__cov_fast(ptc_coverage *cov, ptc_flow *f, ptc__cov_walk *w)
{
    if (!f->cache || w->rec.slot || !f->at.enabled || f->at.resumed || f->at.finished || f->error.status != PTC_OK ||
        f->block.given < f->block.now.count)
        return 0;
    if (!f->tnt.count && !f->ahead.have) ptc__flow_fill_fast(f);
    if (ptc__flow_cycle_here(f)) return 0;
    ptc__flow_cache_check(f->cache, f->image);
    if (f->cache->runs && !cov->on_edge && f->tnt.count && !f->ahead.have) return ptc__cov_run(cov, f, w);
    return ptc__cov_step(cov, f, w);
}

PTCDEF ptc_status ptc_coverage_flow(ptc_coverage *cov, ptc_flow *f)
{
    ptc__cov_walk w;
    ptc_flow_block b;
    ptc_status st;
    if (!cov || !cov->map || !f) return PTC_ERR_BAD_ARGUMENT;
    memset(&w, 0, sizeof w);
    for (;;) {
        uint8_t bits;
        if (ptc__cov_fast(cov, f, &w)) continue;
        bits = f->tnt.count;
        st = ptc_flow_next_block(f, &b);
        if (st == PTC_END) break;
        if (st == PTC_OK) {
            ptc__cov_block(cov, &w, &b);
        } else {
            ptc__cov_error(cov, st);
            w.fell_through = 0;
        }
        if (w.rec.slot) ptc__cov_record(&w, f, &b, st, bits);
    }
    ptc__cov_record_end(&w);
    return cov->errors ? cov->first_error : PTC_OK;
}

PTCDEF ptc_status ptc_coverage_packets(ptc_coverage *cov, const ptc_trace_config *trace, const uint8_t *buf, size_t len)
{
    ptc_decoder dec;
    ptc_item it;
    ptc_status st;
    uint64_t last = 0;
    if (!cov || !cov->map || (!buf && len)) return PTC_ERR_BAD_ARGUMENT;
    if (trace && ptc_trace_config_error(trace)) return PTC_ERR_BAD_CONFIG;
    ptc_decoder_init_buffer(&dec, trace ? ptc_errata_decode_flags(trace->errata) : 0, buf, len);
    while ((st = ptc_decoder_next(&dec, &it)) == PTC_OK) {
        if (it.error != PTC_OK) {
            ptc__cov_error(cov, it.error);
            continue;
        }
        switch (it.pkt.type) {
        case PTC_TIP: case PTC_TIP_PGE: case PTC_TIP_PGD: case PTC_FUP:
            if (!it.ip_known) break;
            ptc__cov_count(cov, last, it.ip);
            last = it.ip;
            break;
        case PTC_TNT8: case PTC_TNT64:
            ptc__cov_count(cov, last, (uint64_t)1 << 63 | (uint64_t)1 << it.pkt.u.tnt.count | it.pkt.u.tnt.bits);
            break;
        case PTC_OVF: last = 0; break;
        default: break;
        }
    }
    if (st != PTC_END) ptc__cov_error(cov, st);
    return cov->errors ? cov->first_error : PTC_OK;
}

#endif /* PTCODEC_NO_FLOW */

#ifdef __cplusplus
}
#endif

#endif /* PTCODEC_IMPLEMENTATION */

/*
REVISION HISTORY
    0.3.0  part 7, conformance: ptc_conform, PTC_RULE_LIST, ptc_severity,
           ptc_conform_config_from_model, ptc_conform_config_from_perf;
           errata BDM70, SKD010, APL11; ptc_errata_for_cpu knows every CPU
           libipt gives errata for; ptc_model_stop_at (SDM Table 36-50 case
           3b); a conditional branch leaving the filter writes TIP.PGD()
           (CHANGELOG.md has the why)
    0.2.0  sections in data-flow order, numbered as SPEC.md's parts (the
           model is part 5, MTC suppression and the checker part 2);
           ptc_opcode; packet classes, sizes and ptc_packet_is_*() from
           PTC_PACKET_LIST; ptc_packet_type_from_name(); PTCODEC_DLL, PTCDEF
           can be overridden; a packet's carry is at most 31 bytes; clock:
           real clocks (MTC jitter, a PSB+'s TSC sampled early, rate wobble,
           lost MTCs) with hardware defaults, ptc_clock_config_sdm(); model:
           mtc_jitter, jitter_seed, mtc_lost, rate_ppm, psb_early_tsc, skl168,
           skd007 (PTC_FATE_CUT), skz84 (PTC_FATE_CORRUPT); points follow a
           wobbling clock's measured rate; errata (PTC_ERRATA_LIST,
           ptc_errata_for_cpu, ptc_errata_decode_flags); errata SKD007 and
           SKZ84 in the stream decoder (PTC_DECODE_SKD007, cut_cyc;
           PTC_DECODE_SKZ84, corrupt_tma, timed with its TSC, no epoch ended),
           ptc_ring_reader_init_flags; hidden_stops; part 6, perf.data: ptc_perf_open,
           ptc_perf_next, ptc_clock_config_from_perf, ptc_perf_tsc_to_ns,
           ptc_perf_write (with COMM and MMAP sideband), ptc_perf_info_from_model,
           every sample layout; model: ptc_model_call, ptc_model_ret with RET
           compression (dis_retc), ptc_model_interrupt_cpl, ptc_model_tsx,
           ptc_model_vmptrld, ptc_model_vm_entry, ptc_model_vm_exit
    0.1.0  first release: every Intel PT packet, encoder, stream decoder,
           hardware model, clock recovery, navigation

LICENSE
    MIT License

    Copyright (c) 2026 the ptcodec authors

    Permission is hereby granted, free of charge, to any person obtaining a
    copy of this software and associated documentation files (the
    "Software"), to deal in the Software without restriction, including
    without limitation the rights to use, copy, modify, merge, publish,
    distribute, sublicense, and/or sell copies of the Software, and to permit
    persons to whom the Software is furnished to do so, subject to the
    following conditions:

    The above copyright notice and this permission notice shall be included
    in all copies or substantial portions of the Software.

    THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS
    OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
    MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN
    NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
    DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
    OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE
    USE OR OTHER DEALINGS IN THE SOFTWARE.
*/
