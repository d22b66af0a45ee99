// libFuzzer harnesses for every parser that reads bytes from strangers, in
// one binary: `FUZZ_TARGET` names the one to run (see `FuzzTarget`), so one
// instrumented build and one link serve them all.
//
// Fuzz build:   fuzz/build.sh (swift build --product Fuzz -c release -Xswiftc -DFUZZING
//               --sanitize=fuzzer --sanitize=address, with coverage flags for every module)
// Fuzz run:     FUZZ_TARGET=dns .build-fuzz/release/Fuzz SCRATCH_DIR fuzz/corpus/dns -max_total_time=30
//               (libFuzzer adds new inputs to the first directory, so keep the seeds second)
// Replay build: swift build --product Fuzz, then FUZZ_TARGET=dns .build/debug/Fuzz FILE...
#if canImport(Glibc)
import Glibc
#endif

/// The target named by `FUZZ_TARGET`, read once; a missing or unknown name
/// stops the process with the list, before any input runs.
private let selected: FuzzTarget = {
    let name = getenv("FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        print("FUZZ_TARGET must be one of: \(names) (got \"\(name)\")")
        exit(2)
    }
    return target
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    selected.run(UnsafeBufferPointer(start: data, count: size))
    return 0
}

#if !FUZZING
/// Corpus replayer: runs each file named on the command line through the
/// selected target; exits 1 if one could not be read (a failing input stops
/// the process at its precondition).
private func replayCorpus() {
    var failures: Int32 = 0
    for path in CommandLine.arguments.dropFirst() {
        guard let contents = FuzzFile.read(path) else {
            print("cannot read \(path)")
            failures += 1
            continue
        }
        // An empty file has no bytes to point at; a one-byte buffer with size 0 stands in.
        _ = contents.isEmpty ? fuzz([0], 0) : contents.withUnsafeBufferPointer { fuzz($0.baseAddress!, $0.count) }
        print("ok \(path)")
    }
    exit(failures == 0 ? 0 : 1)
}

// The fuzz build parses this file as a library (libFuzzer brings `main`), and
// the parser rejects top-level statements even inside an inactive `#if`. A
// global declaration is valid in both modes, and in the replay build, where
// this file is top-level code, its initialiser runs at startup.
private let replayed: Void = replayCorpus()
#endif
