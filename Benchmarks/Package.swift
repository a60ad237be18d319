// swift-tools-version: 6.1
// LocationKit benchmarks: a nested package so the root package never depends on benchmark
// code (STYLE.md §3.15). One executable per benchmark, driven by Benchmarks/<name>.sh.
import PackageDescription

let package = Package(
    name: "LocationKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "LocationKit", path: ".."),
    ],
    targets: [
        // NMEA decoding throughput (sentences/s, MB/s) on a large concatenated capture.
        .executableTarget(
            name: "NMEABench",
            dependencies: [.product(name: "NMEACodec", package: "LocationKit")]
        ),
    ]
)
