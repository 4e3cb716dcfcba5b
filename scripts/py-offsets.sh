#!/bin/sh
# py-offsets.sh: print the rows of lib/common/pyframe.c's table of
# CPython offsets (struct pf_py_layout), one per minor version, from the
# headers of the interpreters pyenv built.  Run by hand when a version is
# added or a row is doubted; its output replaces the table between the
# markers in pyframe.c.  Never run at build time.
#
#   scripts/py-offsets.sh [PYENV_VERSIONS_DIR]
#       default /root/.pyenv/versions; every 3.9 to 3.13 found there (the
#       newest patch release of each minor version).  A minor version not
#       found is said on stderr and left out.
#
# The C program below is compiled against each version's own headers
# (Py_BUILD_CORE, its include/python3.N/internal) and prints the offsets
# with offsetof.  The bit fields of a string's state have no offset: each
# is set alone in a zeroed object and the 32-bit word holding them is read
# back as its mask.
set -eu
dir=${1:-/root/.pyenv/versions}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/off.c" <<'EOF_C'
#define Py_BUILD_CORE 1
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "internal/pycore_runtime.h"
#include "internal/pycore_interp.h"
#if PY_VERSION_HEX >= 0x030b0000
#include "internal/pycore_frame.h"
#else
#include "frameobject.h"
#endif

static uint32_t
word(const PyASCIIObject *o)
{
	uint32_t w;

	memcpy(&w, (const char *)o + offsetof(PyASCIIObject, state), sizeof(w));
	return w;
}

#define MASK(field, val) do {					\
	PyASCIIObject o;					\
	memset(&o, 0, sizeof(o));				\
	o.state.field = (val);					\
	printf("\t\t.%s = 0x%x,\n", "uni_" #field, word(&o));	\
} while (0)

int
main(void)
{
	printf("\t{\t/* %s, from its headers by scripts/py-offsets.sh */\n", PY_VERSION);
	printf("\t\t.minor = %d,\n", PY_MINOR_VERSION);
	printf("\t\t.rt_interp_head = %zu,\n", offsetof(_PyRuntimeState, interpreters.head));
	printf("\t\t.is_next = %zu,\n", offsetof(PyInterpreterState, next));
#if PY_VERSION_HEX >= 0x030b0000
	printf("\t\t.is_threads_head = %zu,\n", offsetof(PyInterpreterState, threads.head));
	printf("\t\t.ts_tid = %zu,\n", offsetof(PyThreadState, native_thread_id));
	printf("\t\t.ts_tid_pthread = 0,\n");
#else
	printf("\t\t.is_threads_head = %zu,\n", offsetof(PyInterpreterState, tstate_head));
	printf("\t\t.ts_tid = %zu,\n", offsetof(PyThreadState, thread_id));
	printf("\t\t.ts_tid_pthread = 1,\n");
#endif
	printf("\t\t.ts_next = %zu,\n", offsetof(PyThreadState, next));
#if PY_VERSION_HEX >= 0x030d0000
	printf("\t\t.ts_frame = %zu,\n", offsetof(PyThreadState, current_frame));
	printf("\t\t.cf_frame = -1,\n");
#elif PY_VERSION_HEX >= 0x030b0000
	printf("\t\t.ts_frame = %zu,\n", offsetof(PyThreadState, cframe));
	printf("\t\t.cf_frame = %zu,\n", offsetof(_PyCFrame, current_frame));
#else
	printf("\t\t.ts_frame = %zu,\n", offsetof(PyThreadState, frame));
	printf("\t\t.cf_frame = -1,\n");
#endif
#if PY_VERSION_HEX >= 0x030b0000
	printf("\t\t.fr_previous = %zu,\n", offsetof(_PyInterpreterFrame, previous));
#if PY_VERSION_HEX >= 0x030d0000
	printf("\t\t.fr_code = %zu,\n", offsetof(_PyInterpreterFrame, f_executable));
#else
	printf("\t\t.fr_code = %zu,\n", offsetof(_PyInterpreterFrame, f_code));
#endif
	printf("\t\t.fr_owner = %zu,\n", offsetof(_PyInterpreterFrame, owner));
#if PY_VERSION_HEX >= 0x030d0000
	printf("\t\t.fr_instr = %zu,\n", offsetof(_PyInterpreterFrame, instr_ptr));
#else
	printf("\t\t.fr_instr = %zu,\n", offsetof(_PyInterpreterFrame, prev_instr));
#endif
#if PY_VERSION_HEX >= 0x030c0000
	printf("\t\t.fr_is_entry = -1,\n");
	printf("\t\t.owner_cstack = %d,\n", FRAME_OWNED_BY_CSTACK);
#else
	printf("\t\t.fr_is_entry = %zu,\n", offsetof(_PyInterpreterFrame, is_entry));
	printf("\t\t.owner_cstack = -1,\n");
#endif
	printf("\t\t.co_name = %zu,\n", offsetof(PyCodeObject, co_qualname));
#else
	printf("\t\t.fr_previous = %zu,\n", offsetof(PyFrameObject, f_back));
	printf("\t\t.fr_code = %zu,\n", offsetof(PyFrameObject, f_code));
	printf("\t\t.fr_owner = -1,\n");
	printf("\t\t.fr_instr = -1,\n");
	printf("\t\t.fr_is_entry = -1,\n");
	printf("\t\t.owner_cstack = -1,\n");
	printf("\t\t.co_name = %zu,\n", offsetof(PyCodeObject, co_name));
#endif
	printf("\t\t.co_filename = %zu,\n", offsetof(PyCodeObject, co_filename));
	printf("\t\t.co_firstlineno = %zu,\n", offsetof(PyCodeObject, co_firstlineno));
#if PY_VERSION_HEX >= 0x030a0000
	printf("\t\t.co_linetable = %zu,\n", offsetof(PyCodeObject, co_linetable));
#else
	printf("\t\t.co_linetable = %zu,\n", offsetof(PyCodeObject, co_lnotab));
#endif
#if PY_VERSION_HEX >= 0x030b0000
	printf("\t\t.co_code = %zu,\n", offsetof(PyCodeObject, co_code_adaptive));
	printf("\t\t.fr_lasti = -1,\n");
#else
	printf("\t\t.co_code = -1,\n");
	printf("\t\t.fr_lasti = %zu,\n", offsetof(PyFrameObject, f_lasti));
#endif
	printf("\t\t.bytes_size = %zu,\n", offsetof(PyVarObject, ob_size));
	printf("\t\t.bytes_data = %zu,\n", offsetof(PyBytesObject, ob_sval));
	printf("\t\t.uni_length = %zu,\n", offsetof(PyASCIIObject, length));
	printf("\t\t.uni_state = %zu,\n", offsetof(PyASCIIObject, state));
	printf("\t\t.uni_ascii_size = %zu,\n", sizeof(PyASCIIObject));
	printf("\t\t.uni_compact_size = %zu,\n", sizeof(PyCompactUnicodeObject));
	MASK(kind, 7);
	MASK(compact, 1);
	MASK(ascii, 1);
#if PY_VERSION_HEX < 0x030c0000
	MASK(ready, 1);
#else
	printf("\t\t.uni_ready = 0,\n");
#endif
	printf("\t},\n");
	return 0;
}
EOF_C
for minor in 9 10 11 12 13; do
	v=$(find "$dir" -maxdepth 1 -name "3.$minor.*" | sort -V | tail -n 1)
	if [ -z "$v" ]; then
		echo "py-offsets.sh: no 3.$minor under $dir" >&2
		continue
	fi
	inc=$v/include/python3.$minor
	cc -std=gnu11 -w -I"$inc" -I"$inc/internal" -o "$tmp/off" "$tmp/off.c"
	"$tmp/off"
done
