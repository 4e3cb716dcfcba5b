/*
 * fuzz-procstat: the /proc text parsers pf-classify and pf-precheck feed
 * with whatever a kernel (or a fixture) hands them: stat, schedstat,
 * status, io, PSI files and cpulists.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procstat.h"
#include "psi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_taskstat t;
	struct pf_schedstat s;
	struct pf_status st;
	struct pf_io io;
	struct pf_psi p;
	char *text;

	if ((text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	(void)pf_taskstat_parse(text, &t);
	(void)pf_schedstat_parse(text, &s);
	(void)pf_status_parse(text, &st);
	(void)pf_io_parse(text, &io);
	(void)pf_psi_parse(text, &p);
	(void)pf_cpulist_count(text);
	free(text);
	return 0;
}
