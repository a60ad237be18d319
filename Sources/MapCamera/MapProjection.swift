import Platform
public import GeoCore

/// How a camera draws the Earth (the seed's `projectionType`).
///
/// - `mercator`: the Web Mercator plane (EPSG:3857) seen by a perspective camera.
/// - `globe`: a sphere of radius `worldSize / (2π cos φ₀)` pixels (φ₀ the centre's latitude, so
///   the scale at the centre equals Mercator's, as MapLibre GL JS 5's `getGlobeRadiusPixels`)
///   seen from the same camera: straight down it is the vertical near-side perspective
///   projection (Snyder 1987, §23; PROJ `+proj=nsper`) from the camera's altitude, tilted it is
///   PROJ's `+proj=tpers`. From zoom 11 to 12 screen positions blend linearly into Mercator's,
///   and from zoom 12 on the globe is Mercator: MapLibre GL JS 5's `globe` projection
///   (`interpolate linear zoom 11 vertical-perspective 12 mercator`). MapLibre mixes the two in
///   its shader but answers `project` / `unproject` for the sphere until zoom 12, a jump of
///   up to a pixel there; here screen ⇄ geo answers for the blend that is drawn.
public enum MapProjection: String, Hashable, Sendable, CaseIterable {
    case mercator
    case globe

    /// Zoom below which the globe is drawn as a pure sphere.
    public static let globeTransitionStart = 11.0
    /// Zoom from which the globe is drawn as pure Mercator.
    public static let globeTransitionEnd = 12.0
}

/// The camera as three orthonormal axes in a frame whose origin is the view's centre on the
/// ground: x to the screen's right, y towards the screen's bottom along the ground, h up.
/// The camera stands `distance` pixels from the origin, tilted `tilt` from the vertical
/// towards +y, and looks at the origin (MapLibre's camera, written as plain vectors).
struct CameraGeometry {
    let width: Double, height: Double
    let distance: Double
    let sinTilt: Double, cosTilt: Double
    let sinBearing: Double, cosBearing: Double

    init(_ state: CameraState) {
        width = state.viewSize.width
        height = state.viewSize.height
        distance = state.cameraToCenterDistance
        let t = state.clippedTilt * .pi / 180, b = state.orientation * .pi / 180
        sinTilt = sin(t); cosTilt = cos(t)
        sinBearing = sin(b); cosBearing = cos(b)
    }

    /// Screen-aligned ground axes (right, down) from east / south offsets, pixels.
    @inline(__always)
    func screenAligned(east: Double, south: Double) -> (x: Double, y: Double) {
        (east * cosBearing + south * sinBearing, -east * sinBearing + south * cosBearing)
    }

    /// East / south offsets from screen-aligned ground axes (the inverse rotation).
    @inline(__always)
    func geographic(x: Double, y: Double) -> (east: Double, south: Double) {
        (x * cosBearing - y * sinBearing, x * sinBearing + y * cosBearing)
    }

    /// The camera's position in the frame.
    var camera: (x: Double, y: Double, h: Double) { (0, distance * sinTilt, distance * cosTilt) }

    /// The screen point of a point of the frame, or nil when it is not in front of the camera.
    func project(x: Double, y: Double, h: Double) -> ScreenPoint? {
        let c = camera
        let rx = x - c.x, ry = y - c.y, rh = h - c.h
        let depth = -ry * sinTilt - rh * cosTilt // along the view direction (0, −sin t, −cos t)
        guard depth > 1e-9 * distance else { return nil }
        let down = ry * cosTilt - rh * sinTilt // along the screen's down axis (0, cos t, −sin t)
        return ScreenPoint(x: width / 2 + distance * rx / depth, y: height / 2 + distance * down / depth)
    }

    /// The direction of the ray from the camera through a screen point, in the frame.
    func ray(through p: ScreenPoint) -> (x: Double, y: Double, h: Double) {
        let a = p.x - width / 2, c = p.y - height / 2
        // distance · forward + a · right + c · down
        return (a, -distance * sinTilt + c * cosTilt, -distance * cosTilt - c * sinTilt)
    }
}

extension CameraState {
    /// Weight of the sphere in the drawing, 1 (pure globe) … 0 (pure Mercator).
    var globeWeight: Double {
        guard projection == .globe else { return 0 }
        let s = MapProjection.globeTransitionStart, e = MapProjection.globeTransitionEnd
        return min(max((e - zoomLevel) / (e - s), 0), 1)
    }

    /// Radius of the globe, pixels: `worldSize / (2π cos φ₀)` (MapLibre GL JS 5).
    public var globeRadius: Double { worldSize / (2 * .pi * cos(geoCenter.latitude * .pi / 180)) }

    /// Height of the camera above the globe's sphere (radius `WebMercator.radius`), metres:
    /// the `h` of the perspective projection the globe view is, vertical (PROJ `nsper`) when
    /// untilted, tilted (`tpers`) otherwise. The camera stands `cameraToCenterDistance` from the
    /// centre, tilted ``clippedTilt`` from the vertical.
    public var cameraAltitude: Distance {
        let r = globeRadius, d = cameraToCenterDistance, t = clippedTilt * .pi / 180
        let back = d * sin(t), up = d * cos(t)
        // √(back² + (r + up)²) − r, without cancelling r: (back² + up² + 2 r up) / (√… + r).
        let height = (back * back + up * up + 2 * r * up) / ((back * back + (r + up) * (r + up)).squareRoot() + r)
        return .meters(height * WebMercator.radius / r)
    }

    /// The screen point where `coordinate` appears, or nil when it is hidden: behind the camera,
    /// on the far side of the globe. Points outside the view's rectangle are returned too.
    /// On the Mercator plane the copy of the world nearest the centre is used.
    public func point(for coordinate: Coordinate) -> ScreenPoint? {
        let g = CameraGeometry(self), w = globeWeight
        if w == 0 { return mercatorPoint(for: coordinate, g) }
        guard let sphere = globePoint(for: coordinate, g) else { return nil }
        if w == 1 { return sphere }
        guard let flat = mercatorPoint(for: coordinate, g) else { return nil }
        return ScreenPoint(x: w * sphere.x + (1 - w) * flat.x, y: w * sphere.y + (1 - w) * flat.y)
    }

    /// The geographic point seen at a screen point, or nil where the view shows no Earth (sky
    /// above the horizon, space around the globe, beyond Mercator's ±85.0511°).
    public func coordinate(at point: ScreenPoint) -> Coordinate? {
        guard point.x.isFinite, point.y.isFinite else { return nil }
        let g = CameraGeometry(self), w = globeWeight
        if w == 0 { return mercatorCoordinate(at: point, g) }
        if w == 1 { return globeCoordinate(at: point, g) }
        return blendedCoordinate(at: point, g, weight: w)
    }

    // MARK: Mercator

    /// The centre's normalised world position (`WebMercator.worldPoint`).
    var centerWorld: (x: Double, y: Double) { WebMercator.worldPoint(geoCenter) }

    private func mercatorPoint(for c: Coordinate, _ g: CameraGeometry) -> ScreenPoint? {
        let p = WebMercator.worldPoint(c), o = centerWorld
        let east = (p.x - o.x - (p.x - o.x).rounded()) * worldSize // nearest copy of the world
        let south = (p.y - o.y) * worldSize
        let s = g.screenAligned(east: east, south: south)
        return g.project(x: s.x, y: s.y, h: 0)
    }

    /// The world position (normalised, x unwrapped) seen at a screen point on the Mercator plane.
    func mercatorWorld(at point: ScreenPoint, _ g: CameraGeometry) -> (x: Double, y: Double)? {
        let r = g.ray(through: point), c = g.camera
        guard r.h < 0 else { return nil } // at or above the horizon
        let k = -c.h / r.h
        let d = g.geographic(x: c.x + k * r.x, y: c.y + k * r.y)
        let o = centerWorld
        return (o.x + d.east / worldSize, o.y + d.south / worldSize)
    }

    private func mercatorCoordinate(at point: ScreenPoint, _ g: CameraGeometry) -> Coordinate? {
        guard let w = mercatorWorld(at: point, g), (0...1).contains(w.y) else { return nil }
        return WebMercator.coordinate(worldX: w.x - w.x.rounded(.down), worldY: w.y)
    }

    // MARK: Globe

    /// Unit vector of a coordinate from the Earth's centre.
    private static func unitVector(_ c: Coordinate) -> (Double, Double, Double) {
        let φ = c.latitude * .pi / 180, λ = c.longitude * .pi / 180
        return (cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
    }

    /// East, north and up unit vectors at the centre.
    private var localAxes: (e: (Double, Double, Double), n: (Double, Double, Double), u: (Double, Double, Double)) {
        let φ = geoCenter.latitude * .pi / 180, λ = geoCenter.longitude * .pi / 180
        return ((-sin(λ), cos(λ), 0), (-sin(φ) * cos(λ), -sin(φ) * sin(λ), cos(φ)), (cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ)))
    }

    private func globePoint(for c: Coordinate, _ g: CameraGeometry) -> ScreenPoint? {
        let r = globeRadius, axes = localAxes
        let p = Self.unitVector(c)
        let d = (p.0 - axes.u.0, p.1 - axes.u.1, p.2 - axes.u.2)
        let east = r * dot(d, axes.e), north = r * dot(d, axes.n), up = r * dot(d, axes.u)
        let s = g.screenAligned(east: east, south: -north)
        // Hidden behind the globe unless the camera is on the outer side of the point's tangent
        // plane: (camera − point) · (point − centre) > 0, the centre at (0, 0, −r).
        let cam = g.camera
        let facing = (cam.x - s.x) * s.x + (cam.y - s.y) * s.y + (cam.h - up) * (up + r)
        guard facing > 0 else { return nil }
        return g.project(x: s.x, y: s.y, h: up)
    }

    private func globeCoordinate(at point: ScreenPoint, _ g: CameraGeometry) -> Coordinate? {
        let r = globeRadius, ray = g.ray(through: point), cam = g.camera
        // |cam + k·ray − (0, 0, −r)|² = r², nearest k > 0.
        let m = (cam.x, cam.y, cam.h + r)
        let a = dot(ray, ray), b = dot(m, ray), c = dot(m, m) - r * r
        let disc = b * b - a * c
        guard disc >= 0 else { return nil }
        let k = (-b - disc.squareRoot()) / a
        guard k > 0 else { return nil }
        let x = cam.x + k * ray.0, y = cam.y + k * ray.1, h = cam.h + k * ray.2
        let d = g.geographic(x: x, y: y)
        let axes = localAxes
        let east = d.east / r, north = -d.south / r, up = h / r + 1
        let v = (east * axes.e.0 + north * axes.n.0 + up * axes.u.0,
                 east * axes.e.1 + north * axes.n.1 + up * axes.u.1,
                 east * axes.e.2 + north * axes.n.2 + up * axes.u.2)
        let lat = atan2(v.2, (v.0 * v.0 + v.1 * v.1).squareRoot()) * 180 / .pi
        let lon = atan2(v.1, v.0) * 180 / .pi
        return Coordinate(uncheckedLatitude: min(max(lat, -90), 90), longitude: Coordinate.normalizedLongitude(lon))
    }

    /// Inverse of the blended drawing between zoom 11 and 12, where no closed form exists:
    /// Newton's method on the world position, from the Mercator answer (at most 12 steps; the
    /// two drawings differ by a small fraction of the view there, so a few steps reach 10⁻⁶ px).
    private func blendedCoordinate(at point: ScreenPoint, _ g: CameraGeometry, weight: Double) -> Coordinate? {
        guard var w = mercatorWorld(at: point, g) else { return nil }
        let h = 1e-3 / worldSize // one thousandth of a pixel, as a world step
        func coordinate(_ w: (x: Double, y: Double)) -> Coordinate? {
            guard (0...1).contains(w.y) else { return nil }
            return WebMercator.coordinate(worldX: w.x - w.x.rounded(.down), worldY: w.y)
        }
        for _ in 0..<12 {
            guard let c = coordinate(w), let p = self.point(for: c) else { return nil }
            let ex = p.x - point.x, ey = p.y - point.y
            if ex * ex + ey * ey < 1e-12 { return c }
            guard let cx = coordinate((w.x + h, w.y)), let cy = coordinate((w.x, w.y + h)),
                  let px = self.point(for: cx), let py = self.point(for: cy) else { return nil }
            let j11 = (px.x - p.x) / h, j21 = (px.y - p.y) / h, j12 = (py.x - p.x) / h, j22 = (py.y - p.y) / h
            let det = j11 * j22 - j12 * j21
            guard det != 0, det.isFinite else { return nil }
            w = (w.x - (j22 * ex - j12 * ey) / det, w.y - (-j21 * ex + j11 * ey) / det)
        }
        return coordinate(w)
    }
}

@inline(__always)
private func dot(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> Double { a.0 * b.0 + a.1 * b.1 + a.2 * b.2 }

/// Screen positions of many world points for one camera (a renderer's frame): the camera's
/// trigonometry is computed once, and on Mercator a normalised world point goes to the screen
/// without the round trip through latitude and longitude.
public struct CameraProjector: Sendable {
    public let state: CameraState
    private let geometry: CameraGeometry
    private let weight: Double
    private let centre: (x: Double, y: Double)

    public init(_ state: CameraState) {
        self.state = state
        geometry = CameraGeometry(state)
        weight = state.globeWeight
        centre = state.centerWorld
    }

    /// The screen point of normalised Web Mercator world position (x, y) (`WebMercator.worldPoint`),
    /// or nil when hidden; the same as `CameraState.point(for:)` of its coordinate.
    public func point(worldX x: Double, worldY y: Double) -> ScreenPoint? {
        guard weight == 0 else { return state.point(for: WebMercator.coordinate(worldX: x, worldY: y)) }
        let east = (x - centre.x - (x - centre.x).rounded()) * state.worldSize // nearest copy of the world
        let south = (y - centre.y) * state.worldSize
        let s = geometry.screenAligned(east: east, south: south)
        return geometry.project(x: s.x, y: s.y, h: 0)
    }
}

/// The ground seen along each screen row of a flat drawing (Mercator, and the globe from zoom 12
/// on, where it is Mercator). A camera without roll sees a whole row at one depth, so the
/// screen → ground map (a planar homography for a tilted view) is affine along a row: a
/// compositor resamples a raster of the ground with one addition per pixel, the one division
/// made per row.
public struct GroundRows: Sendable {
    private let geometry: CameraGeometry
    private let centre: (x: Double, y: Double)
    private let worldSize: Double

    /// Nil when the drawing is not a plane (the globe below zoom 12).
    public init?(_ state: CameraState) {
        guard state.globeWeight == 0 else { return nil }
        geometry = CameraGeometry(state)
        centre = state.centerWorld
        worldSize = state.worldSize
    }

    /// Where row `y` (screen pixels from the top; pass a pixel's centre, row + 0.5) meets the
    /// ground: the normalised Web Mercator position seen at x = 0 (x unwrapped around the
    /// centre: it may leave 0…1, y too beyond ±85.0511°) and its change per screen pixel to
    /// the right; nil when the row is at or above the horizon. The same as
    /// `CameraState.coordinate(at:)` wherever that sees Earth.
    public func row(atY y: Double) -> (x: Double, y: Double, dx: Double, dy: Double)? {
        let g = geometry
        let c = y - g.height / 2
        // The ray's upward part (CameraGeometry.ray): it must point down to meet the ground.
        let down = g.distance * g.cosTilt + c * g.sinTilt
        guard down > 0 else { return nil }
        let k = g.distance * g.cosTilt / down
        // The ground point at screen x = 0 in the screen-aligned frame, and per pixel: (k, 0).
        let gx = k * -g.width / 2, gy = g.distance * g.sinTilt + k * (c * g.cosTilt - g.distance * g.sinTilt)
        let start = g.geographic(x: gx, y: gy), step = g.geographic(x: k, y: 0)
        return (centre.x + start.east / worldSize, centre.y + start.south / worldSize, step.east / worldSize, step.south / worldSize)
    }
}
