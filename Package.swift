// swift-tools-version:6.1
import PackageDescription

// Layers, bottom to top:
//   CLibXML2, CloudSyncZlib, CSQLite3   system libraries (C)
//   CloudSyncCore        the export format, the HealthMetric model, mapping and writers
//   CloudSyncStore       the SQLite staging store (import, status, export, aggregate)
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
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strictSettings + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]
        ),
        .target(
            name: "CloudSyncStore",
            dependencies: ["CloudSyncCore", "CSQLite3"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "cloudsync",
            dependencies: [
                "CloudSyncCore",
                "CloudSyncStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncCoreTests",
            dependencies: ["CloudSyncCore", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncStoreTests",
            dependencies: ["CloudSyncStore", "CloudSyncCore", "CSQLite3"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CloudSyncCLITests",
            dependencies: ["CloudSyncCore", "CloudSyncStore", "cloudsync"],
            swiftSettings: strictSettings
        ),
    ]
)
