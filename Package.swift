// swift-tools-version: 6.1
// LocationKit — an open Swift location & maps SDK. Module layout: ../shared/DESIGN.md §2.
import PackageDescription

/// The header paths of the C libraries opened on first use instead of linked
/// (Sources/CLazyLibrary/lazy_library.h says why): libdbus (`pkg-config --cflags dbus-1` on
/// Debian and Ubuntu, both architectures), HarfBuzz and FreeType (their own directories of
/// `pkg-config --cflags-only-I harfbuzz freetype2`). Their shims have no pkgConfig because
/// pkg-config's flags would also link them. Every target gets the paths: not only BeaconScanning
/// and MapRenderer, which import the shims, but any module that imports those two may have to
/// rebuild the shims' C modules (debug builds' modules and release builds' cross-module
/// optimisation load them).
let lazyLibraryHeaders: SwiftSetting = .unsafeFlags(["-Xcc", "-I/usr/include/dbus-1.0",
                                                     "-Xcc", "-I/usr/lib/x86_64-linux-gnu/dbus-1.0/include",
                                                     "-Xcc", "-I/usr/lib/aarch64-linux-gnu/dbus-1.0/include",
                                                     "-Xcc", "-I/usr/include/harfbuzz", "-Xcc", "-I/usr/include/freetype2",
                                                     "-Xcc", "-I/usr/include/librsvg-2.0", "-Xcc", "-I/usr/include/glib-2.0",
                                                     "-Xcc", "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include",
                                                     "-Xcc", "-I/usr/lib/aarch64-linux-gnu/glib-2.0/include",
                                                     "-Xcc", "-I/usr/include/gdk-pixbuf-2.0", "-Xcc", "-I/usr/include/cairo"],
                                                    .when(platforms: [.linux]))

/// Settings every target shares: strict language features (STYLE.md §3.20, as Hummingbird does)
/// and `lazyLibraryHeaders`.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    lazyLibraryHeaders,
]

/// `GEO_INTERNAL_CHECKS=1 swift build` compiles the `_checkInvariants()` bodies (RoadNetwork's
/// CSR and cross-reference checks, the LRU cache, FenceIndex, MapFeatureIndex), run at the end
/// of every init and load (FenceIndex: by its tests), into the targets
/// that have them and into their tests; CI builds once that way. swift-collections' pattern
/// (COLLECTIONS_INTERNAL_CHECKS).
let internalChecks: [SwiftSetting] = Context.environment["GEO_INTERNAL_CHECKS"] == "1" ? [.define("GEO_INTERNAL_CHECKS")] : []

let package = Package(
    name: "LocationKit",
    platforms: [.macOS(.v15), .iOS(.v18)],
    products: [
        .library(name: "GeoBase", targets: ["GeoBase"]),
        .library(name: "GeoCore", targets: ["GeoCore"]),
        .library(name: "TrackFiltering", targets: ["TrackFiltering"]),
        .library(name: "RoadNetwork", targets: ["RoadNetwork"]),
        .library(name: "Routing", targets: ["Routing"]),
        .library(name: "OSMImport", targets: ["OSMImport"]),
        .library(name: "GPXCodec", targets: ["GPXCodec"]),
        .library(name: "NMEACodec", targets: ["NMEACodec"]),
        .library(name: "MapMatching", targets: ["MapMatching"]),
        .library(name: "MapCamera", targets: ["MapCamera"]),
        .library(name: "Positioning", targets: ["Positioning"]),
        .library(name: "Monitoring", targets: ["Monitoring"]),
        .library(name: "Compass", targets: ["Compass"]),
        .library(name: "BeaconScanning", targets: ["BeaconScanning"]),
        .library(name: "SystemIO", targets: ["SystemIO"]),
        .library(name: "ZlibCompression", targets: ["ZlibCompression"]),
        .library(name: "MapData", targets: ["MapData"]),
        .library(name: "MapRenderer", targets: ["MapRenderer"]),
        .library(name: "TileArchives", targets: ["TileArchives"]),
        .library(name: "MapView", targets: ["MapView"]),
        .library(name: "MapStyle", targets: ["MapStyle"]),
        .library(name: "StyleRendering", targets: ["StyleRendering"]),
        .library(name: "TrackingProtocols", targets: ["TrackingProtocols"]),
        .executable(name: "geo", targets: ["geo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        // The live map page's server only (target MapLivePage).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Already in the graph through Hummingbird; HTTPServing names them for the pipeline
        // handler, the WebSocket frame, the shutdown deadline and the logger type.
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // The tracking server's embedded store only (target TrackingServer).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The tracking server's scale-out store only (target TrackingServer, `--postgres`).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // `geo loadgen`'s latency histogram only (target TrackingServer).
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0"),
    ],
    targets: [
        // Below the bottom: the platform's Foundation and C library, chosen once and re-exported.
        .target(name: "Platform", swiftSettings: strictSettings),

        // The bottom (DESIGN.md §2): what every layer shares — `ErrorCode`, the byte source and
        // sink protocols and the line reader over a source, UTC timestamps (ISO 8601 in and
        // out), the JSON string escaper, fixed-decimal numbers, the decimal parser, the LRU
        // cache, the seeded generator.
        .target(name: "GeoBase", dependencies: ["Platform"], swiftSettings: strictSettings + internalChecks),

        // Pure value types and WGS84 geodesy.
        .target(name: "GeoCore", dependencies: ["Platform", "GeoBase"], swiftSettings: strictSettings),

        // Profiles, the immutable CSR RoadGraph, its builder, file format and spatial index.
        .target(name: "RoadNetwork", dependencies: ["Platform", "GeoBase", "GeoCore", "ZlibCompression"], swiftSettings: strictSettings + internalChecks),

        // Shortest / fastest paths with turn restrictions over a RoadGraph.
        .target(
            name: "Routing",
            dependencies: ["GeoBase", "RoadNetwork", .product(name: "HeapModule", package: "swift-collections")],
            swiftSettings: strictSettings
        ),

        // zlib from the system (pkg-config); only ZlibCompression imports it.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libdeflate from the system (pkg-config, Debian libdeflate-dev): whole-buffer zlib
        // decompression of known size, for PBF blobs; only ZlibCompression imports it.
        .systemLibrary(name: "CLibDeflate", path: "Sources/CLibDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]),

        // The one XML tokenizer: a byte-level streaming pull scanner, shared by GPX and OSM XML.
        .target(name: "XMLStreaming", dependencies: ["Platform", "GeoBase"], swiftSettings: strictSettings),

        // The compression module (DESIGN.md §2): zlib inflate / deflate and gzip over the system
        // libraries, for PBF blobs, .osm.gz and the map modules' PNG, MVT and PMTiles. Not named
        // `Compression`: that is Apple's framework on Darwin, and `import Compression` would be
        // ambiguous there. PBF blobs inflate through libdeflate (`SizedInflater`).
        .target(name: "ZlibCompression", dependencies: ["GeoBase", "CZlib", "CLibDeflate"], swiftSettings: strictSettings),

        // GPX 1.0/1.1 streaming reader and writer, track statistics (pure, bytes in / out).
        .target(name: "GPXCodec", dependencies: ["Platform", "GeoBase", "GeoCore", "XMLStreaming"], swiftSettings: strictSettings),

        // Clean tracks: filter rules with reasons, Kalman filter + RTS smoother, simplification;
        // the cleaning and smoothing as GPXCodec's segment filters (geo gpx clean / smooth).
        .target(name: "TrackFiltering", dependencies: ["Platform", "GeoBase", "GeoCore", "GPXCodec"], swiftSettings: strictSettings),

        // The I/O module (DESIGN.md §2, NIOPosix's job): descriptors, file byte sources and sinks,
        // a buffered writer, TCP and serial endpoints, atomic file replacement, async child
        // processes (posix_spawn, awaited off the cooperative pool); every descriptor close-on-exec. Its file types
        // conform to GeoBase's byte source and sink protocols (as NIOPosix implements NIOCore's
        // abstractions); it depends on no codec.
        // glibc's <malloc.h> (malloc_trim), which the Glibc module leaves out; part of libc, nothing to link.
        .systemLibrary(name: "CMalloc", path: "Sources/CMalloc"),
        .target(name: "SystemIO", dependencies: ["Platform", "GeoBase", "GeoCore", .target(name: "CMalloc", condition: .when(platforms: [.linux]))],
                swiftSettings: strictSettings),

        // Protocol Buffers wire format (varints, zigzag, fields), shared by the OSM PBF codec and MVT.
        .target(name: "ProtobufWire", swiftSettings: strictSettings),

        // OSM elements → map features in the layer schema; MVT, tiling, PMTiles (pure, bytes in / out).
        .target(name: "MapData", dependencies: ["Platform", "GeoBase", "GeoCore", "ProtobufWire", "ZlibCompression"], swiftSettings: strictSettings),

        // SQLite from the system (pkg-config sqlite3, Debian libsqlite3-dev), for MBTiles; only
        // TileArchives imports it. The system library rather than GRDB (which this environment
        // also provides): MBTiles needs four statements, and GRDB would add its build to every
        // fresh CI build for them.
        .systemLibrary(name: "CSQLite3", path: "Sources/CSQLite3", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),

        // Tile archives on disk (I/O): PMTiles files through SystemIO, MBTiles through SQLite;
        // OpenStreetMap extracts cut into them (OSMImport reads the extract).
        .target(name: "TileArchives", dependencies: ["Platform", "GeoBase", "GeoCore", "MapData", "OSMImport", "SystemIO", "CSQLite3"], swiftSettings: strictSettings),

        // OpenStreetMap .osm.pbf / .osm / .osm.gz reading, PBF writing, the sample city and its
        // demo route.
        .target(
            name: "OSMImport",
            dependencies: ["Platform", "GeoBase", "GeoCore", "RoadNetwork", "Routing", "MapData", "ProtobufWire", "SystemIO", "XMLStreaming", "ZlibCompression"],
            swiftSettings: strictSettings
        ),

        // NMEA 0183 scanner, parsers, epoch assembly, encoder and gpsd JSON, over bytes.
        .target(name: "NMEACodec", dependencies: ["Platform", "GeoBase", "GeoCore"], swiftSettings: strictSettings),

        // Headings (true, magnetic, from NMEA and gpsd) and the World Magnetic Model (pure).
        .target(name: "Compass", dependencies: ["Platform", "GeoBase", "GeoCore", "NMEACodec"], swiftSettings: strictSettings),

        // Map matching (pure): Newson & Krumm's HMM offline and online, over RoadNetwork and Routing.
        .target(name: "MapMatching", dependencies: ["Platform", "GeoBase", "GeoCore", "RoadNetwork", "Routing"], swiftSettings: strictSettings),

        // libdbus's headers (Debian libdbus-1-dev), for the BlueZ beacon scanner; only BeaconScanning
        // imports it, on Linux. The library is opened on first use (CDBus/shim.h says why), not
        // linked; its header paths are `lazyLibraryHeaders`.
        .systemLibrary(name: "CDBus", path: "Sources/CDBus", providers: [.apt(["libdbus-1-dev"])]),

        // Regions (circle, polygon, beacon identity) decided with the fix's accuracy, persisted
        // monitors, visits (pure but for the store's file).
        .target(name: "Monitoring", dependencies: ["Platform", "GeoBase", "GeoCore", "SystemIO"], swiftSettings: strictSettings + internalChecks),

        // Beacon advertisements (iBeacon, Eddystone), ranging, and scanners: a replay file and
        // BlueZ over D-Bus.
        .target(
            name: "BeaconScanning",
            dependencies: ["Platform", "GeoBase", "GeoCore", "SystemIO", "Monitoring", .target(name: "CDBus", condition: .when(platforms: [.linux]))],
            swiftSettings: strictSettings
        ),

        // The map camera (pure): CameraState, limits and tilt profile, Mercator and globe,
        // animations, event blocks, gestures as state changes.
        .target(name: "MapCamera", dependencies: ["Platform", "GeoBase", "GeoCore"], swiftSettings: strictSettings),

        // The positioning engine: sources, PositioningManager, live updates, logging, sessions.
        .target(
            name: "Positioning",
            dependencies: ["Platform", "GeoBase", "GeoCore", "GPXCodec", "NMEACodec", "TrackFiltering", "MapMatching", "RoadNetwork", "SystemIO", "Monitoring", "Compass", "BeaconScanning"],
            swiftSettings: strictSettings
        ),

        // Test helper: appends fixes from stdin to a PositionLog, for the kill -9 crash test.
        .executableTarget(name: "PositionLogCrashHelper", dependencies: ["GeoCore", "Positioning", "SystemIO"], swiftSettings: strictSettings),

        // Test-only helpers: fixture loading via LOCATIONKIT_DATA, a manual clock, child processes.
        .target(name: "GeoTestSupport", dependencies: ["Platform", "GeoCore", "RoadNetwork", "SystemIO"], swiftSettings: strictSettings),

        // The MapLibre Style Specification v8 (pure): the expression language — types, parser,
        // evaluation, colours — and legacy functions.
        .target(name: "MapStyle", dependencies: ["Platform", "GeoBase", "GeoCore"], swiftSettings: strictSettings),

        // HarfBuzz (shaping) and FreeType (glyph outlines) from the system, as Mapnik uses them;
        // only MapRenderer imports them. Opened on first use, not linked (CHarfBuzz/shim.h says
        // why); their header paths are `lazyLibraryHeaders`.
        .systemLibrary(name: "CHarfBuzz", path: "Sources/CHarfBuzz", providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFreeType", path: "Sources/CFreeType", providers: [.apt(["libfreetype-dev"])]),
        // librsvg (SVG icons for `geo sprites build`), opened on first use as HarfBuzz is.
        .systemLibrary(name: "CRsvg", path: "Sources/CRsvg", providers: [.apt(["librsvg2-dev"])]),

        // The offline renderer (pure): anti-aliased rasterizer, PNG, text, styles, snapshots;
        // draws through a projection the caller passes in.
        .target(
            name: "MapRenderer",
            dependencies: ["Platform", 
                "GeoCore", "MapData", "ZlibCompression",
                .target(name: "CHarfBuzz", condition: .when(platforms: [.linux])),
                .target(name: "CFreeType", condition: .when(platforms: [.linux])),
                .target(name: "CRsvg", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: strictSettings + internalChecks
        ),

        // MapLibre styles drawn by the CPU rasterizer (pure): a StyleDocument's layers over its
        // GeoJSON, vector-tile and raster sources; `Map` keeps what its snapshots share (decoded
        // tiles, sprite, glyphs) for `geo snapshot --style` (`MapSnapshotter`) and MapView.
        .target(name: "StyleRendering", dependencies: ["Platform", "GeoBase", "GeoCore", "MapData", "MapStyle", "MapRenderer"], swiftSettings: strictSettings),

        // The map view (pure): camera controller + renderer (a style through StyleRendering's
        // Map, or the legacy painter) + map objects + position indicator, frames into an RGBA
        // buffer on demand.
        .target(
            name: "MapView",
            dependencies: ["Platform", "GeoBase", "GeoCore", "MapCamera", "MapData", "MapRenderer", "MapStyle", "StyleRendering", "Compass"],
            swiftSettings: strictSettings
        ),

        // What every server of the project shares (live page, tile server, tracking server):
        // loopback by default, Host and Origin checked, masked frames only, bounded heads and
        // waits, an end within a deadline. The servers' one door to Hummingbird's setup.
        .target(
            name: "HTTPServing",
            dependencies: [
                "Platform", "GeoBase", "GeoCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),

        // The live page: a person drives a MapView in a browser (frames and gestures over a
        // WebSocket). The only target that depends on Hummingbird.
        .target(
            name: "MapLivePage",
            dependencies: ["GeoBase", 
                "GeoCore", "HTTPServing", "MapCamera", "MapData", "MapView", "MapRenderer", "OSMImport", "Positioning", "Routing",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            ],
            swiftSettings: strictSettings
        ),

        // The tile server (`geo serve`): map sources, TileJSON, styles, glyphs and sprites over
        // HTTP on LocalServer; the files behind every map `geo` draws (map data, world base,
        // fonts: `MapFiles`).
        .target(
            name: "TileServer",
            dependencies: ["Platform", "GeoBase", "GeoCore", "HTTPServing", "MapCamera", "MapData", "MapStyle", "MapRenderer", "MapView", "StyleRendering", "TileArchives", "SystemIO", "ZlibCompression",
                           .product(name: "Hummingbird", package: "hummingbird"), .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio")],
            swiftSettings: strictSettings
        ),

        // Tracking clients' wire formats (pure): OsmAnd, OwnTracks, Overland, GPSLogger,
        // Teltonika Codec 8/8E → fixes with units normalised and bad input refused.
        .target(name: "TrackingProtocols", dependencies: ["Platform", "GeoBase", "GeoCore"], swiftSettings: strictSettings),

        // The tracking server: HTTP ingest on LocalServer, group commit to a store (SQLite via
        // GRDB by default, PostgreSQL via postgres-nio), acks only after the commit, the read
        // API, metrics, the load generator.
        .target(
            name: "TrackingServer",
            dependencies: ["Platform", 
                "GeoBase", "GeoCore", "GPXCodec", "HTTPServing", "TrackingProtocols", "Monitoring", "SystemIO",
                "TrackFiltering", "MapMatching", "RoadNetwork", "OSMImport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strictSettings
        ),

        // Recorded tracks read from GPX, GeoJSON, CSV or NMEA as the fixes a matcher takes, and
        // match results written as OSRM's JSON, GeoJSON or GPX (`geo match`); a route as GPX (`geo route`).
        .target(name: "TraceFiles", dependencies: ["GeoBase", "GeoCore", "GPXCodec", "NMEACodec", "SystemIO", "MapMatching", "Routing"], swiftSettings: strictSettings),

        // The evaluation harnesses `geo eval` runs (truth tracks, GNSS error model, metrics): used
        // by the CLI and the tests, not a product.
        .target(name: "Evaluation", dependencies: ["Platform", "GeoBase", "GeoCore", "GPXCodec", "SystemIO", "TrackFiltering"], swiftSettings: strictSettings),

        // `geo demo`'s tour (DemoTour.run): one narrated walk over the libraries on the embedded
        // default data, above every module it shows.
        .target(
            name: "DemoTour",
            dependencies: ["GeoBase", "GeoCore", "Compass", "HTTPServing", "MapCamera", "MapData", "MapMatching", "MapRenderer", "MapView",
                           "Monitoring", "OSMImport", "Positioning", "RoadNetwork", "Routing", "SystemIO", "TrackFiltering", "TrackingServer"],
            swiftSettings: strictSettings
        ),

        // The command-line tool's commands, a thin layer over the library entry points.
        .target(
            name: "GeoCLI",
            dependencies: ["Platform", "GeoBase", 
                "GeoCore",
                "DemoTour",
                "RoadNetwork",
                "Routing",
                "OSMImport",
                "MapData",
                "TileArchives",
                "GPXCodec",
                "TrackFiltering",
                "Evaluation",
                "TraceFiles",
                "NMEACodec",
                "Positioning",
                "MapMatching",
                "Monitoring",
                "Compass",
                "BeaconScanning",
                "SystemIO",
                "MapCamera",
                "MapRenderer",
                "MapView",
                "MapLivePage",
                "HTTPServing",
                "MapStyle",
                "StyleRendering",
                "TrackingServer",
                "TileServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),

        // `geo`: a one-line main over GeoCLI. The release build on Linux links the Swift runtime
        // and Foundation statically (`-static-stdlib`, what `swift build --static-swift-stdlib`
        // does, here so that every `swift build -c release --product geo` makes the same geo):
        // start-up falls from ~15 to ~9 ms of CPU, the dynamic loader no longer binding ~7,500
        // symbols across 16 Swift libraries (Benchmarks/pbf.sh). Debug builds and tests stay dynamic.
        // `--no-export-dynamic` takes back the `-export-dynamic` that -static-stdlib's link file
        // adds: it exported geo's own 33,000 symbols, whose table the runtime's start-up `dladdr`
        // scans and the loader maps (−0.8 ms CPU a start); nothing looks geo's symbols up by name,
        // and crash backtraces (swift-backtrace) read the symbol table from the file.
        .executableTarget(
            name: "geo",
            dependencies: ["GeoCLI"],
            swiftSettings: strictSettings + [.unsafeFlags(["-static-stdlib"], .when(platforms: [.linux], configuration: .release))],
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux], configuration: .release))]
        ),

        // Examples/: every code sample of the five seed documents ported to LocationKit, one
        // executable per document, each run by scripts/examples.sh (CI) and failing when a
        // sample's documented behaviour does not happen. In the root package (not nested as
        // Benchmarks/ and Fuzz/ are) so they reuse the library's build instead of a second one.
        .target(name: "ExampleSupport", path: "Examples/Support", swiftSettings: strictSettings),
        .executableTarget(name: "HEREPositioningExample", dependencies: ["ExampleSupport", "GeoCore", "GPXCodec", "MapCamera", "MapRenderer", "MapView", "Positioning", "TrackFiltering"],
                          path: "Examples/HEREPositioning", swiftSettings: strictSettings),
        .executableTarget(name: "LiveUpdatesExample", dependencies: ["ExampleSupport", "GeoCore", "GPXCodec", "Positioning", "TrackFiltering"],
                          path: "Examples/LiveUpdates", swiftSettings: strictSettings),
        .executableTarget(name: "CleanTrackExample", dependencies: ["ExampleSupport", "GeoCore", "GPXCodec", "MapCamera", "MapRenderer", "MapView", "Positioning", "TrackFiltering"],
                          path: "Examples/CleanTrack", swiftSettings: strictSettings),
        .executableTarget(name: "LocationDelegateExample", dependencies: ["ExampleSupport", "BeaconScanning", "Compass", "GeoCore", "GPXCodec", "Monitoring", "NMEACodec", "Positioning", "TrackFiltering"],
                          path: "Examples/LocationDelegate", swiftSettings: strictSettings),
        .executableTarget(name: "HEREMapExample", dependencies: ["ExampleSupport", "GeoCore", "MapCamera", "MapData", "MapRenderer", "MapView", "OSMImport", "StyleRendering"],
                          path: "Examples/HEREMap", swiftSettings: strictSettings),

        .testTarget(
            name: "GeoBaseTests",
            dependencies: ["GeoBase"],
            swiftSettings: strictSettings + internalChecks
        ),
        .testTarget(
            name: "GeoCoreTests",
            dependencies: ["GeoBase", "GeoCore", "GeoTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TrackFilteringTests",
            dependencies: ["GeoBase", "TrackFiltering", "Evaluation", "GeoCore", "GeoTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "PositioningTests",
            dependencies: ["GeoBase", "Positioning", "GeoTestSupport", "PositionLogCrashHelper", "TrackFiltering", "Evaluation", "MapMatching", "RoadNetwork", "SystemIO", "Monitoring", "Compass", "BeaconScanning", "NMEACodec"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SystemIOTests",
            dependencies: ["GeoBase", "SystemIO", "GPXCodec", "GeoCore", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ZlibCompressionTests",
            dependencies: ["GeoBase", "ZlibCompression", "GeoCore", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GeoTestSupportTests",
            dependencies: ["GeoTestSupport", "SystemIO"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "RoadNetworkTests",
            dependencies: ["RoadNetwork", "GeoTestSupport"],
            swiftSettings: strictSettings + internalChecks
        ),
        .testTarget(
            name: "RoutingTests",
            dependencies: ["GeoBase", "Routing", "RoadNetwork", "OSMImport", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "OSMImportTests",
            dependencies: ["GeoBase", "OSMImport", "GeoCore", "GeoTestSupport", "RoadNetwork", "Routing", "ProtobufWire", "MapData"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MapDataTests",
            dependencies: ["MapData", "TileArchives", "OSMImport", "GeoCore", "GeoTestSupport", "ZlibCompression"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MapMatchingTests",
            dependencies: ["GeoBase", "MapMatching", "RoadNetwork", "Routing", "OSMImport", "GeoCore", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "XMLStreamingTests",
            dependencies: ["GeoBase", "XMLStreaming"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GPXCodecTests",
            dependencies: ["GeoBase", "GPXCodec", "GeoTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "NMEACodecTests",
            dependencies: ["GeoBase", "NMEACodec", "GeoCore", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MonitoringTests",
            dependencies: ["GeoBase", "Monitoring", "Compass", "BeaconScanning", "GeoCore", "NMEACodec", "GeoTestSupport", "SystemIO"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings + internalChecks
        ),
        .testTarget(
            name: "MapCameraTests",
            dependencies: ["GeoBase", "MapCamera", "GeoCore", "GeoTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MapRendererTests",
            dependencies: ["MapRenderer", "MapData", "OSMImport", "GeoCore", "GeoTestSupport", "ZlibCompression", "SystemIO"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MapViewTests",
            dependencies: ["GeoBase", "MapView", "MapStyle", "StyleRendering", "MapLivePage", "HTTPServing", "MapCamera", "MapRenderer", "MapData", "Monitoring", "Compass", "OSMImport", "Positioning", "TrackFiltering", "GeoCore", "GeoTestSupport", "SystemIO"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HTTPServingTests",
            dependencies: ["GeoBase", "HTTPServing", "GeoTestSupport", "SystemIO",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                           .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOHTTP1", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TrackingProtocolsTests",
            dependencies: ["TrackingProtocols", "GeoCore"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TrackingServerTests",
            dependencies: ["TrackingServer", "TrackingProtocols", "Monitoring", "GPXCodec", "OSMImport", "RoadNetwork", "GeoCore", "GeoTestSupport", "SystemIO",
                           .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "TileServerTests",
            dependencies: ["TileServer", "HTTPServing", "MapData", "MapRenderer", "TileArchives", "OSMImport", "GeoCore", "GeoTestSupport", "SystemIO", "ZlibCompression"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MapStyleTests",
            dependencies: ["MapStyle", "GeoCore", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StyleRenderingTests",
            dependencies: ["StyleRendering", "MapStyle", "MapRenderer", "MapData", "OSMImport", "GeoCore", "GeoTestSupport"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "geoTests",
            dependencies: ["GeoBase", "geo", "GeoCLI", "GeoCore", "GPXCodec", "GeoTestSupport", "SystemIO", "MapData", "MapRenderer", "TileArchives", "ZlibCompression", "TraceFiles", "DemoTour", "NMEACodec", "Routing", "OSMImport", "Positioning", "RoadNetwork"],
            swiftSettings: strictSettings
        ),
    ]
)
