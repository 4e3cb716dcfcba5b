#include <errno.h>
#include <stdlib.h>
#include "demangle.h"
char *
pf_demangle(const char *name)
{
	(void)name;
	errno = EINVAL;
	return NULL;
}
