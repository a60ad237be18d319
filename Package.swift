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
        .library(name: "TrackFiltering", targets: ["TrackFiltering"]),
        .library(name: "RoadNetwork", targets: ["RoadNetwork"]),
        .library(name: "Routing", targets: ["Routing"]),
        .library(name: "OSMImport", targets: ["OSMImport"]),
        .library(name: "GPXCodec", targets: ["GPXCodec"]),
        .library(name: "NMEACodec", targets: ["NMEACodec"]),
        .library(name: "Positioning", targets: ["Positioning"]),
        .executable(name: "geo", targets: ["geo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    ],
    targets: [
        // Pure value types and WGS84 geodesy; everything else depends on it.
        .target(name: "GeoCore", swiftSettings: strictSettings),

        // Clean tracks: filter rules with reasons, Kalman filter + RTS smoother, simplification.
        .target(name: "TrackFiltering", dependencies: ["GeoCore"], swiftSettings: strictSettings),

        // Profiles, the immutable CSR RoadGraph, its builder, file format and spatial index.
        .target(name: "RoadNetwork", dependencies: ["GeoCore"], swiftSettings: strictSettings),

        // Shortest / fastest paths with turn restrictions over a RoadGraph.
        .target(
            name: "Routing",
            dependencies: ["RoadNetwork", .product(name: "HeapModule", package: "swift-collections")],
            swiftSettings: strictSettings
        ),

        // zlib from the system (pkg-config), for PBF blobs and gzip XML.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // OpenStreetMap .osm.pbf / .osm / .osm.gz reading, PBF writing, the sample city.
        .target(name: "OSMImport", dependencies: ["GeoCore", "CZlib", "RoadNetwork"], swiftSettings: strictSettings),

        // GPX 1.0/1.1 streaming reader and writer, track statistics (pure, bytes in / out).
        .target(name: "GPXCodec", dependencies: ["GeoCore"], swiftSettings: strictSettings),

        // NMEA 0183 scanner, parsers, epoch assembly, encoder and gpsd JSON, over bytes.
        .target(name: "NMEACodec", dependencies: ["GeoCore"], swiftSettings: strictSettings),

        // The positioning engine: sources, PositioningManager, live updates, logging, sessions.
        .target(name: "Positioning", dependencies: ["GeoCore", "GPXCodec", "NMEACodec", "TrackFiltering"], swiftSettings: strictSettings),

        // Test helper: appends fixes from stdin to a PositionLog, for the kill -9 crash test.
        .executableTarget(name: "PositionLogCrashHelper", dependencies: ["GeoCore", "Positioning"], swiftSettings: strictSettings),

        // The I/O layer (NIOPosix's job): async child processes (posix_spawn, awaited off the cooperative pool).
        .target(name: "SystemIO", swiftSettings: strictSettings),

        // Test-only helpers: fixture loading via LOCATIONKIT_DATA, a manual clock, child processes.
        .target(name: "GeoTestSupport", dependencies: ["GeoCore", "RoadNetwork", "SystemIO"], swiftSettings: strictSettings),

        // The command-line tool's commands, a thin layer over the library entry points.
        .target(
            name: "GeoCLI",
            dependencies: [
                "GeoCore",
                "RoadNetwork",
                "Routing",
                "OSMImport",
                "GPXCodec",
                "TrackFiltering",
                "NMEACodec",
                "Positioning",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),

        // `geo`: a one-line main over GeoCLI.
        .executableTarget(name: "geo", dependencies: ["GeoCLI"], swiftSettings: strictSettings),

        .testTarget(
            name: "GeoCoreTests",
            dependencies: ["GeoCore", "GeoTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TrackFilteringTests",
            dependencies: ["TrackFiltering", "GeoCore", "GeoTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PositioningTests",
            dependencies: ["Positioning", "GeoTestSupport", "PositionLogCrashHelper", "TrackFiltering", "SystemIO"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SystemIOTests",
            dependencies: ["SystemIO"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GeoTestSupportTests",
            dependencies: ["GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RoadNetworkTests",
            dependencies: ["RoadNetwork", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RoutingTests",
            dependencies: ["Routing", "RoadNetwork", "OSMImport", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "OSMImportTests",
            dependencies: ["OSMImport", "GeoCore", "GeoTestSupport", "RoadNetwork"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GPXCodecTests",
            dependencies: ["GPXCodec", "GeoTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NMEACodecTests",
            dependencies: ["NMEACodec", "GeoCore", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "geoTests",
            dependencies: ["geo", "GeoCore", "GPXCodec", "GeoTestSupport", "SystemIO"],
            swiftSettings: strictSettings
        ),
    ]
)
