// swift-tools-version:6.1
import PackageDescription

// Layers, bottom to top:
//   CLibXML2, CloudSyncZlib, CSQLite3   system libraries (C)
//   CloudSyncCore        the export format, the HealthMetric model, mapping and writers
//   CloudSyncStore       the SQLite staging store (import, status, export, aggregate)
//   CloudSyncUpload      the uploader (AsyncHTTPClient) for CloudCare, Flō backfill, HealthStepsSync
//   CloudSyncReceiver    `serve`: the receiver of the three wire contracts (Hummingbird)
//   CloudSyncPairing     the pairing object and its QR code (libqrencode)
//   cloudsync            the command-line tool on top
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "CloudSync",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "CloudSyncCore", targets: ["CloudSyncCore"]),
        .library(name: "CloudSyncStore", targets: ["CloudSyncStore"]),
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
        .target(
            name: "CloudSyncCore",
            dependencies: [
                "CLibXML2",
                "CloudSyncZlib",
            ],
            swiftSettings: strictSettings + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
        ),
        .target(
            name: "CloudSyncStore",
            dependencies: ["CloudSyncCore", "CSQLite3"],
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
                "CloudSyncCore", "CloudSyncStore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
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
                "CloudSyncCore", "CloudSyncStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CloudSyncPairing",
            dependencies: ["CloudSyncCore", "CQRencode", "CloudSyncZlib"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "cloudsync",
            dependencies: [
                "CloudSyncCore",
                "CloudSyncStore",
                "CloudSyncUpload",
                "CloudSyncReceiver",
                "CloudSyncPairing",
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
            dependencies: ["CloudSyncCore", "CLibFuzzer"],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "FuzzExport", dependencies: ["CloudSyncFuzzing"], swiftSettings: strictSettings),
        .executableTarget(name: "FuzzParsers", dependencies: ["CloudSyncFuzzing"], swiftSettings: strictSettings),
        .testTarget(
            name: "CloudSyncCoreTests",
            dependencies: ["CloudSyncCore", "CloudSyncFuzzing", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncStoreTests",
            dependencies: ["CloudSyncStore", "CloudSyncCore", "CSQLite3"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncCLITests",
            dependencies: ["CloudSyncCore", "CloudSyncStore", "CloudSyncUpload", "CloudSyncReceiver", "cloudsync",
                           .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strictSettings
        ),
    ]
)
