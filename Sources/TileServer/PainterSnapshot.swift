public import GeoCore
import GeoBase
public import MapCamera
public import MapRenderer
public import TileArchives
import MapView

extension MapFiles {
    /// The painter's zoom levels a snapshot may be asked for: the world at 256 px (0) to about
    /// 1.5 cm per pixel (22).
    public static let snapshotZooms = ValidRange(0...22, unit: "")
    /// The pixels a snapshot's side may have (an 8192² RGBA image is 256 MiB).
    public static let snapshotSides = ValidRange(1...8_192, unit: "px")
    /// The map `geo snapshot` draws without a style: `map` by the built-in painter in a
    /// `MapView` (over the world base, labelled in the local fonts) for `camera`, with `lines`
    /// and `markers` drawn over it in the same pass.
    /// - Parameters:
    ///   - name: `map`'s file, named in errors.
    ///   - zoom: the camera's zoom in the painter's levels (a 256-pixel world; the camera's own
    ///     counts a 512-pixel one), as asked for, before the camera's limits.
    /// - Returns: the image, and how many features were read for it: all of a file's or the
    ///   sample city's, an archive's as indexed for the view.
    /// - Throws: ``MapFilesError`` `.damaged` at `name` for an archive tile that cannot be
    ///   read; `RenderError` for a view out of range; as ``view(camera:features:style:)``.
    public static func snapshot(_ map: DrawnMapData, named name: String, camera: CameraState, zoom: Double, style: MapRenderer.MapStyle,
                                lines: [[Coordinate]], markers: [Coordinate]) throws -> (image: Pixmap, features: Int) {
        let index: MapFeatureIndex
        do {
            index = try MapFeatureIndex(drawing: map.archive, or: map.wholeFeatures, around: camera.geoCenter, zoom: zoom, orientation: camera.orientation,
                                        width: Int(camera.viewSize.width), height: Int(camera.viewSize.height))
        } catch let error as RenderError { throw error } catch { throw MapFilesError(.damaged, "\(error)", at: name) }
        let view = try view(camera: camera, features: index, style: style)
        view.addOverlays(lines: lines, markers: markers)
        return (view.snapshot(), map.archive == nil ? map.wholeFeatures.count : index.features.count)
    }
}
