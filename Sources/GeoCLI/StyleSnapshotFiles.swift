import MapRenderer
import MapStyle
import StyleRendering
import SystemIO
import TileArchives
import TileServer

/// `geo snapshot --style`: draws a style file or a built-in style (TileServer's
/// `StyleFileSnapshots`) and writes the PNG; warnings go to standard error.
enum StyleSnapshotFiles {
    static func render(style path: String, base: String?, camera options: CameraArguments, straightAlpha: Bool, output: String) throws {
        let (width, height) = try options.size.pixels()
        let snapshot = try CommandLineFileError.mapFiles(command: "snapshot --style") {
            try StyleFileSnapshots.snapshot(styleAt: path, base: base, width: width, height: height, pixelRatio: options.pixelRatio,
                                            center: try options.centre(), zoom: options.zoomOption, bearing: options.bearing, pitch: options.pitch)
        }
        try write(snapshot, of: path, straightAlpha: straightAlpha, output: output)
    }

    /// The built-in style `--style` names, if it names one (SnapshotCommand does not import
    /// the MapStyle module: its name is MapRenderer's legacy `MapStyle` type's too).
    static func defaultScheme(named name: String) -> DefaultStyle.Scheme? { DefaultStyle.Scheme(styleName: name) }

    /// `geo snapshot --style default|default-night`: the built-in style of `scheme` over `data`
    /// (the sample city without `--data`), the camera at the data's centre unless given.
    /// `hide`, `showPOI` and `showPedestrian` are the legacy snapshot's switches (categories;
    /// classes or "all"), as `DefaultStyle.Options`: POIs and pedestrian features only when named.
    static func renderDefault(_ scheme: DefaultStyle.Scheme, data: MapDataOptions, hide: Set<String>, showPOI: Set<String>, showPedestrian: Set<String>,
                              camera arguments: CameraArguments, straightAlpha: Bool, output: String) throws {
        let map = try data.mapData(command: "snapshot")
        let options = DefaultStyle.Options(hiding: hide, poiClasses: showPOI, pedestrianClasses: showPedestrian)
        let centre = try arguments.centre() ?? map.center
        let (width, height) = try arguments.size.pixels()
        let snapshot = try CommandLineFileError.mapFiles(command: "snapshot") {
            try StyleFileSnapshots.snapshot(scheme, options: options, data: map, named: data.path ?? "sample city", center: centre, zoom: arguments.zoomOption,
                                            bearing: arguments.orientation, pitch: arguments.pitch, width: width, height: height, pixelRatio: arguments.pixelRatio)
        }
        try write(snapshot, of: "default style (\(scheme.rawValue))", straightAlpha: straightAlpha, output: output)
    }

    /// Writes the snapshot's PNG and its warnings (to standard error, each after `name`).
    private static func write(_ snapshot: StyleSnapshot, of name: String, straightAlpha: Bool, output: String) throws {
        try standardOutput.write(try PNG.encode(snapshot.image, premultipliedAlpha: !straightAlpha), to: output)
        for w in snapshot.warnings { CommandLineFiles.note("snapshot", "\(name): \(w)") }
    }
}
