// swift-tools-version:6.0
// pingtxt hub. Swift 6 language mode; no packages beyond the toolchain.
import PackageDescription

/// The folder of this file: the linker needs the order file's absolute path.
let packageRoot = String(#filePath.dropLast("/Package.swift".count))

let package = Package(
    name: "pingtxt",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pingtxt", targets: ["pingtxt"]),
        .executable(name: "Fuzz", targets: ["Fuzz"]),
    ],
    targets: [
        // C libraries and shims.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libpq's headers only (libpq-dev), without pkgConfig: SwiftPM would put
        // pkg-config's `-lpq` on every link line, ahead of any flag that could
        // drop it, and libpq is loaded at run time instead (CLibPQ).
        .systemLibrary(name: "CPostgres"),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLinux"),
        .target(name: "CShims", dependencies: ["CSQLite", "COpenSSL"]),
        // libpq is opened with dlopen on the first PostgreSQL connection
        // (CLibPQ.h says why).
        .target(name: "CLibPQ", dependencies: ["CPostgres"]),

        // Leaf modules.
        .target(name: "Core", dependencies: ["CShims"]),
        .target(name: "Crypto", dependencies: ["COpenSSL", "Core"]),
        .target(name: "HTTP", dependencies: ["Core", "CLinux", "CShims"]),
        .target(name: "Store", dependencies: ["CSQLite", "CPostgres", "CLibPQ", "CShims", "Core"]),
        .target(name: "Config", dependencies: ["Core"]),
        .target(name: "Net", dependencies: ["Core", "HTTP", "Crypto", "COpenSSL", "CShims", "CLinux"]),
        .target(name: "DNS", dependencies: ["Core", "CLinux"]),
        .target(name: "Mail", dependencies: ["Core", "Crypto", "COpenSSL", "CShims", "CLinux"]),
        .target(name: "QR"),

        // Domain.
        .target(name: "Auth", dependencies: ["Core", "Crypto", "Store"]),
        .target(name: "Monitoring", dependencies: ["Core", "Crypto", "Net", "DNS", "Store"]),
        .target(name: "Notify", dependencies: ["Core", "Store", "Net", "Crypto", "Mail"]),
        .target(name: "Agent", dependencies: ["Core", "HTTP", "Net", "Monitoring"]),

        // Surface. Each target's dependencies are exactly the modules its
        // files import (CShims: the C libraries its .c file includes).
        // The top-level Resources/ folder (templates/, static/), embedded; a
        // target's resources must lie inside its path, so the folder is a
        // target of its own with one accessor file.
        .target(name: "WebAssets", path: "Resources", sources: ["WebAssets.swift"],
                resources: [.embedInCode("templates"), .embedInCode("static")]),
        .target(name: "API", dependencies: ["Core", "HTTP", "Store", "Auth", "Config", "Crypto", "Monitoring", "Notify", "QR", "Net",
                                            "WebAssets"]),
        .executableTarget(name: "pingtxt", dependencies: ["API", "Config", "Store", "Auth", "HTTP", "Core", "Monitoring", "Notify", "Mail",
                                                        "Net", "Agent", "CShims"],
                          exclude: ["text-order.txt"],
                          // The order file (see the end of this file); and no exported symbols: the
                          // toolchain's static-stdlib link exports all of ours (~700 KB of symbol
                          // tables, ~500 KB of them resident), and nothing links against the binary.
                          linkerSettings: [.unsafeFlags(["-Xlinker", "--section-ordering-file=\(packageRoot)/Sources/pingtxt/text-order.txt",
                                                         "-Xlinker", "--no-export-dynamic"],
                                                        .when(configuration: .release))]),
        // libFuzzer harnesses for every parser of strangers' bytes (fuzz/build.sh).
        .executableTarget(name: "Fuzz", dependencies: ["Core", "HTTP", "Net", "DNS", "Mail", "Config", "Monitoring"]),
        .executableTarget(name: "CheckBench", dependencies: ["Net", "Core"]),
        // bench/storage.sh: bytes per stored result and the retention pass at fleet scale.
        .executableTarget(name: "StorageBench", dependencies: ["Store", "Monitoring", "Core"]),

        // Test servers shared by the test targets (loopback HTTP, TLS, raw TCP, DNS).
        .target(name: "TestSupport", dependencies: ["Core", "HTTP", "COpenSSL", "CShims", "CLinux", "DNS", "Crypto", "Monitoring",
                                                  "Store", "CPostgres"],
                path: "Tests/TestSupport"),

        .testTarget(name: "CoreTests", dependencies: ["Core"]),
        .testTarget(name: "QRTests", dependencies: ["QR"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "Core"]),
        .testTarget(name: "StoreTests", dependencies: ["Store", "Core", "TestSupport"]),
        .testTarget(name: "ConfigTests", dependencies: ["Config", "Core"]),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "Crypto", "Store", "Core", "TestSupport"]),
        .testTarget(name: "APITests", dependencies: ["API", "Auth", "HTTP", "Core", "Crypto", "Store", "Mail", "DNS", "Monitoring", "Notify",
                                                 "TestSupport"]),
        .testTarget(name: "NetTests", dependencies: ["Net", "HTTP", "Core", "TestSupport"]),
        .testTarget(name: "DNSTests", dependencies: ["DNS", "Core", "TestSupport"]),
        .testTarget(name: "MonitoringTests", dependencies: ["Monitoring", "Core", "Store", "TestSupport"]),
        .testTarget(name: "MailTests", dependencies: ["Mail", "Core", "TestSupport"]),
        .testTarget(name: "AgentTests", dependencies: ["Agent", "Monitoring", "Net", "Core", "TestSupport"]),
        .testTarget(name: "NotifyTests", dependencies: ["Notify", "Core", "Store", "Monitoring", "Net", "Mail", "TestSupport"]),
    ]
)

// Idle memory (issue 20; bench/README.md "Idle RSS"): in release builds every
// function gets a section of its own, and the linker lays out the functions
// that start-up and an idle hub run together, in the order of
// Sources/pingtxt/text-order.txt (bench/text-order.sh writes it). The kernel
// maps 64 KB of a binary around each page fault, so start-up code scattered
// over the whole text kept nearly all of it resident. LLVM's function
// merging is off: the thunks it leaves have no symbol, so they could not be
// ordered and each dragged a 64 KB block of cold code in.
for target in package.targets where target.type != .system {
    let cTargets = ["CShims", "CLibPQ"]
    if cTargets.contains(target.name) {
        target.cSettings = (target.cSettings ?? []) + [.unsafeFlags(["-ffunction-sections"], .when(configuration: .release))]
    } else {
        target.swiftSettings = (target.swiftSettings ?? [])
            + [.unsafeFlags(["-Xfrontend", "-function-sections", "-Xfrontend", "-disable-llvm-merge-functions-pass"],
                            .when(configuration: .release))]
    }
}
