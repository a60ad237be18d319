public import ArgumentParser
import Foundation
import GeoCore
import GPXCodec
import MapCamera
import MapRenderer
import MapView
import SystemIO
import TileArchives
import TileServer
import TraceFiles
import GeoBase

/// `geo snapshot`: one PNG of the map around a point (the seed's static snapshot), drawn offline
/// from OpenStreetMap data with overlays in the same pass, drawn by a `MapView` (so over the
/// world base, through Mercator or the globe). Registered as `geo snapshot` and `geo map
/// snapshot`: one implementation under two names (CONTRACT "Snapshots").
struct SnapshotCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapshot",
        abstract: "Render a map image (PNG) around a point from OpenStreetMap data.",
        discussion: """
            Without --data the map is of the generated sample city (geo sample-city). \
            POIs and pedestrian features are off unless --show-poi / --show-pedestrian name \
            their classes (or 'all'): POI classes such as cafe, restaurant, fuel, parking, \
            hospital, school, shop, lodging; pedestrian classes footway, path, sidewalk, \
            crossing, steps, escalator, elevator, corridor.
            """
    )

    @OptionGroup var data: MapDataOptions

    @OptionGroup var camera: CameraArguments

    @Option(help: "A MapLibre style (v8 style.json) to draw instead of OpenStreetMap data; the camera is the style's unless --center, --zoom, --orientation, --tilt say otherwise. 'default' and 'default-night' (or 'night') name the built-in day and night styles, drawn over --data (default: the sample city) at zoom 15 unless --zoom says otherwise.")
    var style: String?

    @Option(help: "The folder local:// URLs of --style resolve under (other relative URLs resolve against the style's folder).")
    var base: String?

    @Flag(help: "With --style: write PNG's straight alpha. By default a style's image keeps its colours multiplied by alpha, as a GL framebuffer holds them and MapLibre's render tests save them (the same where the image is opaque).")
    var straightAlpha = false

    @Option(help: "A GPX file whose tracks and routes are drawn over the map.")
    var track: String?

    @Option(parsing: .unconditionalSingleValue, help: "A pin at LAT,LON (repeatable).")
    var marker: [String] = []

    @Option(help: ArgumentHelp("A layer category to leave out (repeatable).", valueName: "category"))
    var hide: [MapCategory] = []

    @Option(help: ArgumentHelp("POI classes to show, comma-separated or repeated, or 'all'.", valueName: "classes"))
    var showPOI: [String] = []

    @Option(help: ArgumentHelp("Pedestrian feature classes to show, comma-separated or repeated, or 'all'.", valueName: "classes"))
    var showPedestrian: [String] = []

    @Option(help: "Label language: OSM name:LANG is preferred when present (e.g. ja, ar, en).")
    var language: String?

    @Option(name: .shortAndLong, help: "Output PNG file (- for standard output).")
    var output: String

    func validate() throws {
        if style == nil, base != nil || camera.pixelRatio != 1 || straightAlpha { throw ValidationError("--base, --pixel-ratio and --straight-alpha go with --style") }
        if let style {
            if track != nil || !marker.isEmpty || language != nil || camera.projection != .mercator {
                throw ValidationError("--track, --marker, --language and --projection are not drawn with --style")
            }
            if StyleSnapshotFiles.defaultScheme(named: style) == nil, !hide.isEmpty || !showPOI.isEmpty || !showPedestrian.isEmpty || data.path != nil {
                throw ValidationError("--data, --hide, --show-poi and --show-pedestrian go with the built-in styles (--style default, default-night) or without --style")
            }
        }
        for m in marker { _ = try Coordinate.option(m, "--marker") }
        if let language, language.isEmpty || !language.allSatisfy({ $0.isLetter || $0 == "-" || $0 == "_" }) {
            throw ValidationError("--language must be an OSM language code such as ja or zh-Hant, got '\(language)'")
        }
    }

    func run() throws {
        if let style {
            return try StyleSnapshotFiles.render(style, base: base, data: data, hide: Set(hide.map(\.rawValue)), showPOI: Self.list(showPOI), showPedestrian: Self.list(showPedestrian),
                                                 camera: camera, straightAlpha: straightAlpha, output: output)
        }
        let map = try data.mapData(command: "snapshot")
        let centre = try camera.centre() ?? map.center
        let lines = try track.map { try CommandLineFiles.trace($0) { path throws(TraceFileError) in try TraceFile.gpxDocument(path).polylines } }
        let style = MapStyle.day(hiding: Set(hide), poiClasses: Self.list(showPOI),
                                 pedestrianClasses: Self.list(showPedestrian), language: language)
        let state = try camera.camera(around: centre)
        let (image, featureCount) = try CommandLineFileError.mapFiles(command: nil) {
            try MapFiles.snapshot(map, named: data.path ?? "sample city", camera: state, zoom: camera.zoom, style: style, lines: lines ?? [],
                                  markers: try marker.map { try Coordinate.option($0, "--marker") })
        }
        try standardOutput.write(try PNG.encode(image), to: output)
        let (width, height) = try camera.size.pixels()
        CommandLineFiles.note("snapshot", "\(width)×\(height) at \(format(centre.latitude, 6)),\(format(centre.longitude, 6)), zoom \(camera.zoom), \(featureCount) features → \(output)")
    }

    /// "a,b" and repeated options as one set of names.
    private static func list(_ values: [String]) -> Set<String> {
        Set(values.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }.filter { !$0.isEmpty })
    }
}

/// `--hide`: MapRenderer's layer categories by name.
extension MapCategory: ExpressibleByArgument {}

/// The camera of `geo snapshot` (and `geo map snapshot`): where it looks, how it is turned, and
/// the image's size and scale.
struct CameraArguments: ParsableArguments {
    // .unconditional: southern and western centres (--center -33.9,18.4) are values, not options.
    @Option(parsing: .unconditional, help: "Centre as LAT,LON in degrees (default: the middle of the data).")
    var center: String?

    @Option(name: .customLong("zoom"), help: "Zoom level, \(MapFiles.snapshotZooms) (256 × 2^zoom pixels around the world; with --style MapLibre's 512; default 16, with --style the style's).")
    var zoomOption: Double?

    @Option(name: .customLong("orientation"), parsing: .unconditional, help: "Compass direction at the top of the image, degrees clockwise from north (with --style: the style's bearing).")
    var bearing: Double?

    @Option(help: "Projection: mercator or globe (the globe blends into Mercator from zoom 12 to 13).")
    var projection: MapProjection = .mercator

    @Option(name: .customLong("tilt"), parsing: .unconditional, help: "Camera tilt from straight down, degrees (limited by zoom: 30 at zoom 1 rising to 60 from zoom 11).")
    var pitch: Double?

    /// A PNG up to 8192² (256 MiB of RGBA).
    enum Size: ViewSizeLimits {
        static let size = "800x600"
        static let sides = MapFiles.snapshotSides
    }

    @OptionGroup var size: ViewSizeOption<Size>

    @Option(help: "Device pixels per --size pixel with --style (the PNG is W·R × H·R), 0.25…8.")
    var pixelRatio: Double = 1

    /// The zoom in the legacy renderer's levels (a 256-pixel world), 16 without `--zoom`.
    var zoom: Double { zoomOption ?? 16 }
    /// Degrees clockwise from north at the top, 0 without `--orientation`.
    var orientation: Double { bearing ?? 0 }

    func validate() throws {
        try MapFiles.snapshotZooms.check(zoom, option: "--zoom")
        guard orientation.isFinite else { throw ValidationError("--orientation must be a number of degrees, got \(orientation)") }
        try CameraState.writtenTilts.check(pitch, option: "--tilt")
        guard pixelRatio.isFinite, (0.25...8).contains(pixelRatio) else { throw ValidationError("--pixel-ratio must be 0.25…8, got \(pixelRatio)") }
        _ = try centre()
    }

    /// `--center`, nil without it.
    func centre() throws -> Coordinate? { try center.map { try Coordinate.option($0, "--center") } }

    /// The map view's camera looking at `centre`.
    func camera(around centre: Coordinate) throws -> CameraState {
        // The renderer's zoom counts 256-pixel tiles, the camera's (MapLibre's) a 512-pixel world.
        do {
            return try CameraState(geoCenter: centre, zoomLevel: zoom - 1, orientation: orientation, tilt: pitch ?? 0,
                                   viewSize: try size.viewSize(), projection: projection)
        } catch let error as MapCameraError { throw ValidationError("geo snapshot: \(error.message)") }
    }
}
