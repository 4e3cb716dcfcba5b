/*
 * demangle: C++ (Itanium ABI) and Rust (legacy and v0) symbol names to
 * the form Debian's perf 6.1 prints: libiberty's demanglers with no
 * options, so a qualified name with template arguments and without the
 * parameter list or clone suffix (ns::W<double>::spin), Rust without
 * hashes or crate disambiguators (mycrate::foo::bar).
 *
 * Symbol names come from the target's binaries, and a name of 200 bytes
 * can expand to gigabytes (nested template back-references), so the work
 * is capped: see pf_demangle().  libiberty is linked statically; it adds
 * no run-time dependency.
 */
#ifndef PF_DEMANGLE_H
#define PF_DEMANGLE_H

/*
 * A mangled name of this many bytes or more is not demangled: the parser
 * keeps tables proportional to the name on the stack.  The longest C++ or
 * Rust symbol in a Debian 12 install with LLVM and a Rust toolchain is
 * 2265 bytes.
 */
#define PF_DEMANGLE_MAX_IN	4096

/*
 * A demangled name longer than this is abandoned as soon as it gets
 * there, and the name stays mangled (never cut: a cut name could read as
 * another function).  The same install's longest demangled name is 4088
 * bytes.
 */
#define PF_DEMANGLE_MAX_OUT	16384

/*
 * The demangled form of name (malloc'ed, the caller frees), or NULL when
 * name is not a mangled name (errno EINVAL), is over one of the caps
 * above (errno E2BIG), or on ENOMEM.  Time and memory are bounded by the
 * caps whatever the name holds.
 */
char *pf_demangle(const char *name);

#endif
