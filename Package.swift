// swift-tools-version:6.1
import PackageDescription

// Layers, bottom to top:
//   CLibXML2, CloudSyncZlib, CSQLite3, CLibPQ   system libraries (C)
//   CloudSyncModel       HealthMetric and the other records, bytes, dates, numbers, JSON and CloudCare
//                        writers, the external sort (no C dependency)
//   CloudSyncHealthAutoExport  Health Auto Export's JSON (pushes and files) read and mapped to HealthMetric
//   CloudSyncArchive     the input as a file or a zip: seekable (central directory) or streaming, inflate
//   CloudSyncExport      the readers of each entry kind (export XML via libxml2 SAX, GPX, ECG CSV), the
//                        mapping to HealthMetric, conversion and inspection
//   CloudSyncStore       the SQLite staging store: one import session that any reader writes into, one
//                        definition of what counts, the queries and the upload ledger (the model and SQLite only)
//   CloudSyncKinds       the record kinds besides metrics (routes, ECGs, …): how each is read and kept, and their registry
//   CloudSyncInputs      an input a person names (an export, Health Auto Export's JSON) told apart,
//                        and its reader run into the store's import session
//   CloudSyncUpload      the uploader (AsyncHTTPClient) for CloudCare, Flō backfill, HealthStepsSync
//   CloudSyncReceiver    `serve`: the receiver of the three wire contracts (Hummingbird)
//   CloudSyncPairing     the pairing object and its QR code (libqrencode)
//   CloudSyncMCP         `mcp`: the Model Context Protocol server over the store (modelcontextprotocol/swift-sdk)
//   cloudsync            the command-line tool on top
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "CloudSync",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "CloudSyncModel", targets: ["CloudSyncModel"]),
        .library(name: "CloudSyncExport", targets: ["CloudSyncExport"]),
        .library(name: "CloudSyncStore", targets: ["CloudSyncStore"]),
        .library(name: "CloudSyncKinds", targets: ["CloudSyncKinds"]),
        .library(name: "CloudSyncHealthAutoExport", targets: ["CloudSyncHealthAutoExport"]),
        .library(name: "CloudSyncInputs", targets: ["CloudSyncInputs"]),
        .executable(name: "cloudsync", targets: ["cloudsync"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.36.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibXML2",
            pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]
        ),
        .systemLibrary(
            name: "CloudSyncZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite3",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The store's PostgreSQL engine: libpq's synchronous calls fit the store, which runs on
        // threads of its own with one connection each, as it does with SQLite.
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .target(
            name: "CloudSyncModel",
            swiftSettings: strictSettings
        ),
        // Health Auto Export's JSON (the iOS app's pushes and files): its reader and its mapping to
        // HealthMetric, a second source of records beside the export (no C dependency).
        .target(
            name: "CloudSyncHealthAutoExport",
            dependencies: ["CloudSyncModel"],
            swiftSettings: strictSettings
        ),
        // The zip's CRC-32 by carry-less multiplication (C: processor intrinsics), zlib's for the rest.
        .target(
            name: "CCRC32",
            linkerSettings: [.linkedLibrary("z")]
        ),
        .target(
            name: "CloudSyncArchive",
            dependencies: ["CloudSyncModel", "CloudSyncZlib", "CCRC32"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudSyncExport",
            dependencies: ["CloudSyncModel", "CloudSyncArchive", "CLibXML2"],
            swiftSettings: strictSettings
        ),
        // The import's chunks of rows as a virtual table (C: SQLite's module interface).
        .target(
            name: "CSQLiteRows",
            linkerSettings: [.linkedLibrary("sqlite3")]
        ),
        .target(
            name: "CloudSyncStore",
            dependencies: ["CloudSyncModel", "CSQLite3", "CSQLiteRows", "CLibPQ"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudSyncKinds",
            dependencies: ["CloudSyncModel", "CloudSyncExport", "CloudSyncStore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudSyncInputs",
            dependencies: ["CloudSyncModel", "CloudSyncArchive", "CloudSyncExport", "CloudSyncHealthAutoExport", "CloudSyncStore", "CloudSyncKinds"],
            swiftSettings: strictSettings
        ),
        .systemLibrary(
            name: "CQRencode",
            pkgConfig: "libqrencode",
            providers: [.apt(["libqrencode-dev"])]
        ),
        .target(
            name: "CloudSyncUpload",
            dependencies: [
                "CloudSyncModel", "CloudSyncStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudSyncReceiver",
            dependencies: [
                "CloudSyncModel", "CloudSyncStore", "CloudSyncHealthAutoExport", "CloudSyncInputs",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudSyncReport",
            dependencies: ["CloudSyncModel", "CloudSyncStore"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudSyncMCP",
            dependencies: [
                "CloudSyncModel", "CloudSyncStore", "CloudSyncKinds",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudSyncPairing",
            dependencies: ["CloudSyncModel", "CQRencode", "CloudSyncZlib"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "cloudsync",
            dependencies: [
                "CloudSyncModel",
                "CloudSyncHealthAutoExport",
                "CloudSyncExport",
                "CloudSyncStore",
                "CloudSyncKinds",
                "CloudSyncInputs",
                "CloudSyncUpload",
                "CloudSyncReceiver",
                "CloudSyncPairing",
                "CloudSyncMCP",
                "CloudSyncReport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The fuzz targets (scripts/fuzz.sh builds them with -sanitize=fuzzer and -DFUZZING;
        // a normal build makes them replay the files they are given).
        .systemLibrary(name: "CLibFuzzer"),
        .target(
            name: "CloudSyncFuzzing",
            dependencies: ["CloudSyncModel", "CloudSyncExport", "CloudSyncHealthAutoExport", "CloudSyncKinds", "CLibFuzzer"],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "FuzzExport", dependencies: ["CloudSyncFuzzing"], swiftSettings: strictSettings),
        .executableTarget(name: "FuzzParsers", dependencies: ["CloudSyncFuzzing"], swiftSettings: strictSettings),
        // Tests mirror the targets; their shared helpers (paths, the corpus, temporary folders, a store
        // per test, zips, the collecting sink, the binary as a user runs it) are in CloudSyncTesting.
        .target(
            name: "CloudSyncTesting",
            dependencies: ["CloudSyncModel", "CloudSyncStore", "CloudSyncKinds",
                           .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            path: "Tests/CloudSyncTesting",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncModelTests",
            dependencies: ["CloudSyncModel", "CloudSyncTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncHealthAutoExportTests",
            dependencies: ["CloudSyncHealthAutoExport", "CloudSyncModel", "CloudSyncTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncArchiveTests",
            dependencies: ["CloudSyncArchive", "CCRC32", "CloudSyncModel", "CloudSyncTesting",
                           .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncExportTests",
            dependencies: ["CloudSyncExport", "CloudSyncArchive", "CloudSyncModel", "CloudSyncFuzzing", "CloudSyncTesting",
                           .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncStoreTests",
            dependencies: ["CloudSyncStore", "CloudSyncExport", "CloudSyncModel", "CloudSyncKinds", "CloudSyncInputs",
                           "CloudSyncHealthAutoExport", "CSQLite3", "CloudSyncTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncKindsTests",
            dependencies: ["CloudSyncKinds", "CloudSyncExport", "CloudSyncStore", "CloudSyncModel", "CloudSyncInputs", "CloudSyncTesting",
                           .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncPairingTests",
            dependencies: ["CloudSyncPairing", "CloudSyncModel", "CloudSyncZlib", "CloudSyncReceiver", "CloudSyncStore", "CloudSyncTesting",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdTesting", package: "hummingbird"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncMCPTests",
            dependencies: ["CloudSyncMCP", "CloudSyncStore", "CloudSyncKinds", "CloudSyncModel"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncUploadTests",
            dependencies: ["CloudSyncUpload", "CloudSyncStore", "CloudSyncExport", "CloudSyncModel"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncReportTests",
            dependencies: ["CloudSyncReport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncInputsTests",
            dependencies: ["CloudSyncInputs", "CloudSyncStore", "CloudSyncKinds", "CloudSyncHealthAutoExport", "CloudSyncTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncReceiverTests",
            dependencies: ["CloudSyncReceiver", "CloudSyncStore", "CloudSyncKinds", "CloudSyncTesting",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdTesting", package: "hummingbird"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncCLITests",
            dependencies: ["CloudSyncExport", "CloudSyncModel", "CloudSyncStore", "CloudSyncKinds", "CloudSyncInputs", "CloudSyncUpload", "CloudSyncReceiver",
                           "cloudsync", "CloudSyncTesting", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strictSettings
        ),
    ]
)
