import MapRenderer
import MapStyle
import StyleRendering
import SystemIO
import TileArchives
import TileServer

/// `geo snapshot --style`: draws a style file or a built-in style (TileServer's
/// `StyleFileSnapshots`) and writes the PNG; warnings go to standard error.
enum StyleSnapshotFiles {
    /// The built-in style `--style` names, if it names one (SnapshotCommand does not import
    /// the MapStyle module: its name is MapRenderer's legacy `MapStyle` type's too).
    static func defaultScheme(named name: String) -> DefaultStyle.Scheme? { DefaultStyle.Scheme(styleName: name) }

    /// Draws `style` and writes its PNG. A built-in style (`default`, `default-night`) is drawn
    /// over `data` (the sample city without `--data`), the camera at the data's centre unless
    /// given, with the legacy snapshot's switches `hide`, `showPOI` and `showPedestrian`
    /// (categories; classes or "all") as `DefaultStyle.Options`: POIs and pedestrian features
    /// only when named. Any other is a style file, its URLs read under `base` and its folder.
    static func render(_ style: String, base: String?, data: MapDataOptions, hide: Set<String>, showPOI: Set<String>, showPedestrian: Set<String>,
                       camera arguments: CameraArguments, straightAlpha: Bool, output: String) throws {
        let (width, height) = try arguments.size.pixels()
        var name = style
        let snapshot: StyleSnapshot
        if let scheme = defaultScheme(named: style) {
            let map = try data.mapData(command: "snapshot")
            let options = DefaultStyle.Options(hiding: hide, poiClasses: showPOI, pedestrianClasses: showPedestrian)
            let centre = try arguments.centre() ?? map.center
            name = "default style (\(scheme.rawValue))"
            snapshot = try CommandLineFileError.mapFiles(command: "snapshot") {
                try StyleFileSnapshots.snapshot(scheme, options: options, data: map, named: data.path ?? "sample city", center: centre, zoom: arguments.zoomOption,
                                                bearing: arguments.orientation, pitch: arguments.pitch, width: width, height: height, pixelRatio: arguments.pixelRatio)
            }
        } else {
            snapshot = try CommandLineFileError.mapFiles(command: "snapshot --style") {
                try StyleFileSnapshots.snapshot(styleAt: style, base: base, width: width, height: height, pixelRatio: arguments.pixelRatio,
                                                center: try arguments.centre(), zoom: arguments.zoomOption, bearing: arguments.bearing, pitch: arguments.pitch)
            }
        }
        try standardOutput.write(try PNG.encode(snapshot.image, premultipliedAlpha: !straightAlpha), to: output)
        for w in snapshot.warnings { CommandLineFiles.note("snapshot", "\(name): \(w)") }
    }
}
