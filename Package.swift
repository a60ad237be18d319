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
        .library(name: "RoadNetwork", targets: ["RoadNetwork"]),
        .library(name: "Routing", targets: ["Routing"]),
        .library(name: "OSMImport", targets: ["OSMImport"]),
        .executable(name: "geo", targets: ["geo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
    ],
    targets: [
        // Pure value types and WGS84 geodesy; everything else depends on it.
        .target(name: "GeoCore", swiftSettings: strictSettings),

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

        // Test-only helpers: fixture loading via LOCATIONKIT_DATA, a manual clock.
        .target(name: "GeoTestSupport", dependencies: ["GeoCore", "RoadNetwork"], swiftSettings: strictSettings),

        // The command-line tool, a thin layer over the libraries.
        .executableTarget(
            name: "geo",
            dependencies: [
                "GeoCore",
                "RoadNetwork",
                "Routing",
                "OSMImport",
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
            name: "geoTests",
            dependencies: ["geo", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
    ]
)
