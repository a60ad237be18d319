import GeoCore
import MapRenderer
import MapStyle
import StyleRendering
import SystemIO
import GeoBase
import TileArchives
import TileServer

/// `geo snapshot --style`: reads the style and the files its URLs name, draws it with
/// `MapSnapshotter`, writes the PNG; warnings go to standard error.
enum StyleSnapshotFiles {
    static func render(style path: String, base: String?, camera options: CameraArguments, straightAlpha: Bool, output: String) throws {
        let style = try CommandLineFileError.mapFiles(command: "snapshot --style") { try MapFiles.style(at: path) }
        let (width, height) = try options.size.pixels()
        let camera = StyleCamera(style: style, width: width, height: height, pixelRatio: options.pixelRatio,
                                 center: try options.centre(), zoom: options.zoomOption, bearing: options.bearing, pitch: options.pitch)
        let snapshot = try StyleFileSnapshots.snapshot(style, resources: StyleResourcePaths(base: base, stylePath: path), camera: camera)
        try write(snapshot, of: path, straightAlpha: straightAlpha, output: output)
    }

    /// The built-in style `--style` names, if it names one (SnapshotCommand does not import
    /// the MapStyle module: its name is MapRenderer's legacy `MapStyle` type's too).
    static func defaultScheme(named name: String) -> DefaultStyle.Scheme? { DefaultStyle.Scheme(styleName: name) }

    /// `geo snapshot --style default|default-night`: the built-in style of `scheme` over `data`
    /// (an archive's tiles, or an OSM extract's or the sample city's features tiled in memory),
    /// labels in glyphs made from the local Noto fonts; the camera at the data's centre and
    /// zoom 15 unless given. `hide`, `showPOI` and `showPedestrian` are the legacy snapshot's
    /// switches (categories; classes or "all"), as `DefaultStyle.Options`: POIs and pedestrian
    /// features only when named, as there.
    static func renderDefault(_ scheme: DefaultStyle.Scheme, data: MapDataOptions, hide: Set<String>, showPOI: Set<String>, showPedestrian: Set<String>,
                              camera arguments: CameraArguments, straightAlpha: Bool, output: String) throws {
        let map = try data.mapData(command: "snapshot")
        let options = DefaultStyle.Options(hiding: hide, poiClasses: showPOI, pedestrianClasses: showPedestrian)
        let centre = try arguments.centre() ?? map.center
        let (width, height) = try arguments.size.pixels()
        let camera = StyleCamera(longitude: centre.longitude, latitude: centre.latitude, zoom: arguments.zoomOption ?? StyleFileSnapshots.defaultStyleZoom,
                                 bearing: arguments.orientation, pitch: arguments.pitch ?? 0, width: width, height: height, pixelRatio: arguments.pixelRatio)
        let glyphs = try CommandLineFileError.mapFiles(command: "snapshot") { try MapFiles.localGlyphRanges() }
        let snapshot = try StyleFileSnapshots.snapshot(scheme, options: options, data: map, named: data.path ?? "sample city", camera: camera, glyphRange: glyphs)
        try write(snapshot, of: "default style (\(scheme.rawValue))", straightAlpha: straightAlpha, output: output)
    }

    /// Writes the snapshot's PNG and its warnings (to standard error, each after `name`).
    private static func write(_ snapshot: StyleSnapshot, of name: String, straightAlpha: Bool, output: String) throws {
        let png = try PNG.encode(snapshot.image, premultipliedAlpha: !straightAlpha)
        try standardOutput.withOutput(output) { sink in try png.withUnsafeBytes { try sink.write($0) } }
        for w in snapshot.warnings { CommandLineFiles.note("snapshot", "\(name): \(w)") }
    }
}
