/*
 * fuzz-demangle: symbol names come from the target's binaries, so the
 * demangler must survive any bytes: no crash, no leak, no overread, and
 * within its caps (a result is never empty nor longer than
 * PF_DEMANGLE_MAX_OUT; a name of PF_DEMANGLE_MAX_IN bytes or more is
 * refused).  libFuzzer's -timeout catches a name that costs too long.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *d;
	size_t n;

	if (size == 0 || (s = malloc(size + 2)) == NULL)
		return 0;
	/*
	 * The first byte steers: odd adds a mangling prefix (bit 1 picks _Z
	 * or _R) so the parsers are reached; the name is the rest.
	 */
	n = 0;
	if (data[0] & 1) {
		memcpy(s, (data[0] & 2) ? "_Z" : "_R", 2);
		n = 2;
	}
	memcpy(s + n, data + 1, size - 1);
	s[n + size - 1] = '\0';
	errno = 0;
	d = pf_demangle(s);
	if (d != NULL && (d[0] == '\0' || strlen(d) > PF_DEMANGLE_MAX_OUT))
		abort();
	if (d == NULL && errno != EINVAL && errno != E2BIG && errno != ENOMEM)
		abort();
	if (d != NULL && strlen(s) >= PF_DEMANGLE_MAX_IN)
		abort();
	free(d);
	free(s);
	return 0;
}
