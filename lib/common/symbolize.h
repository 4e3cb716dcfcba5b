/*
 * symbolize: user and kernel addresses to (symbol, offset, dso) for the
 * processes a recording saw.
 *
 * Processes are modelled by their executable mappings, fed from
 * /proc/PID/maps at start and from PERF_RECORD_MMAP2 / FORK / COMM(exec)
 * records afterwards (the caller applies records in time order).  Each
 * distinct ELF file is opened once with libdwfl (.symtab/.dynsym, separate
 * debuginfo by build-id and .gnu_debuglink under /usr/lib/debug), at base 0,
 * and shared by every process that maps it; results are cached per file
 * address.  An address is named as perf 6.1 names it: of the symbols
 * libdwfl's table holds, perf's choice among those at one address (the
 * aliases), and the PLT entries from the relocations, as name@plt.
 * Names are cleaned of symbol versions (foo@@GLIBC_2.34) and demangled
 * (demangle.h).  Kernel addresses go to a pf_kallsyms; addresses
 * outside any file mapping to the target's /tmp/perf-PID.map.
 *
 * The caller must unsetenv("DEBUGINFOD_URLS") before the first lookup, so
 * libdwfl never reaches the network.
 *
 * With pf_sym_set_inlines, a user frame in a file with DWARF (its own
 * or separate debuginfo) also names the functions inlined at its address,
 * from the DW_TAG_inlined_subroutine scopes around it, cached with the
 * symbol.
 *
 * A frame source (the frame-pointer callchain, the DWARF unwinder) only
 * has to produce struct pf_frame_in lists: see pf_sym_frame().
 *
 * Afterwards, off the box (pf-fold --debug-dir), the same symbol code
 * names a recorded file's addresses from its debug file
 * (pf_sym_debug_add, pf_sym_debug_frame).
 */
#ifndef PF_SYMBOLIZE_H
#define PF_SYMBOLIZE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <elfutils/libdwfl.h>

#include "buildid.h"
#include "kallsyms.h"

struct pf_symbolizer;

/* One frame as a stack source produces it. */
struct pf_frame_in {
	uint64_t addr;
	bool kernel;
	bool retaddr;		/* a return address: look up addr - 1 */
};

/*
 * One frame symbolized.  The strings are the symbolizer's, and last
 * until its next pf_sym_frame or pf_sym_debug_frame (its names are kept
 * by number, in a pool that moves as it grows): a caller that keeps one
 * longer copies it.
 */
struct pf_frame_out {
	uint64_t addr;		/* address column: DSO-relative for user files, else absolute */
	const char *sym;	/* NULL when unknown */
	uint64_t off;		/* offset of addr into sym */
	const char *dso;	/* NULL when unknown */
	/*
	 * A user address inside an executable mapping the symbolizer knows,
	 * file-backed or anonymous (JIT code), named or not.
	 */
	bool mapped;
	/*
	 * The functions the compiler inlined into sym at addr, innermost
	 * first (sym itself not among them); the array and its names are
	 * valid until the next pf_sym_frame or pf_sym_debug_frame.
	 */
	const char *const *inl;
	size_t ninl;
};

/* A new symbolizer; kallsyms may be NULL (kernel frames stay unknown). */
struct pf_symbolizer *pf_sym_new(const struct pf_kallsyms *kallsyms);

/* Use k for kernel frames from now on (NULL: none); the caller keeps k. */
void pf_sym_set_kallsyms(struct pf_symbolizer *s, const struct pf_kallsyms *k);

/*
 * Whether user frames get their inlined functions from the file's DWARF
 * (off by default).  Set it before the first pf_sym_frame: answers are
 * cached with or without them.
 */
void pf_sym_set_inlines(struct pf_symbolizer *s, bool on);

/*
 * With inlines on, whether a user frame in a file with DWARF is named as
 * its DWARF names the function holding the address (the subprogram's
 * linkage name, else its name; of assembler aliases at one address the
 * last), not as the symbol table does (off by default).  perf script
 * names -g dwarf stacks so, by addr2line, and frame-pointer stacks by the
 * symbol table: a clone is then its origin (encoder_listencode_obj, not
 * encoder_listencode_obj.isra.0), glibc's start __libc_start_main_impl,
 * memcpy's routine __memcpy_avx512_unaligned_erms, not its alias
 * __memmove_avx512_unaligned_erms.  Set it before the first pf_sym_frame.
 */
void pf_sym_set_dwarf_names(struct pf_symbolizer *s, bool on);

/*
 * Add an executable mapping of pid.  path "" or starting with '[' (other
 * than files) is kept as a named non-file mapping ([vdso], //anon).
 * ino/maj/min identify the file when known (0 otherwise).  0 or -1 (ENOMEM).
 */
int pf_sym_add_map(struct pf_symbolizer *s, pid_t pid, uint64_t start, uint64_t end,
    uint64_t pgoff, const char *path, uint32_t maj, uint32_t min, uint64_t ino);

/*
 * Read <proc_root>/PID/maps and add its executable mappings.  With
 * open_files, also open each file now (through /proc/PID/map_files, then
 * /proc/PID/root, then the path), so a caller about to drop privileges
 * keeps access.  0, or -1 with errno from opening the maps file.
 */
int pf_sym_load_proc(struct pf_symbolizer *s, const char *proc_root, pid_t pid,
    bool open_files);

/*
 * pf_sym_load_proc (without open_files) for every process under
 * proc_root, for a system-wide recording.  0, or -1 with errno when
 * proc_root cannot be read.
 */
int pf_sym_load_all(struct pf_symbolizer *s, const char *proc_root);

/*
 * A descriptor of path, the file of device maj:min and inode ino (a
 * pf_unwind_foreach_file callback, arg the symbolizer): the symbol
 * lookups of mappings naming that file read it through a duplicate of fd
 * rather than opening path, which may since name another file.  Unknown
 * identities (ino 0) are ignored.
 */
void pf_sym_offer_file(const char *path, uint32_t maj, uint32_t min, uint64_t ino, int fd,
    void *arg);

/*
 * Open the targets' files through the recorder's file helper (mapfile.h)
 * from now on; NULL opens them directly.
 */
struct pf_mapfiles;
void pf_sym_set_mapfiles(struct pf_symbolizer *s, struct pf_mapfiles *mf);

/*
 * An executable mapping of path that pid made at [start, end) during a
 * recording: open its file now, while the mapping exists (at most 256
 * files are opened ahead, as pf_sym_load_proc's), so that its symbols
 * are read after the window even once the process has gone.  The
 * mapping itself is added later, by pf_sym_add_map.  0, or -1 (ENOMEM).
 */
int pf_sym_preopen(struct pf_symbolizer *s, pid_t pid, uint64_t start, uint64_t end,
    const char *path, uint32_t maj, uint32_t min, uint64_t ino);

/*
 * Call fn with every file s knows from a mapping (not [vdso] nor other
 * named non-file mappings), in no set order, each path with the device
 * and inode the mapping named (0 when unknown): what a caller about to
 * confine itself must still be able to read.
 */
void pf_sym_foreach_file(const struct pf_symbolizer *s,
    void (*fn)(const char *path, uint32_t maj, uint32_t min, uint64_t ino, void *arg),
    void *arg);

/*
 * Mark the file of the mapping of pid that holds frame in (as
 * pf_sym_frame would find it; nothing is opened or looked up), so that
 * pf_sym_foreach_buildid lists it.  Kernel frames and frames in no file
 * mark nothing.
 */
void pf_sym_mark(struct pf_symbolizer *s, pid_t pid, const struct pf_frame_in *in);

/*
 * The processes' mappings as they are now, to put back with
 * pf_sym_restore after a pass over the window's mapping records (the
 * files learnt meanwhile, and their marks, stay).  NULL with ENOMEM.
 */
struct pf_sym_saved *pf_sym_save(const struct pf_symbolizer *s);

/* Put sv's mappings back in s (a process first seen since has none), and free sv. */
void pf_sym_restore(struct pf_symbolizer *s, struct pf_sym_saved *sv);

/*
 * Call fn with every file pf_sym_mark marked ([vdso] and other non-file
 * mappings aside), in the order first seen, that has a GNU build-id: its
 * path as frames name it, the build-id from the file's own note and its
 * executable loadable segments (at most PF_BUILDID_SEGS).  Each file is
 * opened as its first lookup would open it (and kept for the lookups);
 * one that cannot be opened or read as ELF, or has no build-id, is
 * passed over.
 */
void pf_sym_foreach_buildid(struct pf_symbolizer *s,
    void (*fn)(const char *path, const struct pf_buildid *id, void *arg), void *arg);

/* A new process child forked from parent: it starts with parent's maps. */
int pf_sym_fork(struct pf_symbolizer *s, pid_t parent, pid_t child);

/* pid exec'ed: forget its mappings. */
void pf_sym_exec(struct pf_symbolizer *s, pid_t pid);

/* Symbolize one frame of pid (pid is ignored for kernel frames). */
void pf_sym_frame(struct pf_symbolizer *s, pid_t pid, const struct pf_frame_in *in,
    struct pf_frame_out *out);

/* Counters for the header/diagnostics. */
struct pf_sym_stats {
	uint64_t lookups, cache_hits, files, files_failed;
	uint64_t inline_lookups, inline_frames;	/* DWARF scope walks, frames found */
	uint64_t jit_maps, jit_refused, jit_truncated;	/* /tmp/perf-PID.map */
};
void pf_sym_stats(const struct pf_symbolizer *s, struct pf_sym_stats *st);

/*
 * The first JIT map refused (not a regular file, or owned by neither root
 * nor the target's uid), as "/tmp/perf-PID.map: reason"; NULL if none.
 */
const char *pf_sym_jit_refusal(const struct pf_symbolizer *s);

/*
 * Whether pid's JIT map would be trusted now: 1 yes, 0 there is none,
 * -1 refused with the reason in why.  For the header, before the window.
 */
int pf_sym_jit_vet(pid_t pid, char *why, size_t whylen);

/*
 * Offline: the ELF file open on fd (a separate debug file, or an
 * unstripped copy), named path, as the source of names for the file
 * whose GNU build-id is want (wantlen bytes).  It is taken only when its
 * own build-id note is want; libdwfl searches nothing else for it.  fd
 * is the symbolizer's either way.  A handle (0 or more) for
 * pf_sym_debug_frame, or -1 with errno: EINVAL not an ELF file, ENODATA
 * it has no build-id, ESTALE its build-id is another (got then holds it
 * in hex, cut to gotlen), ENOMEM.
 */
int pf_sym_debug_add(struct pf_symbolizer *s, int fd, const char *path, const unsigned char *want,
    size_t wantlen, char *got, size_t gotlen);

/*
 * Name the file's own (ELF virtual) address vaddr through debug file h,
 * as pf_sym_frame names a user frame: with retaddr, vaddr is a return
 * address and vaddr - 1 is looked up.  out->sym NULL when no symbol holds
 * it; out->dso is always NULL (the frame keeps its module), out->addr is
 * vaddr.  Inlined functions with pf_sym_set_inlines.
 */
void pf_sym_debug_frame(struct pf_symbolizer *s, int h, uint64_t vaddr, bool retaddr,
    struct pf_frame_out *out);

void pf_sym_free(struct pf_symbolizer *s);

/*
 * A libdwfl find_debuginfo callback that searches nothing: -1, errno
 * ENOENT.  The symbolizer's debug files and the unwinder use it.
 */
int pf_dwfl_no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
    Dwarf_Addr base, const char *file_name, const char *debuglink_file,
    GElf_Word debuglink_crc, char **debuginfo_file_name);

/* What a symbolizer finds for one ELF file. */
struct pf_sym_fileinfo {
	bool symtab;		/* the file has a .symtab of its own */
	bool debuginfo;		/* else: separate debuginfo found, in debugfile */
	char debugfile[PATH_MAX];
	char buildid[129];	/* the GNU build-id in hex, "" if none */
};

/*
 * Look at the ELF file open on fd (named path: a .gnu_debuglink is
 * looked for beside it) as the symbolizer would, with the same debuginfo
 * search.  fd stays the caller's.  0 with *fi filled, or -1 (EINVAL: not
 * an ELF file).  DEBUGINFOD_URLS must be unset first, as for pf_sym_new.
 */
int pf_sym_file_info(int fd, const char *path, struct pf_sym_fileinfo *fi);

/*
 * For the tests: the symbol index against a plain pass over every symbol
 * and PLT entry of the ELF file at path under the same rule, at probes
 * addresses spread over its symbols and at the edges of as many symbols:
 * how many were compared, how many differed, the first difference in
 * first.  0, or -1 with errno.
 */
int pf_sym_index_check(const char *path, uint64_t probes, uint64_t *checked, uint64_t *differ,
    char *first, size_t firstlen);

#endif
