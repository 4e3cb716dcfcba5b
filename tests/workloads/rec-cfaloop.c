/*
 * rec-cfaloop: a target whose own call-frame information is hostile, as
 * any unprivileged program may write it in its .eh_frame.  In the leaf
 * of "loop", the CFA is a DWARF expression that never ends:
 * DW_CFA_def_cfa_expression holding DW_OP_breg7 16; DW_OP_skip -3, the
 * skip jumping to itself.  libdw 0.188's evaluator gives up at its step
 * limit without freeing its stack (256 bytes, twice a sample: once for
 * the return address, once for rbp, each through the CFA).
 *
 *   rec-cfaloop MODE [SECONDS]
 *
 * main calls outer, outer middle, and middle MODE's function, over and
 * over; each call is a counted loop of a few milliseconds.  It runs for
 * SECONDS of wall time, or until killed when none is given.
 *
 *   plain  the control: cfaloop_plain, an ordinary rule (CFA rsp + 16)
 *   loop   cfaloop_leaf, the CFA expression above
 *   ra     cfaloop_ra, an ordinary CFA but a return address saved at an
 *          address given by an expression that loops
 *   long   cfaloop_long, the CFA as DW_OP_breg7 16 then 4100 DW_OP_nop:
 *          past libdw's 4096 steps without a loop
 *   badop  cfaloop_badop, the CFA as DW_OP_breg7 16; DW_OP_piece 8, an
 *          operation libdw's evaluator does not do (it fails after its
 *          stack is made)
 *   expr   cfaloop_expr, a CFA that is a valid expression (DW_OP_breg7 8)
 *          and no simple rule, so that a walk goes to libdw's unwinder;
 *          called through cfaloop_call, an ordinary frame
 *   mid    cfaloop_expr again, called through cfaloop_mid, whose CFA
 *          loops: libdw's own walk reaches the looping frame second
 *
 * The functions of the last frames keep a count in rbp, as hand-written
 * code may: the kernel's frame-pointer chain ends at the first frame, so
 * a sample shows what the DWARF walk found, not a frame-pointer stack.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wl-now.h"

#define SPINS	(1UL << 22)

void cfaloop_plain(unsigned long n);
void cfaloop_leaf(unsigned long n);
void cfaloop_ra(unsigned long n);
void cfaloop_long(unsigned long n);
void cfaloop_badop(unsigned long n);
void cfaloop_call(unsigned long n);
void cfaloop_mid(unsigned long n);
void cfaloop_expr(unsigned long n);

/*
 * The frame both kinds of function below share: a global function that
 * pushes rbp, states the CFA by rule and where rbp was saved; at the end
 * pops it, with the CFA back at rsp + 8.
 */
#define FN_BEGIN(name, rule)						\
	"	.globl	" name "\n"					\
	"	.type	" name ", @function\n"				\
	name ":\n"							\
	"	.cfi_startproc\n"					\
	"	pushq	%rbp\n"						\
	rule								\
	"	.cfi_offset %rbp, -16\n"

#define FN_END(name)							\
	"	popq	%rbp\n"						\
	"	.cfi_def_cfa %rsp, 8\n"					\
	"	.cfi_restore %rbp\n"					\
	"	ret\n"							\
	"	.cfi_endproc\n"						\
	"	.size	" name ", .-" name "\n"

/*
 * Each leaf: push rbp, the rule under test from there, the count in rbp
 * (negated: an address above user space, which ends a frame-pointer
 * walk), pop rbp.  n is at least 1.
 */
#define LEAF(name, rule)						\
	FN_BEGIN(name, rule)						\
	"	movq	%rdi, %rbp\n"					\
	"	negq	%rbp\n"						\
	"1:	addq	$1, %rbp\n"					\
	"	jnz	1b\n"						\
	FN_END(name)

/*
 * A caller of cfaloop_expr with the given rule after its push of rbp; rbp
 * is then a number that is no frame (-1).
 */
#define CALLER(name, rule)						\
	FN_BEGIN(name, rule)						\
	"	movq	$-1, %rbp\n"					\
	"	call	cfaloop_expr\n"					\
	FN_END(name)

/* DW_CFA_def_cfa_expression (0x0f), 5 bytes: DW_OP_breg7 16; DW_OP_skip -3. */
#define CFA_LOOP	"	.cfi_escape 0x0f, 0x05, 0x77, 0x10, 0x2f, 0xfd, 0xff\n"

__asm__(
	"	.text\n"
	LEAF("cfaloop_plain", "	.cfi_def_cfa_offset 16\n")
	LEAF("cfaloop_leaf", CFA_LOOP)
	/*
	 * DW_CFA_expression (0x10) of r16, the return address, 5 bytes:
	 * DW_OP_lit8; DW_OP_minus (CFA - 8, where it is); DW_OP_skip -3.
	 */
	LEAF("cfaloop_ra", "	.cfi_def_cfa_offset 16\n"
	    "	.cfi_escape 0x10, 0x10, 0x05, 0x38, 0x1c, 0x2f, 0xfd, 0xff\n")
	/* 4102 bytes of expression (ULEB128 0x86 0x20): DW_OP_breg7 16, the nops. */
	LEAF("cfaloop_long", "	.cfi_escape 0x0f, 0x86, 0x20, 0x77, 0x10\n"
	    "	.rept 4100\n"
	    "	.cfi_escape 0x96\n"
	    "	.endr\n")
	/* DW_OP_breg7 16; DW_OP_piece 8. */
	LEAF("cfaloop_badop", "	.cfi_escape 0x0f, 0x04, 0x77, 0x10, 0x93, 0x08\n")
	CALLER("cfaloop_call", "	.cfi_def_cfa_offset 16\n")
	CALLER("cfaloop_mid", CFA_LOOP)
	/* A leaf that pushes nothing: DW_OP_breg7 8 is where the caller's rsp was. */
	"	.globl	cfaloop_expr\n"
	"	.type	cfaloop_expr, @function\n"
	"cfaloop_expr:\n"
	"	.cfi_startproc\n"
	"	.cfi_escape 0x0f, 0x02, 0x77, 0x08\n"
	"1:	subq	$1, %rdi\n"
	"	jnz	1b\n"
	"	ret\n"
	"	.cfi_endproc\n"
	"	.size	cfaloop_expr, .-cfaloop_expr\n"
);

static const struct {
	const char *mode;
	void (*fn)(unsigned long);
} modes[] = {
	{ "plain", cfaloop_plain },
	{ "loop", cfaloop_leaf },
	{ "ra", cfaloop_ra },
	{ "long", cfaloop_long },
	{ "badop", cfaloop_badop },
	{ "expr", cfaloop_call },
	{ "mid", cfaloop_mid },
};

/* Two ordinary frames between main and the leaf, so there is a stack to reach. */
__attribute__((noinline)) static int
middle(void (*fn)(unsigned long))
{
	fn(SPINS);
	__asm__ volatile("" ::: "memory");
	return 1;
}

__attribute__((noinline)) static int
outer(void (*fn)(unsigned long))
{
	int r = middle(fn);

	__asm__ volatile("" ::: "memory");
	return r;
}

int
main(int argc, char **argv)
{
	void (*fn)(unsigned long) = NULL;
	double secs = 0, end;
	size_t i;

	for (i = 0; argc >= 2 && i < sizeof(modes) / sizeof(modes[0]); i++)
		if (strcmp(argv[1], modes[i].mode) == 0)
			fn = modes[i].fn;
	if (fn == NULL || argc > 3 || (argc == 3 && (secs = atof(argv[2])) <= 0)) {
		fprintf(stderr, "usage: rec-cfaloop plain|loop|ra|long|badop|expr|mid [seconds]\n");
		return 2;
	}
	end = now() + secs;
	while (secs == 0 || now() < end)
		outer(fn);
	return 0;
}
