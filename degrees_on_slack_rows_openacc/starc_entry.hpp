// starc runtime: which runtime functions a translation unit defines (separate compilation).
//
// The runtime is header-only: a generated program builds alone with one compiler command (the
// build hint in its header). The few entry points that pull in most of its code (the command
// line's parser, the graph readers, the results file, a backend's device set-up) are marked
// STARC_ENTRY. starc itself compiles them once per toolchain and flags into starc_runtime.o
// (its build cache) and builds each program with -DSTARC_RUNTIME_SEPARATE, where an entry is
// only declared: the program's own code is then all the compiler generates for it, about half
// of a build's time. starc_runtime.cpp defines STARC_RUNTIME_IMPLEMENTATION as well, so the
// entries are defined there, once, with external linkage. Inline helpers the entries call stay
// inline: a translation unit emits only those it uses.
#ifndef STARC_ENTRY_HPP
#define STARC_ENTRY_HPP

#if !defined(STARC_RUNTIME_SEPARATE)
#define STARC_ENTRY inline
#define STARC_DEFINE_ENTRIES 1
#elif defined(STARC_RUNTIME_IMPLEMENTATION)
#define STARC_ENTRY
#define STARC_DEFINE_ENTRIES 1
#else
#define STARC_ENTRY
#define STARC_DEFINE_ENTRIES 0
#endif

#endif  // STARC_ENTRY_HPP
