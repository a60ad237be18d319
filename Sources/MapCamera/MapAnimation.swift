import Platform
public import GeoCore
public import GeoBase

/// How the camera moves to a new state (the seed's `NMAMapAnimation`).
///
/// - `none`: jumps; every frame is the destination.
/// - `linear`: eases every property (centre in Web Mercator, zoom, orientation the short way
///   round, tilt) together with MapLibre's default easing, cubic-bezier(0.25, 0.1, 0.25, 1);
///   the zoom never leaves the interval between its start and end.
/// - `bow`: van Wijk & Nuij's optimal zoom-and-pan path ("Smooth and efficient zooming and
///   panning", IEEE InfoVis 2003, §4: closed form, eqs. 9–11) with ρ = 1.42, MapLibre's
///   `flyTo`: it zooms out to travel far and lands exactly; orientation and tilt ease along.
/// - `rocket`: the same optimal path with ρ = 2 (a higher climb: the peak zoom-out grows
///   with ρ) flown twice as fast by default (V = 2.4 instead of 1.2 screens per second of
///   path length), with an ease-out timing, 1 − (1 − k)³, so the climb happens at launch
///   and the landing is gentle.
public enum MapAnimation: String, Hashable, Sendable, CaseIterable {
    case none
    case linear
    case rocket
    case bow
}

/// One move of the camera from a start state to a destination under an animation: a pure
/// function of elapsed time (MapLibre's "animations are functions of time, not timers").
public struct CameraTransition: Hashable, Sendable {
    public let start: CameraState
    public let destination: CameraState
    public let animation: MapAnimation
    /// The durations a user may give, seconds: 0 through an hour of animation.
    public static let durations = ValidRange(0...3_600, unit: "s")
    /// The frame rates ``frames(perSecond:spanning:)`` is given by a user: 1 through 240 frames a second.
    public static let framesPerSecond = ValidRange(1...240, unit: "")
    /// How long the move takes; zero for `.none`.
    public let duration: Duration

    private let path: ZoomPanPath?

    /// Longest animation accepted: one day.
    public static let maximumDuration = Duration.seconds(86_400)

    /// Plans a move.
    /// - Parameters:
    ///   - duration: nil for the animation's own duration (`naturalDuration`).
    /// - Throws: `MapCameraError.invalidArgument` for a negative duration or one above a day,
    ///   or a destination for another view.
    public init(from start: CameraState, to destination: CameraState, animation: MapAnimation, duration: Duration? = nil) throws(MapCameraError) {
        guard start.viewSize == destination.viewSize, start.limits == destination.limits else {
            throw MapCameraError(.invalidArgument, "a transition needs the same view size and limits at both ends")
        }
        if let duration, duration < .zero || duration > Self.maximumDuration {
            throw MapCameraError(.invalidArgument, "animation duration \(duration) must be 0…86400 s")
        }
        self.start = start
        self.destination = destination
        self.animation = animation
        switch animation {
        case .none, .linear: path = nil
        case .bow: path = ZoomPanPath(start, destination, rho: 1.42)
        case .rocket: path = ZoomPanPath(start, destination, rho: 2)
        }
        self.duration = animation == .none ? .zero : duration ?? Self.naturalDuration(animation, path)
    }

    /// The animation's own duration: none 0; linear 0.5 s (MapLibre's `easeTo`); bow and
    /// rocket S / V, the path length in screen widths over the speed (`flyTo`: V = 1.2 for
    /// bow, 2.4 for rocket), capped at the maximum.
    private static func naturalDuration(_ animation: MapAnimation, _ path: ZoomPanPath?) -> Duration {
        switch animation {
        case .none: return .zero
        case .linear: return .milliseconds(500)
        case .bow, .rocket:
            let speed = animation == .bow ? 1.2 : 2.4
            let seconds = min((path?.length ?? 0) / speed, 86_400)
            return .nanoseconds(Int64((seconds * 1e9).rounded()))
        }
    }

    /// The camera `elapsed` after the start: the start state at or before zero, the
    /// destination exactly at or after `duration`.
    public func state(atElapsed elapsed: Duration) -> CameraState {
        guard duration > .zero else { return destination }
        return state(atProgress: elapsed / duration)
    }

    /// The move as frames: the states at t = 0, 1/fps, 2/fps, … seconds below `total`, then
    /// at `total` itself (the destination, exactly, when `total` ≥ `duration`), computed one
    /// at a time, so memory stays flat however many frames there are.
    /// - Parameter total: how long the frames span; nil: `duration` (a jump takes no time, but
    ///   can be shown over a span).
    /// - Precondition: `fps` > 0.
    public func frames(perSecond fps: Int, spanning total: Duration? = nil) -> some Sequence<(t: Double, state: CameraState)> {
        precondition(fps > 0, "Broken contract: frames need a rate above 0 per second, got \(fps)")
        let total = total ?? duration, seconds = total / .seconds(1)
        var i = 0, done = false
        return AnyIterator { () -> (t: Double, state: CameraState)? in
            guard !done else { return nil }
            let t = Double(i) / Double(fps)
            i += 1
            // 1e-9 s: a frame that falls on the end within rounding is the end frame.
            if t < seconds - 1e-9 { return (t, state(atElapsed: .nanoseconds(Int64((t * 1e9).rounded())))) }
            done = true
            return (seconds, state(atElapsed: total))
        }
    }

    /// The camera at a fraction of the move's time, 0 (start) … 1 (destination, exactly).
    public func state(atProgress t: Double) -> CameraState {
        if animation == .none || t >= 1 || t.isNaN { return destination }
        if t <= 0 { return start }
        let k: Double
        switch animation {
        case .rocket: k = 1 - (1 - t) * (1 - t) * (1 - t)
        default: k = Easing.standard.value(at: t)
        }
        var s = start
        let a = start.centerWorld, b = destination.centerWorld
        let dx = b.x - a.x - (b.x - a.x).rounded(), dy = b.y - a.y // the short way round
        let centre: (x: Double, y: Double), zoom: Double
        if let path {
            let along = path.along(k)
            centre = (a.x + dx * along.fraction, a.y + dy * along.fraction)
            zoom = start.zoomLevel + along.zoomChange
        } else {
            centre = (a.x + dx * k, a.y + dy * k)
            zoom = start.zoomLevel + (destination.zoomLevel - start.zoomLevel) * k
        }
        let turn = (destination.orientation - start.orientation).remainder(dividingBy: 360)
        s.setFinite(center: WebMercator.coordinate(worldX: centre.x - centre.x.rounded(.down), worldY: centre.y),
                    zoom: zoom,
                    orientation: start.orientation + turn * k,
                    tilt: start.tilt + (destination.tilt - start.tilt) * k)
        return s
    }
}

/// van Wijk & Nuij 2003's optimal path between two views, in the start view's pixels: `w` is
/// the visible width, `u` the distance travelled; both are closed forms in the path parameter
/// s ∈ [0, S] (§4, eqs. 9–11).
struct ZoomPanPath: Hashable, Sendable {
    let w0: Double, w1: Double, u1: Double, rho: Double
    let r0: Double
    /// S, the path length (in units where one screen width at the start is 1 · w0).
    let length: Double

    init(_ a: CameraState, _ b: CameraState, rho curve: Double) {
        rho = curve
        let w0 = max(a.viewSize.width, a.viewSize.height)
        let w1 = w0 / exp2(b.zoomLevel - a.zoomLevel)
        let pa = a.centerWorld, pb = b.centerWorld
        let dx = pb.x - pa.x - (pb.x - pa.x).rounded()
        let u1 = (dx * dx + (pb.y - pa.y) * (pb.y - pa.y)).squareRoot() * a.worldSize
        self.w0 = w0; self.w1 = w1; self.u1 = u1
        let rho2 = curve * curve
        if u1 < 1e-9 * w0 {
            // Pure zoom (the paper's special case u0 = u1): w = w0 e^{±ρ s}, S = |ln(w1 / w0)| / ρ.
            r0 = 0
            length = abs(log(w1 / w0)) / curve
        } else {
            // b_i = (w1² − w0² ± ρ⁴u1²) / (2 w_i ρ² u1), + for i = 0; r_i = ln(−b_i + √(b_i² + 1)) = −asinh(b_i).
            let b0 = (w1 * w1 - w0 * w0 + rho2 * rho2 * u1 * u1) / (2 * w0 * rho2 * u1)
            let b1 = (w1 * w1 - w0 * w0 - rho2 * rho2 * u1 * u1) / (2 * w1 * rho2 * u1)
            r0 = -asinh(b0)
            length = (-asinh(b1) - r0) / curve
        }
    }

    /// Whether the path only zooms (no distance to travel).
    var isPureZoom: Bool { u1 < 1e-9 * w0 }

    /// Width of the view at path parameter s, start-view pixels (eq. 9).
    func width(_ s: Double) -> Double {
        if isPureZoom { return w0 * exp((w1 < w0 ? -1 : 1) * rho * s) }
        return w0 * cosh(r0) / cosh(rho * s + r0)
    }

    /// Distance travelled at path parameter s, start-view pixels (eq. 9).
    func travelled(_ s: Double) -> Double {
        if isPureZoom { return 0 }
        return w0 / (rho * rho) * (cosh(r0) * tanh(rho * s + r0) - sinh(r0))
    }

    /// Where the camera is at a fraction k of the path length: the fraction of the distance
    /// travelled and the zoom change from the start.
    func along(_ k: Double) -> (fraction: Double, zoomChange: Double) {
        let s = k * length
        return (isPureZoom ? k : travelled(s) / u1, log2(w0 / width(s)))
    }
}

/// An easing curve: a cubic Bézier from (0, 0) to (1, 1) with control points (x1, y1) and
/// (x2, y2), as CSS `cubic-bezier()` (CSS Easing Functions Level 1, §3.2).
struct Easing: Hashable, Sendable {
    let x1: Double, y1: Double, x2: Double, y2: Double

    /// MapLibre's `defaultEasing` (also CSS `ease`): cubic-bezier(0.25, 0.1, 0.25, 1).
    static let standard = Easing(x1: 0.25, y1: 0.1, x2: 0.25, y2: 1)

    /// The eased progress at time fraction t in 0…1: solves x(u) = t for the curve parameter
    /// u by bisection (x is monotonic for x1, x2 in 0…1; 52 halvings reach double precision)
    /// and returns y(u).
    func value(at t: Double) -> Double {
        if t <= 0 { return 0 }
        if t >= 1 { return 1 }
        func bezier(_ u: Double, _ p1: Double, _ p2: Double) -> Double {
            let v = 1 - u
            return 3 * v * v * u * p1 + 3 * v * u * u * p2 + u * u * u
        }
        var lo = 0.0, hi = 1.0
        for _ in 0..<52 {
            let mid = (lo + hi) / 2
            if bezier(mid, x1, x2) < t { lo = mid } else { hi = mid }
        }
        return bezier((lo + hi) / 2, y1, y2)
    }
}
