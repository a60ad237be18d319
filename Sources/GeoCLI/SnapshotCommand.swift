import ArgumentParser
import Foundation
import GeoCore
import GPXCodec
import MapCamera
import MapData
import MapRenderer
import OSMImport
import MapView
import SystemIO
import TileArchives
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
            Without --data the map is of the generated sample city (geo sample-city). Layer \
            categories to hide: \(MapCategory.allCases.map(\.rawValue).joined(separator: ", ")). \
            POIs and pedestrian features are off unless --show-poi / --show-pedestrian name \
            their classes (or 'all'): POI classes such as cafe, restaurant, fuel, parking, \
            hospital, school, shop, lodging; pedestrian classes footway, path, sidewalk, \
            crossing, steps, escalator, elevator, corridor.
            """
    )

    @Option(help: "Map data: OpenStreetMap .osm.pbf, .osm or .osm.gz, or vector tiles .pmtiles or .mbtiles (default: the sample city).")
    var data: String?

    // .unconditional: southern and western centres (--center -33.9,18.4) are values, not options.
    @Option(parsing: .unconditional, help: "Centre as LAT,LON in degrees (default: the middle of the data).")
    var center: String?

    @Option(name: .customLong("zoom"), help: "Zoom level, \(OptionRanges.snapshotZoom) (256 × 2^zoom pixels around the world; with --style MapLibre's 512; default 16, with --style the style's).")
    var zoomOption: Double?
    var zoom: Double { zoomOption ?? 16 }

    @Option(name: .customLong("orientation"), parsing: .unconditional, help: "Compass direction at the top of the image, degrees clockwise from north (with --style: the style's bearing).")
    var orientationOption: Double?
    var orientation: Double { orientationOption ?? 0 }

    @Option(help: "Projection: mercator or globe (the globe blends into Mercator from zoom 12 to 13).")
    var projection: ProjectionOption = .mercator

    @Option(name: .customLong("tilt"), parsing: .unconditional, help: "Camera tilt from straight down, degrees (limited by zoom: 30 at zoom 1 rising to 60 from zoom 11).")
    var tiltOption: Double?
    var tilt: Double { tiltOption ?? 0 }

    @Option(help: "A MapLibre style (v8 style.json) to draw instead of OpenStreetMap data; the camera is the style's unless --center, --zoom, --orientation, --tilt say otherwise. 'default' and 'default-night' (or 'night') name the built-in day and night styles, drawn over --data (default: the sample city) at zoom 15 unless --zoom says otherwise.")
    var style: String?

    @Option(help: "The folder local:// URLs of --style resolve under (other relative URLs resolve against the style's folder).")
    var base: String?

    @Option(help: "Device pixels per --size pixel with --style (the PNG is W·R × H·R), 0.25…8.")
    var pixelRatio: Double = 1

    @Flag(help: "With --style: write PNG's straight alpha. By default a style's image keeps its colours multiplied by alpha, as a GL framebuffer holds them and MapLibre's render tests save them (the same where the image is opaque).")
    var straightAlpha = false

    @Option(help: ArgumentHelp("Image size in pixels, each side \(OptionRanges.snapshotSide).", valueName: "WxH"))
    var size: String = "800x600"

    @Option(help: "A GPX file whose tracks and routes are drawn over the map.")
    var track: String?

    @Option(parsing: .unconditionalSingleValue, help: "A pin at LAT,LON (repeatable).")
    var marker: [String] = []

    @Option(help: ArgumentHelp("A layer category to leave out (repeatable).", valueName: "category"))
    var hide: [String] = []

    @Option(help: ArgumentHelp("POI classes to show, comma-separated or repeated, or 'all'.", valueName: "classes"))
    var showPOI: [String] = []

    @Option(help: ArgumentHelp("Pedestrian feature classes to show, comma-separated or repeated, or 'all'.", valueName: "classes"))
    var showPedestrian: [String] = []

    @Option(help: "Label language: OSM name:LANG is preferred when present (e.g. ja, ar, en).")
    var language: String?

    @Option(name: .shortAndLong, help: "Output PNG file (- for standard output).")
    var output: String

    func validate() throws {
        try OptionRanges.snapshotZoom.check(zoom, option: "--zoom")
        guard orientation.isFinite else { throw ValidationError("--orientation must be a number of degrees, got \(orientation)") }
        try OptionRanges.tilt.check(tilt, option: "--tilt")
        _ = try parsedSize()
        guard pixelRatio.isFinite, (0.25...8).contains(pixelRatio) else { throw ValidationError("--pixel-ratio must be 0.25…8, got \(pixelRatio)") }
        if style == nil, base != nil || pixelRatio != 1 || straightAlpha { throw ValidationError("--base, --pixel-ratio and --straight-alpha go with --style") }
        if let style {
            if track != nil || !marker.isEmpty || language != nil || projection != .mercator {
                throw ValidationError("--track, --marker, --language and --projection are not drawn with --style")
            }
            if StyleSnapshotFiles.defaultScheme(named: style) == nil, !hide.isEmpty || !showPOI.isEmpty || !showPedestrian.isEmpty || data != nil {
                throw ValidationError("--data, --hide, --show-poi and --show-pedestrian go with the built-in styles (--style default, default-night) or without --style")
            }
        }
        if let center { _ = try Self.coordinate(center, option: "--center") }
        for m in marker { _ = try Self.coordinate(m, option: "--marker") }
        for h in hide where MapCategory(rawValue: h) == nil {
            throw ValidationError("--hide: unknown category '\(h)'; one of \(MapCategory.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if let language, language.isEmpty || !language.allSatisfy({ $0.isLetter || $0 == "-" || $0 == "_" }) {
            throw ValidationError("--language must be an OSM language code such as ja or zh-Hant, got '\(language)'")
        }
    }

    private func parsedSize() throws -> (Int, Int) {
        let parts = size.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw ValidationError("--size must be WIDTHxHEIGHT in pixels, e.g. 800x600, got '\(size)'")
        }
        try OptionRanges.snapshotSide.check(w, option: "--size width")
        try OptionRanges.snapshotSide.check(h, option: "--size height")
        return (w, h)
    }

    private static func coordinate(_ text: String, option: String) throws -> Coordinate {
        do { return try Coordinate(parsing: text) } catch { throw ValidationError("\(option): \(error.message)") }
    }

    func run() throws {
        let (width, height) = try parsedSize()
        if let style {
            let centre = try center.map { try Self.coordinate($0, option: "--center") }
            if let scheme = StyleSnapshotFiles.defaultScheme(named: style) {
                try StyleSnapshotFiles.renderDefault(scheme, data: data, hide: Set(hide), showPOI: Self.list(showPOI), showPedestrian: Self.list(showPedestrian),
                                                     size: (width, height), pixelRatio: pixelRatio, center: centre, zoom: zoomOption,
                                                     bearing: orientationOption, pitch: tiltOption, straightAlpha: straightAlpha, output: output)
                return
            }
            try StyleSnapshotFiles.render(style: style, base: base, size: (width, height), pixelRatio: pixelRatio, center: centre,
                                          zoom: zoomOption, bearing: orientationOption, pitch: tiltOption, straightAlpha: straightAlpha, output: output)
            return
        }
        let map = try TileArchiveFiles.mapData(data, command: "snapshot")
        let centre = try center.map { try Self.coordinate($0, option: "--center") } ?? map.center
        let index: MapFeatureIndex
        let featureCount: Int
        switch map {
        case .tiles(let archive):
            let view = try MercatorViewport(center: centre, zoom: zoom, orientation: orientation, width: width, height: height)
            do { index = try MapFeatureIndex(archive, visibleIn: view) } catch {
                throw CommandLineFileError.damaged("snapshot", data ?? "", error)
            }
            featureCount = index.features.count
        case .features(let features):
            index = MapFeatureIndex(features)
            featureCount = features.count
        }
        var style = MapStyle.day
        style.hidden = Set(hide.compactMap(MapCategory.init(rawValue:)))
        let pois = Self.list(showPOI), pedestrian = Self.list(showPedestrian)
        style.showsAllPOIs = pois.contains("all")
        style.shownPOIClasses = pois
        style.showsAllPedestrianFeatures = pedestrian.contains("all")
        style.shownPedestrianClasses = pedestrian
        style.language = language
        // The renderer's zoom counts 256-pixel tiles, the camera's (MapLibre's) a 512-pixel world.
        let camera: CameraState
        do {
            camera = try CameraState(geoCenter: centre, zoomLevel: zoom - 1, orientation: orientation, tilt: tilt,
                                     viewSize: ViewSize(width: Double(width), height: Double(height)), projection: projection.mapProjection)
        } catch { throw ValidationError("geo snapshot: \(error.message)") }
        let environment = ProcessInfo.processInfo.environment
        let view = try MapView<ContinuousClock.Instant>(camera: camera, features: index,
                                                         worldBase: try WorldBaseFiles.load(environment: environment), style: style)
        #if os(Linux)
        view.text = try MapFonts.load(environment: environment)
        #endif
        if let track {
            let document = try GPXTrackFiles.read(track)
            for t in document.tracks { for s in t.segments where s.points.count > 1 { view.add(.polyline(MapPolyline(s.points.map(\.coordinate)))) } }
            for r in document.routes where r.points.count > 1 { view.add(.polyline(MapPolyline(r.points.map(\.coordinate)))) }
        }
        for m in marker { view.add(.marker(MapMarker(try Self.coordinate(m, option: "--marker")))) }
        let png = try PNG.encode(view.snapshot())
        try CommandLineFiles.withOutput(output) { sink in try png.withUnsafeBytes { try sink.write($0) } }
        try? FileDescriptor.standardError.writeAll("geo snapshot: \(width)×\(height) at \(format(centre.latitude, 6)),\(format(centre.longitude, 6)), zoom \(zoom), \(featureCount) features → \(output)\n")
    }

    /// "a,b" and repeated options as one set of names.
    private static func list(_ values: [String]) -> Set<String> {
        Set(values.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }.filter { !$0.isEmpty })
    }
}
