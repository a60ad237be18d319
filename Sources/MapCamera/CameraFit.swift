import Platform
public import GeoCore
public import GeoBase

/// Room kept free at the view's edges when fitting a box (the seed's `lookAt` padding), pixels.
public struct EdgePadding: Hashable, Sendable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// The same padding on every side, pixels.
    public init(all: Double) { self.init(top: all, left: all, bottom: all, right: all) }

    public static let zero = EdgePadding()
}

extension CameraState {
    /// This camera for a view of another size: the same centre, zoom, orientation and tilt.
    public func resized(to size: ViewSize) -> CameraState {
        // Every value comes from a valid state, so it is finite and the init cannot throw.
        try! CameraState(geoCenter: geoCenter, zoomLevel: zoomLevel, orientation: orientation, tilt: tilt,
                         viewSize: size, limits: limits, projection: projection)
    }

    /// This camera moved and zoomed so that `box` fills the view less `padding` (the seed's
    /// `lookAt` a bounding box): the box's outline on screen, as the camera draws it with its
    /// orientation, tilt and projection, is centred in the padded frame and touches it on the
    /// tighter side. A box crossing the antimeridian has `east < west`. Found by iteration
    /// (centre, then zoom by the ratio of sizes), to 0.001 px; the zoom is held within the
    /// limits, so a box too large for the smallest zoom or too small for the largest stays
    /// centred but does not fill the frame.
    /// - Throws: `MapCameraError.invalidArgument` when a padding is negative or not finite, or
    ///   leaves no frame (left + right ≥ width or top + bottom ≥ height).
    public func fitting(_ box: BoundingBox, padding: EdgePadding = .zero) throws(MapCameraError) -> CameraState {
        let pads = [("top", padding.top), ("left", padding.left), ("bottom", padding.bottom), ("right", padding.right)]
        for (name, v) in pads where !(v.isFinite && v >= 0) {
            throw MapCameraError(.invalidArgument, "padding \(name) is \(v); it must be finite and ≥ 0 px")
        }
        let frameW = viewSize.width - padding.left - padding.right, frameH = viewSize.height - padding.top - padding.bottom
        guard frameW > 0, frameH > 0 else {
            throw MapCameraError(.invalidArgument, "padding \(padding.left)+\(padding.right) × \(padding.top)+\(padding.bottom) px leaves no room in a \(viewSize) view")
        }
        let frameCentre = ScreenPoint(x: padding.left + frameW / 2, y: padding.top + frameH / 2)
        let outline = Self.outline(box)
        // Start at the box's Mercator centre.
        let east = box.east < box.west ? box.east + 360 : box.east
        let ys = [box.north, box.south].map { WebMercator.worldPoint(Coordinate(uncheckedLatitude: min(max($0, -WebMercator.maxLatitude), WebMercator.maxLatitude), longitude: 0)).y }
        var state = self
        state.setFinite(center: WebMercator.coordinate(worldX: (box.west + east) / 720 + 0.5, worldY: (ys[0] + ys[1]) / 2))
        for _ in 0..<60 {
            let points = outline.compactMap { state.point(for: $0) }
            guard points.count == outline.count else {
                // Part of the box is behind the globe or the horizon: zoom out and look again.
                guard state.zoomLevel > limits.minimumZoomLevel else { break }
                state.setFinite(zoom: state.zoomLevel - 1)
                continue
            }
            let minX = points.map(\.x).min()!, maxX = points.map(\.x).max()!
            let minY = points.map(\.y).min()!, maxY = points.map(\.y).max()!
            let d = ScreenPoint(x: (minX + maxX) / 2 - frameCentre.x, y: (minY + maxY) / 2 - frameCentre.y)
            let scale = min(frameW / max(maxX - minX, 1e-9), frameH / max(maxY - minY, 1e-9))
            let zoom = limits.clampedZoom(state.zoomLevel + log2(scale))
            let moved = (d.x * d.x + d.y * d.y).squareRoot() > 1e-3
            if !moved && abs(zoom - state.zoomLevel) < 1e-9 { break }
            let c = viewSize.center
            let centre = moved ? state.coordinate(at: ScreenPoint(x: c.x + d.x, y: c.y + d.y)) : state.geoCenter
            state.setFinite(center: centre ?? state.geoCenter, zoom: zoom)
        }
        return state
    }

    /// Points along a box's edges, 16 a side: its outline on screen is straight in flat
    /// Mercator and curved on the globe.
    static func outline(_ box: BoundingBox) -> [Coordinate] {
        let east = box.east < box.west ? box.east + 360 : box.east
        let n = 16
        var out: [Coordinate] = []
        func at(_ lat: Double, _ lon: Double) -> Coordinate {
            Coordinate(uncheckedLatitude: min(max(lat, -WebMercator.maxLatitude), WebMercator.maxLatitude), longitude: Coordinate.normalizedLongitude(lon))
        }
        for i in 0..<n {
            let t = Double(i) / Double(n)
            let lon = box.west + (east - box.west) * t, lat = box.south + (box.north - box.south) * t
            out += [at(box.north, lon), at(box.south, box.west + (east - box.west) * (1 - t)), at(lat, box.west), at(box.north - (box.north - box.south) * t, east)]
        }
        return out
    }
}
