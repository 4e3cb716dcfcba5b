/*
 * nodebuginfod: the static build's stand-in for libdw's debuginfod client.
 *
 * libdw reaches debuginfod through dlopen of libdebuginfod.so, which a
 * glibc-static binary cannot do safely (the library would bring a second
 * libc), and a recorder must not fetch from the network anyway.  These
 * definitions take the place of libdw.a's debuginfod-client.o, so the
 * linker never pulls that member or its dlopen in: every lookup answers
 * "not found", as libdw does when DEBUGINFOD_URLS is unset.  Only the
 * static link uses this file; the signatures are libdw's internal ones.
 */
#include <stddef.h>

int __libdwfl_debuginfod_find_executable(void *dwfl, const unsigned char *id, size_t len);
int __libdwfl_debuginfod_find_debuginfo(void *dwfl, const unsigned char *id, size_t len);
void __libdwfl_debuginfod_end(void *client);
void *dwfl_get_debuginfod_client(void *dwfl);

int
__libdwfl_debuginfod_find_executable(void *dwfl, const unsigned char *id, size_t len)
{
	(void)dwfl;
	(void)id;
	(void)len;
	return -1;
}

int
__libdwfl_debuginfod_find_debuginfo(void *dwfl, const unsigned char *id, size_t len)
{
	(void)dwfl;
	(void)id;
	(void)len;
	return -1;
}

void
__libdwfl_debuginfod_end(void *client)
{
	(void)client;
}

void *
dwfl_get_debuginfod_client(void *dwfl)
{
	(void)dwfl;
	return NULL;
}
