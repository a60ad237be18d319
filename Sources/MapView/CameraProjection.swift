import GeoCore
public import MapCamera
public import MapData
public import MapRenderer

/// A camera as the renderer's projection: the renderer draws every world point where
/// `CameraState.point(for:)` puts it, so Mercator with rotation and tilt and the globe with its
/// horizon are drawn by one painter (DESIGN.md §2: MapRenderer draws through a projection given
/// by the caller).
public struct CameraProjection: RenderProjection, Sendable {
    public let camera: CameraState
    private let projector: CameraProjector
    public let pixelsPerWorldUnit: Double
    public let visibleWorldBounds: WorldRect?

    public init(_ camera: CameraState) {
        self.camera = camera
        projector = CameraProjector(camera)
        pixelsPerWorldUnit = camera.worldSize
        // The visible region as a normalised Web Mercator box, with half a view of margin for
        // labels and wide strokes; nil (try everything) when it spans every longitude or the
        // antimeridian.
        let region = camera.visibleRegion
        if region.west >= region.east || (region.west <= -180 && region.east >= 180) {
            visibleWorldBounds = nil
        } else {
            let nw = WebMercator.worldPoint(Coordinate(uncheckedLatitude: min(region.north, 85.05112878), longitude: region.west))
            let se = WebMercator.worldPoint(Coordinate(uncheckedLatitude: max(region.south, -85.05112878), longitude: region.east))
            let m = max(camera.viewSize.width, camera.viewSize.height) / 2 / camera.worldSize
            visibleWorldBounds = WorldRect(minX: nw.x, minY: nw.y, maxX: se.x, maxY: se.y).expanded(dx: m, dy: m)
        }
    }

    public func pixel(for world: MapPoint) -> Point? {
        guard let p = projector.point(worldX: world.x, worldY: world.y) else { return nil }
        return Point(x: p.x, y: p.y)
    }
}
