/*
 * capregs.h: take the calling function's registers as a perf sample
 * carries them (PF_UNWIND_REGS_MASK order: ax bx cx dx si di bp sp ip
 * r8..r15, x86-64), for the drivers that unwind a stack of their own
 * (tests/unit/test-stacks.c, fuzz/fuzz-unwind.c).  R is a uint64_t
 * array of PF_UNWIND_NREGS; ip is the address of the capture itself.
 * The caller must not be inlined or tail-called, or its frame is not
 * the one taken.
 */
#ifndef PF_TESTS_CAPREGS_H
#define PF_TESTS_CAPREGS_H

#define PF_CAPTURE_REGS(r)						\
	__asm__ volatile(						\
	    "movq %%rax, 0(%0)\n\t"					\
	    "movq %%rbx, 8(%0)\n\t"					\
	    "movq %%rcx, 16(%0)\n\t"					\
	    "movq %%rdx, 24(%0)\n\t"					\
	    "movq %%rsi, 32(%0)\n\t"					\
	    "movq %%rdi, 40(%0)\n\t"					\
	    "movq %%rbp, 48(%0)\n\t"					\
	    "movq %%rsp, 56(%0)\n\t"					\
	    "movq %%r8, 72(%0)\n\t"					\
	    "movq %%r9, 80(%0)\n\t"					\
	    "movq %%r10, 88(%0)\n\t"					\
	    "movq %%r11, 96(%0)\n\t"					\
	    "movq %%r12, 104(%0)\n\t"					\
	    "movq %%r13, 112(%0)\n\t"					\
	    "movq %%r14, 120(%0)\n\t"					\
	    "movq %%r15, 128(%0)\n\t"					\
	    "leaq 0(%%rip), %%rax\n\t"					\
	    "movq %%rax, 64(%0)\n\t"					\
	    : : "r"(r) : "rax", "memory")

#endif
