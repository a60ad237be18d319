import ArgumentParser
import GeoCore
import HTTPServing
import MapCamera
import MapLivePage
import MapRenderer
import OSMImport
import TileArchives
import TileServer
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
    @Option(parsing: .unconditional, help: ArgumentHelp("Start camera as LAT,LON,ZOOM[,BEARING[,TILT]] (degrees; zoom \(CameraState.writtenZoomLevels); tilt \(CameraState.writtenTilts)).", valueName: "lat,lon,zoom"))
    var from: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Destination camera as LAT,LON,ZOOM[,BEARING[,TILT]].", valueName: "lat,lon,zoom"))
    var to: String

    @Option(help: "Animation: none, linear, rocket or bow.")
    var animation: MapAnimation = .bow

    @Option(parsing: .unconditional, help: "Seconds the move takes (\(CameraTransition.durations); default: the animation's own).")
    var duration: Double?

    @Option(parsing: .unconditional, help: "Frames per second (\(CameraTransition.framesPerSecond)).")
    var fps: Int = 30

    /// A view up to the camera's largest.
    enum Size: ViewSizeLimits {
        static let size = "1280x720"
        static let sides = ValidRange(1...ViewSize.maximumSide, unit: "px")
        static let note = "; the bow's path depends on it"
    }

    @OptionGroup var size: ViewSizeOption<Size>

    func validate() throws {
        for (text, option) in [(from, "--from"), (to, "--to")] { _ = try Self.camera(text, option: option, viewSize: try size.viewSize()) }
        try CameraTransition.durations.check(duration, option: "--duration")
        try CameraTransition.framesPerSecond.check(fps, option: "--fps")
    }

    func run() throws {
        let view = try size.viewSize()
        let start = try Self.camera(from, option: "--from", viewSize: view)
        let destination = try Self.camera(to, option: "--to", viewSize: view)
        let given = duration.map { Duration.nanoseconds(Int64(($0 * 1e9).rounded())) }
        let move = try CameraTransition(from: start, to: start.setting(destination.options), animation: animation, duration: given)
        // A jump (`none`) takes no time, but its frames still span the --duration asked for.
        for frame in move.frames(perSecond: fps, spanning: given) { standardOutput.line(frame.state.frameJSON(t: frame.t)) }
    }

    /// The camera `LAT,LON,ZOOM[,BEARING[,TILT]]` for `viewSize` (`CameraState(parsing:named:viewSize:)`).
    /// - Throws: `ValidationError` with MapCamera's message, which names `option`.
    static func camera(_ text: String, option: String, viewSize: ViewSize) throws -> CameraState {
        do { return try CameraState(parsing: text, named: option, viewSize: viewSize) } catch { throw ValidationError(error.message) }
    }
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

    @OptionGroup var data: MapDataOptions

    @Option(help: "Position source URI (gpsd://, nmea:, nmea+tcp://, gpx:, route:, device:); default: a simulated drive across the sample city, or none with --data.")
    var source: String?

    @OptionGroup var server: ServerOptions<WebPort>

    @Option(name: .customLong("allow-origin"), help: ArgumentHelp("An origin whose pages may use the map (its position and gestures), repeatable; its host is accepted in Host. By default only the page's own origin on a loopback or --host name.", valueName: "http://NAME:PORT"))
    var allowedOrigins: [String] = []

    /// A view a browser page shows.
    enum Size: ViewSizeLimits {
        static let size = "1280x720"
        static let sides = ValidRange(1...4_096, unit: "px")
    }

    @OptionGroup var size: ViewSizeOption<Size>

    func validate() throws {
        do { _ = try HostPolicy(bindAddresses: server.hosts, allowedOrigins: allowedOrigins) } catch { throw ValidationError("--allow-origin: \(error.message)") }
    }

    func run() async throws {
        // A tile archive is read as the view moves (MapSession); other data is read whole.
        let map = try data.mapData(command: "map")
        let centre = data.path == nil ? SampleCity.center : map.center
        let camera = try CameraState(geoCenter: centre, zoomLevel: 14, viewSize: try size.viewSize(), projection: .globe)
        let view = try CommandLineFileError.mapFiles(command: "map") { try MapFiles.view(camera: camera, features: MapFeatureIndex(map.wholeFeatures)) }
        let positionSource = try source.map { try CommandLineFiles.positionSource($0, command: "map") }
            ?? LivePageServer.defaultSource(sampleCity: data.path == nil)
        let session = MapSession(view: view, source: map.archive)
        try await server.run("map", printsURL: false) { serving in
            try await LivePageServer.run(session, following: positionSource, options: server.bind(allowedOrigins: allowedOrigins), serving: serving,
                                         note: CommandLineFiles.note("map"))
        }
    }
}
