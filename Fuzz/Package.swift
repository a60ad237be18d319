// swift-tools-version: 6.1
// LocationKit's libFuzzer harnesses: a nested package (as Benchmarks/ is), so the root package never
// builds a harness. Each executable target is one decoder's fuzz target, handed to libFuzzer's driver
// (FuzzSupport); they link only with `-sanitize=fuzzer`: build and run them with `scripts/fuzz.sh`.
// Each target's folder holds its harness and `seeds/` (small hand-written or minimised inputs; the
// shared real-world files are added to the corpus at run time, never copied here). README.md lists them.
import PackageDescription

let harness: [String] = ["seeds"]

let package = Package(
    name: "LocationKitFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named explicitly: a path dependency's identity is otherwise its folder name.
        .package(name: "LocationKit", path: ".."),
    ],
    targets: [
        // libFuzzer's driver entry point, declared for Swift, and the call every harness makes.
        .systemLibrary(name: "CLibFuzzer", path: "CLibFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CLibFuzzer"], path: "FuzzSupport"),
        .executableTarget(name: "NMEAFuzz", dependencies: ["FuzzSupport", .product(name: "NMEACodec", package: "LocationKit")],
                          path: "NMEAFuzz", exclude: harness),
        .executableTarget(name: "GPXFuzz", dependencies: ["FuzzSupport", .product(name: "GPXCodec", package: "LocationKit"), .product(name: "GeoBase", package: "LocationKit")],
                          path: "GPXFuzz", exclude: harness),
        .executableTarget(name: "OSMXMLFuzz", dependencies: ["FuzzSupport", .product(name: "OSMImport", package: "LocationKit")],
                          path: "OSMXMLFuzz", exclude: harness),
        .executableTarget(name: "PBFFuzz", dependencies: ["FuzzSupport", .product(name: "OSMImport", package: "LocationKit")],
                          path: "PBFFuzz", exclude: harness),
        .executableTarget(name: "GeoJSONFuzz", dependencies: ["FuzzSupport", .product(name: "GeoCore", package: "LocationKit")],
                          path: "GeoJSONFuzz", exclude: harness),
        .executableTarget(name: "RoadGraphFileFuzz",
                          dependencies: ["FuzzSupport", .product(name: "RoadNetwork", package: "LocationKit"),
                                         .product(name: "ZlibCompression", package: "LocationKit")],
                          path: "RoadGraphFileFuzz", exclude: harness),
        .executableTarget(name: "MVTFuzz",
                          dependencies: ["FuzzSupport", .product(name: "MapData", package: "LocationKit"),
                                         .product(name: "ZlibCompression", package: "LocationKit")],
                          path: "MVTFuzz", exclude: harness),
        .executableTarget(name: "PMTilesFuzz", dependencies: ["FuzzSupport", .product(name: "MapData", package: "LocationKit")],
                          path: "PMTilesFuzz", exclude: harness),
        .executableTarget(name: "MBTilesFuzz",
                          dependencies: ["FuzzSupport", .product(name: "MapData", package: "LocationKit"),
                                         .product(name: "TileArchives", package: "LocationKit")],
                          path: "MBTilesFuzz", exclude: harness),
        .executableTarget(name: "TrackingFuzz", dependencies: ["FuzzSupport", .product(name: "TrackingProtocols", package: "LocationKit"),
                                                               .product(name: "GeoCore", package: "LocationKit")],
                          path: "TrackingFuzz", exclude: harness),
        .executableTarget(name: "PNGFuzz", dependencies: ["FuzzSupport", .product(name: "MapRenderer", package: "LocationKit")],
                          path: "PNGFuzz", exclude: harness),
    ]
)
