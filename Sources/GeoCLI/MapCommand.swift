import ArgumentParser
import Foundation
import GeoCore
import HTTPServing
import MapCamera
import MapData
import MapLivePage
import MapRenderer
import MapView
import OSMImport
import Positioning
import Routing
import SystemIO
import TileArchives
import GeoBase

/// `geo map`: the map view from the command line (issue 17): the live page (`serve`, the
/// default), `animate` (camera states) and `snapshot` (the same command as `geo snapshot`).
struct MapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "The map view: a live page, camera animations and snapshots.",
        subcommands: [MapServeCommand.self, MapAnimateCommand.self, SnapshotCommand.self],
        defaultSubcommand: MapServeCommand.self
    )
}

/// `geo map animate`: the camera states of one animated move, one JSON line per frame.
struct MapAnimateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "animate",
        abstract: "Print the camera states of an animated move, one JSON line per frame.",
        discussion: """
            Each line is {"t", "latitude", "longitude", "zoomLevel", "bearing", "tilt"} for t = 0, \
            1/fps, … up to the duration, whose frame is always printed and is exactly the \
            destination. Zoom levels are MapLibre's (512-pixel world at zoom 0). Animations: none \
            (jump), linear (every property eased, no zoom-out), bow (van Wijk & Nuij 2003's optimal \
            path, rho 1.42, as MapLibre's flyTo), rocket (the same path with rho 2: a higher climb, \
            made at launch). Without --duration the animation's own is used (bow: path length / 1.2). \
            Tilt is limited by zoom (30 degrees at zoom 0 rising to 60 from zoom 10); "tilt" is the \
            tilt in use.
            """
    )

    // .unconditional: southern and western points (--to -33.9,18.4,12) are values, not options.
    @Option(parsing: .unconditional, help: ArgumentHelp("Start camera as LAT,LON,ZOOM[,BEARING[,TILT]] (degrees; zoom \(OptionRanges.zoomLevel); tilt \(OptionRanges.tilt)).", valueName: "lat,lon,zoom"))
    var from: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Destination camera as LAT,LON,ZOOM[,BEARING[,TILT]].", valueName: "lat,lon,zoom"))
    var to: String

    /// `MapAnimation` as an option value.
    enum Animation: String, ExpressibleByArgument, CaseIterable {
        case none, linear, rocket, bow
        var mapAnimation: MapAnimation {
            switch self {
            case .none: .none
            case .linear: .linear
            case .rocket: .rocket
            case .bow: .bow
            }
        }
    }

    @Option(help: "Animation: none, linear, rocket or bow.")
    var animation: Animation = .bow

    @Option(parsing: .unconditional, help: "Seconds the move takes (\(OptionRanges.animationDuration); default: the animation's own).")
    var duration: Double?

    @Option(parsing: .unconditional, help: "Frames per second (\(OptionRanges.framesPerSecond)).")
    var fps: Int = 30

    @Option(help: ArgumentHelp("View size in pixels, WIDTHxHEIGHT (each > 0 and ≤ 65536); the bow's path depends on it.", valueName: "WxH"))
    var size: String = "1280x720"

    func validate() throws {
        _ = try Self.camera(from, option: "--from", viewSize: try ViewSize.option(size))
        _ = try Self.camera(to, option: "--to", viewSize: try ViewSize.option(size))
        try OptionRanges.animationDuration.check(duration, option: "--duration")
        try OptionRanges.framesPerSecond.check(fps, option: "--fps")
    }

    func run() throws {
        let view = try ViewSize.option(size)
        let start = try Self.camera(from, option: "--from", viewSize: view)
        let destination = try Self.camera(to, option: "--to", viewSize: view)
        let given = duration.map { Duration.nanoseconds(Int64(($0 * 1e9).rounded())) }
        let move = try CameraTransition(from: start, to: start.setting(destination.options), animation: animation.mapAnimation, duration: given)
        let out = JSONLines()
        // A jump (`none`) takes no time, but its frames still span the --duration asked for.
        for frame in move.frames(perSecond: fps, spanning: given) { out.write(frame.state.frameJSON(t: frame.t)) }
    }

    /// Parses `LAT,LON,ZOOM[,BEARING[,TILT]]` into a camera for `viewSize`.
    static func camera(_ text: String, option: String, viewSize: ViewSize) throws -> CameraState {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { Double(String($0.filter { $0 != " " })) }
        guard (3...5).contains(fields.count), fields.allSatisfy({ $0 != nil }) else {
            throw ValidationError("\(option): expected LAT,LON,ZOOM[,BEARING[,TILT]] in degrees, got '\(text)'")
        }
        let n = fields.compactMap { $0 }
        try OptionRanges.zoomLevel.check(n[2], option: "\(option) zoom")
        if n.count > 3, !n[3].isFinite { throw ValidationError("\(option) bearing must be finite, got \(n[3])") }
        if n.count > 4 { try OptionRanges.tilt.check(n[4], option: "\(option) tilt") }
        do {
            return try CameraState(geoCenter: Coordinate(latitude: n[0], longitude: n[1]), zoomLevel: n[2],
                                   orientation: n.count > 3 ? n[3] : 0, tilt: n.count > 4 ? n[4] : 0,
                                   viewSize: viewSize, projection: .mercator)
        } catch let error as GeoCoreError {
            throw ValidationError("\(option): \(error.message)")
        } catch let error as MapCameraError {
            throw ValidationError("\(option): \(error.message)")
        }
    }
}

extension ViewSize {
    /// `--size WIDTHxHEIGHT` as a view size; a bad value is a usage error naming the option.
    static func option(_ text: String) throws -> ViewSize {
        do { return try ViewSize(parsing: text) } catch { throw ValidationError("--size: \(error.message)") }
    }
}

/// `MapProjection` as an option value (`--projection globe`).
enum ProjectionOption: String, ExpressibleByArgument, CaseIterable {
    case mercator, globe
    var mapProjection: MapProjection { self == .globe ? .globe : .mercator }
}

/// `geo map` (the default subcommand, `serve`): the live page on localhost, where a person
/// drives a `MapView` in a browser and watches the live position.
struct MapServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the live map page on 127.0.0.1 and ::1 (the default of geo map).",
        discussion: """
            Open http://127.0.0.1:PORT/ in a browser: drag pans, the wheel zooms about the cursor, \
            right-drag rotates (sideways) and tilts (up and down), double-click zooms in; the box \
            flies (bow) to LAT,LON[,ZOOM] or a city; buttons switch projection, layers and \
            following. Without --data and --source: the sample city with a simulated drive along \
            the demo route.
            """
    )

    @Option(help: "Map data: OpenStreetMap .osm.pbf, .osm or .osm.gz, or vector tiles .pmtiles or .mbtiles, read as the view moves (default: the sample city).")
    var data: String?

    @Option(help: "Position source URI (gpsd://, nmea:, nmea+tcp://, gpx:, route:, device:); default: a simulated drive across the sample city, or none with --data.")
    var source: String?

    @Option(help: "TCP port (\(OptionRanges.port); 0 lets the system pick a free one).")
    var port: Int = 8080

    @Option(name: .customLong("host"), help: ArgumentHelp("Address to listen on, repeatable (default 127.0.0.1 and ::1); 0.0.0.0 or :: serves every address, where IP-literal Host names are accepted too.", valueName: "ADDRESS"))
    var hosts: [String] = []

    @Option(name: .customLong("allow-origin"), help: ArgumentHelp("An origin whose pages may use the map (its position and gestures), repeatable; its host is accepted in Host. By default only the page's own origin on a loopback or --host name.", valueName: "http://NAME:PORT"))
    var allowedOrigins: [String] = []

    @Option(help: ArgumentHelp("View size in pixels, WIDTHxHEIGHT.", valueName: "WxH"))
    var size: String = "1280x720"

    /// Where and for whom the page is served.
    var serverOptions: LocalServer.Options {
        LocalServer.Options(port: port, hosts: hosts.isEmpty ? ["127.0.0.1", "::1"] : hosts, allowedOrigins: allowedOrigins)
    }

    func validate() throws {
        try OptionRanges.port.check(port, option: "--port")
        do { _ = try HostPolicy(bindAddresses: hosts, allowedOrigins: allowedOrigins) } catch {
            throw ValidationError("--allow-origin: \(error.message)")
        }
        let view = try ViewSize.option(size)
        guard view.width <= 4096, view.height <= 4096 else { throw ValidationError("--size: at most 4096 pixels a side, got \(size)") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        // A tile archive is read as the view moves (MapSession); other data is read whole.
        let map = try TileArchiveFiles.mapData(data, command: "map")
        let viewSize = try ViewSize.option(size)
        let centre = data == nil ? SampleCity.center : map.center
        let camera = try CameraState(geoCenter: centre, zoomLevel: 14, viewSize: viewSize, projection: .globe)
        let view = try MapView<ContinuousClock.Instant>(camera: camera, features: MapFeatureIndex(map.wholeFeatures),
                                                         worldBase: try WorldBaseFiles.load(environment: environment))
        #if os(Linux)
        view.text = try MapFonts.load(environment: environment)
        #endif
        let positionSource: (any PositionSource)?
        if let source {
            do { positionSource = try PositionSourceURI.source(source, startDate: Date()) } catch { throw CommandLineFileError.source("map", error) }
        } else if data == nil {
            let route = try SampleCityRoute.make().route.geometry
            positionSource = try RouteSimulationSource(polyline: route, movementSpeed: .metersPerSecond(13.9), updateInterval: .seconds(1),
                                                       noise: .init(sigma: .meters(4), seed: 7), startDate: Date())
        } else {
            positionSource = nil
        }
        let session = MapSession(view: view, source: map.archive)
        // Each task says whether it was the server. The server ends on SIGTERM or SIGINT (its
        // graceful shutdown), and following the source ends with it; a source that ends first
        // (a replayed file) leaves the page serving.
        try await withThrowingTaskGroup(of: Bool.self) { group in
            if let positionSource {
                let manager = PositioningManager(source: positionSource)
                group.addTask {
                    await session.follow(manager)
                    await manager.stop()
                    return false
                }
            }
            group.addTask {
                do {
                    try await LivePageServer.run(session, options: serverOptions, serving: { url in
                        try? FileDescriptor.standardError.writeAll("geo map: serving \(url); Ctrl-C stops\n")
                    }, note: { note in
                        try? FileDescriptor.standardError.writeAll("geo map: \(note)\n")
                    })
                } catch let error as HTTPServingError where error.code == .cannotBind {
                    throw CommandLineFileError.cannotServe("map", port: port, error)
                }
                return true
            }
            while let serverEnded = try await group.next() {
                if serverEnded { group.cancelAll() }
            }
        }
    }
}
