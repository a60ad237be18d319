// swift-tools-version: 6.1
// LocationKit benchmarks: a nested package so the root package never depends on a harness
// (STYLE.md §3.15). Each benchmark has a driver script (Benchmarks/*.sh) that builds in release
// mode, runs the peer named in its issue on the same input and prints the ratio.
import PackageDescription

let package = Package(
    name: "LocationKitBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named explicitly: a path dependency's identity is otherwise its folder name (a worktree, a clone …).
        .package(name: "LocationKit", path: ".."),
    ],
    targets: [
        // What several benchmarks share: the seeded generator.
        .target(name: "BenchSupport"),
        // In-process WGS84 geodesic inverse throughput on 1,000,000 seeded random pairs.
        .executableTarget(
            name: "GeodesicBench",
            dependencies: ["BenchSupport", .product(name: "GeoCore", package: "LocationKit")]
        ),
        // Read-all throughput of the OSM PBF reader (driver: Benchmarks/osm.sh, peer: osmium).
        .executableTarget(
            name: "OSMBench",
            dependencies: [.product(name: "OSMImport", package: "LocationKit")]
        ),
        // GPX parse throughput: our pull reader vs FoundationXML's XMLParser (driver: Benchmarks/gpx.sh, peer: gpxpy).
        .executableTarget(
            name: "GPXBench",
            dependencies: ["BenchSupport", .product(name: "GPXCodec", package: "LocationKit"), .product(name: "GeoBase", package: "LocationKit")]
        ),
        // Peak RSS of the fixed-lag RTS smoother on a generated walk that is never stored (driver: Benchmarks/rss.sh).
        .executableTarget(
            name: "SmoothBench",
            dependencies: [
                "BenchSupport",
                .product(name: "GeoCore", package: "LocationKit"),
                .product(name: "TrackFiltering", package: "LocationKit"),
            ]
        ),
        // Rules + Kalman throughput on a 1,000,000-fix seeded noisy drive (driver: Benchmarks/filters.sh, peer: pykalman).
        .executableTarget(
            name: "FilterBench",
            dependencies: [
                "BenchSupport",
                .product(name: "GeoCore", package: "LocationKit"),
                .product(name: "GPXCodec", package: "LocationKit"),
                .product(name: "TrackFiltering", package: "LocationKit"),
            ]
        ),
        // NMEA decoding throughput (sentences/s, MB/s) on a large concatenated capture (driver: Benchmarks/nmea.sh, peer: gpsdecode).
        .executableTarget(
            name: "NMEABench",
            dependencies: [.product(name: "NMEACodec", package: "LocationKit")]
        ),
        // Crash-safe position log: per-fix append, reopen (recover + rewrite), read back (driver: Benchmarks/poslog.sh, peer: gpxpy).
        .executableTarget(
            name: "PositionLogBench",
            dependencies: ["BenchSupport", .product(name: "Positioning", package: "LocationKit"), .product(name: "GeoCore", package: "LocationKit")]
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
        // Replay source → PositioningManager → two subscribers, as fast as possible: fixes/s and RSS (driver: Benchmarks/pipeline.sh).
        .executableTarget(
            name: "PipelineBench",
            dependencies: ["BenchSupport", .product(name: "Positioning", package: "LocationKit"), .product(name: "GeoCore", package: "LocationKit")]
        ),
        // Region monitoring: fixes/s over 100,000 conditions, and event delays on drives through Monaco (driver: Benchmarks/monitor.sh).
        .executableTarget(
            name: "MonitorBench",
            dependencies: [
                "BenchSupport",
                .product(name: "GeoCore", package: "LocationKit"),
                .product(name: "Monitoring", package: "LocationKit"),
                .product(name: "Positioning", package: "LocationKit"),
            ]
        ),
        // Offline rendering: a 512² frame, raster tiles/s per zoom, PNG apart (driver: Benchmarks/render.sh, peer: Mapnik).
        .executableTarget(
            name: "RenderBench",
            dependencies: [
                .product(name: "MapRenderer", package: "LocationKit"),
                .product(name: "MapStyle", package: "LocationKit"),
                .product(name: "StyleRendering", package: "LocationKit"),
                .product(name: "MapData", package: "LocationKit"),
                .product(name: "OSMImport", package: "LocationKit"),
                .product(name: "TileArchives", package: "LocationKit"),
            ]
        ),
        // Map view frames/s, 1280×720: Monaco z15 tilted 45°, the globe at z2 (driver: Benchmarks/view.sh, peer: pymgl).
        .executableTarget(
            name: "ViewBench",
            dependencies: [
                .product(name: "MapView", package: "LocationKit"),
                .product(name: "MapStyle", package: "LocationKit"),
                .product(name: "MapCamera", package: "LocationKit"),
                .product(name: "MapRenderer", package: "LocationKit"),
                .product(name: "MapData", package: "LocationKit"),
                .product(name: "OSMImport", package: "LocationKit"),
            ]
        ),
    ]
)
