/*
 * demangle: C++ (Itanium ABI) and Rust (legacy and v0) symbol names to
 * the form perf prints by default: qualified name with template
 * arguments, without the parameter list (ns::W<double>::spin).
 *
 * Written here because libdw does not demangle and __cxa_demangle would
 * add libstdc++ as a run-time dependency.  It covers the common subset;
 * anything it does not understand is returned as NULL so the caller keeps
 * the mangled name (never a wrong one).
 */
#ifndef PF_DEMANGLE_H
#define PF_DEMANGLE_H

/*
 * The demangled form of name (malloc'ed, the caller frees), or NULL when
 * name is not a mangled name this module understands (errno EINVAL) or
 * on ENOMEM.
 */
char *pf_demangle(const char *name);

#endif
