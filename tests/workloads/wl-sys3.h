/*
 * wl-sys3.h: a system call of up to three arguments made in place, not
 * through libc, for the workloads whose blocked time an off-CPU profiler
 * must put on the function that waits (off-split, off-switch).  libc has
 * no frame pointers, so a frame-pointer unwind from inside its wrapper
 * would skip the caller and the time would land on the caller's parent.
 * Always inlined: it is never a frame of its own.
 */
#ifndef WL_SYS3_H
#define WL_SYS3_H

#include <sys/syscall.h>
#include <unistd.h>

static inline __attribute__((always_inline)) long
sys3(long nr, long a, long b, long c)
{
#ifdef __x86_64__
	long r;

	__asm__ volatile ("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c)
	    : "rcx", "r11", "memory");
	return r;
#else
	return syscall(nr, a, b, c);
#endif
}

#endif
