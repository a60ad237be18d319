import ArgumentParser
import GeoCore
import GPXCodec
import MapRenderer
import MapStyle
import StyleRendering
import SystemIO
import GeoBase

/// `geo snapshot --style`: reads the style and the files its URLs name, draws it with
/// `StyleSnapshot`, writes the PNG; warnings go to standard error.
enum StyleSnapshotFiles {
    /// The largest resource (tile, GeoJSON, image) read, bytes.
    static let maximumResourceSize = 256 << 20

    static func render(style path: String, base: String?, size: (Int, Int), pixelRatio: Double, center: Coordinate?,
                       zoom: Double?, bearing: Double?, pitch: Double?, straightAlpha: Bool, output: String) throws {
        let style = try StyleFiles.read(path, command: "snapshot --style")
        let folder = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let paths = StyleResourcePaths(base: base, styleFolder: folder)
        var camera = StyleCamera(style: style, width: size.0, height: size.1, pixelRatio: pixelRatio)
        if let center { (camera.latitude, camera.longitude) = (center.latitude, center.longitude) }
        if let zoom { camera.zoom = zoom }
        if let bearing { camera.bearing = bearing }
        if let pitch { camera.pitch = pitch }
        let snapshot = try StyleSnapshot(style: style, camera: camera) { url in
            let file = try paths.path(for: url)
            let fd = try FileDescriptor(opening: file)
            defer { try? fd.close() }
            return try fd.readToEnd(limit: maximumResourceSize)
        }
        let png = try PNG.encode(snapshot.image, premultipliedAlpha: !straightAlpha)
        try CommandLineFiles.withOutput(output) { sink in try png.withUnsafeBytes { try sink.write($0) } }
        let err = FileDescriptor.standardError
        for w in snapshot.warnings { try? err.writeAll("geo snapshot: \(path): \(w)\n") }
    }
}
