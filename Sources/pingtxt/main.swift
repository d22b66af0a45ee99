#if canImport(Glibc)
import Glibc
#endif

// Top-level code is main-actor isolated; all work happens in CLI.run, an
// ordinary function, so closures it hands to other threads are not.
exit(CLI.run(Array(CommandLine.arguments.dropFirst())))
