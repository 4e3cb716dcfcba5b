/*
 * fpcheck: whether code keeps frame pointers, judged from its call-frame
 * information, and what -g auto makes of a target's executable mappings.
 * pf-precheck reports it file by file; the recorders choose -g fp or
 * -g dwarf by it.
 */
#ifndef PF_FPCHECK_H
#define PF_FPCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Addresses probed per file, spread evenly over .text. */
#define PF_FP_PROBES	256

struct pf_fpinfo {
	unsigned probed;	/* addresses with a CFA rule */
	unsigned rbp;		/* of them, the CFA from rbp */
	bool dynamic;		/* the file has a PT_INTERP: it maps a C library */
	bool go;		/* Go code (its build-id note or .go.buildinfo) with .debug_frame */
};

/*
 * Judge the ELF file open on fd (the caller keeps fd) from its .eh_frame:
 * at PF_FP_PROBES addresses over .text, whether the CFA rule of the
 * function there uses rbp; and whether it is Go code that .debug_frame
 * can unwind.  0 with *fi filled (probed > 0, or go), or -1 (EINVAL): not
 * ELF, no .text, or no call-frame information to judge by.
 */
int pf_fp_probe(int fd, struct pf_fpinfo *fi);

/* Whether a file judged by pf_fp_probe keeps frame pointers. */
bool pf_fp_kept(const struct pf_fpinfo *fi);

/*
 * What -g auto makes of a file judged by pf_fp_probe, and what the
 * pf_fp_lacking_* functions return: a frame-pointer walk holds through
 * it; it has no frame pointers; or it is Go code, whose frames keep rbp
 * but whose assembly (crypto/sha256's block, and more) uses rbp as a
 * general register, so a walk from a sample there reads data as a frame.
 */
#define PF_FP_WALKS	0
#define PF_FP_LACKING	1
#define PF_FP_GO	2
/*
 * pf_fp_lacking_proc only: no file was found lacking, but one could not
 * be opened or judged (a container's, one with no call-frame
 * information to probe).  -g auto then takes dwarf, which unwinds what
 * it can read and falls back to the frame-pointer chain elsewhere.
 */
#define PF_FP_UNJUDGED	3
int pf_fp_verdict(const struct pf_fpinfo *fi);

/* The header's auto= word for PF_FP_LACKING or PF_FP_GO, before ":FILE". */
const char *pf_fp_word(int verdict);

/*
 * -g auto for a running process: its executable mappings, read from
 * <proc_root>/PID/maps, each file opened as every target's file is
 * (pf_mapfile_open: the mapping itself first, so a container's or a
 * chroot's file is the one judged), in the order mapped.  PF_FP_LACKING
 * or PF_FP_GO for the first file a frame-pointer walk does not hold
 * through (its base name in why); else PF_FP_UNJUDGED with the first
 * file that could not be opened or judged; 0 when every file judged
 * keeps frame pointers, -1 with errno when the maps cannot be read.
 */
int pf_fp_lacking_proc(const char *proc_root, pid_t pid, char *why, size_t whylen);

/*
 * -g auto for a command not yet run: its executable (found through PATH
 * as execvp would) and, unless it is a static ELF file, the host's C
 * library (pf_fp_lacking_libc), which a dynamically linked command maps
 * too.  PF_FP_LACKING or PF_FP_GO with the base name of the file in why,
 * 0 when those judged keep frame pointers.
 */
int pf_fp_lacking_cmd(const char *cmd, char *why, size_t whylen);

/*
 * -g auto for a dynamically linked command not named yet, and under -a:
 * the host's C library as the loader maps it, the one this process maps,
 * or for a static build init's (<proc_root>/1/maps, opened through its
 * root).  PF_FP_LACKING with its base name in why when it lacks frame
 * pointers, 0 when it keeps them, -1 (ENOENT) when no C library was
 * found or it could not be judged.
 */
int pf_fp_lacking_libc(const char *proc_root, char *why, size_t whylen);

#endif
