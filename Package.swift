// swift-tools-version:6.0
// pingtxt hub. Swift 6 language mode; no packages beyond the toolchain.
import PackageDescription

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
                                                        "Net", "Agent", "CShims"]),
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
