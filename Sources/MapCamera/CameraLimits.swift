import GeoCore
public import GeoBase

/// A zoom-dependent limit on tilt: the seed's `maximumTiltProfile` (HERE `NMAMapView`), a
/// function from zoom level to the largest tilt allowed there, written as a piecewise-linear
/// table so that it is a comparable, sendable value. Below the first point and above the last
/// the end values hold.
public struct TiltProfile: Hashable, Sendable {
    /// (zoom level, tilt in degrees) pairs in increasing zoom order.
    public let points: [(zoom: Double, tilt: Double)]

    /// Highest tilt any profile may allow, degrees: 85°, as MapLibre's `maxPitch` ceiling; at
    /// 90° the camera would look along the ground and see no map.
    public static let ceiling = 85.0

    /// Creates a profile from points in strictly increasing zoom order.
    /// - Throws: `MapCameraError.invalidLimits` for no points, unordered or non-finite zooms, or a
    ///   tilt outside 0…85°.
    public init(_ points: [(zoom: Double, tilt: Double)]) throws(MapCameraError) {
        guard !points.isEmpty else { throw MapCameraError(.invalidLimits, "a tilt profile needs at least one point") }
        for (i, p) in points.enumerated() {
            guard p.zoom.isFinite, (0...Self.ceiling).contains(p.tilt) else {
                throw MapCameraError(.invalidLimits, "tilt profile point \(i) (zoom \(p.zoom), tilt \(p.tilt)°) must have a finite zoom and a tilt in 0…\(Self.ceiling)°")
            }
            if i > 0, !(p.zoom > points[i - 1].zoom) {
                throw MapCameraError(.invalidLimits, "tilt profile zooms must increase, but point \(i) has zoom \(p.zoom) after \(points[i - 1].zoom)")
            }
        }
        self.points = points
    }

    /// One tilt at every zoom.
    public static func constant(_ tilt: Double) throws(MapCameraError) -> TiltProfile { try TiltProfile([(0, tilt)]) }

    /// The default maximum: 30° at zoom 0 rising linearly to 60° at zoom 10 and above. 60° is
    /// MapLibre's default `maxPitch`; at world zooms a steep tilt shows mostly sky, so the seed's
    /// zoom-dependent profile starts lower.
    public static let defaultMaximum = TiltProfile(checked: [(0, 30), (10, 60)])

    /// No tilt limit below: 0° everywhere.
    public static let zero = TiltProfile(checked: [(0, 0)])

    private init(checked points: [(zoom: Double, tilt: Double)]) { self.points = points }

    /// The profile's tilt at `zoom`, degrees (linear between points, the end values beyond).
    public func tilt(atZoom zoom: Double) -> Double {
        guard let first = points.first, let last = points.last else { return 0 }
        if zoom <= first.zoom { return first.tilt }
        if zoom >= last.zoom { return last.tilt }
        let i = points.firstIndex { $0.zoom > zoom }! // exists: zoom < last.zoom
        let a = points[i - 1], b = points[i]
        return a.tilt + (b.tilt - a.tilt) * (zoom - a.zoom) / (b.zoom - a.zoom)
    }

    public static func == (a: TiltProfile, b: TiltProfile) -> Bool {
        a.points.count == b.points.count && zip(a.points, b.points).allSatisfy { $0.zoom == $1.zoom && $0.tilt == $1.tilt }
    }

    public func hash(into hasher: inout Hasher) {
        for p in points {
            hasher.combine(p.zoom)
            hasher.combine(p.tilt)
        }
    }
}

/// What a camera may do: its zoom range and its tilt range at each zoom (the seed's
/// `minimumZoomLevel`, `NMAMapViewMaximumZoomLevel`, `maximumTiltProfile`).
public struct CameraLimits: Hashable, Sendable {
    /// Lowest zoom level, ≥ 0.
    public let minimumZoomLevel: Double
    /// Highest zoom level, ≤ 24.
    public let maximumZoomLevel: Double
    /// Largest tilt at each zoom.
    public let maximumTiltProfile: TiltProfile
    /// Smallest tilt at each zoom (0° unless a view insists on a perspective).
    public let minimumTiltProfile: TiltProfile

    /// The zoom range any limits may span: 0 (the whole world in one 512-pixel tile) through 24
    /// (about 1 cm per pixel at the equator).
    public static let zoomRange = 0.0...24.0

    /// Creates limits.
    /// - Throws: `MapCameraError.invalidLimits` when the zoom range is empty or outside 0…24, or
    ///   the minimum tilt exceeds the maximum at a profile point.
    public init(minimumZoomLevel: Double = 0, maximumZoomLevel: Double = 22,
                maximumTiltProfile: TiltProfile = .defaultMaximum, minimumTiltProfile: TiltProfile = .zero) throws(MapCameraError) {
        guard Self.zoomRange.contains(minimumZoomLevel), Self.zoomRange.contains(maximumZoomLevel), minimumZoomLevel <= maximumZoomLevel else {
            throw MapCameraError(.invalidLimits, "zoom range \(minimumZoomLevel)…\(maximumZoomLevel) must lie within 0…24 and not be empty")
        }
        for z in (maximumTiltProfile.points + minimumTiltProfile.points).map(\.zoom) + [minimumZoomLevel, maximumZoomLevel]
        where minimumTiltProfile.tilt(atZoom: z) > maximumTiltProfile.tilt(atZoom: z) {
            throw MapCameraError(.invalidLimits, "minimum tilt \(minimumTiltProfile.tilt(atZoom: z))° exceeds maximum tilt \(maximumTiltProfile.tilt(atZoom: z))° at zoom \(z)")
        }
        self.minimumZoomLevel = minimumZoomLevel
        self.maximumZoomLevel = maximumZoomLevel
        self.maximumTiltProfile = maximumTiltProfile
        self.minimumTiltProfile = minimumTiltProfile
    }

    /// Zoom 0…22, tilt 0° up to `TiltProfile.defaultMaximum`.
    public static let `default` = CameraLimits(checkedMinimum: 0, maximum: 22)

    private init(checkedMinimum minimum: Double, maximum: Double) {
        minimumZoomLevel = minimum
        maximumZoomLevel = maximum
        maximumTiltProfile = .defaultMaximum
        minimumTiltProfile = .zero
    }

    /// The largest tilt allowed at `zoom`, degrees (the seed's `maximumTiltAtZoomLevel:`).
    public func maximumTilt(atZoom zoom: Double) -> Double { maximumTiltProfile.tilt(atZoom: zoom) }

    /// The smallest tilt allowed at `zoom`, degrees (the seed's `minimumTiltAtZoomLevel:`).
    public func minimumTilt(atZoom zoom: Double) -> Double { minimumTiltProfile.tilt(atZoom: zoom) }

    /// `zoom` clamped into the zoom range.
    public func clampedZoom(_ zoom: Double) -> Double { min(max(zoom, minimumZoomLevel), maximumZoomLevel) }

    /// `tilt` clamped into the tilt range at `zoom`.
    public func clampedTilt(_ tilt: Double, atZoom zoom: Double) -> Double {
        min(max(tilt, minimumTilt(atZoom: zoom)), maximumTilt(atZoom: zoom))
    }
}
