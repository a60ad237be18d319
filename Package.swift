// swift-tools-version: 6.1
// LocationKit — an open Swift location & maps SDK. Module layout: ../shared/DESIGN.md §2.
import PackageDescription

/// Strict settings every target shares (STYLE.md §3.20, as Hummingbird does).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "LocationKit",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "GeoCore", targets: ["GeoCore"]),
        .library(name: "NMEACodec", targets: ["NMEACodec"]),
        .executable(name: "geo", targets: ["geo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Pure value types and WGS84 geodesy; everything else depends on it.
        .target(name: "GeoCore", swiftSettings: strictSettings),

        // NMEA 0183 scanner, parsers, epoch assembly, encoder and gpsd JSON, over bytes.
        .target(name: "NMEACodec", dependencies: ["GeoCore"], swiftSettings: strictSettings),

        // Test-only helpers: fixture loading via LOCATIONKIT_DATA, a manual clock.
        .target(name: "GeoTestSupport", dependencies: ["GeoCore"], swiftSettings: strictSettings),

        // The command-line tool, a thin layer over the libraries.
        .executableTarget(
            name: "geo",
            dependencies: [
                "GeoCore",
                "NMEACodec",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),

        .testTarget(
            name: "GeoCoreTests",
            dependencies: ["GeoCore", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NMEACodecTests",
            dependencies: ["NMEACodec", "GeoCore", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "geoTests",
            dependencies: ["geo", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
    ]
)
