// swift-tools-version: 6.1
// LocationKit benchmarks: a nested package so the root package never depends on a harness
// (STYLE.md §3.15). Run the drivers (*.sh) from here or the package root.
import PackageDescription

let package = Package(
    name: "LocationKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named explicitly: a path dependency's identity is its folder name (a worktree, a clone …).
        .package(name: "LocationKit", path: ".."),
    ],
    targets: [
        // In-process WGS84 geodesic inverse throughput on 1,000,000 seeded random pairs.
        .executableTarget(
            name: "GeodesicBench",
            dependencies: [.product(name: "GeoCore", package: "LocationKit")]
        ),
    ]
)
