public import GeoCore
public import MapRenderer
import MapData
public import Compass

/// The user's position on a `MapView` (the positioning seed's `NMAPositionIndicator`): a
/// symbol at the position, the 68 % accuracy circle drawn to scale, a heading that follows the
/// course while moving or, in `.compass` mode, the device's compass heading.
public final class PositionIndicator {
    /// Which of a positioning manager's positions the indicator shows (the seed's raw /
    /// map-matched / current).
    public enum PositionKind: Sendable {
        case raw, mapMatched, current
    }

    /// What is drawn at the position.
    public enum DisplayObject: Sendable {
        /// A filled dot of `radius` pixels with a white ring (the default, 8 px).
        case dot(radius: Double, color: Color)
        /// An image whose middle is on the position, turned with the heading when it tracks.
        case marker(Pixmap)
    }

    /// What the symbol's heading follows (MapLibre's `renderMode` `.normal` / `.compass`).
    public enum HeadingMode: Sendable {
        /// The course of the fixes, while moving.
        case course
        /// The compass: the manager's latest reliable true heading (`didUpdateHeading`: NMEA
        /// HDT/THS, gpsd ATT, a magnetic heading made true with the World Magnetic Model);
        /// the course while there is none.
        case compass
    }

    /// Speed from which the device counts as moving, metres per second: below it the course
    /// of a fix is noise and the heading stays as it was.
    public static let movingSpeed = 0.5

    /// What making the indicator visible starts, as the seed's `visible = YES` starts
    /// positioning: set by whoever feeds the view its positions (`MapView.showPosition`), e.g.
    /// the live page's `MapSession.follow(_:)` with its manager's `start()`. The view itself
    /// knows no positioning manager, only the positions it is given.
    public var startPositioning: (@Sendable () async -> Void)?
    /// What the compass needs started (the seed's heading updates): called when a visible
    /// indicator is in, or switches to, `.compass` mode; e.g. a manager's `startUpdatingHeading()`.
    public var startHeadingUpdates: (@Sendable () async -> Void)?

    /// Whether the indicator is drawn. Making it visible calls `startPositioning`, and
    /// `startHeadingUpdates` in `.compass` mode (asynchronously, on a new task).
    public var isVisible = false {
        didSet {
            onChange?()
            if isVisible, !oldValue {
                let start = startPositioning, heading = headingMode == .compass ? startHeadingUpdates : nil
                Task {
                    await start?()
                    await heading?()
                }
            }
        }
    }
    public var accuracyIndicatorVisible = true { didSet { onChange?() } }
    public var accuracyIndicatorColor = Color(hex: 0x1E64F0, alpha: 40) { didSet { onChange?() } }
    /// Whether the symbol turns with the course while moving (unchanged when idle).
    public var tracksCourse = true { didSet { onChange?() } }
    /// Degrees clockwise added to the course-driven heading only.
    public var orientationOffset = 0.0 { didSet { onChange?() } }
    public var displayObject = DisplayObject.dot(radius: 8, color: Color(hex: 0x1E64F0)) { didSet { onChange?() } }
    public var positionKind = PositionKind.current
    /// What the heading follows: the course (the default) or the compass; `.compass` on a
    /// visible indicator calls `startHeadingUpdates`.
    public var headingMode = HeadingMode.course {
        didSet {
            onChange?()
            if headingMode == .compass, oldValue != .compass, isVisible, let startHeadingUpdates { Task { await startHeadingUpdates() } }
        }
    }

    /// The position shown, nil before the first.
    public private(set) var location: Location?
    /// The heading shown, degrees clockwise from north: in `.compass` mode the compass heading
    /// when there is one, else the course-driven heading (nil until the device has moved).
    public var heading: Double? { headingMode == .compass ? compassHeading ?? courseHeading : courseHeading }
    /// The heading from the course (with `orientationOffset`), nil until the device has moved.
    private var courseHeading: Double?
    /// The latest reliable true heading from the compass, degrees.
    private var compassHeading: Double?

    /// Told when anything drawn changes (the view then draws its next frame).
    var onChange: (() -> Void)?

    init() {}

    /// Shows a new fix: the chosen kind of position from what the manager reported. A fix
    /// moving at `movingSpeed` or more with a course turns the heading when `tracksCourse`.
    public func update(raw: Location?, mapMatched: Location?, current: Location?) {
        let chosen: Location? = switch positionKind {
        case .raw: raw
        case .mapMatched: mapMatched
        case .current: current
        }
        guard let chosen else { return }
        location = chosen
        if tracksCourse, let speed = chosen.speed, speed.metersPerSecond >= Self.movingSpeed, let course = chosen.course {
            let h = (course.degrees + orientationOffset).truncatingRemainder(dividingBy: 360)
            courseHeading = h < 0 ? h + 360 : h
        }
        onChange?()
    }

    /// Shows a new compass heading: its true heading when reliable; an unreliable one, or one
    /// with no true heading (a magnetic heading the World Magnetic Model could not resolve),
    /// drops the compass heading so the course shows again.
    public func update(heading: Heading) {
        compassHeading = heading.isReliable ? heading.trueHeading?.degrees : nil
        if headingMode == .compass { onChange?() }
    }

    /// Draws the accuracy circle (the 68 % radius on the ground), when visible.
    func drawAccuracy(through projection: CameraProjection, on canvas: inout Canvas) {
        guard isVisible, accuracyIndicatorVisible, let location, let accuracy = location.horizontalAccuracy, accuracy.meters > 0 else { return }
        let circle = MapCircle(center: location.coordinate, radius: accuracy, fill: accuracyIndicatorColor, stroke: accuracyIndicatorColor.withOpacity(1))
        ObjectDrawing.draw(circle, projection, &canvas)
    }

    /// Draws the symbol (and its heading wedge) at the position.
    func drawSymbol(through projection: some RenderProjection, on canvas: inout Canvas) {
        guard isVisible, let location, let p = projection.pixel(for: MapPoint(location.coordinate)) else { return }
        switch displayObject {
        case .dot(let radius, let color):
            if let heading {
                // A wedge pointing along the heading: its screen direction is that of a point
                // a metre ahead on the ground, so the camera's orientation and tilt count.
                let ahead = location.coordinate.coordinate(at: .meters(1), facing: Bearing(degrees: heading))
                if let q = projection.pixel(for: MapPoint(ahead)) {
                    let dx = q.x - p.x, dy = q.y - p.y, n = (dx * dx + dy * dy).squareRoot()
                    if n > 0 {
                        let ux = dx / n, uy = dy / n
                        let tip = Point(x: p.x + ux * radius * 2.2, y: p.y + uy * radius * 2.2)
                        let left = Point(x: p.x - uy * radius, y: p.y + ux * radius)
                        let right = Point(x: p.x + uy * radius, y: p.y - ux * radius)
                        canvas.fill(Path(polyline: [left, tip, right], closed: true), color: color)
                    }
                }
            }
            canvas.fill(Path(circleAt: p, radius: radius + 2), color: .white)
            canvas.fill(Path(circleAt: p, radius: radius), color: color)
        case .marker(let image):
            var pixmap = canvas.pixmap
            pixmap.draw(image, at: Point(x: p.x - Double(image.width) / 2, y: p.y - Double(image.height) / 2))
            canvas = Canvas(pixmap)
        }
    }
}
