// swift-tools-version: 6.1
// LocationKit benchmarks: a nested package so the root package never depends on a harness.
import PackageDescription

let package = Package(
    name: "LocationKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named explicitly: a path package is otherwise identified by its folder name (main, a worktree…).
        .package(name: "LocationKit", path: ".."),
    ],
    targets: [
        // Read-all throughput of the OSM PBF reader (driver: Benchmarks/osm.sh, peer: osmium).
        .executableTarget(
            name: "OSMBench",
            dependencies: [.product(name: "OSMImport", package: "LocationKit")]
        ),
        // Graph build time and route latency (driver: Benchmarks/routing.sh, peer: OSRM).
        .executableTarget(
            name: "RoutingBench",
            dependencies: [
                .product(name: "OSMImport", package: "LocationKit"),
                .product(name: "RoadNetwork", package: "LocationKit"),
                .product(name: "Routing", package: "LocationKit"),
            ]
        ),
    ]
)
