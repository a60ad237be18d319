public import GeoCore
public import MapCamera
import MapData
import MapRenderer

/// Hears a map view's taps (the seed's `NMAMapViewDelegate` for selecting map objects). Every
/// method has a default that does nothing.
public protocol MapViewDelegate: AnyObject {
    /// A tap at `point` (pixels from the top-left corner) and what lies there, top-most first.
    func mapView<Instant: InstantProtocol>(_ mapView: MapView<Instant>, didTapAt point: ScreenPoint, picked: MapPickResult) where Instant.Duration == Duration
}

extension MapViewDelegate {
    public func mapView<Instant: InstantProtocol>(_ mapView: MapView<Instant>, didTapAt point: ScreenPoint, picked: MapPickResult) where Instant.Duration == Duration {}
}

extension MapView {
    /// How far from a tap objects are still picked, pixels (about a fingertip's half-width).
    public static var defaultTapRadius: Double { 12 }

    /// A tap on the view (from a gesture recogniser or the live page): picks what lies within
    /// `radius` pixels and tells the delegate.
    /// - Returns: what was picked, top-most first.
    /// - Throws: `MapViewError.invalidValue` for a point or radius `pickMapItems` refuses.
    @discardableResult
    public func tap(at point: ScreenPoint, radius: Double = defaultTapRadius) throws(MapViewError) -> MapPickResult {
        let picked = try pickMapItems(at: point, radius: radius)
        delegate?.mapView(self, didTapAt: point, picked: picked)
        return picked
    }

    /// Moves the camera so `box` fits the view less `padding` (pixels), keeping its orientation
    /// and tilt (the seed's `lookAt` a bounding box; see `CameraState.fitting`).
    /// - Throws: `MapViewError.invalidValue` when the padding leaves no room or is negative.
    public func lookAt(_ box: BoundingBox, padding: EdgePadding = .zero, animation: MapAnimation = .none, at now: Instant) throws(MapViewError) {
        do {
            let target = try camera.state.fitting(box, padding: padding)
            try camera.set(CameraOptions(geoCenter: target.geoCenter, zoomLevel: target.zoomLevel), animation: animation, at: now)
        } catch {
            throw MapViewError(.invalidValue, "lookAt \(box): \(error)")
        }
    }

    /// Resizes the view (pixels), keeping the camera's centre, zoom, orientation and tilt; the
    /// next `render(at:)` draws a frame of the new size.
    /// - Throws: `MapViewError.invalidViewSize` when a side rounds outside 1…`Pixmap.maxSide`.
    public func resize(to size: ViewSize) throws(MapViewError) {
        try Self.checkFrameSize(size)
        camera.resize(to: size)
        changed()
    }

    /// Throws `.invalidViewSize` unless a frame of `size` can be drawn.
    static func checkFrameSize(_ size: ViewSize) throws(MapViewError) {
        let w = Int(size.width.rounded()), h = Int(size.height.rounded())
        guard (1...Pixmap.maxSide).contains(w), (1...Pixmap.maxSide).contains(h) else {
            throw MapViewError(.invalidViewSize, "view \(size) is outside 1…\(Pixmap.maxSide) pixels a side")
        }
    }

    // MARK: POI categories

    /// Every POI category the map data can hold (the seed's `poiCategories`: MapData's `poi`
    /// layer classes, "fuel", "cafe", …).
    public static var poiCategories: [String] { MapSchema.poiClasses }

    /// Shows or hides one POI category (the seed's `setVisibility:forPoiCategory:`); all are
    /// shown by default.
    public func setVisibility(_ visible: Bool, forPOICategory category: String) {
        if visible {
            style.hiddenPOIClasses.remove(category)
            if !style.showsAllPOIs { style.shownPOIClasses.insert(category) }
        } else {
            style.hiddenPOIClasses.insert(category)
        }
    }

    /// Whether a POI category is drawn (the seed's `isPoiCategoryVisible:`).
    public func isPOICategoryVisible(_ category: String) -> Bool { style.showsPOI(category) }
}
