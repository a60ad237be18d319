import Platform
public import GeoCore

/// A user's touch or mouse gesture, as the change it makes to a camera (the seed's map
/// gestures); ``CameraState/applying(_:)`` is the pure state change, ``CameraController``
/// adds the events.
public enum Gesture: Hashable, Sendable {
    /// One finger (or a mouse drag) from one screen point to another: the ground under `from`
    /// follows the finger to `to`.
    case pan(from: ScreenPoint, to: ScreenPoint)
    /// Two fingers spreading (`scale` > 1 zooms in) about a screen point that stays put.
    case pinch(scale: Double, about: ScreenPoint)
    /// Two fingers turning clockwise by `degrees` about a screen point that stays put: the map
    /// turns with the fingers, so the orientation decreases.
    case rotate(degrees: Double, about: ScreenPoint)
    /// Two fingers moving up the screen by `degrees` of tilt (negative: back towards vertical).
    case tilt(degrees: Double)
    /// A double tap: one zoom level in about the tapped point.
    case doubleTap(at: ScreenPoint)
}

extension CameraState {
    /// This camera after a gesture. Zoom and tilt stay within the limits; a gesture whose
    /// point shows no Earth (sky, space) or whose numbers are not finite leaves the camera as it is.
    public func applying(_ gesture: Gesture) -> CameraState {
        switch gesture {
        case let .pan(from, to):
            guard let c = coordinate(at: from) else { return self }
            return settingLocation(c, at: to)
        case let .pinch(scale, about):
            guard scale.isFinite, scale > 0 else { return self }
            return zoomed(by: log2(scale), about: about)
        case let .rotate(degrees, about):
            guard degrees.isFinite else { return self }
            var s = self
            s.setFinite(orientation: orientation - degrees)
            guard let c = coordinate(at: about) else { return s }
            return s.settingLocation(c, at: about)
        case let .tilt(degrees):
            guard degrees.isFinite else { return self }
            var s = self
            // From the tilt in use, so a tilt asked beyond the profile does not swallow the gesture.
            s.setFinite(tilt: clippedTilt + degrees)
            return s
        case let .doubleTap(at):
            return zoomed(by: 1, about: at)
        }
    }

    /// This camera zoomed by `levels` with the ground under `point` kept in place.
    func zoomed(by levels: Double, about point: ScreenPoint) -> CameraState {
        var s = self
        s.setFinite(zoom: zoomLevel + levels)
        guard let c = coordinate(at: point) else { return s }
        return s.settingLocation(c, at: point)
    }

    /// This camera moved so that `coordinate` appears at `point`, zoom, orientation and tilt
    /// unchanged (MapLibre's `setLocationAtPoint`). On the Mercator plane one step is exact
    /// (a view moves as a translation of the world); on the globe up to eight steps refine it
    /// to 0.01 px. Unchanged when `point` shows no Earth.
    public func settingLocation(_ coordinate: Coordinate, at point: ScreenPoint) -> CameraState {
        var s = self
        for _ in 0..<8 {
            guard let seen = s.coordinate(at: point) else { return s }
            let want = WebMercator.worldPoint(coordinate), have = WebMercator.worldPoint(seen)
            let o = s.centerWorld
            let dx = want.x - have.x - (want.x - have.x).rounded()
            let y = min(max(o.y + want.y - have.y, 0), 1)
            let x = o.x + dx
            s.setFinite(center: WebMercator.coordinate(worldX: x - x.rounded(.down), worldY: y))
            guard let p = s.point(for: coordinate), p.distance(to: point) > 0.01 else { break }
        }
        return s
    }
}

/// Pan inertia after a gesture ends with the finger still moving: the view glides on in the
/// same direction, slowing at a constant rate until it stops (MapLibre's drag-pan inertia:
/// speed capped at 1 400 px/s, deceleration 2 500 px/s²).
public struct PanInertia: Hashable, Sendable {
    /// Highest speed kept, pixels per second.
    public static let maximumSpeed = 1_400.0
    /// Deceleration, pixels per second².
    public static let deceleration = 2_500.0
    /// Speeds below this end the gesture without inertia, pixels per second.
    public static let minimumSpeed = 10.0

    /// Unit direction on the screen and the starting speed in pixels per second.
    let direction: (x: Double, y: Double)
    let speed: Double

    /// The glide for a release velocity in pixels per second, or nil when it is too slow (or not finite).
    public init?(velocityX: Double, velocityY: Double) {
        let v = (velocityX * velocityX + velocityY * velocityY).squareRoot()
        guard v.isFinite, v >= Self.minimumSpeed else { return nil }
        direction = (velocityX / v, velocityY / v)
        speed = min(v, Self.maximumSpeed)
    }

    /// How long the glide lasts, seconds.
    public var duration: Double { speed / Self.deceleration }

    /// Pixels glided after `seconds`: v t − a t² / 2, constant after the stop.
    public func distance(after seconds: Double) -> Double {
        let t = min(max(seconds, 0), duration)
        return speed * t - Self.deceleration * t * t / 2
    }

    /// The pan gesture that moves the view `seconds` into the glide, from the view's centre.
    func pan(after seconds: Double, viewCenter c: ScreenPoint) -> Gesture {
        let d = distance(after: seconds)
        return .pan(from: c, to: ScreenPoint(x: c.x + direction.x * d, y: c.y + direction.y * d))
    }

    public static func == (a: PanInertia, b: PanInertia) -> Bool { a.direction == b.direction && a.speed == b.speed }
    public func hash(into h: inout Hasher) { h.combine(direction.x); h.combine(direction.y); h.combine(speed) }
}

/// Pinch-zoom and rotate inertia: after a two-finger gesture ends with the fingers still
/// zooming or turning, the zoom and orientation go on changing about the gesture's last point,
/// each slowing at a constant rate until it stops (MapLibre GL JS `handler_inertia`: zoom
/// deceleration 20 levels/s², orientation deceleration 1 000 °/s² and at most 360 °/s; the
/// zoom speed is capped here at 4 levels/s, where MapLibre's cap of 1 400 never binds).
public struct ZoomRotateInertia: Hashable, Sendable {
    /// Zoom deceleration, levels per second².
    public static let zoomDeceleration = 20.0
    /// Highest zoom speed kept, levels per second.
    public static let maximumZoomSpeed = 4.0
    /// Orientation deceleration, degrees per second².
    public static let rotationDeceleration = 1_000.0
    /// Highest turning speed kept, degrees per second.
    public static let maximumRotationSpeed = 360.0
    /// Speeds below these end the gesture without inertia: levels and degrees per second.
    public static let minimumZoomSpeed = 0.05, minimumRotationSpeed = 5.0

    /// Zoom speed, levels per second, and turning speed, degrees per second clockwise (as the
    /// fingers turn), both signed; the screen point they are about.
    let zoomSpeed: Double, rotationSpeed: Double
    let about: ScreenPoint

    /// The glide for release speeds, or nil when both are too slow (or not finite).
    public init?(zoomSpeed: Double, rotationSpeed: Double, about: ScreenPoint) {
        let z = zoomSpeed.isFinite && abs(zoomSpeed) >= Self.minimumZoomSpeed ? min(max(zoomSpeed, -Self.maximumZoomSpeed), Self.maximumZoomSpeed) : 0
        let r = rotationSpeed.isFinite && abs(rotationSpeed) >= Self.minimumRotationSpeed
            ? min(max(rotationSpeed, -Self.maximumRotationSpeed), Self.maximumRotationSpeed) : 0
        guard z != 0 || r != 0, about.x.isFinite, about.y.isFinite else { return nil }
        self.zoomSpeed = z
        self.rotationSpeed = r
        self.about = about
    }

    /// How long the glide lasts, seconds: until the slower of the two has stopped.
    public var duration: Double { max(abs(zoomSpeed) / Self.zoomDeceleration, abs(rotationSpeed) / Self.rotationDeceleration) }

    /// `v t − a t² / 2` for |v|, signed as v, constant once stopped.
    private static func glided(_ v: Double, _ a: Double, after seconds: Double) -> Double {
        let t = min(max(seconds, 0), abs(v) / a)
        return (abs(v) * t - a * t * t / 2) * (v < 0 ? -1 : 1)
    }

    /// Zoom levels and degrees glided after `seconds`.
    public func change(after seconds: Double) -> (zoom: Double, degrees: Double) {
        (Self.glided(zoomSpeed, Self.zoomDeceleration, after: seconds), Self.glided(rotationSpeed, Self.rotationDeceleration, after: seconds))
    }

    /// `state` moved `seconds` into the glide: zoomed, then turned, about the gesture's point.
    func apply(to state: CameraState, after seconds: Double) -> CameraState {
        let c = change(after: seconds)
        return state.zoomed(by: c.zoom, about: about).applying(.rotate(degrees: c.degrees, about: about))
    }
}
